import { describe, expect, it } from 'vitest';
import { TeamMemberSchema, TeamSchema } from '../../src/schemas/team';
import { api, createUser, expectError, seedOrg } from '../helpers/harness';
import {
  TeamMemberListSchema,
  bulkOrgMembers,
  createTeam,
  memberPath,
  membersPath,
  outsiderOrgId,
  setTeamRoles,
  storedMemberships,
  teamMembers,
  teamPath,
  teamRoles,
  type TeamMember,
} from './fixtures';

const StrictTeamMember = TeamMemberSchema.strict();

describe('listTeamMembersInOrganizationById (GET .../teams/{teamId}/members)', () => {
  it('lists the members with their organization member object, team role and view permission', async () => {
    const org = await seedOrg();
    const { read, edit } = org.members;
    const team = await createTeam(org, 'Listed', [read.id, edit.id]);
    await createTeam(org, 'Second', [read.id]); // read is in two teams
    await setTeamRoles(org, team.id, { [edit.id]: 'owner' });

    const res = await api('GET', membersPath(org.id, team.id), { token: org.members.comment.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = TeamMemberListSchema.parse(res.body);
    expect(body.count).toBe(2);
    expect(body.next).toBeUndefined();
    const byId = Object.fromEntries(body.items.map((m) => [m.organization.user.id, StrictTeamMember.parse(m)]));
    expect(Object.keys(byId).sort()).toEqual([read.id, edit.id].sort());
    expect(byId[read.id]).toEqual({
      organization: expect.objectContaining({
        object: 'member',
        id: read.id,
        role: 'read',
        disabled: false,
        sso: false,
        teams: 2,
        spaces: 0,
        user: expect.objectContaining({ id: read.id, displayName: read.displayName }),
      }),
      team: { role: 'member' },
      permissions: { view: true },
    });
    expect(byId[edit.id]).toMatchObject({ organization: { role: 'edit', teams: 1 }, team: { role: 'owner' }, permissions: { view: true } });
  });

  it('lists an empty team as an empty page', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Empty');
    const res = await api('GET', membersPath(org.id, team.id), { token: org.owner.token });
    expect(res.status).toBe(200);
    expect(TeamMemberListSchema.parse(res.body)).toEqual({ items: [], count: 0 });
  });

  it('pages with limit and next.page through members added at the same instant', async () => {
    const org = await seedOrg();
    const ids = await bulkOrgMembers(org.id, 5);
    const team = await createTeam(org, 'Paged', ids);
    const seen: TeamMember[] = [];
    const counts: number[] = [];
    let page: string | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await api('GET', `${membersPath(org.id, team.id)}?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`, {
        token: org.owner.token,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const body = TeamMemberListSchema.parse(res.body);
      seen.push(...body.items);
      counts.push(body.count);
      if (!body.next) break;
      page = body.next.page;
    }
    expect(counts).toEqual([5, 5, 5]);
    expect(seen.map((m) => m.organization.user.id).sort()).toEqual([...ids].sort());
  });

  it('rejects bad paging parameters with 400', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'T');
    const token = org.owner.token;
    expectError(await api('GET', `${membersPath(org.id, team.id)}?limit=0`, { token }), 400, 'limit');
    expectError(await api('GET', `${membersPath(org.id, team.id)}?limit=1001`, { token }), 400, 'limit');
    expectError(await api('GET', `${membersPath(org.id, team.id)}?page=bm90LWEtY3Vyc29y`, { token }), 400, 'page');
  });

  it('answers 401 without a token and 404 for an unknown team, the outsider and a guest non-owner', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'T', [org.members.guest.id]);
    expectError(await api('GET', membersPath(org.id, team.id)), 401);
    expectError(await api('GET', membersPath(org.id, 'noSuchTeam000000000'), { token: org.owner.token }), 404);
    expectError(await api('GET', membersPath(org.id, team.id), { token: org.outsider.token }), 404);
    expectError(await api('GET', membersPath(org.id, team.id), { token: org.members.guest.token }), 404);
  });

  it('drops a user removed from the organization from the team', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'T', [org.members.read.id, org.members.edit.id]);
    const removed = await api('DELETE', `/v1/orgs/${org.id}/members/${org.members.edit.id}`, { token: org.owner.token });
    expect(removed.status).toBe(204);
    expect((await teamMembers(org, team.id)).map((m) => m.organization.user.id)).toEqual([org.members.read.id]);
    const got = await api('GET', teamPath(org.id, team.id), { token: org.owner.token });
    expect(got.body.members).toBe(1);
  });
});

