import { sql } from 'drizzle-orm';
import { changedRows, rawRun, runBatch, type Db } from '../../db/client';
import type { InsightsRow } from './events';

/** The message type of site insights events (services/insights/events sends them, src/jobs/site-insights.ts stores them). */
export const SITE_INSIGHTS_JOB = 'site-insights-events';

/**
 * Stores queued insights rows: one `insert ... select from json_each(?)` per message (one bound parameter, whatever
 * the number of events), all the messages of a queue batch in one D1 batch (one round trip, one transaction).
 * `or ignore` makes a redelivered event a no-op (its id is its content's hash); a row of a site deleted since it was
 * queued is left out (the `exists`), so a message never fails for it.
 */
export function insertRowsStatement(db: Db, rows: InsightsRow[]) {
  const field = (name: string) => sql.raw(`json_extract(e.value, '$.${name}')`);
  return rawRun(
    db,
    sql`insert or ignore into site_insights_events
      (id, site_id, type, at, url, url_path, display_context, site_section, site_space, site_share_key, space_id, revision_id, page_id, visitor_id, session_id, data)
      select ${field('id')}, ${field('siteId')}, ${field('type')}, ${field('at')}, ${field('url')}, ${field('urlPath')}, ${field('displayContext')},
        ${field('siteSection')}, ${field('siteSpace')}, ${field('siteShareKey')}, ${field('space')}, ${field('revision')}, ${field('page')},
        ${field('visitorId')}, ${field('sessionId')}, json(${field('data')})
      from json_each(${JSON.stringify(rows)}) e
      where exists (select 1 from sites s where s.id = ${field('siteId')})`,
  );
}

/** Stores the rows of several messages in one round trip. */
export async function storeRows(db: Db, messages: InsightsRow[][]): Promise<void> {
  const statements = messages.filter((rows) => rows.length > 0).map((rows) => insertRowsStatement(db, rows));
  if (statements.length > 0) await runBatch(db, statements);
}

/** How long events are kept: the longest range an aggregation covers (366 days), and a little more. */
export const RETENTION_MS = 400 * 86_400_000;
/** Rows deleted per hourly run at most: a bounded write, caught up over the next runs. */
const PURGE_BATCH = 5000;

/** Deletes events older than the retention (the hourly cron). Answers how many. */
export async function purgeOldEvents(db: Db, now: number): Promise<number> {
  const result = await rawRun(
    db,
    sql`delete from site_insights_events where id in (select id from site_insights_events where at < ${now - RETENTION_MS} limit ${PURGE_BATCH})`,
  );
  return changedRows(result);
}
