import { and, eq, sql } from 'drizzle-orm';
import { alias, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { changedRows, createDb, runBatch, type BatchItem, type Db } from '../../db/client';
import { changeRequestContributors, changeRequests, revisions, spaceIndexState, spaces } from '../../db/schema/index';
import type { Env } from '../../env';
import { contentUpdatedEvents, enqueueEvents, eventIdsOf } from '../integrations/events';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { valuesOf } from '../../lib/sql-lists';
import { nowIso } from '../../lib/time';
import { applyContentBatch, revertRevisions, type ContentChange, type PageOutcome } from './batch';
import { assertMergeRules, isOutdated, mergeBase, mergeRulesQueries, refreshChangeRequestCounters, toMergeRulesContext, type ChangeRequestRow } from './change-requests';
import { d1Sources, planCatchUp, prefetchedSources, type CatchUpSources, type IndexedRoots } from '../indexing/catch-up';
import { storeFiles } from './files';
import { assertWithinCap, capOf } from '../limits/caps';
import { parseMeta, type RevisionMeta } from './convert';
import { ContentTree } from './pages';
import { d1NodeStore, type NodeBody, type StoredNode } from './tree';
import { mergeTrees, type MergeSide } from './merge';
import { insertDocuments, loadDeltaBases, loadDocuments, type FileEntry } from './revisions';

/**
 * Everything that moves a head: content batches and update move a change request's head, merge
 * moves the space's. These functions run inside the space's SpaceWriter Durable Object, one at a
 * time per space, so each reads the heads it builds on and writes with a compare-and-set on them.
 */

export interface ChangeRequestTarget {
  spaceId: string;
  changeRequestId: string;
  userId: string;
}

/** A revision as the writer reads it: the roots of its maps, their sizes and its meta. */
export interface RevisionContent extends MergeSide {
  id: string;
  pageCount: number;
  fileCount: number;
}

interface ChangeRequestState {
  cr: ChangeRequestRow;
  spaceRevision: string;
  spaceDeleted: boolean;
  editMode: string;
  head: RevisionContent;
  base: RevisionContent;
  main: RevisionContent;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a table or any alias of it
export const contentColumns = <T extends Record<'id' | 'pagesRoot' | 'filesRoot' | 'meta' | 'pageCount' | 'fileCount', SQLiteColumn<any>>>(r: T) => ({ id: r.id, pagesRoot: r.pagesRoot, filesRoot: r.filesRoot, meta: r.meta, pageCount: r.pageCount, fileCount: r.fileCount });

export function toContent(row: { id: string; pagesRoot: string | null; filesRoot: string | null; meta: string | null; pageCount: number; fileCount: number }): RevisionContent {
  return { id: row.id, pages: row.pagesRoot, files: row.filesRoot, meta: parseMeta(row.meta), pageCount: row.pageCount, fileCount: row.fileCount };
}

/**
 * The content columns of a revision under names of their own: a batch answers rows as objects keyed by column
 * name, where the three revisions' `pages_root` (and the change request's `id`) would collide.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an alias of the revisions table
function aliasedContentColumns(r: any, prefix: string) {
  const column = <T>(name: string, key: string) => sql<T>`${r[key]}`.as(`${prefix}_${name}`);
  return {
    id: column<string>('id', 'id'),
    pagesRoot: column<string | null>('pages_root', 'pagesRoot'),
    filesRoot: column<string | null>('files_root', 'filesRoot'),
    meta: column<string | null>('meta', 'meta'),
    pageCount: column<number>('page_count', 'pageCount'),
    fileCount: column<number>('file_count', 'fileCount'),
  };
}

/** The change request, the space's head, and the roots of the revisions the move builds on, in one query. */
function stateQuery(db: Db, target: ChangeRequestTarget) {
  const head = alias(revisions, 'head');
  const base = alias(revisions, 'base');
  const main = alias(revisions, 'main');
  return db
    .select({
      cr: changeRequests,
      spaceRevision: sql<string>`${spaces.revisionId}`.as('space_revision'),
      spaceDeleted: sql<string | null>`${spaces.deletedAt}`.as('space_deleted'),
      editMode: sql<string>`${spaces.editMode}`.as('space_edit_mode'),
      head: aliasedContentColumns(head, 'head'),
      base: aliasedContentColumns(base, 'base'),
      main: aliasedContentColumns(main, 'main'),
    })
    .from(changeRequests)
    .innerJoin(spaces, eq(spaces.id, changeRequests.spaceId))
    .innerJoin(head, eq(head.id, changeRequests.revisionId))
    .innerJoin(base, eq(base.id, sql`coalesce(${changeRequests.revisionMergedAncestor}, ${changeRequests.revisionInitial})`))
    .innerJoin(main, eq(main.id, spaces.revisionId))
    .where(and(eq(changeRequests.id, target.changeRequestId), eq(changeRequests.spaceId, target.spaceId)));
}

function toState(row: Awaited<ReturnType<typeof stateQuery>>[number] | undefined): ChangeRequestState {
  if (!row) throw new ApiError(404, 'Change request not found');
  return {
    cr: row.cr,
    spaceRevision: row.spaceRevision,
    spaceDeleted: row.spaceDeleted !== null,
    editMode: row.editMode,
    head: toContent(row.head),
    base: toContent(row.base),
    main: toContent(row.main),
  };
}

async function loadState(db: Db, target: ChangeRequestTarget): Promise<ChangeRequestState> {
  return toState(await stateQuery(db, target).get());
}

/** The revision the space's search and link indexes reflect (none when never indexed). */
function indexedQuery(db: Db, spaceId: string) {
  return db
    .select({ id: revisions.id, pages: revisions.pagesRoot, files: revisions.filesRoot })
    .from(spaceIndexState)
    .innerJoin(revisions, eq(revisions.id, spaceIndexState.revisionId))
    .where(eq(spaceIndexState.spaceId, spaceId));
}

function assertWritable(state: ChangeRequestState, action: string) {
  if (state.spaceDeleted) throw badRequest('This space is deleted: restore it first');
  if (state.editMode === 'locked') throw new ApiError(403, `This space is locked: ${action} is not allowed`);
  if (state.cr.status === 'merged' || state.cr.status === 'archived') {
    throw badRequest(`This change request is ${state.cr.status}: ${action} is not allowed`);
  }
}

interface NewRevision {
  pages: string | null;
  files: string | null;
  meta: RevisionMeta;
  pageCount: number;
  fileCount: number;
}

/** The revision row and its new nodes (with the space's references to them, which the purge reads). */
export function newRevision(db: Db, spaceId: string, type: string, parents: string[], content: NewRevision, nodes: StoredNode[], now: string, mergedFrom?: string) {
  const id = newId();
  return {
    id,
    statements: [
      ...insertDocuments(db, spaceId, nodes, now),
      db.insert(revisions).values({
        id,
        spaceId,
        type,
        parents,
        manifest: '',
        pagesRoot: content.pages,
        filesRoot: content.files,
        meta: JSON.stringify(content.meta),
        pageCount: content.pageCount,
        fileCount: content.fileCount,
        mergedFrom,
        createdAt: now,
      }),
    ],
  };
}

/** Moves the change request's head from `expected` to `next`, only if nobody moved it meanwhile. */
function moveChangeRequestHead(db: Db, crId: string, expected: string, set: Partial<ChangeRequestRow>) {
  return db
    .update(changeRequests)
    .set(set)
    .where(and(eq(changeRequests.id, crId), eq(changeRequests.revisionId, expected)));
}

export function assertMoved(result: unknown, what: string) {
  // A head move writes one row by its id, so any change is the move. Local D1 counts the rows its triggers write too (a
  // change request's move also moves its space's change-request version, migration 0168): more than 1 is a move.
  const changes = changedRows(result);
  if (changes === 0) throw new ApiError(409, `The ${what} changed while this request was applied; try again`);
}

type ContentCounts = Pick<RevisionContent, 'pageCount' | 'fileCount'>;

/**
 * The space's caps on pages and files, checked on every head move (content batches, imports and templates,
 * merges, updates) before anything is written: the counts are the revisions' own, read with the heads
 * the move builds on, so this costs no query. A move is refused only when it leaves more than the cap AND
 * more than the content it replaces: edits and deletions always pass, and a cap lowered below what a space
 * holds only stops it growing. Head moves run one at a time per space, so the check is exact.
 */
export function assertContentCaps(env: Env, replaced: ContentCounts, next: ContentCounts): void {
  assertWithinCap(env, 'pagesPerSpace', replaced.pageCount, next.pageCount - replaced.pageCount);
  assertWithinCap(env, 'filesPerSpace', replaced.fileCount, next.fileCount - replaced.fileCount);
}

export interface ContentBatchOutput {
  outcomes: PageOutcome[];
  insertedFiles: FileEntry[];
}

/**
 * A new `edits` revision of `head` with the changes applied, as statements for the caller's batch (its
 * file bytes are stored already). `base` is what a revert without a named revision goes back to.
 */
export async function buildEdits(env: Env, db: Db, spaceId: string, head: RevisionContent, base: RevisionContent, changes: ContentChange[], now: string) {
  const store = d1NodeStore(db);
  const named = revertRevisions(changes);
  const revisionRows = named.length
    ? await db
        .select(contentColumns(revisions))
        .from(revisions)
        .where(and(eq(revisions.spaceId, spaceId), sql`${revisions.id} in ${valuesOf(named)}`))
        .all()
    : [];
  const tree = new ContentTree(store, head);
  const result = await applyContentBatch(tree, changes, {
    baseTree: () => new ContentTree(store, base),
    revisionTrees: new Map(revisionRows.map((r) => [r.id, new ContentTree(store, toContent(r))])),
    loadDocument: async (hash) => (await loadDocuments(db, [hash])).get(hash),
    deltaBases: (hashes) => loadDeltaBases(db, hashes),
    maxFileBytes: capOf(env, 'bytesPerFile'),
    now,
  });
  const counts = { pageCount: head.pageCount + result.pageDelta, fileCount: head.fileCount + result.fileDelta };
  // Before the file bytes go to R2: a refused batch stores nothing.
  assertContentCaps(env, head, counts);
  await storeFiles(env.FILES, result.files);
  const written = await tree.write();
  const revision = newRevision(db, spaceId, 'edits', [head.id], { ...written, meta: head.meta, ...counts }, [...written.nodes, ...result.documents], now);
  return { revision, result };
}

export async function applyChangeRequestContent(env: Env, target: ChangeRequestTarget, changes: ContentChange[]): Promise<ContentBatchOutput> {
  const db = createDb(env.DB);
  const state = await loadState(db, target);
  assertWritable(state, 'editing its content');
  const now = nowIso();
  const { revision, result } = await buildEdits(env, db, target.spaceId, state.head, state.base, changes, now);
  const results = await runBatch(db, [
    ...revision.statements,
    db
      .insert(changeRequestContributors)
      .values({ changeRequestId: state.cr.id, userId: target.userId, edits: 1, updatedAt: now })
      .onConflictDoUpdate({ target: [changeRequestContributors.changeRequestId, changeRequestContributors.userId], set: { edits: sql`${changeRequestContributors.edits} + 1`, updatedAt: now } }),
    moveChangeRequestHead(db, state.cr.id, state.cr.revisionId, { revisionId: revision.id, updatedAt: now }),
  ]);
  const moved = results[results.length - 1];
  assertMoved(moved, 'change request');
  return { outcomes: result.outcomes, insertedFiles: result.files.map((f) => f.entry) };
}

/**
 * The three-way merge of the change request's head and main over their base, written onto one of them
 * (refused when it would pass a cap that the side it replaces was within).
 */
async function mergedRevision(env: Env, db: Db, state: ChangeRequestState, onto: 'main' | 'theirs'): Promise<{ content: NewRevision; nodes: StoredNode[] }> {
  const merged = await mergeTrees(d1NodeStore(db), state.base, state.main, state.head, onto);
  const side = onto === 'main' ? state.main : state.head;
  const content = { ...merged, pageCount: side.pageCount + merged.pageDelta, fileCount: side.fileCount + merged.fileDelta };
  assertContentCaps(env, side, content);
  return { content, nodes: merged.nodes };
}

export interface HeadMoveOutput {
  revision: string;
}

export interface MergeOutput extends HeadMoveOutput {
  /** Whether the search and link indexes moved with main in the merge's batch (else the writer catches them up after). */
  indexed: boolean;
}

/** Most pages a merge reindexes in its own batch; a larger change is caught up after it, batch by batch. */
const PAGES_REINDEXED_IN_MERGE = 50;

/**
 * Merges the change request into the space: a new `merge` revision whose content is the change request's when main
 * has not moved since the change request's base (a fast-forward), else a three-way merge. 409 on conflicts.
 * A fast-forward costs three round trips: the state (change request, heads, merge rules, reviews and the indexed
 * revision, one batch), what the index catch-up reads (nodes and documents that changed, one statement), and one
 * batch that moves main and the indexes together, so search and links are never behind a merge.
 */
export async function mergeChangeRequest(env: Env, target: ChangeRequestTarget): Promise<MergeOutput> {
  const db = createDb(env.DB);
  const [stateRows, ruleRows, reviewRows, indexedRows] = await db.batch([
    stateQuery(db, target),
    ...mergeRulesQueries(db, target.spaceId, target.changeRequestId),
    indexedQuery(db, target.spaceId),
  ]);
  const state = toState(stateRows[0]);
  assertWritable(state, 'merging');
  const { cr, spaceRevision } = state;
  const { rules, reviews } = toMergeRulesContext(ruleRows, reviewRows);
  assertMergeRules(rules, cr, isOutdated(cr, spaceRevision), target.userId, reviews);
  const base = mergeBase(cr);
  const now = nowIso();
  const writes: BatchItem[] = [];
  let result: IndexedRoots;
  let sources: CatchUpSources | undefined;
  // A change request without edits leaves main as it is.
  if (cr.revisionId === base) result = { id: spaceRevision, pages: state.main.pages, files: state.main.files };
  else {
    // Every merge is a `merge` revision (GitBook's; its `mergedFrom` is what GitBook's Git Sync integrations name the
    // export's commit after): of the change request's content when main has not moved (a fast-forward), else of the
    // three-way merge.
    const fastForward = spaceRevision === base;
    if (fastForward) assertContentCaps(env, state.main, state.head);
    const { content, nodes } = fastForward ? { content: state.head, nodes: [] } : await mergedRevision(env, db, state, 'main');
    const merged = newRevision(db, target.spaceId, 'merge', [spaceRevision, cr.revisionId], content, nodes, now, cr.id);
    writes.push(...merged.statements);
    result = { id: merged.id, pages: content.pages, files: content.files };
    // The merged nodes are not in D1 before the batch: the catch-up reads them from memory.
    if (!fastForward) sources = withNodes(d1Sources(db), nodes);
  }
  const indexed = indexedRows[0] ?? null;
  const catchUp =
    indexed?.id === result.id
      ? undefined
      : await planCatchUp(
          db,
          target.spaceId,
          indexed,
          result,
          sources ?? (await prefetchedSources(db, indexed, result, PAGES_REINDEXED_IN_MERGE)),
          PAGES_REINDEXED_IN_MERGE,
        );
  const indexWrites = catchUp ? catchUp.batches.flat() : [];
  const moveSpace = db
    .update(spaces)
    .set({ revisionId: result.id, updatedAt: now })
    .where(and(eq(spaces.id, target.spaceId), eq(spaces.revisionId, spaceRevision)));
  // Guarded on the space's move too: a change request is merged exactly when its content reached main.
  const markMerged = db
    .update(changeRequests)
    .set({ status: 'merged', revisionMerged: result.id, updatedAt: now })
    .where(
      and(
        eq(changeRequests.id, cr.id),
        eq(changeRequests.revisionId, cr.revisionId),
        sql`exists (select 1 from spaces s where s.id = ${target.spaceId} and s.revision_id = ${result.id})`,
      ),
    );
  const results = await runBatch(db, [
    ...writes,
    moveSpace,
    markMerged,
    refreshChangeRequestCounters(db, target.spaceId),
    contentUpdatedEvents(db, target.spaceId, result.id, target.userId, now),
    // After the move: each is guarded on main being the merged revision (catch-up).
    ...indexWrites,
  ]);
  assertMoved(results[writes.length], 'space');
  await enqueueEvents(env, eventIdsOf(results[writes.length + 3]));
  return { revision: result.id, indexed: !catchUp || indexWrites.length > 0 };
}

/** Sources that read `nodes` (written by the batch to come) from memory, the rest as `sources` do. */
function withNodes(sources: CatchUpSources, nodes: StoredNode[]): CatchUpSources {
  const own = new Map(nodes.map((n) => [n.hash, n.body]));
  return {
    ...sources,
    store: {
      async load(hashes) {
        const out = new Map(hashes.filter((h) => own.has(h)).map((h) => [h, JSON.parse(own.get(h)!) as NodeBody]));
        const missing = hashes.filter((h) => !own.has(h));
        if (missing.length) for (const [h, v] of await sources.store.load(missing)) out.set(h, v);
        return out;
      },
      loadPaths: (root, keys) => sources.store.loadPaths(root, keys),
    },
  };
}

/** Pulls main into the change request the same way (`update` revision); sets `revisionMergedAncestor`. */
export async function updateChangeRequest(env: Env, target: ChangeRequestTarget): Promise<HeadMoveOutput> {
  const db = createDb(env.DB);
  const state = await loadState(db, target);
  assertWritable(state, 'updating');
  const { cr, spaceRevision } = state;
  const base = mergeBase(cr);
  if (spaceRevision === base) return { revision: cr.revisionId };
  const now = nowIso();
  const writes: BatchItem[] = [];
  let result: string;
  // A fast-forward (the change request's content becomes main's) stores nothing new: it is never refused, even
  // when main is over a cap that was lowered since.
  if (cr.revisionId === base) result = spaceRevision;
  else {
    const { content, nodes } = await mergedRevision(env, db, state, 'theirs');
    const updated = newRevision(db, target.spaceId, 'update', [cr.revisionId, spaceRevision], content, nodes, now);
    writes.push(...updated.statements);
    result = updated.id;
  }
  const move = moveChangeRequestHead(db, cr.id, cr.revisionId, { revisionId: result, revisionMergedAncestor: spaceRevision, updatedAt: now });
  const results = await runBatch(db, [...writes, move]);
  assertMoved(results[writes.length], 'change request');
  return { revision: result };
}
