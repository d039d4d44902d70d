import { and, eq, inArray, sql } from 'drizzle-orm';
import { changedRows, createDb, rawRun, runBatch, type Db } from '../../db/client';
import { gitSyncImportProgress, gitSyncImportRows, gitSyncOperations, gitSyncStates, revisionGit, spaceIndexState, spaceLinks, spaces } from '../../db/schema/index';
import { spaceWriter, throughWriter, type WriterResult } from '../../durable-objects/space-writer';
import { IMPORT_PAST_DEADLINE, IMPORT_PROGRESS_MOVED, type GitImportOutput, type GitImportTarget } from './apply';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { nowIso } from '../../lib/time';
import { newId } from '../../lib/ids';
import { GIT_SYNC_JOB } from '../../jobs/git-sync';
import { enqueueEvents, eventIdsOf, insertSpaceEvents } from '../integrations/events';
import { decryptSecret } from '../integrations/crypto';
import { importFileId, importProgressOf, loadSyncedSpace, readRevisionTree } from './content';
import { importSlices, type IMPORT_SLICE } from './markdown-parcels';
import { discardSlices, storedSlices, storeSlices } from './stored-plan';
import { runExport } from './export';
import { planImport } from './import';
import { gitSyncMaxFileBytes, r2AssetStore, type DiscardableAssetStore } from './assets';
import { GitSession } from './transport';
import { redact, type GitCredentials } from './urls';
import { r2TreeCache } from './tree-cache';
import { cleanPath } from './layout';

/**
 * Git Sync operations (GitBook's importGitRepository and exportToGitRepository), as the queue consumer runs
 * them (jobs/git-sync.ts -> `runGitSyncOperation`; services/git-sync/queue records and queues them).
 *
 * - One at a time per space: an operation is claimed only while no other of its space is running (a running
 *   one older than the operation timeout is marked `timeout` first); a message that finds one running is
 *   retried later by the queue.
 * - In timestamp order: an operation whose `timestamp` is older than the newest one the space has accepted is
 *   skipped (nothing done; its row says why, and git/info keeps the operation that last ran), unless `force`.
 * - No loops: an import of the commit the space's head already came from (its `git.oid`) changes nothing.
 * - The credentials are deleted when the operation ends, whatever the outcome; errors are redacted of them.
 * - The state GitBook's getSpaceGitInfo answers (git_sync_states) tells the latest operation: running,
 *   success, failure (with the error) or timeout.
 */

import { GIT_OPERATION_TIMEOUT_MS, spaceGitSyncOf, type GitOperationRequest } from './queue';
import { abandonGitOperation, endRunning, endRunningOperations, ENDED_REQUEST, GIT_SYNC_MAX_DELIVERIES } from './cleanup';
type OperationRow = typeof gitSyncOperations.$inferSelect;
type StoredProgress = Awaited<ReturnType<typeof importProgressOf>>;

/**
 * How long one run (one message) of an import works before it queues its continuation and returns: inside a queue
 * consumer's 5 minutes of CPU (limits.cpu_ms). A Worker cannot read its own CPU time: this counts the run's wall time
 * less what it spent waiting for the writer's calls (another isolate's CPU), which is never less than its CPU. The
 * continuation plans again (its cost: the fetch and plan once more) and goes on from the last slice stored.
 */
export const GIT_RUN_BUDGET_MS = 4 * 60 * 1000;

/** Where a run of the operation stands against its limits (the operation's time, the run's budget); `clock` is a test seam. */
interface Pace {
  clock: () => number;
  /** The operation's limit: queued at, plus GIT_OPERATION_TIMEOUT_MS (GitBook's `operationTimeout`). */
  deadline: number;
  /** When this run began, its budget (GIT_RUN_BUDGET_MS), and the time it spent waiting for writer calls. */
  began: number;
  budget: number;
  waited: number;
}

/** The run's own time (its wall time less its writer calls') passed its budget: it hands over to a continuation. */
const spent = (pace: Pace) => pace.clock() - pace.began - pace.waited >= pace.budget;

/** The operation's time ran out: it ends `timeout`, and nothing of an import is visible (apply.ts refuses its last batch). */
class OperationTimedOut extends Error {}

function assertInTime(pace: Pace) {
  if (pace.clock() >= pace.deadline) throw new OperationTimedOut();
}

/**
 * Claims the operation if no other of its space runs (stale ones are marked as timed out first). A running import is
 * resumed by a message delivered again (its consumer died, while planning too: `attempts` > 1) or one that finds slices
 * stored (the continuation a run queued once it stored one and its budget ran out); what those slices stored is answered
 * (`progress`): the one read of it per run.
 */