describe('updateMembersInOrganizationTeam (PUT .../teams/{teamId}/members)', () => {
  it('adds by id and by email (any case), removes, and sets roles in one call: 204', async () => {
    const org = await seedOrg();
    const { read, comment, edit, review } = org.members;
    const team = await createTeam(org, 'Bulk', [review.id]);
    const res = await api('PUT', membersPath(org.id, team.id), {
      token: org.owner.token,
      body: { add: [read.id, comment.email.toUpperCase()], memberships: { [edit.id]: { role: 'owner' } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.body).toBeNull();
    expect(await teamRoles(org, team.id)).toEqual({ [review.id]: 'member', [read.id]: 'member', [comment.id]: 'member', [edit.id]: 'owner' });

    const res2 = await api('PUT', membersPath(org.id, team.id), {
      token: org.owner.token,
      body: { remove: [review.id, read.email], memberships: { [comment.id]: { role: 'owner' }, [edit.id]: { role: 'member' } } },
    });
    expect(res2.status).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [comment.id]: 'owner', [edit.id]: 'member' });
    const got = await api('GET', teamPath(org.id, team.id), { token: org.owner.token });
    expect(TeamSchema.parse(got.body).members).toBe(2);
  });

  it('is idempotent: adding a member twice keeps one membership, removing an absent one is a no-op', async () => {
    const org = await seedOrg();
    const { read } = org.members;
    const team = await createTeam(org, 'Twice');
    for (let i = 0; i < 2; i++) {
      const res = await api('PUT', membersPath(org.id, team.id), { token: org.owner.token, body: { add: [read.id, read.email] } });
      expect(res.status).toBe(204);
    }
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'member' });
    expect(await storedMemberships(team.id)).toHaveLength(1);
    const noop = await api('PUT', membersPath(org.id, team.id), { token: org.owner.token, body: { remove: [org.members.edit.id] } });
    expect(noop.status).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'member' });
  });

  it('does not demote an owner who is added again', async () => {
    const org = await seedOrg();
    const { read } = org.members;
    const team = await createTeam(org, 'Owners');
    await setTeamRoles(org, team.id, { [read.id]: 'owner' });
    expect((await api('PUT', membersPath(org.id, team.id), { token: org.owner.token, body: { add: [read.id] } })).status).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'owner' });
  });

  it('removes a user given both in add and remove', async () => {
    const org = await seedOrg();
    const { read, edit } = org.members;
    const team = await createTeam(org, 'Both');
    const res = await api('PUT', membersPath(org.id, team.id), { token: org.owner.token, body: { add: [read.id, edit.id], remove: [read.email] } });
    expect(res.status).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [edit.id]: 'member' });
  });

  it('adds more users than one D1 statement has bound parameters', async () => {
    const org = await seedOrg();
    const ids = await bulkOrgMembers(org.id, 120);
    const team = await createTeam(org, 'Large');
    const res = await api('PUT', membersPath(org.id, team.id), {
      token: org.owner.token,
      body: { add: ids.slice(0, 60), memberships: Object.fromEntries(ids.slice(60).map((id) => [id, { role: 'member' }])) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect((await api('GET', teamPath(org.id, team.id), { token: org.owner.token })).body.members).toBe(120);
    const emails = ids.map((id) => `${id}@bulk.test`);
    const removed = await api('PUT', membersPath(org.id, team.id), { token: org.owner.token, body: { remove: emails } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(204);
    expect((await api('GET', teamPath(org.id, team.id), { token: org.owner.token })).body.members).toBe(0);
  });

  it('rejects refs that are not organization members with 400 naming the field, applying nothing', async () => {
    const org = await seedOrg();
    const { read, edit } = org.members;
    const team = await createTeam(org, 'Strict', [edit.id]);
    const token = org.owner.token;
    const path = membersPath(org.id, team.id);
    const stranger = await createUser();

    let message = expectError(await api('PUT', path, { token, body: { add: [read.id, org.outsider.id], remove: [edit.id] } }), 400, 'add');
    expect(message).toContain(org.outsider.id);
    message = expectError(await api('PUT', path, { token, body: { add: [stranger.email] } }), 400, 'add');
    expect(message).toContain(stranger.email);
    expectError(await api('PUT', path, { token, body: { add: [read.id], remove: ['nobody@nowhere.test'] } }), 400, 'remove');
    expectError(await api('PUT', path, { token, body: { memberships: { [org.outsider.id]: { role: 'owner' } } } }), 400, 'memberships');
    // nothing of the refused calls was applied
    expect(await teamRoles(org, team.id)).toEqual({ [edit.id]: 'member' });
  });

  it('rejects malformed bodies with 400 naming the field', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Bodies');
    const token = org.owner.token;
    const path = membersPath(org.id, team.id);
    expectError(await api('PUT', path, { token, body: {} }), 400, /add, remove or memberships/);
    expectError(await api('PUT', path, { token }), 400);
    expectError(await api('PUT', path, { token, rawBody: '{"add": [' }), 400, 'malformed json');
    expectError(await api('PUT', path, { token, body: { add: 'someone' } }), 400, 'add');
    expectError(await api('PUT', path, { token, body: { add: [''] } }), 400, 'add');
    expectError(await api('PUT', path, { token, body: { remove: [1] } }), 400, 'remove');
    expectError(await api('PUT', path, { token, body: { memberships: { [org.members.read.id]: { role: 'boss' } } } }), 400, 'memberships');
    expectError(await api('PUT', path, { token, body: { memberships: { [org.members.read.id]: {} } } }), 400, 'memberships');
    // at most 500 changes per list (refused before looking the users up)
    expectError(await api('PUT', path, { token, body: { add: Array.from({ length: 501 }, (_, i) => `u${i}`) } }), 400, /add: .*500/);
    const many = Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`u${i}`, { role: 'member' }]));
    expectError(await api('PUT', path, { token, body: { memberships: many } }), 400, /memberships: .*500/);
    expect(await teamRoles(org, team.id)).toEqual({});
  });

  it('lets a team owner manage membership; a plain member and a non-admin get 403', async () => {
    const org = await seedOrg();
    const { read, comment, edit, create } = org.members;
    const team = await createTeam(org, 'Owned', [read.id, comment.id]);
    await setTeamRoles(org, team.id, { [read.id]: 'owner' });
    const path = membersPath(org.id, team.id);

    expectError(await api('PUT', path, { token: comment.token, body: { add: [edit.id] } }), 403);
    // no self-promotion either
    expectError(await api('PUT', path, { token: comment.token, body: { memberships: { [comment.id]: { role: 'owner' } } } }), 403);
    expectError(await api('PUT', path, { token: create.token, body: { add: [create.id] } }), 403);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'owner', [comment.id]: 'member' });

    const res = await api('PUT', path, { token: read.token, body: { add: [edit.id], memberships: { [comment.id]: { role: 'owner' } } } });
    expect(res.status).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'owner', [comment.id]: 'owner', [edit.id]: 'member' });
  });

  it('takes the rights away from an owner who is demoted', async () => {
    const org = await seedOrg();
    const { read, edit } = org.members;
    const team = await createTeam(org, 'Demote', [read.id]);
    await setTeamRoles(org, team.id, { [read.id]: 'owner' });
    const demoted = await api('PUT', membersPath(org.id, team.id), { token: read.token, body: { memberships: { [read.id]: { role: 'member' } } } });
    expect(demoted.status).toBe(204);
    expectError(await api('PUT', membersPath(org.id, team.id), { token: read.token, body: { add: [edit.id] } }), 403);
    expectError(await api('PATCH', teamPath(org.id, team.id), { token: read.token, body: { title: 'No' } }), 403);
    const got = await api('GET', teamPath(org.id, team.id), { token: read.token });
    expect(TeamSchema.parse(got.body).permissions).toEqual({ admin: false, view: true });
  });

  it('answers 401 without a token, 404 for an unknown team and for the outsider (also through their own organization)', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'T');
    const body = { add: [org.members.read.id] };
    expectError(await api('PUT', membersPath(org.id, team.id), { body }), 401);
    expectError(await api('PUT', membersPath(org.id, 'noSuchTeam000000000'), { token: org.owner.token, body }), 404);
    expectError(await api('PUT', membersPath(org.id, team.id), { token: org.outsider.token, body }), 404);
    const otherOrg = await outsiderOrgId(org);
    expectError(await api('PUT', membersPath(otherOrg, team.id), { token: org.outsider.token, body: { add: [org.outsider.id] } }), 404);
    expect(await teamRoles(org, team.id)).toEqual({});
  });
});

