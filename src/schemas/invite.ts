import { z } from '@hono/zod-openapi';
import type { orgLinkInvites } from '../db/schema';
import { rankToRole } from '../lib/roles';
import { TimestampSchema, type UrlContext } from './common';
import { RoleOrGuestSchema } from './roles';

export const InviteLinkSchema = z
  .object({
    object: z.literal('invite'),
    id: z.string(),
    role: RoleOrGuestSchema,
    redundant: z.boolean().openapi({ description: 'True when the caller already has at least this role' }),
    createdAt: TimestampSchema,
    urls: z.object({
      location: z.string(),
      join: z.string().openapi({ description: 'POST here with a user token to join with this role' }),
    }),
  })
  .openapi('InviteLinkToOrganization');

export function toInviteLink(row: typeof orgLinkInvites.$inferSelect, callerRank: number | null, urls: UrlContext): z.infer<typeof InviteLinkSchema> {
  return {
    object: 'invite',
    id: row.id,
    role: rankToRole(row.role),
    redundant: callerRank !== null && callerRank >= row.role,
    createdAt: row.createdAt,
    urls: {
      location: `${urls.api}/orgs/${row.orgId}/link-invites/${row.id}`,
      join: `${urls.api}/orgs/${row.orgId}/invites/${row.id}`,
    },
  };
}
