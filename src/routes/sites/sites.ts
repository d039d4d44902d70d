import { z } from '@hono/zod-openapi';
import { and, count, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { runBatch } from '../../db/client';
import { organizations, sites, siteSpaces } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ListQuerySchema, afterCursor, keysetOrder, listCount, pageParams, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { containsText, startsWithText, textFilterQuery } from '../../lib/text-filter';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf } from '../../schemas/common';
import {
  AgentsContextSchema,
  SiteBasenameSchema,
  SiteProxyOriginSchema,
  SiteSchema,
  SiteStructureSchema,
  SiteTitleSchema,
  SiteTypeSchema,
  SiteVisibilitySchema,
} from '../../schemas/site';
import { isUniqueViolation, organizationQuery } from '../../services/organizations/organizations';
import { siteRoleSql } from '../../services/access/access';
import { changeSite, loadSiteAsMember } from '../../services/sites/access';
import { orgRankQuery } from '../../services/organizations/organizations';
import { basenameTaken, spacesAmongQuery, uniquePath, SITE_LIMITS, type SiteModel, type SiteRow } from '../../services/sites/model';
import { modelSite, siteUrlContext, toSite, toSiteStructure } from '../../services/sites/present';
import { addSiteSpace, makeDefaultSection, makeDefaultSiteSpace, referencedSection, referencedSiteSpace } from '../../services/sites/structure';
import { generateVisitorKey } from '../../services/sites/visitor-token';
import { placementRedirectStatements, placementsIn } from '../../services/git-sync/redirects';
import { OrgParams, ShareKeyQuery, SiteParams, VisitorQuery } from './params';

const tags = ['Docs sites'];
const listSitesRoute = defineRoute('get', '/orgs/{organizationId}/sites', () => ({
  operationId: 'listSites',
  tags,
  summary: 'List the docs sites of an organization',
  request: {
    params: OrgParams,
    query: ListQuerySchema.extend({
      space: z.string().max(128).optional().openapi({ description: 'Only the sites that publish this space' }),
      title: textFilterQuery('Only sites whose title contains this (case-insensitive)'),
      published: z
        .enum(['true', 'false'])
        .optional()
        .transform((v) => (v === undefined ? undefined : v === 'true'))
        .openapi({ type: 'boolean', description: 'Only published (true) or unpublished (false) sites' }),
      type: z
        .union([SiteTypeSchema, z.array(SiteTypeSchema).max(6)])
        .optional()
        .transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]))
        .openapi({ description: 'Only sites of these types (repeat the parameter for several)' }),
    }),
  },
  responses: { 200: jsonResponse(listOf(SiteSchema, 'Sites'), 'The sites') },
}));

const createSiteRoute = defineRoute('post', '/orgs/{organizationId}/sites', () => ({
  operationId: 'createSite',
  tags,
  summary: 'Create a docs site (admins)',
  request: {
    params: OrgParams,
    ...jsonBody(
      z.object({
        type: SiteTypeSchema.optional().openapi({ description: 'Defaults to basic' }),
        title: SiteTitleSchema.optional(),
        visibility: SiteVisibilitySchema.optional(),
        spaces: z.array(z.string().min(1).max(128)).max(SITE_LIMITS.siteSpaces).optional().openapi({ description: 'Spaces to publish as the site spaces' }),
      }),
    ),
  },
  responses: { 201: jsonResponse(SiteSchema, 'The site') },
}));

const getSiteRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}', () => ({
  operationId: 'getSiteById',
  tokens: { scope: 'site:metadata:read' },
  tags,
  summary: 'Get a docs site',
  request: { params: SiteParams },
  responses: { 200: jsonResponse(SiteSchema, 'The site') },
}));

