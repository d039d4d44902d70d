import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { runScheduled } from '../../src/jobs/cron';
import { ROUTE_MANIFEST } from '../../src/routes/manifest';
import { AUDIT_RULES, isAudited, ORGANIZATION_PARAMS, TARGET_TYPES } from '../../src/services/audit/operations';
import { restoredPayload } from '../../src/services/audit/payload';
import { dropUnchangedStatement, recordingClient, type AuditEventDraft } from '../../src/services/audit/recorder';
import { AUDIT_RETENTION_DAYS } from '../../src/services/audit/retention';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, createUser, expectStatus, seedOrg } from '../helpers/harness';
import { countingD1, measureRoundTrips } from '../helpers/round-trips';

/**
 * The organization's events as stored, newest first (read straight from D1: what was written, whatever the API shows),
 * with their payloads as recorded (stored without what the action gives: services/audit/payload); `stored` as stored.
 */
async function storedEvents(orgId: string) {
  const { results } = await env.DB.prepare('select * from audit_events where org_id = ? order by occurred_at desc, id desc').bind(orgId).all<Record<string, any>>();
  return results.map((row) => ({ ...row, stored: JSON.parse(row.payload), payload: restoredPayload(row.action, JSON.parse(row.payload), row.target_id) }) as Record<string, any>);
}

const STATE_CHANGING = ROUTE_MANIFEST.filter(([method]) => !['GET', 'HEAD', 'OPTIONS'].includes(method));

describe('the audit rules (services/audit/operations.ts)', () => {
  it('give every state-changing route of the manifest an action or a reason, and name no route that does not exist', () => {
    const keys = STATE_CHANGING.map(([method, path]) => `${method} ${path}`);
    expect(keys.filter((key) => !AUDIT_RULES[key]), 'state-changing routes without an audit rule').toEqual([]);
    expect(Object.keys(AUDIT_RULES).filter((key) => !keys.includes(key)), 'rules of no route').toEqual([]);
  });

  it("name a target among each route's path parameters, of a known type, and an organization the path or the handler gives", () => {
    for (const [key, rule] of Object.entries(AUDIT_RULES)) {
      if (!isAudited(rule)) continue;
      expect(rule.action, key).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
      expect(TARGET_TYPES[rule.target], `${key}: target type`).toBeDefined();
      const params = [...key.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]);
      // POST /v1/orgs names its new organization in its handler (describeAuditEvent).
      if (key !== 'POST /v1/orgs') expect(params, `${key}: target parameter`).toContain(rule.target);
      const located = rule.organization === 'memberships' || ORGANIZATION_PARAMS.some((p) => params.includes(p));
      if (key !== 'POST /v1/orgs') expect(located, `${key}: whose log`).toBe(true);
    }
  });
});

