import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MemberSchema } from '../../src/schemas/member';
import { addMember, api, createUser, expectError, seedOrg, type TestOrg } from '../helpers/harness';
import {
  AggregateListSchema,
  PERMISSIONS_BY_ROLE,
  TeamPermissionListSchema,
  UNKNOWN_ID,
  UserPermissionListSchema,
  aggregatePath,
  collectPages,
  countRows,
  createCollection,
  createSpace,
  createTeam,
  expectSchema,
  expectStatus,
  getSpace,
  grant,
  orgSpacesPath,
  permissionsPath,
  spacePath,
  teamPermissionPath,
  teamPermissionsPath,
  userPermissionPath,
  userPermissionsPath,
} from '../spaces/support';

const MALFORMED = '{"role": "edit",';

/** user id -> permission, from a list of permission items. */
const byUser = (items: any[]) => Object.fromEntries(items.map((i) => [i.user.id, i.permission]));

async function userGrants(org: TestOrg, spaceId: string) {
  const res = await api('GET', `${userPermissionsPath(spaceId)}?limit=1000`, { token: org.owner.token });
  expectStatus(res, 200);
  return byUser(expectSchema(UserPermissionListSchema, res.body).items);
}

async function teamGrants(org: TestOrg, spaceId: string) {
  const res = await api('GET', `${teamPermissionsPath(spaceId)}?limit=1000`, { token: org.owner.token });
  expectStatus(res, 200);
  return Object.fromEntries(expectSchema(TeamPermissionListSchema, res.body).items.map((i) => [i.team.id, i.permission]));
}

async function aggregate(org: TestOrg, spaceId: string, query = '') {
  const res = await api('GET', `${aggregatePath(spaceId)}?limit=1000${query}`, { token: org.owner.token });
  expectStatus(res, 200);
  const page = expectSchema(AggregateListSchema, res.body);
  expect(page.count).toBe(page.items.length);
  return byUser(page.items);
}

