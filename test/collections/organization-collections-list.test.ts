/**
 * listCollectionsInOrganizationById reads a page from the organization's index for a member with a role and from
 * the grants for anyone else, and counts from the organization's collection counters (migration 0130) less the
 * capped collections hidden from a member (services/collections/organization-collections.ts). It must answer what
 * the plain definition answers: every collection of the organization (only those at its root with `nested=false`)
 * on which collectionRoleSql gives the caller read or more, in (createdAt, id) order, with that many as `count`.
 * The fixtures reach collections through every kind of grant (own and team grants, nested under a granted
 * collection), with levels that cap (defaultLevel guest on a collection and inherited below it), grants on another
 * organization's collections and a disabled member; every caller's pages (2 at a time, walking the cursors) are
 * compared with the definition.
 */
import { env } from 'cloudflare:workers';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { collections } from '../../src/db/schema';
import { RANK } from '../../src/lib/roles';
import { collectionRoleSql } from '../../src/services/access/access';
import { organizationCollectionsPageQueries } from '../../src/services/collections/organization-collections';
import { api, createUsers, expectStatus, seedOrg, type TestUser } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { collectPages } from '../organizations/support';
import { createTeam } from '../spaces/support';
import { createCollection, orgCollectionsPath, transferPath, movePath } from './support';

/** The definition: the caller's readable collections of the organization, in list order. */
async function expectedIds(orgId: string, userId: string, nested: boolean): Promise<string[]> {
  const rows = await createDb(env.DB)
    .select({ id: collections.id })
    .from(collections)
    .where(and(eq(collections.orgId, orgId), nested ? undefined : isNull(collections.parentId), sql`${collectionRoleSql(userId)} >= ${RANK.read}`))
    .orderBy(asc(collections.createdAt), asc(collections.id));
  return rows.map((r) => r.id);
}

const now = () => new Date().toISOString();

async function fixtures() {
  const org = await seedOrg();
  const other = await seedOrg();
  const token = org.owner.token;
  const [collectionGuest, teamGuest, disabledGuest, cappedReader] = await createUsers(4);
  const member = (user: TestUser, role: number, disabled = 0) =>
    env.DB.prepare('insert into org_members (org_id, user_id, role, joined_at, disabled) values (?, ?, ?, ?, ?)').bind(org.id, user.id, role, now(), disabled);
  await env.DB.batch([member(collectionGuest, 0), member(teamGuest, 0), member(disabledGuest, 0, 1), member(cappedReader, RANK.read)]);

  const outer = await createCollection(token, org.id, { defaultLevel: 'comment' });
  const inner = await createCollection(token, org.id, { parent: outer.id });
  const root = await createCollection(token, org.id);
  const hidden = await createCollection(token, org.id, { defaultLevel: null });
  const hiddenChild = await createCollection(token, org.id, { parent: hidden.id });
  const hiddenGrandchild = await createCollection(token, org.id, { parent: hiddenChild.id });
  const hiddenSibling = await createCollection(token, org.id, { parent: hidden.id });
  const cappedRoot = await createCollection(token, org.id, { defaultLevel: null });
  const reopened = await createCollection(token, org.id, { parent: hidden.id, defaultLevel: 'read' });
  const foreign = await createCollection(other.owner.token, other.id);
  const team = await createTeam(org, [teamGuest.id, cappedReader.id]);
  const grant = (table: string, target: string, subject: string, role: number) =>
    env.DB.prepare(`insert into ${table} values (?, ?, ?, ?)`).bind(target, subject, role, now());
  await env.DB.batch([
    grant('collection_user_grants', outer.id, collectionGuest.id, RANK.read),
    grant('collection_user_grants', foreign.id, collectionGuest.id, RANK.read),
    grant('collection_user_grants', cappedRoot.id, collectionGuest.id, RANK.edit),
    grant('collection_team_grants', hiddenChild.id, team.id, RANK.read),
    grant('collection_team_grants', foreign.id, team.id, RANK.read),
    grant('collection_user_grants', outer.id, disabledGuest.id, RANK.read),
    grant('collection_user_grants', hidden.id, disabledGuest.id, RANK.read),
  ]);
  return {
    org,
    callers: { collectionGuest, teamGuest, disabledGuest, cappedReader },
    made: { outer, inner, root, hidden, hiddenChild, hiddenGrandchild, hiddenSibling, cappedRoot, reopened },
  };
}

