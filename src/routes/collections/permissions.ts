import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { collections, orgMembers } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK, rankToRole, roleToRank } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, RoleOrGuestSchema, RoleSchema, listOf, urlContext } from '../../schemas/common';
import { InviteBodySchema, TeamPermissionSchema, UserPermissionSchema, inviteOf } from '../../schemas/permission';
import { toTeam } from '../../schemas/team';
import { toUser } from '../../schemas/user';
import { collectionRoleSql } from '../../services/access/access';
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
import { authorize } from '../../services/access/permissions';
import { collectionQuery, requireCollection, type CollectionRow } from '../../services/collections/collections';

/**
 * Sharing a collection (GitBook's collection-permissions): what a user or team is given here reaches every
 * space and collection nested in the collection (services/access/access.ts). Collection admins share;
 * whoever reads the collection sees who it is shared with.
 */
const tags = ['Collection permissions'];
const CollectionParams = z.object({ collectionId: IdSchema('collectionId') });
const CollectionUserParams = CollectionParams.extend({ userId: IdSchema('userId') });
const CollectionTeamParams = CollectionParams.extend({ teamId: IdSchema('teamId') });
const RoleBody = z.object({ role: RoleOrGuestSchema.openapi({ description: 'The new role; null removes it' }) });

const inviteRoute = defineRoute({
  method: 'post',
  path: '/collections/{collectionId}/permissions',
  operationId: 'inviteToCollection',
  tags,
  summary: 'Grant users and teams a role on a collection and everything in it (collection admins)',
  description: 'Users who are not members of the organization join it as guests, with access to this collection only.',
  request: { params: CollectionParams, ...jsonBody(InviteBodySchema) },
  responses: { 204: noContent('The users and teams have been granted the role') },
});

const listUsersRoute = defineRoute({
  method: 'get',
  path: '/collections/{collectionId}/permissions/users',
  operationId: 'listUserPermissionsInCollection',
  tags,
  summary: 'List the users added to a collection with their role',
  request: { params: CollectionParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(UserPermissionSchema, 'UserContentPermissions'), 'The users added to the collection') },
});

const updateUserRoute = defineRoute({
  method: 'patch',
  path: '/collections/{collectionId}/permissions/users/{userId}',
  operationId: 'updateUserPermissionInCollection',
  tags,
  summary: "Change a user's role on a collection (null removes it)",
  request: { params: CollectionUserParams, ...jsonBody(RoleBody) },
  responses: { 204: noContent('Updated') },
});

const removeUserRoute = defineRoute({
  method: 'delete',
  path: '/collections/{collectionId}/permissions/users/{userId}',
  operationId: 'removeUserFromCollection',
  tags,
  summary: 'Remove a user from a collection',
  request: { params: CollectionUserParams },
  responses: { 204: noContent('The user was not in the collection'), 205: noContent('The user has been removed from the collection') },
});

const listTeamsRoute = defineRoute({
  method: 'get',
  path: '/collections/{collectionId}/permissions/teams',
  operationId: 'listTeamPermissionsInCollection',
  tags,
  summary: 'List the teams added to a collection with their role',
  request: { params: CollectionParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(TeamPermissionSchema, 'TeamContentPermissions'), 'The teams added to the collection') },
});

const updateTeamRoute = defineRoute({
  method: 'patch',
  path: '/collections/{collectionId}/permissions/teams/{teamId}',
  operationId: 'updateTeamPermissionInCollection',
  tags,
  summary: "Change a team's role on a collection (null removes it)",
  request: { params: CollectionTeamParams, ...jsonBody(RoleBody) },
  responses: { 204: noContent('Updated') },
});

const removeTeamRoute = defineRoute({
  method: 'delete',
  path: '/collections/{collectionId}/permissions/teams/{teamId}',
  operationId: 'removeTeamFromCollection',
  tags,
  summary: 'Remove a team from a collection',
  request: { params: CollectionTeamParams },
  responses: { 204: noContent('The team was not in the collection'), 205: noContent('The team has been removed from the collection') },
});

const aggregateRoute = defineRoute({
  method: 'get',
  path: '/collections/{collectionId}/permissions/aggregate',
  operationId: 'listPermissionsAggregateInCollection',
  tags,
  summary: 'List everyone who can access a collection, with their effective role',
  request: { params: CollectionParams, query: ListQuerySchema.extend({ role: RoleSchema.optional().openapi({ description: 'Only people with exactly this effective role' }) }) },
  responses: { 200: jsonResponse(listOf(UserPermissionSchema, 'CollectionAccess'), 'Everyone who can access the collection') },
});

