import type { Env } from '../env';
import { spaceWriter, throughWriter } from '../durable-objects/space-writer';
import { TranslationRunPayloadSchema } from '../services/translations/jobs';
import { createDb } from '../db/client';
import { failRun, MAX_RUN_DELIVERIES, processTranslationRun, PagesClaimedElsewhere, RunStepError } from '../services/translations/run';
import type { JobContext } from './consumer';
import type { JobEnvelope } from './messages';

/**
 * One step of a translation run (services/translations/run.ts): plan, translate a chunk of pages, or
 * assemble the result through the result space's SpaceWriter. Idempotent by the run's state, not by the
 * message id: every message of a run carries the same payload, and a redelivered one does nothing twice.
 * A failure throws, so the consumer retries the message with backoff; at its last delivery (MAX_RUN_DELIVERIES)
 * any failure but pages claimed elsewhere ends the run `failed`, naming the step (planning, translating, assembling).
 */
export async function handleTranslationRunJob(job: JobEnvelope, env: Env, context: JobContext): Promise<void> {
  const parsed = TranslationRunPayloadSchema.safeParse(job.payload);
  if (!parsed.success) throw new Error(`translation-run ${job.id}: the payload has no translationId and runId`);
  const { translationId, runId } = parsed.data;
  try {
    const outcome = await processTranslationRun(env, translationId, runId, {
      attempts: context.attempts,
      assemble: (target) => throughWriter(spaceWriter(env, target.resultSpaceId).applyTranslation(target)).then(() => undefined),
    });
    if (outcome === 'skipped') console.log(`translation-run ${job.id}: run ${runId} of ${translationId} is gone, finished or superseded`);
  } catch (error) {
    if (error instanceof PagesClaimedElsewhere) {
      console.log(`translation-run ${job.id}: ${error.message}; delivered again later`);
      throw error;
    }
    // A run that fails the same way at every delivery would never end: at the last one it ends `failed`, saying where.
    if (context.attempts < MAX_RUN_DELIVERIES) throw error;
    const step = error instanceof RunStepError ? error.step : 'planning';
    const message = error instanceof Error ? error.message : String(error);
    await failRun(createDb(env.DB), translationId, runId, `The run failed in ${step}: ${message.slice(0, 500)}`);
    console.error(`translation-run ${job.id}: run ${runId} of ${translationId} failed at its last delivery`, error);
  }
}
