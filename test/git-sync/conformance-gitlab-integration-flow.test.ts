import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, gitOutput, gitServer, runPending } from '../helpers/git-sync';

/**
 * GitBook's GitLab integration (GitbookIO/integrations, integrations/gitlab/src/sync.ts): `oauth2` and the project's
 * access token as credentials, `ref` the configured branch, `/-/blob/` and `/-/commit` URLs, and `gitInfo: { provider:
 * 'gitlab' }` only when the setup asks to update the space's Git info; a push (webhook) or an export sends no `gitInfo`.
 * The test server is a self-hosted instance to the integration (`customInstanceUrl`): its host does not say "gitlab".
 */

const name = 'conformance-gitlab-integration-flow';
const project = `https://git.example.test/docs/${name}`;
const tree = `${project}/-/blob/main`;

function body(options: { force?: boolean; timestamp?: string; updateGitInfo?: boolean; commitMessage?: string }) {
  const server = new URL(gitServer().url);
  return JSON.parse(
    JSON.stringify({
      url: `${server.protocol}//oauth2:${gitServer().password}@${server.host}/repos/${name}.git`,
      ref: 'main',
      repoTreeURL: tree,
      repoCommitURL: `${project}/-/commit`,
      repoCacheID: 'a-gitlab-config-key',
      force: options.force ?? false,
      timestamp: options.timestamp && !options.force ? options.timestamp : undefined,
      commitMessage: options.commitMessage,
      ...(options.updateGitInfo ? { gitInfo: { provider: 'gitlab', url: tree } } : {}),
    }),
  );
}

async function run(spaceId: string, token: string, direction: 'import' | 'export', payload: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token, body: payload }), 204);
  await runPending(spaceId);
  return (await gitInfo(spaceId, token)).body;
}

const providerOfSpace = async (spaceId: string, token: string) => expectStatus(await api('GET', `/v1/spaces/${spaceId}`, { token }), 200).body.gitSync;

describe("GitBook's GitLab integration on a self-hosted instance", () => {
  it('the space stays synced with GitLab after a push and an export that send no gitInfo', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository(name, { files: { 'README.md': '# Home\n\nWelcome.\n', 'guide.md': '# Guide\n\nRead this.\n', 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n' } });

    const setup = await run(space.id, token, 'import', { ...body({ force: true, updateGitInfo: true }), standalone: false });
    expect(setup.operation.state, JSON.stringify(setup.operation)).toBe('success');
    expect(setup.installationProvider).toBe('gitlab');
    expect(await providerOfSpace(space.id, token)).toMatchObject({ installationProvider: 'gitlab', integration: 'gitlab', url: tree });

    // A push made in GitLab: the webhook's import has no gitInfo.
    const { head } = await control<{ head: string }>('commit', { name, message: 'Edited in GitLab', files: { 'README.md': '# Home\n\nWelcome back.\n' } });
    const time = (await gitOutput(name, 'log', '-1', '--format=%cI', head)).trim();
    const pushed = await run(space.id, token, 'import', { ...body({ timestamp: new Date(time).toISOString() }), standalone: false });
    expect(pushed.operation.state, JSON.stringify(pushed.operation)).toBe('success');
    expect(pushed.installationProvider).toBe('gitlab');
    expect(await providerOfSpace(space.id, token)).toMatchObject({ installationProvider: 'gitlab', integration: 'gitlab', url: tree });
    const revision = expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${(await api('GET', `/v1/spaces/${space.id}`, { token })).body.revision}`, { token }), 200).body;
    expect(revision.git).toMatchObject({ oid: head, url: `${project}/-/commit/${head}` });

    // An edit exported as on space_content_updated: no gitInfo either.
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const guide = pages.find((p: any) => p.slug === 'guide');
    const cr = await openChangeRequest(space.id, token, 'Guide');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: guide.id, document: { markdown: '# Guide\n\nRead this twice.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const exported = await run(space.id, token, 'export', body({ timestamp: new Date().toISOString(), commitMessage: `GITBOOK-${cr.number}: Guide` }));
    expect(exported.operation.state, JSON.stringify(exported.operation)).toBe('success');
    expect(exported.installationProvider).toBe('gitlab');
    expect(await providerOfSpace(space.id, token)).toMatchObject({ installationProvider: 'gitlab', integration: 'gitlab' });
  });

  it('without gitInfo from the start, a host not named gitlab is taken for GitHub', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository(name, { files: { 'README.md': '# Home\n' } });
    const setup = await run(space.id, token, 'import', { ...body({ force: true }), standalone: false });
    expect(setup.operation.state, JSON.stringify(setup.operation)).toBe('success');
    expect(setup.installationProvider).toBe('github');
    expect((await providerOfSpace(space.id, token)).installationProvider).toBe('github');
  });
});
