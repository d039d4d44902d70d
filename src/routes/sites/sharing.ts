import { z } from '@hono/zod-openapi';
import { and, count, eq, or, sql } from 'drizzle-orm';
import { siteShareLinks } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { newId, randomBase62 } from '../../lib/ids';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { containsText, textFilterQuery } from '../../lib/text-filter';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf } from '../../schemas/common';
import { ShareLinkNameSchema, ShareLinkSchema, SitePublishingAuthSchema, SitePublishingAuthUpdateSchema } from '../../schemas/site';
import { changeSiteRow, loadSiteAsMember } from '../../services/sites/access';
import type { SiteRow } from '../../services/sites/model';
import { publishedUrlOf, siteUrlContext, type SiteUrls } from '../../services/sites/present';
import { generateVisitorKey } from '../../services/sites/visitor-token';
import { SiteParams } from './params';

const tags = ['Docs sites'];
const ShareLinkParams = SiteParams.extend({ shareLinkId: IdSchema('shareLinkId') });
type ShareLinkRow = typeof siteShareLinks.$inferSelect;

const listShareLinksRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/share-links', () => ({
  operationId: 'listSiteShareLinks',
  tags,
  summary: "List a site's share links (admins)",
  request: { params: SiteParams, query: ListQuerySchema.extend({ search: textFilterQuery('Only links whose name (any case) or key contains this') }) },
  responses: { 200: jsonResponse(listOf(ShareLinkSchema, 'ShareLinks'), 'The share links') },
}));

const createShareLinkRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/share-links', () => ({
  operationId: 'createSiteShareLink',
  tags,
  summary: 'Create a share link that opens a share-link site (admins)',
  request: { params: SiteParams, ...jsonBody(z.object({ name: ShareLinkNameSchema })) },
  responses: { 201: jsonResponse(ShareLinkSchema, 'The share link') },
}));

const updateShareLinkRoute = defineRoute('patch', '/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', () => ({
  operationId: 'updateSiteShareLinkById',
  tags,
  summary: 'Rename, revoke (active: false) or restore a share link (admins)',
  request: {
    params: ShareLinkParams,
    ...jsonBody(
      z
        .object({ active: z.boolean().optional(), name: ShareLinkNameSchema.optional() })
        .refine((b) => b.active !== undefined || b.name !== undefined, { message: 'give active or name' }),
    ),
  },
  responses: { 200: jsonResponse(ShareLinkSchema, 'The share link') },
}));

const deleteShareLinkRoute = defineRoute('delete', '/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', () => ({
  operationId: 'deleteSiteShareLinkById',
  tags,
  summary: 'Delete a share link: its key stops opening the site at once (admins)',
  request: { params: ShareLinkParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

const getPublishingAuthRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/publishing/auth', () => ({
  operationId: 'getSitePublishingAuthById',
  tags,
  summary: "The key that signs a visitor-auth site's visitor JWTs (admins)",
  request: { params: SiteParams },
  responses: { 200: jsonResponse(SitePublishingAuthSchema, 'The publishing auth') },
}));

const updatePublishingAuthRoute = defineRoute('patch', '/orgs/{organizationId}/sites/{siteId}/publishing/auth', () => ({
  operationId: 'updateSitePublishingAuthById',
  tags,
  summary: 'Set the fallback and logout URLs of visitor auth (admins)',
  request: { params: SiteParams, ...jsonBody(SitePublishingAuthUpdateSchema) },
  responses: { 200: jsonResponse(SitePublishingAuthSchema, 'The publishing auth') },
}));

const regeneratePublishingAuthRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate', () => ({
  operationId: 'regenerateSitePublishingAuthById',
  tags,
  summary: 'Replace the visitor JWT key: tokens signed with the old one stop opening the site (admins)',
  request: { params: SiteParams },
  responses: { 200: jsonResponse(SitePublishingAuthSchema, 'The publishing auth with its new key') },
}));

function toShareLink(row: ShareLinkRow, site: SiteRow, urls: SiteUrls) {
  return {
    object: 'share-link' as const,
    id: row.id,
    createdAt: row.createdAt,
    name: row.name,
    active: row.active,
    urls: site.published ? { published: publishedUrlOf(site, { ...urls, shareKey: row.key }, []) } : {},
  };
}

