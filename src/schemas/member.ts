import { z } from '@hono/zod-openapi';
import { rankToRole } from '../lib/roles';
import { TimestampSchema, type UrlContext } from './common';
import { RoleOrGuestSchema } from './roles';
import { UserSchema, toUser, type UserRow } from './user';

export const MemberSchema = z
  .object({
    object: z.literal('member'),
    id: z.string(),
    role: RoleOrGuestSchema,
    user: UserSchema,
    disabled: z.boolean(),
    joinedAt: TimestampSchema,
    lastSeenAt: TimestampSchema.optional(),
    sso: z.boolean(),
    spaces: z.number().openapi({ description: 'Spaces this member was given access to' }),
    teams: z.number().openapi({ description: 'Teams this member belongs to' }),
    sites: z.number().openapi({ description: 'Docs sites this member can open: every site of the organization for an active member with read or more, none for a guest or a disabled member' }),
  })
  .openapi('OrganizationMember');

export interface MemberRow {
  user: UserRow;
  role: number;
  disabled: boolean;
  joinedAt: string;
  lastSeenAt: string | null;
  sso: boolean;
  spaces: number;
  teams: number;
  sites: number;
}

export function toMember(row: MemberRow, urls: UrlContext): z.infer<typeof MemberSchema> {
  return {
    object: 'member',
    id: row.user.id,
    role: rankToRole(row.role),
    user: toUser(row.user, urls),
    disabled: row.disabled,
    joinedAt: row.joinedAt,
    ...(row.lastSeenAt ? { lastSeenAt: row.lastSeenAt } : {}),
    sso: row.sso,
    spaces: row.spaces,
    teams: row.teams,
    sites: row.sites,
  };
}