describe('inviteToSpace', () => {
  it('grants members a role on the space, and a new invite replaces it', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const res = await api('POST', permissionsPath(space.id), { token: org.owner.token, body: { role: 'edit', users: [org.members.read.id, org.members.comment.id] } });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await userGrants(org, space.id)).toEqual({ [org.members.read.id]: 'edit', [org.members.comment.id]: 'edit' });
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.edit);
    // Invited again with another role: one grant, the new role (also lower than before).
    await grant(org, space.id, { role: 'review', users: [org.members.read.id, org.members.read.id] });
    await grant(org, space.id, { role: 'read', users: [org.members.comment.id] });
    expect(await userGrants(org, space.id)).toEqual({ [org.members.read.id]: 'review', [org.members.comment.id]: 'read' });
    // A grant lower than the organization role does not lower the effective role.
    expect((await getSpace(space.id, org.members.comment.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.comment);
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.review);
  });

  it('makes a user from outside the organization a guest member with access to that space only', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const other = await createSpace(org);
    const newcomer = await createUser();
    await grant(org, space.id, { role: 'comment', users: [newcomer.id, org.outsider.id] });
    for (const user of [newcomer, org.outsider]) {
      const member = await api('GET', `/v1/orgs/${org.id}/members/${user.id}`, { token: org.owner.token });
      expectStatus(member, 200);
      expect(expectSchema(MemberSchema, member.body).role).toBeNull();
      expect((await getSpace(space.id, user.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.comment);
      expectError(await api('GET', spacePath(other.id), { token: user.token }), 404);
      const list = await api('GET', orgSpacesPath(org.id), { token: user.token });
      expectStatus(list, 200);
      expect(list.body.items.map((s: any) => s.id)).toEqual([space.id]);
      expect(list.body.count).toBe(1);
      // Not enough to create anything.
      expectError(await api('POST', orgSpacesPath(org.id), { token: user.token, body: {} }), 403);
    }
    // An existing member keeps their organization role.
    await grant(org, space.id, { role: 'admin', users: [org.members.edit.id] });
    const edit = await api('GET', `/v1/orgs/${org.id}/members/${org.members.edit.id}`, { token: org.owner.token });
    expect(edit.body.role).toBe('edit');
    expect((await getSpace(other.id, org.members.edit.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.edit);
  });

  it('grants teams a role: their members get it', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const team = await createTeam(org, [org.members.read.id, org.members.guest.id]);
    await grant(org, space.id, { role: 'edit', teams: [team.id] });
    expect(await teamGrants(org, space.id)).toEqual({ [team.id]: 'edit' });
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.edit);
    expect((await getSpace(space.id, org.members.guest.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.edit);
    // Users and teams in one call.
    const team2 = await createTeam(org, [org.members.comment.id]);
    await grant(org, space.id, { role: 'review', users: [org.members.edit.id], teams: [team2.id, team.id] });
    expect(await teamGrants(org, space.id)).toEqual({ [team.id]: 'review', [team2.id]: 'review' });
    expect(await userGrants(org, space.id)).toEqual({ [org.members.edit.id]: 'review' });
  });

  it('with role null removes the grants of the listed users and teams', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const team = await createTeam(org, [org.members.read.id]);
    const newcomer = await createUser();
    await grant(org, space.id, { role: 'edit', users: [org.members.comment.id, newcomer.id, org.members.edit.id], teams: [team.id] });
    await grant(org, space.id, { role: null, users: [org.members.comment.id, newcomer.id, org.members.review.id], teams: [team.id] });
    expect(await userGrants(org, space.id)).toEqual({ [org.members.edit.id]: 'edit' });
    expect(await teamGrants(org, space.id)).toEqual({});
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.read);
    expect((await getSpace(space.id, org.members.comment.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.comment);
    expectError(await api('GET', spacePath(space.id), { token: newcomer.token }), 404);
  });

  it('rejects unknown users, other organizations\' teams and bad bodies with 400 naming the field', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const post = (body: unknown) => api('POST', permissionsPath(space.id), { token: org.owner.token, body });
    expectError(await post({ role: 'edit', users: [org.members.read.id, UNKNOWN_ID] }), 400, 'users');
    const other = await seedOrg();
    const foreignTeam = await createTeam(other, []);
    expectError(await post({ role: 'edit', teams: [foreignTeam.id] }), 400, 'teams');
    expectError(await post({ role: 'edit', teams: [UNKNOWN_ID] }), 400, 'teams');
    expectError(await post({ role: 'edit' }), 400, 'users');
    expectError(await post({ role: 'edit', users: [] }), 400, 'users');
    expectError(await post({ role: 'edit', teams: [] }), 400, 'teams');
    expectError(await post({ role: 'edit', users: [''] }), 400, 'users');
    expectError(await post({ role: 'edit', users: Array.from({ length: 101 }, (_, i) => `u${i}`) }), 400, 'users');
    expectError(await post({ users: [org.members.read.id] }), 400, 'role');
    expectError(await post({ role: 'owner', users: [org.members.read.id] }), 400, 'role');
    expectError(await post({ role: 'guest', users: [org.members.read.id] }), 400, 'role');
    expectError(await post({ role: 'edit', users: org.members.read.id }), 400, 'users');
    expectError(await api('POST', permissionsPath(space.id), { token: org.owner.token, rawBody: MALFORMED }), 400);
    // Nothing was granted, and nobody joined the organization.
    expect(await countRows('space_user_grants', 'space_id', space.id)).toBe(0);
    expect(await countRows('space_team_grants', 'space_id', space.id)).toBe(0);
  });

  it('needs admin on the space; 404 for those who cannot see it; 400 on a deleted space; 401', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const body = { role: 'admin', users: [org.members.read.id] };
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('POST', permissionsPath(space.id), { token: org.members[role].token, body }), 403);
    }
    expectError(await api('POST', permissionsPath(space.id), { token: org.members.guest.token, body }), 404);
    expectError(await api('POST', permissionsPath(space.id), { token: org.outsider.token, body }), 404);
    expectError(await api('POST', permissionsPath(UNKNOWN_ID), { token: org.owner.token, body }), 404);
    expectError(await api('POST', permissionsPath(space.id), { body }), 401);
    expect(await countRows('space_user_grants', 'space_id', space.id)).toBe(0);
    // A space admin by grant may invite.
    await grant(org, space.id, { role: 'admin', users: [org.members.edit.id] });
    expectStatus(await api('POST', permissionsPath(space.id), { token: org.members.edit.token, body: { role: 'comment', users: [org.members.read.id] } }), 204);
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
    expectError(await api('POST', permissionsPath(space.id), { token: org.owner.token, body }), 400, 'deleted');
  });
});

