import { z } from '@hono/zod-openapi';
import { RoleOrGuestSchema, RoleSchema } from './roles';
import { TeamSchema } from './team';
import { UserSchema } from './user';

/** Sharing a space, collection or site: GitBook's permission items and invite body (@gitbook/api 0.202.0). */

export const MAX_INVITES = 100;

export const UserPermissionSchema = z.object({ permission: RoleSchema, user: UserSchema }).openapi('UserContentPermission');
export const TeamPermissionSchema = z.object({ permission: RoleSchema, team: TeamSchema }).openapi('TeamContentPermission');

export const UserSitePermissionOverrideSchema = z
  .object({ permission: RoleOrGuestSchema, user: UserSchema })
  .openapi('UserSitePermissionOverride', { description: 'The role a user was given on a site' });
export const TeamSitePermissionOverrideSchema = z
  .object({ permission: RoleOrGuestSchema, team: TeamSchema })
  .openapi('TeamSitePermissionOverride', { description: 'The role a team was given on a site' });

const SitePermissionOriginSchema = z
  .union([
    z.object({ type: z.literal('organization'), organization: z.string() }),
    z.object({
      type: z.literal('site'),
      site: z.string(),
      reason: z.enum(['member', 'team', 'default']),
      team: z.string().optional().openapi({ description: 'The team whose grant gives the role (reason `team`)' }),
    }),
  ])
  .openapi('UserSitePermissionOrigin', { description: 'Where the effective role comes from: the organization role, or a grant on the site' });

export const UserSitePermissionSchema = z
  .object({
    permission: RoleOrGuestSchema,
    user: UserSchema,
    origin: SitePermissionOriginSchema,
    disabled: z.boolean(),
    lastSeenAt: z.string().optional(),
  })
  .openapi('UserSitePermission', { description: 'A member who can access a site, with their effective role' });

export const InviteBodySchema = z
  .object({
    role: RoleOrGuestSchema.openapi({ description: 'Role to grant; null removes the grants of the listed users and teams' }),
    users: z.array(z.string().min(1)).min(1).max(MAX_INVITES).optional().openapi({ description: 'Ids of the users to invite' }),
    teams: z.array(z.string().min(1)).min(1).max(MAX_INVITES).optional().openapi({ description: 'Ids of the teams (of the organization) to invite' }),
  })
  .refine((b) => b.users || b.teams, { message: 'give users or teams to invite', path: ['users'] });

/** The invite as services/access/grants takes it: ids deduplicated, the role as its rank. */
export function inviteOf(body: z.infer<typeof InviteBodySchema>, rankOf: (role: z.infer<typeof RoleOrGuestSchema>) => number) {
  return { role: body.role === null ? null : rankOf(body.role), userIds: [...new Set(body.users ?? [])], teamIds: [...new Set(body.teams ?? [])] };
}
