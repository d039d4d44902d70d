import { describe, expect, it } from 'vitest';
import { gitbookErrors, gitbookOperations, schemaValidator, GITBOOK_0202 } from '../helpers/gitbook-schema';
import { CALLERS, api, byCaller, callerUser, expectError, seedOrg, type Caller } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { env } from 'cloudflare:workers';
import { createSpace } from '../helpers/content';
import { createTeam, expectStatus, seedSpaceGrant } from './support';

const OPERATIONS = gitbookOperations();
/** GitBook 0.202.0's schema of an operation's 200 response. */
function gitbookResponse(operationId: string) {
  const schema = OPERATIONS.get(operationId)!.responses['200'];
  return schemaValidator(schema!, GITBOOK_0202.components);
}

const spacesPath = (orgId: string, userId: string) => `/v1/orgs/${orgId}/members/${userId}/spaces`;
const teamsPath = (orgId: string, userId: string) => `/v1/orgs/${orgId}/members/${userId}/teams`;

describe('listTeamsForOrganizationMember: GET /v1/orgs/{organizationId}/members/{userId}/teams', () => {
  it("lists the member's teams of this organization with their team role, in GitBook's shape", async () => {
    const org = await seedOrg();
    const member = org.members.edit;
    const owned = await createTeam(org.id, org.owner.token, [member.id], 'Alpha writers');
    const joined = await createTeam(org.id, org.owner.token, [member.id], 'Beta readers');
    await createTeam(org.id, org.owner.token, [org.members.read.id], 'Not theirs');
    expectStatus(await api('PUT', `/v1/orgs/${org.id}/teams/${owned}/members/${member.id}`, { token: org.owner.token, body: { role: 'owner' } }), 204);
    // A team of another organization the member also belongs to is not listed.
    const otherTeam = await createTeam((await api('GET', '/v1/orgs', { token: org.outsider.token })).body.items[0].id, org.outsider.token, []);

    const res = expectStatus(await api('GET', teamsPath(org.id, member.id), { token: member.token }), 200);
    expect(gitbookErrors(gitbookResponse('listTeamsForOrganizationMember'), res.body)).toBe('valid');
    expect(res.body.count).toBe(2);
    const byId = Object.fromEntries(res.body.items.map((i: any) => [i.team.id, i]));
    expect(Object.keys(byId).sort()).toEqual([owned, joined].sort());
    expect(byId[owned].member).toEqual({ role: 'owner' });
    expect(byId[joined].member).toEqual({ role: 'member' });
    expect(byId[owned].team).toMatchObject({ object: 'team', title: 'Alpha writers', members: 1 });
    expect(Object.keys(byId)).not.toContain(otherTeam);

    const filtered = expectStatus(await api('GET', `${teamsPath(org.id, member.id)}?title=bEtA`, { token: org.owner.token }), 200);
    expect(filtered.body.items.map((i: any) => i.team.id)).toEqual([joined]);
    expect(filtered.body.count).toBe(1);
  });

  it('pages with a cursor and a stable count', async () => {
    const org = await seedOrg();
    const member = org.members.read;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createTeam(org.id, org.owner.token, [member.id]));
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const query = `?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`;
      const res = expectStatus(await api('GET', `${teamsPath(org.id, member.id)}${query}`, { token: org.owner.token }), 200);
      expect(res.body.count).toBe(5);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((i: any) => i.team.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen.sort()).toEqual(ids.sort());
  });

  it('is for admins and the member themself: other members 403, outsiders 404', async () => {
    const org = await seedOrg();
    const target = org.members.comment;
    const expected = byCaller(200, 403, 403, 403, 200, 403, 403, 404);
    for (const caller of CALLERS) {
      const res = await api('GET', teamsPath(org.id, target.id), { token: callerUser(org, caller).token });
      expect(res.status, caller).toBe(expected[caller as Caller]);
    }
    // Each member may read their own list, a guest included.
    expectStatus(await api('GET', teamsPath(org.id, org.members.guest.id), { token: org.members.guest.token }), 200);
    // Another organization's admin asking about its own member through this organization learns nothing.
    expectError(await api('GET', teamsPath(org.id, org.outsider.id), { token: org.outsider.token }), 404);
  });

  it('answers hostile input with 4xx, never 500', async () => {
    const org = await seedOrg();
    expectError(await api('GET', teamsPath(org.id, 'x'.repeat(500)), { token: org.owner.token }), 400);
    expectError(await api('GET', `${teamsPath(org.id, org.owner.id)}?title=${'a'.repeat(65)}`, { token: org.owner.token }), 400, 'title');
    expectError(await api('GET', `${teamsPath(org.id, org.owner.id)}?page=garbage`, { token: org.owner.token }), 400);
    expectError(await api('GET', teamsPath('no-such-org', org.owner.id), { token: org.owner.token }), 404);
    // A user who is not a member: an empty list for the admin (nothing to say about them).
    const res = expectStatus(await api('GET', teamsPath(org.id, 'no-such-user'), { token: org.owner.token }), 200);
    expect(res.body).toMatchObject({ items: [], count: 0 });
  });

  it('costs one D1 round trip', async () => {
    const org = await seedOrg();
    const { roundTrips } = await measureRoundTrips('GET', teamsPath(org.id, org.members.read.id), org.owner.token);
    expect(roundTrips).toBe(1);
  });
});

