import { z } from 'zod';
import type { Env } from '../../env';
import { newId } from '../../lib/ids';

/** The queue message type of translation runs (jobs/translation-run.ts). */
export const TRANSLATION_RUN_JOB = 'translation-run';

/**
 * A message names the run it works for; every message of a run carries the same payload. What a message
 * does is decided by the run's state in D1 (plan, translate the next chunk, assemble), so a redelivered,
 * duplicated or stale message does nothing twice (services/translations/run.ts).
 */
export const TranslationRunPayloadSchema = z.object({ translationId: z.string().min(1), runId: z.string().min(1) });
export type TranslationRunPayload = z.infer<typeof TranslationRunPayloadSchema>;

export function translationRunMessage(translationId: string, runId: string) {
  const payload: TranslationRunPayload = { translationId, runId };
  return { id: newId(), type: TRANSLATION_RUN_JOB, payload };
}

/**
 * Enqueues the next step of a run. A failed send is logged, not thrown, on the API's paths: the run stays
 * `pending`/`running` and the hourly cron sends it again (jobs/cron.ts: requeueTranslationRuns).
 */
export async function enqueueTranslationRun(env: Env, translationId: string, runId: string): Promise<void> {
  try {
    await env.JOBS.send(translationRunMessage(translationId, runId));
  } catch (error) {
    console.error(`translation ${translationId}: run ${runId} not enqueued (the cron sends it again)`, error);
  }
}