async function claim(
  env: Env,
  db: Db,
  operationId: string,
  limitMs: number,
  again: boolean,
): Promise<{ row: OperationRow | null; busy: boolean; resumed?: boolean; progress?: StoredProgress }> {
  const row = await db.select().from(gitSyncOperations).where(eq(gitSyncOperations.id, operationId)).get();
  if (row && row.state === 'running' && Date.parse(row.createdAt) < Date.now() - limitMs) {
    // A delivery of a message whose earlier run was stopped (the Worker went away mid-way): it is over.
    await endRunning(env, db, endRunningOperations(db, row.spaceId, sql`o.id = ${row.id}`, STALE, nowIso()));
    return { row: null, busy: false };
  }
  // A message delivered again while its import is running: the run before stopped (its consumer died, while planning too,
  // or handed over), and this one continues it from its last stored slice, or plans it from the start if none was stored
  // (a run still going would find its next slice taken: 412).
  if (row && row.state === 'running' && row.direction === 'import') {
    const progress = await importProgressOf(db, row.id);
    if (progress || again) return { row, busy: false, resumed: true, progress };
  }
  // A message delivered again while its export is running: the run before stopped (a queue delivers a message again once
  // the consumer that had it is gone), after its push or before it; this one ends it, never pushing twice (work()).
  if (row && row.state === 'running' && row.direction === 'export' && again) return { row, busy: false, resumed: true };
  if (!row || row.state !== 'pending') return { row: null, busy: false };
  const now = nowIso();
  const staleBefore = new Date(Date.now() - limitMs).toISOString();
  // Another operation of the space left running past its limit ends as its own run would have (git/info, the event).
  const stale = endRunningOperations(db, row.spaceId, sql`o.created_at < ${staleBefore}`, STALE, now);
  const [claimed] = await endRunning(env, db, stale, [
    rawRun(
      db,
      sql`update git_sync_operations set state = 'running' where id = ${operationId} and state = 'pending'
        and not exists (select 1 from git_sync_operations o where o.space_id = ${row.spaceId} and o.state = 'running' and o.id <> ${operationId})`,
    ),
  ]);
  return changedRows(claimed) > 0 ? { row, busy: false } : { row, busy: true };
}

const STALE = { state: 'timeout', error: 'the operation did not finish in time' } as const;

/**
 * Queues the operation's next run (same operation id) before this one's budget runs out. False if the queue refused it:
 * the run then goes on itself rather than leave the import to the message's redelivery.
 */
async function sendContinuation(env: Env, operationId: string): Promise<boolean> {
  try {
    await env.JOBS.send({ id: newId(), type: GIT_SYNC_JOB, payload: { operationId } });
    return true;
  } catch (error) {
    console.error(`git sync ${operationId}: the continuation was not queued; this run goes on`, error);
    return false;
  }
}

/**
 * The space's Git info with the provider its sync state holds (queue.ts: the setup's gitInfo, kept by the pushes and
 * exports that send none), not the one a request without gitInfo guesses from its host.
 */
function withStateProvider(gitSync: ReturnType<typeof spaceGitSyncOf>, spaceId: string) {
  const provider = sql`coalesce((select ${gitSyncStates.provider} from ${gitSyncStates} where ${gitSyncStates.spaceId} = ${spaceId}), ${gitSync.installationProvider})`;
  return sql`json_set(${JSON.stringify(gitSync)}, '$.installationProvider', ${provider}, '$.integration', ${provider})`;
}

/**
 * Ends the operation, in one batch, if it is still `running`: one that a later message found stale, or that another of
 * its space's claim marked `timeout`, stays as git/info already reported it (no `success` after a `timeout`), and nothing
 * else of this ending (the space's state, its Git Sync, the completed event) is written. The operation's own update comes
 * last, so every statement before it reads it still running.
 */
async function finish(
  env: Env,
  db: Db,
  row: OperationRow,
  outcome: { state: 'success' | 'failure' | 'timeout' | 'skipped'; error?: string; revisionId?: string; commitId?: string; timestamp?: boolean; stats?: Record<string, unknown> },
) {
  const now = nowIso();
  const visible = outcome.state === 'skipped' ? 'success' : outcome.state;
  const stillRunning = sql`exists (select 1 from git_sync_operations o where o.id = ${row.id} and o.state = 'running')`;
  const event =
    outcome.state === 'skipped'
      ? null
      : insertSpaceEvents(
          db,
          row.spaceId,
          'space_gitsync_completed',
          { state: visible === 'success' ? 'success' : 'failure', revisionId: outcome.revisionId ?? '', commitId: outcome.commitId ?? '' },
          now,
          { when: stillRunning },
        );
  const statements = [
    // What the import's slices stored for its last call (apply.ts GitImportProgress): nothing of it is read after its end.
    db.delete(gitSyncImportRows).where(eq(gitSyncImportRows.operationId, row.id)),
    db.delete(gitSyncImportProgress).where(eq(gitSyncImportProgress.operationId, row.id)),
    outcome.state === 'skipped'
      ? lastRunShown(db, row, now)
      : db
          .update(gitSyncStates)
          .set({
            opState: visible,
            opEndedAt: now,
            opError: outcome.error ?? null,
            updatedAt: now,
            ...(outcome.timestamp && row.timestamp ? { lastTimestamp: sql`max(coalesce(${gitSyncStates.lastTimestamp}, ''), ${row.timestamp})` } : {}),
          })
          .where(and(eq(gitSyncStates.spaceId, row.spaceId), eq(gitSyncStates.opId, row.id), stillRunning)),
    // Once an operation succeeded, the space says which repository it syncs with (GitBook's Space.gitSync).
    ...(outcome.state === 'success'
      ? [db.update(spaces).set({ gitSync: withStateProvider(spaceGitSyncOf(JSON.parse(row.request) as GitOperationRequest, now), row.spaceId) }).where(and(eq(spaces.id, row.spaceId), stillRunning))]
      : []),
    ...(event ? [event] : []),
    db
      .update(gitSyncOperations)
      .set({
        state: outcome.state,
        secret: null,
        endedAt: now,
        error: outcome.error ?? null,
        ...(outcome.stats ? { stats: withoutZeros(outcome.stats) } : {}),
        // An export that may have pushed without recording it keeps its request for the import of that commit (ENDED_REQUEST).
        ...(outcome.state !== 'success' && outcome.stats?.pushing ? {} : { request: ENDED_REQUEST }),
      })
      .where(and(eq(gitSyncOperations.id, row.id), eq(gitSyncOperations.state, 'running'))),
  ];
  const results = await runBatch(db, statements);
  if (event) await enqueueEvents(env, eventIdsOf(results[statements.indexOf(event)]));
  return changedRows(results[results.length - 1]) > 0;
}

