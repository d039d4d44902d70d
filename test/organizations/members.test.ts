import { describe, expect, it } from 'vitest';
import { listOf } from '../../src/schemas/common';
import { MemberSchema } from '../../src/schemas/member';
import { ADMIN_TOKEN, ALL_ROLES, addMember, api, createUser, expectError, seedOrg, type RoleName, type TestOrg } from '../helpers/harness';
import { expectHostileTextFilter } from '../helpers/text-filter';
import { measureRoundTrips } from '../helpers/round-trips';
import { collectPages, createTeam, createUsers, expectSchema, expectStatus, seedSpaceGrant, setMemberColumns, spaceGrantCount, uniq } from './support';

const MemberListSchema = listOf(MemberSchema, 'OrganizationMembers');
const StrictMember = MemberSchema.strict();
const roleOf = (role: RoleName) => (role === 'guest' ? null : role);
const membersPath = (orgId: string) => `/v1/orgs/${orgId}/members`;
const memberPath = (orgId: string, userId: string) => `/v1/orgs/${orgId}/members/${userId}`;

async function memberIds(org: TestOrg, query = ''): Promise<string[]> {
  const res = expectStatus(await api('GET', `${membersPath(org.id)}${query}`, { token: org.owner.token }), 200);
  return res.body.items.map((m: { id: string }) => m.id);
}

