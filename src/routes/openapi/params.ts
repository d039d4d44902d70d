import { z } from '@hono/zod-openapi';
import { IdSchema } from '../../schemas/common';

// The parameters the OpenAPI spec routers share: a module of their own, so that a request for a spec's versions does
// not evaluate the specs router (each is a route group loaded alone: src/cli/module-graph.mjs).

export const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
export const SpecParams = OrgParams.extend({
  specSlug: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'specSlug', in: 'path' }, description: 'Slug of the OpenAPI specification' }),
});
