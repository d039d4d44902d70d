import { z } from '@hono/zod-openapi';
import { and, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { orgMembers, spaceTeamGrants, spaceUserGrants, spaces, teams, users } from '../../db/schema';
import { rowWhere } from '../../db/client';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { RANK, rankToRole, roleToRank } from '../../lib/roles';
import { valuesOf } from '../../lib/sql-lists';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, RoleOrGuestSchema, RoleSchema, listOf, urlContext } from '../../schemas/common';
import { TeamSchema, toTeam } from '../../schemas/team';
import { UserSchema, toUser } from '../../schemas/user';
import { spaceRoleSql } from '../../services/access/access';
import { membersCapGuard, runWithinMembersCap } from '../../services/organizations/members';
import { checkSpace, requireSpace, selectSpaceWithRank } from '../../services/spaces/spaces';
import { teamSelection } from '../../services/teams/teams';

const tags = ['Space users'];
const SpaceParams = z.object({ spaceId: IdSchema('spaceId') });
const SpaceUserParams = SpaceParams.extend({ userId: IdSchema('userId') });
const SpaceTeamParams = SpaceParams.extend({ teamId: IdSchema('teamId') });
const MAX_INVITES = 100;

export const UserPermissionSchema = z
  .object({ permission: RoleSchema, user: UserSchema })
  .openapi('UserContentPermission');
export const TeamPermissionSchema = z
  .object({ permission: RoleSchema, team: TeamSchema })
  .openapi('TeamContentPermission');

const InviteBody = z
  .object({
    role: RoleOrGuestSchema.openapi({ description: 'Role to grant; null removes the grants of the listed users and teams' }),
    users: z.array(z.string().min(1)).min(1).max(MAX_INVITES).optional(),
    teams: z.array(z.string().min(1)).min(1).max(MAX_INVITES).optional(),
  })
  .refine((b) => b.users || b.teams, { message: 'give users or teams to invite', path: ['users'] });

const inviteToSpaceRoute = defineRoute({
  method: 'post',
  path: '/spaces/{spaceId}/permissions',
  operationId: 'inviteToSpace',
  tags,
  summary: 'Grant users and teams a role on a space (space admins)',
  description: 'Users who are not members of the organization join it as guests, with access to this space only.',
  request: { params: SpaceParams, ...jsonBody(InviteBody) },
  responses: { 204: noContent('The users and teams have been granted the role') },
});

const listUserPermissionsRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/permissions/users',
  operationId: 'listUserPermissionsInSpace',
  tags,
  summary: 'List the users added to a space with their role',
  request: { params: SpaceParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(UserPermissionSchema, 'UserContentPermissions'), 'The users added to the space') },
});

const updateUserPermissionRoute = defineRoute({
  method: 'patch',
  path: '/spaces/{spaceId}/permissions/users/{userId}',
  operationId: 'updateUserPermissionInSpace',
  tags,
  summary: "Change a user's role on a space (null removes it)",
  request: { params: SpaceUserParams, ...jsonBody(z.object({ role: RoleOrGuestSchema })) },
  responses: { 204: noContent('Updated') },
});

const removeUserPermissionRoute = defineRoute({
  method: 'delete',
  path: '/spaces/{spaceId}/permissions/users/{userId}',
  operationId: 'removeUserFromSpace',
  tags,
  summary: 'Remove a user from a space',
  request: { params: SpaceUserParams },
  responses: { 204: noContent('Removed, or was not in the space') },
});

const listTeamPermissionsRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/permissions/teams',
  operationId: 'listTeamPermissionsInSpace',
  tags,
  summary: 'List the teams added to a space with their role',
  request: { params: SpaceParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(TeamPermissionSchema, 'TeamContentPermissions'), 'The teams added to the space') },
});

const updateTeamPermissionRoute = defineRoute({
  method: 'patch',
  path: '/spaces/{spaceId}/permissions/teams/{teamId}',
  operationId: 'updateTeamPermissionInSpace',
  tags,
  summary: "Change a team's role on a space (null removes it)",
  request: { params: SpaceTeamParams, ...jsonBody(z.object({ role: RoleOrGuestSchema })) },
  responses: { 204: noContent('Updated') },
});

const removeTeamPermissionRoute = defineRoute({
  method: 'delete',
  path: '/spaces/{spaceId}/permissions/teams/{teamId}',
  operationId: 'removeTeamFromSpace',
  tags,
  summary: 'Remove a team from a space',
  request: { params: SpaceTeamParams },
  responses: { 204: noContent('Removed, or was not in the space') },
});

const aggregateRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/permissions/aggregate',
  operationId: 'listPermissionsAggregateInSpace',
  tags,
  summary: 'List everyone who can access a space, with their effective role',
  request: { params: SpaceParams, query: ListQuerySchema.extend({ role: RoleSchema.optional().openapi({ description: 'Only people with exactly this effective role' }) }) },
  responses: { 200: jsonResponse(listOf(UserPermissionSchema, 'SpaceAccess'), 'Everyone who can access the space') },
});

type RouteDb = Parameters<typeof requireSpace>[0];

function existingUsers(db: RouteDb, userIds: string[]) {
  return db.select({ id: users.id }).from(users).where(inArray(users.id, valuesOf(userIds)));
}

function teamsOfSpaceOrg(db: RouteDb, spaceId: string, teamIds: string[]) {
  return db
    .select({ id: teams.id })
    .from(teams)
    .where(and(inArray(teams.id, valuesOf(teamIds)), sql`${teams.orgId} = (select s.org_id from spaces s where s.id = ${spaceId})`));
}

function assertAllFound(wanted: string[], found: { id: string }[], message: (missing: string) => string) {
  const known = new Set(found.map((f) => f.id));
  const missing = wanted.filter((id) => !known.has(id));
  if (missing.length) throw badRequest(message(missing.map((id) => `"${id}"`).join(', ')));
}

