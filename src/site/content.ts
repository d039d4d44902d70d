import { rowsOf, runBatch, type BatchItem, type Db } from '../db/client';
import { pageStatement, treeStatement } from './content-sql';
import type { RevisionMeta } from '../services/content/convert';
import { isGroupPage, parseMeta, wholeTree } from '../services/content/tree-rows';
import { dereferenceDocument, evaluateDocument } from '../services/content/evaluate';
import type { JSONDocument } from '../services/markdown/document';
import type { SpecState } from '../services/openapi/computed-pages';
import type { FileEntry, ReadPage } from '../services/content/revisions';
import { evaluateCondition } from '../services/sites/conditions';
import { parseStoredBodyNative } from '../services/content/packed-form';

/**
 * What the published site reads of a space's content, authorized by the site (the visitor has no role
 * on the space: src/site/load decided what they may see). Always a space's current main content: its
 * head revision, whose id the site's model already holds.
 *
 * Both are constant SQL (content-sql: no drizzle builder runs for them).
 *
 * - `treeStatement`: the whole page tree (for the sidebar, the URL's page, previous/next), the
 *   revision's variables and reusable contents, and the OpenAPI specs its computed pages name. One
 *   statement; several spaces' (llms.txt, sitemap.xml) go in one batch.
 * - `pageStatement`: one page's document, the reusable contents it includes and the files that it (or
 *   they) refer to. One statement.
 */

type Row = { kind: string; key: string | null; value: string | null };

/** A space's current content as the site shows it. */
export interface SpaceTree {
  revisionId: string;
  meta: RevisionMeta;
  pages: ReadPage[];
  /** The OpenAPI specs its computed pages name, by slug. */
  specs: ReadonlyMap<string, SpecState>;
}

/**
 * The computed (OpenAPI) pages' module, imported by the first tree or page that has some: a site without any never
 * evaluates it, nor the content modules it imports (issue 42 item 7).
 */
const computedPages = () => import('../services/openapi/computed-pages');

/** The tree of a `treeStatement`'s rows, computed pages expanded. */
export async function spaceTreeOf(revisionId: string, result: unknown): Promise<SpaceTree> {
  const rows = rowsOf<Row>(result).map((r) => ({ ...r, value: r.value ?? '' }));
  const meta = parseMeta(rows.find((r) => r.kind === 'meta')?.value || null);
  const { pages, computed } = wholeTree(rows.filter((r) => r.kind === 'leaf' || r.kind === 'chunk'));
  if (!computed) return { revisionId, meta, pages: pages as ReadPage[], specs: new Map() };
  const { expandPages, readSpecState } = await computedPages();
  const specs = new Map<string, SpecState>();
  for (const row of rows) {
    if (row.kind !== 'spec') continue;
    const state = readSpecState(row.value);
    if (state) specs.set(state.slug, state);
  }
  return { revisionId, meta, pages: expandPages(pages, specs), specs };
}

/** Trees of several spaces in one round trip. */
export async function readTrees(db: Db, spaces: Array<{ spaceId: string; revisionId: string }>, extra: BatchItem[] = []) {
  if (spaces.length === 0 && extra.length === 0) return { trees: new Map<string, SpaceTree>(), extra: [] as unknown[] };
  const results = (await runBatch(db, [...spaces.map((s) => treeStatement(db, s.spaceId, s.revisionId) as unknown as BatchItem), ...extra])) as unknown[];
  const trees = new Map(await Promise.all(spaces.map(async (s, i) => [s.spaceId, await spaceTreeOf(s.revisionId, results[i])] as const)));
  return { trees, extra: results.slice(spaces.length) };
}

/**
 * A page's document (by its hash), the reusable contents it includes (from the revision's meta) and
 * every file the document or those contents refer to, looked up in the revision's file map: constant SQL (content-sql).
 */
export { pageStatement } from './content-sql';

export interface PageBody {
  document: JSONDocument;
  files: Map<string, FileEntry>;
}

const EMPTY: JSONDocument = { object: 'document', data: {}, nodes: [] };

/** The document a page shows: reusable contents included, expressions evaluated. */
export async function pageBodyOf(page: ReadPage, meta: RevisionMeta, result: unknown | null): Promise<PageBody> {
  const files = new Map<string, FileEntry>();
  let document: JSONDocument = EMPTY;
  if (page.generated) {
    document = await (await computedPages()).generatedDocument(page.generated, page.computedSeed ?? page.id);
  } else if (result) {
    const rows = rowsOf<Row>(result);
    const body = rows.find((r) => r.kind === 'document')?.value;
    if (body) document = await parseStoredBodyNative<JSONDocument>(body);
    const reusables: Array<Promise<readonly [string, JSONDocument]>> = [];
    for (const row of rows) {
      const { key, value } = row;
      if (row.kind === 'reusable' && key && value) reusables.push(parseStoredBodyNative<JSONDocument>(value).then((doc) => [key, doc] as const));
      if (row.kind === 'file' && key && value) files.set(key, JSON.parse(value) as FileEntry);
    }
    const reusable = new Map(await Promise.all(reusables));
    if (reusable.size > 0) document = dereferenceDocument(document, reusable);
  }
  return { document: evaluateDocument(document, meta.variables, page.variables ?? {}), files };
}

/** Reads a page's body: one round trip for a stored page with a document, none for an empty or generated one. */
export async function readPageBody(db: Db, tree: SpaceTree, page: ReadPage): Promise<PageBody> {
  if (page.generated || !page.document) return pageBodyOf(page, tree.meta, null);
  const result = await pageStatement(db, tree.revisionId, page.document).rows();
  return pageBodyOf(page, tree.meta, result);
}

// ---------------------------------------------------------------------------------------------
// Pages as a visitor sees them

/** A page with its path and place, as the site lists it. */
export interface SitePage {
  page: ReadPage;
  /** Slugs from the top level, joined by '/'. */
  path: string;
  ancestors: ReadPage[];
  /** Left out of navigation (still reachable by its URL). */
  hidden: boolean;
}

/**
 * Every page the visitor may open, depth first: a page whose condition is false for their claims is
 * left out with its subpages; hidden pages are kept (reachable by URL) and marked, with their subpages.
 */
export function visiblePages(pages: ReadPage[], claims: Record<string, unknown>): SitePage[] {
  const out: SitePage[] = [];
  const walk = (list: ReadPage[], ancestors: ReadPage[], parentPath: string, hidden: boolean) => {
    for (const page of list) {
      // A link page leads elsewhere: navigation lists it (navigationTree), no URL of the site shows it.
      if (!evaluateCondition(page.condition, claims) || page.link) continue;
      const path = parentPath ? `${parentPath}/${page.slug}` : page.slug;
      const isHidden = hidden || !!page.hidden;
      // A group is a heading of the navigation, no page of its own: its pages are (its slug in their paths).
      if (!isGroupPage(page)) out.push({ page, path, ancestors, hidden: isHidden });
      if (ancestors.length < 64) walk(page.pages, [...ancestors, page], path, isHidden);
    }
  };
  walk(pages, [], '', false);
  return out;
}

/** The pages a visitor may see, filtered like `visiblePages`, as a nested tree for the sidebar (hidden ones left out). */
export function navigationTree(pages: ReadPage[], claims: Record<string, unknown>, depth = 0): ReadPage[] {
  if (depth > 64) return [];
  return pages
    .filter((page) => !page.hidden && evaluateCondition(page.condition, claims))
    .map((page) => ({ ...page, pages: navigationTree(page.pages, claims, depth + 1) }));
}
