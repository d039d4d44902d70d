import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { jsonDepth } from '../../lib/json-depth';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { TimestampSchema } from '../../schemas/common';
import { changeSiteRow, loadSiteAsMember } from '../../services/sites/access';
import { templateConditions, validateAdaptiveSchema, type AdaptiveJsonSchema } from '../../services/sites/adaptive-schema';
import { SiteParams } from './params';

const tags = ['Docs sites'];

const AdaptiveJsonSchemaSchema = z
  .record(z.string(), z.unknown())
  .openapi('SiteAdaptiveJSONSchema', {
    description:
      'A JSON Schema draft-07 object of the visitor claims: boolean properties, and an `unsigned` object of boolean claims; `additionalProperties: false`',
  });

const AdaptiveSchemaSchema = z
  .object({ object: z.literal('site-adaptive-schema'), jsonSchema: AdaptiveJsonSchemaSchema, updatedAt: TimestampSchema })
  .openapi('SiteAdaptiveSchema');

const TemplateConditionSchema = z.object({ description: z.string(), condition: z.string() }).openapi('SiteAdaptiveTemplateCondition');

const getAdaptiveSchemaRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/adaptive-schema', () => ({
  operationId: 'getSiteAdaptiveSchema',
  tokens: { scope: 'site:adaptive:read' },
  tags,
  summary: "The schema of a site's visitor claims (adaptive content)",
  request: { params: SiteParams },
  responses: { 200: jsonResponse(AdaptiveSchemaSchema, 'The adaptive schema') },
}));

const updateAdaptiveSchemaRoute = defineRoute('put', '/orgs/{organizationId}/sites/{siteId}/adaptive-schema', () => ({
  operationId: 'updateSiteAdaptiveSchema',
  tags,
  summary: "Set the schema of a site's visitor claims (admins)",
  request: { params: SiteParams, ...jsonBody(z.object({ jsonSchema: AdaptiveJsonSchemaSchema })) },
  responses: { 200: jsonResponse(AdaptiveSchemaSchema, 'The adaptive schema') },
}));

const listTemplateConditionsRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions', () => ({
  operationId: 'listSiteAdaptiveTemplateConditions',
  tokens: { scope: 'site:adaptive:read' },
  tags,
  summary: "Conditions suggested by the adaptive schema's claims",
  request: { params: SiteParams },
  responses: { 200: jsonResponse(z.object({ items: z.array(TemplateConditionSchema) }), 'The suggested conditions') },
}));

const toAdaptiveSchema = (jsonSchema: Record<string, unknown>, updatedAt: string) => ({
  object: 'site-adaptive-schema' as const,
  jsonSchema,
  updatedAt,
});

export const siteAdaptiveRouter = createRouter()
  .openapi(getAdaptiveSchemaRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { site } = (await loadSiteAsMember(c.get('db'), organizationId, siteId, userId, RANK.read)).model;
    if (!site.adaptiveSchema || !site.adaptiveSchemaUpdatedAt) throw new ApiError(404, 'This site has no visitor attributes schema yet');
    return c.json(toAdaptiveSchema(site.adaptiveSchema, site.adaptiveSchemaUpdatedAt), 200);
  })
  .openapi(updateAdaptiveSchemaRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { jsonSchema } = c.req.valid('json');
    if (jsonDepth(jsonSchema, 32) > 32) throw badRequest('jsonSchema: nested too deeply');
    const schema = validateAdaptiveSchema(jsonSchema, 'jsonSchema');
    const stored = schema as unknown as Record<string, unknown>;
    const site = await changeSiteRow(c.get('db'), organizationId, siteId, userId, (now) => ({ adaptiveSchema: stored, adaptiveSchemaUpdatedAt: now }));
    return c.json(toAdaptiveSchema(stored, site.adaptiveSchemaUpdatedAt!), 200);
  })
  .openapi(listTemplateConditionsRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { site } = (await loadSiteAsMember(c.get('db'), organizationId, siteId, userId, RANK.read)).model;
    const items = site.adaptiveSchema ? templateConditions(site.adaptiveSchema as unknown as AdaptiveJsonSchema) : [];
    return c.json({ items }, 200);
  });
