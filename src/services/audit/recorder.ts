import type { D1Client } from '../../db/client';
import { storedPayload } from './payload';

/**
 * Writing the audit log in the batch of the change it records.
 *
 * A state-changing request's D1 client is wrapped (`recordingClient`): the first write the request sends (a batch,
 * or one statement, which then becomes a batch of its own) carries the event, so the record and the change commit
 * or roll back together, in the round trip the change costs anyway. The batch becomes
 *
 *     [insert the event, ...the request's statements, delete the event again if nothing else changed a row]
 *
 * The insert remembers SQLite's `total_changes()` (`changes_base`); the last statement compares it with the
 * count after the request's statements, so a write that was refused by its own guard (the last admin, a stale
 * compare-and-set) or changed nothing leaves no record, and the event stays pending for the request's next write.
 * The insert comes first so that an organization found from a row the change deletes (a collection, an
 * installation) is found before it goes.
 */

export type AuditActorType = 'user' | 'integration' | 'installation' | 'system' | 'support';
export type AuditSource = 'api' | 'integration';

/** Whose log an event goes to: an organization given, or the one a row names (found in the event's own statement). */
export type AuditOrganization =
  | { id: string }
  | { of: 'space' | 'collection' | 'installation' | 'integration' | 'hostname' | 'idOrHostname'; key: string }
  /** Every organization a user is a member of (the user's API tokens). */
  | { membershipsOf: string };

/** An event not written yet: plain data, so that it crosses to the space's writer (a Durable Object) as it is. */
export interface AuditEventDraft {
  id: string;
  occurredAt: string;
  action: string;
  actor: { type: AuditActorType; id: string; label?: string };
  source: AuditSource;
  target: { type: string; id: string; label?: string };
  organization: AuditOrganization;
  executionId: string;
  payload: Record<string, unknown>;
}

/** A request's event and where it stands: pending until a batch that changed something carried it. */
export interface AuditRecording {
  draft: AuditEventDraft | null;
  inFlight: boolean;
}

const ORGANIZATION_OF: Record<Exclude<AuditOrganization, { id: string } | { membershipsOf: string }>['of'], string> = {
  space: 'select org_id from spaces where id = ?',
  collection: 'select org_id from collections where id = ?',
  installation: 'select org_id from integration_installations where id = ?',
  integration: 'select owner_org_id as org_id from integrations where name = ?',
  // Several organizations may hold one name pending: only the one that proved it owns it.
  hostname: 'select id as org_id from organizations where custom_hostname = ? and custom_hostname_verified_at is not null',
  // An organization named as GitBook's bodies name one: its id or its hostname label (publishIntegration).
  idOrHostname:
    'select o.id as org_id from (select ? as ref) r join organizations o on o.id = r.ref or o.hostname = lower(r.ref) order by o.id = r.ref desc limit 1',
};

/**
 * The select answering the organizations of an event (one row each), and its parameter. An event whose organization
 * is not known goes nowhere (`''`, which the insert leaves out), as `draftEvent` says.
 */
function organizationSql(organization: AuditOrganization | undefined): [string, string] {
  if (!organization) return ['select ? as org_id', ''];
  if ('id' in organization) return ['select ? as org_id', organization.id];
  if ('membershipsOf' in organization) return ['select org_id from org_members where user_id = ?', organization.membershipsOf];
  return [ORGANIZATION_OF[organization.of], organization.key];
}

const INSERT_COLUMNS =
  'org_id, id, occurred_at, action, actor_type, actor_id, actor_label, source, target_type, target_id, target_label, execution_id, payload, changes_base';

/** The statement that writes `draft`, one row per organization it concerns; it never fails a change (`or ignore`). */
export function insertEventStatement(client: D1Client, draft: AuditEventDraft): D1PreparedStatement {
  const [orgSql, orgParam] = organizationSql(draft.organization);
  return client
    .prepare(
      `insert or ignore into audit_events (${INSERT_COLUMNS})
       select o.org_id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, total_changes() from (${orgSql}) o where o.org_id is not null and o.org_id <> ''`,
    )
    .bind(
      draft.id,
      draft.occurredAt,
      draft.action,
      draft.actor.type,
      draft.actor.id,
      draft.actor.label ?? null,
      draft.source,
      draft.target.type,
      draft.target.id,
      draft.target.label ?? null,
      draft.executionId,
      JSON.stringify(storedPayload(draft.action, draft.payload, draft.target.id)),
      orgParam,
    );
}

