import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';
import { orgMembers, spaceUserGrants, spaces, teamMembers, teams, users } from '../db/schema';
import { RANK } from '../lib/roles';

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

/** One member as a statement to batch (no row: not a member). */
export function memberQuery(db: Db, orgId: string, userId: string) {
  return memberSelection(db)
    .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId)))
    .limit(1);
}

export async function loadMember(db: Db, orgId: string, userId: string) {
  return memberQuery(db, orgId, userId).get();
}

/**
 * True unless `userId` is an active admin of the organization and no other active admin exists:
 * the condition under which they may be demoted or removed. It goes into the WHERE of the write
 * itself, so the check and the write are one atomic statement: two admins demoting or removing
 * themselves at the same time cannot both pass a check made before either write.
 */
export function keepsAnAdminSql(orgId: string, userId: string): SQL {
  return sql`(not exists (select 1 from org_members t where t.org_id = ${orgId} and t.user_id = ${userId} and t.role = ${RANK.admin} and t.disabled = 0)
    or exists (select 1 from org_members o where o.org_id = ${orgId} and o.user_id <> ${userId} and o.role = ${RANK.admin} and o.disabled = 0))`;
}

/**
 * Statements that remove a user from an organization with everything that gave them access there:
 * their team memberships and their space grants in that organization. With `keepAnAdmin`, every
 * statement is guarded by `keepsAnAdminSql` (same transaction, so all or none apply), and a last
 * statement reads the membership back: still there means the removal was refused.
 */
export function removeMembershipStatements(db: Db, orgId: string, userId: string, options: { keepAnAdmin?: boolean } = {}) {
  const guard = options.keepAnAdmin ? keepsAnAdminSql(orgId, userId) : undefined;
  const inOrgSpaces: SQL = inArray(spaceUserGrants.spaceId, db.select({ id: spaces.id }).from(spaces).where(eq(spaces.orgId, orgId)));
  const inOrgTeams: SQL = inArray(teamMembers.teamId, db.select({ id: teams.id }).from(teams).where(eq(teams.orgId, orgId)));
  const membership = and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId));
  return [
    db.delete(spaceUserGrants).where(and(eq(spaceUserGrants.userId, userId), inOrgSpaces, guard)),
    db.delete(teamMembers).where(and(eq(teamMembers.userId, userId), inOrgTeams, guard)),
    db.delete(orgMembers).where(and(membership, guard)),
    db.select({ role: orgMembers.role }).from(orgMembers).where(membership),
  ] as const;
}
