import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { decodeCursor, encodeCursor, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { spaceRoleSql } from '../../services/access';
import { checkOrganizationRole, organizationQuery } from '../../services/organizations';
import { pagePathsQuery, type PathRow } from '../../services/content/page-paths';
import { ftsExpression, MAX_QUERY_LENGTH, queryWords, searchQuery, toSearchPages, type HitRow } from '../../services/search/search';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../../services/spaces';
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

const searchSpaceRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/search',
  operationId: 'searchSpaceContent',
  costly: 'search',
  tokens: { scope: 'space:content:read' },
  tags: ['Space content'],
  summary: "Search the space's main content",
  request: { params: z.object({ spaceId: IdSchema('spaceId') }), query: SearchQuery },
  responses: { 200: jsonResponse(listOf(PageResultSchema, 'SearchPageResults'), 'Matching pages, best first') },
});

const searchOrgRoute = defineRoute({
  method: 'get',
  path: '/orgs/{organizationId}/search',
  operationId: 'searchOrganizationContent',
  costly: 'search',
  tags: ['Organizations'],
  summary: 'Search every space of the organization the caller can read',
  request: { params: z.object({ organizationId: IdSchema('organizationId') }), query: SearchQuery },
  responses: { 200: jsonResponse(listOf(SpaceResultSchema, 'SearchSpaceResults'), 'Matching spaces with their pages, best first') },
});

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
    const titles = new Map(paths.map((p) => [p.spaceId, p.spaceTitle]));
    const pages = toSearchPages(hits, paths, words, () => organizationId, urlContext(c.req.url, c.env.APP_URL)).filter((p) => p.rank <= offset + limit);
    const bySpace = new Map<string, z.infer<typeof SpaceResultSchema>>();
    for (const { spaceId, ...page } of pages) {
      const space = bySpace.get(spaceId) ?? { type: 'space' as const, id: spaceId, title: titles.get(spaceId) ?? '', score: page.score, pages: [] };
      space.pages.push(page);
      bySpace.set(spaceId, space);
    }
    return c.json({ items: [...bySpace.values()], count: total, ...nextPage(offset, limit, pages.length, hits) }, 200);
  });
