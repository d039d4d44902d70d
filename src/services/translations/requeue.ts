import { and, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { translationRuns } from '../../db/schema/translations';
import type { Env } from '../../env';
import { sendJobs } from '../../jobs/messages';
import { translationRunMessage } from './jobs';
import { CLAIM_LEASE_MS, failRun } from './run';

/** A run with no step for this long lost its message (a failed send, the dead-letter queue): the cron sends one again. */
export const STALE_TRANSLATION_RUN_MS = 15 * 60_000;
export const TRANSLATION_REQUEUE_PER_RUN = 200;
/** Messages the cron sends again for one run; found stale once more, the run fails (`requeues` on the run counts them). */
export const MAX_TRANSLATION_REQUEUES = 3;
export const REQUEUES_EXHAUSTED_MESSAGE = "The run was cut short repeatedly (the Worker's limits): it was sent again 3 times without finishing";

/**
 * The cron's safety net for translation runs (jobs/cron.ts): every unfinished run its translation still names,
 * whose last step is older than STALE_TRANSLATION_RUN_MS (more than a claim's lease), is sent one message
 * again, and its `touched_at` refreshed first so the next cron run does not send it twice. A message for a run
 * that is in fact progressing does nothing twice (services/translations/run.ts). After MAX_TRANSLATION_REQUEUES
 * such sends, a run found stale again is failed instead. Answers how many were sent.
 */
export async function requeueTranslationRuns(env: Env, db: Db, now: number): Promise<number> {
  const cutoff = new Date(now - Math.max(STALE_TRANSLATION_RUN_MS, CLAIM_LEASE_MS)).toISOString();
  const stale = db
    .select({ id: translationRuns.id })
    .from(translationRuns)
    .where(
      and(
        isNull(translationRuns.finishedAt),
        or(isNull(translationRuns.touchedAt), lt(translationRuns.touchedAt, cutoff)),
        sql`exists (select 1 from translations t where t.id = ${translationRuns.translationId} and t.run_id = ${translationRuns.id})`,
      ),
    )
    .limit(TRANSLATION_REQUEUE_PER_RUN);
  const found = await db
    .update(translationRuns)
    .set({ touchedAt: new Date(now).toISOString(), requeues: sql`${translationRuns.requeues} + 1` })
    .where(inArray(translationRuns.id, stale))
    .returning({ runId: translationRuns.id, translationId: translationRuns.translationId, requeues: translationRuns.requeues });
  // A run cut short again and again (each message killed by the Worker's limits, or its messages dead-lettered) ends.
  const exhausted = found.filter((row) => row.requeues > MAX_TRANSLATION_REQUEUES);
  for (const { translationId, runId } of exhausted) {
    await failRun(db, translationId, runId, REQUEUES_EXHAUSTED_MESSAGE);
  }
  const rows = found.filter((row) => row.requeues <= MAX_TRANSLATION_REQUEUES);
  await sendJobs(env, rows.map(({ translationId, runId }) => translationRunMessage(translationId, runId)), 'cron: translation runs');
  return rows.length;
}