describe('listUserPermissionsInSpace', () => {
  it('lists the users added to the space, paged, for anyone who can read it', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const order = [org.members.read.id, org.members.comment.id, org.members.edit.id, org.members.guest.id, org.outsider.id];
    for (const [i, id] of order.entries()) await grant(org, space.id, { role: i % 2 ? 'read' : 'review', users: [id] });
    const first = await api('GET', `${userPermissionsPath(space.id)}?limit=2`, { token: org.members.read.token });
    expectStatus(first, 200);
    const page = expectSchema(UserPermissionListSchema, first.body);
    expect(page.count).toBe(5);
    expect(page.items).toHaveLength(2);
    expect(page.next?.page).toEqual(expect.any(String));
    expect(page.items[0]).toMatchObject({ permission: 'review', user: { object: 'user', id: org.members.read.id, email: org.members.read.email } });
    const all = await collectPages(userPermissionsPath(space.id), org.members.read.token, 2);
    expect(all.map((i) => i.user.id)).toEqual(order);
    expect(all.map((i) => i.permission)).toEqual(['review', 'read', 'review', 'read', 'review']);
    // A guest with a grant can list too.
    expectStatus(await api('GET', userPermissionsPath(space.id), { token: org.members.guest.token }), 200);
    // Bad paging.
    expectError(await api('GET', `${userPermissionsPath(space.id)}?limit=0`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${userPermissionsPath(space.id)}?limit=1001`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${userPermissionsPath(space.id)}?page=%%%`, { token: org.owner.token }), 400);
    expectError(await api('GET', `${userPermissionsPath(space.id)}?page=bm9wZQ`, { token: org.owner.token }), 400, 'page');
  });

  it('an empty list, and 401 / 404', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const res = await api('GET', userPermissionsPath(space.id), { token: org.members.read.token });
    expect(expectSchema(UserPermissionListSchema, res.body)).toEqual({ items: [], count: 0 });
    expectError(await api('GET', userPermissionsPath(space.id)), 401);
    expectError(await api('GET', userPermissionsPath(space.id), { token: org.members.guest.token }), 404);
    expectError(await api('GET', userPermissionsPath(space.id), { token: org.outsider.token }), 404);
    expectError(await api('GET', userPermissionsPath(UNKNOWN_ID), { token: org.owner.token }), 404);
  });
});

