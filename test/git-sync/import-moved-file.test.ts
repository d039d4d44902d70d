import { describe, expect, it } from 'vitest';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * A page's file moved with git (`git mv` into another folder, its SUMMARY.md item pointing at the new path) keeps the
 * page: same id, same path in the space, its `git.path` the new one, and its links read from where it now is. The
 * import took it for a new page and deleted the old one, so the page's id, and what named it, changed though its path
 * did not (gitprobe17a, pushes interleaved with exports on a GitBook-exported repository). A file renamed to another
 * name keeps its page too, at the new name's path (import-followed-pages); a blob two vanished files had is matched to neither.
 */

const pagesOf = async (spaceId: string, token: string) => {
  const flat: any[] = [];
  const walk = (pages: any[]) => pages.forEach((p) => (flat.push(p), walk(p.pages ?? [])));
  walk(expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages);
  return flat;
};

describe('Git Sync import: a file moved with git', () => {
  it('keeps its page (id, path) when its name is unchanged, and (id) when renamed', { timeout: 240_000 }, async () => {
    const name = `moved-file-${crypto.randomUUID().slice(0, 8)}`;
    const setup = '# Setup\n\nInstall it, then read [the home page](../README.md).\n';
    const same = '# Same\n\nThe same text in two files.\n';
    const { token, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n\n## Guides\n\n* [Setup](guides/setup.md)\n* [Usage](guides/usage.md)\n* [One](guides/one.md)\n* [Two](guides/two.md)\n',
      'README.md': '# Home\n\nWelcome.\n',
      'guides/setup.md': setup,
      'guides/usage.md': '# Usage\n\nUse it.\n',
      'guides/one.md': same,
      'guides/two.md': same,
    });
    const before = await pagesOf(space.id, token);
    const byGit = (pages: any[], path: string) => pages.find((p) => p.git?.path === path);
    const setupPage = byGit(before, 'guides/setup.md');
    const usagePage = byGit(before, 'guides/usage.md');

    await control('commit', {
      name,
      message: 'Move setup, rename usage, move both copies',
      files: {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n\n## Guides\n\n* [Setup](archive/setup.md)\n* [Usage](guides/how-to-use.md)\n* [One](archive/one.md)\n* [Two](archive/two.md)\n',
        'guides/setup.md': null,
        'archive/setup.md': setup,
        'guides/usage.md': null,
        'guides/how-to-use.md': '# Usage\n\nUse it.\n',
        'guides/one.md': null,
        'guides/two.md': null,
        'archive/one.md': same,
        'archive/two.md': same,
      },
    });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    const after = await pagesOf(space.id, token);

    const moved = byGit(after, 'archive/setup.md');
    expect(moved).toMatchObject({ id: setupPage.id, path: setupPage.path, title: 'Setup' });
    expect(after.some((p) => p.id === setupPage.id && p.git?.path === 'guides/setup.md')).toBe(false);
    const markdown = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${moved.id}?format=markdown`, { token }), 200).body.markdown;
    expect(markdown).toContain(`[the home page](/pages/${byGit(after, 'README.md').id})`);

    // Renamed (the same blob, one vanished page and one new): the same page, at the path a fresh import names it by.
    const renamed = byGit(after, 'guides/how-to-use.md');
    expect(renamed.path).toBe(`${usagePage.path.replace(/[^/]*$/, '')}how-to-use`);
    expect(renamed.id).toBe(usagePage.id);
    // One blob at two vanished paths and two new ones: neither guessed.
    expect(after.filter((p) => /^archive\/(one|two)\.md$/.test(p.git?.path ?? '')).map((p) => p.title)).toEqual(['Same', 'Same']);
    expect(after.filter((p) => p.type === 'document')).toHaveLength(5);
  });
});
