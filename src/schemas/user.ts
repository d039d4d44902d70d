import { z } from '@hono/zod-openapi';
import { TimestampSchema } from './common';

export const UserSchema = z
  .object({
    object: z.literal('user'),
    id: z.string(),
    displayName: z.string(),
    email: z.string().optional(),
    photoURL: z.string().optional(),
    urls: z.object({ location: z.string() }),
  })
  .openapi('User');

// The mapper is in the zod-free mappers module, which the published site imports alone.
export { toUser, type UserRow } from './mappers';

export const ApiTokenSchema = z
  .object({
    object: z.literal('api-token'),
    id: z.string(),
    label: z.string().nullable(),
    prefix: z.string().openapi({ description: 'The first characters of the token, to recognise it' }),
    createdAt: TimestampSchema,
    lastUsedAt: TimestampSchema.nullable(),
  })
  .openapi('ApiToken');

export const CreatedApiTokenSchema = ApiTokenSchema.extend({
  token: z.string().openapi({ description: 'The token itself: shown once, only its SHA-256 is stored' }),
}).openapi('CreatedApiToken');