describe('updateUserPermissionInSpace', () => {
  it('changes the role of a user added to the space; null removes them', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    await grant(org, space.id, { role: 'comment', users: [org.members.read.id, org.members.edit.id] });
    const res = await api('PATCH', userPermissionPath(space.id, org.members.read.id), { token: org.owner.token, body: { role: 'create' } });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await userGrants(org, space.id)).toEqual({ [org.members.read.id]: 'create', [org.members.edit.id]: 'comment' });
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.create);
    expectStatus(await api('PATCH', userPermissionPath(space.id, org.members.read.id), { token: org.owner.token, body: { role: null } }), 204);
    expect(await userGrants(org, space.id)).toEqual({ [org.members.edit.id]: 'comment' });
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.read);
    // Removed: no longer there to update.
    expectError(await api('PATCH', userPermissionPath(space.id, org.members.read.id), { token: org.owner.token, body: { role: 'edit' } }), 404);
  });

  it('answers 404 for a user who was not added, and 400 for bad bodies', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    await grant(org, space.id, { role: 'comment', users: [org.members.read.id] });
    const path = userPermissionPath(space.id, org.members.read.id);
    expectError(await api('PATCH', userPermissionPath(space.id, org.members.edit.id), { token: org.owner.token, body: { role: 'edit' } }), 404);
    expectError(await api('PATCH', userPermissionPath(space.id, UNKNOWN_ID), { token: org.owner.token, body: { role: 'edit' } }), 404);
    expectError(await api('PATCH', path, { token: org.owner.token, body: { role: 'owner' } }), 400, 'role');
    expectError(await api('PATCH', path, { token: org.owner.token, body: {} }), 400, 'role');
    expectError(await api('PATCH', path, { token: org.owner.token, body: { role: 3 } }), 400, 'role');
    expectError(await api('PATCH', path, { token: org.owner.token, rawBody: MALFORMED }), 400);
    expect(await userGrants(org, space.id)).toEqual({ [org.members.read.id]: 'comment' });
    expect(await countRows('space_user_grants', 'user_id', org.members.edit.id)).toBe(0);
  });

  it('needs admin on the space; 404 for those who cannot see it; 401', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    await grant(org, space.id, { role: 'comment', users: [org.members.read.id] });
    const path = userPermissionPath(space.id, org.members.read.id);
    const body = { role: 'admin' };
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('PATCH', path, { token: org.members[role].token, body }), 403);
    }
    expectError(await api('PATCH', path, { token: org.members.guest.token, body }), 404);
    expectError(await api('PATCH', path, { token: org.outsider.token, body }), 404);
    expectError(await api('PATCH', userPermissionPath(UNKNOWN_ID, org.members.read.id), { token: org.owner.token, body }), 404);
    expectError(await api('PATCH', path, { body }), 401);
    expect(await userGrants(org, space.id)).toEqual({ [org.members.read.id]: 'comment' });
  });
});

describe('removeUserFromSpace', () => {
  it('removes a user from the space, and answers 204 when they were not in it', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    await grant(org, space.id, { role: 'admin', users: [org.members.read.id, org.members.edit.id] });
    const res = await api('DELETE', userPermissionPath(space.id, org.members.read.id), { token: org.owner.token });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await userGrants(org, space.id)).toEqual({ [org.members.edit.id]: 'admin' });
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.read);
    expectStatus(await api('DELETE', userPermissionPath(space.id, org.members.read.id), { token: org.owner.token }), 204);
    expectStatus(await api('DELETE', userPermissionPath(space.id, UNKNOWN_ID), { token: org.owner.token }), 204);
    expectStatus(await api('DELETE', userPermissionPath(space.id, org.outsider.id), { token: org.owner.token }), 204);
    expect(await userGrants(org, space.id)).toEqual({ [org.members.edit.id]: 'admin' });
    // An invited guest who is removed loses access to the space.
    const newcomer = await createUser();
    await grant(org, space.id, { role: 'read', users: [newcomer.id] });
    expectStatus(await api('GET', spacePath(space.id), { token: newcomer.token }), 200);
    expectStatus(await api('DELETE', userPermissionPath(space.id, newcomer.id), { token: org.owner.token }), 204);
    expectError(await api('GET', spacePath(space.id), { token: newcomer.token }), 404);
  });

  it('needs admin on the space; 404 for those who cannot see it; 401', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    await grant(org, space.id, { role: 'comment', users: [org.members.read.id] });
    const path = userPermissionPath(space.id, org.members.read.id);
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('DELETE', path, { token: org.members[role].token }), 403);
    }
    expectError(await api('DELETE', path, { token: org.members.guest.token }), 404);
    expectError(await api('DELETE', path, { token: org.outsider.token }), 404);
    expectError(await api('DELETE', userPermissionPath(UNKNOWN_ID, org.members.read.id), { token: org.owner.token }), 404);
    expectError(await api('DELETE', path), 401);
    expect(await userGrants(org, space.id)).toEqual({ [org.members.read.id]: 'comment' });
  });
});

