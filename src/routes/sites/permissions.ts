import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK, rankToRole, roleToRank } from '../../lib/roles';
import { textFilterQuery } from '../../lib/text-filter';
import { requireUser } from '../../middleware/auth';
import { IdSchema, RoleSchema, urlContext } from '../../schemas/common';
import {
  TeamSitePermissionOverrideSchema,
  UserSitePermissionOverrideSchema,
  UserSitePermissionSchema,
  inviteOf,
} from '../../schemas/permission';
import { toTeam } from '../../schemas/team';
import { toUser } from '../../schemas/user';
import {
  SHAREABLE,
  applyInvite,
  checkInviteReads,
  grantQuery,
  inviteReads,
  removeGrant,
  teamGrantsPage,
  updateGrant,
  userGrantsPage,
} from '../../services/access/grants';
import { authorizeSite, siteRankQuery } from '../../services/sites/access';
import { originOf, siteAccessPage } from '../../services/sites/permissions';
import { SiteParams } from './sites';
import { sharingRoutes } from '../shared/sharing-routes';

/**
 * Sharing a site (GitBook's site-permissions): a user or team given a role on a site reads it unpublished,
 * administers it at admin, and reaches the spaces it links at that role (services/access/access.ts). Site
 * admins share; whoever reads the site sees who it is shared with.
 */
const tags = ['Site permissions'];
const SiteUserParams = SiteParams.extend({ userId: IdSchema('userId') });
const SiteTeamParams = SiteParams.extend({ teamId: IdSchema('teamId') });
// GitBook's site updates take a role, not null (removing is the DELETE).
const RoleBody = z.object({ role: RoleSchema });

const AggregateQuery = ListQuerySchema.extend({
  role: z.union([RoleSchema, z.literal('guest')]).optional().openapi({ description: 'Only members with this effective role; guest: guests of the organization the site is shared with' }),
  search: textFilterQuery('Only members whose display name or email contains this (case-insensitive)'),
  sort: z.enum(['joinedAt', 'lastSeenAt', 'name']).default('joinedAt').openapi({ description: 'joinedAt (when they joined the organization, default), lastSeenAt or name' }),
  order: z.enum(['asc', 'desc']).default('desc'),
  team: z.string().max(128).optional().openapi({ description: 'Only members of this team of the organization' }),
});

const routes = sharingRoutes({
  name: 'Site',
  base: '/orgs/{organizationId}/sites/{siteId}/permissions',
  params: SiteParams,
  userParams: SiteUserParams,
  teamParams: SiteTeamParams,
  tags,
  invite: {
    summary: 'Grant users and teams a role on a site (site admins)',
    description: 'Users who are not members of the organization join it as guests, with access to this site (and the spaces it links) only.',
  },
  roleBody: RoleBody,
  nullRemoves: false,
  removal: 'resetWhenRemoved',
  users: { schema: UserSitePermissionOverrideSchema, listName: 'UserSitePermissionOverrides' },
  teams: { schema: TeamSitePermissionOverrideSchema, listName: 'TeamSitePermissionOverrides' },
  aggregate: {
    schema: UserSitePermissionSchema,
    listName: 'SiteAccess',
    query: AggregateQuery,
    summary: 'List everyone who can access a site, with their effective role and where it comes from',
  },
});

const GRANTS = SHAREABLE.site;

export const sitePermissionsRouter = createRouter()
  .openapi(routes.invite, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const invite = inviteOf(c.req.valid('json'), roleToRank);
    const db = c.get('db');
    const [[site], ...found] = await db.batch([siteRankQuery(db, organizationId, siteId, callerId), ...inviteReads(db, organizationId, invite)]);
    authorizeSite(site?.rank, RANK.admin);
    checkInviteReads(invite, found);
    await applyInvite(db, c.env, GRANTS, organizationId, siteId, invite);
    return c.body(null, 204);
  })
  .openapi(routes.listUsers, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const [[site], grants, [{ total }]] = await db.batch([siteRankQuery(db, organizationId, siteId, callerId), ...userGrantsPage(db, GRANTS.users, siteId, cursor, limit)]);
    authorizeSite(site?.rank, RANK.read);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(grants, limit, total, (r) => [r.grantedAt, r.user.id], (r) => ({ permission: rankToRole(r.grantRole), user: toUser(r.user, urls) })),
      200,
    );
  })
  .openapi(routes.updateUser, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, siteId, userId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [[site], grant] = await db.batch([siteRankQuery(db, organizationId, siteId, callerId), grantQuery(db, GRANTS.users, siteId, userId)]);
    authorizeSite(site?.rank, RANK.admin);
    await updateGrant(db, GRANTS, 'users', siteId, userId, grant, roleToRank(role));
    return c.body(null, 204);
  })
  .openapi(routes.removeUser, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, siteId, userId } = c.req.valid('param');
    const db = c.get('db');
    const [site] = await siteRankQuery(db, organizationId, siteId, callerId);
    authorizeSite(site?.rank, RANK.admin);
    const removed = await removeGrant(db, GRANTS.users, siteId, userId);
    return c.body(null, removed ? 205 : 204);
  })
  .openapi(routes.listTeams, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const [[site], grants, [{ total }]] = await db.batch([
      siteRankQuery(db, organizationId, siteId, callerId),
      ...teamGrantsPage(db, GRANTS.teams, siteId, callerId, cursor, limit),
    ]);
    authorizeSite(site?.rank, RANK.read);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(grants, limit, total, (r) => [r.grantedAt, r.team.id], (r) => ({ permission: rankToRole(r.grantRole), team: toTeam(r, urls) })),
      200,
    );
  })
  .openapi(routes.updateTeam, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, siteId, teamId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [[site], grant] = await db.batch([siteRankQuery(db, organizationId, siteId, callerId), grantQuery(db, GRANTS.teams, siteId, teamId)]);
    authorizeSite(site?.rank, RANK.admin);
    await updateGrant(db, GRANTS, 'teams', siteId, teamId, grant, roleToRank(role));
    return c.body(null, 204);
  })
  .openapi(routes.removeTeam, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, siteId, teamId } = c.req.valid('param');
    const db = c.get('db');
    const [site] = await siteRankQuery(db, organizationId, siteId, callerId);
    authorizeSite(site?.rank, RANK.admin);
    const removed = await removeGrant(db, GRANTS.teams, siteId, teamId);
    return c.body(null, removed ? 205 : 204);
  })
  .openapi(routes.aggregate, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const [[site], rows, [{ total }]] = await db.batch([
      siteRankQuery(db, organizationId, siteId, callerId),
      ...siteAccessPage(db, organizationId, siteId, query, cursor, limit),
    ]);
    authorizeSite(site?.rank, RANK.read);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(rows, limit, total, (r) => [r.sortKey, r.user.id], (r) => ({
        permission: rankToRole(r.rank),
        user: toUser(r.user, urls),
        origin: originOf(r, organizationId, siteId),
        disabled: r.disabled,
        ...(r.lastSeenAt ? { lastSeenAt: r.lastSeenAt } : {}),
      })),
      200,
    );
  });
