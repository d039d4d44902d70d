import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageTree } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, gitOutput, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * A push imported between a merge and its export (GitBook's integrations import on every push, export on every content
 * update): the pages the merge made, which no file holds yet, were deleted by the import, as pages the push removed are.
 * An unforced import keeps them for the next export to write (as it keeps edits); one under a page the push removed
 * moves to the top, its own child with it. A forced import still makes the space the commit's (forced-import-over-app-edits).
 */

const FILES = {
  'README.md': '# Home\n\nWelcome here.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Doomed](doomed.md)\n* [Other](other.md)\n',
  'doomed.md': '# Doomed\n\nA push removes this page.\n',
  'other.md': '# Other\n\nA page a push edits.\n',
};

describe('Git Sync import: pages made in the space since the last sync', { timeout: 300_000 }, () => {
  it('are kept by an unforced import and written by the next export', async () => {
    const name = `made-since-sync-${crypto.randomUUID().slice(0, 8)}`;
    const { org, token, space, byPath } = await importedSpace(name, FILES);
    const cr = await openChangeRequest(space.id, token, 'New pages');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', title: 'Fresh', document: { markdown: '# Fresh\n\nMade in the app.\n' } },
      { operation: 'insert_page', ref: 'under', into: byPath('doomed.md').id, title: 'Under doomed', document: { markdown: '# Under doomed\n\nMade under a page a push removes.\n' } },
      { operation: 'insert_page', into: 'under', title: 'Grandchild', document: { markdown: '# Grandchild\n\nMade under a page made in the app.\n' } },
    ] as any);
    expectStatus(await merge(space.id, cr.number, token), 200);

    await control('commit', { name, message: 'A push', files: { 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Other](other.md)\n', 'doomed.md': null, 'other.md': '# Other\n\nA page a push edits.\n\nPushed.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date().toISOString() });
    const tree = await pageTree(space.id, token);
    expect(tree).not.toContain('doomed: Doomed');
    expect(tree).toContain('fresh: Fresh');
    expect(tree).toContain('under-doomed: Under doomed');
    expect(tree).toContain('under-doomed/grandchild: Grandchild');

    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: New pages` });
    const summary = await gitOutput(name, 'show', 'HEAD:SUMMARY.md');
    expect(summary).toMatch(/\[Fresh\]/);
    expect(summary).toMatch(/\[Grandchild\]/);
    expect((await gitOutput(name, 'diff', '--name-status', head0, 'HEAD')).trim().split('\n').filter((l) => l.startsWith('A\t')).length).toBe(3);
    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    expect((await pageTree(fresh.id, token)).map((line) => line.split(': ')[1]).sort()).toEqual(tree.map((line) => line.split(': ')[1]).sort());
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}/git/info`, { token }), 200).body.operation).toMatchObject({ state: 'success', direction: 'export' });
  });
});