describe('listSpacesForOrganizationMember: GET /v1/orgs/{organizationId}/members/{userId}/spaces', () => {
  it("lists the spaces the member can read with the member's role, in GitBook's shape", async () => {
    const org = await seedOrg();
    const first = await createSpace(org.id, org.owner.token, 'First');
    const second = await createSpace(org.id, org.owner.token, 'Second');
    const granted = await seedSpaceGrant(org.id, org.members.guest.id, 3);

    // A reader reads every space of the organization, as a reader (newest first by default).
    const reader = expectStatus(await api('GET', spacesPath(org.id, org.members.read.id), { token: org.owner.token }), 200);
    expect(gitbookErrors(gitbookResponse('listSpacesForOrganizationMember'), reader.body)).toBe('valid');
    expect(reader.body.items.map((i: any) => i.space.id)).toEqual([granted, second.id, first.id]);
    expect(reader.body.items.map((i: any) => i.permission)).toEqual(['read', 'read', 'read']);
    expect(reader.body.count).toBe(3);
    // The space's own `permissions` are the caller's (the admin's), not the member's.
    expect(reader.body.items[0].space.permissions.admin).toBe(true);

    const oldestFirst = expectStatus(await api('GET', `${spacesPath(org.id, org.members.read.id)}?order=asc&limit=2`, { token: org.owner.token }), 200);
    expect(oldestFirst.body.items.map((i: any) => i.space.id)).toEqual([first.id, second.id]);
    const rest = expectStatus(
      await api('GET', `${spacesPath(org.id, org.members.read.id)}?order=asc&limit=2&page=${encodeURIComponent(oldestFirst.body.next.page)}`, { token: org.owner.token }),
      200,
    );
    expect(rest.body.items.map((i: any) => i.space.id)).toEqual([granted]);

    // A guest reads only what was shared with them, with the role they were given.
    const guest = expectStatus(await api('GET', spacesPath(org.id, org.members.guest.id), { token: org.members.guest.token }), 200);
    expect(gitbookErrors(gitbookResponse('listSpacesForOrganizationMember'), guest.body)).toBe('valid');
    expect(guest.body.items.map((i: any) => [i.space.id, i.permission])).toEqual([[granted, 'edit']]);
    expect(guest.body.count).toBe(1);
  });

  it('is for admins and the member themself: other members 403, outsiders 404', async () => {
    const org = await seedOrg();
    await createSpace(org.id, org.owner.token);
    const target = org.members.edit;
    const expected = byCaller(200, 403, 403, 200, 403, 403, 403, 404);
    for (const caller of CALLERS) {
      const res = await api('GET', spacesPath(org.id, target.id), { token: callerUser(org, caller).token });
      expect(res.status, caller).toBe(expected[caller as Caller]);
    }
    expectError(await api('GET', spacesPath(org.id, org.outsider.id), { token: org.outsider.token }), 404);
    // Nobody's spaces of another organization leak through: the outsider's own space is not listed for them here.
    const res = expectStatus(await api('GET', spacesPath(org.id, org.outsider.id), { token: org.owner.token }), 200);
    expect(res.body).toMatchObject({ items: [], count: 0 });
  });

  it('answers hostile input with 4xx, never 500, in one round trip', async () => {
    const org = await seedOrg();
    expectError(await api('GET', spacesPath(org.id, 'x'.repeat(500)), { token: org.owner.token }), 400);
    expectError(await api('GET', `${spacesPath(org.id, org.owner.id)}?order=sideways`, { token: org.owner.token }), 400, 'order');
    expectError(await api('GET', `${spacesPath(org.id, org.owner.id)}?page=${'%ff'.repeat(300)}`, { token: org.owner.token }), 400);
    const { roundTrips, status } = await measureRoundTrips('GET', spacesPath(org.id, org.members.read.id), org.owner.token);
    expect(status).toBe(200);
    expect(roundTrips).toBe(1);
  });
});

