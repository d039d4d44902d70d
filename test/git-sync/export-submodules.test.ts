import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (a protocol's monorepo whose docs GitBook syncs, gitprobe8b): the repository has a
 * submodule (a gitlink, mode 160000, beside `.gitmodules`). The export rebuilt the tree from the files it listed,
 * which were blobs only: its commit deleted the submodule, a change nobody made in a part of the repository GitBook
 * does not own. Submodules are kept as they are, in the project's folder and outside it.
 */

const SUBMODULE = '1'.repeat(40);
const NESTED = '2'.repeat(40);

describe('export of a repository with submodules', () => {
  it('keeps every submodule of the remote head in the commit it pushes', async () => {
    const name = 'export-submodules';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const { head } = await createRepository(name, {
      files: {
        '.gitmodules': '[submodule "protocol"]\n\tpath = protocol\n\turl = https://example.com/protocol.git\n[submodule "docs/theme"]\n\tpath = docs/theme\n\turl = https://example.com/theme.git\n',
        'docs/README.md': '# Home\n\nFirst words.\n',
        'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
      },
      submodules: { protocol: SUBMODULE, 'docs/theme': NESTED },
    });
    const body = { ...githubBody(name), repoProjectDirectory: 'docs' };
    await runGitOperation(space.id, token, 'import', { ...body, force: true });
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p) => p.title)).toEqual(['Home']);

    const cr = await openChangeRequest(space.id, token, 'Words');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages[0].id, document: { markdown: '# Home\n\nEdited words.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...body, commitMessage: `GITBOOK-${cr.number}: Words` });

    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tdocs/README.md');
    const tree = await gitOutput(name, 'ls-tree', '-r', 'refs/heads/main');
    expect(tree).toContain(`160000 commit ${SUBMODULE}\tprotocol`);
    expect(tree).toContain(`160000 commit ${NESTED}\tdocs/theme`);
    expect(await gitOutput(name, 'fsck', '--strict')).not.toMatch(/error|warning/i);
  }, 120_000);
});
