import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ListQuerySchema, pageInMemory } from '../../lib/pagination';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf } from '../../schemas/common';
import { ExpressionSchema, SiteSpacePathSchema, SiteSpaceSchema, SiteTitleSchema } from '../../schemas/site';
import { changeSite, changeSiteWithSpace, loadSiteAsReader, visitorCredentials } from '../../services/sites/access';
import { normalizeCondition } from '../../services/sites/conditions';
import { sectionsInOrder, siteSpacesIn, type SiteModel, type SiteSpaceRow } from '../../services/sites/model';
import { publishedFilter, SHOW_ALL, siteUrlContext, toSiteSpace, type StructureFilter } from '../../services/sites/present';
import { addSiteSpace, deleteSiteSpace, findSiteSpace, moveSiteSpace, setSiteSpacePath } from '../../services/sites/structure';
import { SiteParams, VisitorQuery } from './params';

const tags = ['Site spaces'];
const SiteSpaceParams = SiteParams.extend({ siteSpaceId: IdSchema('siteSpaceId') });
const SiteSpacePointerSchema = z.object({ type: z.literal('site-space'), siteSpace: z.string().min(1).max(128) });

const listSiteSpacesRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/site-spaces', () => ({
  operationId: 'listSiteSpaces',
  visitors: true,
  tokens: { scope: 'site:metadata:read' },
  tags,
  summary: "List a site's site spaces (visitors too, with the site's credentials)",
  request: {
    params: SiteParams,
    query: ListQuerySchema.merge(VisitorQuery).extend({
      default: z
        .enum(['true', 'false'])
        .optional()
        .transform((v) => (v === undefined ? undefined : v === 'true'))
        .openapi({ type: 'boolean', description: 'true: only default site spaces; false: only the others; omitted: all' }),
    }),
  },
  responses: { 200: jsonResponse(listOf(SiteSpaceSchema, 'SiteSpaces'), 'The site spaces in reading order') },
}));

const addSiteSpaceRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/site-spaces', () => ({
  operationId: 'addSpaceToSite',
  tags,
  summary: 'Publish a space in a site (admins)',
  request: {
    params: SiteParams,
    ...jsonBody(
      z.object({
        spaceId: z.string().min(1).max(128),
        sectionId: z.string().min(1).max(128).optional().openapi({ description: "Omitted: the default section, or the site's root when it has no sections" }),
        title: SiteTitleSchema.optional().openapi({ description: "The site space's own title (the space's when omitted)" }),
      }),
    ),
  },
  responses: { 201: jsonResponse(SiteSpaceSchema, 'The site space') },
}));

const deleteSiteSpaceRoute = defineRoute('delete', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', () => ({
  operationId: 'deleteSiteSpaceById',
  tags,
  summary: 'Remove a site space from its site (admins; the space itself stays)',
  request: { params: SiteSpaceParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

const updateSiteSpaceRoute = defineRoute('patch', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', () => ({
  operationId: 'updateSiteSpaceById',
  tags,
  summary: 'Change a site space (admins)',
  request: {
    params: SiteSpaceParams,
    ...jsonBody(
      z.object({
        path: SiteSpacePathSchema.optional(),
        condition: ExpressionSchema.nullable().optional().openapi({ description: 'Omitted: unchanged; null: removed' }),
        spaceId: z.string().min(1).max(128).optional().openapi({ description: 'The space it publishes' }),
        hidden: z.boolean().optional().openapi({ description: 'true: left out of the navigation' }),
        title: SiteTitleSchema.nullable().optional().openapi({ description: "null: the space's title" }),
      }),
    ),
  },
  responses: { 200: jsonResponse(SiteSpaceSchema, 'The site space') },
}));

const moveSiteSpaceRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move', () => ({
  operationId: 'moveSiteSpace',
  tags,
  summary: 'Move a site space among the site spaces of its section (admins)',
  request: {
    params: SiteSpaceParams,
    ...jsonBody(
      z.object({
        position: z
          .object({ before: SiteSpacePointerSchema.optional(), after: SiteSpacePointerSchema.optional() })
          .refine((p) => !(p.before && p.after), { message: 'give either before or after, not both' })
          .optional()
          .openapi({ description: 'Omitted: to the end' }),
      }),
    ),
  },
  responses: { 200: jsonResponse(SiteSpaceSchema, 'The site space') },
}));

/** Every site space in reading order (section by section), as the filter lets the reader see them. */
function siteSpacesInOrder(model: SiteModel, filter: StructureFilter): SiteSpaceRow[] {
  if (model.sections.length === 0) return siteSpacesIn(model, null).filter(filter.siteSpace);
  return sectionsInOrder(model)
    .filter(filter.section)
    .flatMap((section) => siteSpacesIn(model, section.id).filter(filter.siteSpace));
}

export const siteSpacesRouter = createRouter()
  .openapi(listSiteSpacesRoute, async (c) => {
    const { organizationId, siteId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { model, reader, shareKey } = await loadSiteAsReader(c, organizationId, siteId, visitorCredentials(c, query.shareKey));
    const filter = reader.kind === 'member' ? SHOW_ALL : publishedFilter(reader, false);
    const urls = siteUrlContext(c, shareKey);
    const rows = siteSpacesInOrder(model, filter).filter((row) => query.default === undefined || row.isDefault === query.default);
    return c.json(pageInMemory(rows.map((row) => toSiteSpace(model, row, urls)), query, (s) => s.id), 200);
  })
  .openapi(addSiteSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const body = c.req.valid('json');
    const { model, result } = await changeSiteWithSpace(c.get('db'), organizationId, siteId, userId, body.spaceId, (after) => {
      const row = addSiteSpace(after, body.spaceId, body.sectionId);
      if (body.title !== undefined) row.title = body.title;
      return row;
    });
    return c.json(toSiteSpace(model, result, siteUrlContext(c)), 201);
  })
  .openapi(deleteSiteSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSpaceId } = c.req.valid('param');
    await changeSite(c.get('db'), organizationId, siteId, userId, (after) => deleteSiteSpace(after, siteSpaceId));
    return c.body(null, 204);
  })
  .openapi(updateSiteSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSpaceId } = c.req.valid('param');
    const body = c.req.valid('json');
    const condition = body.condition === undefined ? undefined : normalizeCondition(body.condition, 'condition');
    const { model, result } = await changeSiteWithSpace(c.get('db'), organizationId, siteId, userId, body.spaceId, (after) => {
      const row = findSiteSpace(after, siteSpaceId);
      if (body.spaceId !== undefined) row.spaceId = body.spaceId;
      if (body.path !== undefined) setSiteSpacePath(after, row, body.path);
      if (condition !== undefined) row.condition = condition;
      if (body.hidden !== undefined) row.hidden = body.hidden;
      if (body.title !== undefined) row.title = body.title;
      return row;
    });
    return c.json(toSiteSpace(model, result, siteUrlContext(c)), 200);
  })
  .openapi(moveSiteSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSpaceId } = c.req.valid('param');
    const { position } = c.req.valid('json');
    const { model, result } = await changeSite(c.get('db'), organizationId, siteId, userId, (after) => {
      const row = findSiteSpace(after, siteSpaceId);
      moveSiteSpace(after, row, position);
      return row;
    });
    return c.json(toSiteSpace(model, result, siteUrlContext(c)), 200);
  });
