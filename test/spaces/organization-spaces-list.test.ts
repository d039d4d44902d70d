/**
 * listSpacesInOrganizationById reads a guest's page from their grants and counts a member's spaces from the
 * organization's counter (services/spaces/organization-spaces.ts). Both must answer what the plain definition
 * answers: every live space of the organization on which spaceRoleSql gives the caller read or more, in
 * (createdAt, id) order, with that many as `count`. The fixtures reach spaces through every kind of grant (own and
 * team grants on spaces, collections nested under a granted collection, sites granted to the user or a team),
 * with levels that cap (defaultLevel guest on a space and on a collection), deleted and foreign granted spaces,
 * and a disabled member; every caller's pages (2 at a time, walking the cursors) are compared with the definition.
 */
import { env } from 'cloudflare:workers';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { spaces } from '../../src/db/schema';
import { RANK } from '../../src/lib/roles';
import { spaceRoleSql } from '../../src/services/access/access';
import { api, createUsers, expectStatus, seedOrg, type TestUser } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { collectPages } from '../organizations/support';
import { createCollection, createSpace, createTeam, orgSpacesPath } from './support';

/** The definition: the caller's readable live spaces of the organization, in list order. */
async function expectedIds(orgId: string, userId: string): Promise<string[]> {
  const rows = await createDb(env.DB)
    .select({ id: spaces.id })
    .from(spaces)
    .where(and(eq(spaces.orgId, orgId), isNull(spaces.deletedAt), sql`${spaceRoleSql(userId)} >= ${RANK.read}`))
    .orderBy(asc(spaces.createdAt), asc(spaces.id));
  return rows.map((r) => r.id);
}

const now = () => new Date().toISOString();

async function fixtures() {
  const org = await seedOrg();
  const other = await seedOrg();
  const [siteGuest, teamGuest, collectionGuest, disabledGuest, cappedReader] = await createUsers(5);
  const member = (user: TestUser, role: number, disabled = 0) =>
    env.DB.prepare('insert into org_members (org_id, user_id, role, joined_at, disabled) values (?, ?, ?, ?, ?)').bind(org.id, user.id, role, now(), disabled);
  await env.DB.batch([member(siteGuest, 0), member(teamGuest, 0), member(collectionGuest, 0), member(disabledGuest, 0, 1), member(cappedReader, RANK.read)]);

  const outer = await createCollection(org, { defaultLevel: 'comment' });
  const inner = await createCollection(org, { parent: outer.id });
  const hidden = await createCollection(org, { defaultLevel: null });
  const team = await createTeam(org, [teamGuest.id, cappedReader.id]);
  const root = await createSpace(org, {});
  const inInner = await createSpace(org, { parent: inner.id });
  const inOuter = await createSpace(org, { parent: outer.id });
  const inHidden = [await createSpace(org, { parent: hidden.id }), await createSpace(org, { parent: hidden.id })];
  const cappedRoot = await createSpace(org, {});
  expectStatus(await api('PATCH', `/v1/spaces/${cappedRoot.id}`, { token: org.owner.token, body: { defaultLevel: null } }), 200);
  const teamSpaces = [await createSpace(org, {}), await createSpace(org, {})];
  const deleted = await createSpace(org, {});
  const foreign = await createSpace(other, {});
  const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: 'Granted site' } }), 201).body as { id: string };
  const teamSite = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: 'Team site' } }), 201).body as { id: string };
  const link = (siteId: string, spaceId: string, i: number) =>
    env.DB.prepare('insert into site_spaces (id, site_id, space_id, path, position, created_at) values (?, ?, ?, ?, ?, ?)').bind(`ss${i}${siteId}`.slice(0, 20), siteId, spaceId, `p${i}`, i, now());
  const grant = (table: string, target: string, subject: string, role: number) =>
    env.DB.prepare(`insert into ${table} values (?, ?, ?, ?)`).bind(target, subject, role, now());
  await env.DB.batch([
    link(site.id, root.id, 1),
    link(site.id, inHidden[0].id, 2),
    link(site.id, deleted.id, 3),
    link(teamSite.id, cappedRoot.id, 4),
    grant('site_user_grants', site.id, siteGuest.id, RANK.read),
    grant('site_team_grants', teamSite.id, team.id, RANK.read),
    grant('space_team_grants', teamSpaces[0].id, team.id, RANK.edit),
    grant('space_team_grants', teamSpaces[1].id, team.id, RANK.read),
    grant('space_team_grants', foreign.id, team.id, RANK.read),
    grant('space_user_grants', deleted.id, teamGuest.id, RANK.read),
    grant('space_user_grants', foreign.id, teamGuest.id, RANK.read),
    grant('collection_user_grants', outer.id, collectionGuest.id, RANK.read),
    grant('collection_user_grants', hidden.id, cappedReader.id, RANK.read),
    grant('collection_user_grants', outer.id, disabledGuest.id, RANK.read),
    grant('space_user_grants', inHidden[1].id, collectionGuest.id, RANK.comment),
  ]);
  // An open change request on every space of the organization, the deleted one included (opened before its deletion).
  for (const space of [root, inInner, inOuter, ...inHidden, cappedRoot, ...teamSpaces, deleted]) {
    expectStatus(await api('POST', `/v1/spaces/${space.id}/change-requests`, { token: org.owner.token, body: { subject: space.id } }), 201);
  }
  expectStatus(await api('DELETE', `/v1/spaces/${deleted.id}`, { token: org.owner.token }), 204);
  return { org, callers: { siteGuest, teamGuest, collectionGuest, disabledGuest, cappedReader }, expectedSpaces: { inInner, inOuter } };
}

