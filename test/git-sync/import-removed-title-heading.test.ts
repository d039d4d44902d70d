import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * A push that removes a page's heading 1 (`# Set the view` becomes `## Set the view`): the page is titled as a fresh
 * import of the same commit titles it, by its SUMMARY.md item's text, or, without a summary, by its file's name. It kept
 * the title of the heading it no longer has (gitprobe16b's history replay of markholland/gitbooks-docs: a commit turned
 * `# setViewpoint` into `## setViewpoint`; the replayed space said `setViewpoint`, a fresh import `Setviewpoint`).
 */
describe('Git Sync import: a title heading removed by a push', () => {
  it('titles the page as a fresh import of the commit does', async () => {
    const name = 'removed-title-heading';
    const files = {
      'README.md': '# Home\n\nWelcome.\n',
      'guide.md': '# Set the view\n\nSome text.\n',
      'other.md': '# Other page\n\nMore text.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Other](other.md)\n',
    };
    const { org, token, space, byPath } = await importedSpace(name, files);
    const guide = byPath('guide.md');
    const other = byPath('other.md');
    expect(guide.title).toBe('Set the view');

    await control('commit', {
      name,
      message: 'Headings one level down',
      files: { 'guide.md': '## Set the view\n\nSome text.\n', 'other.md': '# Other page, renamed\n\nMore text.\n' },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: false, timestamp: new Date().toISOString() });

    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    const titles = async (spaceId: string) => {
      const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages;
      return Object.fromEntries(pages.map((page) => [page.git?.path, page.title]));
    };
    const freshTitles = await titles(fresh.id);
    expect(freshTitles['guide.md']).toBe('Guide');
    expect(await titles(space.id)).toEqual(freshTitles);
    const read = async (id: string) => expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${id}`, { token }), 200).body;
    expect((await read(guide.id)).title).toBe('Guide');
    expect((await read(other.id)).title).toBe('Other page, renamed');
  });
});