const updateSiteRoute = defineRoute('patch', '/orgs/{organizationId}/sites/{siteId}', () => ({
  operationId: 'updateSiteById',
  tags,
  summary: 'Change a docs site (admins)',
  request: {
    params: SiteParams,
    ...jsonBody(
      z.object({
        title: SiteTitleSchema.optional(),
        visibility: SiteVisibilitySchema.optional(),
        basename: SiteBasenameSchema.optional(),
        adaptiveContent: z.object({ enabled: z.boolean() }).optional(),
        agentsContext: AgentsContextSchema.optional(),
        defaultSiteSpace: z.string().min(1).max(128).optional().openapi({ description: 'The site space used by default (in the default section when the site has sections)' }),
        defaultSiteSection: z.string().min(1).max(128).optional(),
        proxy: SiteProxyOriginSchema.nullable().optional().openapi({ description: 'Serve the site under a path of your domain; null removes it' }),
      }),
    ),
  },
  responses: { 200: jsonResponse(SiteSchema, 'The site') },
}));

const deleteSiteRoute = defineRoute('delete', '/orgs/{organizationId}/sites/{siteId}', () => ({
  operationId: 'deleteSiteById',
  tags,
  summary: 'Delete a docs site (admins)',
  request: { params: SiteParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

/**
 * Why an empty site cannot be published, and the one call that fixes it: GitBook's createSite takes `spaces`
 * optionally, so a site made without them is legal, and its owner needs to know how to give it content.
 */
function nothingToPublish(organizationId: string, siteId: string): string {
  return (
    `This site has no content to publish yet: add a space to it with POST /v1/orgs/${organizationId}/sites/${siteId}/site-spaces ` +
    `and the body {"spaceId":"<space id>"}, then publish again (or create the site with "spaces": ["<space id>"])`
  );
}

const publishSiteRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/publish', () => ({
  operationId: 'publishSite',
  tags,
  summary: 'Publish a docs site to the audience of its visibility (admins)',
  request: { params: SiteParams },
  responses: { 200: jsonResponse(SiteSchema, 'The published site') },
}));

const unpublishSiteRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/unpublish', () => ({
  operationId: 'unpublishSite',
  tags,
  summary: 'Take a docs site offline (admins)',
  request: { params: SiteParams },
  responses: { 200: jsonResponse(SiteSchema, 'The unpublished site') },
}));

const getSiteStructureRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/structure', () => ({
  operationId: 'getSiteStructure',
  tokens: { scope: 'site:metadata:read' },
  tags,
  summary: "A site's whole structure: its site spaces, or its sections and section groups",
  request: { params: SiteParams, query: ShareKeyQuery },
  responses: { 200: jsonResponse(SiteStructureSchema, 'The structure') },
}));

/** Sites are the organization's: guests (and outsiders) cannot see any, like the organization for outsiders. */
function requireSiteReader(rows: { rank: number | null }[]): number {
  const rank = rows[0]?.rank;
  if (!rank || rank < RANK.read) throw new ApiError(404, 'Organization not found');
  return rank;
}

function setPublished(model: SiteModel, published: boolean) {
  model.site.published = published;
  model.site.updatedAt = nowIso();
}

/** Applies the PATCH fields that touch the structure's defaults. */
function applyDefaults(model: SiteModel, body: { defaultSiteSpace?: string; defaultSiteSection?: string }) {
  if (body.defaultSiteSection !== undefined) {
    makeDefaultSection(model, referencedSection(model, body.defaultSiteSection, 'defaultSiteSection'));
  }
  if (body.defaultSiteSpace !== undefined) {
    const siteSpace = referencedSiteSpace(model, body.defaultSiteSpace, 'defaultSiteSpace');
    // With sections, the site's default site space is the one of its default section.
    const defaultSection = model.sections.find((s) => s.isDefault);
    makeDefaultSiteSpace(model, siteSpace, defaultSection?.id);
  }
}

