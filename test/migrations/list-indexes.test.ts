import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectStatus, seedOrg } from '../helpers/harness';

/**
 * Migration 0115: the partial index of the live spaces capped to guest, which the count of an organization's
 * spaces for a member reads instead of every space of the organization. The test asks SQLite's planner, on the
 * migrated database, how it reads the count's shape of query.
 */
const planOf = async (query: string, ...binds: unknown[]) =>
  (await env.DB.prepare(`explain query plan ${query}`).bind(...binds).all<{ detail: string }>()).results.map((r) => r.detail).join('\n');

describe('migration 0115: indexes of organization-wide lists', () => {
  it('creates the partial index of capped live spaces', async () => {
    const index = await env.DB.prepare("select sql from sqlite_master where type = 'index' and name = 'spaces_org_capped_live'").first<{ sql: string }>();
    expect(index?.sql).toMatch(/WHERE `access_cap` = 0 AND `deleted_at` IS NULL/);
  });

  it('is the index the count of capped spaces reads, and only that count', async () => {
    expect(await planOf('select count(*) from spaces where org_id = ? and access_cap = 0 and deleted_at is null', 'org')).toMatch(/spaces_org_capped_live/);
    // A list of every live space is not served by it (it holds only the capped ones).
    expect(await planOf('select id from spaces where org_id = ? and deleted_at is null order by created_at, id limit 101', 'org')).not.toMatch(/spaces_org_capped_live/);
  });
});

describe('migration 0116: site and team counters', () => {
  const counters = async (orgId: string) =>
    (await env.DB.prepare(
      `select site_count, team_count, (select count(*) from sites where org_id = ?) as sites, (select count(*) from teams where org_id = ?) as teams
       from organizations where id = ?`,
    )
      .bind(orgId, orgId, orgId)
      .first<{ site_count: number; team_count: number; sites: number; teams: number }>())!;

  it('follows sites and teams created and deleted through the API, and carries existing rows over', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'One' } }), 201).body as { id: string };
    expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'Two' } }), 201);
    const team = expectStatus(await api('PUT', `/v1/orgs/${org.id}/teams`, { token, body: { title: 'Team' } }), 201).body as { id: string };
    expect(await counters(org.id)).toMatchObject({ site_count: 2, sites: 2, team_count: 1, teams: 1 });
    expectStatus(await api('DELETE', `/v1/orgs/${org.id}/sites/${site.id}`, { token }), 204);
    expectStatus(await api('DELETE', `/v1/orgs/${org.id}/teams/${team.id}`, { token }), 204);
    expect(await counters(org.id)).toMatchObject({ site_count: 1, sites: 1, team_count: 0, teams: 0 });
    // A database from before 0116: the counters at 0 are set from the rows by the migration's UPDATE.
    await env.DB.prepare('update organizations set site_count = 0, team_count = 0 where id = ?').bind(org.id).run();
    const update = env.TEST_MIGRATIONS.find((m) => m.name.startsWith('0116_'))!.queries.find((q) => q.includes('`site_count` = (SELECT'));
    expect(update).toBeDefined();
    await env.DB.prepare(update!).run();
    expect(await counters(org.id)).toMatchObject({ site_count: 1, team_count: 0 });
    // The members list shows the counter as every reader member's `sites`.
    const members = expectStatus(await api('GET', `/v1/orgs/${org.id}/members`, { token }), 200).body as { items: { role: string | null; sites: number }[] };
    expect(members.items.filter((m) => m.role !== null).map((m) => m.sites)).toEqual(members.items.filter((m) => m.role !== null).map(() => 1));
  });
});
