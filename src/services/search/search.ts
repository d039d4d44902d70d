import { sql, type SQL } from 'drizzle-orm';
import { rawAll, type Db } from '../../db/client';
import { badRequest } from '../../lib/errors';
import type { UrlContext } from '../../schemas/mappers';
import { spaceAppUrl } from '../../schemas/mappers';
import { locatePages, type PathRow } from '../content/page-paths';
import { evaluateCondition } from '../sites/conditions';

/**
 * Full-text search over the sections of spaces' main content (FTS5, see migration 0005 and
 * services/indexing). Ranking is BM25 with a page title hit weighing 10 body hits and a heading hit 5;
 * a page ranks by its best section. User text never reaches FTS5's query syntax: it is cut into words
 * the way the index tokenizes (letters, digits and combining marks), each quoted, the last one a prefix.
 */

export const MAX_QUERY_LENGTH = 512;
/** Words of a query that count; the rest are ignored. */
const MAX_QUERY_WORDS = 32;
/** Best-ranked matching sections considered per query (their pages are the results). */
/** Sections a search reads at most; also every rank a search can answer. */
export const MAX_HITS = 2000;
/** Sections shown per page result. */
const SECTIONS_PER_PAGE = 5;

/** The words of user text, cut the way the index tokenizes it (letters, digits and combining marks). */
export function queryWords(text: string): string[] {
  if (text.trim() === '') throw badRequest('query: the search text is empty');
  if (text.length > MAX_QUERY_LENGTH) throw badRequest(`query: at most ${MAX_QUERY_LENGTH} characters`);
  return (text.normalize('NFKC').match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).slice(0, MAX_QUERY_WORDS);
}

/**
 * The FTS5 expression of query words: each quoted (no FTS5 syntax can get through), the last a prefix. A word the
 * index's tokenizer cuts in several (unicode61 ends a token at a combining mark other than a Latin diacritic: the
 * vowel signs of Devanagari, Thai, Arabic harakat) is given as its pieces, every one required: quoted whole it would be
 * a phrase of several tokens, which the index without positions (migration 0150, `detail=column`) refuses.
 */
export function ftsExpression(words: string[]): string {
  const pieces = words.flatMap((word) => word.split(TOKEN_BREAKING_MARKS).filter((piece) => piece !== ''));
  return pieces.map((piece, i) => `"${piece}"${i === pieces.length - 1 ? '*' : ''}`).join(' ');
}

/** Combining marks unicode61 (with `remove_diacritics 2`) treats as separators: all but the Latin diacritics it folds. */
const TOKEN_BREAKING_MARKS = /[^\P{M}\u0300-\u036f]+/u;

/** Lower case, without diacritics: how the index compares words. */
const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

function titleMatches(title: string, words: string[]): boolean {
  const titleWords = fold(title).match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.every((word, i) => {
    const w = fold(word);
    return titleWords.some((t) => (i === words.length - 1 ? t.startsWith(w) : t === w));
  });
}

export interface HitRow {
  spaceId: string;
  pageId: string;
  anchor: string;
  sectionTitle: string;
  pageTitle: string;
  body: string;
  score: number;
  rank: number;
  total: number;
}

/** BM25 weights of the index's columns: page title, section heading, body, space key (never searched for words). */
const WEIGHTS = sql.raw('10.0, 5.0, 1.0, 0.0');

/**
 * Sections matching `expression` in the spaces `spacesSql` selects (a subquery of ids), for the pages
 * ranked after `offset` (at most `limit + 1` pages, to tell whether a next page exists), best first.
 * The spaces are part of the FTS5 query itself (their `s<id>` words), so the index reads only the
 * matches of those spaces, not those of every organization; `space_id` is checked again on the rows
 * (the index folds case, so two ids differing only in case share a word).
 */
export function searchQuery(db: Db, expression: string, spacesSql: SQL, offset: number, limit: number) {
  // No space to search: a query no section matches ("s" alone is no space's word).
  const match = sql`coalesce((select '{space_key} : (' || group_concat('"s' || searched.id || '"', ' OR ') || ') AND {page_title section_title body} : (' || ${expression} || ')'
    from ${spacesSql} as searched), '{space_key} : "s"')`;
  return rawAll<HitRow>(
    db,
    sql`with hits as (
      select r.space_id as spaceId, r.page_id as pageId, r.anchor, r.section_title as sectionTitle, r.page_title as pageTitle,
        snippet(search_sections, 2, '', '', '…', 32) as body, -bm25(search_sections, ${WEIGHTS}) as score
      from search_sections join search_section_rows r on r.id = search_sections.rowid
      where search_sections match ${match} and r.space_id in ${spacesSql}
      order by bm25(search_sections, ${WEIGHTS}) limit ${MAX_HITS}
    ),
    ranked as (
      select spaceId, pageId, row_number() over (order by max(score) desc, spaceId, pageId) as rank from hits group by spaceId, pageId
    )
    select h.*, p.rank, (select count(*) from ranked) as total from hits h join ranked p on p.spaceId = h.spaceId and p.pageId = h.pageId
    where p.rank > ${offset} and p.rank <= ${offset + limit + 1}
    order by p.rank, h.score desc`,
  );
}

