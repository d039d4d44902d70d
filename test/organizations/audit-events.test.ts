import { beforeAll, describe, expect, it } from 'vitest';
import { gitbookErrors, gitbookOperations, gitbookValidator, GITBOOK_0202 } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { measureRoundTrips } from '../helpers/round-trips';

const components = GITBOOK_0202.components;
const gitbookEvent = gitbookValidator('AuditEvent', components);
const gitbookDetails = gitbookValidator('AuditEventDetails', components);
const gitbookAction = gitbookValidator('AuditEventAction', components);

/** An organization with a few recorded changes by two admins, and a second organization with its own. */
async function fixture() {
  const org = await seedOrg();
  const other = await seedOrg();
  const token = org.owner.token;
  expectStatus(await api('PATCH', `/v1/orgs/${org.id}/members/${org.members.create.id}`, { token, body: { role: 'admin' } }), 200);
  const second = org.members.create;
  for (let i = 0; i < 3; i++) expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token, body: { title: `Title ${i}` } }), 200);
  expectStatus(await api('PATCH', `/v1/orgs/${org.id}/members/${org.members.read.id}`, { token: second.token, body: { role: 'edit' } }), 200);
  expectStatus(await api('PATCH', `/v1/orgs/${other.id}`, { token: other.owner.token, body: { title: 'Elsewhere' } }), 200);
  return { org, other, second };
}

const list = (org: TestOrg, query = '', token = org.owner.token) => api('GET', `/v1/orgs/${org.id}/audit-events${query}`, { token });

