import { z } from '@hono/zod-openapi';
import { and, count, eq } from 'drizzle-orm';
import { openapiSpecs } from '../../db/schema';
import { ErrorSchema, createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { badRequest } from '../../lib/errors';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { listOf } from '../../schemas/common';
import { OpenAPISpecSchema, OpenAPISpecSlugSchema, OpenAPISpecSourceSchema, OpenAPISpecVisibilitySchema } from '../../schemas/openapi-spec';
import { specUrlContext, toOpenAPISpec, type SpecRow } from '../../services/openapi/presenter';
import { SlugTaken, createSpec, deleteSpec, loadSpecs, putSpec, setSpecVisibility, specAccess, specNotFound } from '../../services/openapi/records';
import { OPENAPI_SPEC_SLUG_PATTERN } from '../../lib/openapi-specs';
import { OrgParams, SpecParams } from './params';

const tags = ['OpenAPI specs'];

const listSpecsRoute = defineRoute('get', '/orgs/{organizationId}/openapi', () => ({
  operationId: 'listOpenAPISpecs',
  tokens: { scope: 'openapi:read' },
  tags,
  summary: "List the organization's OpenAPI specs",
  request: { params: OrgParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(OpenAPISpecSchema, 'OpenAPISpecs'), 'The specs, oldest first') },
}));

const createSpecRoute = defineRoute('post', '/orgs/{organizationId}/openapi', () => ({
  operationId: 'createOpenAPISpec',
  tokens: { scope: 'openapi:write' },
  tags,
  summary: 'Create an OpenAPI spec from a URL or a text; it is processed in the background (createOpenAPISpec permission)',
  request: {
    params: OrgParams,
    ...jsonBody(z.object({ slug: OpenAPISpecSlugSchema, source: OpenAPISpecSourceSchema })),
  },
  responses: {
    201: jsonResponse(OpenAPISpecSchema, 'The spec, processing pending'),
    409: jsonResponse(ErrorSchema, 'The organization already has a spec with this slug'),
  },
}));

const getSpecRoute = defineRoute('get', '/orgs/{organizationId}/openapi/{specSlug}', () => ({
  operationId: 'getOpenAPISpecBySlug',
  tokens: { scope: 'openapi:read' },
  tags,
  summary: 'Get an OpenAPI spec by its slug',
  request: { params: SpecParams },
  responses: { 200: jsonResponse(OpenAPISpecSchema, 'The spec') },
}));

const putSpecRoute = defineRoute('put', '/orgs/{organizationId}/openapi/{specSlug}', () => ({
  operationId: 'createOrUpdateOpenAPISpecBySlug',
  tokens: { scope: 'openapi:write' },
  tags,
  summary: "Create an OpenAPI spec of this slug, or replace its source; either way it is processed again (createOpenAPISpec permission)",
  request: { params: SpecParams, ...jsonBody(z.object({ source: OpenAPISpecSourceSchema })) },
  responses: {
    200: jsonResponse(OpenAPISpecSchema, 'The spec was updated, processing pending'),
    201: jsonResponse(OpenAPISpecSchema, 'The spec was created, processing pending'),
  },
}));

const updateSpecRoute = defineRoute('patch', '/orgs/{organizationId}/openapi/{specSlug}', () => ({
  operationId: 'updateOpenAPISpecBySlug',
  tokens: { scope: 'openapi:write' },
  tags,
  summary: "Change an OpenAPI spec's visibility (createOpenAPISpec permission)",
  request: { params: SpecParams, ...jsonBody(z.object({ visibility: OpenAPISpecVisibilitySchema })) },
  responses: { 200: jsonResponse(OpenAPISpecSchema, 'The spec') },
}));

const deleteSpecRoute = defineRoute('delete', '/orgs/{organizationId}/openapi/{specSlug}', () => ({
  operationId: 'deleteOpenAPISpecBySlug',
  tokens: { scope: 'openapi:write' },
  tags,
  summary: 'Delete an OpenAPI spec with its versions (createOpenAPISpec permission)',
  request: { params: SpecParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

const present = (row: SpecRow, rank: number, c: Parameters<typeof specUrlContext>[0]) => toOpenAPISpec(row, specAccess(rank), specUrlContext(c));

export const openapiSpecsRouter = createRouter()
  .openapi(listSpecsRoute, async (c) => {
    const { organizationId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const ofOrg = eq(openapiSpecs.orgId, organizationId);
    const {
      rank,
      extra: [rows, [{ total }]],
    } = await loadSpecs<[SpecRow[], { total: number }[]]>(c, organizationId, null, RANK.read, [
      db
        .select()
        .from(openapiSpecs)
        .where(and(ofOrg, afterCursor(cursor, openapiSpecs.createdAt, openapiSpecs.id)))
        .orderBy(...keysetOrder(openapiSpecs.createdAt, openapiSpecs.id))
        .limit(limit + 1),
      db.select({ total: count() }).from(openapiSpecs).where(ofOrg),
    ]);
    const urls = specUrlContext(c);
    const access = specAccess(rank);
    return c.json(toPage(rows, limit, total, (row) => [row.createdAt, row.id], (row) => toOpenAPISpec(row, access, urls)), 200);
  })
  .openapi(createSpecRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const { slug, source } = c.req.valid('json');
    // The slug is read with the caller's role: a taken one is refused before a text is stored. A create racing
    // for it is refused by the unique index (createSpec).
    const { rank, spec } = await loadSpecs(c, organizationId, slug, RANK.create);
    if (spec) throw new SlugTaken(slug);
    const row = await createSpec(c.env, c.get('db'), { orgId: organizationId, slug, source, userId });
    return c.json(present(row, rank, c), 201);
  })
  .openapi(getSpecRoute, async (c) => {
    const { organizationId, specSlug } = c.req.valid('param');
    const { rank, spec } = await loadSpecs(c, organizationId, specSlug, RANK.read);
    if (!spec) throw specNotFound();
    return c.json(present(spec, rank, c), 200);
  })
  .openapi(putSpecRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, specSlug } = c.req.valid('param');
    const { source } = c.req.valid('json');
    const { rank, spec } = await loadSpecs(c, organizationId, specSlug, RANK.create);
    // The path names the spec it creates: its slug must be one (an existing spec's always is).
    if (!spec && !OPENAPI_SPEC_SLUG_PATTERN.test(specSlug)) {
      throw badRequest('specSlug: must be letters and digits in groups joined by single hyphens (pattern ^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$)');
    }
    const { row, created } = await putSpec(c.env, c.get('db'), spec, { orgId: organizationId, slug: specSlug, source, userId });
    return created ? c.json(present(row, rank, c), 201) : c.json(present(row, rank, c), 200);
  })
  .openapi(updateSpecRoute, async (c) => {
    const { organizationId, specSlug } = c.req.valid('param');
    const { visibility } = c.req.valid('json');
    const { rank, spec } = await loadSpecs(c, organizationId, specSlug, RANK.create);
    const row = spec && (await setSpecVisibility(c.get('db'), spec, visibility));
    if (!row) throw specNotFound();
    return c.json(present(row, rank, c), 200);
  })
  .openapi(deleteSpecRoute, async (c) => {
    const { organizationId, specSlug } = c.req.valid('param');
    // The role first: a member who may not delete specs is refused whether or not the spec exists.
    const { spec } = await loadSpecs(c, organizationId, specSlug, RANK.create);
    if (spec) await deleteSpec(c.env, c.get('db'), spec.id);
    return c.body(null, 204);
  });
