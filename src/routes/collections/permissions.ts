import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { collections, orgMembers } from '../../db/schema';
import { createRouter } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK, rankToRole } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, urlContext } from '../../schemas/common';
import { RoleOrGuestSchema, RoleSchema } from '../../schemas/roles';
import { TeamPermissionSchema, UserPermissionSchema } from '../../schemas/permission';
import { toUser } from '../../schemas/user';
import { collectionRoleSql } from '../../services/access/access';
import { SHAREABLE, everyoneWithAccessPage } from '../../services/access/grants';
import { authorize } from '../../services/access/permissions';
import { sharingHandlers, withSharingHandlers } from '../shared/sharing-handlers';
import { sharingRoutes } from '../shared/sharing-routes';
import { collectionQuery, type CollectionRow } from '../../services/collections/collections';

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

const handlers = sharingHandlers<{ collectionId: string }, { collection: CollectionRow; rank: number }>({
  grants: GRANTS,
  idOf: (params) => params.collectionId,
  orgOf: (params) => sql`(select c.org_id from collections c where c.id = ${params.collectionId})`,
  read: (db, params, callerId) => collectionQuery(db, params.collectionId, callerId),
  check: (rows, needed) => checkCollection(rows, needed).collection.orgId,
  removal: 'resetWhenRemoved',
});

export const collectionPermissionsRouter = withSharingHandlers(createRouter(), routes, handlers)
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