describe('team permissions', () => {
  it('lists the teams added to the space with their role, paged', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const other = await createSpace(org);
    const teams = [];
    for (let i = 0; i < 3; i++) teams.push(await createTeam(org, i === 0 ? [org.members.read.id, org.members.edit.id] : []));
    for (const [i, team] of teams.entries()) await grant(org, space.id, { role: (['read', 'edit', 'admin'] as const)[i], teams: [team.id] });
    await grant(org, other.id, { role: 'read', teams: [teams[0].id] });
    const first = await api('GET', `${teamPermissionsPath(space.id)}?limit=2`, { token: org.members.read.token });
    expectStatus(first, 200);
    const page = expectSchema(TeamPermissionListSchema, first.body);
    expect(page.count).toBe(3);
    expect(page.items.map((i) => [i.team.id, i.permission])).toEqual([
      [teams[0].id, 'read'],
      [teams[1].id, 'edit'],
    ]);
    expect(page.items[0].team).toMatchObject({ object: 'team', title: teams[0].title, members: 2, spaces: 2 });
    const all = await collectPages(teamPermissionsPath(space.id), org.members.read.token, 2);
    expect(all.map((i) => i.team.id)).toEqual(teams.map((t) => t.id));
    expectError(await api('GET', `${teamPermissionsPath(space.id)}?limit=1001`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${teamPermissionsPath(space.id)}?page=nope`, { token: org.owner.token }), 400, 'page');
    expectError(await api('GET', teamPermissionsPath(space.id)), 401);
    expectError(await api('GET', teamPermissionsPath(space.id), { token: org.members.guest.token }), 404);
    expectError(await api('GET', teamPermissionsPath(space.id), { token: org.outsider.token }), 404);
    expectError(await api('GET', teamPermissionsPath(UNKNOWN_ID), { token: org.owner.token }), 404);
  });

  it('updates a team\'s role; null removes it; 404 when the team was not added', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const team = await createTeam(org, [org.members.read.id]);
    const notAdded = await createTeam(org, []);
    await grant(org, space.id, { role: 'comment', teams: [team.id] });
    const res = await api('PATCH', teamPermissionPath(space.id, team.id), { token: org.owner.token, body: { role: 'review' } });
    expect(res.status).toBe(204);
    expect(await teamGrants(org, space.id)).toEqual({ [team.id]: 'review' });
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.review);
    expectError(await api('PATCH', teamPermissionPath(space.id, notAdded.id), { token: org.owner.token, body: { role: 'edit' } }), 404);
    expectError(await api('PATCH', teamPermissionPath(space.id, UNKNOWN_ID), { token: org.owner.token, body: { role: 'edit' } }), 404);
    expectError(await api('PATCH', teamPermissionPath(space.id, team.id), { token: org.owner.token, body: { role: 'boss' } }), 400, 'role');
    expectError(await api('PATCH', teamPermissionPath(space.id, team.id), { token: org.owner.token, body: {} }), 400, 'role');
    expectError(await api('PATCH', teamPermissionPath(space.id, team.id), { token: org.owner.token, rawBody: MALFORMED }), 400);
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('PATCH', teamPermissionPath(space.id, team.id), { token: org.members[role].token, body: { role: 'admin' } }), 403);
    }
    expectError(await api('PATCH', teamPermissionPath(space.id, team.id), { token: org.members.guest.token, body: { role: 'admin' } }), 404);
    expectError(await api('PATCH', teamPermissionPath(space.id, team.id), { token: org.outsider.token, body: { role: 'admin' } }), 404);
    expectError(await api('PATCH', teamPermissionPath(space.id, team.id), { body: { role: 'admin' } }), 401);
    expect(await teamGrants(org, space.id)).toEqual({ [team.id]: 'review' });
    expectStatus(await api('PATCH', teamPermissionPath(space.id, team.id), { token: org.owner.token, body: { role: null } }), 204);
    expect(await teamGrants(org, space.id)).toEqual({});
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.read);
  });

  it('removes a team from the space, 204 also when it was not there', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const team = await createTeam(org, [org.members.read.id]);
    await grant(org, space.id, { role: 'edit', teams: [team.id] });
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('DELETE', teamPermissionPath(space.id, team.id), { token: org.members[role].token }), 403);
    }
    expectError(await api('DELETE', teamPermissionPath(space.id, team.id), { token: org.members.guest.token }), 404);
    expectError(await api('DELETE', teamPermissionPath(space.id, team.id), { token: org.outsider.token }), 404);
    expectError(await api('DELETE', teamPermissionPath(UNKNOWN_ID, team.id), { token: org.owner.token }), 404);
    expectError(await api('DELETE', teamPermissionPath(space.id, team.id)), 401);
    expect(await teamGrants(org, space.id)).toEqual({ [team.id]: 'edit' });
    const res = await api('DELETE', teamPermissionPath(space.id, team.id), { token: org.owner.token });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await teamGrants(org, space.id)).toEqual({});
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.read);
    expectStatus(await api('DELETE', teamPermissionPath(space.id, team.id), { token: org.owner.token }), 204);
    expectStatus(await api('DELETE', teamPermissionPath(space.id, UNKNOWN_ID), { token: org.owner.token }), 204);
  });

  it('a team deleted from the organization no longer grants anything', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const team = await createTeam(org, [org.members.read.id]);
    await grant(org, space.id, { role: 'admin', teams: [team.id] });
    expectStatus(await api('DELETE', `/v1/orgs/${org.id}/teams/${team.id}`, { token: org.owner.token }), 204);
    expect(await teamGrants(org, space.id)).toEqual({});
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.read);
  });
});

describe('listPermissionsAggregateInSpace', () => {
  it('lists everyone with access and their effective role', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    // Root space, inherit: every member but the guest, at their organization role.
    expect(await aggregate(org, space.id)).toEqual({
      [org.owner.id]: 'admin',
      [org.members.create.id]: 'create',
      [org.members.review.id]: 'review',
      [org.members.edit.id]: 'edit',
      [org.members.comment.id]: 'comment',
      [org.members.read.id]: 'read',
    });
    // A team grant raises read to edit; a user grant lets the guest in; an invited outsider joins.
    const team = await createTeam(org, [org.members.read.id]);
    await grant(org, space.id, { role: 'edit', teams: [team.id] });
    await grant(org, space.id, { role: 'comment', users: [org.members.guest.id, org.outsider.id] });
    const everyone = await aggregate(org, space.id);
    expect(everyone[org.members.read.id]).toBe('edit');
    expect(everyone[org.members.guest.id]).toBe('comment');
    expect(everyone[org.outsider.id]).toBe('comment');
    expect(Object.keys(everyone)).toHaveLength(8);
  });

  it('filters on the exact effective role', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const team = await createTeam(org, [org.members.read.id]);
    await grant(org, space.id, { role: 'edit', teams: [team.id] });
    expect(await aggregate(org, space.id, '&role=edit')).toEqual({ [org.members.edit.id]: 'edit', [org.members.read.id]: 'edit' });
    expect(await aggregate(org, space.id, '&role=read')).toEqual({});
    expect(await aggregate(org, space.id, '&role=admin')).toEqual({ [org.owner.id]: 'admin' });
    const filtered = await api('GET', `${aggregatePath(space.id)}?role=edit&limit=1`, { token: org.owner.token });
    expect(filtered.body.count).toBe(2);
    expect(filtered.body.items).toHaveLength(1);
    expect(filtered.body.next?.page).toEqual(expect.any(String));
    expectError(await api('GET', `${aggregatePath(space.id)}?role=guest`, { token: org.owner.token }), 400, 'role');
    expectError(await api('GET', `${aggregatePath(space.id)}?role=owner`, { token: org.owner.token }), 400, 'role');
  });

  it('follows the space\'s level: a closed collection leaves only admins and grantees', async () => {
    const org = await seedOrg();
    const closed = await createCollection(org, { defaultLevel: null });
    const space = await createSpace(org, { parent: closed.id });
    expect(await aggregate(org, space.id)).toEqual({ [org.owner.id]: 'admin' });
    await grant(org, space.id, { role: 'read', users: [org.members.create.id] });
    expect(await aggregate(org, space.id)).toEqual({ [org.owner.id]: 'admin', [org.members.create.id]: 'read' });
    // A space level of comment opens it to members, capped at comment.
    expectStatus(await api('PATCH', spacePath(space.id), { token: org.owner.token, body: { defaultLevel: 'comment' } }), 200);
    expect(await aggregate(org, space.id)).toEqual({
      [org.owner.id]: 'admin',
      [org.members.create.id]: 'comment',
      [org.members.review.id]: 'comment',
      [org.members.edit.id]: 'comment',
      [org.members.comment.id]: 'comment',
      [org.members.read.id]: 'read',
    });
  });

  it('pages through everyone, and checks access', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    for (let i = 0; i < 4; i++) {
      const user = await createUser();
      await addMember(org.id, user.id, 'read');
    }
    const all = await collectPages(aggregatePath(space.id), org.members.read.token, 3);
    expect(all).toHaveLength(10);
    for (const item of all) expectSchema(AggregateListSchema.shape.items.element, item);
    expect(new Set(all.map((i) => i.user.id)).size).toBe(10);
    expectError(await api('GET', `${aggregatePath(space.id)}?limit=0`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${aggregatePath(space.id)}?page=xyz`, { token: org.owner.token }), 400, 'page');
    expectError(await api('GET', aggregatePath(space.id)), 401);
    expectError(await api('GET', aggregatePath(space.id), { token: org.members.guest.token }), 404);
    expectError(await api('GET', aggregatePath(space.id), { token: org.outsider.token }), 404);
    expectError(await api('GET', aggregatePath(UNKNOWN_ID), { token: org.owner.token }), 404);
  });

  it('members of another organization never appear', async () => {
    const org = await seedOrg();
    const other = await seedOrg();
    const space = await createSpace(org);
    const ids = Object.keys(await aggregate(org, space.id));
    for (const user of [...Object.values(other.members), other.outsider]) expect(ids).not.toContain(user.id);
    expect(ids).not.toContain(org.outsider.id);
  });
});

describe('disabled members', () => {
  it('a disabled member has no access, neither through the organization, a user grant nor a team grant', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const team = await createTeam(org, [org.members.read.id]);
    await grant(org, space.id, { role: 'edit', teams: [team.id] });
    await grant(org, space.id, { role: 'review', users: [org.members.comment.id] });
    await env.DB.prepare('update org_members set disabled = 1 where org_id = ? and user_id in (?, ?)')
      .bind(org.id, org.members.read.id, org.members.comment.id)
      .run();
    expectError(await api('GET', spacePath(space.id), { token: org.members.comment.token }), 404);
    expectError(await api('GET', spacePath(space.id), { token: org.members.read.token }), 404);
    const everyone = await aggregate(org, space.id);
    expect(everyone[org.members.comment.id]).toBeUndefined();
    expect(everyone[org.members.read.id]).toBeUndefined();
  });
});
