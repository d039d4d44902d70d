import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

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
