/**
 * One table: every organization role, and an outsider (admin of another organization), against every
 * Spaces and Space users operation on a root space whose defaultLevel is 'inherit' (so each member's
 * effective role is their organization role; guests and outsiders cannot see it).
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { byCaller, ALL_ROLES, addMember, api, expectError, seedOrg, type ApiResponse, type RoleName, type TestOrg, CALLERS, callerUser, type Caller } from '../helpers/harness';
import {
  aggregatePath,
  createSpace,
  createTeam,
  getSpace,
  grant,
  orgSpacesPath,
  permissionsPath,
  spacePath,
  spaceRow,
  teamPermissionPath,
  teamPermissionsPath,
  uniq,
  userPermissionPath,
  userPermissionsPath,
} from './support';


interface Fixture {
  org: TestOrg;
  /** A second organization where every caller (outsider included) has the create role. */
  targetOrgId: string;
  /** A team of the organization. */
  teamId: string;
}

interface Case {
  /** The space each call acts on, made fresh for each caller (by the owner). */
  space: string;
  fixture: Fixture;
  token: string;
}

interface Operation {
  name: string;
  /** Expected status per caller, written out. */
  expected: Record<Caller, number>;
  /** Prepares the fresh space (as the owner) before the call. */
  setup?: (c: Case) => Promise<void>;
  call: (c: Case) => Promise<ApiResponse>;
  /** Checks the effect: `succeeded` is whether the call had its effect. */
  verify?: (c: Case, succeeded: boolean) => Promise<void>;
  /** Whether the call has its effect for this caller (default: when the expected status is a 2xx). */
  effective?: (caller: Caller) => boolean;
}

const S = byCaller;

