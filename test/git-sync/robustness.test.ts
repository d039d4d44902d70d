import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, repositoryUrl, runPending } from '../helpers/git-sync';

/**
 * What real GitBook-format repositories carry, in one synthetic repository written by the test: names with spaces and
 * accents (linked percent-encoded and in angle brackets), a folder without README.md, a SUMMARY.md entry whose file is
 * missing, HTML in Markdown, an image linked relatively from a nested folder, and a symbolic link. Import, edit one page
 * through a change request, merge, export: the commit changes that file only.
 */

const FILES = {
  'README.md': '# Home\n\n<div align="center"><b>Welcome</b></div>\n\nSee [the summer guide](guides/%C3%89t%C3%A9%202024.md).\n',
  'SUMMARY.md':
    '# Table of contents\n\n* [Home](README.md)\n\n## Guides\n\n* [Été 2024](<guides/Été 2024.md>)\n* [Gone](guides/gone.md)\n* [Deep](guides/nested/deeper/page one.md)\n',
  'guides/Été 2024.md': '# Été 2024\n\nSummer notes.\n',
  'guides/nested/deeper/page one.md': '# Deep\n\n![Logo](../../../.gitbook/assets/logo%20v2.svg)\n',
  '.gitbook/assets/logo v2.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>\n',
  'link.md': { symlink: 'README.md' },
};

async function run(spaceId: string, token: string, direction: 'import' | 'export', body: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token, body }), 204);
  await runPending(spaceId);
  return (await gitInfo(spaceId, token)).body;
}

describe('odd repositories (a real git http-backend)', () => {
  it('spaces, accents, a missing summary entry, HTML, nested relative images and a symlink: imported, and a round trip changes only the edited file', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('odd-paths', { files: FILES });
    const url = repositoryUrl('odd-paths');
    const imported = await run(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true });
    expect(imported.operation, JSON.stringify(imported)).toMatchObject({ state: 'success' });

    const content = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body;
    const titles: string[] = [];
    const byTitle = new Map<string, any>();
    const walk = (pages: any[]) => pages.forEach((p) => (titles.push(p.title), byTitle.set(p.title, p), walk(p.pages ?? [])));
    walk(content.pages);
    // The missing file is an empty page of its item's title, with no file yet (as GitBook imports it: summary-unread-items);
    // the symlink is neither a page nor a file.
    expect(titles).toEqual(['Home', 'Guides', 'Été 2024', 'Gone', 'Deep']);
    expect(byTitle.get('Gone').git).toBeFalsy();
    expect(byTitle.get('Été 2024').git.path).toBe('guides/Été 2024.md');
    expect(content.files.map((f: any) => f.name)).toEqual(['logo v2.svg']);
    const deep = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${byTitle.get('Deep').id}`, { token }), 200).body;
    expect(JSON.stringify(deep.document)).toContain(`"file":"${content.files[0].id}"`);
    const home = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${byTitle.get('Home').id}`, { token }), 200).body;
    expect(JSON.stringify(home.document)).toContain(`"page":"${byTitle.get('Été 2024').id}"`);

    const cr = await openChangeRequest(space.id, token, 'Edit summer');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: byTitle.get('Été 2024').id, document: { markdown: '# Été 2024\n\nSummer notes, edited.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const exported = await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: Edit summer' });
    expect(exported.operation, JSON.stringify(exported)).toMatchObject({ state: 'success' });
    // Git quotes the accented name: `M\t"guides/\303\211t\303\251 2024.md"`.
    const names = await gitOutput('odd-paths', 'diff', '--name-status', created.head, 'refs/heads/main');
    expect(names.trim().split('\n')).toHaveLength(1);
    expect(names).toMatch(/^M\t"?guides\//);
    expect(await gitOutput('odd-paths', 'show', 'refs/heads/main:guides/Été 2024.md')).toContain('Summer notes, edited.');
    // The symlink is still a symlink.
    expect(await gitOutput('odd-paths', 'ls-tree', 'refs/heads/main', 'link.md')).toMatch(/^120000 blob /);
    await gitOutput('odd-paths', 'fsck', '--strict');
  });
});
