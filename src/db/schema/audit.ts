import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The audit log (migration 0090, services/audit): one row per recorded change per organization it concerns.
 * Written only by services/audit/recorder, in the batch of the change it records.
 */
export const auditEvents = sqliteTable(
  'audit_events',
  {
    orgId: text('org_id').notNull(),
    id: text('id').notNull(),
    occurredAt: text('occurred_at').notNull(),
    action: text('action').notNull(),
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id').notNull(),
    actorLabel: text('actor_label'),
    source: text('source').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    targetLabel: text('target_label'),
    executionId: text('execution_id'),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    changesBase: integer('changes_base').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    index('audit_events_org_time').on(t.orgId, t.occurredAt, t.id),
    index('audit_events_org_actor').on(t.orgId, t.actorId, t.occurredAt),
    index('audit_events_org_target').on(t.orgId, t.targetId, t.occurredAt),
  ],
);