/**
 * What git/info answers once an operation was skipped (an import older than the newest accepted): the space's operation
 * that last ran, as it ended, not a `success` of the skipped one, which imported nothing. GitBook's GitSyncState has one
 * `operation`, "the latest operation", in `running | failure | success | timeout`: no state says "not run", and a
 * `failure` would say something went wrong where the space is in step with a newer commit. None ran before (pruned):
 * no operation. Only while git/info still reports the skipped one (a later request shows its own).
 */
function lastRunShown(db: Db, row: OperationRow, now: string) {
  return rawRun(
    db,
    sql`update git_sync_states set (op_id, op_direction, op_state, op_started_at, op_ended_at, op_error) =
        (select o.id, o.direction, o.state, o.created_at, o.ended_at, o.error from git_sync_operations o
          where o.space_id = ${row.spaceId} and o.id <> ${row.id} and o.state in ('success', 'failure', 'timeout')
          order by o.created_at desc, o.rowid desc limit 1), updated_at = ${now}
      where space_id = ${row.spaceId} and op_id = ${row.id}
        and exists (select 1 from git_sync_operations o where o.id = ${row.id} and o.state = 'running')`,
  );
}

/**
 * An operation's stats as its row keeps them: counts and phases that are zero left out (a re-import's row held a dozen
 * of them); a reader takes a missing count as zero.
 */
export function withoutZeros(stats: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stats)) {
    if (value === 0) continue;
    kept[key] = value && typeof value === 'object' && !Array.isArray(value) ? withoutZeros(value as Record<string, unknown>) : value;
  }
  return kept;
}

/** The commit an export made of a revision, as the operation's stats record it from just before its push. */
interface PushedCommit {
  commit: string;
  revisionId: string;
  message: string;
}

const exportedGit = (request: GitOperationRequest, pushed: PushedCommit) => ({
  oid: pushed.commit,
  message: pushed.message,
  url: request.repoCommitURL ? `${request.repoCommitURL.replace(/\/+$/, '')}/${pushed.commit}` : null,
  ref: request.ref,
  createdByGitBook: true,
});

/**
 * Just before an export's push: past the operation's limit, or once it ended meanwhile (a later delivery of its
 * message timed it out), nothing is pushed; else the commit is recorded on the operation first, so that whatever ends
 * it, and the next import of that commit, know the repository may hold it.
 */
async function claimPush(db: Db, row: OperationRow, pace: Pace, pushing: PushedCommit) {
  assertInTime(pace);
  const claimed = await rawRun(
    db,
    sql`update git_sync_operations set stats = json_set(coalesce(stats, '{}'), '$.pushing', json(${JSON.stringify(pushing)})) where id = ${row.id} and state = 'running'`,
  );
  if (changedRows(claimed) === 0) throw new OperationTimedOut();
}

/**
 * An export whose push the remote accepted after the operation was ended (`timeout`, by another delivery or the sweep):
 * the revision records the commit already (recordGitExport), and the operation, git/info and the space's Git Sync say so.
 * Its state stays what git/info and the completed event reported (GitBook's GitSyncOperationState has nothing between).
 */
async function recordPushAfterEnd(db: Db, row: OperationRow, request: GitOperationRequest, pushed: PushedCommit) {
  const now = nowIso();
  // In place of the ending's "may have reached the repository" (cleanup.ts endRunningOperations): it did.
  const error = `${STALE.error}; its commit ${pushed.commit} was pushed to ${request.ref} before it ended: the space's revision records it, and an import of that commit changes nothing`;
  await runBatch(db, [
    rawRun(db, sql`update git_sync_operations set error = ${error} where id = ${row.id} and state in ('timeout', 'failure')`),
    rawRun(
      db,
      sql`update git_sync_states set op_error = ${error}, updated_at = ${now}
        where space_id = ${row.spaceId} and op_id = ${row.id} and op_state in ('timeout', 'failure')`,
    ),
    db.update(spaces).set({ gitSync: withStateProvider(spaceGitSyncOf(request, now), row.spaceId) }).where(eq(spaces.id, row.spaceId)),
  ]);
}

