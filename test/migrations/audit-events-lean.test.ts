import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { runScheduled } from '../../src/jobs/cron';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { dropUnchangedStatement, type AuditEventDraft } from '../../src/services/audit/recorder';
import { AUDIT_RETENTION_DAYS } from '../../src/services/audit/retention';

/**
 * Migration 0152 (issue 42, storage: audit events without the index of every event by time) on a database as the code
 * before it left it: the index back, events recorded with UUID ids, then the migration's statements run again. The
 * log reads as it did, new events are recorded and dropped by their key, and the retention purge still finds old
 * events of every organization, one deleted since included, without reading every event.
 */
const statementsOf = (prefix: string) => {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix));
  expect(migration, prefix).toBeDefined();
  return migration!.queries;
};

const indexNames = async () =>
  (await env.DB.prepare("select name from sqlite_master where type = 'index' and tbl_name = 'audit_events'").all<{ name: string }>()).results.map((r) => r.name);

const insertEvent = (orgId: string, id: string, occurredAt: string) =>
  env.DB.prepare(
    `insert into audit_events (org_id, id, occurred_at, action, actor_type, actor_id, source, target_type, target_id, payload, changes_base)
     values (?, ?, ?, 'organization.updated', 'user', 'u', 'api', 'organization', ?, '{}', 0)`,
  ).bind(orgId, id, occurredAt, orgId);

const plan = async (sql: string, params: unknown[]) =>
  (await env.DB.prepare(`explain query plan ${sql}`).bind(...params).all<{ detail: string }>()).results.map((r) => r.detail);

describe('migration 0152: audit events without the index by time alone', () => {
  it('carries a log recorded before it over: its events read back, and new ones are recorded', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    await env.DB.prepare('CREATE INDEX IF NOT EXISTS `audit_events_time` ON `audit_events` (`occurred_at`)').run();
    const uuid = crypto.randomUUID();
    await insertEvent(org.id, uuid, new Date().toISOString()).run();
    expect(await indexNames()).toContain('audit_events_time');

    for (const query of statementsOf('0152_')) await env.DB.prepare(query).run();
    expect(await indexNames()).not.toContain('audit_events_time');

    const old = await api('GET', `/v1/orgs/${org.id}/audit-events/${uuid}`, { token });
    expectStatus(old, 200);
    expect(old.body.id).toBe(uuid);
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token, body: { title: 'Renamed after 0152' } }), 200);
    const list = await api('GET', `/v1/orgs/${org.id}/audit-events?action=organization.updated`, { token });
    expectStatus(list, 200);
    const ids = list.body.items.map((e: { id: string }) => e.id);
    expect(ids).toContain(uuid);
    const recorded = ids.find((id: string) => id !== uuid);
    expect(recorded).toBeDefined();
    expectStatus(await api('GET', `/v1/orgs/${org.id}/audit-events/${recorded}`, { token }), 200);
  });

  it('drops the event of a change that changed nothing by its key, in every organization it went to', async () => {
    const org = await seedOrg();
    const draft = { id: 'evt-drop-0152', occurredAt: new Date().toISOString(), organization: { membershipsOf: org.owner.id } } as AuditEventDraft;
    let prepared: { sql: string; params: unknown[] } | undefined;
    const capturing = { prepare: (sql: string) => ({ bind: (...params: unknown[]) => ((prepared = { sql, params }), {}) }) };
    dropUnchangedStatement(capturing as never, draft);
    const detail = (await plan(prepared!.sql, prepared!.params)).join('\n');
    expect(detail).toMatch(/SEARCH audit_events USING PRIMARY KEY/);
    expect(detail).not.toMatch(/SCAN audit_events\b/);

    // The owner's organizations: an event in each, with the count of changes as the insert leaves it.
    const orgs = (await env.DB.prepare('select org_id from org_members where user_id = ?').bind(org.owner.id).all<{ org_id: string }>()).results;
    expect(orgs.length).toBeGreaterThan(0);
    const insert = `insert into audit_events (org_id, id, occurred_at, action, actor_type, actor_id, source, target_type, target_id, payload, changes_base)
      select org_id, ?, ?, 'user.updated', 'user', 'u', 'api', 'user', 'u', '{}', total_changes() from org_members where user_id = ?`;
    const [, , dropped] = await env.DB.batch([
      env.DB.prepare(insert).bind(draft.id, draft.occurredAt, org.owner.id),
      env.DB.prepare('update organizations set title = title where id = ?').bind('no-such-organization'),
      env.DB.prepare(prepared!.sql).bind(...prepared!.params),
    ]);
    expect(dropped.meta.changes).toBe(orgs.length);
    expect(await env.DB.prepare('select count(*) as n from audit_events where id = ?').bind(draft.id).first('n')).toBe(0);

    // A change that changed a row keeps them.
    const [, , kept] = await env.DB.batch([
      env.DB.prepare(insert).bind(draft.id, draft.occurredAt, org.owner.id),
      env.DB.prepare('update organizations set title = title where id = ?').bind(org.id),
      env.DB.prepare(prepared!.sql).bind(...prepared!.params),
    ]);
    expect(kept.meta.changes).toBe(0);
    expect(await env.DB.prepare('select count(*) as n from audit_events where id = ?').bind(draft.id).first('n')).toBe(orgs.length);
  });

  it('purges the events past the retention of every organization, a deleted one included, along the organizations\' time index', async () => {
    const org = await seedOrg();
    const gone = `deleted-org-${crypto.randomUUID()}`;
    const now = Date.now();
    const old = new Date(now - (AUDIT_RETENTION_DAYS + 2) * 86_400_000).toISOString();
    const recent = new Date(now - 2 * 86_400_000).toISOString();
    await env.DB.batch([
      insertEvent(org.id, 'purge-0152-old', old),
      insertEvent(org.id, 'purge-0152-recent', recent),
      insertEvent(gone, 'purge-0152-gone-old', old),
      insertEvent(gone, 'purge-0152-gone-recent', recent),
    ]);
    await runScheduled(env, now);
    const left = (await env.DB.prepare("select id from audit_events where id like 'purge-0152-%' order by id").all<{ id: string }>()).results.map((r) => r.id);
    expect(left).toEqual(['purge-0152-gone-recent', 'purge-0152-recent']);
  });
});