describe('listMembersInOrganizationById: GET /v1/orgs/{organizationId}/members', () => {
  it('lists every member with their role and user, count equal to the total', async () => {
    const org = await seedOrg();
    const res = expectStatus(await api('GET', membersPath(org.id), { token: org.members.read.token }), 200);
    const body = expectSchema(MemberListSchema, res.body);
    expect(body.count).toBe(ALL_ROLES.length);
    expect(body.next).toBeUndefined();
    for (const item of body.items) expectSchema(StrictMember, item);
    for (const role of ALL_ROLES) {
      const user = org.members[role];
      const item = body.items.find((m) => m.id === user.id);
      expect(item, role).toBeDefined();
      expect(item).toMatchObject({
        object: 'member',
        role: roleOf(role),
        disabled: false,
        sso: false,
        spaces: 0,
        teams: 0,
        user: { object: 'user', id: user.id, displayName: user.displayName, email: user.email, urls: { location: `http://api.test/v1/users/${user.id}` } },
      });
    }
    // The outsider is not listed.
    expect(body.items.map((m) => m.id)).not.toContain(org.outsider.id);
  });

  it('filters by role, guest included, with count matching the filter', async () => {
    const org = await seedOrg();
    const extraReaders = await createUsers(2);
    for (const u of extraReaders) await addMember(org.id, u.id, 'read');
    for (const role of ALL_ROLES) {
      const res = expectStatus(await api('GET', `${membersPath(org.id)}?role=${role}`, { token: org.owner.token }), 200);
      const expected = role === 'read' ? [org.members.read.id, ...extraReaders.map((u) => u.id)] : [org.members[role].id];
      expect(res.body.items.map((m: { id: string }) => m.id).sort(), role).toEqual(expected.sort());
      expect(res.body.count, role).toBe(expected.length);
      expect(res.body.items.every((m: { role: string | null }) => m.role === roleOf(role))).toBe(true);
    }
    expectError(await api('GET', `${membersPath(org.id)}?role=owner`, { token: org.owner.token }), 400, 'role');
  });

  it('searches display names and emails, case-insensitively, treating % and _ literally', async () => {
    const org = await seedOrg();
    const tag = uniq();
    const ada = await createUser({ displayName: `Ada Lovelace ${tag}`, email: `ada-${tag}@analytical.example` });
    const percent = await createUser({ displayName: `100% Sure ${tag}`, email: `pct-${tag}@example.test` });
    const under = await createUser({ displayName: `Under_score ${tag}`, email: `und-${tag}@example.test` });
    for (const u of [ada, percent, under]) await addMember(org.id, u.id, 'read');

    expect(await memberIds(org, `?search=${encodeURIComponent('LOVELACE')}`)).toEqual([ada.id]);
    expect(await memberIds(org, `?search=analytical.EXAMPLE`)).toEqual([ada.id]);
    expect(await memberIds(org, `?search=${encodeURIComponent('%')}`)).toEqual([percent.id]);
    expect(await memberIds(org, `?search=${encodeURIComponent('_')}`)).toEqual([under.id]);
    expect((await memberIds(org, `?search=${tag}`)).sort()).toEqual([ada.id, percent.id, under.id].sort());
    const none = expectStatus(await api('GET', `${membersPath(org.id)}?search=no-such-${tag}`, { token: org.owner.token }), 200);
    expect(none.body).toEqual({ items: [], count: 0 });
    // Combined with a role filter.
    const combined = expectStatus(await api('GET', `${membersPath(org.id)}?search=${tag}&role=read&limit=1`, { token: org.owner.token }), 200);
    expect(combined.body.count).toBe(3);
    expect(combined.body.items).toHaveLength(1);
    expectError(await api('GET', `${membersPath(org.id)}?search=${'x'.repeat(201)}`, { token: org.owner.token }), 400, 'search');
  });

  it('takes any search text as it is: hostile lengths and characters never answer 5xx, too long is a 400', async () => {
    const org = await seedOrg();
    await expectHostileTextFilter({
      param: 'search',
      create: async (displayName) => {
        const user = await createUser({ displayName });
        await addMember(org.id, user.id, 'read');
        return user.id;
      },
      list: (value) => api('GET', `${membersPath(org.id)}${value === undefined ? '' : `?search=${encodeURIComponent(value)}`}`, { token: org.owner.token }),
    });
  });

  it('sorts by joinedAt by default and by lastSeenAt (only members seen) on request', async () => {
    const org = await seedOrg();
    // Deterministic join times, in the reverse order of ALL_ROLES.
    const order = [...ALL_ROLES].reverse();
    for (const [i, role] of order.entries()) {
      await setMemberColumns(org.id, org.members[role].id, { joinedAt: `2024-01-0${i + 1}T00:00:00.000Z` });
    }
    const expectedJoined = order.map((r) => org.members[r].id);
    expect(await memberIds(org)).toEqual(expectedJoined);
    expect(await memberIds(org, '?sort=joinedAt')).toEqual(expectedJoined);
    const paged = await collectPages(`${membersPath(org.id)}?sort=joinedAt`, org.owner.token, 3);
    expect(paged.ids).toEqual(expectedJoined);

    await setMemberColumns(org.id, org.members.edit.id, { lastSeenAt: '2025-03-01T00:00:00.000Z' });
    await setMemberColumns(org.id, org.members.guest.id, { lastSeenAt: '2025-05-01T00:00:00.000Z' });
    await setMemberColumns(org.id, org.members.admin.id, { lastSeenAt: '2025-01-01T00:00:00.000Z' });
    const seen = expectStatus(await api('GET', `${membersPath(org.id)}?sort=lastSeenAt`, { token: org.owner.token }), 200);
    expect(seen.body.count).toBe(3);
    expect(seen.body.items.map((m: { id: string }) => m.id)).toEqual([org.members.admin.id, org.members.edit.id, org.members.guest.id]);
    expect(seen.body.items[0].lastSeenAt).toBe('2025-01-01T00:00:00.000Z');
    const seenPaged = await collectPages(`${membersPath(org.id)}?sort=lastSeenAt`, org.owner.token, 2);
    expect(seenPaged.ids).toEqual([org.members.admin.id, org.members.edit.id, org.members.guest.id]);
    expect(seenPaged.count).toBe(3);

    expectError(await api('GET', `${membersPath(org.id)}?sort=displayName`, { token: org.owner.token }), 400, 'sort');
  });

  it('paginates with limit and next.page to the end, with or without a filter', async () => {
    const org = await seedOrg();
    const extra = await createUsers(8);
    for (const [i, u] of extra.entries()) await addMember(org.id, u.id, i % 2 ? 'read' : 'edit');
    const all = await collectPages(membersPath(org.id), org.owner.token, 4);
    expect(all.count).toBe(15);
    expect(all.pages).toBe(4);
    expect(new Set(all.ids)).toEqual(new Set([...ALL_ROLES.map((r) => org.members[r].id), ...extra.map((u) => u.id)]));
    const readers = await collectPages(`${membersPath(org.id)}?role=read`, org.owner.token, 2);
    expect(readers.count).toBe(5);
    expect(readers.pages).toBe(3);
    expect(readers.items.every((m) => m.role === 'read')).toBe(true);
  });

  it('keeps the cursor stable when members join between pages', async () => {
    const org = await seedOrg();
    const before = ALL_ROLES.map((r) => org.members[r].id);
    const late = await createUser();
    const { ids } = await collectPages(membersPath(org.id), org.owner.token, 3, async (pageIndex) => {
      if (pageIndex === 1) {
        await addMember(org.id, late.id, 'read');
        // Joined later than every member already listed (the clock may not tick between fast requests).
        await setMemberColumns(org.id, late.id, { joinedAt: '2999-01-01T00:00:00.000Z' });
      }
    });
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of before) expect(ids).toContain(id);
    expect(ids).toContain(late.id);
  });

  it('rejects limit=0, limit=1001 and a garbage page with 400', async () => {
    const org = await seedOrg();
    expectError(await api('GET', `${membersPath(org.id)}?limit=0`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${membersPath(org.id)}?limit=1001`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${membersPath(org.id)}?page=%%%`, { token: org.owner.token }), 400);
    expectError(await api('GET', `${membersPath(org.id)}?page=bm90LWEtY3Vyc29y`, { token: org.owner.token }), 400, 'page');
  });

  it('shows the number of teams and spaces each member has in this organization', async () => {
    const org = await seedOrg();
    await createTeam(org.id, org.owner.token, [org.members.edit.id, org.members.read.id]);
    await createTeam(org.id, org.owner.token, [org.members.edit.id]);
    await seedSpaceGrant(org.id, org.members.comment.id);
    const res = expectStatus(await api('GET', membersPath(org.id), { token: org.owner.token }), 200);
    const byId = new Map(res.body.items.map((m: { id: string }) => [m.id, m]));
    expect(byId.get(org.members.edit.id)).toMatchObject({ teams: 2, spaces: 0 });
    expect(byId.get(org.members.read.id)).toMatchObject({ teams: 1, spaces: 0 });
    expect(byId.get(org.members.comment.id)).toMatchObject({ teams: 0, spaces: 1 });
  });

  it("counts the organization's sites each member can open: none for a guest or a disabled member, in one statement", async () => {
    const org = await seedOrg();
    const other = await seedOrg();
    for (const title of ['One', 'Two']) expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title } }), 201);
    expectStatus(await api('POST', `/v1/orgs/${other.id}/sites`, { token: other.owner.token, body: { title: 'Theirs' } }), 201);
    await setMemberColumns(org.id, org.members.edit.id, { disabled: true });
    const measured = await measureRoundTrips('GET', membersPath(org.id), org.owner.token);
    expect(measured.status).toBe(200);
    expect(measured.roundTrips).toBeLessThanOrEqual(2);
    const body = measured.body as { items: Array<{ id: string; sites: number }> };
    const byId = new Map(body.items.map((m) => [m.id, m.sites]));
    for (const role of ['admin', 'create', 'review', 'comment', 'read'] as const) expect(byId.get(org.members[role].id), role).toBe(2);
    expect(byId.get(org.members.guest.id)).toBe(0);
    expect(byId.get(org.members.edit.id)).toBe(0);
    const one = expectStatus(await api('GET', memberPath(org.id, org.members.read.id), { token: org.owner.token }), 200);
    expect(one.body.sites).toBe(2);
    const theirs = expectStatus(await api('GET', memberPath(other.id, other.members.read.id), { token: other.owner.token }), 200);
    expect(theirs.body.sites).toBe(1);
  });

  it('answers 403 to a guest, 404 to a non-member and for an unknown organization', async () => {
    const org = await seedOrg();
    expectError(await api('GET', membersPath(org.id), { token: org.members.guest.token }), 403);
    expectError(await api('GET', membersPath(org.id), { token: org.outsider.token }), 404);
    expectError(await api('GET', membersPath('doesNotExist000000000'), { token: org.owner.token }), 404);
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    expectError(await api('GET', membersPath(org.id)), 401);
    expectError(await api('GET', membersPath(org.id), { token: ADMIN_TOKEN }), 403);
  });
});

