import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createUser, expectStatus, api } from '../helpers/harness';

/**
 * Concurrent requests in one isolate, through the Worker's own fetch entry (SELF: the runtime's IoContext per
 * request, the deployment's bindings, Miniflare's rate limit bindings included): nothing a request keeps for the
 * isolate (a memoized promise, a cached Response or stream, a D1 session or prepared statement) may be touched by
 * another request. workerd refuses that with "Cannot perform I/O on behalf of a different request" (a 500), so
 * every answer of a wave must be a 200 with the request's own body. The first wave also loads the route's group
 * (app.ts `serveWithGroup`): every request of it awaits that load, which one of them started.
 */

const WAVE = 12;

async function publishedSite() {
  const owner = await createUser();
  const org = expectStatus(await api('POST', '/v1/orgs', { token: owner.token, body: { title: 'IO context' } }), 201).body;
  const space = expectStatus(await api('POST', `/v1/orgs/${org.id}/spaces`, { token: owner.token, body: { title: 'Docs' } }), 201).body;
  const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: owner.token, body: { title: 'Site', spaces: [space.id] } }), 201).body;
  expectStatus(await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/publish`, { token: owner.token }), 200);
  return { token: owner.token, orgId: org.id as string, siteId: site.id as string };
}

/** `WAVE` requests at once, members and visitors alternating; each answer's status and body. */
async function wave(url: string, token: string) {
  return Promise.all(
    Array.from({ length: WAVE }, async (_, i) => {
      const res = await SELF.fetch(url, { headers: i % 2 === 0 ? { Authorization: `Bearer ${token}` } : {} });
      return { status: res.status, body: await res.text() };
    }),
  );
}

describe('concurrent requests in one isolate', () => {
  it('a published site read by members and visitors at once: every answer is its own 200', async () => {
    const { token, orgId, siteId } = await publishedSite();
    const url = `http://api.test/v1/orgs/${orgId}/sites/${siteId}/published`;
    for (let round = 0; round < 3; round++) {
      const answers = await wave(url, token);
      for (const answer of answers) {
        expect(answer.status, answer.body.slice(0, 300)).toBe(200);
        expect(JSON.parse(answer.body)).toMatchObject({ object: 'published-content-site', site: { id: siteId } });
      }
    }
  });
});
