import { sql, type SQL } from 'drizzle-orm';
import { rawAll, rawRun, rowsOf, type Db } from '../../db/client';
import { integrationEvents } from '../../db/schema';
import type { Env } from '../../env';
import { newId } from '../../lib/ids';
import { WORKING_STATUSES_SQL } from './scopes';

/** The queue message type of an event delivery (src/jobs/integration-event.ts handles it). */
export const INTEGRATION_EVENT_JOB = 'integration-event';

/**
 * An event's payload as stored: GitBook's `Event` without `eventId`, which is the event's own id and is
 * added when the event is shown or delivered (so events inserted by one SQL statement need no second write).
 */
export type StoredEventPayload = { type: string; installationId?: string } & Record<string, unknown>;

export interface NewEvent {
  integrationId: string;
  installationId: string;
  orgId: string;
  payload: StoredEventPayload;
}

const EVENT_COLUMNS = sql.raw('(id, integration_id, installation_id, org_id, type, payload, status, attempts, created_at, updated_at)');

/**
 * Pending events of `type`, one per installation row `ii` that `from` (a `from ... where ...` clause)
 * selects, with `payload` computed per row (GitBook's event without `eventId`), inserted by one statement
 * that answers the new ids (`eventIdsOf` its batch result). Ids are made in SQL, so nothing is read first.
 */
export function insertEventsPerInstallation(db: Db, type: string, payload: SQL, from: SQL, now: string) {
  return rawAll<{ id: string }>(
    db,
    sql`insert into integration_events ${EVENT_COLUMNS}
      select lower(hex(randomblob(10))), ii.integration_id, ii.id, ii.org_id, ${type}, ${payload}, 'pending', 0, ${now}, ${now}
      ${from}
      returning id`,
  );
}

/**
 * One event row for the caller's batch; send its id with `enqueueEvents` once the batch committed.
 * With `when`, the row is recorded only if that condition holds when the statement runs (placed before
 * a delete: only if the row to delete is still there), so a change that did not apply records nothing.
 */
export function insertEvent(db: Db, event: NewEvent, now: string, when?: SQL) {
  const id = newId();
  const row = { id, integrationId: event.integrationId, installationId: event.installationId, orgId: event.orgId, type: event.payload.type, payload: event.payload, createdAt: now, updatedAt: now };
  if (!when) return { id, statement: db.insert(integrationEvents).values(row) };
  return {
    id,
    statement: rawRun(
      db,
      sql`insert into integration_events ${EVENT_COLUMNS}
        select ${id}, ${row.integrationId}, ${row.installationId}, ${row.orgId}, ${row.type}, ${JSON.stringify(row.payload)}, 'pending', 0, ${now}, ${now}
        where ${when}`,
    ),
  };
}

/** `when` of an event about an installation (or one of its space or site installations) that must still exist. */
export const installationExists = (installationId: string) => sql`exists (select 1 from integration_installations where id = ${installationId})`;
export const spaceInstallationExists = (installationId: string, spaceId: string) =>
  sql`exists (select 1 from integration_space_installations where installation_id = ${installationId} and space_id = ${spaceId})`;
export const siteInstallationExists = (installationId: string, siteId: string) =>
  sql`exists (select 1 from integration_site_installations where installation_id = ${installationId} and site_id = ${siteId})`;

/**
 * One event per working installation (active, or pending consent to more scopes) covering the space (all of its organization's spaces, or this one
 * selected), inserted by one statement that answers the new ids (`eventIdsOf` its batch result).
 * `fields` are the event's own (JSON-serializable) fields besides type, installationId and spaceId,
 * `fieldsSql` more of them as a JSON object computed in SQL. With `atRevision`, the events are
 * recorded only if the space's head is that revision when the statement runs: placed after a guarded
 * head move in the same batch, they exist exactly when the move applied. With `when`, only if that condition holds.
 */