describe('getMemberInOrganizationById: GET /v1/orgs/{organizationId}/members/{userId}', () => {
  it('returns the member with role, user and counts', async () => {
    const org = await seedOrg();
    const res = expectStatus(await api('GET', memberPath(org.id, org.owner.id), { token: org.members.read.token }), 200);
    const member = expectSchema(StrictMember, res.body);
    expect(member).toMatchObject({
      object: 'member',
      id: org.owner.id,
      role: 'admin',
      disabled: false,
      teams: 0,
      spaces: 0,
      user: { id: org.owner.id, email: org.owner.email, displayName: org.owner.displayName },
    });
    expect(new Date(member.joinedAt).toISOString()).toBe(member.joinedAt);
    expect(member.lastSeenAt).toBeUndefined();
  });

  it('lets a guest see themselves (role null) but not other members (403)', async () => {
    const org = await seedOrg();
    const self = expectStatus(await api('GET', memberPath(org.id, org.members.guest.id), { token: org.members.guest.token }), 200);
    expect(expectSchema(StrictMember, self.body).role).toBeNull();
    expectError(await api('GET', memberPath(org.id, org.owner.id), { token: org.members.guest.token }), 403);
  });

  it('answers 404 for a user who is not a member, and to a non-member caller', async () => {
    const org = await seedOrg();
    expectError(await api('GET', memberPath(org.id, org.outsider.id), { token: org.owner.token }), 404, 'member');
    expectError(await api('GET', memberPath(org.id, 'noSuchUser0000000000'), { token: org.owner.token }), 404);
    expectError(await api('GET', memberPath(org.id, org.owner.id), { token: org.outsider.token }), 404);
    expectError(await api('GET', memberPath(org.id, org.outsider.id), { token: org.outsider.token }), 404);
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    expectError(await api('GET', memberPath(org.id, org.owner.id)), 401);
    expectError(await api('GET', memberPath(org.id, org.owner.id), { token: ADMIN_TOKEN }), 403);
  });
});

