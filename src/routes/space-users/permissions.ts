import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { orgMembers, spaces } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK, rankToRole, roleToRank } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, RoleOrGuestSchema, RoleSchema, listOf, urlContext } from '../../schemas/common';
import { InviteBodySchema, TeamPermissionSchema, UserPermissionSchema, inviteOf } from '../../schemas/permission';
import { toTeam } from '../../schemas/team';
import { toUser } from '../../schemas/user';
import { spaceRoleSql } from '../../services/access/access';
import {
  SHAREABLE,
  applyInvite,
  checkInviteReads,
  everyoneWithAccessPage,
  grantQuery,
  inviteReads,
  removeGrant,
  teamGrantsPage,
  updateGrant,
  userGrantsPage,
} from '../../services/access/grants';
import { checkSpace, requireSpace, selectSpaceWithRank } from '../../services/spaces/spaces';

const tags = ['Space users'];
const SpaceParams = z.object({ spaceId: IdSchema('spaceId') });
const SpaceUserParams = SpaceParams.extend({ userId: IdSchema('userId') });
const SpaceTeamParams = SpaceParams.extend({ teamId: IdSchema('teamId') });

export { TeamPermissionSchema, UserPermissionSchema };

const inviteToSpaceRoute = defineRoute({
  method: 'post',
  path: '/spaces/{spaceId}/permissions',
  operationId: 'inviteToSpace',
  tags,
  summary: 'Grant users and teams a role on a space (space admins)',
  description: 'Users who are not members of the organization join it as guests, with access to this space only.',
  request: { params: SpaceParams, ...jsonBody(InviteBodySchema) },
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

const GRANTS = SHAREABLE.space;

export const spaceUsersRouter = createRouter()
  .openapi(inviteToSpaceRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const invite = inviteOf(c.req.valid('json'), roleToRank);
    const db = c.get('db');
    const spaceOrg = sql`(select s.org_id from spaces s where s.id = ${spaceId})`;
    const [spaceRows, ...found] = await db.batch([selectSpaceWithRank(db, spaceId, callerId), ...inviteReads(db, spaceOrg, invite)]);
    const { space } = checkSpace(spaceRows, RANK.admin);
    checkInviteReads(invite, found);
    await applyInvite(db, c.env, GRANTS, space.orgId, spaceId, invite);
    return c.body(null, 204);
  })
  .openapi(listUserPermissionsRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const [spaceRows, rows, [{ total }]] = await db.batch([selectSpaceWithRank(db, spaceId, callerId), ...userGrantsPage(db, GRANTS.users, spaceId, cursor, limit)]);
    checkSpace(spaceRows, RANK.read, true);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(rows, limit, total, (r) => [r.grantedAt, r.user.id], (r) => ({ permission: rankToRole(r.grantRole)!, user: toUser(r.user, urls) })),
      200,
    );
  })
  .openapi(updateUserPermissionRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, userId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [spaceRows, grant] = await db.batch([selectSpaceWithRank(db, spaceId, callerId), grantQuery(db, GRANTS.users, spaceId, userId)]);
    checkSpace(spaceRows, RANK.admin);
    await updateGrant(db, GRANTS, 'users', spaceId, userId, grant, role === null ? null : roleToRank(role));
    return c.body(null, 204);
  })
  .openapi(removeUserPermissionRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, userId } = c.req.valid('param');
    const db = c.get('db');
    await requireSpace(db, spaceId, callerId, RANK.admin);
    await removeGrant(db, GRANTS.users, spaceId, userId);
    return c.body(null, 204);
  })
  .openapi(listTeamPermissionsRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const [spaceRows, rows, [{ total }]] = await db.batch([
      selectSpaceWithRank(db, spaceId, callerId),
      ...teamGrantsPage(db, GRANTS.teams, spaceId, callerId, cursor, limit),
    ]);
    checkSpace(spaceRows, RANK.read, true);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(rows, limit, total, (r) => [r.grantedAt, r.team.id], (r) => ({ permission: rankToRole(r.grantRole)!, team: toTeam(r, urls) })),
      200,
    );
  })
  .openapi(updateTeamPermissionRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, teamId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [spaceRows, grant] = await db.batch([selectSpaceWithRank(db, spaceId, callerId), grantQuery(db, GRANTS.teams, spaceId, teamId)]);
    checkSpace(spaceRows, RANK.admin);
    await updateGrant(db, GRANTS, 'teams', spaceId, teamId, grant, role === null ? null : roleToRank(role));
    return c.body(null, 204);
  })
  .openapi(removeTeamPermissionRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, teamId } = c.req.valid('param');
    const db = c.get('db');
    await requireSpace(db, spaceId, callerId, RANK.admin);
    await removeGrant(db, GRANTS.teams, spaceId, teamId);
    return c.body(null, 204);
  })
  .openapi(aggregateRoute, async (c) => {
    const callerId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const [spaceRows, rows, [{ total }]] = await db.batch([
      selectSpaceWithRank(db, spaceId, callerId),
      ...everyoneWithAccessPage(db, { table: spaces, id: spaces.id, orgId: spaces.orgId }, spaceId, spaceRoleSql(orgMembers.userId), query.role && RANK[query.role], cursor, limit),
    ]);
    checkSpace(spaceRows, RANK.read, true);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(rows, limit, total, (r) => [r.user.id, r.user.id], (r) => ({ permission: rankToRole(r.rank)!, user: toUser(r.user, urls) })), 200);
  });
