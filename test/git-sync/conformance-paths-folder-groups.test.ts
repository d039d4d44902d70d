import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitOutput, repositoryUrl, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository laid out by its folders (no SUMMARY.md; folders without README.md, which are groups):
 * once an export wrote a SUMMARY.md (the space's tree had changed), those folders became `## Title` groups there,
 * and the next import, after a push made with git, gave the groups new ids: the import knew them by their folder
 * (`group:minter`), the summary names them by title (`group:Minter`).
 */

const body = (name: string, extra: Record<string, unknown> = {}) => ({
  url: repositoryUrl(name),
  ref: 'refs/heads/main',
  repoTreeURL: `https://github.com/acme/${name}/blob/main`,
  repoCommitURL: `https://github.com/acme/${name}/commit`,
  repoCacheID: `key-${name}`,
  force: false,
  standalone: false,
  ...extra,
});

async function ids(spaceId: string, token: string): Promise<string[]> {
  const res = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200);
  const out: string[] = [];
  const walk = (pages: any[], depth: number) => pages.forEach((p) => (out.push(`${'  '.repeat(depth)}${p.title}=${p.id}`), walk(p.pages ?? [], depth + 1)));
  walk(res.body.pages, 0);
  return out;
}

describe('folder groups across an export that writes SUMMARY.md', () => {
  it('keeps the ids of every page, groups included, when a push made with git is imported', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'paths-folder-groups';
    await createRepository(name, {
      files: {
        'README.md': '# Home\n\nWelcome.\n',
        'minter/deposit.md': '# Deposit\n\nSend it.\n',
        'minter/withdrawal.md': '# Withdrawal\n\nTake it.\n',
        'quoter/smart_routing.md': '# Smart routing\n\nRoutes.\n',
      },
    });
    await runGitOperation(space.id, token, 'import', body(name, { force: true }));
    const cr = await openChangeRequest(space.id, token, 'New page');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', at: 1, title: 'Welcome', document: { markdown: '# Welcome\n\nFirst.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', body(name, { commitMessage: `GITBOOK-${cr.number}: New page`, timestamp: new Date().toISOString() }));
    const summary = await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md');
    expect(summary).toContain('## Minter');
    const before = await ids(space.id, token);
    expect(before.map((line) => line.replace(/=.*/, ''))).toEqual(['Home', 'Welcome', 'Minter', '  Deposit', '  Withdrawal', 'Quoter', '  Smart routing']);

    await control('commit', { name, files: { 'minter/deposit.md': '# Deposit\n\nSend it, edited with git.\n' }, message: 'Edit with git' });
    await runGitOperation(space.id, token, 'import', body(name, { timestamp: new Date(Date.now() + 1000).toISOString() }));
    expect(await ids(space.id, token)).toEqual(before);
    // And an export with nothing changed since makes no commit (the summary still describes the tree).
    const head = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    await runGitOperation(space.id, token, 'export', body(name, { commitMessage: 'GitBook: No commit message', timestamp: new Date(Date.now() + 2000).toISOString() }));
    expect((await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim()).toBe(head);
  });
});