/**
 * The batch's last statement: removes the event when no statement between the two changed a row. Found by its key,
 * the event's organizations selected again as the insert selected them: when nothing changed a row, the select
 * answers what it answered then; when something did, the event stays whichever organizations it answers now (issue
 * 42, storage: the drop found the event by its time through `audit_events_time`, an index of every event kept for it
 * and the retention purge alone; the purge walks the organizations' time index instead).
 */
export function dropUnchangedStatement(client: D1Client, draft: AuditEventDraft): D1PreparedStatement {
  const [orgSql, orgParam] = organizationSql(draft.organization);
  const organizations = orgSql.replace('?', '?2');
  return client
    .prepare(
      `delete from audit_events where id = ?1 and org_id in (${organizations})
       and total_changes() <= changes_base + (select count(*) from audit_events where id = ?1 and org_id in (${organizations}))`,
    )
    .bind(draft.id, orgParam);
}

// ---------------------------------------------------------------------------------------------
// The recording client

const SQL_TEXT = Symbol('sql');
const UNWRAPPED = Symbol('unwrapped');
type Wrapped = D1PreparedStatement & { [SQL_TEXT]?: string; [UNWRAPPED]?: D1PreparedStatement };

const WRITE = /^\s*(?:insert|update|delete|replace)\b|^\s*with\b[\s\S]*\b(?:insert|update|delete)\b/i;
const isWrite = (statement: Wrapped) => WRITE.test(statement[SQL_TEXT] ?? '');
const unwrap = (statement: Wrapped) => statement[UNWRAPPED] ?? statement;

/**
 * Runs `statements` as one batch; when `recording` has an event pending and the batch writes, the event goes with
 * it (see the top of this file). Answers the statements' own results.
 */
export async function batchWithEvent(client: D1Client, recording: AuditRecording, statements: Wrapped[]): Promise<D1Result[]> {
  const draft = recording.draft;
  if (!draft || recording.inFlight || !statements.some(isWrite)) return client.batch(statements.map(unwrap));
  recording.inFlight = true;
  try {
    const results = await client.batch([insertEventStatement(client, draft), ...statements.map(unwrap), dropUnchangedStatement(client, draft)]);
    const inserted = results[0].meta.changes ?? 0;
    const dropped = results[results.length - 1].meta.changes ?? 0;
    if (inserted > 0 && dropped === 0) recording.draft = null;
    return results.slice(1, -1);
  } finally {
    recording.inFlight = false;
  }
}

/** `raw()` of a statement run in a batch: the batch answers objects, raw answers arrays (as drizzle's own batch maps them). */
function rawRows(result: D1Result, options?: { columnNames?: boolean }): unknown[][] {
  const rows = (result.results ?? []) as Record<string, unknown>[];
  const arrays = rows.map((row) => Object.values(row));
  return options?.columnNames ? [rows[0] ? Object.keys(rows[0]) : [], ...arrays] : arrays;
}

function wrapStatement(client: D1Client, recording: AuditRecording, statement: D1PreparedStatement, sqlText: string): Wrapped {
  const alone = async (self: Wrapped) => (await batchWithEvent(client, recording, [self]))[0];
  const wrapped: Wrapped = new Proxy(statement, {
    get(target, prop) {
      if (prop === SQL_TEXT) return sqlText;
      if (prop === UNWRAPPED) return target;
      if (prop === 'bind') return (...values: unknown[]) => wrapStatement(client, recording, target.bind(...values), sqlText);
      const carries = recording.draft && !recording.inFlight && WRITE.test(sqlText);
      if (carries && prop === 'run') return async () => alone(wrapped);
      if (carries && prop === 'all') return async () => alone(wrapped);
      if (carries && prop === 'raw') return async (options?: { columnNames?: boolean }) => rawRows(await alone(wrapped), options);
      if (carries && prop === 'first') {
        return async (column?: string) => {
          const row = ((await alone(wrapped)).results?.[0] ?? null) as Record<string, unknown> | null;
          return column === undefined ? row : (row?.[column] ?? null);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Wrapped;
  return wrapped;
}

/** `client` with `recording`'s event carried by its first write (see the top of this file). */
export function recordingClient<C extends D1Client>(client: C, recording: AuditRecording): C {
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'prepare') return (query: string) => wrapStatement(target, recording, target.prepare(query), query);
      if (prop === 'batch') return (statements: Wrapped[]) => batchWithEvent(target, recording, statements);
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