/**
 * An import of the commit an export of this head pushed before the operation ended otherwise (its consumer died after
 * the push, or it timed out before it recorded it): the remote has it, so it is the space's content; the head records
 * the commit (as the export would have) and the import changes nothing (no loop, no second revision).
 */
async function recordUnfinishedExport(env: Env, db: Db, spaceId: string, headId: string, oid: string): Promise<boolean> {
  const found = await db
    .select({ request: gitSyncOperations.request, pushing: sql<string>`json_extract(${gitSyncOperations.stats}, '$.pushing')` })
    .from(gitSyncOperations)
    .where(
      and(
        eq(gitSyncOperations.spaceId, spaceId),
        eq(gitSyncOperations.direction, 'export'),
        sql`${gitSyncOperations.state} in ('timeout', 'failure')`,
        sql`json_extract(${gitSyncOperations.stats}, '$.pushing.commit') = ${oid}`,
        sql`json_extract(${gitSyncOperations.stats}, '$.pushing.revisionId') = ${headId}`,
      ),
    )
    .get();
  if (!found) return false;
  const git = exportedGit(JSON.parse(found.request) as GitOperationRequest, JSON.parse(found.pushing) as PushedCommit);
  await throughWriter(spaceWriter(env, spaceId).recordGitExport({ spaceId, revisionId: headId, git }));
  return true;
}

/** The operation's credentials, decrypted (null when its URL carried none). */
async function credentialsOf(env: Env, row: OperationRow): Promise<GitCredentials | null> {
  return row.secret ? (JSON.parse(await decryptSecret(env, row.secret)) as GitCredentials) : null;
}

/**
 * An import queued while an export of its space runs, once that export pushed the commit the branch is at (the push's own
 * webhook: GitBook's integrations import on every push): the import of the space's own commit changes nothing, and ends
 * so now, rather than wait behind the export (until it times out, if its consumer died). The export records the commit
 * (its own run, its message delivered again, or the next import: recordUnfinishedExport).
 */
async function endedAsOwnPush(env: Env, db: Db, row: OperationRow): Promise<boolean> {
  const request = JSON.parse(row.request) as GitOperationRequest;
  if (row.direction !== 'import' || request.force || request.standalone) return false;
  const pushing = sql<string>`json_extract(${gitSyncOperations.stats}, '$.pushing.commit')`;
  const exporting = await db
    .select({ commit: pushing })
    .from(gitSyncOperations)
    .where(and(eq(gitSyncOperations.spaceId, row.spaceId), eq(gitSyncOperations.direction, 'export'), eq(gitSyncOperations.state, 'running'), sql`${pushing} is not null`))
    .get();
  if (!exporting) return false;
  let head: string | null;
  try {
    head = await new GitSession(env, request.url, await credentialsOf(env, row)).headOf(request.ref);
  } catch {
    // Not known now: the import waits for the export, as any other.
    return false;
  }
  if (head !== exporting.commit) return false;
  const claimed = await rawRun(db, sql`update git_sync_operations set state = 'running' where id = ${row.id} and state = 'pending'`);
  if (changedRows(claimed) === 0) return true;
  await started(env, db, row, '', head);
  await finish(env, db, row, { state: 'success', commitId: head, timestamp: true });
  return true;
}

async function started(env: Env, db: Db, row: OperationRow, revisionId: string, commitId: string) {
  const results = await runBatch(db, [insertSpaceEvents(db, row.spaceId, 'space_gitsync_started', { revisionId, commitId }, nowIso())]);
  await enqueueEvents(env, eventIdsOf(results[0]));
}

/**
 * Runs one queued operation to its end; throws only to have the queue retry it later (another operation of the space
 * is running), except on the message's last delivery (`attempts`), where the operation ends as a failure instead.
 */
