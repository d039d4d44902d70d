import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, repositoryUrl, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * A file whose name holds a backslash (git allows one; jhaoheng/gitbook has `string 去除掉 \n\b.md`, backslash and
 * letter) no longer fails the whole import: isomorphic-git's readTree refused the tree holding it (gitprobe15b).
 * Its push still refuses such a tree (it walks every tree it sends): an export fails, the remote and the space unchanged.
 */

const ODD = 'notes/trim \\n\\b.md';

describe('a file name holding a backslash', () => {
  it('imports the repository; an export fails without changing the remote', { timeout: 180_000 }, async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('import-backslash-name', {
      files: {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
        'README.md': '# Home\n\nWelcome.\n',
        'guide.md': '# Guide\n\nSteps.\n',
        [ODD]: '# Trim\n\nNot in the summary.\n',
      },
    });
    const listed = (await gitOutput('import-backslash-name', 'ls-tree', '-r', '-z', '--name-only', 'refs/heads/main')).split('\0');
    expect(listed).toContain(ODD);
    const url = repositoryUrl('import-backslash-name');
    await runGitOperation(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p: any) => p.git?.path)).toEqual(['README.md', 'guide.md']);

    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages[1].id, document: { markdown: '# Guide\n\nSteps, edited.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const head = (await gitOutput('import-backslash-name', 'rev-parse', 'refs/heads/main')).trim();
    const revision = expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body.revision;
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/export`, { token, body: { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: Edit' } }), 204);
    await runPending(space.id);
    const exported = (await gitInfo(space.id, token)).body;
    expect(exported.operation, JSON.stringify(exported)).toMatchObject({ state: 'failure' });
    expect((await gitOutput('import-backslash-name', 'rev-parse', 'refs/heads/main')).trim()).toBe(head);
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body.revision).toBe(revision);
  });
});
