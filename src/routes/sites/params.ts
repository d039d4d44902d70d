import { z } from '@hono/zod-openapi';
import { IdSchema } from '../../schemas/common';

// The parameters the routers of src/routes/sites share: a module of their own, so that a request for one router's
// routes does not evaluate the sites router (each is a route group loaded alone: src/cli/module-graph.mjs).

export const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
export const SiteParams = OrgParams.extend({ siteId: IdSchema('siteId') });
export const ShareKeyQuery = z.object({
  shareKey: z.string().max(200).optional().openapi({ description: 'For share-link sites: the key that opens them (and goes into published URLs)' }),
});
/** The credentials of the reads a published site's visitors make without an API token. */
export const VisitorQuery = ShareKeyQuery.extend({
  jwt_token: z.string().max(8192).optional().openapi({ description: 'For visitor-auth sites: a visitor JWT (also accepted as the X-Visitor-Token header)' }),
});
