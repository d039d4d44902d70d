import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK, rankToRole } from '../../lib/roles';
import { textFilterQuery } from '../../lib/text-filter';
import { requireUser } from '../../middleware/auth';
import { IdSchema, urlContext } from '../../schemas/common';
import { RoleSchema } from '../../schemas/roles';
import { TeamSitePermissionOverrideSchema, UserSitePermissionOverrideSchema, UserSitePermissionSchema } from '../../schemas/permission';
import { toUser } from '../../schemas/user';
import { SHAREABLE } from '../../services/access/grants';
import { authorizeSite, siteRankQuery } from '../../services/sites/access';
import { originOf, siteAccessPage } from '../../services/sites/permissions';
import { SiteParams } from './params';
import { sharingHandlers, withSharingHandlers } from '../shared/sharing-handlers';
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

const handlers = sharingHandlers<{ organizationId: string; siteId: string }, { rank: number | null }>({
  grants: GRANTS,
  idOf: (params) => params.siteId,
  orgOf: (params) => params.organizationId,
  read: (db, params, callerId) => siteRankQuery(db, params.organizationId, params.siteId, callerId),
  check: (rows, needed, params) => {
    authorizeSite(rows[0]?.rank, needed);
    return params.organizationId;
  },
  removal: 'resetWhenRemoved',
});

export const sitePermissionsRouter = withSharingHandlers(createRouter(), routes, handlers)
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