describe('listCollectionsInOrganizationById: the page from the index or the grants and the count from the counters answer the definition', () => {
  it('gives every caller the readable collections of the definition, in order, with their count on every page, nested or not', async () => {
    const { org, callers, made } = await fixtures();
    const everyone: [string, TestUser][] = [...Object.entries(org.members), ...Object.entries(callers)];
    const seen: Record<string, number> = {};
    for (const nested of [true, false]) {
      for (const [name, user] of everyone) {
        if (name === 'disabledGuest') {
          expectStatus(await api('GET', orgCollectionsPath(org.id), { token: user.token }), 404);
          continue;
        }
        const expected = await expectedIds(org.id, user.id, nested);
        // Every page, 2 at a time (collectPages also checks that each answers the same count).
        const { ids, count } = await collectPages(`${orgCollectionsPath(org.id)}?nested=${nested}`, user.token, 2);
        expect(ids, `${name}, nested=${nested}`).toEqual(expected);
        expect(count, `${name}, nested=${nested}`).toBe(expected.length);
        seen[`${name}${nested ? '' : ', root'}`] = ids.length;
      }
    }
    // The fixtures reach what they mean to: the admin every collection; a reader not what is capped to guest (the
    // hidden tree and the capped root, but the collection below reopened to read); the capped reader that too
    // where their team's grant opens it (a hidden child and its child); the guests only through their grants.
    expect(seen).toMatchObject({ admin: 9, read: 4, cappedReader: 6, collectionGuest: 3, teamGuest: 2, guest: 0 });
    expect(seen).toMatchObject({ 'admin, root': 4, 'read, root': 2, 'cappedReader, root': 2, 'collectionGuest, root': 2, 'teamGuest, root': 0 });
    const teamGuestIds = (await collectPages(`${orgCollectionsPath(org.id)}?nested=true`, callers.teamGuest.token, 2)).ids;
    expect(teamGuestIds).toEqual([made.hiddenChild.id, made.hiddenGrandchild.id]);
  });

  it('answers a page and its count in the round trips of a page that holds every row (at most 2 with the token), for every kind of caller, on a list longer than the page', async () => {
    const { org, callers } = await fixtures();
    for (const token of [org.owner.token, org.members.read.token, callers.cappedReader.token, callers.collectionGuest.token, callers.teamGuest.token]) {
      // The token's hourly last-used write happens now, not inside a measurement.
      await api('GET', '/v1/user', { token });
      const whole = await measureRoundTrips('GET', orgCollectionsPath(org.id), token);
      expect(whole.status).toBe(200);
      const first = await measureRoundTrips('GET', `${orgCollectionsPath(org.id)}?limit=1`, token);
      expect((first.body as { count: number }).count).toBe((whole.body as { count: number }).count);
      expect((first.body as { next?: unknown }).next).toBeDefined();
      expect(whole.roundTrips).toBeLessThanOrEqual(2);
      expect(first.roundTrips).toBe(whole.roundTrips);
    }
  });
});

