import type { z } from '@hono/zod-openapi';
import type { apiTokens } from '../../db/schema';
import type { ApiTokenSchema } from '../../schemas/user';

// An API token as the API shows it: used by identity/tokens and identity/users, two route groups, so in a module of
// its own (a group's first request evaluates no other group's router module: src/cli/module-graph.mjs).

export function toApiToken(row: typeof apiTokens.$inferSelect): z.infer<typeof ApiTokenSchema> {
  return {
    object: 'api-token',
    id: row.id,
    label: row.label,
    prefix: row.prefix,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
  };
}
