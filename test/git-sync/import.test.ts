import { describe, expect, it } from 'vitest';
import { createSpace, pageTree } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, repositoryUrl, runPending } from '../helpers/git-sync';

describe('importGitRepository (a real git http-backend)', () => {
  it('imports git-sync-normalization: SUMMARY groups, README first, assets', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const repo = await createRepository('normalization', { corpus: 'git-sync-normalization' });
    const res = await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { url: repositoryUrl('normalization'), ref: 'refs/heads/main', force: true } });
    expectStatus(res, 204);
    const running = await gitInfo(space.id, token);
    expect(running.body.operation).toMatchObject({ state: 'running', direction: 'import' });
    await runPending(space.id);
    const info = await gitInfo(space.id, token);
    expect(info.body.operation, JSON.stringify(info.body)).toMatchObject({ state: 'success', direction: 'import' });
    const tree = await pageTree(space.id, token);
    console.log(tree.join('\n'));
    const content = await api('GET', `/v1/spaces/${space.id}/content`, { token });
    console.log(JSON.stringify(content.body).slice(0, 500), repo.head);
    const files = await api('GET', `/v1/spaces/${space.id}/content/files`, { token });
    console.log(files.body.items.map((f: any) => f.name));
  });
});
