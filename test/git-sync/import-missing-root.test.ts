import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, repositoryUrl, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * Found on a real repository (gitprobe10b): its `.gitbook.yaml` says `root: ./docs/` and the commit has no `docs`
 * folder. The import read that as an empty repository: a fresh space came out empty without a word, and a space
 * synced before lost every page. It fails now, naming the root, and the space keeps what it had.
 */
describe('a .gitbook.yaml root that names no folder of the commit', () => {
  it('fails the import naming the root, and the space keeps its pages', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'import-missing-root';
    const body = { url: repositoryUrl(name), ref: 'refs/heads/main', force: true };
    await createRepository(name, { files: { 'README.md': '# Home\n\nWelcome.\n', 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n', 'guide.md': '# Guide\n\nRead me.\n' } });
    await runGitOperation(space.id, token, 'import', body);
    const before = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(before.map((p: any) => p.title)).toEqual(['Home', 'Guide']);

    await createRepository(name, { files: { '.gitbook.yaml': 'root: ./docs/\n', 'README.md': '# Home\n\nWelcome.\n', 'src/main.go': 'package main\n' } });
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body }), 204);
    await runPending(space.id);
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'failure', direction: 'import' });
    expect(info.operation.error).toContain('.gitbook.yaml: its root "docs" is no folder of the repository');
    const after = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(after.map((p: any) => [p.id, p.title])).toEqual(before.map((p: any) => [p.id, p.title]));
  }, 120_000);
});
