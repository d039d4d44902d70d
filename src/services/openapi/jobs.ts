import type { Env } from '../../env';

/** The queue message that processes a spec's current source (jobs/openapi-process). */
export const OPENAPI_PROCESS_JOB = 'openapi-process';

export interface OpenAPIProcessPayload {
  specId: string;
}

/**
 * Sends the message `jobId` (the spec's `processing_job`, already written). A failed send is logged,
 * not thrown: the spec stays `pending` with its job named, and the hourly cron sends it again.
 */
export async function enqueueSpecProcessing(env: Env, specId: string, jobId: string): Promise<void> {
  const payload: OpenAPIProcessPayload = { specId };
  try {
    await env.JOBS.send({ id: jobId, type: OPENAPI_PROCESS_JOB, payload });
  } catch (error) {
    console.error(`openapi spec ${specId}: processing ${jobId} not enqueued (the cron retries it)`, error);
  }
}
