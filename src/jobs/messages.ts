import { z } from 'zod';

/** Every queue message: an id for idempotency, a type to dispatch on, and its payload. */
export const JobEnvelopeSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  payload: z.unknown(),
});
export type JobEnvelope = z.infer<typeof JobEnvelopeSchema>;