export const spaceUsersRouter = createRouter()
  .openapi(inviteToSpaceRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const userIds = [...new Set(body.users ?? [])];
    const teamIds = [...new Set(body.teams ?? [])];
    const [spaceRows, foundUsers, foundTeams] = await db.batch([
      selectSpaceWithRank(db, spaceId, callerId),
      existingUsers(db, userIds),
      teamsOfSpaceOrg(db, spaceId, teamIds),
    ]);
    const { space } = checkSpace(spaceRows, RANK.admin);
    assertAllFound(userIds, foundUsers, (missing) => `users: ${missing} do not exist`);
    assertAllFound(teamIds, foundTeams, (missing) => `teams: ${missing} are not teams of this organization`);
    const now = nowIso();
    // Outsiders become guests: members of the organization under its cap. The grants apply only with them.
    const guard = membersCapGuard(db, c.env, space.orgId, body.role === null ? [] : userIds);
    const statements =
      body.role === null
        ? [
            ...(userIds.length ? [db.delete(spaceUserGrants).where(and(eq(spaceUserGrants.spaceId, spaceId), inArray(spaceUserGrants.userId, userIds)))] : []),
            ...(teamIds.length ? [db.delete(spaceTeamGrants).where(and(eq(spaceTeamGrants.spaceId, spaceId), inArray(spaceTeamGrants.teamId, teamIds)))] : []),
          ]
        : [
            // Outsiders become guests of the organization: their access comes from this grant alone.
            ...userIds.map((userId) => guard.insert({ orgId: space.orgId, userId, role: RANK.guest, joinedAt: now })),
            ...userIds.map((userId) =>
              db
                .insert(spaceUserGrants)
                .select(rowWhere(spaceUserGrants, { spaceId, userId, role: roleToRank(body.role), createdAt: now }, guard.when))
                .onConflictDoUpdate({ target: [spaceUserGrants.spaceId, spaceUserGrants.userId], set: { role: roleToRank(body.role) } }),
            ),
            ...teamIds.map((teamId) =>
              db
                .insert(spaceTeamGrants)
                .select(rowWhere(spaceTeamGrants, { spaceId, teamId, role: roleToRank(body.role), createdAt: now }, guard.when))
                .onConflictDoUpdate({ target: [spaceTeamGrants.spaceId, spaceTeamGrants.teamId], set: { role: roleToRank(body.role) } }),
            ),
          ];
    if (statements.length) await runWithinMembersCap(c.env, db, guard, statements);
    return c.body(null, 204);
  })
  .openapi(listUserPermissionsRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const inSpace = eq(spaceUserGrants.spaceId, spaceId);
    const [spaceRows, rows, [{ total }]] = await db.batch([
      selectSpaceWithRank(db, spaceId, callerId),
      db
        // Aliased: users has a created_at too, and D1 batches return rows keyed by column name, so two
        // columns of one name collapse into one and shift every later field.
        .select({ role: spaceUserGrants.role, createdAt: sql<string>`${spaceUserGrants.createdAt}`.as('granted_at'), user: users })
        .from(spaceUserGrants)
        .innerJoin(users, eq(users.id, spaceUserGrants.userId))
        .where(and(inSpace, afterCursor(cursor, spaceUserGrants.createdAt, spaceUserGrants.userId)))
        .orderBy(...keysetOrder(spaceUserGrants.createdAt, spaceUserGrants.userId))
        .limit(limit + 1),
      db.select({ total: count() }).from(spaceUserGrants).where(inSpace),
    ]);
    checkSpace(spaceRows, RANK.read, true);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(rows, limit, total, (r) => [r.createdAt, r.user.id], (r) => ({ permission: rankToRole(r.role)!, user: toUser(r.user, urls) })),
      200,
    );
  })
  .openapi(updateUserPermissionRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, userId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    await requireSpace(db, spaceId, callerId, RANK.admin);
    const key = and(eq(spaceUserGrants.spaceId, spaceId), eq(spaceUserGrants.userId, userId));
    const grant = await db.select({ role: spaceUserGrants.role }).from(spaceUserGrants).where(key).get();
    if (!grant) throw new ApiError(404, 'This user has not been added to the space');
    if (role === null) await db.delete(spaceUserGrants).where(key).run();
    else await db.update(spaceUserGrants).set({ role: roleToRank(role) }).where(key).run();
    return c.body(null, 204);
  })
  .openapi(removeUserPermissionRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, userId } = c.req.valid('param');
    const db = c.get('db');
    await requireSpace(db, spaceId, callerId, RANK.admin);
    await db.delete(spaceUserGrants).where(and(eq(spaceUserGrants.spaceId, spaceId), eq(spaceUserGrants.userId, userId))).run();
    return c.body(null, 204);
  })
  .openapi(listTeamPermissionsRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const inSpace = eq(spaceTeamGrants.spaceId, spaceId);
    const [spaceRows, rows, [{ total }]] = await db.batch([
      selectSpaceWithRank(db, spaceId, callerId),
      // Aliased: teams has a created_at too (see the users list above). teamSelection's type only
      // admits columns and plain SQL; an aliased SQL is a valid selection at runtime.
      teamSelection(db, callerId, {
        grantRole: sql<number>`${spaceTeamGrants.role}`.as('grant_role') as unknown as SQL<number>,
        grantedAt: sql<string>`${spaceTeamGrants.createdAt}`.as('granted_at') as unknown as SQL<string>,
      })
        .innerJoin(spaceTeamGrants, eq(spaceTeamGrants.teamId, teams.id))
        .where(and(inSpace, afterCursor(cursor, spaceTeamGrants.createdAt, spaceTeamGrants.teamId)))
        .orderBy(...keysetOrder(spaceTeamGrants.createdAt, spaceTeamGrants.teamId))
        .limit(limit + 1),
      db.select({ total: count() }).from(spaceTeamGrants).where(inSpace),
    ]);
    checkSpace(spaceRows, RANK.read, true);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(
        rows,
        limit,
        total,
        (r) => [r.grantedAt, r.team.id],
        (r) => ({ permission: rankToRole(r.grantRole)!, team: toTeam(r, urls) }),
      ),
      200,
    );
  })
  .openapi(updateTeamPermissionRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, teamId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    await requireSpace(db, spaceId, callerId, RANK.admin);
    const key = and(eq(spaceTeamGrants.spaceId, spaceId), eq(spaceTeamGrants.teamId, teamId));
    const grant = await db.select({ role: spaceTeamGrants.role }).from(spaceTeamGrants).where(key).get();
    if (!grant) throw new ApiError(404, 'This team has not been added to the space');
    if (role === null) await db.delete(spaceTeamGrants).where(key).run();
    else await db.update(spaceTeamGrants).set({ role: roleToRank(role) }).where(key).run();
    return c.body(null, 204);
  })
  .openapi(removeTeamPermissionRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, teamId } = c.req.valid('param');
    const db = c.get('db');
    await requireSpace(db, spaceId, callerId, RANK.admin);
    await db.delete(spaceTeamGrants).where(and(eq(spaceTeamGrants.spaceId, spaceId), eq(spaceTeamGrants.teamId, teamId))).run();
    return c.body(null, 204);
  })
  .openapi(aggregateRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    // The same role function as every authorization check, evaluated for each member of the organization.
    const role = spaceRoleSql(orgMembers.userId);
    const where = and(eq(spaces.id, spaceId), query.role ? sql`${role} = ${RANK[query.role]}` : sql`${role} >= ${RANK.read}`);
    const [spaceRows, rows, [{ total }]] = await db.batch([
      selectSpaceWithRank(db, spaceId, callerId),
      db
        .select({ rank: role, user: users })
        .from(orgMembers)
        .innerJoin(spaces, eq(spaces.orgId, orgMembers.orgId))
        .innerJoin(users, eq(users.id, orgMembers.userId))
        .where(and(where, afterCursor(cursor, orgMembers.userId, orgMembers.userId)))
        .orderBy(orgMembers.userId)
        .limit(limit + 1),
      db.select({ total: count() }).from(orgMembers).innerJoin(spaces, eq(spaces.orgId, orgMembers.orgId)).where(where),
    ]);
    checkSpace(spaceRows, RANK.read, true);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(rows, limit, total, (r) => [r.user.id, r.user.id], (r) => ({ permission: rankToRole(r.rank)!, user: toUser(r.user, urls) })), 200);
  });
