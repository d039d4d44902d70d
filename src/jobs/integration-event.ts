import { z } from 'zod';
import type { Env } from '../env';
import { deliverIntegrationEvent } from '../services/integrations/delivery';
import type { JobContext } from './consumer';
import type { JobEnvelope } from './messages';

/** The payload of an `integration-event` message (services/integrations/events: enqueueEvents). */
export const IntegrationEventJobSchema = z.object({ eventId: z.string().min(1) });

/**
 * Delivers one integration event (services/integrations/delivery). Idempotent by event id: a message whose
 * event was already delivered (or failed for good) is acked without delivering. A failed attempt throws, so
 * the consumer retries the message with backoff; after the last one the event is `failed` and the message
 * goes to the dead-letter queue.
 */
export async function handleIntegrationEventJob(job: JobEnvelope, env: Env, context: JobContext): Promise<void> {
  const parsed = IntegrationEventJobSchema.safeParse(job.payload);
  if (!parsed.success) throw new Error(`integration-event ${job.id}: the payload has no eventId`);
  const outcome = await deliverIntegrationEvent(env, parsed.data.eventId, context.attempts);
  if (outcome === 'gone') console.log(`integration-event ${job.id}: event ${parsed.data.eventId} no longer exists (its integration was purged)`);
}
