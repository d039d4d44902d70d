import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { SQL } from 'drizzle-orm';
import { runBatch, type BatchItem } from '../../db/client';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { textFilterQuery } from '../../lib/text-filter';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { IntegrationSchema } from '../../schemas/integration';
import { enabledOn, joinOwners, listIntegrationsQueries, presentIntegrations, publicOrOwnedBy, type IntegrationFilters } from '../../services/integrations/registry';
import { checkOrganizationRole, organizationQuery } from '../../services/organizations/organizations';
import { authorizeSite, siteRankQuery } from '../../services/sites/access';
import { checkSpace } from '../../services/spaces/spaces';
import { selectSpaceWithRank } from '../../services/spaces/spaces';
import { ListIntegrationsQuery } from './params';
import { OrgParams, SiteParams } from '../sites/params';

/**
 * The integrations an organization may install (listOrganizationIntegrations), and those enabled on one
 * space or site (listSpaceIntegrations, listSiteIntegrations): GitBook's `Integration` lists, read in one
 * round trip with the caller's access check.
 */

const tags = ['Integrations'];
const IntegrationsList = listOf(IntegrationSchema, 'Integrations');
const EnabledQuery = ListQuerySchema.extend({ search: textFilterQuery('Only integrations whose title or name contains this (any case)') });

const listOrganizationIntegrationsRoute = defineRoute('get', '/orgs/{organizationId}/integrations', () => ({
  operationId: 'listOrganizationIntegrations',
  tags,
  summary: 'List the integrations available to an organization: every public one, and every one it publishes (its members)',
  request: { params: OrgParams, query: ListIntegrationsQuery },
  responses: { 200: jsonResponse(IntegrationsList, 'Paginated list of integrations') },
}));

const listSpaceIntegrationsRoute = defineRoute('get', '/spaces/{spaceId}/integrations', () => ({
  operationId: 'listSpaceIntegrations',
  tags,
  summary: "List the integrations enabled on a space: installed by its organization on it, or on all its spaces, and not paused there (the space's readers)",
  request: { params: z.object({ spaceId: IdSchema('spaceId') }), query: EnabledQuery },
  responses: { 200: jsonResponse(IntegrationsList, 'Integrations enabled on the space') },
}));

const listSiteIntegrationsRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/integrations', () => ({
  operationId: 'listSiteIntegrations',
  tags,
  summary: "List the integrations enabled on a site: installed by its organization on it, or on all its sites, and not paused there (the site's readers)",
  request: { params: SiteParams, query: EnabledQuery },
  responses: { 200: jsonResponse(IntegrationsList, 'Integrations enabled on the site') },
}));

/** One batch: the access check's statement first, then the page, its owners and the total; the check runs on the answer. */
async function listPage(
  c: Context<AppBindings>,
  access: BatchItem,
  check: (rows: unknown) => void,
  query: IntegrationFilters & { page?: string; limit?: number },
  listed: SQL,
) {
  const actor = c.get('actor');
  const { cursor, limit } = pageParams(query);
  const db = c.get('db');
  const [rowsQuery, ownersQuery, totalQuery] = listIntegrationsQueries(db, actor, query, cursor, limit, listed);
  const [accessRows, rows, owners, totals] = (await runBatch(db, [access, rowsQuery, ownersQuery, totalQuery])) as [
    unknown,
    Awaited<typeof rowsQuery>,
    Awaited<typeof ownersQuery>,
    Awaited<typeof totalQuery>,
  ];
  const total = totals[0].total;
  check(accessRows);
  const page = toPage(joinOwners(rows, owners), limit, total, (r) => [r.integration.name, r.integration.id], (r) => r);
  const items = await presentIntegrations(c.env, new URL(c.req.url).origin, urlContext(c.req.url, c.env.APP_URL), actor, page.items);
  return { ...page, items };
}

export const enabledIntegrationsRouter = createRouter()
  .openapi(listOrganizationIntegrationsRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const db = c.get('db');
    // Every member, guests included (as listIntegrations shows them their organizations' integrations).
    const check = (rows: unknown) => checkOrganizationRole(rows as Parameters<typeof checkOrganizationRole>[0], RANK.guest);
    const body = await listPage(c, organizationQuery(db, organizationId, userId), check, c.req.valid('query'), publicOrOwnedBy(organizationId));
    return c.json(body, 200);
  })
  .openapi(listSpaceIntegrationsRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const db = c.get('db');
    const check = (rows: unknown) => checkSpace(rows as Parameters<typeof checkSpace>[0], RANK.read);
    const body = await listPage(c, selectSpaceWithRank(db, spaceId, userId), check, c.req.valid('query'), enabledOn('space', spaceId));
    return c.json(body, 200);
  })
  .openapi(listSiteIntegrationsRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const db = c.get('db');
    const check = (rows: unknown) => authorizeSite((rows as { rank: number | null }[])[0]?.rank, RANK.read);
    const body = await listPage(c, siteRankQuery(db, organizationId, siteId, userId), check, c.req.valid('query'), enabledOn('site', siteId));
    return c.json(body, 200);
  });
