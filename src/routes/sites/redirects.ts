import { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { siteRedirects } from '../../db/schema';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { afterCursor, beforeCursor, ListQuerySchema, pageParams, textCursor, toPage, type Cursor } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { containsText, textFilterQuery } from '../../lib/text-filter';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { booleanQuery, IdSchema, listOf, urlContext } from '../../schemas/common';
import { HttpUrlSchema } from '../../schemas/site-customization';
import { readContent } from '../../services/content/reads';
import { isUniqueViolation } from '../../services/organizations/organizations';
import { loadSiteAsMember, loadSiteAsReader } from '../../services/sites/access';
import type { SiteModel } from '../../services/sites/model';
import { siteUrlContext } from '../../services/sites/present';
import { siteTokenOf } from '../../services/sites/site-token';
import { redirectForPathQuery, targetOf, withCapture, type RedirectRow } from '../../services/sites/redirect-lookup';
import { SiteParams } from './params';

/**
 * A site's redirects (GitBook's SiteRedirect): a path of the published site (`/old`, or a prefix: `/old/*`,
 * `/old*`) and where it leads (a section, a site space, a page of a site space, or an external URL). Admins of
 * the site's organization write them, members read them; getSiteRedirectBySource, what a site renderer asks of
 * a path it does not know, also answers a site token of the site. Live redirects answer it; drafts do not.
 */

const tags = ['Docs sites'];
/** Redirects per site (live and draft together). */
export const MAX_SITE_REDIRECTS = 1000;
const MAX_SOURCE_LENGTH = 512;
export type { RedirectRow } from '../../services/sites/redirect-lookup';

export const SourcePathSchema = z
  .string()
  .max(MAX_SOURCE_LENGTH)
  .regex(/^\/(?!\*)(?!.*\*.+)(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+(?:\/(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+)*(?:\/\*|\*)?$/, {
    error: 'must be a path of the site: "/" and unreserved or percent-encoded characters, ending in "*" for a prefix',
  })
  .openapi('SiteRedirectSourcePath', { description: 'The source path to redirect from ("*" at the end matches any suffix).' });

const idField = z.string().min(1).max(128);
const SiteSectionDestination = z.object({ kind: z.literal('site-section'), siteSectionId: idField }).openapi('SiteRedirectDestinationSiteSection');
const SiteSpaceDestination = z.object({ kind: z.literal('site-space'), siteSpaceId: idField }).openapi('SiteRedirectDestinationSiteSpace');
const PageDestination = z.object({ kind: z.literal('site-page'), siteSpaceId: idField, pageId: idField }).openapi('SiteRedirectDestinationPage');
const ExternalDestination = z.object({ kind: z.literal('external'), url: HttpUrlSchema }).openapi('SiteRedirectDestinationExternal');
const DestinationSchema = z
  .discriminatedUnion('kind', [SiteSectionDestination, SiteSpaceDestination, PageDestination, ExternalDestination])
  .openapi('SiteRedirectDestination');
export const PathDestination = z
  .object({ kind: z.literal('path'), spaceId: idField, path: z.string().min(1).max(2048) })
  .openapi('SiteRedirectInputDestinationPath', { description: 'A page by its path in a space of the site: stored as the site-page it is' });
export const InputDestinationSchema = z
  .discriminatedUnion('kind', [SiteSectionDestination, SiteSpaceDestination, PageDestination, ExternalDestination, PathDestination])
  .openapi('SiteRedirectInputDestination');
export type Destination = z.infer<typeof DestinationSchema>;

const SiteRedirectSchema = z
  .object({
    object: z.literal('site-redirect'),
    id: z.string(),
    source: z.string(),
    draft: z.boolean(),
    captureWildcard: z.boolean().openapi({ description: 'Append what the wildcard matched to the destination URL' }),
    permanent: z.boolean().openapi({ description: 'Served as HTTP 308 (else 307)' }),
    destination: DestinationSchema,
    createdAt: z.string(),
    updatedAt: z.string().optional().openapi({ description: 'Absent if never updated since creation' }),
  })
  .openapi('SiteRedirect');

const RedirectParams = SiteParams.extend({ siteRedirectId: IdSchema('siteRedirectId') });

const listRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/redirects', () => ({
  operationId: 'listSiteRedirects',
  tags,
  summary: "List a site's redirects (members)",
  request: {
    params: SiteParams,
    query: ListQuerySchema.extend({
      search: textFilterQuery('Only redirects whose source path (any case) contains this'),
      draft: booleanQuery(false, 'true lists the draft redirects, false (the default) the live ones'),
      orderBy: z
        .enum(['createdAt', 'updatedAt', 'source'])
        .optional()
        .openapi({ description: 'createdAt (default): newest first; updatedAt: last changed first; source: by source path' }),
    }),
  },
  responses: { 200: jsonResponse(listOf(SiteRedirectSchema, 'SiteRedirects'), 'The redirects') },
}));

const createRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/redirects', () => ({
  operationId: 'createSiteRedirect',
  tags,
  summary: `Create a redirect (admins; at most ${MAX_SITE_REDIRECTS} per site, one live and one draft per source)`,
  request: {
    params: SiteParams,
    ...jsonBody(
      z.object({
        source: SourcePathSchema,
        destination: InputDestinationSchema,
        captureWildcard: z.boolean().optional(),
        draft: z.boolean().optional(),
        permanent: z.boolean().optional(),
      }),
    ),
  },
  responses: { 201: jsonResponse(SiteRedirectSchema, 'The redirect') },
}));

const updateRoute = defineRoute('patch', '/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}', () => ({
  operationId: 'updateSiteRedirectById',
  tags,
  summary: 'Change a redirect; draft: false promotes a draft to live (admins)',
  request: {
    params: RedirectParams,
    ...jsonBody(
      z.object({
        source: SourcePathSchema.optional(),
        destination: DestinationSchema.optional(),
        captureWildcard: z.boolean().optional(),
        draft: z.boolean().optional(),
        permanent: z.boolean().optional(),
      }),
    ),
  },
  responses: { 200: jsonResponse(SiteRedirectSchema, 'The redirect') },
}));

const deleteRoute = defineRoute('delete', '/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}', () => ({
  operationId: 'deleteSiteRedirectById',
  tags,
  summary: 'Delete a redirect (admins)',
  request: { params: RedirectParams },
  responses: { 204: noContent('The redirect did not exist'), 205: noContent('The redirect was deleted') },
}));

const getBySourceRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/redirect', () => ({
  operationId: 'getSiteRedirectBySource',
  siteToken: true,
  tags,
  summary: 'The live redirect of a path of the site and the URL it leads to (members, and site tokens of the site)',
  description:
    'An exact source wins over prefixes (`/old/*`, `/old*`), the longest prefix over shorter ones; with `captureWildcard`, what the prefix matched is appended to the target. Draft redirects are not answered. No redirect for the path, or one leading to a section, site space or page the site no longer has: 404.',
  request: {
    params: SiteParams,
    query: z.object({
      // Any path: one that no source could be (no leading "/") has no redirect, a 404 like any other.
      source: z.string().min(1).max(MAX_SOURCE_LENGTH).openapi({ description: 'The path of the site to find a redirect for' }),
      shareKey: z.string().max(200).optional().openapi({ description: 'For share-link sites: the key that opens them (and goes into the target URL)' }),
    }),
  },
  responses: {
    200: jsonResponse(
      z.object({ redirect: SiteRedirectSchema, target: z.string().openapi({ description: 'URL of the destination of the redirect' }) }),
      'The redirect and its target',
    ),
  },
}));

