import { and, eq, inArray, isNotNull, isNull, lt, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { changedRows, createDb, rawRun, rowsOf, runBatch, type BatchItem, type Db } from '../../db/client';
import { gitSyncImportProgress, gitSyncImportRows, gitSyncOperations, gitSyncStates } from '../../db/schema/index';
import type { Env } from '../../env';
import { nowIso } from '../../lib/time';
import { GIT_OPERATION_TIMEOUT_MS } from './queue';
import { enqueueEvents, eventIdsOf, insertSpaceEvents } from '../integrations/events';

/** Where assets.ts writes a streamed blob while its hashes are computed (the hourly sweep deletes what a stopped Worker left). */
export const STAGING_PREFIX = 'git-sync/staging/';

/**
 * Operations that end without running to their end (a message's last delivery, a message lost, a Worker stopped
 * mid-way) end here, and their credentials are deleted: nothing of them stays once an operation is over, whatever
 * its state. Without the Git client, so the cron loads nothing heavy.
 */

/**
 * The request an operation keeps once it ended (its row's `request`, NOT NULL): nothing reads it then (git/info reads
 * git_sync_states; the space's Git Sync was written by the ending), so an import's row no longer holds its URLs and body
 * (a quarter of a re-import's bytes). An export that recorded the commit it was pushing keeps it: the next import of that
 * commit reads its `ref` and `repoCommitURL` (operations.ts recordUnfinishedExport).
 */
export const ENDED_REQUEST = '{}';

/** The `request` of an operation ended in SQL: kept only by an export that was pushing (see ENDED_REQUEST). */
const endedRequestSql = sql`case when json_extract(stats, '$.pushing') is null then ${ENDED_REQUEST} else request end`;

/**
 * How many times the queue delivers a message (wrangler.toml: max_retries = 5, plus the first delivery). On the last
 * delivery an operation that still cannot run ends as a failure, and its credentials are deleted: nothing of them
 * stays behind a message that goes to the dead-letter queue.
 */
export const GIT_SYNC_MAX_DELIVERIES = 6;

/**
 * The statements that end the running operations of a space that `which` selects (a condition on
 * `git_sync_operations o`) as `state`, the way their own run would have ended them: what their import's slices stored
 * deleted, the space's Git Sync state (when one of them is its latest), the `space_gitsync_completed` event (failure),
 * then the operations themselves, last, so every statement before reads them still running. Answers the batch's
 * statements and the event's index in it (its ids go to `enqueueEvents` once the batch committed).
 */
export function endRunningOperations(db: Db, spaceId: string, which: SQL, ending: { state: 'timeout' | 'failure'; error: string }, now: string) {
  const ended = sql`select o.id from git_sync_operations o where o.space_id = ${spaceId} and o.state = 'running' and ${which}`;
  // An export that recorded the commit it was about to push (operations.ts claimPush) may have pushed it: said so.
  const errorOf = (stats: SQL) =>
    sql`${ending.error} || coalesce('; its commit ' || json_extract(${stats}, '$.pushing.commit') || ' may have reached the repository: an import of it records it and changes nothing', '')`;
  const statements = [
    rawRun(db, sql`delete from git_sync_import_rows where operation_id in (${ended})`),
    rawRun(db, sql`delete from git_sync_import_progress where operation_id in (${ended})`),
    rawRun(
      db,
      sql`update git_sync_states set op_state = ${ending.state}, op_ended_at = ${now}, updated_at = ${now},
          op_error = ${errorOf(sql`(select o.stats from git_sync_operations o where o.id = git_sync_states.op_id)`)}
        where space_id = ${spaceId} and op_state = 'running' and op_id in (${ended})`,
    ),
    insertSpaceEvents(db, spaceId, 'space_gitsync_completed', { state: 'failure', revisionId: '', commitId: '' }, now, { when: sql`exists (${ended})` }),
    rawRun(
      db,
      sql`update git_sync_operations set state = ${ending.state}, secret = null, ended_at = ${now}, error = ${errorOf(sql`stats`)}, request = ${endedRequestSql}
        where id in (${ended})`,
    ),
  ];
  return { statements, event: 3 };
}

/** Runs `endRunningOperations`' statements (with the caller's) and sends its events. */
export async function endRunning(env: Env, db: Db, ending: ReturnType<typeof endRunningOperations>, more: BatchItem[] = []) {
  const results = await runBatch(db, [...ending.statements, ...more]);
  await enqueueEvents(env, eventIdsOf(results[ending.event]));
  return results.slice(ending.statements.length);
}

/**
 * Ends an operation that will not run (or not run again) as a failure, deleting its credentials, if it has not
 * ended yet; the space's Git Sync state says so when the operation is its latest. What the last delivery of a
 * message and the hourly sweep call.
 */
export async function abandonGitOperation(env: Env, operationId: string, error: string): Promise<boolean> {
  const db = createDb(env.DB);
  const now = nowIso();
  const [ended] = await runBatch(db, [
    db
      .update(gitSyncOperations)
      .set({ state: 'failure', secret: null, endedAt: now, error, request: endedRequestSql })
      .where(and(eq(gitSyncOperations.id, operationId), inArray(gitSyncOperations.state, ['pending', 'running'])))
      .returning({ spaceId: gitSyncOperations.spaceId }),
    db
      .update(gitSyncStates)
      .set({ opState: 'failure', opEndedAt: now, opError: error, updatedAt: now })
      .where(and(eq(gitSyncStates.opId, operationId), eq(gitSyncStates.opState, 'running'))),
    // Whatever its state, an operation that is over keeps no credentials.
    db.update(gitSyncOperations).set({ secret: null }).where(and(eq(gitSyncOperations.id, operationId), notInArray(gitSyncOperations.state, ['pending', 'running']))),
    // Nor what its import's slices stored for a last call that will not come (services/git-sync/apply GitImportProgress).
    db.delete(gitSyncImportRows).where(eq(gitSyncImportRows.operationId, operationId)),
    db.delete(gitSyncImportProgress).where(eq(gitSyncImportProgress.operationId, operationId)),
  ]);
  return rowsOf(ended).length > 0;
}

/**
 * The hourly sweep (jobs/cron): operations that hold credentials but whose messages are gone (pending longer than
 * all deliveries take, or running past the timeout: the Worker was stopped mid-way) end, and their credentials are
 * deleted. Returns how many.
 */
export async function sweepGitOperations(env: Env, now: number): Promise<number> {
  const db = createDb(env.DB);
  const pendingBefore = new Date(now - GIT_PENDING_LIMIT_MS).toISOString();
  const runningBefore = new Date(now - GIT_OPERATION_TIMEOUT_MS).toISOString();
  const stale = await db
    .select({ id: gitSyncOperations.id, spaceId: gitSyncOperations.spaceId, state: gitSyncOperations.state })
    .from(gitSyncOperations)
    .where(
      and(
        isNotNull(gitSyncOperations.secret),
        or(and(eq(gitSyncOperations.state, 'pending'), lt(gitSyncOperations.createdAt, pendingBefore)), and(eq(gitSyncOperations.state, 'running'), lt(gitSyncOperations.createdAt, runningBefore)), notInArray(gitSyncOperations.state, ['pending', 'running'])),
      ),
    )
    .limit(100);
  for (const op of stale) {
    // One that ran (its `space_gitsync_started` was sent) completes as its own run's failure would have.
    if (op.state === 'running') await endRunning(env, db, endRunningOperations(db, op.spaceId, sql`o.id = ${op.id}`, { state: 'failure', error: 'the operation did not finish in time' }, nowIso()));
    else await abandonGitOperation(env, op.id, 'the operation could not be run (its message was lost or gave up)');
  }
  return stale.length;
}

/** Longer than every delivery of a message takes (backoff 10 s doubling, five retries), with room for a slow queue. */
const GIT_PENDING_LIMIT_MS = 2 * 60 * 60 * 1000;

/**
 * How long ended operations are kept (GitBook shows the current one only: git/info). A space keeps its newest `perSpace`
 * operations whatever their age, and every one younger than `days`; never one pending or running, nor the one its git/info
 * reports. An import that ended without a revision is kept `orphanDays`: the orphan-file sweep deletes its files only while
 * it knows the operation (an unknown one's files stay, to be safe), and walks the bucket 5,000 keys an hour.
 */
export const GIT_OPERATION_RETENTION = { perSpace: 10, days: 7, orphanDays: 30 } as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The hourly prune of ended operations past GIT_OPERATION_RETENTION, at most `rounds` deletes of `batch` rows per run (the
 * rest at the next run). Each candidate counts at most `perSpace` newer operations of its space, along the space's index.
 * Returns how many rows went.
 */
export async function pruneGitOperations(env: Pick<Env, 'DB'>, now: number, { batch = 500, rounds = 4, retention = GIT_OPERATION_RETENTION } = {}): Promise<number> {
  const db = createDb(env.DB);
  const before = new Date(now - retention.days * DAY_MS).toISOString();
  const orphansBefore = new Date(now - retention.orphanDays * DAY_MS).toISOString();
  let pruned = 0;
  for (let round = 0; round < rounds; round++) {
    const result = await rawRun(
      db,
      sql`delete from git_sync_operations where id in (
        select o.id from git_sync_operations o
        where o.created_at < ${before} and o.state not in ('pending', 'running')
          and (o.direction = 'export' or o.revision_id is not null or o.created_at < ${orphansBefore})
          and not exists (select 1 from git_sync_states s where s.space_id = o.space_id and s.op_id = o.id)
          and (select count(*) from (select 1 from git_sync_operations n where n.space_id = o.space_id and n.created_at > o.created_at limit ${retention.perSpace})) >= ${retention.perSpace}
        limit ${batch})`,
    );
    const changes = changedRows(result);
    pruned += changes;
    if (changes < batch) break;
  }
  return pruned;
}


/**
 * The hourly sweep of staged blobs (assets.ts writes each streamed blob under `git-sync/staging/` and deletes it
 * once copied; a Worker stopped mid-way leaves it): those older than every operation's time limit are deleted,
 * at most `batch` per run (one list and one delete call). Returns how many.
 */
export async function sweepGitStaging(env: Pick<Env, 'FILES'>, now: number, batch = 1000): Promise<number> {
  const before = now - GIT_OPERATION_TIMEOUT_MS - GIT_STAGING_GRACE_MS;
  const listed = await env.FILES.list({ prefix: STAGING_PREFIX, limit: batch });
  const stale = listed.objects.filter((object) => object.uploaded.getTime() < before).map((object) => object.key);
  if (stale.length > 0) await env.FILES.delete(stale);
  return stale.length;
}

/** Past an operation's time limit, room for a copy still finishing. */
const GIT_STAGING_GRACE_MS = 15 * 60 * 1000;

/** The metadata assets.ts writes on each `files/<sha256>` object an import creates: the operation's id. */
export const GIT_SYNC_OPERATION_META = 'git-sync-operation';

/** Where the orphan sweep keeps the last key it listed, so each run goes on where the previous one stopped. */
export const ORPHAN_SWEEP_CURSOR_KEY = 'git-sync/sweep/orphan-files-after';

/**
 * The hourly sweep of orphan files: an import stores its files in R2 before the writer makes its revision, and
 * deletes them when it fails (assets.ts, `discard`); a Worker stopped mid-way deletes nothing. Such an object
 * carries its operation's id (GIT_SYNC_OPERATION_META), and is deleted when that operation is over without having
 * made a revision (no `revision_id`: the writer's batch sets it with the revision, even after a `timeout`), and the
 * object is older than an operation's time limit plus a grace period (a writer still finishing has finished).
 * Objects of an operation that made a revision, that is unknown (its space was deleted: kept, to be safe), or that
 * an upload or a later import rewrote (another mark, or none) stay. A later import that reuses such an object
 * rewrites it with its own mark first (assets.ts), and each candidate is read again just before the delete.
 * Bounded: at most `pages` lists of `batch` keys under `files/` per run, then one D1 query per 90 operations and
 * one delete call; the walk goes on from the last key at the next run, and starts over once it reached the end.
 */
export async function sweepGitOrphanFiles(env: Pick<Env, 'FILES' | 'DB'>, now: number, { pages = 5, batch = 1000 } = {}): Promise<{ listed: number; deleted: number }> {
  const before = now - GIT_OPERATION_TIMEOUT_MS - GIT_STAGING_GRACE_MS;
  const saved = await env.FILES.get(ORPHAN_SWEEP_CURSOR_KEY);
  let after = saved ? await saved.text() : undefined;
  const candidates = new Map<string, string>();
  let listed = 0;
  let ended = false;
  for (let page = 0; page < pages && !ended; page++) {
    const list = await env.FILES.list({ prefix: 'files/', limit: batch, include: ['customMetadata'], ...(after ? { startAfter: after } : {}) });
    listed += list.objects.length;
    for (const object of list.objects) {
      const operation = object.customMetadata?.[GIT_SYNC_OPERATION_META];
      if (operation && object.uploaded.getTime() < before) candidates.set(object.key, operation);
    }
    if (list.objects.length > 0) after = list.objects[list.objects.length - 1].key;
    ended = !list.truncated;
  }
  const orphaned = await operationsWithoutRevision(env, [...new Set(candidates.values())]);
  const doomed: string[] = [];
  for (const [key, operation] of candidates) {
    if (!orphaned.has(operation)) continue;
    // Read again: an import that reused the object since it was listed wrote its own mark (and a new upload time).
    const object = await env.FILES.head(key);
    if (object?.customMetadata?.[GIT_SYNC_OPERATION_META] === operation && object.uploaded.getTime() < before) doomed.push(key);
  }
  // R2 deletes at most 1,000 keys per call.
  for (let i = 0; i < doomed.length; i += 1000) await env.FILES.delete(doomed.slice(i, i + 1000));
  if (ended) await env.FILES.delete(ORPHAN_SWEEP_CURSOR_KEY);
  else if (after) await env.FILES.put(ORPHAN_SWEEP_CURSOR_KEY, after);
  return { listed, deleted: doomed.length };
}

/** Of these operations, those that are over and made no revision. */
async function operationsWithoutRevision(env: Pick<Env, 'DB'>, ids: string[]): Promise<Set<string>> {
  const db = createDb(env.DB);
  const out = new Set<string>();
  // D1 binds at most 100 parameters per statement.
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await db
      .select({ id: gitSyncOperations.id })
      .from(gitSyncOperations)
      .where(and(inArray(gitSyncOperations.id, ids.slice(i, i + 90)), notInArray(gitSyncOperations.state, ['pending', 'running']), isNull(gitSyncOperations.revisionId)));
    for (const row of rows) out.add(row.id);
  }
  return out;
}