const OPERATIONS: Operation[] = [
  {
    name: 'createSpace',
    expected: S(201, 201, 403, 403, 403, 403, 403, 404),
    call: ({ fixture, token }) => api('POST', orgSpacesPath(fixture.org.id), { token, body: { title: 'New' } }),
  },
  {
    name: 'listSpacesInOrganizationById',
    expected: S(200, 200, 200, 200, 200, 200, 200, 404),
    call: ({ fixture, token }) => api('GET', orgSpacesPath(fixture.org.id), { token }),
  },
  {
    name: 'getSpaceById',
    expected: S(200, 200, 200, 200, 200, 200, 404, 404),
    call: ({ space, token }) => api('GET', spacePath(space), { token }),
  },
  {
    name: 'updateSpaceById (title)',
    expected: S(200, 200, 200, 200, 403, 403, 404, 404),
    call: ({ space, token }) => api('PATCH', spacePath(space), { token, body: { title: 'Renamed' } }),
    verify: async ({ space, fixture }, ok) => expect((await getSpace(space, fixture.org.owner.token)).title === 'Renamed').toBe(ok),
  },
  {
    name: 'updateSpaceById (editMode)',
    expected: S(200, 403, 403, 403, 403, 403, 404, 404),
    call: ({ space, token }) => api('PATCH', spacePath(space), { token, body: { editMode: 'locked' } }),
    verify: async ({ space, fixture }, ok) => expect((await getSpace(space, fixture.org.owner.token)).editMode).toBe(ok ? 'locked' : 'live'),
  },
  {
    name: 'deleteSpaceById',
    // Those who cannot see the space get the "absent" answer, and nothing happens.
    expected: S(204, 403, 403, 403, 403, 403, 204, 204),
    call: ({ space, token }) => api('DELETE', spacePath(space), { token }),
    verify: async ({ space }, ok) => expect((await spaceRow(space))!.deleted_at !== null).toBe(ok),
    /** Only the admin's 204 deletes. */
    effective: (caller) => caller === 'admin',
  },
  {
    name: 'duplicateSpace',
    expected: S(201, 201, 403, 403, 403, 403, 404, 404),
    call: ({ space, token }) => api('POST', `${spacePath(space)}/duplicate`, { token }),
  },
  {
    name: 'restoreSpace',
    expected: S(200, 403, 403, 403, 403, 403, 404, 404),
    setup: async ({ space, fixture }) => {
      expect((await api('DELETE', spacePath(space), { token: fixture.org.owner.token })).status).toBe(204);
    },
    call: ({ space, token }) => api('POST', `${spacePath(space)}/restore`, { token }),
    verify: async ({ space, fixture }, ok) => expect((await getSpace(space, fixture.org.owner.token)).deletedAt === undefined).toBe(ok),
  },
  {
    name: 'moveSpace',
    expected: S(200, 403, 403, 403, 403, 403, 404, 404),
    call: ({ space, token }) => api('POST', `${spacePath(space)}/move`, { token, body: { parent: null } }),
  },
  {
    name: 'transferSpace',
    expected: S(200, 403, 403, 403, 403, 403, 404, 404),
    call: ({ space, fixture, token }) => api('POST', `${spacePath(space)}/transfer`, { token, body: { organization: fixture.targetOrgId } }),
    verify: async ({ space, fixture }, ok) => {
      const row = await spaceRow(space);
      expect(row!.org_id).toBe(ok ? fixture.targetOrgId : fixture.org.id);
    },
  },
  {
    name: 'inviteToSpace',
    expected: S(204, 403, 403, 403, 403, 403, 404, 404),
    call: ({ space, fixture, token }) => api('POST', permissionsPath(space), { token, body: { role: 'edit', users: [fixture.org.members.read.id] } }),
    verify: async ({ space, fixture }, ok) => {
      const res = await api('GET', userPermissionsPath(space), { token: fixture.org.owner.token });
      expect(res.body.count).toBe(ok ? 1 : 0);
    },
  },
  {
    name: 'listUserPermissionsInSpace',
    expected: S(200, 200, 200, 200, 200, 200, 404, 404),
    call: ({ space, token }) => api('GET', userPermissionsPath(space), { token }),
  },
  {
    name: 'updateUserPermissionInSpace',
    expected: S(204, 403, 403, 403, 403, 403, 404, 404),
    setup: ({ space, fixture }) => grant(fixture.org, space, { role: 'comment', users: [fixture.org.members.read.id] }),
    call: ({ space, fixture, token }) => api('PATCH', userPermissionPath(space, fixture.org.members.read.id), { token, body: { role: 'review' } }),
    verify: async ({ space, fixture }, ok) => {
      const res = await api('GET', userPermissionsPath(space), { token: fixture.org.owner.token });
      expect(res.body.items[0].permission).toBe(ok ? 'review' : 'comment');
    },
  },
  {
    name: 'removeUserFromSpace',
    expected: S(204, 403, 403, 403, 403, 403, 404, 404),
    setup: ({ space, fixture }) => grant(fixture.org, space, { role: 'comment', users: [fixture.org.members.read.id] }),
    call: ({ space, fixture, token }) => api('DELETE', userPermissionPath(space, fixture.org.members.read.id), { token }),
    verify: async ({ space, fixture }, ok) => {
      const res = await api('GET', userPermissionsPath(space), { token: fixture.org.owner.token });
      expect(res.body.count).toBe(ok ? 0 : 1);
    },
  },
  {
    name: 'listTeamPermissionsInSpace',
    expected: S(200, 200, 200, 200, 200, 200, 404, 404),
    call: ({ space, token }) => api('GET', teamPermissionsPath(space), { token }),
  },
  {
    name: 'updateTeamPermissionInSpace',
    expected: S(204, 403, 403, 403, 403, 403, 404, 404),
    setup: ({ space, fixture }) => grant(fixture.org, space, { role: 'comment', teams: [fixture.teamId] }),
    call: ({ space, fixture, token }) => api('PATCH', teamPermissionPath(space, fixture.teamId), { token, body: { role: 'review' } }),
    verify: async ({ space, fixture }, ok) => {
      const res = await api('GET', teamPermissionsPath(space), { token: fixture.org.owner.token });
      expect(res.body.items[0].permission).toBe(ok ? 'review' : 'comment');
    },
  },
  {
    name: 'removeTeamFromSpace',
    expected: S(204, 403, 403, 403, 403, 403, 404, 404),
    setup: ({ space, fixture }) => grant(fixture.org, space, { role: 'comment', teams: [fixture.teamId] }),
    call: ({ space, fixture, token }) => api('DELETE', teamPermissionPath(space, fixture.teamId), { token }),
    verify: async ({ space, fixture }, ok) => {
      const res = await api('GET', teamPermissionsPath(space), { token: fixture.org.owner.token });
      expect(res.body.count).toBe(ok ? 0 : 1);
    },
  },
  {
    name: 'listPermissionsAggregateInSpace',
    expected: S(200, 200, 200, 200, 200, 200, 404, 404),
    call: ({ space, token }) => api('GET', aggregatePath(space), { token }),
  },
];

