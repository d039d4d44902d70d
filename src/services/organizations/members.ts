import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { rowWhere, runBatch, type BatchItem, type Db } from '../../db/client';
import { orgMembers, organizations, spaceUserGrants, spaces, teamMembers, teams, users } from '../../db/schema/index';
import type { Env } from '../../env';
import { RANK } from '../../lib/roles';
import { valuesOf } from '../../lib/sql-lists';
import { capOf, capReached } from '../limits/caps';

// In the counts below, `+s.org_id` and `+t.org_id` keep SQLite from reading every space or team of the
// organization for each member row (through their organization index): the member's own grants and teams lead.
const memberFields = {
  user: { id: users.id, displayName: users.displayName, email: users.email, photoURL: users.photoURL },
  role: orgMembers.role,
  disabled: orgMembers.disabled,
  joinedAt: orgMembers.joinedAt,
  lastSeenAt: orgMembers.lastSeenAt,
  sso: orgMembers.sso,
  spaces: sql<number>`(select count(*) from space_user_grants g join spaces s on s.id = g.space_id
    where g.user_id = ${orgMembers.userId} and +s.org_id = ${orgMembers.orgId} and s.deleted_at is null)`,
  teams: sql<number>`(select count(*) from team_members tm join teams t on t.id = tm.team_id
    where tm.user_id = ${orgMembers.userId} and +t.org_id = ${orgMembers.orgId})`,
  // Sites have no grants of their own: an active member with read or more opens every site of the
  // organization (services/sites/access), a guest or a disabled member none: the organization's site counter
  // (kept by triggers), not a count of its sites for every member row.
  sites: sql<number>`(case when ${orgMembers.disabled} = 0 and ${orgMembers.role} >= ${RANK.read}
    then (select o.site_count from organizations o where o.id = ${orgMembers.orgId}) else 0 end)`,
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

// ---------------------------------------------------------------------------------------------
// The members cap (MAX_MEMBERS_PER_ORGANIZATION): every org_members row counts, guests included.

/**
 * SQL true while the organization can take the members a batch adds: `member_count` (kept by triggers)
 * plus the `userIds` not yet members plus the `heldEmails` not yet held (invitations for emails without an
 * account, promised a place) must stay within the cap; and the invitations held, with those, too (so they
 * cannot pile up). A statement of the batch that adds a member or holds an email never raises these sums,
 * so once the first guarded statement applies every later one does: the statements all apply or none do,
 * and the cap is checked in the writes themselves (two requests at the cap cannot both pass a check made
 * before either wrote). Adding nobody always fits; holding again an email already held adds nobody.
 */
function membersFitSql(env: Env, orgId: string, userIds: readonly string[], heldEmails: readonly string[]): SQL {
  const cap = capOf(env, 'membersPerOrganization');
  const newcomers = sql`(select count(*) from ${valuesOf(userIds)} v
    where not exists (select 1 from org_members m where m.org_id = ${orgId} and m.user_id = v.value))`;
  const newlyHeld = heldEmails.length
    ? sql`(select count(*) from ${valuesOf(heldEmails)} v
        where not exists (select 1 from org_email_invites i where i.org_id = ${orgId} and i.email = v.value))`
    : sql`0`;
  const adding = sql`(${newcomers} + ${newlyHeld})`;
  const held = sql`(select count(*) from org_email_invites i where i.org_id = ${orgId})`;
  return sql`(${adding} = 0 or ((select o.member_count from organizations o where o.id = ${orgId}) + ${adding} <= ${cap}
    and (${newlyHeld} = 0 or ${held} + ${newlyHeld} <= ${cap})))`;
}

/** An org_members insert that adds the row only where `when` holds; answers the row added. */
function insertMemberWhen(db: Db, row: typeof orgMembers.$inferInsert, when: SQL) {
  return db
    .insert(orgMembers)
    .select(rowWhere(orgMembers, row, when))
    .onConflictDoNothing()
    .returning({ orgId: orgMembers.orgId, userId: orgMembers.userId });
}

/**
 * The statements of a batch that adds members to one organization under its cap. `userIds` are every
 * user the batch may add (those already members add nothing), `heldEmails` the emails without an account it
 * holds an invitation for, promising them a place (those held already add nothing). `insert` builds a guarded membership insert,
 * `when` guards any other statement that must apply only with them, and `check` (the batch's last
 * statement) reads whether they fitted: run the batch with `runWithinMembersCap`.
 */
export function membersCapGuard(db: Db, env: Env, orgId: string, userIds: readonly string[], heldEmails: readonly string[] = []) {
  const when = membersFitSql(env, orgId, userIds, heldEmails);
  return {
    when,
    insert: (row: typeof orgMembers.$inferInsert) => insertMemberWhen(db, row, when),
    check: db.select({ fits: sql<number>`${when}`.as('members_fit') }).from(organizations).where(eq(organizations.id, orgId)),
  };
}

export type MembersCapGuard = ReturnType<typeof membersCapGuard>;

/** The 403 of the members cap unless the guarded statements of `membersCapGuard` applied (the rows of its `check`). */
function assertMembersFit(env: Env, rows: { fits: number }[]): void {
  if (!rows[0]?.fits) throw capReached('membersPerOrganization', capOf(env, 'membersPerOrganization'));
}

/**
 * Runs a batch that adds members under `guard` (from `membersCapGuard`), with the guard's check as its last
 * statement: the cap's 403 unless they fitted (then nothing was written). Answers the statements' results.
 */
export async function runWithinMembersCap(env: Env, db: Db, guard: MembersCapGuard, statements: BatchItem[]): Promise<unknown[]> {
  const results = await runBatch(db, [...statements, guard.check]);
  assertMembersFit(env, results.at(-1) as { fits: number }[]);
  return results.slice(0, -1);
}

/** A user joining one organization on their own (an invite link, their email's domain), under the members cap. */
export async function joinWithinMembersCap(env: Env, db: Db, row: typeof orgMembers.$inferInsert): Promise<void> {
  const guard = membersCapGuard(db, env, row.orgId, [row.userId]);
  await runWithinMembersCap(env, db, guard, [guard.insert(row)]);
}
