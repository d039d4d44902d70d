import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { apiOriginOf } from '../../schemas/integration';
import { SiteIntegrationScriptSchema } from '../../schemas/site-integration-script';
import { siteScriptRows, siteScriptsQuery, toSiteIntegrationScript } from '../../services/integrations/site-scripts';
import { loadSiteAsMember } from '../../services/sites/access';
import { siteUrlContext } from '../../services/sites/present';
import { SiteParams } from './params';

const listSiteIntegrationScriptsRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/integration-scripts', () => ({
  operationId: 'listSiteIntegrationScripts',
  tags: ['Docs sites'],
  summary: "List custom scripts injected into a site's published pages",
  description:
    "The scripts of the integrations installed on the site that asked for `site:script:inject` and whose installing organization approved it, while the site is published (an unpublished site has none). `cookies` is true when `site:script:cookies` is approved too. Members of the site's organization (read and above); anyone else reads the site as not found.",
  request: { params: SiteParams },
  responses: { 200: jsonResponse(z.array(SiteIntegrationScriptSchema), 'The scripts') },
}));

export const siteIntegrationScriptsRouter = createRouter().openapi(listSiteIntegrationScriptsRoute, async (c) => {
  const userId = requireUser(c);
  const { organizationId, siteId } = c.req.valid('param');
  const db = c.get('db');
  const { extra } = await loadSiteAsMember<[unknown]>(db, organizationId, siteId, userId, RANK.read, [siteScriptsQuery(db, siteId)]);
  const origin = apiOriginOf(siteUrlContext(c));
  return c.json(siteScriptRows(extra[0]).map((row) => toSiteIntegrationScript(origin, row)), 200);
});
