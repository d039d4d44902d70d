import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import { sites } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { decodeCursor, encodeCursor, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { spaceRoleSql } from '../../services/access/access';
import { checkOrganizationRole, organizationQuery, orgRankQuery } from '../../services/organizations/organizations';
import { siteNotFound } from '../../services/sites/access';
import { siteTokenOf } from '../../services/sites/site-token';
import { siteScopeSql, type SiteSearchScope } from '../../services/search/site-scope';
import { pagePathsQuery, type PathRow } from '../../services/content/page-paths';
import { ftsExpression, hitsVisibleTo, MAX_HITS, MAX_QUERY_LENGTH, queryWords, searchQuery, toSearchPages, type HitRow } from '../../services/search/search';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../../services/spaces/spaces';
import type { Db } from '../../db/client';

/**
 * Full-text search of main content: in one space, or across every space of an organization the caller
 * can read (results grouped by space). Pages rank by their best section; see services/search.
 */

const SearchQuery = z.object({
  query: z.string().max(MAX_QUERY_LENGTH).openapi({ description: `The words to find (at most ${MAX_QUERY_LENGTH} characters; the last word matches as a prefix)` }),
  page: z.string().optional().openapi({ description: 'Identifier of the page results to fetch (the `next.page` of the previous page).' }),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional().openapi({ description: `Page results per page (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE})` }),
});

const SectionResultSchema = z.object({
  id: z.string(),
  title: z.string(),
  path: z.string(),
  score: z.number(),
  resultType: z.enum(['page', 'section']),
  body: z.string().openapi({ description: 'A snippet of the section around the words found' }),
  urls: z.object({ app: z.string() }),
});

const PageResultSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    path: z.string(),
    score: z.number().openapi({ description: 'Relevance: higher is better' }),
    rank: z.number().int().openapi({ description: 'One-based position in the ranked result set' }),
    resultType: z.enum(['page', 'section']).openapi({ description: 'page: the title holds the words; section: the content of a section does' }),
    sections: z.array(SectionResultSchema),
    ancestors: z.array(z.object({ title: z.string() })).openapi({ description: 'From the top level to the direct parent' }),
    urls: z.object({ app: z.string() }),
  })
  .openapi('SearchPageResult');

const SpaceResultSchema = z
  .object({
    type: z.literal('space'),
    id: z.string(),
    title: z.string(),
    score: z.number(),
    pages: z.array(PageResultSchema),
  })
  .openapi('SearchSpaceResult');

const searchSpaceRoute = defineRoute('get', '/spaces/{spaceId}/search', () => ({
  operationId: 'searchSpaceContent',
  costly: 'search',
  tokens: { scope: 'space:content:read' },
  tags: ['Space content'],
  summary: "Search the space's main content",
  request: { params: z.object({ spaceId: IdSchema('spaceId') }), query: SearchQuery },
  responses: { 200: jsonResponse(listOf(PageResultSchema, 'SearchPageResults'), 'Matching pages, best first') },
}));

const searchOrgRoute = defineRoute('get', '/orgs/{organizationId}/search', () => ({
  operationId: 'searchOrganizationContent',
  costly: 'search',
  tags: ['Organizations'],
  summary: 'Search every space of the organization the caller can read',
  request: { params: z.object({ organizationId: IdSchema('organizationId') }), query: SearchQuery },
  responses: { 200: jsonResponse(listOf(SpaceResultSchema, 'SearchSpaceResults'), 'Matching spaces with their pages, best first') },
}));

const siteSpaceIds = z.array(z.string().min(1).max(128)).min(1).max(200);

/** GitBook's SiteSearchScope: which site spaces of the site a search reads. */
const SiteSearchScopeSchema = z
  .union([
    z
      .object({
        mode: z.literal('default'),
        currentSiteSpace: z.string().min(1).max(128).optional(),
        restrictTo: z.enum(['currentSiteSpace', 'otherSiteSpaces']).optional(),
      })
      .refine((scope) => scope.restrictTo === undefined || scope.currentSiteSpace !== undefined, {
        message: 'restrictTo needs currentSiteSpace',
        path: ['restrictTo'],
      }),
    z.object({ mode: z.literal('specific'), siteSpaceIds }),
    z.object({ mode: z.literal('all') }),
  ])
  .openapi('SiteSearchScope');