async function spaceCount(): Promise<number> {
  return (await env.DB.prepare('select count(*) as n from spaces').first<number>('n'))!;
}

async function fixture(): Promise<Fixture> {
  const org = await seedOrg();
  const target = await api('POST', '/v1/orgs', { token: org.owner.token, body: { title: `Target ${uniq()}` } });
  expect(target.status).toBe(201);
  for (const caller of CALLERS) {
    if (caller === 'admin') continue;
    const user = callerUser(org, caller);
    await addMember(target.body.id, user.id, 'create');
  }
  const team = await createTeam(org, [org.members.comment.id]);
  return { org, targetOrgId: target.body.id, teamId: team.id };
}

describe('authorization on a root space with defaultLevel inherit', () => {
  // One organization (with its target organization and team) for the whole table: every call acts on a space made
  // for it alone, and no operation changes the organization's members, the target's or the team, only spaces.
  let shared: Fixture;
  beforeAll(async () => {
    shared = await fixture();
  });

  it.each(OPERATIONS.map((op) => [op.name, op] as const))('%s', async (_name, op) => {
    const fx = shared;
    const seen: Record<string, number> = {};
    for (const caller of CALLERS) {
      const user = callerUser(fx.org, caller);
      const space = (await createSpace(fx.org)).id;
      const c: Case = { space, fixture: fx, token: user.token };
      if (op.setup) await op.setup(c);
      const before = await spaceRow(space);
      const spacesBefore = await spaceCount();
      const res = await op.call(c);
      seen[caller] = res.status;
      const expected = op.expected[caller];
      const effective = op.effective ? op.effective(caller) : expected < 300;
      if (expected >= 400) expectError(res, expected);
      if (!effective) {
        // A refused (or invisible) call changes nothing.
        expect(await spaceRow(space), `${op.name} as ${caller} changed the space`).toEqual(before);
        expect(await spaceCount(), `${op.name} as ${caller} created a space`).toBe(spacesBefore);
      }
      if (op.verify) await op.verify(c, effective);
    }
    expect(seen).toEqual(op.expected);
  });

  it('shows each role the permissions it is allowed to use', async () => {
    const fx = await fixture();
    const space = await createSpace(fx.org);
    const expected: Record<Exclude<RoleName, 'guest'>, string[]> = {
      admin: ['view', 'access', 'admin', 'viewInviteLinks', 'edit', 'triggerGitSync', 'comment', 'merge', 'review', 'installIntegration'],
      create: ['view', 'access', 'edit', 'triggerGitSync', 'comment', 'merge', 'review'],
      review: ['view', 'access', 'edit', 'triggerGitSync', 'comment', 'merge', 'review'],
      edit: ['view', 'access', 'edit', 'triggerGitSync', 'comment'],
      comment: ['view', 'access', 'comment'],
      read: ['view', 'access'],
    };
    for (const [role, allowed] of Object.entries(expected)) {
      const seen = await getSpace(space.id, fx.org.members[role as RoleName].token);
      const granted = Object.entries(seen.permissions).filter(([, v]) => v).map(([k]) => k);
      expect(granted.sort(), role).toEqual([...allowed].sort());
    }
    // Nothing was written while reading.
    expect(await env.DB.prepare('select count(*) as n from spaces where org_id = ?').bind(fx.org.id).first('n')).toBe(1);
  });
});
