import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * Every request Git Sync makes to a Git host says it is a Git client (`User-Agent: git/...`), as git and isomorphic-git
 * do: the fetches, the pushes (our own git-receive-pack, which sent none) and isomorphic-git's ref listing alike.
 */
describe('Git Sync requests', () => {
  it('carry a Git user agent on import and export', { timeout: 240_000 }, async () => {
    const name = 'git-user-agent';
    const { token, space, byPath } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
      'guide.md': '# Guide\n\nThe guide.\n',
    });
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, byPath('guide.md').id, 'The guide.', 'The guide, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'GITBOOK-1: Edit' });

    const { agents } = await control<{ agents: string[] }>('agents', { name });
    expect(agents.length).toBeGreaterThan(0);
    for (const agent of agents) expect(agent).toMatch(/^git\//);
  });
});