describe('updateOrganizationMemberLastSeenAt: POST /v1/orgs/{organizationId}/ping', () => {
  const lastSeen = async (orgId: string, userId: string) =>
    (await env.DB.prepare('select last_seen_at from org_members where org_id = ? and user_id = ?').bind(orgId, userId).first<{ last_seen_at: string | null }>())?.last_seen_at;

  it("sets the caller's lastSeenAt in that organization only, for every member, guests included", async () => {
    const org = await seedOrg();
    for (const role of ['guest', 'read', 'admin'] as const) {
      const user = org.members[role];
      await env.DB.prepare('update org_members set last_seen_at = null where user_id = ?').bind(user.id).run();
      const before = new Date().toISOString();
      const res = expectStatus(await api('POST', `/v1/orgs/${org.id}/ping`, { token: user.token }), 200);
      expect(gitbookErrors(gitbookResponse('updateOrganizationMemberLastSeenAt'), res.body)).toBe('valid');
      expect(res.body).toEqual({});
      expect((await lastSeen(org.id, user.id))! >= before, role).toBe(true);
      const member = expectStatus(await api('GET', `/v1/orgs/${org.id}/members/${user.id}`, { token: org.owner.token }), 200);
      expect(member.body.lastSeenAt >= before).toBe(true);
    }
    // Another member is untouched.
    await env.DB.prepare('update org_members set last_seen_at = null where org_id = ? and user_id = ?').bind(org.id, org.members.edit.id).run();
    expectStatus(await api('POST', `/v1/orgs/${org.id}/ping`, { token: org.members.read.token }), 200);
    expect(await lastSeen(org.id, org.members.edit.id)).toBeNull();
  });

  it('is 404 for a non-member and an unknown organization, 401 without a token, in one round trip', async () => {
    const org = await seedOrg();
    expectError(await api('POST', `/v1/orgs/${org.id}/ping`, { token: org.outsider.token }), 404);
    expectError(await api('POST', `/v1/orgs/${'x'.repeat(129)}/ping`, { token: org.owner.token }), 400);
    expectError(await api('POST', '/v1/orgs/no-such-org/ping', { token: org.owner.token }), 404);
    expectError(await api('POST', `/v1/orgs/${org.id}/ping`, {}), 401);
    // Once the token is known (its first use is looked up and its use recorded), a ping is one statement.
    expectStatus(await api('POST', `/v1/orgs/${org.id}/ping`, { token: org.members.read.token }), 200);
    const { roundTrips, status } = await measureRoundTrips('POST', `/v1/orgs/${org.id}/ping`, org.members.read.token);
    expect(status).toBe(200);
    expect(roundTrips).toBe(1);
  });
});
