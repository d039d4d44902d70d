import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectError, expectStatus, seedOrg, tokenOf } from '../helpers/harness';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { repositoryUrl } from '../helpers/git-sync';
import { checkRepositoryUrl } from '../../src/services/git-sync/urls';

/**
 * Who may call the Git Sync operations, with which token, on whose spaces; and the bodies refused before
 * anything is queued. Members need `edit` (GitBook's triggerGitSync); installation tokens need `space:git:sync`.
 */
const body = (name = 'access') => ({ url: repositoryUrl(name), ref: 'refs/heads/main' });

describe('Git Sync access', () => {
  it('members: edit and above may trigger, comment and read get 403, another organization and strangers 404, no token 401', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    for (const direction of ['import', 'export'] as const) {
      const path = `/v1/spaces/${space.id}/git/${direction}`;
      const payload = direction === 'export' ? { ...body(), commitMessage: 'GITBOOK-1: x' } : body();
      for (const role of ['admin', 'create', 'review', 'edit'] as const) expectStatus(await api('POST', path, { token: tokenOf(org, role), body: payload }), 204);
      for (const role of ['comment', 'read'] as const) expectError(await api('POST', path, { token: tokenOf(org, role), body: payload }), 403);
      expectError(await api('POST', path, { token: tokenOf(org, 'guest'), body: payload }), 404);
      expectError(await api('POST', path, { token: org.outsider.token, body: payload }), 404);
      expectError(await api('POST', path, { body: payload }), 401);
    }
    // Reading the state: any member who can read the space; nobody else.
    expectStatus(await api('GET', `/v1/spaces/${space.id}/git/info`, { token: tokenOf(org, 'read') }), 200);
    expectError(await api('GET', `/v1/spaces/${space.id}/git/info`, { token: org.outsider.token }), 404);
    expectError(await api('GET', `/v1/spaces/${space.id}/git/info`), 401);
  });

  it('getSpaceGitInfo answers 404 for a space that never synced', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    expectError(await api('GET', `/v1/spaces/${space.id}/git/info`, { token: org.owner.token }), 404, /Git/);
  });

  it("installation tokens (GitBook's GitHub integration) need space:git:sync on a space they cover", async () => {
    const org = await seedOrg();
    const other = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const otherSpace = await createSpace(other.id, other.owner.token);
    const sync = await seedIntegration(org.id, { scopes: ['space:content:read', 'space:git:sync'] });
    const installation = await seedInstallation(sync, org.id, { spaces: [space.id] });
    const token = await seedToken(sync.id, installation.id);
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { ...body(), force: true } }), 204);
    const info = await api('GET', `/v1/spaces/${space.id}/git/info`, { token });
    expect(info.body.installationId).toBe(installation.id);
    expectError(await api('POST', `/v1/spaces/${otherSpace.id}/git/import`, { token, body: body() }), 404);
    const reader = await seedIntegration(org.id, { scopes: ['space:content:read'] });
    const readerToken = await seedToken(reader.id, (await seedInstallation(reader, org.id, { spaces: [space.id] })).id);
    expectError(await api('POST', `/v1/spaces/${space.id}/git/import`, { token: readerToken, body: body() }), 403);
  });

  it('refuses hostile bodies before queueing: other schemes, private addresses, broken refs, huge strings', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const path = `/v1/spaces/${space.id}/git/import`;
    for (const url of ['file:///etc/passwd', 'ftp://example.com/repo.git', 'http://10.0.0.1/repo.git', 'http://169.254.169.254/latest/', 'http://localhost/repo.git', 'not a url', 'git@github.com:acme/docs.git', `https://example.com/${'a'.repeat(3000)}`]) {
      expectError(await api('POST', path, { token, body: { url, ref: 'refs/heads/main' } }), 400);
    }
    for (const ref of ['', 'refs/heads/../x', 'refs/heads/a b', '-x', 'a'.repeat(300)]) {
      expectError(await api('POST', path, { token, body: { url: 'https://example.com/acme/docs.git', ref } }), 400);
    }
    expectError(await api('POST', path, { token, body: { url: 'https://example.com/acme/docs.git', ref: 'refs/heads/main', repoCommitURL: 'javascript:alert(1)' } }), 400);
    expectError(await api('POST', `/v1/spaces/${space.id}/git/export`, { token, body: { url: 'https://example.com/acme/docs.git', ref: 'refs/heads/main' } }), 400, /commitMessage/);
    // A refused URL's error names the field, never the credentials.
    const refused = await api('POST', path, { token, body: { url: 'http://user:hunter2@10.0.0.1/repo.git', ref: 'refs/heads/main' } });
    expectError(refused, 400);
    expect(JSON.stringify(refused.body)).not.toContain('hunter2');
  });

  it('loopback and private Git hosts only where the operator allows them (GIT_SYNC_ALLOWED_HOSTS)', () => {
    expect(() => checkRepositoryUrl({}, 'http://127.0.0.1:8080/repo.git')).toThrow(/refused/);
    expect(() => checkRepositoryUrl({ GIT_SYNC_ALLOWED_HOSTS: 'gitlab.corp.internal' }, 'https://oauth2:t@gitlab.corp.internal/g/docs.git')).not.toThrow();
    expect(() => checkRepositoryUrl({ GIT_SYNC_ALLOWED_HOSTS: 'gitlab.corp.internal' }, 'http://10.0.0.1/repo.git')).toThrow(/refused/);
  });
});
