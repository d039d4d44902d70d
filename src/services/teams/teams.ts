import { and, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../../db/client';
import { orgMembers, teamMembers, teams, users } from '../../db/schema/index';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { valuesOf } from '../../lib/sql-lists';
import { orgRoleSql, qualify } from '../access/access';
import { normalizeEmail } from '../identity/users';

/**
 * The organization's members among the given user ids and emails, as one statement to run in a
 * `db.batch` with others (the lists travel as JSON parameters, whatever their length).
 */
export function orgMembersAmong(db: Db, orgId: string, lookup: { ids?: string[]; emails?: string[] }) {
  const ids = [...new Set(lookup.ids ?? [])];
  const emails = [...new Set((lookup.emails ?? []).map(normalizeEmail))];
  return db
    .select({ id: users.id, email: users.email })
    .from(orgMembers)
    .innerJoin(users, eq(users.id, orgMembers.userId))
    .where(and(eq(orgMembers.orgId, orgId), or(inArray(users.id, valuesOf(ids)), inArray(users.email, valuesOf(emails)))));
}

/** The outer `teams` row, qualified for use inside correlated subqueries (see services/access/access). */
const TEAM_ID = qualify(teams.id);
const TEAM_ORG_ID = qualify(teams.orgId);

/** Team columns plus the counts and the caller's standing, as one selection. */
export function teamSelection<E extends Record<string, SQLiteColumn | SQL>>(db: Db, callerId: string, extra?: E) {
  return db
    .select({
      ...(extra as E),
      team: teams,
      members: sql<number>`(select count(*) from team_members tm where tm.team_id = ${TEAM_ID})`,
      spaces: sql<number>`(select count(*) from space_team_grants g join spaces s on s.id = g.space_id
        where g.team_id = ${TEAM_ID} and s.deleted_at is null)`,
      callerRank: orgRoleSql(TEAM_ORG_ID, callerId),
      callerIsOwner: sql<number>`exists (select 1 from team_members tm where tm.team_id = ${TEAM_ID}
        and tm.user_id = ${callerId} and tm.is_owner = 1)`,
    })
    .from(teams);
}

export type TeamSelectionRow = Awaited<ReturnType<ReturnType<typeof teamSelection>['all']>>[number];

/** The team of the organization with the caller's standing, as a statement to batch. */
export function teamQuery(db: Db, orgId: string, teamId: string, callerId: string) {
  return teamSelection(db, callerId)
    .where(and(eq(teams.orgId, orgId), eq(teams.id, teamId)))
    .limit(1);
}

/**
 * Checks `teamQuery`'s rows. Non-members of the organization (and guests who do not own the team)
 * get 404; `manage` additionally needs org admin or team owner (403).
 */
export function checkTeam(rows: TeamSelectionRow[], manage: boolean): TeamSelectionRow {
  const row = rows[0];
  const orgRank = row?.callerRank ?? null;
  if (!row || orgRank === null || (orgRank < RANK.read && !row.callerIsOwner)) {
    throw new ApiError(404, 'Team not found');
  }
  if (manage && orgRank !== RANK.admin && !row.callerIsOwner) {
    throw new ApiError(403, 'Only organization admins and team owners can manage this team');
  }
  return row;
}

/** Loads a team of an organization the caller belongs to, checked as `checkTeam` does. */
export async function requireTeam(db: Db, orgId: string, teamId: string, callerId: string, manage: boolean) {
  return checkTeam(await teamQuery(db, orgId, teamId, callerId).all(), manage);
}

export function teamMembershipKey(teamId: string, userId: string) {
  return and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId));
}

/**
 * Loads a team for its member who leaves it: every member of the team may, a guest included
 * (who otherwise cannot see teams); anyone else in the organization as with `requireTeam(..., false)`.
 */
export async function requireTeamToLeave(db: Db, orgId: string, teamId: string, callerId: string) {
  const row = await db
    .select({
      orgRank: orgRoleSql(TEAM_ORG_ID, callerId),
      inTeam: sql<number>`exists (select 1 from team_members tm where tm.team_id = ${TEAM_ID} and tm.user_id = ${callerId})`,
    })
    .from(teams)
    .where(and(eq(teams.orgId, orgId), eq(teams.id, teamId)))
    .get();
  if (!row || row.orgRank === null || (row.orgRank < RANK.read && !row.inTeam)) throw new ApiError(404, 'Team not found');
}
