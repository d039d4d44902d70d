import { and, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { auditEvents } from '../../db/schema';
import { beforeCursor, type Cursor } from '../../lib/pagination';

export interface AuditEventFilters {
  from?: string;
  to?: string;
  action?: string;
  actor?: string;
  target?: string;
}

function filtersSql(orgId: string, filters: AuditEventFilters): SQL | undefined {
  return and(
    eq(auditEvents.orgId, orgId),
    filters.from ? gte(auditEvents.occurredAt, filters.from) : undefined,
    filters.to ? lte(auditEvents.occurredAt, filters.to) : undefined,
    filters.action ? eq(auditEvents.action, filters.action) : undefined,
    filters.actor ? eq(auditEvents.actorId, filters.actor) : undefined,
    filters.target ? eq(auditEvents.targetId, filters.target) : undefined,
  );
}

/** A page of an organization's events, newest first (`limit + 1` rows: the last tells whether a next page exists). */
export function auditEventsPageQuery(db: Db, orgId: string, filters: AuditEventFilters, cursor: Cursor | null, limit: number) {
  return db
    .select()
    .from(auditEvents)
    .where(and(filtersSql(orgId, filters), beforeCursor(cursor, auditEvents.occurredAt, auditEvents.id)))
    .orderBy(desc(auditEvents.occurredAt), desc(auditEvents.id))
    .limit(limit + 1);
}

/** How many events match the filters (the list's `count`). */
export function auditEventsCountQuery(db: Db, orgId: string, filters: AuditEventFilters) {
  return db.select({ total: count() }).from(auditEvents).where(filtersSql(orgId, filters));
}

export function auditEventQuery(db: Db, orgId: string, eventId: string) {
  return db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.orgId, orgId), eq(auditEvents.id, eventId)))
    .limit(1);
}
