import { z } from 'zod';
import type { Env } from '../env';
import { processSpec } from '../services/openapi/process';
import type { JobContext } from './consumer';
import type { JobEnvelope } from './messages';

/** The payload of an `openapi-process` message (services/openapi/jobs: enqueueSpecProcessing; jobs/cron). */
export const OpenAPIProcessJobSchema = z.object({ specId: z.string().min(1) });

/**
 * Processes a spec's current source (services/openapi/process). Idempotent by message id: the message's id is
 * the job the spec must name, so a redelivered message, or one superseded by a newer update, changes nothing.
 * A failure of ours throws, so the consumer retries the message with backoff; the spec's state says so.
 */
export async function handleOpenAPIProcessJob(job: JobEnvelope, env: Env, context: JobContext): Promise<void> {
  const parsed = OpenAPIProcessJobSchema.safeParse(job.payload);
  if (!parsed.success) throw new Error(`openapi-process ${job.id}: the payload has no specId`);
  const outcome = await processSpec(env, parsed.data.specId, job.id, { attempts: context.attempts });
  if (outcome === 'skipped') console.log(`openapi-process ${job.id}: spec ${parsed.data.specId} is gone or no longer names this job`);
}
