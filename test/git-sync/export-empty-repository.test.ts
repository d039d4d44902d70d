import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, gitInfo, githubBody, gitOutput, runPending } from '../helpers/git-sync';

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
    // (SUMMARY.md is left out while the folders give the same tree: export.ts.)
    expect((await gitOutput('export-empty', 'ls-tree', '-r', '--name-only', 'refs/heads/main')).trim().split('\n')).toEqual(expect.arrayContaining(['README.md', 'guide.md']));
    await gitOutput('export-empty', 'fsck', '--strict');
    const second = await createSpace(org.id, token);
    expectStatus(await api('POST', `/v1/spaces/${second.id}/git/import`, { token, body: { ...githubBody('export-empty'), force: true } }), 204);
    await runPending(second.id);
    const pages = expectStatus(await api('GET', `/v1/spaces/${second.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Welcome', 'Guide']);
  });
});
