import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, repositoryUrl, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * GitBook's GitHub integration sends its `projectDirectory` setting as `repoProjectDirectory` with every import. A
 * folder of that name missing from the commit (moved or renamed in a push, or misspelt in the setting) was read as an
 * empty project: the push's import deleted every page of the synced space. It fails now, naming the folder, and the
 * space keeps what it had (as a `.gitbook.yaml` root naming no folder does: import-missing-root).
 */
describe("an import whose repoProjectDirectory names no folder of the commit", () => {
  it('fails naming the folder, and the synced space keeps its pages', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'import-missing-project-directory';
    const body = { url: repositoryUrl(name), ref: 'refs/heads/main', repoProjectDirectory: 'docs', force: false };
    const home = '# Home\n\nWelcome.\n';
    await createRepository(name, { files: { 'docs/README.md': home, 'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n', 'docs/guide.md': '# Guide\n\nRead me.\n', 'src/main.go': 'package main\n' } });
    await runGitOperation(space.id, token, 'import', { ...body, force: true });
    const before = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(before.map((p: any) => [p.title, p.git?.path])).toEqual([['Home', 'docs/README.md'], ['Guide', 'docs/guide.md']]);

    // A push that moves the folder: the integration still sends the old projectDirectory.
    await control('commit', { name, message: 'Move the docs', files: { 'docs/README.md': null, 'docs/SUMMARY.md': null, 'docs/guide.md': null, 'documentation/README.md': home } });
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { ...body, timestamp: new Date(Date.now() + 60_000).toISOString() } }), 204);
    await runPending(space.id);
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'failure', direction: 'import' });
    expect(info.operation.error).toContain('"docs" is no folder of the repository');
    const after = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(after.map((p: any) => [p.id, p.title])).toEqual(before.map((p: any) => [p.id, p.title]));
  }, 180_000);

});
