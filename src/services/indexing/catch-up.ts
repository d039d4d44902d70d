import { sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { rawRun, runBatch, type BatchItem, type Db } from '../../db/client';
import { revisions, spaceIndexState, spaces } from '../../db/schema';
import { nowIso } from '../../lib/time';
import { ROOT, type PageRecord, type TreeRecord } from '../content/pages';
import { d1NodeStore, diffTries, TrieView } from '../content/tree';
import { loadDocuments, type FileEntry } from '../content/revisions';
import { dependency, linksOf, sectionsOf, targetKey, type LinkTarget } from './extract';

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

export async function catchUpIndexes(db: Db, spaceId: string): Promise<CatchUpResult | null> {
  const state = await loadIndexState(db, spaceId);
  if (!state) return null;
  const { head, indexed } = state;
  if (indexed?.id === head.id) return { revision: head.id, pagesReindexed: 0 };

  const store = d1NodeStore(db);
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

  const pagesView = new TrieView<TreeRecord>(store, head.pages);
  const filesView = new TrieView<FileEntry>(store, head.files);
  const statements: BatchItem[][] = [];
  for (let i = 0; i < reindex.length; i += PAGES_PER_BATCH) {
    statements.push(await pageStatements(db, spaceId, reindex.slice(i, i + PAGES_PER_BATCH), pageChanges, pagesView, filesView));
  }
  const last: BatchItem[] = [];
  const now = nowIso();
  if (disappeared.length) last.push(setLinkStatus(db, spaceId, disappeared, 'broken'));
  if (appeared.length) last.push(setLinkStatus(db, spaceId, appeared, 'ok'));
  last.push(
    db
      .insert(spaceIndexState)
      .values({ spaceId, revisionId: head.id, updatedAt: now })
      .onConflictDoUpdate({ target: spaceIndexState.spaceId, set: { revisionId: head.id, updatedAt: now } }),
  );
  for (const batch of [...statements, last]) await runBatch(db, batch);
  return { revision: head.id, pagesReindexed: reindex.length };
}

function setLinkStatus(db: Db, spaceId: string, ids: string[], status: 'ok' | 'broken'): BatchItem {
  return rawRun(db, sql`update space_links set status = ${status}
    where space_id = ${spaceId} and target_id in (select value from json_each(${JSON.stringify(ids)}))`);
}

/** Deletes and rewrites the search sections and links of `ids` (pages of the head, or gone from it). */
async function pageStatements(
  db: Db,
  spaceId: string,
  ids: string[],
  changes: Map<string, { before?: TreeRecord; after?: TreeRecord }>,
  pagesView: TrieView<TreeRecord>,
  filesView: TrieView<FileEntry>,
): Promise<BatchItem[]> {
  const pages = ids.map((id) => changes.get(id)?.after).filter(isPage);
  const documents = await loadDocuments(db, pages.map((p) => p.document).filter((h): h is string => !!h));
  const sectionRows: unknown[] = [];
  const linkRows: Array<{ pageId: string; key: string; target: LinkTarget; dependsOn: { page?: string; file?: string } }> = [];
  for (const page of pages) {
    const document = page.document ? documents.get(page.document) : undefined;
    sectionsOf(document).forEach((section, position) => sectionRows.push([page.id, position, section.anchor, page.title, section.title, section.body]));
    for (const target of linksOf(document)) linkRows.push({ pageId: page.id, key: targetKey(target), target, dependsOn: dependency(target, page.id) });
  }
  // Whether each page and file the links need is in the head: one lookup of their trie paths.
  const [foundPages, foundFiles] = await Promise.all([
    pagesView.getMany(linkRows.flatMap((l) => (l.dependsOn.page ? [l.dependsOn.page] : []))),
    filesView.getMany(linkRows.flatMap((l) => (l.dependsOn.file ? [l.dependsOn.file] : []))),
  ]);
  const links = linkRows.map((l) => {
    const targetId = l.dependsOn.page ?? l.dependsOn.file ?? null;
    const present = l.dependsOn.page ? isPage(foundPages.get(l.dependsOn.page)) : l.dependsOn.file ? foundFiles.has(l.dependsOn.file) : true;
    return [l.pageId, l.key, JSON.stringify(l.target), targetId, present ? 'ok' : 'broken'];
  });
  const idList = JSON.stringify(ids);
  return [
    rawRun(db, sql`delete from search_section_rows where space_id = ${spaceId} and page_id in (select value from json_each(${idList}))`),
    rawRun(db, sql`delete from space_links where space_id = ${spaceId} and page_id in (select value from json_each(${idList}))`),
    // Rows travel as JSON parameters (any number of rows under D1's bound-parameter limit), cut in pieces
    // under its size limit.
    ...jsonChunks(sectionRows).map(
      (chunk) => rawRun(db, sql`insert into search_section_rows (space_id, space_key, page_id, position, anchor, page_title, section_title, body)
        select ${spaceId}, ${`s${spaceId}`}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 from json_each(${chunk})`),
    ),
    ...jsonChunks(links).map(
      (chunk) => rawRun(db, sql`insert into space_links (space_id, page_id, target_key, target, target_id, status)
        select ${spaceId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 from json_each(${chunk})`),
    ),
  ];
}

/** Rows as JSON arrays of at most MAX_ROWS_JSON characters each (a larger single row goes alone). */
function jsonChunks(rows: unknown[]): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const row of rows) {
    const json = JSON.stringify(row);
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