function toPublishingAuth(site: SiteRow) {
  return {
    object: 'publishing-auth' as const,
    backend: 'custom' as const,
    privateKey: site.authKey,
    ...(site.authFallbackUrl && { fallbackURL: site.authFallbackUrl }),
    ...(site.authLogoutUrl && { logoutURL: site.authLogoutUrl }),
  };
}

const shareLinkById = (siteId: string, id: string) => and(eq(siteShareLinks.siteId, siteId), eq(siteShareLinks.id, id));

export const siteSharingRouter = createRouter()
  .openapi(listShareLinksRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    // By name or key, as GitBook does: an admin holding a shared URL finds the link to revoke. Keys are case-sensitive.
    const search = query.search ? or(containsText(siteShareLinks.name, query.search), sql`instr(${siteShareLinks.key}, ${query.search}) > 0`) : undefined;
    const where = and(eq(siteShareLinks.siteId, siteId), search);
    const { model, extra } = await loadSiteAsMember<[ShareLinkRow[], { total: number }[]]>(db, organizationId, siteId, userId, RANK.admin, [
      db
        .select()
        .from(siteShareLinks)
        .where(and(where, afterCursor(cursor, siteShareLinks.createdAt, siteShareLinks.id)))
        .orderBy(...keysetOrder(siteShareLinks.createdAt, siteShareLinks.id))
        .limit(limit + 1),
      db.select({ total: count() }).from(siteShareLinks).where(where),
    ]);
    const [rows, [{ total }]] = extra;
    const urls = siteUrlContext(c);
    return c.json(toPage(rows, limit, total, (r) => [r.createdAt, r.id], (r) => toShareLink(r, model.site, urls)), 200);
  })
  .openapi(createShareLinkRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { name } = c.req.valid('json');
    const db = c.get('db');
    const { model } = await loadSiteAsMember(db, organizationId, siteId, userId, RANK.admin);
    // 32 base62 characters: about 190 bits, the whole secret of a share-link site.
    const row: ShareLinkRow = { id: newId(), siteId, name, key: randomBase62(32), active: true, createdAt: nowIso() };
    await db.insert(siteShareLinks).values(row);
    return c.json(toShareLink(row, model.site, siteUrlContext(c)), 201);
  })
  .openapi(updateShareLinkRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, shareLinkId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    // Authorized first, written second: a batch would run the write before the role is checked.
    const { model } = await loadSiteAsMember(db, organizationId, siteId, userId, RANK.admin);
    const updated = await db
      .update(siteShareLinks)
      .set({ ...(body.active !== undefined && { active: body.active }), ...(body.name !== undefined && { name: body.name }) })
      .where(shareLinkById(siteId, shareLinkId))
      .returning();
    const [row] = updated;
    if (!row) throw new ApiError(404, 'Share link not found');
    return c.json(toShareLink(row, model.site, siteUrlContext(c)), 200);
  })
  .openapi(deleteShareLinkRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, shareLinkId } = c.req.valid('param');
    const db = c.get('db');
    await loadSiteAsMember(db, organizationId, siteId, userId, RANK.admin);
    await db.delete(siteShareLinks).where(shareLinkById(siteId, shareLinkId));
    return c.body(null, 204);
  })
  .openapi(getPublishingAuthRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { model } = await loadSiteAsMember(c.get('db'), organizationId, siteId, userId, RANK.admin);
    return c.json(toPublishingAuth(model.site), 200);
  })
  .openapi(updatePublishingAuthRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const body = c.req.valid('json');
    const site = await changeSiteRow(c.get('db'), organizationId, siteId, userId, () => ({
      ...(body.fallbackURL !== undefined && { authFallbackUrl: body.fallbackURL }),
      ...(body.logoutURL !== undefined && { authLogoutUrl: body.logoutURL }),
    }));
    return c.json(toPublishingAuth(site), 200);
  })
  .openapi(regeneratePublishingAuthRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const site = await changeSiteRow(c.get('db'), organizationId, siteId, userId, () => ({ authKey: generateVisitorKey() }));
    return c.json(toPublishingAuth(site), 200);
  });
