import { and, eq, sql, type SQL } from 'drizzle-orm';
import { createDb, runBatch, type Db } from '../../db/client';
import { changeRequestContributors, changeRequests, revisions, spaces } from '../../db/schema';
import type { Env } from '../../env';
import { contentUpdatedEvents, enqueueEvents, eventIdsOf } from '../integrations/events';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { nowIso } from '../../lib/time';
import type { ContentChange } from './batch';
import { changeRequestQuery, refreshChangeRequestCounters, type ChangeRequestWithContext } from './change-requests';
import { assertMoved, buildEdits, contentColumns, toContent, type ContentBatchOutput, type RevisionContent } from './head-moves';

/**
 * Edits built directly on a space's main content (its head revision): a content batch applied to
 * main (applyTemplateToSpace without a change request), or a change request opened with content
 * already in it (createChangeRequest with a template). Like every head move they run inside the
 * space's SpaceWriter, one at a time per space: each reads main's head, builds one new `edits`
 * revision whose parent is that head, and writes it in one batch; moving main is a compare-and-set
 * on the head it read, as a merge's is.
 */

export interface MainTarget {
  spaceId: string;
  userId: string;
}

export interface MainEditOutput extends ContentBatchOutput {
  /** The new head revision of the space. */
  revision: string;
}

interface MainState {
  deleted: boolean;
  editMode: string;
  head: RevisionContent;
}

/** The space's state and the roots of its head revision, in one query. */
async function loadMainState(db: Db, spaceId: string): Promise<MainState> {
  const row = await db
    .select({ deletedAt: spaces.deletedAt, editMode: spaces.editMode, head: contentColumns(revisions) })
    .from(spaces)
    .innerJoin(revisions, eq(revisions.id, spaces.revisionId))
    .where(eq(spaces.id, spaceId))
    .get();
  if (!row) throw new ApiError(404, 'Space not found');
  return { deleted: row.deletedAt !== null, editMode: row.editMode, head: toContent(row.head) };
}

/** A new revision on top of main's head with the changes applied (written by the caller, in its batch). */
async function buildOnMain(env: Env, db: Db, spaceId: string, changes: ContentChange[], action: string) {
  const state = await loadMainState(db, spaceId);
  if (state.deleted) throw badRequest('This space is deleted: restore it first');
  if (state.editMode === 'locked') throw new ApiError(403, `This space is locked: ${action} is not allowed`);
  const now = nowIso();
  // On main, a revert without a revision has nothing older to go back to than main itself.
  const { revision, result } = await buildEdits(env, db, spaceId, state.head, state.head, changes, now);
  return { head: state.head.id, revision, result, now };
}

/** Applies a content batch to the space's main content: a new head revision, moved to only if main is still where it was read. */
export async function applyMainContent(env: Env, target: MainTarget, changes: ContentChange[]): Promise<MainEditOutput> {
  const db = createDb(env.DB);
  const built = await buildOnMain(env, db, target.spaceId, changes, 'editing its main content');
  const moveSpace = db
    .update(spaces)
    .set({ revisionId: built.revision.id, updatedAt: built.now })
    .where(and(eq(spaces.id, target.spaceId), eq(spaces.revisionId, built.head)));
  const results = await runBatch(db, [...built.revision.statements, moveSpace, contentUpdatedEvents(db, target.spaceId, built.revision.id, target.userId, built.now)]);
  assertMoved(results[results.length - 2], 'space');
  await enqueueEvents(env, eventIdsOf(results[results.length - 1]));
  return { revision: built.revision.id, outcomes: built.result.outcomes, insertedFiles: built.result.files.map((f) => f.entry) };
}

export interface NewChangeRequest {
  id: string;
  spaceId: string;
  subject: string;
  userId: string;
  now: string;
  /** Its head revision, and the main revision it starts from (its base). */
  revisionId: string | SQL;
  revisionInitial: string | SQL;
}

/**
 * The statements that open a change request: the row, numbered next in its space inside the insert
 * (D1 runs writes one at a time, so numbers have no gaps), its creator as contributor, and the
 * space's counters. Shared by createChangeRequest and `createChangeRequestOnMain`.
 */
export function newChangeRequestStatements(db: Db, cr: NewChangeRequest) {
  return [
    db.insert(changeRequests).values({
      id: cr.id,
      spaceId: cr.spaceId,
      number: sql`(select coalesce(max(cr.number), 0) + 1 from change_requests cr where cr.space_id = ${cr.spaceId})`,
      status: 'open',
      subject: cr.subject,
      createdBy: cr.userId,
      createdAt: cr.now,
      updatedAt: cr.now,
      revisionId: cr.revisionId,
      revisionInitial: cr.revisionInitial,
    }),
    db.insert(changeRequestContributors).values({ changeRequestId: cr.id, userId: cr.userId, updatedAt: cr.now }),
    refreshChangeRequestCounters(db, cr.spaceId),
  ] as const;
}

/**
 * Opens a change request whose content is main's head with the changes applied: what creating it
 * and then applying the batch to it make (its base is main's head, its head an `edits` revision on
 * top), written at once, so a batch that fails leaves no empty change request behind. The content
 * is refused where a batch on a change request would be (a locked or deleted space). Main does not
 * move: the change request is simply based on the head read here.
 */
export async function createChangeRequestOnMain(
  env: Env,
  target: MainTarget & { subject: string },
  changes: ContentChange[],
): Promise<ChangeRequestWithContext> {
  const db = createDb(env.DB);
  const built = await buildOnMain(env, db, target.spaceId, changes, 'editing its content');
  const id = newId();
  const opened = newChangeRequestStatements(db, {
    id,
    spaceId: target.spaceId,
    subject: target.subject,
    userId: target.userId,
    now: built.now,
    revisionId: built.revision.id,
    revisionInitial: built.head,
  });
  const results = await runBatch(db, [...built.revision.statements, ...opened, changeRequestQuery(db, eq(changeRequests.id, id))]);
  const rows = results[results.length - 1] as ChangeRequestWithContext[];
  if (!rows[0]) throw new Error(`change request ${id} was not created`);
  return rows[0];
}