describe('updateMemberInOrganizationById: PATCH /v1/orgs/{organizationId}/members/{userId}', () => {
  const patch = (orgId: string, userId: string, token: string, body: unknown) => api('PATCH', memberPath(orgId, userId), { token, body });

  it("changes a member's role to every role and to guest, and persists it", async () => {
    const org = await seedOrg();
    const target = org.members.read;
    for (const role of ['create', 'review', 'edit', 'comment', 'admin', null, 'read'] as const) {
      const res = expectStatus(await patch(org.id, target.id, org.owner.token, { role }), 200);
      const member = expectSchema(StrictMember, res.body);
      expect(member).toMatchObject({ id: target.id, role, user: { id: target.id } });
      const fetched = expectStatus(await api('GET', memberPath(org.id, target.id), { token: org.owner.token }), 200);
      expect(fetched.body.role).toBe(role);
    }
  });

  it('gives the new role its effect: a promoted admin can administer the organization', async () => {
    const org = await seedOrg();
    expectError(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.members.edit.token, body: { title: 'Edited' } }), 403);
    expectStatus(await patch(org.id, org.members.edit.id, org.owner.token, { role: 'admin' }), 200);
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.members.edit.token, body: { title: 'Edited' } }), 200);
    expectStatus(await patch(org.id, org.members.edit.id, org.owner.token, { role: null }), 200);
    expectError(await api('GET', membersPath(org.id), { token: org.members.edit.token }), 403);
  });

  it('rejects a missing or unknown role and malformed JSON with 400', async () => {
    const org = await seedOrg();
    expectError(await patch(org.id, org.members.read.id, org.owner.token, {}), 400, 'role');
    expectError(await patch(org.id, org.members.read.id, org.owner.token, { role: 'owner' }), 400, 'role');
    expectError(await patch(org.id, org.members.read.id, org.owner.token, { role: 3 }), 400, 'role');
    expectError(await api('PATCH', memberPath(org.id, org.members.read.id), { token: org.owner.token, rawBody: '{role:' }), 400, 'json');
  });

  it('refuses to demote the last admin (400), but allows it once another admin exists', async () => {
    const org = await seedOrg();
    for (const role of ['create', 'read', null]) {
      expectError(await patch(org.id, org.owner.id, org.owner.token, { role }), 400, 'last admin');
    }
    expect((await api('GET', memberPath(org.id, org.owner.id), { token: org.owner.token })).body.role).toBe('admin');
    // Keeping the admin role is not a demotion.
    expectStatus(await patch(org.id, org.owner.id, org.owner.token, { role: 'admin' }), 200);

    expectStatus(await patch(org.id, org.members.create.id, org.owner.token, { role: 'admin' }), 200);
    const demoted = expectStatus(await patch(org.id, org.owner.id, org.owner.token, { role: 'edit' }), 200);
    expect(demoted.body.role).toBe('edit');
    // The remaining admin is now the last one.
    expectError(await patch(org.id, org.members.create.id, org.members.create.token, { role: 'read' }), 400, 'last admin');
  });

  it('does not count a disabled admin as another admin', async () => {
    const org = await seedOrg();
    await addMember(org.id, org.outsider.id, 'admin');
    await setMemberColumns(org.id, org.outsider.id, { disabled: true });
    expectError(await patch(org.id, org.owner.id, org.owner.token, { role: 'read' }), 400, 'last admin');
  });

  it('keeps one admin when the two admins demote themselves at the same time', async () => {
    const org = await seedOrg();
    const second = org.members.create;
    expectStatus(await patch(org.id, second.id, org.owner.token, { role: 'admin' }), 200);
    const results = await Promise.all([
      patch(org.id, org.owner.id, org.owner.token, { role: 'read' }),
      patch(org.id, second.id, second.token, { role: 'read' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const admins = expectStatus(await api('GET', `${membersPath(org.id)}?role=admin`, { token: org.members.read.token }), 200);
    expect(admins.body.count).toBe(1);
  });

  it('answers 404 for a user who is not a member', async () => {
    const org = await seedOrg();
    expectError(await patch(org.id, org.outsider.id, org.owner.token, { role: 'read' }), 404, 'member');
    expectError(await patch(org.id, 'noSuchUser0000000000', org.owner.token, { role: 'read' }), 404);
  });

  it('answers 403 to members below admin and 404 to a non-member, changing nothing', async () => {
    const org = await seedOrg();
    for (const role of ALL_ROLES.filter((r) => r !== 'admin')) {
      expectError(await patch(org.id, org.members[role].id, org.members[role].token, { role: 'admin' }), 403);
      expectError(await patch(org.id, org.members.read.id, org.members[role].token, { role: 'create' }), 403);
    }
    expectError(await patch(org.id, org.members.read.id, org.outsider.token, { role: 'admin' }), 404);
    const res = expectStatus(await api('GET', membersPath(org.id), { token: org.owner.token }), 200);
    for (const role of ALL_ROLES) expect(res.body.items.find((m: { id: string }) => m.id === org.members[role].id).role).toBe(roleOf(role));
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    expectError(await patch(org.id, org.members.read.id, '', { role: 'edit' }), 401);
    expectError(await patch(org.id, org.members.read.id, ADMIN_TOKEN, { role: 'edit' }), 403);
  });
});

describe('removeMemberFromOrganizationById: DELETE /v1/orgs/{organizationId}/members/{userId}', () => {
  const remove = (orgId: string, userId: string, token: string) => api('DELETE', memberPath(orgId, userId), { token });

  it('removes a member (204): they are no longer listed and lose access', async () => {
    const org = await seedOrg();
    const target = org.members.edit;
    const res = await remove(org.id, target.id, org.owner.token);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.body).toBeNull();
    const list = expectStatus(await api('GET', membersPath(org.id), { token: org.owner.token }), 200);
    expect(list.body.count).toBe(ALL_ROLES.length - 1);
    expect(list.body.items.map((m: { id: string }) => m.id)).not.toContain(target.id);
    expectError(await api('GET', memberPath(org.id, target.id), { token: org.owner.token }), 404);
    expectError(await api('GET', `/v1/orgs/${org.id}`, { token: target.token }), 404);
    expect((await api('GET', '/v1/orgs', { token: target.token })).body.count).toBe(0);
  });

  it("also removes the member's team memberships and space grants in the organization", async () => {
    const org = await seedOrg();
    const target = org.members.comment;
    const teamId = await createTeam(org.id, org.owner.token, [target.id, org.members.read.id]);
    const spaceId = await seedSpaceGrant(org.id, target.id);
    const teamMembers = (await api('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.owner.token })).body;
    expect(teamMembers.items.map((m: { organization: { id: string } }) => m.organization.id).sort()).toEqual([target.id, org.members.read.id].sort());
    expect((await api('GET', memberPath(org.id, target.id), { token: org.owner.token })).body).toMatchObject({ teams: 1, spaces: 1 });

    expect((await remove(org.id, target.id, org.owner.token)).status).toBe(204);

    const after = expectStatus(await api('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.owner.token }), 200);
    expect(after.body.items.map((m: { organization: { id: string } }) => m.organization.id)).toEqual([org.members.read.id]);
    expect(after.body.count).toBe(1);
    const team = expectStatus(await api('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.owner.token }), 200);
    expect(team.body.members).toBe(1);
    expect(await spaceGrantCount(target.id, spaceId)).toBe(0);
    // Coming back does not resurrect the old team membership or grant.
    await addMember(org.id, target.id, 'comment');
    expect((await api('GET', memberPath(org.id, target.id), { token: org.owner.token })).body).toMatchObject({ teams: 0, spaces: 0 });
  });

  it("leaves the member's teams in other organizations alone", async () => {
    const org = await seedOrg();
    const other = await seedOrg();
    const shared = await createUser();
    await addMember(org.id, shared.id, 'read');
    await addMember(other.id, shared.id, 'read');
    const otherTeam = await createTeam(other.id, other.owner.token, [shared.id]);
    expect((await remove(org.id, shared.id, org.owner.token)).status).toBe(204);
    const stillThere = expectStatus(await api('GET', `/v1/orgs/${other.id}/teams/${otherTeam}/members`, { token: other.owner.token }), 200);
    expect(stillThere.body.items.map((m: { organization: { id: string } }) => m.organization.id)).toEqual([shared.id]);
  });

  it('answers 204 when the user is not a member, changing nothing', async () => {
    const org = await seedOrg();
    expect((await remove(org.id, org.outsider.id, org.owner.token)).status).toBe(204);
    expect((await remove(org.id, 'noSuchUser0000000000', org.owner.token)).status).toBe(204);
    expect((await api('GET', '/v1/orgs', { token: org.outsider.token })).body.count).toBe(1);
    expect((await api('GET', membersPath(org.id), { token: org.owner.token })).body.count).toBe(ALL_ROLES.length);
  });

  it('lets any member leave by removing themselves, guests included', async () => {
    const org = await seedOrg();
    for (const role of ALL_ROLES.filter((r) => r !== 'admin')) {
      const member = org.members[role];
      expect((await remove(org.id, member.id, member.token)).status, role).toBe(204);
      expectError(await api('GET', `/v1/orgs/${org.id}`, { token: member.token }), 404);
    }
    const list = expectStatus(await api('GET', membersPath(org.id), { token: org.owner.token }), 200);
    expect(list.body.items.map((m: { id: string }) => m.id)).toEqual([org.owner.id]);
  });

  it('refuses to remove the last admin, even by themselves (400), but allows it once another admin exists', async () => {
    const org = await seedOrg();
    expectError(await remove(org.id, org.owner.id, org.owner.token), 400, 'last admin');
    expectStatus(await api('GET', memberPath(org.id, org.owner.id), { token: org.owner.token }), 200);

    expectStatus(await api('PATCH', memberPath(org.id, org.members.review.id), { token: org.owner.token, body: { role: 'admin' } }), 200);
    expect((await remove(org.id, org.owner.id, org.members.review.token)).status).toBe(204);
    expectError(await api('GET', `/v1/orgs/${org.id}`, { token: org.owner.token }), 404);
    expectError(await remove(org.id, org.members.review.id, org.members.review.token), 400, 'last admin');
  });

  it('does not count a disabled admin as another admin', async () => {
    const org = await seedOrg();
    await addMember(org.id, org.outsider.id, 'admin');
    await setMemberColumns(org.id, org.outsider.id, { disabled: true });
    expectError(await remove(org.id, org.owner.id, org.owner.token), 400, 'last admin');
  });

  it('keeps one admin when two admins leave at the same time', async () => {
    const org = await seedOrg();
    const second = org.members.create;
    expectStatus(await api('PATCH', memberPath(org.id, second.id), { token: org.owner.token, body: { role: 'admin' } }), 200);
    const results = await Promise.all([remove(org.id, org.owner.id, org.owner.token), remove(org.id, second.id, second.token)]);
    expect(results.map((r) => r.status).sort()).toEqual([204, 400]);
    const admins = expectStatus(await api('GET', `${membersPath(org.id)}?role=admin`, { token: org.members.read.token }), 200);
    expect(admins.body.count).toBe(1);
  });

  it('answers 403 to a member below admin removing someone else, and 404 to a non-member', async () => {
    const org = await seedOrg();
    for (const role of ALL_ROLES.filter((r) => r !== 'admin')) {
      expectError(await remove(org.id, org.members.read.id === org.members[role].id ? org.members.guest.id : org.members.read.id, org.members[role].token), 403);
    }
    expectError(await remove(org.id, org.members.read.id, org.outsider.token), 404);
    expectError(await remove(org.id, org.outsider.id, org.outsider.token), 404);
    expect((await api('GET', membersPath(org.id), { token: org.owner.token })).body.count).toBe(ALL_ROLES.length);
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    expectError(await api('DELETE', memberPath(org.id, org.members.read.id)), 401);
    expectError(await remove(org.id, org.members.read.id, ADMIN_TOKEN), 403);
    expectStatus(await api('GET', memberPath(org.id, org.members.read.id), { token: org.owner.token }), 200);
  });
});
