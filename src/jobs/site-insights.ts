import { z } from 'zod';
import { createDb } from '../db/client';
import type { Env } from '../env';
import type { InsightsRow } from '../services/insights/events';
import { storeRows } from '../services/insights/store';
export { SITE_INSIGHTS_JOB } from '../services/insights/store';
import type { JobContext } from './consumer';
import type { JobEnvelope } from './messages';

/** The payload of a `site-insights-events` message (services/insights/events `enqueueRows`). */
const RowSchema = z.object({
  id: z.string().min(1).max(64),
  siteId: z.string().min(1).max(128),
  type: z.string().min(1).max(64),
  at: z.number().int(),
  url: z.string(),
  urlPath: z.string(),
  displayContext: z.string(),
  visitorId: z.string().min(1),
  sessionId: z.string().min(1),
  siteSection: z.string().nullable(),
  siteSpace: z.string().nullable(),
  siteShareKey: z.string().nullable(),
  space: z.string().nullable(),
  revision: z.string().nullable(),
  page: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});
export const SiteInsightsJobSchema = z.object({ events: z.array(RowSchema).min(1) });

function rowsOf(job: JobEnvelope): InsightsRow[] {
  const parsed = SiteInsightsJobSchema.safeParse(job.payload);
  if (!parsed.success) throw new Error(`site-insights-events ${job.id}: malformed payload`);
  return parsed.data.events satisfies InsightsRow[];
}

/** One message alone (what the generic consumer loop calls): idempotent by the rows' ids. */
export async function handleSiteInsightsJob(job: JobEnvelope, env: Env, _context: JobContext): Promise<void> {
  await storeRows(createDb(env.DB), [rowsOf(job)]);
}

/**
 * Every insights message of a queue batch stored together: one D1 round trip for the batch (the consumer calls this
 * before its per-message loop). Acked together; when the write fails, each is retried (with `delaySeconds`), and
 * the ids make the next delivery exact. A malformed message is retried alone, towards the dead-letter queue.
 */
export async function storeSiteInsightsMessages(
  messages: Array<{ job: JobEnvelope; message: Message<unknown> }>,
  env: Env,
  delaySeconds: (message: Message<unknown>) => number,
): Promise<void> {
  const good: Array<{ rows: InsightsRow[]; message: Message<unknown> }> = [];
  for (const { job, message } of messages) {
    try {
      good.push({ rows: rowsOf(job), message });
    } catch (error) {
      console.error(String(error));
      message.retry({ delaySeconds: delaySeconds(message) });
    }
  }
  if (good.length === 0) return;
  try {
    await storeRows(createDb(env.DB), good.map((g) => g.rows));
    for (const { message } of good) message.ack();
  } catch (error) {
    console.error(`site insights: ${good.length} message(s) not stored, retried`, error);
    for (const { message } of good) message.retry({ delaySeconds: delaySeconds(message) });
  }
}