export async function runGitSyncOperation(env: Env, operationId: string, attempts = 1, seams: ImportSeams = {}): Promise<void> {
  const db = createDb(env.DB);
  const limitMs = seams.timeLimitMs ?? GIT_OPERATION_TIMEOUT_MS;
  const { row, busy, resumed, progress } = await claim(env, db, operationId, limitMs, attempts > 1);
  if (busy && row && (await endedAsOwnPush(env, db, row))) return;
  if (busy && attempts >= GIT_SYNC_MAX_DELIVERIES) {
    await abandonGitOperation(env, operationId, 'another operation of the space ran the whole time this one waited: it was not run');
    return;
  }
  if (busy) throw new Error(`git sync ${operationId}: another operation of the space is running; retried later`);
  if (!row) return;
  // The run before had the writer apply its last call (the batch set the revision) and stopped before it ended the operation
  // (the answer was lost, or the ending failed): the import is the space's content, and ends as it did.
  if (resumed && row.direction === 'import' && row.revisionId) {
    await finish(env, db, row, { state: 'success', revisionId: row.revisionId, commitId: await commitOf(db, row.revisionId), timestamp: true, error: APPLIED_UNANSWERED });
    return;
  }
  const request = JSON.parse(row.request) as GitOperationRequest;
  let credentials: GitCredentials | null;
  try {
    credentials = await credentialsOf(env, row);
  } catch {
    await finish(env, db, row, { state: 'failure', error: 'the credentials of the operation could not be read' });
    return;
  }
  // In timestamp order: an operation older than the newest one accepted is skipped, unless forced.
  if (!resumed && !request.force && row.timestamp) {
    const state = await db.select({ last: gitSyncStates.lastTimestamp }).from(gitSyncStates).where(eq(gitSyncStates.spaceId, row.spaceId)).get();
    if (state?.last && Date.parse(row.timestamp) < Date.parse(state.last)) {
      const error = `skipped: its timestamp ${row.timestamp} is older than the newest the space accepted (${state.last}); nothing was ${row.direction === 'export' ? 'exported' : 'imported'} (with \`force\`, it is)`;
      await finish(env, db, row, { state: 'skipped', error });
      return;
    }
  }
  let commitId = '';
  let revisionId = '';
  // The limit is checked at every step (after the fetch, the plan, before each writer call) and by the writer itself
  // (apply.ts): a timer racing the work did not fire while the isolate's thread was busy (under Miniflare every Worker and
  // the writer share one), and when it fired the work went on and could move the head after `timeout` was recorded.
  const clock = seams.clock ?? Date.now;
  const pace: Pace = { clock, deadline: Date.parse(row.createdAt) + limitMs, began: clock(), budget: seams.runBudgetMs ?? GIT_RUN_BUDGET_MS, waited: 0 };
  let session: GitSession | undefined;
  // The commit an export is about to push, or pushed (claimPush).
  let pushing: PushedCommit | undefined;
  // One store for every attempt of the plan: what it stored is deleted if the import fails.
  let assets: DiscardableAssetStore | undefined;
  // Wall time of each step, in the operation's stats: where an import's time goes (the benchmark reports it).
  const phases: Record<string, number> = {};
  const timed = async <T>(phase: string, step: () => Promise<T>): Promise<T> => {
    const began = Date.now();
    try {
      return await step();
    } finally {
      phases[phase] = (phases[phase] ?? 0) + Date.now() - began;
    }
  };
  /** Applies the import's slices from `startAt`; answers its outcome, or the writer's refusal when the head moved (409). */
  const applyImport = async (slices: PlannedSlice[], startAt: number, planWarnings: string[], handOver: (first: number) => Promise<boolean>) => {
    const writing = Date.now();
    const result = await applyInSlices(env, row, slices, startAt, phases, seams, pace, handOver);
    phases.writerMs = (phases.writerMs ?? 0) + Date.now() - writing;
    // Stopped after a slice (the seam), handed over to its continuation, or another run of the operation went on with it: that run ends it.
    if (result === 'stopped' || result === 'continued' || (!result.ok && result.status === IMPORT_PROGRESS_MOVED)) return 'left';
    if (!result.ok && result.status === IMPORT_PAST_DEADLINE) throw new OperationTimedOut();
    if (!result.ok && result.status === 409) return { moved: result.message };
    if (!result.ok) throw new ApiError(result.status as ApiError['status'], result.message);
    revisionId = result.value.revision;
    phases.writerDocumentBatches = result.value.documentBatches;
    phases.writerDocumentDeltas = result.value.documentDeltas;
    // The search and link indexes, in a writer call of their own (its own CPU); one that fails is caught up by the cron.
    if (!request.standalone) await timed('indexMs', () => reindexAfterImport(env, row.spaceId));
    const warnings = [...planWarnings, ...result.value.warnings];
    return warnings.length > 0 ? `imported; ${warnings.length} warning(s): ${warnings.slice(0, 5).join('; ')}` : 'imported';
  };
  /**
   * An export whose run stopped after its push (its message came again): nothing is pushed again. The revision it pushed
   * records the commit, with the entries an export of the same head onto that commit reads (nothing to write: the entries
   * of the pushed files), or, where the head moved since or the export would write something, the entries as they were.
   */
  const recordStoppedPush = async (space: Awaited<ReturnType<typeof loadSyncedSpace>>, pushed: PushedCommit, oid: string) => {
    pushing = pushed;
    commitId = pushed.commit;
    revisionId = pushed.revisionId;
    const same = space.head.id === pushed.revisionId ? await runExport(env, db, session!, { spaceId: row.spaceId, request, remoteHead: oid, space, recordOnly: true }) : null;
    const rows = same && same.commit === null && same.unchanged ? { rows: same.rows, pathPrefix: same.pathPrefix } : {};
    await throughWriter(spaceWriter(env, row.spaceId).recordGitExport({ spaceId: row.spaceId, revisionId: pushed.revisionId, ...rows, git: exportedGit(request, pushed) }));
    return 'exported';
  };
  // The runs before this one of a handed-over import (their phases: the first one's fetch and plan), kept in the stats.
  const earlierRuns = Array.isArray(row.stats?.earlierRuns) ? (row.stats.earlierRuns as unknown[]) : [];
  /**
   * Hands the import over to its continuation: this run's stats recorded on the operation first (the row keeps only the
   * last run's otherwise: a handed-over vngcloud/docs import reported its writer's phases and none of its plan's).
   */
  const handOverRun = async () => {
    const runs = [...earlierRuns, withoutZeros({ ...session?.stats, phases })];
    await rawRun(db, sql`update git_sync_operations set stats = json_set(coalesce(stats, '{}'), '$.earlierRuns', json(${JSON.stringify(runs)})) where id = ${row.id} and state = 'running'`).catch((error) =>
      console.error(`git sync ${row.id}: the stats of the run were not recorded`, error),
    );
    return sendContinuation(env, row.id);
  };
  const work = async () => {
    // A continuation whose run before stored the slices it left (stored-plan.ts): applied without a fetch or a plan.
    if (row.direction === 'import' && resumed && progress) {
      const stored = await timed('storedMs', () => storedSlices(env.FILES, row.id, progress));
      if (stored) {
        commitId = progress.commit;
        phases.storedPlan = 1;
        const outcome = await applyImport(stored.slices, progress.next, stored.warnings, handOverRun);
        // The head moved meanwhile: planned again below, from the start.
        if (typeof outcome === 'string') return outcome;
      }
    }
    session = new GitSession(env, request.url, credentials);
    // The trees the space's last operation read from a server without `filter` (tree-cache.ts): the stream is of what changed.
    // The project directory: the files a streamed pack keeps as they pass (all of them from a server without protocol v2,
    // which cannot be asked for one later; an import's small ones from a v2 server without `filter`).
    const projectDirectory = cleanPath(request.repoProjectDirectory ?? '');
    const oid = await timed('refMs', () => session!.fetchRef(request.ref, { trees: r2TreeCache(env.FILES, row.spaceId, request.url), projectDirectory, readsFiles: row.direction === 'import' }));
    assertInTime(pace);
    if (row.direction === 'import') {
      if (!oid) throw new Error(`the ref ${request.ref} does not exist in the repository`);
      commitId = oid;
      assets = r2AssetStore(env.FILES, row.id, async (other) => (await revisionMadeBy(db, other)) !== null);
      for (let attempt = 0; ; attempt++) {
        const space = await timed('spaceMs', () => loadSyncedSpace(db, row.spaceId));
        revisionId = space.head.id;
        if (attempt === 0 && !resumed) await started(env, db, row, revisionId, oid);
        if (!request.force && !request.standalone && space.headGitOid === oid) return 'unchanged';
        // The commit an export of this head pushed before it ended otherwise (timed out, its consumer died): recorded now.
        if (!request.force && !request.standalone && attempt === 0 && (await recordUnfinishedExport(env, db, row.spaceId, space.head.id, oid))) return 'unchanged';
        const head = await timed('spaceMs', () => readRevisionTree(db, space.head));
        const newFileId = (blob: string) => importFileId(row.id, blob);
        const fileReferrers = (fileIds: string[]) => pagesShowingFiles(db, row.spaceId, space.head.id, fileIds);
        const plan = await timed('planMs', () => planImport(session!, oid, { projectDirectory: request.repoProjectDirectory, maxFileBytes: gitSyncMaxFileBytes(env), assets: assets!, newFileId, fileReferrers, force: request.force === true }, space, head));
        Object.assign(phases, plan.phases);
        if (seams.stopAfterPlanning) return 'left';
        assertInTime(pace);
        // The Markdown stays in the repository's blobs: the writer reads it a parcel at a time as it converts (markdown-parcels).
        const target: GitImportTarget = {
          spaceId: row.spaceId,
          userId: row.userId,
          operationId: row.id,
          expectedHead: space.head.id,
          standalone: request.standalone === true,
          changes: plan.changes,
          pullMarkdown: plan.markdown,
          pages: plan.pages,
          files: plan.files,
          newFiles: plan.newFiles,
          includes: plan.includes,
          droppedIncludes: plan.droppedIncludes,
          droppedFiles: plan.droppedFiles,
          pathPrefix: plan.pathPrefix,
          redirects: plan.config.redirects,
          config: plan.configFile,
          deadline: new Date(pace.deadline).toISOString(),
          git: { oid, message: plan.commit.message, url: request.repoCommitURL ? `${request.repoCommitURL.replace(/\/+$/, '')}/${oid}` : null, ref: request.ref, createdByGitBook: false },
        };
        const ends = plan.markdown.sliceEnds(plan.changes.length, seams.slice);
        // What an earlier run stored (claim read it) continues the first plan; a plan made again on a moved head starts over.
        const startAt = attempt === 0 ? continuedFrom(progress ?? null, target, ends) : 0;
        const slices = importSlices(target, ends);
        // Handing over, the slices not applied are stored for the continuation first; stored or not, it goes on.
        const handOver = async (first: number) => {
          await timed('storeMs', () => storeSlices(env.FILES, slices, first, plan.warnings)).catch((error) => console.error(`git sync ${row.id}: the slices left were not stored; the continuation plans again`, error));
          return handOverRun();
        };
        const outcome = await applyImport(slices.map((slice) => ({ from: slice.from ?? 0, target: async () => slice })), startAt, plan.warnings, handOver);
        if (typeof outcome === 'string') return outcome;
        if (attempt < 2) continue;
        throw new ApiError(409, outcome.moved);
      }
    }
    const space = await loadSyncedSpace(db, row.spaceId);
    revisionId = space.head.id;
    // The run before pushed its commit and stopped before recording it: the branch is at that commit, which is recorded now.
    const pushedBefore = resumed ? (row.stats?.pushing as PushedCommit | undefined) : undefined;
    if (pushedBefore && oid === pushedBefore.commit) return recordStoppedPush(space, pushedBefore, oid);
    await started(env, db, row, revisionId, oid ?? '');
    const beforePush = async (commit: string) => {
      pushing = { commit, revisionId: space.head.id, message: request.commitMessage ?? '' };
      await claimPush(db, row, pace, pushing);
    };
    const exported = await timed('exportMs', () => runExport(env, db, session!, { spaceId: row.spaceId, request, remoteHead: oid, space, beforePush }));
    commitId = exported.commit ?? '';
    if (exported.commit) {
      await throughWriter(
        spaceWriter(env, row.spaceId).recordGitExport({ spaceId: row.spaceId, revisionId: space.head.id, rows: exported.rows, pathPrefix: exported.pathPrefix, git: exportedGit(request, pushing!) }),
      );
    }
    return exported.commit ? 'exported' : 'unchanged';
  };
  const stats = () => ({ ...session?.stats, phases, ...(pushing ? { pushing } : {}), ...(earlierRuns.length > 0 ? { earlierRuns } : {}) });
  try {
    const outcome = await work();
    if (outcome === 'left') return;
    if (row.direction === 'import') await discardSlices(env.FILES, row.id);
    const ended = await finish(env, db, row, { state: 'success', revisionId, commitId, timestamp: true, error: outcome.startsWith('imported;') ? outcome : undefined, stats: stats() });
    if (!ended && outcome === 'exported') await recordPushAfterEnd(db, row, request, pushing!);
  } catch (error) {
    if (error instanceof OperationTimedOut) {
      // Ended before its files are deleted: no call of this run is on its way to the writer, and the writer refuses an
      // import whose operation is no longer running, so nothing will refer to them.
      await finish(env, db, row, { state: 'timeout', error: `the operation did not finish within ${limitMs / 60000} minutes`, revisionId, commitId, stats: stats() });
      await discardAssets(assets);
      if (row.direction === 'import') await discardSlices(env.FILES, row.id);
      return;
    }
    // The writer applied the import's last call and something after it failed (its answer was lost, a later step threw):
    // the space shows the commit, whose files are referenced; the operation ends as what happened, never `failure`.
    const made = row.direction === 'import' ? await revisionMadeBy(db, row.id) : null;
    if (made) {
      await finish(env, db, row, { state: 'success', revisionId: made, commitId, timestamp: true, error: APPLIED_UNANSWERED, stats: stats() });
      return;
    }
    const message = failureMessage(error);
    // Ended first, as a timeout is: the writer refuses a call of an operation no longer running, so none refers to what goes.
    await finish(env, db, row, { state: 'failure', error: redact(message, credentials).slice(0, 1000), revisionId, commitId, stats: stats() });
    await discardAssets(assets);
    if (row.direction === 'import') await discardSlices(env.FILES, row.id);
  }
}

