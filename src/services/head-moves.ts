import { and, eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { createDb, runBatch, type BatchItem, type Db } from '../db/client';
import { changeRequestContributors, changeRequests, revisions, spaces } from '../db/schema';
import type { Env } from '../env';
import { ApiError, badRequest } from '../lib/errors';
import { newId } from '../lib/ids';
import { valuesOf } from '../lib/sql-lists';
import { nowIso } from '../lib/time';
import { applyContentBatch, revertRevisions, type ContentChange, type PageOutcome } from './content-batch';
import { assertMergeRules, effectiveMergeRules, isOutdated, mergeBase, refreshChangeRequestCounters, type ChangeRequestRow } from './change-requests';
import { storeFiles } from './files';
import { mergeManifests } from './merge';
import { insertDocuments, loadDocuments, parseManifest, type FileEntry, type Manifest } from './revisions';

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

interface ChangeRequestState {
  cr: ChangeRequestRow;
  spaceRevision: string;
  spaceDeleted: boolean;
  editMode: string;
  head: Manifest;
  /** Parsed on first use: a content batch needs the base only to revert, and never main. */
  base: () => Manifest;
  main: () => Manifest;
}

function lazyManifest(text: string | null): () => Manifest {
  let parsed: Manifest | undefined;
  return () => {
    if (text === null) throw new Error('This manifest was not read for this head move');
    return (parsed ??= parseManifest(text));
  };
}

/**
 * The change request, the space's head, and the manifests of the revisions the move needs, in one
 * query; main's manifest (up to the size of a D1 row) is only read for merges and updates.
 */
async function loadState(db: Db, target: ChangeRequestTarget, withMain: boolean): Promise<ChangeRequestState> {
  const head = alias(revisions, 'head');
  const base = alias(revisions, 'base');
  const main = alias(revisions, 'main');
  const row = await db
    .select({
      cr: changeRequests,
      spaceRevision: sql<string>`${spaces.revisionId}`.as('space_revision'),
      spaceDeleted: sql<string | null>`${spaces.deletedAt}`.as('space_deleted'),
      editMode: sql<string>`${spaces.editMode}`.as('space_edit_mode'),
      head: sql<string>`${head.manifest}`.as('head_manifest'),
      base: sql<string>`${base.manifest}`.as('base_manifest'),
      main: (withMain ? sql<string | null>`${main.manifest}` : sql<string | null>`null`).as('main_manifest'),
    })
    .from(changeRequests)
    .innerJoin(spaces, eq(spaces.id, changeRequests.spaceId))
    .innerJoin(head, eq(head.id, changeRequests.revisionId))
    .innerJoin(base, eq(base.id, sql`coalesce(${changeRequests.revisionMergedAncestor}, ${changeRequests.revisionInitial})`))
    .innerJoin(main, eq(main.id, spaces.revisionId))
    .where(and(eq(changeRequests.id, target.changeRequestId), eq(changeRequests.spaceId, target.spaceId)))
    .get();
  if (!row) throw new ApiError(404, 'Change request not found');
  return {
    cr: row.cr,
    spaceRevision: row.spaceRevision,
    spaceDeleted: row.spaceDeleted !== null,
    editMode: row.editMode,
    head: parseManifest(row.head),
    base: lazyManifest(row.base),
    main: lazyManifest(row.main),
  };
}

function assertWritable(state: ChangeRequestState, action: string) {
  if (state.spaceDeleted) throw badRequest('This space is deleted: restore it first');
  if (state.editMode === 'locked') throw new ApiError(403, `This space is locked: ${action} is not allowed`);
  if (state.cr.status === 'merged' || state.cr.status === 'archived') {
    throw badRequest(`This change request is ${state.cr.status}: ${action} is not allowed`);
  }
}

/**
 * A revision row holds its whole manifest (page tree and file list, not page bodies): D1 caps a row at
 * 2 MB, which is several thousand pages and files. Past that the space cannot take more content.
 */
const MAX_MANIFEST_BYTES = 1_900_000;

function newRevision(db: Db, spaceId: string, type: string, parents: string[], manifest: Manifest, now: string, mergedFrom?: string) {
  const id = newId();
  const text = JSON.stringify(manifest);
  if (text.length > MAX_MANIFEST_BYTES) throw new ApiError(413, `The space's page tree and file list would take ${text.length} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
  return {
    id,
    statement: db.insert(revisions).values({ id, spaceId, type, parents, manifest: text, mergedFrom, createdAt: now }),
  };
}

/** Moves the change request's head from `expected` to `next`, only if nobody moved it meanwhile. */
function moveChangeRequestHead(db: Db, crId: string, expected: string, set: Partial<ChangeRequestRow>) {
  return db
    .update(changeRequests)
    .set(set)
    .where(and(eq(changeRequests.id, crId), eq(changeRequests.revisionId, expected)));
}

function assertMoved(result: unknown, what: string) {
  const changes = (result as { meta?: { changes?: number } }).meta?.changes;
  if (changes !== 1) throw new ApiError(409, `The ${what} changed while this request was applied; try again`);
}

export interface ContentBatchOutput {
  outcomes: PageOutcome[];
  insertedFiles: FileEntry[];
}

export async function applyChangeRequestContent(env: Env, target: ChangeRequestTarget, changes: ContentChange[]): Promise<ContentBatchOutput> {
  const db = createDb(env.DB);
  const state = await loadState(db, target, false);
  assertWritable(state, 'editing its content');
  const named = revertRevisions(changes);
  const revisionRows = named.length
    ? await db
        .select({ id: revisions.id, manifest: revisions.manifest })
        .from(revisions)
        .where(and(eq(revisions.spaceId, target.spaceId), sql`${revisions.id} in ${valuesOf(named)}`))
        .all()
    : [];
  const now = nowIso();
  const result = await applyContentBatch(state.head, changes, {
    baseManifest: state.base,
    revisionManifests: new Map(revisionRows.map((r) => [r.id, parseManifest(r.manifest)])),
    loadDocument: async (hash) => (await loadDocuments(db, [hash])).get(hash),
    now,
  });
  await storeFiles(env.FILES, result.files);
  const revision = newRevision(db, target.spaceId, 'edits', [state.cr.revisionId], result.manifest, now);
  const results = await runBatch(db, [
    ...insertDocuments(db, target.spaceId, result.documents, now),
    revision.statement,
    db.insert(changeRequestContributors).values({ changeRequestId: state.cr.id, userId: target.userId }).onConflictDoNothing(),
    moveChangeRequestHead(db, state.cr.id, state.cr.revisionId, { revisionId: revision.id, updatedAt: now }),
  ]);
  const moved = results[results.length - 1];
  assertMoved(moved, 'change request');
  return { outcomes: result.outcomes, insertedFiles: result.files.map((f) => f.entry) };
}

export interface HeadMoveOutput {
  revision: string;
}

/**
 * Merges the change request into the space: a fast-forward when main has not moved since the
 * change request's base, else a three-way merge into a new `merge` revision. 409 on conflicts.
 */
export async function mergeChangeRequest(env: Env, target: ChangeRequestTarget): Promise<HeadMoveOutput> {
  const db = createDb(env.DB);
  const state = await loadState(db, target, true);
  assertWritable(state, 'merging');
  const { cr, spaceRevision } = state;
  assertMergeRules(await effectiveMergeRules(db, target.spaceId), cr, isOutdated(cr, spaceRevision), target.userId);
  const base = mergeBase(cr);
  const now = nowIso();
  const writes: BatchItem[] = [];
  let result: string;
  if (spaceRevision === base) result = cr.revisionId;
  else if (cr.revisionId === base) result = spaceRevision;
  else {
    const merged = newRevision(db, target.spaceId, 'merge', [spaceRevision, cr.revisionId], mergeManifests(state.base(), state.main(), state.head), now, cr.id);
    writes.push(merged.statement);
    result = merged.id;
  }
  const moveSpace = db
    .update(spaces)
    .set({ revisionId: result, updatedAt: now })
    .where(and(eq(spaces.id, target.spaceId), eq(spaces.revisionId, spaceRevision)));
  // Guarded on the space's move too: a change request is merged exactly when its content reached main.
  const markMerged = db
    .update(changeRequests)
    .set({ status: 'merged', revisionMerged: result, updatedAt: now })
    .where(
      and(
        eq(changeRequests.id, cr.id),
        eq(changeRequests.revisionId, cr.revisionId),
        sql`exists (select 1 from spaces s where s.id = ${target.spaceId} and s.revision_id = ${result})`,
      ),
    );
  const results = await runBatch(db, [...writes, moveSpace, markMerged, refreshChangeRequestCounters(db, target.spaceId)]);
  assertMoved(results[writes.length], 'space');
  return { revision: result };
}

/** Pulls main into the change request the same way (`update` revision); sets `revisionMergedAncestor`. */
export async function updateChangeRequest(env: Env, target: ChangeRequestTarget): Promise<HeadMoveOutput> {
  const db = createDb(env.DB);
  const state = await loadState(db, target, true);
  assertWritable(state, 'updating');
  const { cr, spaceRevision } = state;
  const base = mergeBase(cr);
  if (spaceRevision === base) return { revision: cr.revisionId };
  const now = nowIso();
  const writes: BatchItem[] = [];
  let result: string;
  if (cr.revisionId === base) result = spaceRevision;
  else {
    const updated = newRevision(db, target.spaceId, 'update', [cr.revisionId, spaceRevision], mergeManifests(state.base(), state.main(), state.head), now);
    writes.push(updated.statement);
    result = updated.id;
  }
  const move = moveChangeRequestHead(db, cr.id, cr.revisionId, { revisionId: result, revisionMergedAncestor: spaceRevision, updatedAt: now });
  const results = await runBatch(db, [...writes, move]);
  assertMoved(results[writes.length], 'change request');
  return { revision: result };
}
