import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { teamMembers, teams } from '../db/schema';
import { ApiError } from '../lib/errors';
import { RANK } from '../lib/roles';
import { orgRoleSql } from './access';

/** Team columns plus the counts and the caller's standing, as one selection. */
export function teamSelection(db: Db, callerId: string) {
  return db
    .select({
      team: teams,
      members: sql<number>`(select count(*) from team_members tm where tm.team_id = ${teams.id})`,
      spaces: sql<number>`(select count(*) from space_team_grants g join spaces s on s.id = g.space_id
        where g.team_id = ${teams.id} and s.deleted_at is null)`,
      callerRank: orgRoleSql(teams.orgId, callerId),
      callerIsOwner: sql<number>`exists (select 1 from team_members tm where tm.team_id = ${teams.id}
        and tm.user_id = ${callerId} and tm.is_owner = 1)`,
    })
    .from(teams);
}

export type TeamSelectionRow = Awaited<ReturnType<ReturnType<typeof teamSelection>['all']>>[number];

/**
 * Loads a team of an organization the caller belongs to. Non-members of the organization (and
 * guests who do not own the team) get 404; `manage` additionally needs org admin or team owner (403).
 */
export async function requireTeam(db: Db, orgId: string, teamId: string, callerId: string, manage: boolean) {
  const row = await teamSelection(db, callerId)
    .where(and(eq(teams.orgId, orgId), eq(teams.id, teamId)))
    .get();
  const orgRank = row?.callerRank ?? null;
  if (!row || orgRank === null || (orgRank < RANK.read && !row.callerIsOwner)) {
    throw new ApiError(404, 'Team not found');
  }
  if (manage && orgRank !== RANK.admin && !row.callerIsOwner) {
    throw new ApiError(403, 'Only organization admins and team owners can manage this team');
  }
  return row;
}

export function teamMembershipKey(teamId: string, userId: string) {
  return and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId));
}