describe('addMemberToOrganizationTeamById (PUT .../teams/{teamId}/members/{userId})', () => {
  it('adds a member (role member by default), idempotently: 204', async () => {
    const org = await seedOrg();
    const { read } = org.members;
    const team = await createTeam(org, 'One');
    const res = await api('PUT', memberPath(org.id, team.id, read.id), { token: org.owner.token });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.body).toBeNull();
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'member' });
    const again = await api('PUT', memberPath(org.id, team.id, read.id), { token: org.owner.token, body: {} });
    expect(again.status).toBe(204);
    expect(await storedMemberships(team.id)).toHaveLength(1);
    expect((await api('GET', teamPath(org.id, team.id), { token: org.owner.token })).body.members).toBe(1);
  });

  it('sets the team role: owner, then back to member', async () => {
    const org = await seedOrg();
    const { read, edit } = org.members;
    const team = await createTeam(org, 'Roles');
    expect((await api('PUT', memberPath(org.id, team.id, read.id), { token: org.owner.token, body: { role: 'owner' } })).status).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'owner' });
    // the new owner manages the team
    expect((await api('PUT', memberPath(org.id, team.id, edit.id), { token: read.token })).status).toBe(204);
    expect((await api('PATCH', teamPath(org.id, team.id), { token: read.token, body: { title: 'Mine now' } })).status).toBe(200);
    expect((await api('PUT', memberPath(org.id, team.id, read.id), { token: org.owner.token, body: { role: 'member' } })).status).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'member', [edit.id]: 'member' });
  });

  it('accepts the user by email in the path, storing their id', async () => {
    const org = await seedOrg();
    const { read } = org.members;
    const team = await createTeam(org, 'Email');
    const res = await api('PUT', memberPath(org.id, team.id, encodeURIComponent(read.email)), { token: org.owner.token, body: { role: 'owner' } });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'owner' });
  });

  it('rejects a user who is not an organization member, and a bad role, with 400 naming the field', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Strict');
    const token = org.owner.token;
    const message = expectError(await api('PUT', memberPath(org.id, team.id, org.outsider.id), { token }), 400, 'userId');
    expect(message).toContain(org.outsider.id);
    expectError(await api('PUT', memberPath(org.id, team.id, 'noSuchUser0000000000'), { token }), 400, 'userId');
    expectError(await api('PUT', memberPath(org.id, team.id, org.members.read.id), { token, body: { role: 'boss' } }), 400, 'role');
    expectError(await api('PUT', memberPath(org.id, team.id, org.members.read.id), { token, rawBody: '{"role":' }), 400, 'malformed json');
    expect(await teamRoles(org, team.id)).toEqual({});
  });

  it('lets a team owner add; a plain member cannot add anyone nor promote themselves (403)', async () => {
    const org = await seedOrg();
    const { read, comment, edit } = org.members;
    const team = await createTeam(org, 'Owned', [read.id, comment.id]);
    await setTeamRoles(org, team.id, { [read.id]: 'owner' });
    expectError(await api('PUT', memberPath(org.id, team.id, edit.id), { token: comment.token }), 403);
    expectError(await api('PUT', memberPath(org.id, team.id, comment.id), { token: comment.token, body: { role: 'owner' } }), 403);
    expectError(await api('PUT', memberPath(org.id, team.id, edit.id), { token: org.members.create.token }), 403);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'owner', [comment.id]: 'member' });
    expect((await api('PUT', memberPath(org.id, team.id, edit.id), { token: read.token, body: { role: 'owner' } })).status).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'owner', [comment.id]: 'member', [edit.id]: 'owner' });
  });

  it('answers 401 without a token, 404 for an unknown team and for the outsider', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'T');
    expectError(await api('PUT', memberPath(org.id, team.id, org.members.read.id)), 401);
    expectError(await api('PUT', memberPath(org.id, 'noSuchTeam000000000', org.members.read.id), { token: org.owner.token }), 404);
    expectError(await api('PUT', memberPath(org.id, team.id, org.outsider.id), { token: org.outsider.token }), 404);
    expect(await teamRoles(org, team.id)).toEqual({});
  });
});

