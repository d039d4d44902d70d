import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';
import { orgMembers, spaceUserGrants, spaces, teamMembers, teams, users } from '../db/schema';

const memberFields = {
  user: { id: users.id, displayName: users.displayName, email: users.email, photoURL: users.photoURL },
  role: orgMembers.role,
  disabled: orgMembers.disabled,
  joinedAt: orgMembers.joinedAt,
  lastSeenAt: orgMembers.lastSeenAt,
  sso: orgMembers.sso,
  spaces: sql<number>`(select count(*) from space_user_grants g join spaces s on s.id = g.space_id
    where g.user_id = ${orgMembers.userId} and s.org_id = ${orgMembers.orgId} and s.deleted_at is null)`,
  teams: sql<number>`(select count(*) from team_members tm join teams t on t.id = tm.team_id
    where tm.user_id = ${orgMembers.userId} and t.org_id = ${orgMembers.orgId})`,
};

/** Member rows with their user and the counts the API shows; `extra` adds columns of joined tables. */
export function memberSelection<E extends Record<string, SQLiteColumn | SQL>>(db: Db, extra?: E) {
  return db.select({ ...memberFields, ...(extra as E) }).from(orgMembers).innerJoin(users, eq(users.id, orgMembers.userId));
}

export async function loadMember(db: Db, orgId: string, userId: string) {
  return memberSelection(db)
    .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId)))
    .get();
}

/**
 * Statements that remove a user from an organization with everything that gave them access there:
 * their team memberships and their space grants in that organization.
 */
export function removeMembershipStatements(db: Db, orgId: string, userId: string) {
  const inOrgSpaces: SQL = inArray(spaceUserGrants.spaceId, db.select({ id: spaces.id }).from(spaces).where(eq(spaces.orgId, orgId)));
  const inOrgTeams: SQL = inArray(teamMembers.teamId, db.select({ id: teams.id }).from(teams).where(eq(teams.orgId, orgId)));
  return [
    db.delete(spaceUserGrants).where(and(eq(spaceUserGrants.userId, userId), inOrgSpaces)),
    db.delete(teamMembers).where(and(eq(teamMembers.userId, userId), inOrgTeams)),
    db.delete(orgMembers).where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId))),
  ] as const;
}
