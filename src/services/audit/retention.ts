import { sql } from 'drizzle-orm';
import { changedRows, rawRun, type Db } from '../../db/client';
import { DAY_MS } from '../../lib/time';

/** How long an audit event is kept: a year, then the hourly cron deletes it (the Handbook's audit log guide). */
export const AUDIT_RETENTION_DAYS = 365;
/** Rows deleted per hourly run at most: a bounded write, caught up over the next runs. */
const PURGE_BATCH = 5000;

/**
 * Deletes the events older than the retention (the hourly cron). Answers how many. The old events are found per
 * organization through `audit_events_org_time` (issue 42, storage: an index of every event by time alone cost each
 * event 80 bytes more for this hourly statement), the organizations walked in the key's order one `min(org_id)` at
 * a time, so that an organization deleted since keeps no event past the retention either.
 */
export async function purgeOldAuditEvents(db: Db, now: number): Promise<number> {
  const cutoff = new Date(now - AUDIT_RETENTION_DAYS * DAY_MS).toISOString();
  const result = await rawRun(
    db,
    sql`delete from audit_events where (org_id, id) in (
      with recursive orgs(org_id) as (
        select min(org_id) from audit_events
        union all select (select min(a.org_id) from audit_events a where a.org_id > orgs.org_id) from orgs where orgs.org_id is not null)
      select e.org_id, e.id from orgs join audit_events e on e.org_id = orgs.org_id and e.occurred_at < ${cutoff} limit ${PURGE_BATCH})`,
  );
  return changedRows(result);
}
