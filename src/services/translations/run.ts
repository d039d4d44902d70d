import { createDb } from '../../db/client';
import type { Env } from '../../env';
import { translateChunk } from './chunks';
import { plan } from './plan';
import { failRun, loadRunState, PagesClaimedElsewhere, spaceProblem, type RunOptions, type RunOutcome } from './state';
import { NO_TRANSLATOR_MESSAGE, translatorFor, type Translator } from './translator';

export * from './state';
export { PLAN_SLICE, pendingPageInserts, sourceKeyOf } from './plan';
export { planSends } from './chunks';
export { assembleTranslation, type AssembleOutput } from './assemble';

/**
 * A translation run, driven by queue messages (jobs/translation-run.ts) that all carry `{ translationId, runId }`.
 * What a message does is decided by the run's state in D1, so any number of deliveries of any of its
 * messages, in any order, translate each page once and write one result revision:
 *
 * 1. Plan (the run is `pending`): the source space's head revision is read whole (its page records), each
 *    page's source key computed (a hash of its document hash, title and description), and the pages whose
 *    key differs from the one last translated are marked pending for this run (`pending_run`, `pending_key`).
 *    One D1 batch, a compare-and-set `pending` → `running` on the run, which also fixes the source revision
 *    the run reads. Changing the instructions does not make pages pending: only source changes do. The
 *    pending rows are bound PLAN_SLICE pages per statement (D1 bounds a bound string and a statement).
 * 2. Chunks (the run is `running`): a message claims up to MAX_PAGES_PER_CHUNK pending pages (`claimed_at`,
 *    one UPDATE ... RETURNING, so two deliveries never hold one page). Each text of a page is looked up in
 *    the translation's segment cache (`translation_segments`, by the hash of the source text); the message
 *    sends at most MAX_SEGMENTS_PER_CHUNK texts not found there, in claim order (planSends). It writes in one
 *    batch the texts it translated (into the cache), the pages all of whose texts are now translated (each
 *    page row guarded on this claim: a page is written once), and gives the other claims back: a page
 *    larger than a message's budget stays pending with part of its texts cached, and the next message
 *    goes on where this one stopped. It then enqueues the next message of the run. A claim older than
 *    CLAIM_LEASE_MS (an isolate killed mid-chunk) may be taken by another delivery; a message that finds only
 *    pages claimed by others throws, so the queue delivers it again later (with backoff). The cache also
 *    makes a rerun of an edited page send only its changed texts.
 * 3. Assembly (no page pending): through the result space's SpaceWriter (one head move at a time per space),
 *    the result revision is built from the run's source revision's page records with each page's title,
 *    description and document replaced by their translations; the page ids, slugs and tree are the source's,
 *    so links between pages resolve in the result space; the files map and the revision's meta (variables,
 *    reusable contents) are the source's (file bytes are shared by hash in R2). One batch: the revision, the
 *    result space's references to what it shares with the source (so the purge keeps it), the head move (a
 *    compare-and-set on the result head, the new revision's only parent), the result space's access re-synced
 *    from the source's (access.ts: its defaultLevel, user and team grants), and the run and translation marked
 *    completed with their stats, guarded on the head move having happened. A redelivery finds the run finished.
 *
 * Failures: a run whose source or result space is gone, in the trash, transferred to another organization
 * (or the result space locked), or with no translator configured, ends `failed` saying why. A translator
 * error gives the claims back and throws (the queue retries the message with backoff); at the message's last
 * delivery the run ends `failed` with the translator's message, and any other error at the last delivery
 * ends it naming its step (jobs/translation-run.ts). The cron fails a run it had to send again too often
 * (requeue.ts). The head move and the result revision are guarded on the run still being live.
 *
 * Stats are read from D1 rows, never added up by messages, so they stay true whatever is redelivered: pages
 * from the page rows (`translated_run`), words from the segment cache (each text sent once, counted for the
 * run that sent it; a failed run's words count in the translation's totalWords too).
 */

export type RunStep = 'planning' | 'translating' | 'assembling';

/** An error of a run's step: what the last delivery's failure names (jobs/translation-run.ts). */
export class RunStepError extends Error {
  constructor(
    readonly step: RunStep,
    readonly error: unknown,
  ) {
    super(error instanceof Error ? error.message : String(error));
  }
}

/** Handles one message of run `runId` (see the top of this file). Errors are thrown as RunStepError (but PagesClaimedElsewhere). */
export async function processTranslationRun(env: Env, translationId: string, runId: string, options: RunOptions): Promise<RunOutcome> {
  const db = createDb(env.DB);
  let step: RunStep = 'planning';
  try {
    let state = await loadRunState(db, translationId, runId);
    if (!state || state.translation.runId !== runId || state.run.finishedAt) return 'skipped';
    const translator = options.translator !== undefined ? options.translator : translatorFor(env);
    const problem = spaceProblem(state) ?? (translator ? null : NO_TRANSLATOR_MESSAGE);
    if (problem) {
      await failRun(db, translationId, runId, problem);
      return 'failed';
    }
    if (state.run.status === 'pending') {
      await plan(db, state);
      state = await loadRunState(db, translationId, runId);
      if (!state || state.run.status !== 'running') return 'skipped';
    }
    step = 'translating';
    const chunk = options.assemble;
    return await translateChunk(env, db, state, translator as Translator, {
      ...options,
      assemble: (target) => {
        step = 'assembling';
        return chunk(target);
      },
    });
  } catch (error) {
    if (error instanceof PagesClaimedElsewhere || error instanceof RunStepError) throw error;
    throw new RunStepError(step, error);
  }
}