/** GitBook's body: the query, and a `scope` (or the deprecated `mode`, `siteSpaceId` and `siteSpaceIds`). */
const SiteSearchBody = z
  .object({
    query: z.string().max(MAX_QUERY_LENGTH),
    scope: SiteSearchScopeSchema.optional(),
    mode: z.enum(['specific', 'current', 'all']).optional().openapi({ deprecated: true }),
    siteSpaceId: z.string().min(1).max(128).optional().openapi({ deprecated: true }),
    siteSpaceIds: siteSpaceIds.optional().openapi({ deprecated: true }),
  })
  .refine((b) => b.scope !== undefined || b.siteSpaceIds !== undefined || b.mode !== undefined, { message: 'a scope is required', path: ['scope'] })
  .refine((b) => b.mode !== 'current' || b.siteSpaceId !== undefined, { message: 'mode current needs siteSpaceId', path: ['siteSpaceId'] })
  .refine((b) => b.mode !== 'specific' || b.siteSpaceIds !== undefined, { message: 'mode specific needs siteSpaceIds', path: ['siteSpaceIds'] });

/** The scope a body asks for, the deprecated forms read as GitBook documents them. */
function scopeOf(body: z.infer<typeof SiteSearchBody>): SiteSearchScope {
  if (body.scope) {
    if (body.scope.mode === 'default') return { kind: 'default', current: body.scope.currentSiteSpace, restrictTo: body.scope.restrictTo };
    if (body.scope.mode === 'specific') return { kind: 'specific', ids: body.scope.siteSpaceIds };
    return { kind: 'all' };
  }
  if (body.siteSpaceIds && body.mode !== 'all' && body.mode !== 'current') return { kind: 'specific', ids: body.siteSpaceIds };
  if (body.mode === 'current') return { kind: 'default', current: body.siteSpaceId };
  return { kind: 'all' };
}

const searchSiteRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/search', () => ({
  operationId: 'searchSiteContent',
  costly: 'search',
  tokens: { scope: 'site:metadata:read' },
  siteToken: true,
  tags: ['Docs sites'],
  summary: "Search the main content of the site's spaces that the caller can read",
  description:
    'Members of the organization search the spaces they can read; a site token (resolvePublishedContentByUrl) the spaces of its site it may open, while the site is published. scope `all`: every site space; `default`: the default site space of each section (and of the site), plus `currentSiteSpace`, or with `restrictTo` only it (`currentSiteSpace`) or only the others (`otherSiteSpaces`); `specific`: the site spaces listed. Results are grouped by space, like an organization search.',
  request: {
    params: z.object({ organizationId: IdSchema('organizationId'), siteId: IdSchema('siteId') }),
    query: SearchQuery.pick({ page: true, limit: true }),
    ...jsonBody(SiteSearchBody),
  },
  responses: { 200: jsonResponse(listOf(SpaceResultSchema, 'SearchSpaceResults'), 'Matching spaces with their pages, best first') },
}));

/** The offset of a page of results: cursors carry the rank of the last page result shown. */
function offsetOf(page: string | undefined): number {
  const cursor = decodeCursor(page);
  if (!cursor) return 0;
  const rank = Number(cursor[0]);
  return Number.isSafeInteger(rank) && rank >= 0 ? rank : 0;
}

/** Runs the search after the access check (one round trip), then reads the result pages' paths (one more). */
async function runSearch(db: Db, guard: Parameters<Db['batch']>[0][number], words: string[], spacesSql: ReturnType<typeof sql>, offset: number, limit: number) {
  const [guardRows, hits] = (await db.batch([guard, searchQuery(db, ftsExpression(words), spacesSql, offset, limit)])) as [unknown[], HitRow[]];
  const pageKeys = [...new Map(hits.map((h) => [`${h.spaceId}/${h.pageId}`, [h.spaceId, h.pageId] as [string, string]])).values()];
  const paths: PathRow[] = pageKeys.length ? await pagePathsQuery(db, pageKeys) : [];
  return { guardRows, hits, paths, total: hits[0]?.total ?? 0 };
}

function nextPage(offset: number, limit: number, shown: number, hits: HitRow[]) {
  const more = hits.some((h) => h.rank > offset + limit);
  return more && shown > 0 ? { next: { page: encodeCursor([offset + limit, '']) } } : {};
}