export function insertSpaceEvents(
  db: Db,
  spaceId: string,
  type: string,
  fields: Record<string, unknown>,
  now: string,
  options: { fieldsSql?: SQL; atRevision?: string; when?: SQL } = {},
) {
  const fieldsSql = options.fieldsSql ?? sql`'{}'`;
  const atRevision = options.atRevision === undefined ? sql`` : sql`and s.revision_id = ${options.atRevision}`;
  const when = options.when === undefined ? sql`` : sql`and ${options.when}`;
  return insertEventsPerInstallation(
    db,
    type,
    sql`json_patch(json_patch(${JSON.stringify(fields)}, ${fieldsSql}), json_object('type', ${type}, 'installationId', ii.id, 'spaceId', s.id))`,
    sql`from spaces s
      join integration_installations ii on ii.org_id = s.org_id and ii.status in ${WORKING_STATUSES_SQL}
      join integrations i on i.id = ii.integration_id and i.deleted_at is null
      where s.id = ${spaceId} ${atRevision} ${when}
        and (ii.space_selection = 'all' or exists (select 1 from integration_space_installations si
          where si.installation_id = ii.id and si.space_id = s.id and si.status = 'active'))`,
    now,
  );
}

/** The ids an `insertSpaceEvents` statement answered in a batch. */
export const eventIdsOf = (result: unknown) => rowsOf<{ id: string }>(result).map((row) => row.id);

/**
 * The `space_content_updated` events of a head move to `revisionId` by `userId`, for the batch that moves
 * the head (after the move). `updatedBy` holds the user as GitBook's `User` without `urls`, which are
 * added with the API origin when the event is shown or delivered.
 */
export function contentUpdatedEvents(db: Db, spaceId: string, revisionId: string, userId: string, now: string) {
  const updatedBy = sql`json_object('updatedBy', (select json_array(json_object('object', 'user', 'id', u.id, 'displayName', u.display_name, 'email', u.email)) from users u where u.id = ${userId}))`;
  return insertSpaceEvents(db, spaceId, 'space_content_updated', { revisionId }, now, { fieldsSql: updatedBy, atRevision: revisionId });
}

/**
 * Sends one queue message per event. The events are already recorded as pending: if sending fails,
 * the hourly cron sends again what is still pending (jobs/cron), so a failure here is logged, not thrown.
 */
export async function enqueueEvents(env: Env, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  try {
    for (let i = 0; i < eventIds.length; i += 100) {
      await env.JOBS.sendBatch(
        eventIds.slice(i, i + 100).map((id) => ({ body: { id, type: INTEGRATION_EVENT_JOB, payload: { eventId: id } } })),
      );
    }
  } catch (error) {
    console.error(`integration events: ${eventIds.length} not enqueued (the cron retries them)`, error);
  }
}

/** Event inserts placed among other statements of a batch: `eventIdsIn` finds their results. */
const eventInserts = new WeakSet<object>();

/** The ids of the events that the marked inserts of `batch` recorded, from the batch's `results`. */
export function eventIdsIn(batch: readonly unknown[], results: readonly unknown[]): string[] {
  return batch.flatMap((statement, i) => (eventInserts.has(statement as object) ? eventIdsOf(results[i]) : []));
}

/**
 * Statements removing the source organization's installations from spaces that leave it (a transfer),
 * each with its `space_installation_deleted` event, recorded in the same transaction: send the ids that
 * `eventIdsIn` finds in the batch's results once it committed.
 */
export function uninstallFromSpaces(db: Db, orgId: string, spaceIds: SQL, now: string) {
  const removed = sql`from integration_space_installations si
    join integration_installations ii on ii.id = si.installation_id and ii.org_id = ${orgId}
    where si.space_id in ${spaceIds}`;
  const type = 'space_installation_deleted';
  const events = insertEventsPerInstallation(db, type, sql`json_object('type', ${type}, 'installationId', ii.id, 'spaceId', si.space_id)`, removed, now);
  eventInserts.add(events);
  return [events, rawRun(db, sql`delete from integration_space_installations where rowid in (select si.rowid ${removed})`)];
}
