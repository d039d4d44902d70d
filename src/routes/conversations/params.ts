import { z } from '@hono/zod-openapi';
import { IdSchema } from '../../schemas/common';

// What the conversation routers share: a module of their own, so that a request for clusters or issues does not
// evaluate the conversations router (each is a route group loaded alone: src/cli/module-graph.mjs).

export const tags = ['Conversations'];
export const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
