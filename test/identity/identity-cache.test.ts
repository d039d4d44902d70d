import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { IDENTITY_TTL_MS, cachedIdentity, rememberIdentity } from '../../src/middleware/identity-cache';
import { api, createUser, expectError, expectStatus } from '../helpers/harness';

describe('identity cache', () => {
  it('forgets an identity after its time to live', () => {
    const identity = { tokenId: 't', userId: 'u', email: 'u@example.test', emailVerified: true, lastUsedAt: null };
    rememberIdentity('hash-a', identity, 1_000);
    expect(cachedIdentity('hash-a', 1_000 + IDENTITY_TTL_MS - 1)).toEqual(identity);
    expect(cachedIdentity('hash-a', 1_000 + IDENTITY_TTL_MS)).toBeUndefined();
    expect(cachedIdentity('hash-a', 1_000)).toBeUndefined();
  });

  it('a token revoked through the API answers 401 at once, though it was just used', async () => {
    const user = await createUser();
    const second = expectStatus(await api('POST', `/v1/users/${user.id}/tokens`, { token: 'test-admin-token', body: { label: 'second' } }), 201).body;
    expectStatus(await api('GET', '/v1/user', { token: second.token }), 200);
    expectStatus(await api('DELETE', `/v1/user/tokens/${second.id}`, { token: user.token }), 204);
    expectError(await api('GET', '/v1/user', { token: second.token }), 401);
    expectStatus(await api('GET', '/v1/user', { token: user.token }), 200);
  });

  it('roles are never cached: a member removed in D1 loses access on the next request', async () => {
    const owner = await createUser();
    const org = expectStatus(await api('POST', '/v1/orgs', { token: owner.token, body: { title: 'Cache' } }), 201).body;
    expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: owner.token }), 200);
    await env.DB.prepare('delete from org_members where org_id = ? and user_id = ?').bind(org.id, owner.id).run();
    expectError(await api('GET', `/v1/orgs/${org.id}`, { token: owner.token }), 404);
  });
});
