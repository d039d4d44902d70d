import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { orgMembers, spaces } from '../../db/schema';
import { createRouter } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK, rankToRole, roleToRank } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, RoleOrGuestSchema, RoleSchema, urlContext } from '../../schemas/common';
import { TeamPermissionSchema, UserPermissionSchema, inviteOf } from '../../schemas/permission';
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

export const spaceUsersRouter = createRouter()
  .openapi(routes.invite, async (c) => {
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
  .openapi(routes.listUsers, async (c) => {
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
  .openapi(routes.updateUser, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, userId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [spaceRows, grant] = await db.batch([selectSpaceWithRank(db, spaceId, callerId), grantQuery(db, GRANTS.users, spaceId, userId)]);
    checkSpace(spaceRows, RANK.admin);
    await updateGrant(db, GRANTS, 'users', spaceId, userId, grant, role === null ? null : roleToRank(role));
    return c.body(null, 204);
  })
  .openapi(routes.removeUser, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, userId } = c.req.valid('param');
    const db = c.get('db');
    await requireSpace(db, spaceId, callerId, RANK.admin);
    await removeGrant(db, GRANTS.users, spaceId, userId);
    return c.body(null, 204);
  })
  .openapi(routes.listTeams, async (c) => {
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
  .openapi(routes.updateTeam, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, teamId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [spaceRows, grant] = await db.batch([selectSpaceWithRank(db, spaceId, callerId), grantQuery(db, GRANTS.teams, spaceId, teamId)]);
    checkSpace(spaceRows, RANK.admin);
    await updateGrant(db, GRANTS, 'teams', spaceId, teamId, grant, role === null ? null : roleToRank(role));
    return c.body(null, 204);
  })
  .openapi(routes.removeTeam, async (c) => {
    const callerId = requireUser(c);
    const { spaceId, teamId } = c.req.valid('param');
    const db = c.get('db');
    await requireSpace(db, spaceId, callerId, RANK.admin);
    await removeGrant(db, GRANTS.teams, spaceId, teamId);
    return c.body(null, 204);
  })
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