/** The note of an import whose last call the writer applied while its run did not see the answer (or failed after it). */
const APPLIED_UNANSWERED = 'imported; the run stopped after the writer applied its last call: the indexes are caught up by the hourly run';

/**
 * The pages of the space's head whose documents show any of these files (images, file links: the link index), or null when
 * the index is not at the head (an import or edit not indexed yet): then not known.
 */
async function pagesShowingFiles(db: Db, spaceId: string, headId: string, fileIds: string[]): Promise<string[] | null> {
  const indexed = await db.select({ revisionId: spaceIndexState.revisionId }).from(spaceIndexState).where(eq(spaceIndexState.spaceId, spaceId)).get();
  if (indexed?.revisionId !== headId) return null;
  const pages = new Set<string>();
  // D1 binds at most 100 parameters per statement.
  for (let i = 0; i < fileIds.length; i += 90) {
    const rows = await db.select({ pageId: spaceLinks.pageId }).from(spaceLinks).where(and(eq(spaceLinks.spaceId, spaceId), inArray(spaceLinks.targetId, fileIds.slice(i, i + 90))));
    for (const row of rows) pages.add(row.pageId);
  }
  return [...pages];
}

/** The revision the operation's import made (the writer's last batch sets it), or null. */
async function revisionMadeBy(db: Db, operationId: string): Promise<string | null> {
  const row = await db.select({ revisionId: gitSyncOperations.revisionId }).from(gitSyncOperations).where(eq(gitSyncOperations.id, operationId)).get();
  return row?.revisionId ?? null;
}

