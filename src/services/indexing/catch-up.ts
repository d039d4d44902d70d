import { sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { rawAll, rawRun, runBatch, type BatchItem, type Db } from '../../db/client';
import { revisions, spaceIndexState, spaces } from '../../db/schema';
import { nowIso } from '../../lib/time';
import { ROOT, type PageRecord, type TreeRecord } from '../content/pages';
import { chunkHashesSql, d1NodeStore, diffTries, lookupSql, midsObjectSql, type NodeBody, type NodeStore } from '../content/tree';
import { loadDocuments, type FileEntry } from '../content/revisions';
import { composedBodySql, parseStoredBody, type StoredBody } from '../content/packed-documents';
import type { JSONDocument } from '../markdown/index';
import { dependency, linksOf, sectionsOf, targetKey, type LinkTarget, type Section } from './extract';

/**
 * Brings a space's derived indexes (search sections and links of its main content) from the revision
 * they reflect to the space's current head. The tries are diffed by hash, so the cost is that of the
 * pages and files that changed: a merge of one page reindexes that page (and re-checks the links that
 * point at pages or files that appeared or disappeared). A space never indexed is indexed whole.
 * Runs inside the space's SpaceWriter, after each move of main, so catch-ups never overlap.
 */

/** Pages reindexed per D1 batch: a whole space is written in several transactions, state last. */
const PAGES_PER_BATCH = 50;
/** JSON of rows per insert statement, well under D1's 2 MB limit on a statement's values. */
const MAX_ROWS_JSON = 512 * 1024;

interface IndexState {
  head: { id: string; pages: string | null; files: string | null };
  indexed: { id: string; pages: string | null; files: string | null } | null;
}

async function loadIndexState(db: Db, spaceId: string): Promise<IndexState | null> {
  const head = alias(revisions, 'head');
  const indexed = alias(revisions, 'indexed');
  const row = await db
    .select({
      headId: head.id,
      headPages: head.pagesRoot,
      headFiles: head.filesRoot,
      indexedId: sql<string | null>`${indexed.id}`.as('indexed_id'),
      indexedPages: sql<string | null>`${indexed.pagesRoot}`.as('indexed_pages'),
      indexedFiles: sql<string | null>`${indexed.filesRoot}`.as('indexed_files'),
    })
    .from(spaces)
    .innerJoin(head, sql`${head.id} = ${spaces.revisionId}`)
    .leftJoin(spaceIndexState, sql`${spaceIndexState.spaceId} = ${spaces.id}`)
    .leftJoin(indexed, sql`${indexed.id} = ${spaceIndexState.revisionId}`)
    .where(sql`${spaces.id} = ${spaceId}`)
    .get();
  if (!row) return null;
  return {
    head: { id: row.headId, pages: row.headPages, files: row.headFiles },
    indexed: row.indexedId ? { id: row.indexedId, pages: row.indexedPages, files: row.indexedFiles } : null,
  };
}

const isPage = (record: TreeRecord | undefined): record is PageRecord => !!record && record.id !== ROOT;

export interface CatchUpResult {
  revision: string;
  pagesReindexed: number;
}

/** The roots of a revision the indexes go from or to. */
export interface IndexedRoots {
  id: string;
  pages: string | null;
  files: string | null;
}

/** Where a catch-up reads nodes and documents: D1 by default; a merge gives what it prefetched in its own read. */
export interface CatchUpSources {
  store: NodeStore;
  documents(hashes: string[]): Promise<Map<string, JSONDocument>>;
}

/**
 * A catch-up's reads are not added to the isolate's node cache: a first index (an import, a duplicate) reads every leaf
 * of the map, which would leave one space's whole map in the SpaceWriter's memory (issue 40: 1.2 KB per page).
 */
export const d1Sources = (db: Db): CatchUpSources => ({ store: d1NodeStore(db, { remember: false }), documents: (hashes) => loadDocuments(db, hashes) });

/**
 * What a catch-up from `indexed` to `head` reads, in one statement: the nodes on the paths where the two versions
 * of the page and file maps differ (the root, then middle nodes and leaves whose hashes differ), and the documents
 * of the page records that changed (at most `maxDocuments`: a merge of more pages catches up after it, reading
 * them then, so it never holds a whole space's documents at once). A merge reads them before its batch, so the catch-up joins that batch without
 * a read of its own; what is not here (never, unless a caller passes other roots) is read from D1.
 */
export async function prefetchedSources(db: Db, indexed: IndexedRoots | null, head: IndexedRoots, maxDocuments: number): Promise<CatchUpSources> {
  const body = (hash: SQL) => sql`(select body from documents where hash = ${hash})`;
  const member = (node: SQL, key: SQL) => sql`json_extract(${node}, '$."' || ${key} || '"')`;
  // D1 allows 5 terms in a compound select: longer unions nest.
  const paths = (tag: string, a: string | null, b: string | null) => {
    const t = (name: string) => sql.raw(`${tag}_${name}`);
    // The first level compared is the middle nodes by first character: through the chunks of a grouped root (all
    // of them read: a root has 8), its own members for a root written before grouped roots.
    return sql`${t('c')}(hash) as (${chunkHashesSql(body(sql`${a}`))} union ${chunkHashesSql(body(sql`${b}`))}),
      ${t('r')}(ab, bb) as (select ${midsObjectSql(body(sql`${a}`))}, ${midsObjectSql(body(sql`${b}`))}),
      ${t('k1')}(k) as (select j.key from ${t('r')} r, json_each(coalesce(r.ab, '{}')) j union select j.key from ${t('r')} r, json_each(coalesce(r.bb, '{}')) j),
      ${t('md')}(a, b) as (select a, b from (select ${member(sql`r.ab`, sql`k.k`)} as a, ${member(sql`r.bb`, sql`k.k`)} as b from ${t('r')} r, ${t('k1')} k) where a is not b),
      ${t('mb')}(ab, bb) as (select ${body(sql`m.a`)}, ${body(sql`m.b`)} from ${t('md')} m),
      ${t('k2')}(ab, bb, k) as (select m.ab, m.bb, j.key from ${t('mb')} m, json_each(coalesce(m.ab, '{}')) j
        union select m.ab, m.bb, j.key from ${t('mb')} m, json_each(coalesce(m.bb, '{}')) j),
      ${t('ld')}(a, b) as (select distinct a, b from (select ${member(sql`k.ab`, sql`k.k`)} as a, ${member(sql`k.bb`, sql`k.k`)} as b from ${t('k2')} k) where a is not b),
      ${t('h')}(hash) as (select ${a} union select ${b} union select hash from ${t('c')} union select x from (
        select a as x from ${t('md')} union all select b from ${t('md')} union all select a from ${t('ld')} union all select b from ${t('ld')}))`;
  };
  const rows = await rawAll<{ hash: string; body: StoredBody }>(
    db,
    sql`with ${paths('p', indexed?.pages ?? null, head.pages)}, ${paths('f', indexed?.files ?? null, head.files)},
      changed(hash) as (select json_extract(e.value, '$.document') from p_ld l, json_each(${body(sql`l.b`)}) e
        where e.value is not ${member(body(sql`l.a`), sql`e.key`)} limit ${maxDocuments})
      select hash, ${composedBodySql('documents')} as body from documents where hash in (select hash from p_h union select hash from f_h union select hash from changed)`,
  );
  const read = new Map(rows.map((r) => [r.hash, r.body]));
  const d1 = d1Sources(db);
  const fromRead = (hashes: string[]) => hashes.filter((h) => read.has(h));
  const parse = (hashes: string[]) => new Map(hashes.map((h) => [h, parseStoredBody<unknown>(read.get(h)!)]));
  return {
    store: {
      async load(hashes) {
        const out = parse(fromRead(hashes)) as Map<string, NodeBody>;
        const missing = hashes.filter((h) => !out.has(h));
        if (missing.length) for (const [h, v] of await d1.store.load(missing)) out.set(h, v);
        return out;
      },
      loadPaths: (root, keys) => d1.store.loadPaths(root, keys),
    },
    async documents(hashes) {
      const out = parse(fromRead(hashes)) as Map<string, JSONDocument>;
      const missing = hashes.filter((h) => !out.has(h));
      if (missing.length) for (const [h, v] of await d1.documents(missing)) out.set(h, v);
      return out;
    },
  };
}

export interface CatchUpPlan {
  /**
   * Statements per transaction: every one guarded on the head and the indexed revision being still those planned.
   * None when more than `maxPages` pages are to be reindexed, or when `run` ran each as it was made.
   */
  batches: BatchItem[][];
  pagesReindexed: number;
}

/**
 * The statements that bring a space's indexes from `indexed` (null: never indexed) to `head`. Each statement only
 * acts while the space's head is `head.id` and the indexes still reflect `indexed` (the last one moves them), so
 * that they can travel in the batch that moves the head (a merge), where a head move refused by its
 * compare-and-set leaves the indexes as they were.
 */
export async function planCatchUp(
  db: Db,
  spaceId: string,
  indexed: IndexedRoots | null,
  head: IndexedRoots,
  sources: CatchUpSources,
  maxPages = Infinity,
  run?: (batch: BatchItem[]) => Promise<void>,
): Promise<CatchUpPlan> {
  const { store } = sources;
  const [pageChanges, fileChanges] = await Promise.all([
    diffTries<TreeRecord>(store, indexed?.pages ?? null, head.pages),
    diffTries<FileEntry>(store, indexed?.files ?? null, head.files),
  ]);

  // Pages whose text or title changed are reindexed; pages and files that appeared or disappeared
  // change the status of the links that point at them, wherever those are.
  const reindex: string[] = [];
  const appeared: string[] = [];
  const disappeared: string[] = [];
  for (const [id, { before, after }] of pageChanges) {
    if (id === ROOT) continue;
    if (!isPage(after)) {
      reindex.push(id);
      disappeared.push(id);
      continue;
    }
    if (!isPage(before)) appeared.push(id);
    if (!isPage(before) || before.document !== after.document || before.title !== after.title) reindex.push(id);
  }
  for (const [id, { before, after }] of fileChanges) {
    if (!after) disappeared.push(id);
    else if (!before) appeared.push(id);
  }

  // More pages than the caller can take in one batch: no statements (it catches up batch by batch instead).
  if (reindex.length > maxPages) return { batches: [], pagesReindexed: reindex.length };
  const guard = sql`exists (select 1 from spaces s where s.id = ${spaceId} and s.revision_id = ${head.id})
    and coalesce((select x.revision_id from space_index_state x where x.space_id = ${spaceId}), '') = ${indexed?.id ?? ''}`;
  const batches: BatchItem[][] = [];
  for (let i = 0; i < reindex.length; i += PAGES_PER_BATCH) {
    const batch = await pageStatements(db, spaceId, reindex.slice(i, i + PAGES_PER_BATCH), pageChanges, head, sources, guard);
    if (run) await run(batch);
    else batches.push(batch);
  }
  const last: BatchItem[] = [];
  const now = nowIso();
  if (disappeared.length) last.push(setLinkStatus(db, spaceId, disappeared, 'broken', guard));
  if (appeared.length) last.push(setLinkStatus(db, spaceId, appeared, 'ok', guard));
  last.push(
    rawRun(db, sql`insert into space_index_state (space_id, revision_id, updated_at) select ${spaceId}, ${head.id}, ${now} where ${guard}
      on conflict (space_id) do update set revision_id = excluded.revision_id, updated_at = excluded.updated_at`),
  );
  if (run) await run(last);
  else batches.push(last);
  return { batches, pagesReindexed: reindex.length };
}

export async function catchUpIndexes(db: Db, spaceId: string): Promise<CatchUpResult | null> {
  const state = await loadIndexState(db, spaceId);
  if (!state) return null;
  const { head, indexed } = state;
  if (indexed?.id === head.id) return { revision: head.id, pagesReindexed: 0 };
  // Each batch run as soon as it is made (in order, as before): a first index of many pages never holds all their rows.
  const plan = await planCatchUp(db, spaceId, indexed, head, d1Sources(db), Infinity, async (batch) => void (await runBatch(db, batch)));
  return { revision: head.id, pagesReindexed: plan.pagesReindexed };
}

function setLinkStatus(db: Db, spaceId: string, ids: string[], status: 'ok' | 'broken', guard: SQL): BatchItem {
  return rawRun(db, sql`update space_links set status = ${status}
    where space_id = ${spaceId} and target_id in (select value from json_each(${JSON.stringify(ids)})) and ${guard}`);
}

/**
 * Brings the search sections and links of `ids` (pages of the head, or gone from it) to the head. Whether the
 * page or file a link needs is in the head is looked up by the insert itself, in the head's maps (which the
 * batch has written when it stores them), so it costs no read here.
 */
async function pageStatements(
  db: Db,
  spaceId: string,
  ids: string[],
  changes: Map<string, { before?: TreeRecord; after?: TreeRecord }>,
  head: IndexedRoots,
  sources: CatchUpSources,
  guard: SQL,
): Promise<BatchItem[]> {
  const pages = ids.map((id) => changes.get(id)?.after).filter(isPage);
  const documents = await sources.documents(pages.map((p) => p.document).filter((h): h is string => !!h));
  const sectionsByPage: unknown[][][] = [];
  const links: unknown[] = [];
  for (const page of pages) {
    const document = page.document ? documents.get(page.document) : undefined;
    sectionsByPage.push(sectionRows(page.id, page.title, sectionsOf(document)));
    for (const target of linksOf(document)) {
      const needs = dependency(target, page.id);
      const [kind, targetId] = needs.page ? ['page', needs.page] : needs.file ? ['file', needs.file] : [null, null];
      links.push([page.id, targetKey(target), JSON.stringify(target), targetId, kind]);
    }
  }
  const idList = JSON.stringify(ids);
  const target = sql`(value ->> 3)`;
  const status = sql`case value ->> 4
    when 'page' then case when ${target} <> ${ROOT} and ${lookupSql(sql`${head.pages}`, target)} is not null then 'ok' else 'broken' end
    when 'file' then case when ${lookupSql(sql`${head.files}`, target)} is not null then 'ok' else 'broken' end
    else 'ok' end`;
  // Pages cut into pieces under D1's size limit on a statement, never across a piece: a piece's statements compare
  // a page's rows with all its sections.
  const pieces = jsonChunks(sectionsByPage.filter((rows) => rows.length > 0), (rows) => rows);
  const inPieces = new Set(sectionsByPage.flatMap((rows) => rows.map((row) => row[0] as string)));
  const withoutSections = JSON.stringify(ids.filter((id) => !inPieces.has(id)));
  return [
    rawRun(db, sql`delete from search_section_rows where space_id = ${spaceId} and page_id in (select value from json_each(${withoutSections})) and ${guard}`),
    ...pieces.flatMap((piece) => sectionStatements(db, spaceId, piece, guard)),
    rawRun(db, sql`delete from space_links where space_id = ${spaceId} and page_id in (select value from json_each(${idList})) and ${guard}`),
    // Rows travel as JSON parameters (any number of rows under D1's bound-parameter limit), cut in pieces
    // under its size limit.
    ...jsonChunks(links, (row) => [row]).map(
      (chunk) => rawRun(db, sql`insert into space_links (space_id, page_id, target_key, target, target_id, status)
        select ${spaceId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, ${status} from json_each(${chunk}) where ${guard}`),
    ),
  ];
}

/** A page's sections as rows `[page, position, anchor, page title, section title, body]`. */
const sectionRows = (pageId: string, pageTitle: string, sections: Section[]): unknown[][] =>
  sections.map((section, position) => [pageId, position, section.anchor, pageTitle, section.title, section.body]);

/**
 * The statements that make the stored sections of a piece's pages equal to their sections (issue 42, storage): a
 * section unchanged keeps its row, so the full-text index (FTS5 writes a deleted row's every word again, as a
 * tombstone, into a new segment) changes by the sections edited only, not by the whole page. A row pairs with a
 * section by its anchor (unique within a page, `sectionsOf`) and text, not by position, so a section inserted above
 * others moves them without rewriting them (the index's update trigger ignores a change of position, migration
 * 0120). In order: rows that pair with no section are deleted, rows kept take their section's position, sections
 * that pair with no row are inserted.
 */
function sectionStatements(db: Db, spaceId: string, piece: string, guard: SQL): BatchItem[] {
  const wanted = sql`wanted(page_id, position, anchor, page_title, section_title, body) as materialized (
    select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 from json_each(${piece}))`;
  const pageRows = sql`r.space_id = ${spaceId} and r.page_id in (select distinct page_id from wanted)`;
  const pairs = (w: string, r: string) =>
    sql.raw(`${w}.page_id = ${r}.page_id and ${w}.anchor = ${r}.anchor and ${w}.page_title = ${r}.page_title and ${w}.section_title = ${r}.section_title and ${w}.body = ${r}.body`);
  return [
    rawRun(db, sql`with ${wanted} delete from search_section_rows as r
      where ${pageRows} and not exists (select 1 from wanted w where ${pairs('w', 'r')}) and ${guard}`),
    rawRun(db, sql`with ${wanted} update search_section_rows as r set position = w.position from wanted w
      where ${pageRows} and ${pairs('w', 'r')} and r.position <> w.position and ${guard}`),
    rawRun(db, sql`with ${wanted} insert into search_section_rows (space_id, space_key, page_id, position, anchor, page_title, section_title, body)
      select ${spaceId}, ${`s${spaceId}`}, w.page_id, w.position, w.anchor, w.page_title, w.section_title, w.body from wanted w
      where not exists (select 1 from search_section_rows r where r.space_id = ${spaceId} and ${pairs('w', 'r')}) and ${guard}
      order by w.page_id, w.position`),
  ];
}

/**
 * Groups of rows as JSON arrays of at most MAX_ROWS_JSON characters each (a larger single group goes alone): a
 * group (`rowsOf` of an item) is never cut.
 */
function jsonChunks<T>(items: T[], rowsOf: (item: T) => unknown[]): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const item of items) {
    const json = rowsOf(item)
      .map((row) => JSON.stringify(row))
      .join(',');
    if (current.length > 0 && size + json.length + 1 > MAX_ROWS_JSON) {
      chunks.push(`[${current.join(',')}]`);
      current = [];
      size = 2;
    }
    current.push(json);
    size += json.length + 1;
  }
  if (current.length > 0) chunks.push(`[${current.join(',')}]`);
  return chunks;
}
