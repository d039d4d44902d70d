import { describe, expect, it } from 'vitest';
import { listOf } from '../../src/schemas/common';
import { ApiTokenSchema } from '../../src/schemas/user';
import { ADMIN_TOKEN, api, createUser, expectError, type TestUser } from '../helpers/harness';
import { collectPages, expectSchema, expectStatus } from '../organizations/support';

const TokenListSchema = listOf(ApiTokenSchema, 'ApiTokens');
const StrictToken = ApiTokenSchema.strict();

async function issue(user: TestUser, label?: string): Promise<{ id: string; token: string; prefix: string }> {
  const res = expectStatus(await api('POST', `/v1/users/${user.id}/tokens`, { token: ADMIN_TOKEN, body: label ? { label } : {} }), 201);
  return res.body;
}

describe('listAuthenticatedUserTokens: GET /v1/user/tokens', () => {
  it("lists the caller's own tokens, never their values", async () => {
    const user = await createUser();
    const other = await createUser();
    const ci = await issue(user, 'CI');
    const theirs = await issue(other, 'Theirs');
    const res = expectStatus(await api('GET', '/v1/user/tokens', { token: user.token }), 200);
    const body = expectSchema(TokenListSchema, res.body);
    expect(body.count).toBe(2);
    for (const item of body.items) expectSchema(StrictToken, item);
    expect(body.items.map((t) => t.id)).toContain(ci.id);
    expect(body.items.map((t) => t.id)).not.toContain(theirs.id);
    expect(body.items.find((t) => t.id === ci.id)).toMatchObject({ object: 'api-token', label: 'CI', prefix: ci.prefix });
    // Neither plaintext nor hash ever appears.
    const text = JSON.stringify(res.body);
    for (const secret of [user.token, ci.token, theirs.token]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/"(token|hash)"/);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
  });

  it('records when a token was last used', async () => {
    const user = await createUser();
    let lastUsedAt: string | null = null;
    for (let attempt = 0; attempt < 20 && !lastUsedAt; attempt++) {
      const res = expectStatus(await api('GET', '/v1/user/tokens', { token: user.token }), 200);
      lastUsedAt = res.body.items[0].lastUsedAt;
      if (!lastUsedAt) await new Promise((r) => setTimeout(r, 25));
    }
    expect(lastUsedAt).not.toBeNull();
    expect(new Date(lastUsedAt!).toISOString()).toBe(lastUsedAt);
  });

  it('paginates with limit and next.page to the end; rejects bad limit and page with 400', async () => {
    const user = await createUser();
    const issued = [];
    for (let i = 0; i < 4; i++) issued.push((await issue(user, `t${i}`)).id);
    const pages = await collectPages('/v1/user/tokens', user.token, 2);
    expect(pages.count).toBe(5);
    expect(pages.pages).toBe(3);
    for (const id of issued) expect(pages.ids).toContain(id);
    expectError(await api('GET', '/v1/user/tokens?limit=0', { token: user.token }), 400, 'limit');
    expectError(await api('GET', '/v1/user/tokens?limit=1001', { token: user.token }), 400, 'limit');
    expectError(await api('GET', '/v1/user/tokens?page=garbage', { token: user.token }), 400, 'page');
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    expectError(await api('GET', '/v1/user/tokens'), 401);
    expectError(await api('GET', '/v1/user/tokens', { token: 'dpa_invalid' }), 401);
    expectError(await api('GET', '/v1/user/tokens', { token: ADMIN_TOKEN }), 403);
  });
});

describe('revokeAuthenticatedUserToken: DELETE /v1/user/tokens/{tokenId}', () => {
  it('revokes a token (204): it answers 401 afterwards and leaves the list; other tokens keep working', async () => {
    const user = await createUser();
    const spare = await issue(user, 'spare');
    const res = await api('DELETE', `/v1/user/tokens/${spare.id}`, { token: user.token });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.body).toBeNull();
    expectError(await api('GET', '/v1/user', { token: spare.token }), 401);
    const list = expectStatus(await api('GET', '/v1/user/tokens', { token: user.token }), 200);
    expect(list.body.count).toBe(1);
    expect(list.body.items.map((t: { id: string }) => t.id)).not.toContain(spare.id);
  });

  it('can revoke the very token making the request', async () => {
    const user = await createUser();
    const list = expectStatus(await api('GET', '/v1/user/tokens', { token: user.token }), 200);
    const current = list.body.items[0].id;
    expect((await api('DELETE', `/v1/user/tokens/${current}`, { token: user.token })).status).toBe(204);
    expectError(await api('GET', '/v1/user', { token: user.token }), 401);
    expectError(await api('GET', '/v1/user/tokens', { token: user.token }), 401);
  });

  it("answers 204 for an unknown id and for another user's token, which keeps working", async () => {
    const user = await createUser();
    const other = await createUser();
    const theirs = await issue(other);
    expect((await api('DELETE', '/v1/user/tokens/noSuchToken000000000', { token: user.token })).status).toBe(204);
    expect((await api('DELETE', `/v1/user/tokens/${theirs.id}`, { token: user.token })).status).toBe(204);
    expectStatus(await api('GET', '/v1/user', { token: theirs.token }), 200);
    expect((await api('GET', '/v1/user/tokens', { token: other.token })).body.count).toBe(2);
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const user = await createUser();
    const spare = await issue(user);
    expectError(await api('DELETE', `/v1/user/tokens/${spare.id}`), 401);
    expectError(await api('DELETE', `/v1/user/tokens/${spare.id}`, { token: ADMIN_TOKEN }), 403);
    expectStatus(await api('GET', '/v1/user', { token: spare.token }), 200);
  });
});
