import { createMiddleware } from 'hono/factory';
import type { AppBindings } from '../env';
import { ApiError } from '../lib/errors';
import type { TokenAccess } from '../lib/integration-scopes';
import { SITE_TOKEN_REFUSED } from '../services/sites/site-token';

const refusedEverywhere = 'Integration tokens may call only the integration routes that admit them';

/**
 * Runs before each route's handler (defineRoute adds it): user, operator and visitor callers pass;
 * an integration token passes only where the route admits it, an installation token only with the
 * route's scope and only within its organization and the sites and spaces it covers (what it cannot
 * reach reads as not found). The roles behind the scopes are checked by the handler as for anyone.
 * A site token passes only where the route admits it (`siteToken`), and only on its own organization, site
 * and spaces (anything else reads as not found); the handler reads as the visitor it stands for.
 */
export function tokenAccess(access: TokenAccess, siteToken = false) {
  return createMiddleware<AppBindings>(async (c, next) => {
    const actor = c.get('actor');
    if (actor.kind === 'site') {
      if (!siteToken) throw new ApiError(403, SITE_TOKEN_REFUSED);
      const { organizationId, siteId, spaceId } = c.req.param() as Record<string, string | undefined>;
      const { token } = actor;
      if (organizationId !== undefined && organizationId !== token.organization) throw new ApiError(404, 'Organization not found');
      if (siteId !== undefined && siteId !== token.site) throw new ApiError(404, 'Site not found');
      if (spaceId !== undefined && !token.spaces.includes(spaceId)) throw new ApiError(404, 'Space not found');
    } else if (actor.kind === 'integration') {
      if (!access.integration) throw new ApiError(403, refusedEverywhere);
    } else if (actor.kind === 'installation') {
      const { scope } = access;
      if (!scope) throw new ApiError(403, 'Installation tokens may not call this operation');
      if (scope !== 'installation' && !actor.grant.scopes.includes(scope)) {
        throw new ApiError(403, `This operation needs the integration scope "${scope}"`);
      }
      const { organizationId, siteId, spaceId } = c.req.param() as Record<string, string | undefined>;
      const { grant } = actor;
      if (organizationId !== undefined && organizationId !== grant.orgId) throw new ApiError(404, 'Organization not found');
      if (siteId !== undefined && grant.sites !== 'all' && !grant.sites.includes(siteId)) throw new ApiError(404, 'Site not found');
      if (spaceId !== undefined && grant.spaces !== 'all' && !grant.spaces.includes(spaceId)) throw new ApiError(404, 'Space not found');
    }
    await next();
  });
}