export const searchRouter = createRouter()
  .openapi(searchSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const q = c.req.valid('query');
    const words = queryWords(q.query);
    const offset = offsetOf(q.page);
    const limit = q.limit ?? DEFAULT_PAGE_SIZE;
    const db = c.get('db');
    const guard = selectSpaceWithRank(db, spaceId, userId);
    if (words.length === 0) {
      checkSpace(await guard.all(), RANK.read, true);
      return c.json({ items: [], count: 0 }, 200);
    }
    const live = sql`(select s.id from spaces s where s.id = ${spaceId} and s.deleted_at is null)`;
    const { guardRows, hits, paths, total } = await runSearch(db, guard, words, live, offset, limit);
    const { space } = checkSpace(guardRows as SpaceWithRank[], RANK.read, true);
    const pages = toSearchPages(hits, paths, words, () => space.orgId, urlContext(c.req.url, c.env.APP_URL)).filter((p) => p.rank <= offset + limit);
    const items = pages.map(({ spaceId: _space, ...page }) => page);
    return c.json({ items, count: total, ...nextPage(offset, limit, items.length, hits) }, 200);
  })
  .openapi(searchOrgRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const q = c.req.valid('query');
    const words = queryWords(q.query);
    const offset = offsetOf(q.page);
    const limit = q.limit ?? DEFAULT_PAGE_SIZE;
    const db = c.get('db');
    const guard = organizationQuery(db, organizationId, userId);
    const check = (rows: unknown[]) => checkOrganizationRole(rows as Parameters<typeof checkOrganizationRole>[0], RANK.guest);
    if (words.length === 0) {
      check(await guard.all());
      return c.json({ items: [], count: 0 }, 200);
    }
    // Only spaces the caller can read: the same rule as every read.
    const readable = sql`(select spaces.id from spaces where spaces.org_id = ${organizationId} and spaces.deleted_at is null
      and ${spaceRoleSql(userId)} >= ${RANK.read})`;
    const { guardRows, hits, paths, total } = await runSearch(db, guard, words, readable, offset, limit);
    check(guardRows);
    return c.json(bySpaceResults(organizationId, { hits, paths, total }, words, offset, limit, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(searchSiteRoute, async (c) => {
    const siteToken = siteTokenOf(c);
    const reader = siteToken ?? requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const body = c.req.valid('json');
    const q = c.req.valid('query');
    const words = queryWords(body.query);
    const offset = offsetOf(q.page);
    const limit = q.limit ?? DEFAULT_PAGE_SIZE;
    const db = c.get('db');
    // The caller's organization role and the site (of that organization), read with the search; for a
    // site token (its organization and site checked by token-access), that the site is still published.
    const guard =
      typeof reader === 'string'
        ? orgRankQuery(db, organizationId, reader, { site: sql<string | null>`(select s.id from sites s where s.id = ${siteId} and s.org_id = ${organizationId})` as never })
        : publishedSiteQuery(db, organizationId, siteId);
    const check = (rows: unknown[]) => {
      if (typeof reader !== 'string') {
        if (rows.length === 0) throw siteNotFound();
        return;
      }
      const [row] = rows as Array<{ rank: number | null; site: string | null }>;
      // Guests and outsiders do not see the organization's sites (services/sites/access).
      if (!row?.rank || row.rank < RANK.read || !row.site) throw siteNotFound();
    };
    if (words.length === 0) {
      check(await guard.all());
      return c.json({ items: [], count: 0 }, 200);
    }
    const scope = siteScopeSql(organizationId, siteId, reader, scopeOf(body));
    const urls = urlContext(c.req.url, c.env.APP_URL);
    if (typeof reader !== 'string') {
      // A visitor sees only the pages whose conditions hold for its claims: every rank is read, then filtered.
      const all = await runSearch(db, guard, words, scope, 0, MAX_HITS);
      check(all.guardRows);
      return c.json(bySpaceResults(organizationId, hitsVisibleTo(reader.claims, all.hits, all.paths, offset, limit), words, offset, limit, urls), 200);
    }
    const found = await runSearch(db, guard, words, scope, offset, limit);
    check(found.guardRows);
    return c.json(bySpaceResults(organizationId, found, words, offset, limit, urls), 200);
  });

/** The site, when it is a published site of the organization (a site token's search reads nothing else). */
function publishedSiteQuery(db: Db, organizationId: string, siteId: string) {
  return db
    .select({ id: sites.id })
    .from(sites)
    .where(and(eq(sites.id, siteId), eq(sites.orgId, organizationId), eq(sites.published, true)))
    .limit(1);
}

/** Results grouped by space (organization and site searches), in rank order. */
function bySpaceResults(orgId: string, found: { hits: HitRow[]; paths: PathRow[]; total: number }, words: string[], offset: number, limit: number, urls: ReturnType<typeof urlContext>) {
  const titles = new Map(found.paths.map((p) => [p.spaceId, p.spaceTitle]));
  const pages = toSearchPages(found.hits, found.paths, words, () => orgId, urls).filter((p) => p.rank <= offset + limit);
  const bySpace = new Map<string, z.infer<typeof SpaceResultSchema>>();
  for (const { spaceId, ...page } of pages) {
    const space = bySpace.get(spaceId) ?? { type: 'space' as const, id: spaceId, title: titles.get(spaceId) ?? '', score: page.score, pages: [] };
    space.pages.push(page);
    bySpace.set(spaceId, space);
  }
  return { items: [...bySpace.values()], count: found.total, ...nextPage(offset, limit, pages.length, found.hits) };
}