function toSiteRedirect(row: RedirectRow) {
  return {
    object: 'site-redirect' as const,
    id: row.id,
    source: row.source,
    draft: row.draft,
    captureWildcard: row.captureWildcard,
    permanent: row.permanent,
    destination: row.destination as Destination,
    createdAt: row.createdAt,
    ...(row.updatedAt && { updatedAt: row.updatedAt }),
  };
}

const byId = (siteId: string, id: string) => and(eq(siteRedirects.siteId, siteId), eq(siteRedirects.id, id));
const conflict = (source: string | undefined) =>
  new ApiError(409, `source: the site already has a ${source ? `redirect from "${source}"` : 'redirect from this source'} (live and draft each once per source)`);

/** A destination of this site: its section or site space must be the site's (400 naming the field otherwise). */
export function checkDestination(model: SiteModel, destination: Destination): void {
  if (destination.kind === 'site-section' && !model.sections.some((s) => s.id === destination.siteSectionId)) {
    throw badRequest(`destination.siteSectionId: "${destination.siteSectionId}" is not a section of this site`);
  }
  if ((destination.kind === 'site-space' || destination.kind === 'site-page') && !model.siteSpaces.some((s) => s.id === destination.siteSpaceId)) {
    throw badRequest(`destination.siteSpaceId: "${destination.siteSpaceId}" is not a site space of this site`);
  }
}

/** A `path` destination as the site-page it names: the first site space of the space, the page at that path (one read). */
export async function resolvePath(c: Context<AppBindings>, model: SiteModel, userId: string, input: z.infer<typeof PathDestination>): Promise<Destination> {
  const siteSpace = model.siteSpaces.find((s) => s.spaceId === input.spaceId);
  if (!siteSpace) throw badRequest(`destination.spaceId: "${input.spaceId}" is not published in this site`);
  const segments = input.path.split('/').filter((segment) => segment !== '');
  if (segments.length === 0) throw badRequest('destination.path: name a page');
  const read = await readContent(c.get('db'), { spaceId: input.spaceId }, userId, { path: segments, markdown: false, urls: urlContext(c.req.url, c.env.APP_URL) });
  const pageId = read.located?.page.id;
  if (!pageId) throw badRequest(`destination.path: no page "${input.path}" in the space`);
  return { kind: 'site-page', siteSpaceId: siteSpace.id, pageId };
}


/** List order: GitBook's orderBy, newest first for the two times, keyset-paged. */
function listOrder(orderBy: 'createdAt' | 'updatedAt' | 'source', cursor: Cursor | null) {
  if (orderBy === 'source') return { after: afterCursor(textCursor(cursor), siteRedirects.source, siteRedirects.id), order: [asc(siteRedirects.source), asc(siteRedirects.id)], key: (r: RedirectRow): Cursor => [r.source, r.id] };
  const column = orderBy === 'updatedAt' ? siteRedirects.sortedAt : siteRedirects.createdAt;
  return {
    after: beforeCursor(textCursor(cursor), column, siteRedirects.id),
    order: [desc(column), desc(siteRedirects.id)],
    key: (r: RedirectRow): Cursor => [orderBy === 'updatedAt' ? r.sortedAt : r.createdAt, r.id],
  };
}

async function writeOrConflict<T>(source: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, 'site_redirects.')) throw conflict(source);
    throw error;
  }
}