describe('listOrganizationAuditEvents, getOrganizationAuditEvent, listOrganizationAuditEventActions', () => {
  let f: Awaited<ReturnType<typeof fixture>>;
  beforeAll(async () => {
    f = await fixture();
  });

  it('list the events newest first in GitBook shapes, and get one with its payload', async () => {
    const page = expectStatus(await list(f.org), 200).body;
    // organization.created, the promotion, three renames, the second admin's change.
    expect(page.count).toBe(6);
    expect(page.items.map((e: { action: string }) => e.action)).toEqual([
      'organization.member.role_updated',
      'organization.updated',
      'organization.updated',
      'organization.updated',
      'organization.member.role_updated',
      'organization.created',
    ]);
    for (const item of page.items) expect(gitbookErrors(gitbookEvent, item)).toBe('valid');
    const newest = page.items[0];
    expect(newest.actor).toEqual({ type: 'user', id: f.second.id, label: f.second.email });
    expect(newest.target).toEqual({ type: 'user', id: f.org.members.read.id });
    const details = expectStatus(await api('GET', `/v1/orgs/${f.org.id}/audit-events/${newest.id}`, { token: f.org.owner.token }), 200).body;
    expect(gitbookErrors(gitbookDetails, details)).toBe('valid');
    expect(details).toMatchObject({ ...newest, schemaVersion: 1 });
    expect(details.payload.params).toEqual({ organizationId: f.org.id, userId: f.org.members.read.id });
    expect(new URL(details.urls.location).pathname).toBe(`/v1/orgs/${f.org.id}/audit-events/${newest.id}`);
  });

  it('list the actions the log records, with labels', async () => {
    const body = expectStatus(await api('GET', `/v1/orgs/${f.org.id}/audit-event-actions`, { token: f.org.owner.token }), 200).body;
    for (const item of body.items) expect(gitbookErrors(gitbookAction, item)).toBe('valid');
    const ids = body.items.map((a: { id: string }) => a.id);
    expect(ids).toEqual(expect.arrayContaining(['organization.member.role_updated', 'change_request.merged', 'site.published', 'sso.saml_provider.updated']));
    expect(body.items.find((a: { id: string }) => a.id === 'user.api_token.created').label).toBe('User API token created');
  });

  it("answer GitBook's response schemas of the three operations", async () => {
    const operations = gitbookOperations();
    const page = expectStatus(await list(f.org), 200).body;
    const listSchema = operations.get('listOrganizationAuditEvents')!.responses['200']!;
    const { schemaValidator } = await import('../helpers/gitbook-schema');
    expect(gitbookErrors(schemaValidator(listSchema, components), page)).toBe('valid');
    const actions = expectStatus(await api('GET', `/v1/orgs/${f.org.id}/audit-event-actions`, { token: f.org.owner.token }), 200).body;
    expect(gitbookErrors(schemaValidator(operations.get('listOrganizationAuditEventActions')!.responses['200']!, components), actions)).toBe('valid');
  });

  it('filter by action, actor, target and time, each exactly', async () => {
    const actions = expectStatus(await list(f.org, '?action=organization.updated'), 200).body;
    expect(actions.count).toBe(3);
    expect(actions.items.every((e: { action: string }) => e.action === 'organization.updated')).toBe(true);
    const bySecond = expectStatus(await list(f.org, `?actor=${f.second.id}`), 200).body;
    expect(bySecond.items.map((e: { actor: { id: string } }) => e.actor.id)).toEqual([f.second.id]);
    const onReader = expectStatus(await list(f.org, `?target=${f.org.members.read.id}`), 200).body;
    expect(onReader.count).toBe(1);
    // Prefixes and patterns match nothing: the filters are exact.
    expect(expectStatus(await list(f.org, '?action=organization.%25'), 200).body.count).toBe(0);
    expect(expectStatus(await list(f.org, `?actor=${f.second.id.slice(0, 5)}`), 200).body.count).toBe(0);
    const all = expectStatus(await list(f.org), 200).body.items;
    const middle = all[2].occurredAt;
    const to = expectStatus(await list(f.org, `?to=${encodeURIComponent(middle)}`), 200).body;
    expect(to.items.every((e: { occurredAt: string }) => e.occurredAt <= middle)).toBe(true);
    const from = expectStatus(await list(f.org, `?from=${encodeURIComponent(middle)}`), 200).body;
    expect(from.items.every((e: { occurredAt: string }) => e.occurredAt >= middle)).toBe(true);
    expect(from.count + to.count).toBeGreaterThanOrEqual(all.length);
    // An offset names the same instant.
    const shifted = new Date(Date.parse(middle)).toISOString().replace('Z', '+00:00');
    expect(expectStatus(await list(f.org, `?from=${encodeURIComponent(shifted)}`), 200).body.count).toBe(from.count);
    expect(expectStatus(await list(f.org, '?from=2999-01-01T00:00:00Z'), 200).body.items).toEqual([]);
  });

  it('page with an opaque cursor, stable while events are added', async () => {
    const first = expectStatus(await list(f.org, '?limit=4'), 200).body;
    expect(first.items).toHaveLength(4);
    expect(first.next.page).toEqual(expect.any(String));
    // A change made between pages appears on no later page (newest first) and moves nothing.
    expectStatus(await api('PATCH', `/v1/orgs/${f.org.id}`, { token: f.org.owner.token, body: { title: 'Between pages' } }), 200);
    const second = expectStatus(await list(f.org, `?limit=4&page=${first.next.page}`), 200).body;
    const ids = [...first.items, ...second.items].map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(second.items.at(-1).action).toBe('organization.created');
    expect(second.next).toBeUndefined();
    // The default page is 20 events.
    expect(expectStatus(await list(f.org), 200).body.items.length).toBeLessThanOrEqual(20);
  });

  it('refuse hostile filters and cursors with 400 and the error body', async () => {
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?page=not-a-cursor',
      `?page=${btoa('["x"]')}`,
      '?from=yesterday',
      '?to=2026-13-45T99:00:00Z',
      `?action=${'a'.repeat(300)}`,
      '?actor=',
    ]) {
      expectError(await list(f.org, query), 400);
    }
    // A forged cursor of the right shape pages from where it says, and matches only this organization's events.
    const forged = btoa(JSON.stringify(["9999' or 1=1 --", 'zzz'])).replace(/=+$/, '');
    const page = expectStatus(await list(f.org, `?page=${forged}`), 200).body;
    expect(page.items.every((e: { urls: { location: string } }) => e.urls.location.includes(f.org.id))).toBe(true);
    expect(expectStatus(await list(f.org, "?target=' or ''='"), 200).body.count).toBe(0);
  });

  it('read in at most 2 round trips (the token and one batch)', async () => {
    await api('GET', '/v1/user', { token: f.org.owner.token });
    const listed = await measureRoundTrips('GET', `/v1/orgs/${f.org.id}/audit-events?action=organization.updated`, f.org.owner.token);
    expect(listed.status).toBe(200);
    expect(listed.roundTrips).toBeLessThanOrEqual(2);
    const one = await measureRoundTrips('GET', `/v1/orgs/${f.org.id}/audit-events/${(listed.body as { items: { id: string }[] }).items[0].id}`, f.org.owner.token);
    expect(one.status).toBe(200);
    expect(one.roundTrips).toBeLessThanOrEqual(2);
  });
});

