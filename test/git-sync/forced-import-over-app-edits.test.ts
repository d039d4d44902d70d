import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown, pageTree, PNG_1x1 } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * GitBook's integrations send `force: true` at setup (Git → GitBook): the repository's content wins, and the space ends as a
 * fresh import of the commit makes it. A forced import kept the edits made in the space since the last sync (a page's body,
 * a title alone), as an unforced one does for the next export to write. An unforced import still keeps them.
 */

const FILES = {
  'README.md': '# Home\n\nWelcome here.\n\n![Shown](.gitbook/assets/shown.png)\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Body](body.md)\n* [Titled](titled.md)\n* [Other](other.md)\n* Section\n    * [Nested](nested.md)\n',
  'body.md': '# Body\n\nThe first paragraph.\n\nThe second paragraph.\n',
  'titled.md': '# Titled\n\nA page whose title is edited.\n',
  'other.md': '# Other\n\nA page a push edits.\n',
  'nested.md': '# Nested\n\nA page under an item without a link.\n',
  '.gitbook/assets/shown.png': { base64: PNG_1x1 },
};

/** A body edit, a title-only edit, a slug edit, a retitled item without a link, a page and a file made in the app, merged into the space. */
async function appEdits(spaceId: string, token: string, byPath: (path: string) => any) {
  const pages = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages;
  const sectionId = pages.find((page: any) => page.title === 'Section').id;
  const cr = await openChangeRequest(spaceId, token, 'App edits');
  await applyChanges(spaceId, cr.number, token, [
    await leafEdit(spaceId, token, cr.number, byPath('body.md').id, 'The second paragraph.', 'The second paragraph, edited in the app.'),
    { operation: 'update_page', page: byPath('titled.md').id, title: 'Retitled in the app' },
    { operation: 'update_page', page: byPath('other.md').id, slug: 'renamed-in-the-app' },
    { operation: 'update_page', page: sectionId, title: 'Section retitled in the app' },
    { operation: 'insert_page', title: 'Made in the app', document: { markdown: '# Made in the app\n\nNo file holds this page.\n' } },
    { operation: 'insert_files', files: [{ ref: 'u1', name: 'upload.png', contentType: 'image/png', base64: btoa(atob(PNG_1x1) + 'upload') }] },
  ]);
  expectStatus(await merge(spaceId, cr.number, token), 200);
}

const fileNames = async (spaceId: string, token: string): Promise<string[]> =>
  expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/files?limit=1000`, { token }), 200).body.items.map((f: any) => f.name).sort();

const push = (name: string) => control('commit', { name, message: 'A push', files: { 'other.md': '# Other\n\nA page a push edits.\n\nA line pushed with git.\n' } });

describe('forced-import-over-app-edits', { timeout: 300_000 }, () => {
  it('a forced import makes the edited pages what their files hold, as a fresh import of the commit does', async () => {
    const name = `forced-over-edits-${crypto.randomUUID().slice(0, 8)}`;
    const { org, token, space, byPath } = await importedSpace(name, FILES);
    await appEdits(space.id, token, byPath);
    await push(name);
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });

    expect(await pageMarkdown(space.id, byPath('body.md').id, token)).toBe(FILES['body.md']);
    expect(await pageMarkdown(space.id, byPath('titled.md').id, token)).toBe(FILES['titled.md']);
    expect(await pageMarkdown(space.id, byPath('other.md').id, token)).toContain('A line pushed with git.');
    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    expect(await pageTree(space.id, token)).toEqual(await pageTree(fresh.id, token));
    expect(await pageTree(space.id, token)).not.toContain('made-in-the-app: Made in the app');
    expect(await fileNames(space.id, token)).toEqual(await fileNames(fresh.id, token));
    expect(await fileNames(space.id, token)).toEqual(['shown.png']);
  });

  it('a forced import of the commit the space last synced also undoes the edits', async () => {
    const name = `forced-same-commit-${crypto.randomUUID().slice(0, 8)}`;
    const { token, space, byPath } = await importedSpace(name, FILES);
    await appEdits(space.id, token, byPath);
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    expect(await pageMarkdown(space.id, byPath('body.md').id, token)).toBe(FILES['body.md']);
    expect(await pageMarkdown(space.id, byPath('titled.md').id, token)).toBe(FILES['titled.md']);
    const tree = await pageTree(space.id, token);
    expect(tree).toContain('other: Other');
    expect(tree).toContain('section: Section');
    expect(tree).not.toContain('made-in-the-app: Made in the app');
  });

  it('an unforced import keeps the edits for the next export to write', async () => {
    const name = `unforced-over-edits-${crypto.randomUUID().slice(0, 8)}`;
    const { token, space, byPath } = await importedSpace(name, FILES);
    await appEdits(space.id, token, byPath);
    await push(name);
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date().toISOString() });

    expect(await pageMarkdown(space.id, byPath('body.md').id, token)).toContain('The second paragraph, edited in the app.');
    expect(await pageMarkdown(space.id, byPath('titled.md').id, token)).toContain('# Retitled in the app');
    expect(await pageMarkdown(space.id, byPath('other.md').id, token)).toContain('A line pushed with git.');
    expect(await pageTree(space.id, token)).toContain('renamed-in-the-app: Other');
    expect(await pageTree(space.id, token)).toContain('section: Section retitled in the app');
    expect(await pageTree(space.id, token)).toContain('made-in-the-app: Made in the app');
    expect(await fileNames(space.id, token)).toEqual(['shown.png', 'upload.png']);
  });
});
