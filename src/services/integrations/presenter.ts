import type { z } from '@hono/zod-openapi';
import type { IntegrationEventDelivery, IntegrationEventRow, IntegrationEventSchema } from '../../schemas/integration-event';
import { eventPayload } from './event-payload';

/**
 * Integration rows as the API shows them where the mapping needs the domain's logic (schemas/ holds the
 * pure mappers): an event's payload is the one its receivers get (services/integrations/event-payload).
 */

/** An event as the API shows it; `apiBase` (`<origin>/v1`) links the users of its payload. */
export function toIntegrationEvent(row: IntegrationEventRow, apiBase: string): z.infer<typeof IntegrationEventSchema> {
  return {
    id: row.id,
    integrationId: row.integrationId,
    ...(row.installationId ? { installationId: row.installationId } : {}),
    createdAt: row.createdAt,
    payload: eventPayload(row.id, row.payload, apiBase) as z.infer<typeof IntegrationEventSchema>['payload'],
    ...(row.status === 'success' ? { status: 'success' as const } : { status: 'failed' as const }),
    ...((row.status as IntegrationEventDelivery) === 'pending' && { pending: true as const }),
  };
}
