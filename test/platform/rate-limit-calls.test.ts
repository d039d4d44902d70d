import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_POLICIES } from '../../src/services/limits/rate-limits';
import { applyChanges, openChangeRequest } from '../helpers/content';
import { ADMIN_TOKEN, api, seedOrg } from '../helpers/harness';
import { requestWithBindings } from '../helpers/round-trips';

/**
 * How many times a request asks the rate limit bindings, and which: each `limit()` is work for the platform (under
 * Miniflare a Durable Object's SQLite write), so a request asks each policy that applies to it once and no other.
 * The bindings here count and allow.
 */
function countingLimiters() {
  const calls: string[] = [];
  const bindings = Object.fromEntries(
    Object.values(RATE_LIMIT_POLICIES).map(({ binding }) => [
      binding,
      { limit: async () => (calls.push(binding), { success: true }) } satisfies RateLimit,
    ]),
  );
  return { calls, bindings };
}

async function limiterCalls(method: string, path: string, token: string | null, body?: unknown) {
  const { calls, bindings } = countingLimiters();
  const { status } = await requestWithBindings(method, path, token, body, bindings);
  return { status, calls: calls.sort() };
}

describe('rate limit bindings asked per request', () => {
  it('a read asks its caller policy once, whatever the route', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = (await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'S' } })).body;
    const cr = await openChangeRequest(space.id, token);
    const batch = await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'P', document: { markdown: 'Body.' } }]);
    const pageId = batch.changes[0].page.id as string;
    const reads = [
      '/v1/user',
      `/v1/spaces/${space.id}`,
      `/v1/spaces/${space.id}/change-requests`,
      `/v1/spaces/${space.id}/change-requests/${cr.id}`,
      `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pageId}`,
      `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pageId}?format=markdown`,
    ];
    for (const path of reads) expect(await limiterCalls('GET', path, token), path).toEqual({ status: 200, calls: ['RL_USER'] });
  });

  it('a write asks its caller policy once, and a costly one its own policy once more', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = (await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'S' } })).body;
    const cr = await openChangeRequest(space.id, token);
    expect(await limiterCalls('PATCH', `/v1/spaces/${space.id}/change-requests/${cr.number}`, token, { subject: 'Renamed' })).toEqual({
      status: 200,
      calls: ['RL_USER'],
    });
    const changes = [{ operation: 'insert_page', title: 'P', document: { markdown: 'Body.' } }];
    expect(await limiterCalls('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/content`, token, { changes })).toEqual({
      status: 200,
      calls: ['RL_CONTENT_WRITES', 'RL_USER'],
    });
  });

  it('a made-up token counts once against its client address, and no caller policy', async () => {
    expect(await limiterCalls('GET', '/v1/user', 'not-a-token')).toEqual({ status: 401, calls: ['RL_VISITOR'] });
  });

  it('the operator counts once against its own policy', async () => {
    expect(await limiterCalls('POST', '/v1/users', ADMIN_TOKEN, { displayName: 'New', email: `n-${crypto.randomUUID()}@example.test` })).toEqual({
      status: 201,
      calls: ['RL_OPERATOR'],
    });
  });
});