export const sitesRouter = createRouter()
  .openapi(listSitesRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    // Members read every site of the organization; guests (users a site was shared with) only the sites shared
    // with them or their teams: siteRoleSql is their organization role or their grants, null outside it.
    const siteRank = siteRoleSql(userId);
    const filters: (SQL | undefined)[] = [eq(sites.orgId, organizationId), sql`${siteRank} >= ${RANK.read}`];
    if (query.title) filters.push(containsText(sites.title, query.title));
    if (query.published !== undefined) filters.push(eq(sites.published, query.published));
    if (query.type) filters.push(inArray(sites.type, query.type));
    if (query.space) filters.push(sql`exists (select 1 from site_spaces ss where ss.site_id = ${sites.id} and ss.space_id = ${query.space})`);
    const where = and(...filters);
    // Qualified by hand: in a single-table select, drizzle writes a column inside a selected `sql` unqualified,
    // and a bare "id" in this subquery would be the site space's own id.
    const siteSpaceCount = sql<number>`(select count(*) from site_spaces ss where ss.site_id = ${sql.identifier('sites')}.${sql.identifier('id')})`;
    const [role, rows] = await db.batch([
      organizationQuery(db, organizationId, userId),
      db
        .select({ site: sites, siteSpaces: siteSpaceCount, rank: sql<number>`${siteRank}`.as('rank') })
        .from(sites)
        .where(and(where, afterCursor(cursor, sites.createdAt, sites.id)))
        .orderBy(...keysetOrder(sites.createdAt, sites.id))
        .limit(limit + 1),
    ]);
    // Outsiders: 404. Guests pass here, their list holding only what is shared with them.
    if (role[0]?.rank === null || role[0]?.rank === undefined) throw new ApiError(404, 'Organization not found');
    // Counted over the organization only when the list is longer than a page (after the caller's check).
    const total = await listCount(rows, limit, cursor, undefined, async () => (await db.select({ total: count() }).from(sites).where(where))[0].total);
    const urls = siteUrlContext(c);
    // Each site with the caller's role on it: a grant may lift it above their organization role.
    return c.json(toPage(rows, limit, total, (r) => [r.site.createdAt, r.site.id], (r) => toSite(r.site, r.siteSpaces, r.rank, urls)), 200);
  })
  .openapi(createSiteRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const title = body.title ?? 'Docs site';
    const spaceIds = [...new Set(body.spaces ?? [])];
    const slug = uniquePath(title, [], 'docs');
    const [role, taken, found] = await db.batch([
      organizationQuery(db, organizationId, userId),
      db
        .select({ basename: sites.basename })
        .from(sites)
        // Without case, as PATCH compares basenames (the slug is lowercase).
        .where(and(eq(sites.orgId, organizationId), or(sql`lower(${sites.basename}) = ${slug}`, startsWithText(sites.basename, `${slug}-`)))),
      spacesAmongQuery(db, organizationId, spaceIds, userId),
    ]);
    if (requireSiteReader(role) < RANK.admin) throw new ApiError(403, 'Only organization admins can create sites');
    const missing = spaceIds.filter((id) => !found.some((f) => f.space.id === id));
    if (missing.length) throw badRequest(`spaces: ${missing.map((id) => `"${id}"`).join(', ')} are not spaces of this organization`);
    const now = nowIso();
    const site: SiteRow = {
      id: newId(),
      orgId: organizationId,
      type: body.type ?? 'basic',
      title,
      visibility: body.visibility ?? 'public',
      published: false,
      // The title's slug, numbered when the organization already has it.
      basename: uniquePath(title, taken.map((r) => r.basename), 'docs'),
      proxy: null,
      adaptiveContent: false,
      agentsContext: 'included',
      defaultLevel: null,
      customization: null,
      customizationUpdatedAt: null,
      adaptiveSchema: null,
      adaptiveSchemaUpdatedAt: null,
      authKey: generateVisitorKey(),
      authFallbackUrl: null,
      authLogoutUrl: null,
      structureVersion: 0,
      createdAt: now,
      updatedAt: now,
    };
    const model: SiteModel = { site, groups: [], sections: [], siteSpaces: [], spaces: new Map(found.map((f) => [f.space.id, f])) };
    for (const spaceId of spaceIds) addSiteSpace(model, spaceId, undefined);
    // Two creates racing for one basename: the unique index refuses the second.
    const placed = placementRedirectStatements(db, [], placementsIn(model), now);
    await runBatch(db, [db.insert(sites).values(model.site), ...model.siteSpaces.map((row) => db.insert(siteSpaces).values(row)), ...placed]).catch((error) => {
      throw isUniqueViolation(error, 'basename') ? basenameTaken(model.site.basename) : error;
    });
    const created = modelSite(model, RANK.admin, siteUrlContext(c));
    // GitBook's createSite answers the new site's API URL in Location too.
    c.header('Location', created.urls.location);
    return c.json(created, 201);
  })
  .openapi(getSiteRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { model, rank } = await loadSiteAsMember(c.get('db'), organizationId, siteId, userId, RANK.read);
    return c.json(modelSite(model, rank, siteUrlContext(c)), 200);
  })
  .openapi(updateSiteRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const basenameOwner = db
      .select({ id: sites.id })
      .from(sites)
      .where(and(eq(sites.orgId, organizationId), body.basename ? sql`lower(${sites.basename}) = lower(${body.basename})` : sql`0`));
    const { model, rank } = await changeSite<void, [{ id: string }[]]>(
      db,
      organizationId,
      siteId,
      userId,
      (after, [owners]) => {
        if (body.basename && owners.some((row) => row.id !== siteId)) throw basenameTaken(body.basename);
        Object.assign(after.site, {
          ...(body.title !== undefined && { title: body.title }),
          ...(body.visibility !== undefined && { visibility: body.visibility }),
          ...(body.basename !== undefined && { basename: body.basename }),
          ...(body.adaptiveContent !== undefined && { adaptiveContent: body.adaptiveContent.enabled }),
          ...(body.agentsContext !== undefined && { agentsContext: body.agentsContext }),
          ...(body.proxy !== undefined && { proxy: body.proxy }),
          updatedAt: nowIso(),
        });
        applyDefaults(after, body);
      },
      [basenameOwner],
    );
    return c.json(modelSite(model, rank, siteUrlContext(c)), 200);
  })
  .openapi(deleteSiteRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const db = c.get('db');
    const [[membership], [site]] = await db.batch([
      orgRankQuery(db, organizationId, userId),
      db.select({ id: sites.id }).from(sites).where(and(eq(sites.id, siteId), eq(sites.orgId, organizationId))),
    ]);
    if (!membership?.rank) throw new ApiError(404, 'Organization not found');
    // The role first: a member who may not delete sites is refused whether or not the site exists.
    if (membership.rank < RANK.admin) throw new ApiError(403, 'You do not have permission to do this on this site');
    if (!site) return c.body(null, 204);
    await db.batch([
      db.delete(sites).where(eq(sites.id, siteId)),
      // The organization's default content cannot point at a site that is gone.
      db
        .update(organizations)
        .set({ defaultContent: null })
        .where(and(eq(organizations.id, organizationId), sql`json_extract(${organizations.defaultContent}, '$.site') = ${siteId}`)),
    ]);
    return c.body(null, 204);
  })
  .openapi(publishSiteRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { model, rank } = await changeSite(c.get('db'), organizationId, siteId, userId, (after) => {
      if (after.siteSpaces.length === 0) throw badRequest(nothingToPublish(organizationId, siteId));
      setPublished(after, true);
    });
    return c.json(modelSite(model, rank, siteUrlContext(c)), 200);
  })
  .openapi(unpublishSiteRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { model, rank } = await changeSite(c.get('db'), organizationId, siteId, userId, (after) => setPublished(after, false));
    return c.json(modelSite(model, rank, siteUrlContext(c)), 200);
  })
  .openapi(getSiteStructureRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { shareKey } = c.req.valid('query');
    const { model } = await loadSiteAsMember(c.get('db'), organizationId, siteId, userId, RANK.read);
    return c.json(toSiteStructure(model, siteUrlContext(c, shareKey)), 200);
  });

