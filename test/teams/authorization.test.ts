import { describe, expect, it } from 'vitest';
import { ALL_ROLES, addMember, api, createUser, expectError, seedOrg, type RoleName, type TestOrg, type TestUser, CALLERS, callerUser, type Caller } from '../helpers/harness';
import { createTeam, memberPath, membersPath, teamPath, teamRoles, teamsPath } from './fixtures';

/**
 * Who may call what, written out. From the route code and DESIGN.md:
 * - list teams: organization role read or higher; a guest is a member who may see the
 *   organization but not its teams (403); a non-member gets 404.
 * - get a team, list its members: read or higher, or owning the team; a guest who does not own it
 *   cannot see it (404).
 * - create: organization admin (others 403).
 * - rename, delete, change membership: organization admin or team owner (others who can see the team 403,
 *   who cannot 404). Deleting a team the caller cannot see answers as for an absent team: 204, changing nothing.
 * None of the callers below is in the team.
 */
type Operation = 'list' | 'create' | 'get' | 'update' | 'listMembers' | 'updateMembers' | 'addMember' | 'removeMember' | 'delete';


const EXPECTED: Record<Operation, Record<Caller, number>> = {
  list: { admin: 200, create: 200, review: 200, edit: 200, comment: 200, read: 200, guest: 403, outsider: 404 },
  create: { admin: 201, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 403, outsider: 404 },
  get: { admin: 200, create: 200, review: 200, edit: 200, comment: 200, read: 200, guest: 404, outsider: 404 },
  update: { admin: 200, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 404, outsider: 404 },
  listMembers: { admin: 200, create: 200, review: 200, edit: 200, comment: 200, read: 200, guest: 404, outsider: 404 },
  updateMembers: { admin: 204, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 404, outsider: 404 },
  addMember: { admin: 204, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 404, outsider: 404 },
  removeMember: { admin: 204, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 404, outsider: 404 },
  delete: { admin: 204, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 204, outsider: 404 },
};

/** The same operations for a caller who owns the team (whatever their organization role). */
const EXPECTED_FOR_TEAM_OWNER: Record<Exclude<Operation, 'list' | 'create'>, number> = {
  get: 200,
  update: 200,
  listMembers: 200,
  updateMembers: 204,
  addMember: 204,
  removeMember: 204,
  delete: 204,
};

const OPERATIONS = Object.keys(EXPECTED) as Operation[];

interface Ctx {
  org: TestOrg;
  teamId: string;
  /** Org members the membership calls add and remove (never the caller). */
  addTarget: TestUser;
  removeTarget: TestUser;
}

async function call(op: Operation, caller: TestUser, { org, teamId, addTarget, removeTarget }: Ctx) {
  const token = caller.token;
  switch (op) {
    case 'list':
      return api('GET', teamsPath(org.id), { token });
    case 'create':
      return api('PUT', teamsPath(org.id), { token, body: { title: `Created by ${caller.id}` } });
    case 'get':
      return api('GET', teamPath(org.id, teamId), { token });
    case 'update':
      return api('PATCH', teamPath(org.id, teamId), { token, body: { title: `Renamed by ${caller.id}`.slice(0, 64) } });
    case 'listMembers':
      return api('GET', membersPath(org.id, teamId), { token });
    case 'updateMembers':
      return api('PUT', membersPath(org.id, teamId), { token, body: { add: [addTarget.id] } });
    case 'addMember':
      return api('PUT', memberPath(org.id, teamId, addTarget.id), { token, body: { role: 'owner' } });
    case 'removeMember':
      return api('DELETE', memberPath(org.id, teamId, removeTarget.id), { token });
    case 'delete':
      return api('DELETE', teamPath(org.id, teamId), { token });
  }
}

async function targets(org: TestOrg) {
  const addTarget = await createUser();
  const removeTarget = await createUser();
  await addMember(org.id, addTarget.id, 'read');
  await addMember(org.id, removeTarget.id, 'read');
  return { addTarget, removeTarget };
}

