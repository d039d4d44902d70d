import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { ftsExpression, queryWords, searchQuery, type HitRow } from '../services/search/search';
import { readTrees, visiblePages } from './content';
import type { SiteSpaceNode } from './structure';

/**
 * Search of a published site: the full-text index of the API's search (services/search: the same query
 * words, limits and ranking) over the spaces of the site spaces the visitor may see, then each hit's page
 * found in its space's tree, so a page the visitor may not open (its condition, or a hidden page) is
 * left out and every result links to where the visitor can read it. Two round trips after the site's.
 */

export const SITE_SEARCH_RESULTS = 20;
const SECTIONS_PER_PAGE = 5;

export interface SiteSearchHit {
  spaceId: string;
  pageId: string;
  title: string;
  path: string;
  ancestors: string[];
  sections: Array<{ title: string; anchor: string; body: string }>;
}

/** Pages matching `text` (at most SITE_SEARCH_RESULTS), best first; throws a 400 ApiError for text the API's search refuses. */
export async function siteSearch(db: Db, text: string, nodes: SiteSpaceNode[], claims: Record<string, unknown>): Promise<SiteSearchHit[]> {
  const words = queryWords(text);
  if (words.length === 0 || nodes.length === 0) return [];
  const spaces = [...new Map(nodes.map((n) => [n.space.id, n.space])).values()];
  const ids = sql`(select value as id from json_each(${JSON.stringify(spaces.map((s) => s.id))}))`;
  const hits = (await searchQuery(db, ftsExpression(words), ids, 0, SITE_SEARCH_RESULTS)) as HitRow[];
  const hitSpaces = spaces.filter((s) => hits.some((h) => h.spaceId === s.id));
  if (hitSpaces.length === 0) return [];
  const { trees } = await readTrees(
    db,
    hitSpaces.map((s) => ({ spaceId: s.id, revisionId: s.revisionId })),
  );
  const pagesBySpace = new Map([...trees].map(([spaceId, tree]) => [spaceId, new Map(visiblePages(tree.pages, claims).map((p) => [p.page.id, p]))]));
  const results = new Map<string, SiteSearchHit>();
  for (const hit of hits) {
    if (hit.rank > SITE_SEARCH_RESULTS) continue;
    const found = pagesBySpace.get(hit.spaceId)?.get(hit.pageId);
    if (!found || found.hidden || found.page.noIndex) continue;
    const key = `${hit.spaceId}/${hit.pageId}`;
    let result = results.get(key);
    if (!result) {
      result = { spaceId: hit.spaceId, pageId: hit.pageId, title: found.page.title, path: found.path, ancestors: found.ancestors.map((a) => a.title), sections: [] };
      results.set(key, result);
    }
    if (result.sections.length < SECTIONS_PER_PAGE) result.sections.push({ title: hit.sectionTitle || hit.pageTitle, anchor: hit.anchor, body: hit.body });
  }
  return [...results.values()];
}
