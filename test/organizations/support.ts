/**
 * Helpers shared by the Organizations and identity tests (not a test file: vitest only runs *.test.ts).
 */
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { api, createUser, type TestUser, expectSchema, expectStatus } from '../helpers/harness';

let counter = 0;
/** A short unique suffix for titles, emails and domains. */
export const uniq = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export { expectSchema, expectStatus } from '../helpers/harness';

/**
 * Follows `next.page` from the first page to the last with `limit`, asserting on every page that
 * `count` is the same, no page is longer than `limit`, only the last page has no `next`, and
 * no item appears twice. Returns every item in order. `between` runs after each page (to insert rows
 * mid-way; `count` may then grow).
 */
export async function collectPages(path: string, token: string, limit: number, between?: (pageIndex: number) => Promise<void>) {
  const items: any[] = [];
  const ids = new Set<string>();
  let page: string | undefined;
  let count: number | undefined;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const url = `${path}${sep}limit=${limit}${page ? `&page=${encodeURIComponent(page)}` : ''}`;
    const res = expectStatus(await api('GET', url, { token }), 200);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    if (count === undefined) count = res.body.count;
    else if (!between) expect(res.body.count, 'count must be the same on every page').toBe(count);
    for (const item of res.body.items) {
      const id = item.id ?? item.organization?.id;
      expect(ids.has(id), `duplicate item ${id} across pages`).toBe(false);
      ids.add(id);
      items.push(item);
    }
    page = res.body.next?.page;
    if (page) {
      expect(typeof page).toBe('string');
      expect(res.body.items.length, 'a page with a next page is full').toBe(limit);
    }
    pages++;
    expect(pages, 'too many pages').toBeLessThan(100);
    if (between) await between(pages);
  } while (page);
  return { items, ids: items.map((i) => i.id as string), count: count!, pages };
}

/** Runs `n` user creations in sequence (D1 in tests is a single local database; order keeps ids deterministic enough). */
export async function createUsers(n: number, options: Parameters<typeof createUser>[0] = {}): Promise<TestUser[]> {
  const out: TestUser[] = [];
  for (let i = 0; i < n; i++) out.push(await createUser(options));
  return out;
}

/** Direct D1 fixture: sets columns the API has no operation for (lastSeenAt, disabled, joinedAt). */
export async function setMemberColumns(orgId: string, userId: string, columns: { lastSeenAt?: string | null; disabled?: boolean; joinedAt?: string }) {
  const sets: string[] = [];
  const values: unknown[] = [];
  if (columns.lastSeenAt !== undefined) {
    sets.push('last_seen_at = ?');
    values.push(columns.lastSeenAt);
  }
  if (columns.disabled !== undefined) {
    sets.push('disabled = ?');
    values.push(columns.disabled ? 1 : 0);
  }
  if (columns.joinedAt !== undefined) {
    sets.push('joined_at = ?');
    values.push(columns.joinedAt);
  }
  const result = await env.DB.prepare(`update org_members set ${sets.join(', ')} where org_id = ? and user_id = ?`)
    .bind(...values, orgId, userId)
    .run();
  expect(result.meta.changes).toBe(1);
}

/** Direct D1 fixture: a space in the organization with a direct grant for a user (spaces have no routes yet). */
export async function seedSpaceGrant(orgId: string, userId: string, role = 3): Promise<string> {
  const spaceId = `sp${uniq()}`.slice(0, 20);
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare('insert into spaces (id, org_id, title, position, revision_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)').bind(
      spaceId,
      orgId,
      'Fixture space',
      1,
      `rev${spaceId}`,
      now,
      now,
    ),
    env.DB.prepare('insert into space_user_grants (space_id, user_id, role, created_at) values (?, ?, ?, ?)').bind(spaceId, userId, role, now),
  ]);
  return spaceId;
}

export async function spaceGrantCount(userId: string, spaceId: string): Promise<number> {
  const row = await env.DB.prepare('select count(*) as n from space_user_grants where user_id = ? and space_id = ?').bind(userId, spaceId).first<{ n: number }>();
  return row?.n ?? 0;
}

/** Creates a team through the API with the given organization members. */
export async function createTeam(orgId: string, adminToken: string, members: string[], title = `Team ${uniq()}`): Promise<string> {
  const res = expectStatus(await api('PUT', `/v1/orgs/${orgId}/teams`, { token: adminToken, body: { title, members } }), 201);
  return res.body.id;
}

/** Creates an organization through the API and returns its id. */
export async function createOrg(token: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = expectStatus(await api('POST', '/v1/orgs', { token, body: { title: `Org ${uniq()}`, ...body } }), 201);
  return res.body.id;
}