describe('teams authorization table', () => {
  it('answers each organization role and the outsider as written in the table, changing nothing when refused', async () => {
    const org = await seedOrg();
    const { addTarget, removeTarget } = await targets(org);
    const failures: string[] = [];
    for (const caller of CALLERS) {
      const user = callerUser(org, caller);
      // A fresh team per caller, so one caller's success does not change the next one's outcome.
      const team = await createTeam(org, `Team for ${caller}`, [removeTarget.id]);
      const ctx = { org, teamId: team.id, addTarget, removeTarget };
      for (const op of OPERATIONS) {
        const res = await call(op, user, ctx);
        const expected = EXPECTED[op][caller];
        if (res.status !== expected) failures.push(`${op} as ${caller}: expected ${expected}, got ${res.status} ${JSON.stringify(res.body)}`);
        else if (expected >= 400) expectError(res, expected);
      }
      // What the refused calls left: a refused caller changed neither title nor membership.
      const after = await api('GET', teamPath(org.id, team.id), { token: org.owner.token });
      if (EXPECTED.delete[caller] === 204 && caller !== 'guest') {
        expect(after.status, caller).toBe(404);
      } else {
        expect(after.status, caller).toBe(200);
        expect(after.body.title, caller).toBe(`Team for ${caller}`);
        expect(await teamRoles(org, team.id), caller).toEqual({ [removeTarget.id]: 'member' });
      }
    }
    expect(failures).toEqual([]);
    // Only the admin's create went through.
    const list = await api('GET', teamsPath(org.id), { token: org.owner.token });
    expect(list.body.items.filter((t: { title: string }) => t.title.startsWith('Created by')).map((t: { title: string }) => t.title)).toEqual([
      `Created by ${org.owner.id}`,
    ]);
  });

  it('gives a team owner of every organization role the management operations on that team only', async () => {
    const org = await seedOrg();
    const { addTarget, removeTarget } = await targets(org);
    const failures: string[] = [];
    for (const role of ALL_ROLES.filter((r) => r !== 'admin')) {
      const owner = org.members[role];
      const team = await createTeam(org, `Owned by ${role}`, [owner.id, removeTarget.id]);
      const other = await createTeam(org, `Not owned by ${role}`, [removeTarget.id]);
      const owned = await api('PUT', memberPath(org.id, team.id, owner.id), { token: org.owner.token, body: { role: 'owner' } });
      expect(owned.status).toBe(204);
      for (const op of Object.keys(EXPECTED_FOR_TEAM_OWNER) as (keyof typeof EXPECTED_FOR_TEAM_OWNER)[]) {
        const res = await call(op, owner, { org, teamId: team.id, addTarget, removeTarget });
        if (res.status !== EXPECTED_FOR_TEAM_OWNER[op]) failures.push(`${op} as ${role} owner: expected ${EXPECTED_FOR_TEAM_OWNER[op]}, got ${res.status}`);
      }
      expectError(await api('GET', teamPath(org.id, team.id), { token: org.owner.token }), 404); // the owner deleted it
      // Owning one team gives nothing on another: as in the table for their role.
      for (const op of ['get', 'update', 'updateMembers', 'removeMember'] as const) {
        const res = await call(op, owner, { org, teamId: other.id, addTarget, removeTarget });
        if (res.status !== EXPECTED[op][role]) failures.push(`${op} on another team as ${role} owner: expected ${EXPECTED[op][role]}, got ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers 401 to every operation without a token', async () => {
    const org = await seedOrg();
    const { addTarget, removeTarget } = await targets(org);
    const team = await createTeam(org, 'T', [removeTarget.id]);
    const nobody = { id: 'nobody', token: '', email: '', displayName: '' };
    for (const op of OPERATIONS) {
      const res = await call(op, nobody, { org, teamId: team.id, addTarget, removeTarget });
      expectError(res, 401);
    }
    expect((await api('GET', teamPath(org.id, team.id), { token: org.owner.token })).body.title).toBe('T');
  });
});
