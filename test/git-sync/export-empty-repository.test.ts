import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, githubBody, gitOutput, runPending } from '../helpers/git-sync';

/**
 * The GitHub integration's setup in the direction GitBook to GitHub: a space of pages made here, exported (force, gitInfo)
 * to a repository just created, which has no commit and no branch yet. (Probed: it works; kept as the flow's test, with the
 * Git server's empty repositories.)
 */

describe('an export to an empty repository', () => {
  it('pushes a first commit on the branch, which a later import reads back as the same pages', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const cr = await openChangeRequest(space.id, token, 'Pages');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', title: 'Welcome', document: { markdown: '# Welcome\n\nHello.\n' } },
      { operation: 'insert_page', title: 'Guide', document: { markdown: '# Guide\n\nSteps.\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await control('create', { name: 'export-empty', empty: true });
    const body = { ...githubBody('export-empty'), force: true, commitMessage: 'GitBook: No commit message', gitInfo: { provider: 'github', url: 'https://github.com/acme/export-empty/blob/main' } };
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/export`, { token, body }), 204);
    await runPending(space.id);
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success', direction: 'export' });
    expect((await gitOutput('export-empty', 'log', '--format=%P|%s', 'refs/heads/main')).trim()).toBe('|GitBook: No commit message');
    // The space's first export writes SUMMARY.md, as GitBook's first commit to a repository does (export.ts).
    expect((await gitOutput('export-empty', 'ls-tree', '-r', '--name-only', 'refs/heads/main')).trim().split('\n')).toEqual(['README.md', 'SUMMARY.md', 'guide.md']);
    expect(await gitOutput('export-empty', 'show', 'refs/heads/main:SUMMARY.md')).toBe('# Table of contents\n\n* [Welcome](README.md)\n* [Guide](guide.md)\n');
    await gitOutput('export-empty', 'fsck', '--strict');
    const second = await createSpace(org.id, token);
    expectStatus(await api('POST', `/v1/spaces/${second.id}/git/import`, { token, body: { ...githubBody('export-empty'), force: true } }), 204);
    await runPending(second.id);
    const pages = expectStatus(await api('GET', `/v1/spaces/${second.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Welcome', 'Guide']);
  });

  it("writes SUMMARY.md on the space's first export to a repository holding only a LICENSE, which it keeps", async () => {
    // GitBook's own first commit to such a repository (GitHub's initial commit, a LICENSE): README.md and
    // SUMMARY.md ('* [Page](README.md)') for a space of one page, where the folders alone would give the same tree.
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const cr = await openChangeRequest(space.id, token, 'Page');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Page', document: { markdown: '# Page\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const { head } = await createRepository('export-license', { files: { LICENSE: 'MIT License\n' } });
    const body = { ...githubBody('export-license'), force: true, commitMessage: `GITBOOK-${cr.number}: Page` };
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/export`, { token, body }), 204);
    await runPending(space.id);
    expect((await gitInfo(space.id, token)).body.operation).toMatchObject({ state: 'success', direction: 'export' });
    expect((await gitOutput('export-license', 'diff', '--name-status', head, 'refs/heads/main')).trim().split('\n')).toEqual(['A\tREADME.md', 'A\tSUMMARY.md']);
    expect(await gitOutput('export-license', 'show', 'refs/heads/main:SUMMARY.md')).toBe('# Table of contents\n\n* [Page](README.md)\n');
    // Synced since: an export with nothing changed makes no commit.
    const pushed = (await gitOutput('export-license', 'rev-parse', 'refs/heads/main')).trim();
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/export`, { token, body: { ...githubBody('export-license'), commitMessage: 'GitBook: No commit message' } }), 204);
    await runPending(space.id);
    expect((await gitOutput('export-license', 'rev-parse', 'refs/heads/main')).trim()).toBe(pushed);
  });
});
