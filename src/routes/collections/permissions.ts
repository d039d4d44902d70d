import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { collections, orgMembers } from '../../db/schema';
import { createRouter } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK, rankToRole, roleToRank } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, RoleOrGuestSchema, RoleSchema, urlContext } from '../../schemas/common';
import { TeamPermissionSchema, UserPermissionSchema, inviteOf } from '../../schemas/permission';
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
import { sharingRoutes } from '../shared/sharing-routes';
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

const routes = sharingRoutes({
  name: 'Collection',
  base: '/collections/{collectionId}/permissions',
  params: CollectionParams,
  userParams: CollectionUserParams,
  teamParams: CollectionTeamParams,
  tags,
  invite: {
    summary: 'Grant users and teams a role on a collection and everything in it (collection admins)',
    description: 'Users who are not members of the organization join it as guests, with access to this collection only.',
  },
  roleBody: RoleBody,
  nullRemoves: true,
  removal: 'resetWhenRemoved',
  users: { schema: UserPermissionSchema, listName: 'UserContentPermissions' },
  teams: { schema: TeamPermissionSchema, listName: 'TeamContentPermissions' },
  aggregate: {
    schema: UserPermissionSchema,
    listName: 'CollectionAccess',
    query: ListQuerySchema.extend({ role: RoleSchema.optional().openapi({ description: 'Only people with exactly this effective role' }) }),
    summary: 'List everyone who can access a collection, with their effective role',
  },
});

const GRANTS = SHAREABLE.collection;

/** Checks the rows of `collectionQuery` (run in the caller's batch) for `needed`: 404 unseen, 403 below it. */
function checkCollection(rows: { collection: CollectionRow; rank: number }[], needed: number) {
  authorize(rows[0]?.rank, needed, 'Collection');
  return rows[0];
}

export const collectionPermissionsRouter = createRouter()
  .openapi(routes.invite, async (c) => {
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
  .openapi(routes.listUsers, async (c) => {
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
  .openapi(routes.updateUser, async (c) => {
    const callerId = requireUser(c);
    const { collectionId, userId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [rows, grant] = await db.batch([collectionQuery(db, collectionId, callerId), grantQuery(db, GRANTS.users, collectionId, userId)]);
    checkCollection(rows, RANK.admin);
    await updateGrant(db, GRANTS, 'users', collectionId, userId, grant, role === null ? null : roleToRank(role));
    return c.body(null, 204);
  })
  .openapi(routes.removeUser, async (c) => {
    const callerId = requireUser(c);
    const { collectionId, userId } = c.req.valid('param');
    const db = c.get('db');
    await requireCollection(db, collectionId, callerId, RANK.admin);
    const removed = await removeGrant(db, GRANTS.users, collectionId, userId);
    return c.body(null, removed ? 205 : 204);
  })
  .openapi(routes.listTeams, async (c) => {
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
  .openapi(routes.updateTeam, async (c) => {
    const callerId = requireUser(c);
    const { collectionId, teamId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [rows, grant] = await db.batch([collectionQuery(db, collectionId, callerId), grantQuery(db, GRANTS.teams, collectionId, teamId)]);
    checkCollection(rows, RANK.admin);
    await updateGrant(db, GRANTS, 'teams', collectionId, teamId, grant, role === null ? null : roleToRank(role));
    return c.body(null, 204);
  })
  .openapi(routes.removeTeam, async (c) => {
    const callerId = requireUser(c);
    const { collectionId, teamId } = c.req.valid('param');
    const db = c.get('db');
    await requireCollection(db, collectionId, callerId, RANK.admin);
    const removed = await removeGrant(db, GRANTS.teams, collectionId, teamId);
    return c.body(null, removed ? 205 : 204);
  })
  .openapi(routes.aggregate, async (c) => {
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