describe('migration 0130: collection counters', () => {
  const counters = async (orgId: string) =>
    (await env.DB.prepare(
      `select collection_count, root_collection_count, (select count(*) from collections where org_id = ?1) as every,
         (select count(*) from collections where org_id = ?1 and parent_id is null) as roots
       from organizations where id = ?1`,
    )
      .bind(orgId)
      .first<{ collection_count: number; root_collection_count: number; every: number; roots: number }>())!;

  it('follow collections created, moved in and out of the root, transferred and deleted through the API, and carry existing rows over', async () => {
    const org = await seedOrg();
    const target = await seedOrg();
    const token = org.owner.token;
    // The owner of `org` administers `target` too, so that the transfer is allowed.
    await env.DB.prepare('insert into org_members (org_id, user_id, role, joined_at) values (?, ?, ?, ?)').bind(target.id, org.owner.id, RANK.admin, now()).run();
    const a = await createCollection(token, org.id);
    const b = await createCollection(token, org.id, { parent: a.id });
    const c = await createCollection(token, org.id, { parent: b.id });
    await createCollection(token, org.id);
    expect(await counters(org.id)).toMatchObject({ collection_count: 4, every: 4, root_collection_count: 2, roots: 2 });
    // b (with c inside) moves to the root, then back under a.
    expectStatus(await api('POST', movePath(b.id), { token, body: { parent: null } }), 200);
    expect(await counters(org.id)).toMatchObject({ collection_count: 4, root_collection_count: 3, roots: 3 });
    expectStatus(await api('POST', movePath(b.id), { token, body: { parent: a.id } }), 200);
    expect(await counters(org.id)).toMatchObject({ collection_count: 4, root_collection_count: 2, roots: 2 });
    // b and c go to the other organization, b at its root.
    expectStatus(await api('POST', transferPath(b.id), { token, body: { organization: target.id } }), 200);
    expect(await counters(org.id)).toMatchObject({ collection_count: 2, every: 2, root_collection_count: 2, roots: 2 });
    expect(await counters(target.id)).toMatchObject({ collection_count: 2, every: 2, root_collection_count: 1, roots: 1 });
    // Deleting a tree deletes every collection in it.
    expectStatus(await api('DELETE', `/v1/collections/${b.id}`, { token }), 204);
    expect(await counters(target.id)).toMatchObject({ collection_count: 0, every: 0, root_collection_count: 0, roots: 0 });
    expect(c.id).not.toBe(b.id);
    // A database from before 0130: the counters at 0 are set from the rows by the migration's UPDATE.
    await env.DB.prepare('update organizations set collection_count = 0, root_collection_count = 0 where id = ?').bind(org.id).run();
    const update = env.TEST_MIGRATIONS.find((m) => m.name.startsWith('0130_'))!.queries.find((q) => q.includes('`collection_count` = (SELECT'));
    expect(update).toBeDefined();
    await env.DB.prepare(update!).run();
    expect(await counters(org.id)).toMatchObject({ collection_count: 2, root_collection_count: 2 });
    const listed = expectStatus(await api('GET', `${orgCollectionsPath(org.id)}?limit=1`, { token }), 200).body as { count: number };
    expect(listed.count).toBe(2);
  });

  const planOf = async (query: string, ...binds: unknown[]) =>
    (await env.DB.prepare(`explain query plan ${query}`).bind(...binds).all<{ detail: string }>()).results.map((r) => r.detail).join('\n');

  it('reads the capped collections and the root collections through their partial indexes', async () => {
    expect(await planOf('select count(*) from collections where org_id = ? and access_cap = 0', 'org')).toMatch(/collections_org_capped/);
    expect(await planOf('select id from collections where org_id = ? and parent_id is null order by created_at, id limit 101', 'org')).toMatch(/collections_org_root/);
  });

  it("is how the list's own statements read: the page along the organization's index, the capped count along its partial index, a guest's from the grants", async () => {
    const db = createDb(env.DB);
    const planOfStatement = (statement: { toSQL(): { sql: string; params: unknown[] } }) => planOf(statement.toSQL().sql, ...statement.toSQL().params);
    for (const nested of [true, false]) {
      const [, orgPage, grantsPage, hiddenCount, grantedCount] = organizationCollectionsPageQueries(db, 'org', 'user', { cursor: null, limit: 100, nested });
      expect(await planOfStatement(orgPage)).toMatch(nested ? /SEARCH collections USING INDEX collections_org \(org_id=\?\)/ : /SEARCH collections USING INDEX collections_org_root/);
      expect(await planOfStatement(hiddenCount)).toMatch(/collections_org_capped/);
      for (const fromGrants of [grantsPage, grantedCount]) expect(await planOfStatement(fromGrants)).not.toMatch(/USING (COVERING )?INDEX collections_org|SCAN collections/);
    }
  });
});
