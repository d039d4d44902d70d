import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * Found by a probe (probe20, wandb/gitbook: a push whose SUMMARY.md no longer listed `examples.md`, a page eight other
 * pages linked to): a page the push removes from the space is deleted, and the pages whose files the push left alone kept
 * their links to it, by its id, now a page the space does not have (`/pages/<deleted id>` read as Markdown). A fresh
 * import of the same commit reads their files and shows the link as written (`examples.md`, no page of the space). Those
 * pages are now read again, as a fresh import reads them.
 */

const markdownOf = async (spaceId: string, token: string, path: string) => {
  const flat: any[] = [];
  const walk = (pages: any[]) => pages.forEach((p) => (flat.push(p), walk(p.pages ?? [])));
  walk(expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages);
  const page = flat.find((p) => p.git?.path === path);
  expect(page, path).toBeTruthy();
  return { ids: new Set(flat.map((p) => p.id)), markdown: expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${page.id}?format=markdown`, { token }), 200).body.markdown as string };
};

describe('Git Sync import: links to pages a push removes', () => {
  it('reads again the unchanged pages linking to them, as a fresh import reads them', { timeout: 240_000 }, async () => {
    const name = `links-removed-${crypto.randomUUID().slice(0, 8)}`;
    const guide = '# Guide\n\nSee the [examples](examples.md) and the [reference](ref/api.md#calls).\n';
    const { token, org, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Examples](examples.md)\n* [Reference](ref/api.md)\n',
      'README.md': '# Home\n\nStart with the [guide](guide.md).\n',
      'guide.md': guide,
      'examples.md': '# Examples\n\nSome.\n',
      'ref/api.md': '# Reference\n\n## Calls\n\nThem.\n',
    });
    const before = await markdownOf(space.id, token, 'guide.md');
    expect(before.markdown).toMatch(/\[examples\]\(\/pages\/[A-Za-z0-9]+\)/);

    // The push drops the examples item (its file stays in the repository) and deletes the reference page; guide.md is unchanged.
    await control('commit', {
      name,
      message: 'Drop two pages',
      files: { 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n', 'ref/api.md': null },
    });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    const pushed = await markdownOf(space.id, token, 'guide.md');

    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    const freshGuide = await markdownOf(fresh.id, token, 'guide.md');

    // No link to a page the space no longer has.
    for (const [, id] of pushed.markdown.matchAll(/\/pages\/([A-Za-z0-9]+)/g)) expect(pushed.ids.has(id), pushed.markdown).toBe(true);
    expect(pushed.markdown).toBe(freshGuide.markdown);
    expect(pushed.markdown).toContain('[examples](examples.md)');
  });
});
