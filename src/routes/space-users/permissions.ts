import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { orgMembers, spaces } from '../../db/schema';
import { createRouter } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK, rankToRole } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, urlContext } from '../../schemas/common';
import { RoleOrGuestSchema, RoleSchema } from '../../schemas/roles';
import { TeamPermissionSchema, UserPermissionSchema } from '../../schemas/permission';
import { toUser } from '../../schemas/user';
import { spaceRoleSql } from '../../services/access/access';
import { SHAREABLE, everyoneWithAccessPage } from '../../services/access/grants';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../../services/spaces/spaces';
import { sharingHandlers, withSharingHandlers } from '../shared/sharing-handlers';
import { sharingRoutes } from '../shared/sharing-routes';

const tags = ['Space users'];
const SpaceParams = z.object({ spaceId: IdSchema('spaceId') });
const SpaceUserParams = SpaceParams.extend({ userId: IdSchema('userId') });
const SpaceTeamParams = SpaceParams.extend({ teamId: IdSchema('teamId') });

export { TeamPermissionSchema, UserPermissionSchema };

const routes = sharingRoutes({
  name: 'Space',
  base: '/spaces/{spaceId}/permissions',
  params: SpaceParams,
  userParams: SpaceUserParams,
  teamParams: SpaceTeamParams,
  tags,
  invite: {
    summary: 'Grant users and teams a role on a space (space admins)',
    description: 'Users who are not members of the organization join it as guests, with access to this space only.',
  },
  roleBody: z.object({ role: RoleOrGuestSchema }),
  nullRemoves: true,
  removal: 'always204',
  users: { schema: UserPermissionSchema, listName: 'UserContentPermissions' },
  teams: { schema: TeamPermissionSchema, listName: 'TeamContentPermissions' },
  aggregate: {
    schema: UserPermissionSchema,
    listName: 'SpaceAccess',
    query: ListQuerySchema.extend({ role: RoleSchema.optional().openapi({ description: 'Only people with exactly this effective role' }) }),
    summary: 'List everyone who can access a space, with their effective role',
  },
});

const GRANTS = SHAREABLE.space;

const handlers = sharingHandlers<{ spaceId: string }, SpaceWithRank>({
  grants: GRANTS,
  idOf: (params) => params.spaceId,
  orgOf: (params) => sql`(select s.org_id from spaces s where s.id = ${params.spaceId})`,
  read: (db, params, callerId) => selectSpaceWithRank(db, params.spaceId, callerId),
  check: (rows, needed, _params, listing) => checkSpace(rows, needed, listing).space.orgId,
  removal: 'always204',
});

export const spaceUsersRouter = withSharingHandlers(createRouter(), routes, handlers)
  .openapi(routes.aggregate, async (c) => {
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
