import { z } from '@hono/zod-openapi';
import { teamPermissions } from '../lib/permissions';
import type { teams } from '../db/schema';
import { TimestampSchema, type UrlContext } from './common';
import { MemberSchema } from './member';

export const TeamTitleSchema = z.string().trim().min(1).max(64);

export const TeamSchema = z
  .object({
    object: z.literal('team'),
    id: z.string(),
    title: z.string(),
    members: z.number().int().openapi({ description: 'Count of members in this team' }),
    spaces: z.number().openapi({ description: 'Count of spaces this team has access to' }),
    createdAt: TimestampSchema,
    urls: z.object({ location: z.string() }),
    permissions: z.object({ admin: z.boolean(), view: z.boolean() }),
  })
  .openapi('OrganizationTeam');

/** What `toTeam` reads of a team with its counts and the caller's standing (services/teams' `teamSelection`). */
export interface TeamWithCounts {
  team: Pick<typeof teams.$inferSelect, 'id' | 'orgId' | 'title' | 'createdAt'>;
  members: number;
  spaces: number;
  /** The caller's organization role rank, null when not a member. */
  callerRank: number | null;
  callerIsOwner: number;
}

export function toTeam(row: TeamWithCounts, urls: UrlContext): z.infer<typeof TeamSchema> {
  return {
    object: 'team',
    id: row.team.id,
    title: row.team.title,
    members: row.members,
    spaces: row.spaces,
    createdAt: row.team.createdAt,
    urls: { location: `${urls.api}/orgs/${row.team.orgId}/teams/${row.team.id}` },
    permissions: teamPermissions(row.callerRank, Boolean(row.callerIsOwner)),
  };
}

export const TeamMemberRoleSchema = z.enum(['owner', 'member']).openapi('TeamMemberRole');

export const TeamMemberSchema = z
  .object({
    organization: MemberSchema,
    team: z.object({ role: TeamMemberRoleSchema }),
    permissions: z.object({ view: z.boolean() }),
  })
  .openapi('OrganizationTeamMember');