describe('listSpacesInOrganizationById: the page from grants and the count from the counter answer the definition', () => {
  it('gives every caller the readable spaces of the definition, in order, with their count on every page', async () => {
    const { org, callers, expectedSpaces } = await fixtures();
    const everyone: [string, TestUser][] = [
      ...Object.entries(org.members),
      ...Object.entries(callers),
    ];
    const seen: Record<string, number> = {};
    for (const [name, user] of everyone) {
      const expected = await expectedIds(org.id, user.id);
      if (name === 'disabledGuest') {
        expectStatus(await api('GET', orgSpacesPath(org.id), { token: user.token }), 404);
        continue;
      }
      // Every page, 2 at a time (collectPages also checks that each answers the same count).
      const { ids, count } = await collectPages(orgSpacesPath(org.id), user.token, 2);
      expect(ids, name).toEqual(expected);
      expect(count, name).toBe(expected.length);
      seen[name] = ids.length;
    }
    // The fixtures do reach what they mean to: the guests see through their grants only (the site guest: a space
    // at the root and one in the hidden collection; the team guest: two spaces and the capped space its team's
    // site links), the reader not what is capped to guest, the capped reader that too where a grant opens it.
    expect(seen).toMatchObject({ guest: 0, siteGuest: 2, teamGuest: 3, collectionGuest: 3, admin: 8, read: 5, cappedReader: 8 });
    const collectionGuestIds = (await collectPages(orgSpacesPath(org.id), callers.collectionGuest.token, 2)).ids;
    expect(collectionGuestIds).toEqual(expect.arrayContaining([expectedSpaces.inInner.id, expectedSpaces.inOuter.id]));
  });

  it("counts an organization's change requests as the definition does, for every caller, on pages shorter than the list", async () => {
    const { org, callers } = await fixtures();
    const everyone: [string, TestUser][] = [...Object.entries(org.members), ...Object.entries(callers)].filter(([name]) => name !== 'disabledGuest');
    for (const [name, user] of everyone) {
      // The definition: open change requests of live spaces the caller reads, each space holding one.
      const expected = (await expectedIds(org.id, user.id)).length;
      const res = expectStatus(await api('GET', `/v1/orgs/${org.id}/change-requests?limit=1`, { token: user.token }), 200);
      expect(res.body.count, name).toBe(expected);
      expect(res.body.items.length, name).toBe(Math.min(1, expected));
    }
  });

  it('answers a page in one round trip after the token, and one more for the count of a list longer than the page', async () => {
    const { org, callers } = await fixtures();
    for (const token of [callers.teamGuest.token, callers.cappedReader.token, org.members.read.token]) {
      // The token's hourly last-used write happens now, not inside a measurement.
      await api('GET', '/v1/user', { token });
      const whole = await measureRoundTrips('GET', orgSpacesPath(org.id), token);
      expect(whole.status).toBe(200);
      expect(whole.roundTrips).toBeLessThanOrEqual(2);
      const first = await measureRoundTrips('GET', `${orgSpacesPath(org.id)}?limit=1`, token);
      expect((first.body as { count: number }).count).toBe((whole.body as { count: number }).count);
      expect(first.roundTrips).toBe(whole.roundTrips + 1);
    }
  });
});
