import { and, asc, count, eq, getTableName, gt, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { rawRun, runBatch, type Db } from '../../db/client';
import {
  collectionTeamGrants,
  orgMembers,
  collectionUserGrants,
  siteTeamGrants,
  siteUserGrants,
  spaceTeamGrants,
  spaceUserGrants,
  teams,
  users,
} from '../../db/schema';
import type { Env } from '../../env';
import { ApiError, badRequest } from '../../lib/errors';
import type { Cursor } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { valuesOf } from '../../lib/sql-lists';
import { nowIso } from '../../lib/time';
import { membersCapGuard, runWithinMembersCap } from '../organizations/members';
import { teamSelection } from '../teams/teams';

/**
 * Sharing a space, a collection or a site with people and teams: one set of operations over three pairs of
 * grant tables of the same shape (target, user or team, role rank, created at). What a grant opens is
 * services/access/access.ts's business; this module writes and lists them.
 */

/** One grant table: its target column (space, collection or site) and its subject column (user or team). */
export interface GrantTable {
  table: SQLiteTable;
  target: SQLiteColumn;
  subject: SQLiteColumn;
  role: SQLiteColumn;
  createdAt: SQLiteColumn;
}

export interface Shareable {
  /** The resource's name in messages ("This user has not been added to the collection"). */
  what: 'space' | 'collection' | 'site';
  users: GrantTable;
  teams: GrantTable;
}

export const SHAREABLE = {
  space: {
    what: 'space',
    users: { table: spaceUserGrants, target: spaceUserGrants.spaceId, subject: spaceUserGrants.userId, role: spaceUserGrants.role, createdAt: spaceUserGrants.createdAt },
    teams: { table: spaceTeamGrants, target: spaceTeamGrants.spaceId, subject: spaceTeamGrants.teamId, role: spaceTeamGrants.role, createdAt: spaceTeamGrants.createdAt },
  },
  collection: {
    what: 'collection',
    users: { table: collectionUserGrants, target: collectionUserGrants.collectionId, subject: collectionUserGrants.userId, role: collectionUserGrants.role, createdAt: collectionUserGrants.createdAt },
    teams: { table: collectionTeamGrants, target: collectionTeamGrants.collectionId, subject: collectionTeamGrants.teamId, role: collectionTeamGrants.role, createdAt: collectionTeamGrants.createdAt },
  },
  site: {
    what: 'site',
    users: { table: siteUserGrants, target: siteUserGrants.siteId, subject: siteUserGrants.userId, role: siteUserGrants.role, createdAt: siteUserGrants.createdAt },
    teams: { table: siteTeamGrants, target: siteTeamGrants.siteId, subject: siteTeamGrants.teamId, role: siteTeamGrants.role, createdAt: siteTeamGrants.createdAt },
  },
} as const satisfies Record<string, Shareable>;

/** The request of an invite: a role (null: remove the grants) for users and teams, ids deduplicated. */
export interface Invite {
  role: number | null;
  userIds: string[];
  teamIds: string[];
}

/** Reads an invite needs, to put in the caller's batch beside the resource's own check. */
export function inviteReads(db: Db, orgId: SQL | string, invite: Invite) {
  return [
    db.select({ id: users.id }).from(users).where(inArray(users.id, valuesOf(invite.userIds))),
    // Only the organization's teams: a team of another organization reads as one that does not exist.
    db
      .select({ id: teams.id })
      .from(teams)
      .where(and(inArray(teams.id, valuesOf(invite.teamIds)), sql`${teams.orgId} = ${orgId}`)),
  ] as const;
}

/** 400 naming the users that do not exist and the teams that are not the organization's (GitBook invites by id). */
export function checkInviteReads(invite: Invite, [foundUsers, foundTeams]: [{ id: string }[], { id: string }[]]) {
  assertAllFound(invite.userIds, foundUsers, (missing) => `users: ${missing} do not exist`);
  assertAllFound(invite.teamIds, foundTeams, (missing) => `teams: ${missing} are not teams of this organization`);
}

function assertAllFound(wanted: string[], found: { id: string }[], message: (missing: string) => string) {
  const known = new Set(found.map((f) => f.id));
  const missing = wanted.filter((id) => !known.has(id));
  if (missing.length) throw badRequest(message(missing.map((id) => `"${id}"`).join(', ')));
}

/**
 * Writes an invite as one batch: with a role, users outside the organization join it as guests (under the
 * members cap: their access comes from this grant alone) and every grant is set to the role, replacing an
 * earlier one; with null, the listed grants are removed.
 */
export async function applyInvite(db: Db, env: Env, shareable: Shareable, orgId: string, targetId: string, invite: Invite): Promise<void> {
  const { users: userGrants, teams: teamGrants } = shareable;
  if (invite.role === null) {
    const statements = [
      ...(invite.userIds.length ? [db.delete(userGrants.table).where(and(eq(userGrants.target, targetId), inArray(userGrants.subject, invite.userIds)))] : []),
      ...(invite.teamIds.length ? [db.delete(teamGrants.table).where(and(eq(teamGrants.target, targetId), inArray(teamGrants.subject, invite.teamIds)))] : []),
    ];
    if (statements.length) await runBatch(db, statements);
    return;
  }
  const now = nowIso();
  const guard = membersCapGuard(db, env, orgId, invite.userIds);
  await runWithinMembersCap(env, db, guard, [
    ...invite.userIds.map((userId) => guard.insert({ orgId, userId, role: RANK.guest, joinedAt: now })),
    ...invite.userIds.map((userId) => upsertGrant(db, userGrants, targetId, userId, invite.role!, now, guard.when)),
    ...invite.teamIds.map((teamId) => upsertGrant(db, teamGrants, targetId, teamId, invite.role!, now, guard.when)),
  ]);
}

/** Sets a grant's role, creating it when absent, only where `when` holds (the members cap's guard). */
function upsertGrant(db: Db, grants: GrantTable, targetId: string, subjectId: string, rank: number, now: string, when: SQL) {
  const target = sql.identifier(grants.target.name);
  const subject = sql.identifier(grants.subject.name);
  return rawRun(
    db,
    sql`insert into ${sql.identifier(getTableName(grants.table))} (${target}, ${subject}, "role", "created_at")
      select ${targetId}, ${subjectId}, ${rank}, ${now} where ${when}
      on conflict (${target}, ${subject}) do update set "role" = excluded."role"`,
  );
}

const grantKey = (grants: GrantTable, targetId: string, subjectId: string) => and(eq(grants.target, targetId), eq(grants.subject, subjectId));

/** The role rank of one grant (no row: none), for the caller's batch. */
export function grantQuery(db: Db, grants: GrantTable, targetId: string, subjectId: string) {
  return db.select({ role: sql<number>`${grants.role}`.as('grant_role') }).from(grants.table).where(grantKey(grants, targetId, subjectId)).limit(1);
}

/** Changes an existing grant's role (null removes it); 404 when the user or team has no grant there. */
export async function updateGrant(db: Db, shareable: Shareable, kind: 'users' | 'teams', targetId: string, subjectId: string, found: { role: number }[], rank: number | null) {
  const grants = shareable[kind];
  if (!found.length) throw new ApiError(404, `This ${kind === 'users' ? 'user' : 'team'} has not been added to the ${shareable.what}`);
  const key = grantKey(grants, targetId, subjectId);
  if (rank === null) await db.delete(grants.table).where(key).run();
  else await rawRun(db, sql`update ${sql.identifier(getTableName(grants.table))} set "role" = ${rank} where ${key}`);
}

/** Removes a grant: whether there was one (GitBook answers 205 then, 204 otherwise). */
export async function removeGrant(db: Db, grants: GrantTable, targetId: string, subjectId: string): Promise<boolean> {
  const result = await db.delete(grants.table).where(grantKey(grants, targetId, subjectId)).run();
  return (result.meta?.changes ?? 0) > 0;
}

/** Rows after the keyset cursor (created at, subject id), in that order. */
function afterGrant(grants: GrantTable, cursor: Cursor | null): SQL | undefined {
  if (!cursor) return undefined;
  const [at, id] = [String(cursor[0]), cursor[1]];
  return or(gt(grants.createdAt, at), and(eq(grants.createdAt, at), gt(grants.subject, id)));
}

/** A page of the users granted a role on a target, oldest grant first, and their count: two statements to batch. */
export function userGrantsPage(db: Db, grants: GrantTable, targetId: string, cursor: Cursor | null, limit: number) {
  const onTarget = eq(grants.target, targetId);
  return [
    db
      // Aliased: users has a created_at too, and D1 batches return rows keyed by column name, so two columns
      // of one name collapse into one and shift every later field.
      .select({ grantRole: sql<number>`${grants.role}`.as('grant_role'), grantedAt: sql<string>`${grants.createdAt}`.as('granted_at'), user: users })
      .from(grants.table)
      .innerJoin(users, eq(users.id, grants.subject))
      .where(and(onTarget, afterGrant(grants, cursor)))
      .orderBy(asc(grants.createdAt), asc(grants.subject))
      .limit(limit + 1),
    db.select({ total: count() }).from(grants.table).where(onTarget),
  ] as const;
}

/** A page of the teams granted a role on a target (with the caller's standing in each), and their count. */
export function teamGrantsPage(db: Db, grants: GrantTable, targetId: string, callerId: string, cursor: Cursor | null, limit: number) {
  const onTarget = eq(grants.target, targetId);
  return [
    // Aliased as above. teamSelection's type only admits columns and plain SQL; an aliased SQL is a valid selection at runtime.
    teamSelection(db, callerId, {
      grantRole: sql<number>`${grants.role}`.as('grant_role') as unknown as SQL<number>,
      grantedAt: sql<string>`${grants.createdAt}`.as('granted_at') as unknown as SQL<string>,
    })
      .innerJoin(grants.table, eq(grants.subject, teams.id))
      .where(and(onTarget, afterGrant(grants, cursor)))
      .orderBy(asc(grants.createdAt), asc(grants.subject))
      .limit(limit + 1),
    db.select({ total: count() }).from(grants.table).where(onTarget),
  ] as const;
}

/** The resource an aggregate lists access to: its table, id and organization columns. */
export interface AccessTarget {
  table: SQLiteTable;
  id: SQLiteColumn;
  orgId: SQLiteColumn;
}

/**
 * A page of everyone who can access a resource (listPermissionsAggregateIn*), with their effective role: `role`
 * is the same role function every authorization check of the resource uses, evaluated for each member of its
 * organization (`orgMembers.userId` as the user). `exactly`: only those whose effective role is that rank.
 * Two statements to batch: the page by user id, and the count.
 */
export function everyoneWithAccessPage(db: Db, target: AccessTarget, targetId: string, role: SQL<number | null>, exactly: number | undefined, cursor: Cursor | null, limit: number) {
  const where = and(eq(target.id, targetId), exactly !== undefined ? sql`${role} = ${exactly}` : sql`${role} >= ${RANK.read}`);
  return [
    db
      .select({ rank: sql<number>`${role}`.as('effective_rank'), user: users })
      .from(orgMembers)
      .innerJoin(target.table, eq(target.orgId, orgMembers.orgId))
      .innerJoin(users, eq(users.id, orgMembers.userId))
      .where(and(where, cursor ? gt(orgMembers.userId, cursor[1]) : undefined))
      .orderBy(asc(orgMembers.userId))
      .limit(limit + 1),
    db.select({ total: count() }).from(orgMembers).innerJoin(target.table, eq(target.orgId, orgMembers.orgId)).where(where),
  ] as const;
}
