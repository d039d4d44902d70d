import { sql } from 'drizzle-orm';
import { rawRun, type Db } from '../../db/client';
import { DAY_MS } from '../../lib/time';

/** How long an audit event is kept: a year, then the hourly cron deletes it (the Handbook's audit log guide). */
export const AUDIT_RETENTION_DAYS = 365;
/** Rows deleted per hourly run at most: a bounded write, caught up over the next runs. */
const PURGE_BATCH = 5000;

/** Deletes the events older than the retention (the hourly cron). Answers how many. */
export async function purgeOldAuditEvents(db: Db, now: number): Promise<number> {
  const cutoff = new Date(now - AUDIT_RETENTION_DAYS * DAY_MS).toISOString();
  const result = await rawRun(
    db,
    sql`delete from audit_events where (org_id, id) in (select org_id, id from audit_events where occurred_at < ${cutoff} limit ${PURGE_BATCH})`,
  );
  return (result as { meta?: { changes?: number } }).meta?.changes ?? 0;
}