describe('deleteMemberFromOrganizationTeamById (DELETE .../teams/{teamId}/members/{userId})', () => {
  it('removes a member for an org admin: 204, and 204 again when absent', async () => {
    const org = await seedOrg();
    const { read, edit } = org.members;
    const team = await createTeam(org, 'Shrink', [read.id, edit.id]);
    const res = await api('DELETE', memberPath(org.id, team.id, read.id), { token: org.owner.token });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await teamRoles(org, team.id)).toEqual({ [edit.id]: 'member' });
    expect((await api('DELETE', memberPath(org.id, team.id, read.id), { token: org.owner.token })).status).toBe(204);
    expect((await api('GET', teamPath(org.id, team.id), { token: org.owner.token })).body.members).toBe(1);
  });

  it('lets a member remove themselves, but not another member', async () => {
    const org = await seedOrg();
    const { read, comment } = org.members;
    const team = await createTeam(org, 'Leave', [read.id, comment.id]);
    expectError(await api('DELETE', memberPath(org.id, team.id, comment.id), { token: read.token }), 403);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'member', [comment.id]: 'member' });
    expect((await api('DELETE', memberPath(org.id, team.id, read.id), { token: read.token })).status).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [comment.id]: 'member' });
  });

  it('lets a guest who is a plain member of a team leave it', async () => {
    const org = await seedOrg();
    const { guest, read } = org.members;
    const team = await createTeam(org, 'Guests', [guest.id, read.id]);
    const res = await api('DELETE', memberPath(org.id, team.id, guest.id), { token: guest.token });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'member' });
    // but a guest still cannot act on a team they are not in
    expectError(await api('DELETE', memberPath(org.id, team.id, read.id), { token: guest.token }), 404);
  });

  it('lets a team owner remove others, including another owner', async () => {
    const org = await seedOrg();
    const { read, comment, edit } = org.members;
    const team = await createTeam(org, 'Owned', [read.id, comment.id, edit.id]);
    await setTeamRoles(org, team.id, { [read.id]: 'owner', [edit.id]: 'owner' });
    expect((await api('DELETE', memberPath(org.id, team.id, comment.id), { token: read.token })).status).toBe(204);
    expect((await api('DELETE', memberPath(org.id, team.id, edit.id), { token: read.token })).status).toBe(204);
    expect(await teamRoles(org, team.id)).toEqual({ [read.id]: 'owner' });
  });

  it('answers 401 without a token, 404 for an unknown team and for the outsider (even for themselves)', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'T', [org.members.read.id]);
    expectError(await api('DELETE', memberPath(org.id, team.id, org.members.read.id)), 401);
    expectError(await api('DELETE', memberPath(org.id, 'noSuchTeam000000000', org.members.read.id), { token: org.owner.token }), 404);
    expectError(await api('DELETE', memberPath(org.id, 'noSuchTeam000000000', org.members.read.id), { token: org.members.read.token }), 404);
    expectError(await api('DELETE', memberPath(org.id, team.id, org.members.read.id), { token: org.outsider.token }), 404);
    expectError(await api('DELETE', memberPath(org.id, team.id, org.outsider.id), { token: org.outsider.token }), 404);
    expect(await teamRoles(org, team.id)).toEqual({ [org.members.read.id]: 'member' });
  });
});