const GRANTS = SHAREABLE.collection;

/** Checks the rows of `collectionQuery` (run in the caller's batch) for `needed`: 404 unseen, 403 below it. */
function checkCollection(rows: { collection: CollectionRow; rank: number }[], needed: number) {
  authorize(rows[0]?.rank, needed, 'Collection');
  return rows[0];
}

export const collectionPermissionsRouter = createRouter()
  .openapi(inviteRoute, async (c) => {
    const callerId = requireUser(c);
    const { collectionId } = c.req.valid('param');
    const invite = inviteOf(c.req.valid('json'), roleToRank);
    const db = c.get('db');
    const collectionOrg = sql`(select c.org_id from collections c where c.id = ${collectionId})`;
    const [rows, ...found] = await db.batch([collectionQuery(db, collectionId, callerId), ...inviteReads(db, collectionOrg, invite)]);
    const { collection } = checkCollection(rows, RANK.admin);
    checkInviteReads(invite, found);
    await applyInvite(db, c.env, GRANTS, collection.orgId, collectionId, invite);
    return c.body(null, 204);
  })
  .openapi(listUsersRoute, async (c) => {
    const callerId = requireUser(c);
    const { collectionId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const [rows, grants, [{ total }]] = await db.batch([collectionQuery(db, collectionId, callerId), ...userGrantsPage(db, GRANTS.users, collectionId, cursor, limit)]);
    checkCollection(rows, RANK.read);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(grants, limit, total, (r) => [r.grantedAt, r.user.id], (r) => ({ permission: rankToRole(r.grantRole)!, user: toUser(r.user, urls) })),
      200,
    );
  })
  .openapi(updateUserRoute, async (c) => {
    const callerId = requireUser(c);
    const { collectionId, userId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [rows, grant] = await db.batch([collectionQuery(db, collectionId, callerId), grantQuery(db, GRANTS.users, collectionId, userId)]);
    checkCollection(rows, RANK.admin);
    await updateGrant(db, GRANTS, 'users', collectionId, userId, grant, role === null ? null : roleToRank(role));
    return c.body(null, 204);
  })
  .openapi(removeUserRoute, async (c) => {
    const callerId = requireUser(c);
    const { collectionId, userId } = c.req.valid('param');
    const db = c.get('db');
    await requireCollection(db, collectionId, callerId, RANK.admin);
    const removed = await removeGrant(db, GRANTS.users, collectionId, userId);
    return c.body(null, removed ? 205 : 204);
  })
  .openapi(listTeamsRoute, async (c) => {
    const callerId = requireUser(c);
    const { collectionId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const [rows, grants, [{ total }]] = await db.batch([
      collectionQuery(db, collectionId, callerId),
      ...teamGrantsPage(db, GRANTS.teams, collectionId, callerId, cursor, limit),
    ]);
    checkCollection(rows, RANK.read);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(grants, limit, total, (r) => [r.grantedAt, r.team.id], (r) => ({ permission: rankToRole(r.grantRole)!, team: toTeam(r, urls) })),
      200,
    );
  })
  .openapi(updateTeamRoute, async (c) => {
    const callerId = requireUser(c);
    const { collectionId, teamId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [rows, grant] = await db.batch([collectionQuery(db, collectionId, callerId), grantQuery(db, GRANTS.teams, collectionId, teamId)]);
    checkCollection(rows, RANK.admin);
    await updateGrant(db, GRANTS, 'teams', collectionId, teamId, grant, role === null ? null : roleToRank(role));
    return c.body(null, 204);
  })
  .openapi(removeTeamRoute, async (c) => {
    const callerId = requireUser(c);
    const { collectionId, teamId } = c.req.valid('param');
    const db = c.get('db');
    await requireCollection(db, collectionId, callerId, RANK.admin);
    const removed = await removeGrant(db, GRANTS.teams, collectionId, teamId);
    return c.body(null, removed ? 205 : 204);
  })
  .openapi(aggregateRoute, async (c) => {
    const callerId = requireUser(c);
    const { collectionId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const target = { table: collections, id: collections.id, orgId: collections.orgId };
    const [rows, people, [{ total }]] = await db.batch([
      collectionQuery(db, collectionId, callerId),
      ...everyoneWithAccessPage(db, target, collectionId, collectionRoleSql(orgMembers.userId), query.role && RANK[query.role], cursor, limit),
    ]);
    checkCollection(rows, RANK.read);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(people, limit, total, (r) => [r.user.id, r.user.id], (r) => ({ permission: rankToRole(r.rank)!, user: toUser(r.user, urls) })), 200);
  });