export const siteRedirectsRouter = createRouter()
  .openapi(listRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const where = and(eq(siteRedirects.siteId, siteId), eq(siteRedirects.draft, query.draft), query.search ? containsText(siteRedirects.source, query.search) : undefined);
    const order = listOrder(query.orderBy ?? 'createdAt', cursor);
    const { extra } = await loadSiteAsMember<[RedirectRow[], { total: number }[]]>(db, organizationId, siteId, userId, RANK.read, [
      db
        .select()
        .from(siteRedirects)
        .where(and(where, order.after))
        .orderBy(...order.order)
        .limit(limit + 1),
      db.select({ total: count() }).from(siteRedirects).where(where),
    ]);
    const [rows, [{ total }]] = extra;
    return c.json(toPage(rows, limit, total, order.key, toSiteRedirect), 200);
  })
  .openapi(createRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const { model, extra } = await loadSiteAsMember<[{ total: number }[]]>(db, organizationId, siteId, userId, RANK.admin, [
      db.select({ total: count() }).from(siteRedirects).where(eq(siteRedirects.siteId, siteId)),
    ]);
    if (extra[0][0].total >= MAX_SITE_REDIRECTS) throw badRequest(`A site has at most ${MAX_SITE_REDIRECTS} redirects: delete some first`);
    const destination = body.destination.kind === 'path' ? await resolvePath(c, model, userId, body.destination) : body.destination;
    checkDestination(model, destination);
    const now = nowIso();
    const row: RedirectRow = {
      id: newId(),
      siteId,
      source: body.source,
      draft: body.draft ?? false,
      captureWildcard: body.captureWildcard ?? false,
      permanent: body.permanent ?? false,
      destination,
      createdAt: now,
      updatedAt: null,
      sortedAt: now,
    };
    await writeOrConflict(body.source, () => db.insert(siteRedirects).values(row));
    return c.json(toSiteRedirect(row), 201);
  })
  .openapi(updateRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteRedirectId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    // Authorized first, written second: a batch would run the write before the role is checked.
    const { model } = await loadSiteAsMember(db, organizationId, siteId, userId, RANK.admin);
    if (body.destination) checkDestination(model, body.destination);
    const now = nowIso();
    const [row] = await writeOrConflict(body.source, () =>
      db
        .update(siteRedirects)
        .set({
          ...(body.source !== undefined && { source: body.source }),
          ...(body.destination !== undefined && { destination: body.destination }),
          ...(body.captureWildcard !== undefined && { captureWildcard: body.captureWildcard }),
          ...(body.draft !== undefined && { draft: body.draft }),
          ...(body.permanent !== undefined && { permanent: body.permanent }),
          updatedAt: now,
          sortedAt: now,
        })
        .where(byId(siteId, siteRedirectId))
        .returning(),
    );
    if (!row) throw new ApiError(404, 'Site redirect not found');
    return c.json(toSiteRedirect(row), 200);
  })
  .openapi(deleteRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteRedirectId } = c.req.valid('param');
    const db = c.get('db');
    await loadSiteAsMember(db, organizationId, siteId, userId, RANK.admin);
    const deleted = await db.delete(siteRedirects).where(byId(siteId, siteRedirectId)).returning({ id: siteRedirects.id });
    // GitBook's answers: 205 when a redirect was deleted, 204 when there was none.
    return c.body(null, deleted.length > 0 ? 205 : 204);
  })
  .openapi(getBySourceRoute, async (c) => {
    const { organizationId, siteId } = c.req.valid('param');
    const { source, shareKey } = c.req.valid('query');
    const db = c.get('db');
    const lookup = redirectForPathQuery(db, siteId, source);
    // A site token (its site checked by token-access) reads as its visitor, while the site is published; anyone
    // else as a member of the organization: a public site's redirects are no business of other organizations.
    const { model, extra } = siteTokenOf(c)
      ? await loadSiteAsReader<[RedirectRow[]]>(c, organizationId, siteId, {}, [lookup])
      : await loadSiteAsMember<[RedirectRow[]]>(db, organizationId, siteId, requireUser(c), RANK.read, [lookup]);
    const [row] = extra[0];
    if (!row) throw new ApiError(404, 'No redirect for this path');
    const target = await targetOf(db, model, siteUrlContext(c, shareKey), row.destination as Destination);
    if (target === null) throw new ApiError(404, 'The redirect leads to what the site no longer has');
    return c.json({ redirect: toSiteRedirect(row), target: withCapture(target, row, source) }, 200);
  });
