import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ListQuerySchema, pageInMemory } from '../../lib/pagination';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf } from '../../schemas/common';
import {
  ExpressionSchema,
  IconSchema,
  SiteSectionDescriptionSchema,
  SiteSectionPathSchema,
  SiteSectionSchema,
  SiteSectionTitleSchema,
} from '../../schemas/site';
import { changeSite, changeSiteWithSpace, loadSiteAsReader, visitorCredentials } from '../../services/sites/access';
import { normalizeCondition } from '../../services/sites/conditions';
import { sectionsInOrder } from '../../services/sites/model';
import { publishedFilter, SHOW_ALL, siteUrlContext, toSiteSection } from '../../services/sites/present';
import {
  addSection,
  deleteSection,
  findSection,
  makeDefaultSiteSpace,
  moveSection,
  referencedSiteSpace,
  setSectionGroup,
  setSectionPath,
} from '../../services/sites/structure';
import { SiteParams, VisitorQuery } from './params';

const tags = ['Site sections'];
const SectionParams = SiteParams.extend({ siteSectionId: IdSchema('siteSectionId') });
const SectionPointerSchema = z.object({ type: z.literal('site-section'), siteSection: z.string().min(1).max(128) });

const listSectionsRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/sections', () => ({
  operationId: 'listSiteSections',
  visitors: true,
  tokens: { scope: 'site:metadata:read' },
  tags,
  summary: "List a site's sections (visitors too, with the site's credentials)",
  request: { params: SiteParams, query: ListQuerySchema.merge(VisitorQuery) },
  responses: { 200: jsonResponse(listOf(SiteSectionSchema, 'SiteSections'), 'The sections in reading order') },
}));

const addSectionRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/sections', () => ({
  operationId: 'addSectionToSite',
  tags,
  summary: 'Add a section to a site, with a space as its first site space (admins)',
  request: {
    params: SiteParams,
    ...jsonBody(
      z.object({
        spaceId: z.string().min(1).max(128),
        title: SiteSectionTitleSchema.optional().openapi({ description: "The space's title when omitted" }),
        icon: IconSchema.nullable().optional(),
        siteSectionGroupId: z.string().min(1).max(128).optional().openapi({ description: 'Create the section in this group' }),
      }),
    ),
  },
  responses: { 201: jsonResponse(SiteSectionSchema, 'The section') },
}));

const deleteSectionRoute = defineRoute('delete', '/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', () => ({
  operationId: 'deleteSiteSectionById',
  tags,
  summary: 'Delete a section and its site spaces (admins)',
  request: { params: SectionParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

const updateSectionRoute = defineRoute('patch', '/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', () => ({
  operationId: 'updateSiteSectionById',
  tags,
  summary: 'Change a section (admins)',
  request: {
    params: SectionParams,
    ...jsonBody(
      z.object({
        title: SiteSectionTitleSchema.optional(),
        path: SiteSectionPathSchema.optional(),
        defaultSiteSpace: z.string().min(1).max(128).optional(),
        condition: ExpressionSchema.nullable().optional().openapi({ description: 'Omitted: unchanged; null: removed' }),
        icon: IconSchema.nullable().optional(),
        description: SiteSectionDescriptionSchema.nullable().optional(),
        siteSectionGroupId: z.string().min(1).max(128).nullable().optional().openapi({ description: 'Move into this group; null: to the root' }),
      }),
    ),
  },
  responses: { 200: jsonResponse(SiteSectionSchema, 'The section') },
}));

const moveSectionRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move', () => ({
  operationId: 'moveSiteSection',
  tags,
  summary: 'Move a section among its siblings (admins)',
  request: {
    params: SectionParams,
    ...jsonBody(
      z.object({
        position: z
          .object({ before: SectionPointerSchema.optional(), after: SectionPointerSchema.optional() })
          .refine((p) => !(p.before && p.after), { message: 'give either before or after, not both' })
          .optional()
          .openapi({ description: 'Omitted: to the end' }),
      }),
    ),
  },
  responses: { 200: jsonResponse(SiteSectionSchema, 'The section') },
}));

export const siteSectionsRouter = createRouter()
  .openapi(listSectionsRoute, async (c) => {
    const { organizationId, siteId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { model, reader, shareKey } = await loadSiteAsReader(c, organizationId, siteId, visitorCredentials(c, query.shareKey));
    const filter = reader.kind === 'member' ? SHOW_ALL : publishedFilter(reader, false);
    const urls = siteUrlContext(c, shareKey);
    const sections = sectionsInOrder(model)
      .filter(filter.section)
      .map((row) => toSiteSection(model, row, urls, filter))
      .filter((section) => filter.keepEmpty || section.siteSpaces.length > 0);
    return c.json(pageInMemory(sections, query, (s) => s.id), 200);
  })
  .openapi(addSectionRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const body = c.req.valid('json');
    const { model, result } = await changeSiteWithSpace(c.get('db'), organizationId, siteId, userId, body.spaceId, (after) =>
      addSection(after, { spaceId: body.spaceId, title: body.title, icon: body.icon, groupId: body.siteSectionGroupId }),
    );
    return c.json(toSiteSection(model, result, siteUrlContext(c)), 201);
  })
  .openapi(deleteSectionRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSectionId } = c.req.valid('param');
    await changeSite(c.get('db'), organizationId, siteId, userId, (after) => deleteSection(after, siteSectionId));
    return c.body(null, 204);
  })
  .openapi(updateSectionRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSectionId } = c.req.valid('param');
    const body = c.req.valid('json');
    const condition = body.condition === undefined ? undefined : normalizeCondition(body.condition, 'condition');
    const { model, result } = await changeSite(c.get('db'), organizationId, siteId, userId, (after) => {
      const section = findSection(after, siteSectionId);
      if (body.title !== undefined) section.title = body.title;
      if (body.path !== undefined) setSectionPath(after, section, body.path);
      if (condition !== undefined) section.condition = condition;
      if (body.icon !== undefined) section.icon = body.icon;
      if (body.description !== undefined) section.description = body.description;
      if (body.siteSectionGroupId !== undefined) setSectionGroup(after, section, body.siteSectionGroupId);
      if (body.defaultSiteSpace !== undefined) {
        makeDefaultSiteSpace(after, referencedSiteSpace(after, body.defaultSiteSpace, 'defaultSiteSpace'), section.id);
      }
      return section;
    });
    return c.json(toSiteSection(model, result, siteUrlContext(c)), 200);
  })
  .openapi(moveSectionRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSectionId } = c.req.valid('param');
    const { position } = c.req.valid('json');
    const { model, result } = await changeSite(c.get('db'), organizationId, siteId, userId, (after) => {
      const section = findSection(after, siteSectionId);
      moveSection(after, section, position);
      return section;
    });
    return c.json(toSiteSection(model, result, siteUrlContext(c)), 200);
  });
