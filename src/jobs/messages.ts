import { z } from 'zod';

/** Every queue message: an id for idempotency, a type to dispatch on, and its payload. */
export const JobEnvelopeSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  payload: z.unknown(),
});
export type JobEnvelope = z.infer<typeof JobEnvelopeSchema>;

/** Most messages one `sendBatch` call takes. */
export const QUEUE_SEND_BATCH = 100;

/**
 * Sends jobs on JOBS in batches of QUEUE_SEND_BATCH. A batch that fails is logged, not thrown: every caller's
 * rows still name their jobs, so the hourly cron sends them again. `what` names them in the log.
 */
export async function sendJobs(env: { JOBS: Queue<unknown> }, jobs: JobEnvelope[], what: string): Promise<void> {
  for (let i = 0; i < jobs.length; i += QUEUE_SEND_BATCH) {
    const chunk = jobs.slice(i, i + QUEUE_SEND_BATCH);
    try {
      await env.JOBS.sendBatch(chunk.map((body) => ({ body })));
    } catch (error) {
      console.error(`${what}: ${chunk.length} message(s) not sent (the cron sends them again)`, error);
    }
  }
}
