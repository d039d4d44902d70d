import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, githubBody, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * An unforced export from a space that never synced with the repository (its setup import failed or never ran), as the
 * integration sends one on every content update (issue 40). Onto a branch that already holds documentation it used to
 * write the space's tree over it: the summary lost every item the space never read (a real repository's 725 lines).
 * Now it is refused, nothing pushed; a forced export (a setup) and a new repository holding only its README take it.
 */

const head = async (name: string) => (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();

async function spaceWithAPage() {
  const org = await seedOrg();
  const token = org.owner.token;
  const space = await createSpace(org.id, token);
  const cr = await openChangeRequest(space.id, token, 'First page');
  await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Made here', document: { markdown: '# Made here\n\nWritten in the app.\n' } }]);
  expectStatus(await merge(space.id, cr.number, token), 200);
  return { token, space, exportBody: { commitMessage: `GITBOOK-${cr.number}: First page` } };
}

describe('an unforced export from a space that never synced', { timeout: 180_000 }, () => {
  it('onto a branch holding a summary and pages: refused, nothing pushed, the message says to import or force', async () => {
    const name = 'never-synced-documented';
    const before = (await createRepository(name, {
      files: {
        'README.md': '# Home\n\nWelcome.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Reference](reference.md)\n',
        'guide.md': '# Guide\n\nSteps.\n',
        'reference.md': '# Reference\n\nFacts.\n',
      },
    })).head;
    const { token, space, exportBody } = await spaceWithAPage();

    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/export`, { token, body: { ...githubBody(name), ...exportBody } }), 204);
    await runPending(space.id);
    const failed = (await gitInfo(space.id, token)).body.operation;
    expect(failed).toMatchObject({ state: 'failure', direction: 'export' });
    expect(failed.error).toContain('the branch holds documentation the space has never imported (SUMMARY.md, guide.md, reference.md)');
    expect(failed.error).toContain('export with `force`');
    expect(await head(name)).toBe(before);

    await runGitOperation(space.id, token, 'export', { ...githubBody(name), ...exportBody, force: true });
    expect(await head(name)).not.toBe(before);
  });

  it('onto a new repository holding only the README its host made: exported', async () => {
    const name = 'never-synced-readme-only';
    const before = (await createRepository(name, { files: { 'README.md': '# never-synced-readme-only\n' } })).head;
    const { token, space, exportBody } = await spaceWithAPage();

    await runGitOperation(space.id, token, 'export', { ...githubBody(name), ...exportBody });
    const exported = await head(name);
    expect((await gitOutput(name, 'log', '-1', '--format=%P', exported)).trim()).toBe(before);
    expect(await gitOutput(name, 'show', `${exported}:SUMMARY.md`)).toContain('Made here');
  });
});
