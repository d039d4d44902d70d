import { z } from '@hono/zod-openapi';
import type { integrationEventLogs, integrationEvents } from '../db/schema';
import { TRACE_LEVELS } from '../lib/trace-levels';
import { TimestampSchema } from './common';

/**
 * Integration events and their traces. An event's row is mapped in services/integrations/presenter (its payload is the
 * one receivers get, services/integrations/event-payload); a trace's lines here.
 */

/** What an event's row records of its delivery. */
export type IntegrationEventDelivery = 'pending' | 'success' | 'failed';

export const IntegrationEventStatusSchema = z.enum(['success', 'failed']).openapi({
  description:
    "GitBook's states of a delivery: success: every receiver accepted it; failed: it has not been delivered, because its last attempt failed or, with `pending`, because an attempt is still to come.",
});

export const IntegrationEventLogSchema = z
  .object({
    message: z.string().openapi({ description: 'The message of the log entry.' }),
    timestamp: TimestampSchema,
    level: z.enum(TRACE_LEVELS).openapi({ description: 'The level of the log entry.' }),
  })
  .openapi('IntegrationEventLog');

export const IntegrationEventTraceSchema = z
  .object({ logs: z.array(IntegrationEventLogSchema) })
  .openapi('IntegrationEventTrace', {
    description: "What happened while delivering the event, in order: each attempt's lines logged by the integration's script (its console), then one line per receiver with its answer or error.",
  });

export const IntegrationEventSchema = z
  .object({
    id: z.string().openapi({ description: 'Unique ID of the event.' }),
    integrationId: z.string().openapi({ description: 'Unique ID of the integration.' }),
    installationId: z.string().optional().openapi({ description: 'Unique ID of the integration installation.' }),
    createdAt: TimestampSchema,
    payload: z
      .object({ eventId: z.string(), type: z.string() })
      .catchall(z.unknown())
      .openapi({ description: "The event as the integration receives it (GitBook's `Event`)." }),
    status: IntegrationEventStatusSchema,
    pending: z.literal(true).optional().openapi({
      description:
        "Only while the event is not delivered yet (waiting for its first attempt or for a retry): `status` is then `failed`, as GitBook's two states describe a finished delivery. This deployment's addition to GitBook's IntegrationEvent; an event is listed from the moment it is recorded.",
    }),
  })
  .openapi('IntegrationEvent');

export const IntegrationEventWithTraceSchema = z
  .object({ event: IntegrationEventSchema, trace: IntegrationEventTraceSchema })
  .openapi('IntegrationEventWithTrace');

export type IntegrationEventRow = typeof integrationEvents.$inferSelect;
export type IntegrationEventLogRow = Pick<typeof integrationEventLogs.$inferSelect, 'level' | 'message' | 'timestamp'>;

export function toIntegrationEventTrace(rows: IntegrationEventLogRow[]): z.infer<typeof IntegrationEventTraceSchema> {
  return { logs: rows.map((row) => ({ message: row.message, timestamp: row.timestamp, level: row.level as z.infer<typeof IntegrationEventLogSchema>['level'] })) };
}
