import { and, count, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { organizations, spaces } from '../../db/schema';
import { afterCursor, keysetOrder, type Cursor } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { orgRoleSql, spaceRoleSql } from '../access/access';

/**
 * listSpacesInOrganizationById at a cost independent of the organization's size (issue 42, item 5).
 *
 * Who reads what decides where the page is read from:
 *  - a member with an organization role (read and up), or an installation's bot user: along the
 *    (org_id, created_at, id) index, the role evaluated on the rows read (nearly every row is visible, so a
 *    page reads about a page of rows);
 *  - a guest member (organization role 0) sees only what grants open: the page is read from the guest's
 *    grants (few) and the spaces they reach, never from the organization's list (large).
 * Both are in the same batch as the membership; the one that does not apply has LIMIT 0 (SQLite stops before
 * it reads a row; a WHERE term would still be tested on every row of the index). Every row still passes
 * spaceRoleSql, so the grants only choose the candidates: the semantics are spaceRoleSql's.
 *
 * `count`, required by GitBook's list shape, is read without evaluating a role over the organization: an
 * admin's is the organization's space counter; a member's is that counter less the live spaces capped to guest
 * (defaultLevel guest on them or a collection above) that no grant opens to them, read through a partial index
 * of the capped spaces only; a guest's is the number of granted candidates they may read.
 */

/** The caller's active membership role in `orgId` (0 for a guest), null for a non-member or a bot user. */
export function memberRoleSql(orgId: string, userId: string): SQL<number | null> {
  return sql<number | null>`(select m.role from org_members m where m.org_id = ${orgId} and m.user_id = ${userId} and m.disabled = 0)`;
}

/** A LIMIT of `n` rows when `condition` holds, of 0 otherwise: evaluated once, before the first row is read. */
export function limitWhen(condition: SQL, n: number): number {
  // drizzle writes an SQL object given to `.limit()` as it is (its type only admits numbers and placeholders).
  return sql`(select case when ${condition} then ${n} else 0 end)` as unknown as number;
}

/**
 * Ids of the spaces (of any organization) that `userId`'s grants may open: their own and their teams' grants on
 * spaces, on collections and every collection nested in them, on sites (the spaces they link). A superset of
 * what those grants open to a guest; the caller filters by organization and role.
 */
export function grantedSpaceIdsSql(userId: string): SQL {
  return sql`(with recursive granted(id) as (
      select g.collection_id from collection_user_grants g where g.user_id = ${userId}
      union select g.collection_id from collection_team_grants g join team_members tm on tm.team_id = g.team_id where tm.user_id = ${userId}
      union select c.id from collections c join granted on c.parent_id = granted.id
    )
    select g.space_id from space_user_grants g where g.user_id = ${userId}
    union select g.space_id from space_team_grants g join team_members tm on tm.team_id = g.team_id where tm.user_id = ${userId}
    union select s.id from spaces s where s.parent_id in (select id from granted)
    union select ss.space_id from site_spaces ss where ss.site_id in (
      select g.site_id from site_user_grants g where g.user_id = ${userId}
      union select g.site_id from site_team_grants g join team_members tm on tm.team_id = g.team_id where tm.user_id = ${userId}))`;
}

/**
 * The live spaces of `orgId` among those the user's grants may open, found by id: `+column` keeps SQLite from
 * reading them through the organization's index or the index of deletion times (either would read every space).
 */
function fromGrantsOf(orgId: string, userId: string): SQL {
  return and(inArray(spaces.id, grantedSpaceIdsSql(userId)), sql`+${spaces.orgId} = ${orgId}`, sql`+${spaces.deletedAt} is null`)!;
}

/** The statements of one page of an organization's spaces, for one batch: check `membership` first. */
export function organizationSpacesPageQueries(db: Db, orgId: string, userId: string, cursor: Cursor | null, limit: number) {
  const role = spaceRoleSql(userId);
  const memberRole = memberRoleSql(orgId, userId);
  const isGuest = sql`coalesce(${memberRole}, -1) = 0`;
  const readable = sql`${role} >= ${RANK.read}`;
  const after = afterCursor(cursor, spaces.createdAt, spaces.id);
  return [
    db
      .select({ rank: orgRoleSql(organizations.id, userId), memberRole, spaceCount: organizations.spaceCount })
      .from(organizations)
      .where(eq(organizations.id, orgId))
      .limit(1),
    db
      .select({ space: spaces, rank: role })
      .from(spaces)
      .where(and(eq(spaces.orgId, orgId), isNull(spaces.deletedAt), readable, after))
      .orderBy(...keysetOrder(spaces.createdAt, spaces.id))
      .limit(limitWhen(sql`not ${isGuest}`, limit + 1)),
    db
      .select({ space: spaces, rank: role })
      .from(spaces)
      .where(and(fromGrantsOf(orgId, userId), readable, after))
      .orderBy(...keysetOrder(spaces.createdAt, spaces.id))
      .limit(limitWhen(isGuest, limit + 1)),
  ] as const;
}

/**
 * The count of the spaces a member who is neither admin nor guest does not see: live spaces capped to guest that
 * no grant opens to them. Reads the partial index of capped spaces (migration 0115), not the organization.
 */
export function hiddenCappedSpacesQuery(db: Db, orgId: string, userId: string) {
  return db
    .select({ hidden: count() })
    .from(spaces)
    .where(and(eq(spaces.orgId, orgId), sql`${spaces.accessCap} = 0`, isNull(spaces.deletedAt), sql`${spaceRoleSql(userId)} < ${RANK.read}`));
}

/** The count of the spaces of `orgId` a guest member reads: the granted candidates that pass the role. */
export function guestSpacesCountQuery(db: Db, orgId: string, userId: string) {
  return db
    .select({ total: count() })
    .from(spaces)
    .where(and(fromGrantsOf(orgId, userId), sql`${spaceRoleSql(userId)} >= ${RANK.read}`));
}

/**
 * The count of an organization's spaces a caller who is not its admin reads (one query): a guest's from their
 * grants, a member's from the counter less the capped spaces hidden from them, an installation's bot user's by
 * evaluating its role on every space (it is no member; what it covers is its installation's business).
 */
export async function countOrganizationSpaces(db: Db, orgId: string, userId: string, caller: { memberRole: number | null; spaceCount: number }): Promise<number> {
  if (caller.memberRole === RANK.guest) return (await guestSpacesCountQuery(db, orgId, userId))[0].total;
  if (caller.memberRole !== null) return caller.spaceCount - (await hiddenCappedSpacesQuery(db, orgId, userId))[0].hidden;
  const visible = and(eq(spaces.orgId, orgId), isNull(spaces.deletedAt), sql`${spaceRoleSql(userId)} >= ${RANK.read}`);
  return (await db.select({ total: count() }).from(spaces).where(visible))[0].total;
}
