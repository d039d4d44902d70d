import { z } from '@hono/zod-openapi';
import type { auditEvents } from '../db/schema';
import { TimestampSchema, type UrlContext } from './common';

export const AuditEventActorSchema = z
  .object({
    type: z.enum(['user', 'integration', 'installation', 'system', 'support']).openapi({ description: 'Kind of actor that initiated the change' }),
    id: z.string().openapi({ description: 'Stable identifier of the actor' }),
    label: z.string().optional().openapi({ description: 'Display label captured when the event was recorded' }),
  })
  .openapi('AuditEventActor');

export const AuditEventTargetSchema = z
  .object({
    type: z.string().openapi({ description: 'Kind of resource affected by the change' }),
    id: z.string().openapi({ description: 'Stable identifier of the affected resource' }),
    label: z.string().optional().openapi({ description: 'Display label captured when the event was recorded' }),
  })
  .openapi('AuditEventTarget');

export const AuditEventSchema = z
  .object({
    object: z.literal('audit-event'),
    id: z.string().openapi({ format: 'uuid', description: 'Unique identifier of the audit event' }),
    occurredAt: TimestampSchema,
    action: z.string().openapi({ description: 'Stable action name describing the recorded change' }),
    actor: AuditEventActorSchema,
    source: z.enum(['ui', 'api', 'integration', 'webhook', 'workflow', 'script', 'support']).openapi({ description: 'Entry point that initiated the change' }),
    target: AuditEventTargetSchema,
    urls: z.object({ location: z.string().openapi({ format: 'uri', description: 'URL of the audit event in the API' }) }),
  })
  .openapi('AuditEvent');

export const AuditEventDetailsSchema = AuditEventSchema.extend({
  executionId: z.string().optional().openapi({ description: 'Identifier of the request that recorded the event (its X-Request-Id)' }),
  schemaVersion: z.number().int().min(1).openapi({ description: 'Version of the action payload schema' }),
  payload: z.record(z.string(), z.unknown()).openapi({
    description: "Details of the change: the request's method, route and path parameters, its coarsened address (IPv4 /24, IPv6 /48) and user agent",
  }),
}).openapi('AuditEventDetails');

export const AuditEventActionSchema = z
  .object({
    object: z.literal('audit-event-action'),
    id: z.string().openapi({ description: 'Stable action identifier stored on audit events' }),
    label: z.string().openapi({ description: 'Human-readable label for the action' }),
  })
  .openapi('AuditEventAction');

type AuditEventRow = typeof auditEvents.$inferSelect;

/** The payload's version: `request` and `params` (services/audit/context `draftEvent`). */
export const AUDIT_PAYLOAD_SCHEMA_VERSION = 1;

export function toAuditEvent(row: AuditEventRow, urls: UrlContext): z.infer<typeof AuditEventSchema> {
  return {
    object: 'audit-event',
    id: row.id,
    occurredAt: row.occurredAt,
    action: row.action,
    actor: { type: row.actorType as z.infer<typeof AuditEventActorSchema>['type'], id: row.actorId, ...(row.actorLabel ? { label: row.actorLabel } : {}) },
    source: row.source as z.infer<typeof AuditEventSchema>['source'],
    target: { type: row.targetType, id: row.targetId, ...(row.targetLabel ? { label: row.targetLabel } : {}) },
    urls: { location: `${urls.api}/orgs/${row.orgId}/audit-events/${row.id}` },
  };
}

export function toAuditEventDetails(row: AuditEventRow, urls: UrlContext): z.infer<typeof AuditEventDetailsSchema> {
  return {
    ...toAuditEvent(row, urls),
    ...(row.executionId ? { executionId: row.executionId } : {}),
    schemaVersion: AUDIT_PAYLOAD_SCHEMA_VERSION,
    // As recorded: the caller gives it restored (services/audit/payload `restoredPayload`).
    payload: row.payload,
  };
}