export interface SearchPage {
  id: string;
  title: string;
  description: string;
  path: string;
  score: number;
  rank: number;
  resultType: 'page' | 'section';
  ancestors: Array<{ title: string }>;
  sections: Array<{ id: string; title: string; path: string; score: number; resultType: 'page' | 'section'; body: string; urls: { app: string } }>;
  urls: { app: string };
}

/** Page results from the hits and the pages' paths (a page gone since it was indexed is left out). */
export function toSearchPages(hits: HitRow[], paths: PathRow[], words: string[], orgOf: (spaceId: string) => string, urls: UrlContext): Array<SearchPage & { spaceId: string }> {
  const located = locatePages(paths);
  const pages = new Map<string, SearchPage & { spaceId: string }>();
  for (const hit of hits) {
    const key = `${hit.spaceId}/${hit.pageId}`;
    const found = located.get(key);
    if (!found) continue;
    const path = found.path;
    const app = `${spaceAppUrl(urls, orgOf(hit.spaceId), hit.spaceId)}/${path}`;
    let page = pages.get(key);
    if (!page) {
      page = {
        spaceId: hit.spaceId,
        id: hit.pageId,
        title: found.record.title,
        description: found.record.description ?? '',
        path,
        score: hit.score,
        rank: hit.rank,
        resultType: 'section',
        ancestors: found.ancestors.map((r) => ({ title: r.title })),
        sections: [],
        urls: { app },
      };
      pages.set(key, page);
    }
    if (page.sections.length >= SECTIONS_PER_PAGE) continue;
    const sectionPath = hit.anchor ? `${path}#${hit.anchor}` : path;
    page.sections.push({
      id: hit.anchor ? `${hit.pageId}#${hit.anchor}` : hit.pageId,
      title: hit.sectionTitle || hit.pageTitle,
      path: sectionPath,
      score: hit.score,
      resultType: 'section',
      body: hit.body,
      urls: { app: hit.anchor ? `${app}#${hit.anchor}` : app },
    });
  }
  // A page matched on its own fields when its title holds every word searched (the last as a prefix).
  for (const page of pages.values()) if (titleMatches(page.title, words)) page.resultType = 'page';
  return [...pages.values()].sort((a, b) => a.rank - b.rank);
}

/**
 * The hits a site token's visitor may see, of a search read from rank 0 (`MAX_HITS`): a page whose condition,
 * or an ancestor's, fails for the visitor's claims is left out, as the site's HTML reader leaves it out, and so is
 * a page that is `hidden` (not in the site's navigation: reached by its link only, as GitBook's published sites
 * keep it out of their search) or `noIndex` (GitBook's "not indexable in the search"); the pages left are ranked
 * again, so that `count` and the pages of results are those of what the visitor sees. Answers the hits of the
 * results page after `offset` (and one more, to tell whether a next page exists).
 */
/** A page's own row that keeps it out of a site's search (`hidden` or `noIndex` in its record). */
function unlisted(row: PathRow): boolean {
  if (row.level !== 0 || !row.record) return false;
  const record = JSON.parse(row.record) as { hidden?: boolean; noIndex?: boolean };
  return record.hidden === true || record.noIndex === true;
}

export function hitsVisibleTo(claims: Record<string, unknown>, hits: HitRow[], paths: PathRow[], offset: number, limit: number) {
  const keyOf = (row: { spaceId: string; pageId: string }) => `${row.spaceId}/${row.pageId}`;
  const hidden = new Set(paths.filter((row) => !evaluateCondition(row.condition ?? undefined, claims) || unlisted(row)).map(keyOf));
  const ranks = new Map<number, number>();
  for (const hit of hits) if (!hidden.has(keyOf(hit)) && !ranks.has(hit.rank)) ranks.set(hit.rank, ranks.size + 1);
  const visible = hits
    .filter((hit) => ranks.has(hit.rank))
    .map((hit) => ({ ...hit, rank: ranks.get(hit.rank)! }))
    .filter((hit) => hit.rank > offset && hit.rank <= offset + limit + 1);
  return { hits: visible, paths: paths.filter((row) => !hidden.has(keyOf(row))), total: ranks.size };
}
