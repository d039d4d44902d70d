import { z } from '@hono/zod-openapi';
import type { users } from '../db/schema';
import { TimestampSchema, type UrlContext } from './common';

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

export type UserRow = Pick<typeof users.$inferSelect, 'id' | 'displayName' | 'email' | 'photoURL'>;

export function toUser(row: UserRow, urls: UrlContext): z.infer<typeof UserSchema> {
  return {
    object: 'user',
    id: row.id,
    displayName: row.displayName,
    email: row.email,
    ...(row.photoURL ? { photoURL: row.photoURL } : {}),
    urls: { location: `${urls.api}/users/${row.id}` },
  };
}

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