describe('recording a change in its own batch', () => {
  it('records who changed what, when and from where, with the address coarsened and the user agent capped', async () => {
    const org = await seedOrg();
    const before = new Date().toISOString();
    const headers = { 'CF-Connecting-IP': '203.0.113.77', 'User-Agent': `agent/${'x'.repeat(400)}` };
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}/members/${org.members.read.id}`, { token: org.owner.token, body: { role: 'edit' }, headers }), 200);
    const [event] = await storedEvents(org.id);
    expect(event).toMatchObject({
      action: 'organization.member.role_updated',
      actor_type: 'user',
      actor_id: org.owner.id,
      actor_label: org.owner.email,
      source: 'api',
      target_type: 'user',
      target_id: org.members.read.id,
    });
    expect(event.occurred_at >= before).toBe(true);
    expect(event.payload.request).toEqual({
      method: 'PATCH',
      route: '/v1/orgs/:organizationId/members/:userId',
      ip: '203.0.113.0',
      userAgent: `agent/${'x'.repeat(250)}`,
    });
    // Stored without the method and route its action gives, answered whole by the API.
    expect(event.stored.request).toEqual({ ip: '203.0.113.0', userAgent: `agent/${'x'.repeat(250)}` });
    const details = expectStatus(await api('GET', `/v1/orgs/${org.id}/audit-events/${event.id}`, { token: org.owner.token }), 200).body;
    expect(details.payload).toEqual(event.payload);
    expect(details.payload.request.route).toBe('/v1/orgs/:organizationId/members/:userId');
    // Its params stored as the route's values in order, answered under their names.
    expect(event.stored.params).toEqual([org.id, org.members.read.id]);
    expect(details.payload.params).toEqual({ organizationId: org.id, userId: org.members.read.id });
    // IPv6 keeps its /48.
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}/members/${org.members.read.id}`, { token: org.owner.token, body: { role: 'read' }, headers: { 'CF-Connecting-IP': '2001:db8:85a3:8d3:1319:8a2e:370:7348' } }), 200);
    expect((await storedEvents(org.id))[0].payload.request.ip).toBe('2001:db8:85a3::');
  });

  it('stores a payload whole where the action does not give the route, and reads rows stored whole as they are', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Payloads');
    const cr = await openChangeRequest(space.id, org.owner.token);
    expectStatus(await api('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/comments`, { token: org.owner.token, body: { body: { markdown: 'Hi' } } }), 200);
    const [comment] = await storedEvents(org.id);
    expect(comment.action).toBe('comment.created');
    // comment.created is recorded by several routes: its method and route stay in the row.
    expect(comment.stored.request).toMatchObject({ method: 'POST', route: '/v1/spaces/:spaceId/change-requests/:changeRequestId/comments', ip: null });
    expect(comment.payload).toEqual(comment.stored);
    // A row written before compact payloads (its request whole) reads as it was stored.
    const whole = { request: { method: 'PATCH', route: '/v1/orgs/:organizationId', ip: null, userAgent: null }, params: { organizationId: org.id } };
    expect(restoredPayload('organization.updated', whole)).toEqual(whole);
    expect(restoredPayload('organization.updated', { request: {}, params: { organizationId: org.id } })).toEqual(whole);
    expect(restoredPayload('organization.updated', { request: {}, params: [org.id] })).toEqual(whole);
  });

  it('records nothing when the change is refused by its own guard or changes nothing (no record without its change)', async () => {
    const org = await seedOrg();
    const baseline = (await storedEvents(org.id)).length;
    // The last admin cannot be demoted: the guarded UPDATE changes no row, the request answers 400.
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}/members/${org.owner.id}`, { token: org.owner.token, body: { role: 'read' } }), 400);
    expectStatus(await api('DELETE', `/v1/orgs/${org.id}/members/${org.owner.id}`, { token: org.owner.token }), 400);
    // Removing someone who is not a member: 204, and nothing happened.
    const stranger = await createUser();
    expectStatus(await api('DELETE', `/v1/orgs/${org.id}/members/${stranger.id}`, { token: org.owner.token }), 204);
    // Refused callers write nothing at all.
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}/members/${org.members.read.id}`, { token: org.members.edit.token, body: { role: 'admin' } }), 403);
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.outsider.token, body: { title: 'Taken' } }), 404);
    expect(await storedEvents(org.id)).toHaveLength(baseline);
    // The member still holds their role, the organization its title: the refusals changed nothing either.
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}/members/${org.members.read.id}`, { token: org.owner.token }), 200).body.role).toBe('read');
  });

  it('records each change of a sample of operations across groups, in the organization whose resource changed', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Audited');
    expectStatus(await api('PATCH', `/v1/spaces/${space.id}`, { token, body: { title: 'Renamed' } }), 200);
    const team = expectStatus(await api('PUT', `/v1/orgs/${org.id}/teams`, { token, body: { title: 'Writers' } }), 201).body;
    const collection = expectStatus(await api('POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'Guides' } }), 201).body;
    expectStatus(await api('DELETE', `/v1/collections/${collection.id}`, { token }), 204);
    const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'Docs', spaces: [space.id] } }), 201).body;
    expectStatus(await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/publish`, { token }), 200);
    expectStatus(await api('DELETE', `/v1/spaces/${space.id}`, { token }), 204);
    const events = (await storedEvents(org.id)).reverse();
    const seen = events.map((e) => `${e.action} ${e.target_type}:${e.target_id}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        `organization.created organization:${org.id}`,
        `space.created organization:${org.id}`,
        `space.updated space:${space.id}`,
        `team.created organization:${org.id}`,
        `collection.created organization:${org.id}`,
        // The collection's organization is found before the delete removes the row it is found from.
        `collection.deleted collection:${collection.id}`,
        `site.created organization:${org.id}`,
        `site.published site:${site.id}`,
        `space.deleted space:${space.id}`,
      ]),
    );
    expect(team.id).toBeTruthy();
    // Nothing of it went to another organization's log.
    const elsewhere = await env.DB.prepare('select org_id from audit_events where actor_id = ? and org_id <> ?').bind(org.owner.id, org.id).all();
    expect(elsewhere.results).toEqual([]);
  });

  it("records a user's API token in every organization the user belongs to", async () => {
    const org = await seedOrg();
    const user = org.members.edit;
    const issued = await api('POST', `/v1/users/${user.id}/tokens`, { token: 'test-admin-token', body: {} });
    expect([200, 201]).toContain(issued.status);
    const [event] = await storedEvents(org.id);
    expect(event).toMatchObject({ action: 'user.api_token.created', actor_type: 'support', actor_id: 'operator', target_id: user.id });
    expect(await storedEvents(`no-such-org`)).toEqual([]);
  });

  it("records a merge in the space writer's batch (a Durable Object), once", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Merged');
    const cr = await openChangeRequest(space.id, token, 'A page');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'New', document: { markdown: 'Hello\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const events = await storedEvents(org.id);
    const merged = events.filter((e) => e.action === 'change_request.merged');
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ actor_id: org.owner.id, target_type: 'change-request', target_id: String(cr.number) });
    expect(events.filter((e) => e.action === 'change_request.content.updated')).toHaveLength(1);
    // A second merge of the same change request is refused: no second record.
    const again = await merge(space.id, cr.number, token);
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect((await storedEvents(org.id)).filter((e) => e.action === 'change_request.merged')).toHaveLength(1);
  });
});

describe('the recorder costs no round trip', () => {
  const draft = (orgId: string): AuditEventDraft => ({
    id: crypto.randomUUID(),
    occurredAt: new Date().toISOString(),
    action: 'test.changed',
    actor: { type: 'user', id: 'u' },
    source: 'api',
    target: { type: 'organization', id: orgId },
    organization: { id: orgId },
    executionId: 'r',
    payload: {},
  });

  it('carries the event in the batch or the single statement of the change: the same round trips as without it', async () => {
    const org = await seedOrg();
    const plain = countingD1(env.DB);
    const recorded = countingD1(env.DB);
    const recording = { draft: draft(org.id), inFlight: false };
    const wrapped = createDb(recordingClient(recorded.db as D1Database, recording));
    const bare = createDb(plain.db as D1Database);
    const update = (db: typeof bare, title: string) =>
      db.$client.prepare('update organizations set title = ? where id = ?').bind(title, org.id);
    // One statement alone, then a batch: each one round trip with or without the event.
    await update(bare, 'A').run();
    await update(wrapped, 'B').run();
    expect(recording.draft).toBeNull();
    await bare.$client.batch([update(bare, 'C'), update(bare, 'D')]);
    await wrapped.$client.batch([update(wrapped, 'E'), update(wrapped, 'F')]);
    expect(recorded.count).toBe(plain.count);
    expect((await storedEvents(org.id)).filter((e) => e.action === 'test.changed')).toHaveLength(1);
  });

  it('leaves the round trips of audited operations as they were (counts measured before the audit log)', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    // Warm the token's last-used stamp so the hourly write does not land in a measurement.
    await api('GET', '/v1/user', { token });
    const space = await createSpace(org.id, token, 'Counted');
    const cases: Array<[string, string, unknown, number]> = [
      ['PATCH', `/v1/orgs/${org.id}/members/${org.members.read.id}`, { role: 'edit' }, ROUND_TRIPS.updateMember],
      ['PATCH', `/v1/spaces/${space.id}`, { title: 'Counted again' }, ROUND_TRIPS.updateSpace],
      ['PUT', `/v1/orgs/${org.id}/teams`, { title: 'Counted team' }, ROUND_TRIPS.createTeam],
      ['DELETE', `/v1/orgs/${org.id}/members/${org.members.comment.id}`, undefined, ROUND_TRIPS.removeMember],
    ];
    const before = (await storedEvents(org.id)).length;
    for (const [method, path, body, expected] of cases) {
      const { status, roundTrips } = await measureRoundTrips(method, path, token, body);
      expect(status, `${method} ${path}`).toBeLessThan(300);
      expect(roundTrips, `${method} ${path}`).toBe(expected);
    }
    expect((await storedEvents(org.id)).length).toBe(before + cases.length);
  });
});

/** Round trips of these operations on main before the audit log existed (the same test run with the recording off). */
const ROUND_TRIPS = { updateMember: 2, updateSpace: 2, createTeam: 2, removeMember: 2 };

describe('the statement that drops an event whose change changed nothing', () => {
  it('finds the event through an index, not by reading every event of every organization (it runs in every audited batch)', async () => {
    let prepared: { sql: string; params: unknown[] } | undefined;
    const capturing = { prepare: (sql: string) => ({ bind: (...params: unknown[]) => ((prepared = { sql, params }), {}) }) };
    const draft = { id: 'evt_plan', occurredAt: '2026-11-29T00:00:00.000Z' } as AuditEventDraft;
    dropUnchangedStatement(capturing as never, draft);
    const plan = (await env.DB.prepare(`explain query plan ${prepared!.sql}`).bind(...prepared!.params).all<{ detail: string }>()).results.map((r) => r.detail);
    expect(plan.join('\n')).toMatch(/SEARCH audit_events USING/);
    expect(plan.filter((detail) => /^SCAN audit_events\b/.test(detail))).toEqual([]);
  });
});

describe('retention', () => {
  it(`the hourly cron deletes events older than ${AUDIT_RETENTION_DAYS} days and keeps the others`, async () => {
    const org = await seedOrg();
    const now = Date.now();
    const old = new Date(now - (AUDIT_RETENTION_DAYS + 1) * 86_400_000).toISOString();
    const recent = new Date(now - (AUDIT_RETENTION_DAYS - 1) * 86_400_000).toISOString();
    const insert = env.DB.prepare(
      `insert into audit_events (org_id, id, occurred_at, action, actor_type, actor_id, source, target_type, target_id, payload, changes_base)
       values (?, ?, ?, 'test.old', 'user', 'u', 'api', 'organization', ?, '{}', 0)`,
    );
    await env.DB.batch([insert.bind(org.id, 'old-one', old, org.id), insert.bind(org.id, 'recent-one', recent, org.id)]);
    await runScheduled(env, now);
    const ids = (await storedEvents(org.id)).map((e) => e.id);
    expect(ids).toContain('recent-one');
    expect(ids).not.toContain('old-one');
  });
});
