import { z } from '@hono/zod-openapi';
import { ListQuerySchema } from '../../lib/pagination';
import { textFilterQuery } from '../../lib/text-filter';
import { IdSchema } from '../../schemas/common';
import { INTEGRATION_NAME_PATTERN, IntegrationCategorySchema, IntegrationScopeSchema, IntegrationTargetSchema } from '../../schemas/integration';

// Parameters several integration route groups validate with: in a module of their own, so that no group's first request
// evaluates another group's router module (src/cli/module-graph.mjs, build-worker.mjs KNOWN_NOT_APART).

export const IntegrationParams = z.object({ integrationName: IdSchema('integrationName') });
export const InstallationParams = IntegrationParams.extend({ installationId: IdSchema('installationId') });
export const ExternalIdQuery = z.object({
  externalId: z.string().min(1).max(200).optional().openapi({ description: 'Only those with this external id' }),
});

/** `true` / `false`, or absent (no filter). */
const optionalBoolean = (description: string) =>
  z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true'))
    .openapi({ type: 'boolean', description });

/** The filters of GitBook's integration lists (listIntegrations, listOrganizationIntegrations). */
export const ListIntegrationsQuery = ListQuerySchema.extend({
  search: textFilterQuery('Only integrations whose title or name contains this (any case)'),
  category: IntegrationCategorySchema.optional().openapi({ description: 'Only integrations listed in this category' }),
  blockDomain: z
      .string()
      .max(100)
      .regex(INTEGRATION_NAME_PATTERN, 'must contain only letters, digits, "-", "_" and "."')
      .optional()
      .openapi({ description: "Only integrations with a block whose urlUnfurl patterns contain this domain (any case)" }),
  blocks: optionalBoolean('true: only integrations with blocks; false: only those without'),
  contentSources: optionalBoolean('true: only integrations with content sources; false: only those without'),
  owner: z.string().min(1).max(128).optional().openapi({ description: 'Only integrations published by this organization (id)' }),
  scope: IntegrationScopeSchema.optional().openapi({ description: 'Only integrations asking for this scope' }),
  target: IntegrationTargetSchema.optional().openapi({
      description: 'Only integrations installable on this target: of this target, or of target `all` (which installs everywhere)',
    }),
  });
