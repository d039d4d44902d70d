import { z } from 'zod';
import type { Env } from '../env';
import { processImportRun } from '../services/import/runs';
import type { JobContext } from './consumer';
import type { JobEnvelope } from './messages';

/** The payload of an `import-run` message (services/import/runs: startImportRun). */
export const ImportRunJobSchema = z.object({ runId: z.string().min(1) });

/**
 * Runs an import run (services/import/runs: processImportRun). Idempotent: what a delivery does is decided by the
 * run's state in D1, so a redelivered message finds the run finished (or interrupted, and says so) and changes
 * nothing twice. An error that is not the import's own throws, so the consumer retries with backoff.
 */
export async function handleImportRunJob(job: JobEnvelope, env: Env, context: JobContext): Promise<void> {
  const parsed = ImportRunJobSchema.safeParse(job.payload);
  if (!parsed.success) throw new Error(`import-run ${job.id}: the payload has no runId`);
  await processImportRun(env, parsed.data.runId, { attempts: context.attempts });
}