describe('who may read the audit log: the organization admins only', () => {
  let f: Awaited<ReturnType<typeof fixture>>;
  let eventId: string;
  let otherEventId: string;
  let installationToken: string;
  let integrationToken: string;
  beforeAll(async () => {
    f = await fixture();
    eventId = expectStatus(await list(f.org), 200).body.items[0].id;
    otherEventId = expectStatus(await list(f.other), 200).body.items[0].id;
    const integration = await seedIntegration(f.org.id, { scopes: ['space:content:read', 'site:metadata:read'] });
    const installation = await seedInstallation(integration, f.org.id, { spaces: 'all', sites: 'all' });
    installationToken = await seedToken(integration.id, installation.id);
    integrationToken = await seedToken(integration.id, null);
  });

  const paths = () => [
    `/v1/orgs/${f.org.id}/audit-events`,
    `/v1/orgs/${f.org.id}/audit-events/${eventId}`,
    `/v1/orgs/${f.org.id}/audit-event-actions`,
  ];

  it('members who are not admins get 403; guests too', async () => {
    for (const role of ['edit', 'review', 'comment', 'read', 'guest'] as const) {
      for (const path of paths()) expectError(await api('GET', path, { token: f.org.members[role].token }), 403);
    }
  });

  it("another organization's admin and outsiders get 404 (existence does not leak)", async () => {
    for (const token of [f.other.owner.token, f.org.outsider.token]) {
      for (const path of paths()) expectError(await api('GET', path, { token }), 404);
    }
  });

  it("an event of another organization reads as 404 through this organization's path, even to its admin", async () => {
    expectError(await api('GET', `/v1/orgs/${f.org.id}/audit-events/${otherEventId}`, { token: f.org.owner.token }), 404);
    expectError(await api('GET', `/v1/orgs/${f.org.id}/audit-events/${crypto.randomUUID()}`, { token: f.org.owner.token }), 404);
    // And the other organization's own path refuses this admin.
    expectError(await api('GET', `/v1/orgs/${f.other.id}/audit-events/${otherEventId}`, { token: f.org.owner.token }), 404);
  });

  it('integration and installation tokens, the operator and no token are refused', async () => {
    for (const path of paths()) {
      expectError(await api('GET', path, { token: installationToken }), 403);
      expectError(await api('GET', path, { token: integrationToken }), 403);
      expectError(await api('GET', path, { token: 'test-admin-token' }), 403);
      expectError(await api('GET', path, {}), 401);
    }
  });

  it('no API call writes the log: the operations are reads, every other method is refused', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of paths()) {
        const res = await api(method, path, { token: f.org.owner.token, body: { action: 'forged' } });
        expect([404, 405], `${method} ${path}`).toContain(res.status);
      }
    }
    const actions = expectStatus(await list(f.org), 200).body.items.map((e: { action: string }) => e.action);
    expect(actions).not.toContain('forged');
  });
});
