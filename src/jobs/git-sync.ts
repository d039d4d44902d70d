import { z } from 'zod';
import type { Env } from '../env';
import type { JobContext } from './consumer';
import type { JobEnvelope } from './messages';

/** The message type of a Git Sync operation (services/git-sync/operations: queueGitOperation). */
export const GIT_SYNC_JOB = 'git-sync';

/** The payload of a `git-sync` message: the operation recorded by importGitRepository or exportToGitRepository. */
export const GitSyncJobSchema = z.object({ operationId: z.string().min(1) });

/**
 * Runs a Git Sync operation (services/git-sync/operations, loaded on the first such message: isomorphic-git
 * and the import and export code cost nothing to other jobs). Idempotent: an operation runs only from its
 * `pending` state, so a redelivered message changes nothing, except for an import whose run stopped with slices stored
 * (its consumer died or ran out of time), which it continues from the last one. It throws only while another operation of the
 * same space runs, so the queue retries it later (one at a time per space); every other outcome, failures
 * included, is recorded on the operation and in the space's Git Sync state.
 */
export async function handleGitSyncJob(job: JobEnvelope, env: Env, context: JobContext): Promise<void> {
  const parsed = GitSyncJobSchema.safeParse(job.payload);
  if (!parsed.success) throw new Error(`git-sync ${job.id}: the payload has no operationId`);
  const { runGitSyncOperation } = await import('../services/git-sync/operations');
  const { abandonGitOperation, GIT_SYNC_MAX_DELIVERIES } = await import('../services/git-sync/cleanup');
  try {
    await runGitSyncOperation(env, parsed.data.operationId, context.attempts);
  } catch (error) {
    // The last delivery: the message goes to the dead-letter queue, the operation ends and its credentials go.
    if (context.attempts >= GIT_SYNC_MAX_DELIVERIES) await abandonGitOperation(env, parsed.data.operationId, 'the operation failed on every delivery of its message');
    throw error;
  }
}
