import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageTree } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * SUMMARY.md items that lead to no file the import reads (issue 40; 0x-mesh's `docs/summary.md`, docs-sfp):
 * - an item to a Markdown file the repository lacks is an empty page of its title, its items under it, as GitBook imports
 *   it (CIPP's GITBOOK-225, fylr's GITBOOK-446: such items came back with a file of their title, the items under them);
 *   it has no file while it has no content, so its line stays as the author wrote it;
 * - an item that is no page (to a file that is not Markdown, out of the content root, a second place of a page, an item
 *   without a link and without items under it) keeps its line where it was when the export writes the summary again;
 * - the import's operation names each item that leads to no file, as it names a redirect to no page;
 * - a destination in angle brackets holding parentheses (`<c (1).md>`, GitBook's spelling of such a file) is read.
 * Each was dropped before: the import left those pages out silently, and an export rewriting SUMMARY.md deleted their lines.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '* [Moved](old/README.md)',
  '  * [B](old/b.md)',
  '* A note, not a page',
  '* [Spec](spec.yaml)',
  '* [Changelog](../CHANGELOG.md)',
  '* [C](<c (1).md>)',
  '* [B again](old/b.md)',
  '* [D](d.md)',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': SUMMARY,
  'old/b.md': '# B\n\nSecond.\n',
  'c (1).md': '# C\n\nThird.\n',
  'd.md': '# D\n\nFourth.\n',
  'spec.yaml': 'openapi: 3.1.0\n',
};

describe('summary items that lead to no file', () => {
  it('are empty pages or kept lines, said on the operation, and written back where they were', async () => {
    const name = 'summary-unread-items';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    expect(await pageTree(space.id, token)).toEqual(['home: Home', 'moved: Moved', 'moved/b: B', 'c-1: C', 'd: D']);
    const said = JSON.stringify((await gitInfo(space.id, token)).body.operation);
    expect(said).toContain('the item \\"Moved\\" leads to \\"old/README.md\\", which is no file of the repository: imported as an empty page');
    expect(said).toContain('[Spec](spec.yaml)');
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const moved = pages.find((p: any) => p.title === 'Moved');
    expect(moved.git).toBeUndefined();

    // Nothing changed: no commit.
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'GITBOOK-0: nothing', timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim()).toBe(created.head);

    // A page added: the summary is written again with every line of the author's in its place, and the new item.
    const cr = await openChangeRequest(space.id, token, 'E');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'E', document: { markdown: '# E\n\nFifth.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: E`, timestamp: new Date().toISOString() });
    expect(await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md')).toBe(SUMMARY.replace('* [D](d.md)\n', '* [D](d.md)\n* [E](e.md)\n'));
    expect((await gitOutput(name, 'diff', '--name-status', created.head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['A\te.md', 'M\tSUMMARY.md']);

    // Imported back: the same pages, the same ids (the empty page keyed by the file it names).
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    expect(await pageTree(space.id, token)).toEqual(['home: Home', 'moved: Moved', 'moved/b: B', 'c-1: C', 'd: D', 'e: E']);
    const again = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(again.find((p: any) => p.title === 'Moved').id).toBe(moved.id);
  });
});