/** The commit a revision came from (its revision_git row), or ''. */
async function commitOf(db: Db, revisionId: string): Promise<string> {
  const row = await db.select({ oid: revisionGit.oid }).from(revisionGit).where(eq(revisionGit.revisionId, revisionId)).get();
  return row?.oid ?? '';
}

/**
 * An operation's error as the space's git/info shows it. isomorphic-git's own messages name its API ("Use
 * \"force: true\" to override", "One or more branches were not updated") or a bare status line, which tell the
 * caller nothing of what happened to the repository or the space: a refused push says so, and that nothing moved.
 */
export function failureMessage(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const data = (error as { data?: Record<string, unknown> } | null)?.data ?? {};
  if (code === 'GitPushError' || (code === 'PushRejectedError' && data.reason === 'not-fast-forward')) {
    const details = typeof data.prettyDetails === 'string' ? data.prettyDetails.replace(/\s+/g, ' ').replace(/^ - /, '').trim() : '';
    return `the remote refused the push${details ? ` (${details})` : ''}: its branch moved on since it was read, or a hook of the repository declined it; nothing was pushed and the space is unchanged: export again to commit on top of the remote's head`;
  }
  if (code === 'HttpError' && typeof data.statusCode === 'number') {
    const refused = data.statusCode === 401 || data.statusCode === 403;
    return `the repository answered HTTP ${data.statusCode}${refused ? ': the credentials were refused' : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Test seams of an import's run: `stopAfterSlices` stops the consumer after that many writer calls of slices, as one that
 * died there would (the operation left running, its message delivered again); `slice` cuts smaller slices than IMPORT_SLICE.
 */
export interface ImportSeams {
  stopAfterSlices?: number;
  slice?: typeof IMPORT_SLICE;
  /** Stops the consumer once the import is planned, before its first slice: as one that died while planning. */
  stopAfterPlanning?: boolean;
  /** The operation's time limit (GIT_OPERATION_TIMEOUT_MS) and a run's budget (GIT_RUN_BUDGET_MS), short in tests. */
  timeLimitMs?: number;
  runBudgetMs?: number;
  /** The clock the limits are read on (Date.now): a test moves it on. */
  clock?: () => number;
}

/**
 * Where an import planned again continues: after the slices a run of the same operation stored (its consumer died or ran
 * out of time: the message came again), if they were applied on the same head, from the same commit, and end where a
 * slice of this plan ends; else from the start (the first slice clears what was stored).
 */
function continuedFrom(stored: StoredProgress, target: GitImportTarget, ends: number[]): number {
  if (!stored || stored.expectedHead !== target.expectedHead || stored.commit !== target.git.oid) return 0;
  return ends.slice(0, -1).includes(stored.next) ? stored.next : 0;
}

/**
 * The import's slices (markdown-parcels importSlices) applied by the space's writer, a call each from `startAt`, the head
 * moved by the last (apply.ts GitImportProgress). A refusal of a slice (the head moved meanwhile: 409) is the import's answer.
 */
async function applyInSlices(
  env: Env,
  row: OperationRow,
  slices: PlannedSlice[],
  startAt: number,
  phases: Record<string, number>,
  seams: ImportSeams,
  pace: Pace,
  handOver: (first: number) => Promise<boolean>,
): Promise<WriterResult<GitImportOutput> | 'stopped' | 'continued'> {
  const writer = spaceWriter(env, row.spaceId);
  // The longest call's wall time: what one Durable Object request of the import took at most.
  const call = async <T>(work: () => PromiseLike<T>): Promise<T> => {
    const began = Date.now();
    try {
      return await work();
    } finally {
      phases.writerCallMaxMs = Math.max(phases.writerCallMaxMs ?? 0, Date.now() - began);
      pace.waited += Date.now() - began;
    }
  };
  let done = 0;
  // Before each call: the operation's limit, and (once this run stored a slice, so the next run starts further on) its budget.
  const mayCall = async (k: number) => {
    assertInTime(pace);
    return done === 0 || !spent(pace) || !(await handOver(k));
  };
  for (const [k, slice] of slices.slice(0, -1).entries()) {
    if (slice.from < startAt) continue;
    if (!(await mayCall(k))) return 'continued';
    const target = await slice.target();
    const applied = await call<WriterResult<{ next: number }>>(() => writer.continueGitImport(target));
    if (!applied.ok) return applied;
    if (++done === seams.stopAfterSlices) return 'stopped';
  }
  if (!(await mayCall(slices.length - 1))) return 'continued';
  phases.writerCalls = done + 1;
  if (startAt > 0) phases.resumedAt = startAt;
  const last = await slices[slices.length - 1].target();
  return call<WriterResult<GitImportOutput>>(() => writer.applyGitImport(last));
}

/** A slice of the import, its writer target made or read when its call comes. */
interface PlannedSlice {
  from: number;
  target: () => Promise<GitImportTarget>;
}

async function reindexAfterImport(env: Env, spaceId: string): Promise<void> {
  try {
    const result = await spaceWriter(env, spaceId).reindex(spaceId);
    if (!result.ok) console.error(`space ${spaceId}: indexes not caught up after the import: ${result.message}`);
  } catch (error) {
    console.error(`space ${spaceId}: indexes not caught up after the import`, error);
  }
}

/**
 * The files an import stored in R2 before it failed (or timed out) are referenced by no revision: deleted, so a
 * failing import leaves no orphan objects (those an upload of the same bytes rewrote meanwhile stay). A failure
 * to delete is logged, never the operation's outcome.
 */
async function discardAssets(assets: DiscardableAssetStore | undefined): Promise<void> {
  if (!assets) return;
  try {
    await assets.discard();
  } catch (error) {
    console.error('git sync: the files of a failed import were not all deleted', error);
  }
}
