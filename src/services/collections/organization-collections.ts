import { and, count, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { collections, organizations } from '../../db/schema';
import { afterCursor, keysetOrder, type Cursor } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { collectionRoleSql, orgRoleSql } from '../access/access';
import { limitWhen, memberRoleSql } from '../spaces/organization-spaces';

/**
 * listCollectionsInOrganizationById at a cost independent of the organization's size (issue 42, item 5), as the
 * spaces list is read (services/spaces/organization-spaces.ts).
 *
 * collectionRoleSql gives a collection the highest of the organization role capped by the collection's resolved
 * level (`access_cap`; admins are never capped) and the grants on it or a collection above it, and grants count
 * only for active members. So who reads decides where the page comes from:
 *  - a member with an organization role (read and up): along the organization's index (every collection, or the
 *    partial index of root collections for `nested=false`), the role evaluated on the rows read; every collection
 *    but those capped to guest is visible to them, so a page reads about a page of rows;
 *  - anyone else (a guest member, or an installation's bot user, which is no member) reads a collection only
 *    where a grant opens it: the page is read from their grants and the collections nested in what they grant,
 *    never from the organization's list.
 * Every row still passes collectionRoleSql: the grants only choose the candidates, the semantics are its own.
 *
 * `count` comes from the same batch, so a page is one round trip after the token whatever its caller: an admin's
 * is the organization's collection counter (migration 0130); a member's is that counter less the collections
 * capped to guest that no grant opens to them, read through the partial index of capped collections; a guest's
 * is the number of granted candidates they may read. Each count reads nothing for the callers it is not for: its
 * rows are read under a LIMIT of 0 (SQLite stops before the first row; a WHERE term would be tested on each).
 */

/** Ids of the collections (of any organization) the user's grants may open: granted to them or their teams, and every collection nested in one. */
export function grantedCollectionIdsSql(userId: string): SQL {
  return sql`(with recursive granted(id) as (
      select g.collection_id from collection_user_grants g where g.user_id = ${userId}
      union select g.collection_id from collection_team_grants g join team_members tm on tm.team_id = g.team_id where tm.user_id = ${userId}
      union select c.id from collections c join granted on c.parent_id = granted.id
    ) select id from granted)`;
}

/**
 * The collections of `orgId` among those the user's grants may open, found by id: `+column` keeps SQLite from
 * reading them through the organization's index (which would read every collection).
 */
function fromGrantsOf(orgId: string, userId: string): SQL {
  return and(inArray(collections.id, grantedCollectionIdsSql(userId)), sql`+${collections.orgId} = ${orgId}`)!;
}

/** Rows of `count`'s subquery: all of them when `condition` holds, none (nothing read) otherwise. */
const allWhen = (condition: SQL) => limitWhen(condition, -1);

export interface CollectionsListOptions {
  cursor: Cursor | null;
  limit: number;
  /** Nested collections too (the list's default), or only those at the organization's root. */
  nested: boolean;
}

/** The statements of one page of an organization's collections with its count, for one batch: check `caller` first. */
export function organizationCollectionsPageQueries(db: Db, orgId: string, userId: string, { cursor, limit, nested }: CollectionsListOptions) {
  const role = collectionRoleSql(userId);
  const memberRole = memberRoleSql(orgId, userId);
  const hasOrgRole = sql`coalesce(${memberRole}, 0) >= ${RANK.read}`;
  const readable = sql`${role} >= ${RANK.read}`;
  const hidden = sql`${role} < ${RANK.read}`;
  const scope = nested ? undefined : isNull(collections.parentId);
  const after = afterCursor(cursor, collections.createdAt, collections.id);
  const page = (where: SQL | undefined, when: SQL) =>
    db
      .select({ collection: collections, rank: role })
      .from(collections)
      .where(and(where, scope, readable, after))
      .orderBy(...keysetOrder(collections.createdAt, collections.id))
      .limit(limitWhen(when, limit + 1));
  const countOf = (where: SQL | undefined, when: SQL) =>
    db.select({ total: count() }).from(db.select({ one: sql`1`.as('one') }).from(collections).where(and(where, scope)).limit(allWhen(when)).as('counted'));
  return [
    db
      .select({
        rank: orgRoleSql(organizations.id, userId),
        memberRole,
        collectionCount: nested ? organizations.collectionCount : organizations.rootCollectionCount,
      })
      .from(organizations)
      .where(eq(organizations.id, orgId))
      .limit(1),
    page(eq(collections.orgId, orgId), hasOrgRole),
    page(fromGrantsOf(orgId, userId), sql`not ${hasOrgRole}`),
    // A member below admin: the capped collections (partial index, migration 0130) no grant opens to them.
    countOf(and(eq(collections.orgId, orgId), sql`${collections.accessCap} = 0`, hidden), sql`${memberRole} between ${RANK.read} and ${RANK.admin - 1}`),
    // Anyone without an organization role: their granted candidates they read.
    countOf(and(fromGrantsOf(orgId, userId), readable), sql`not ${hasOrgRole}`),
  ] as const;
}

type Counts = { total: number }[];
type Caller = { rank: number | null; memberRole: number | null; collectionCount: number };

/**
 * The page and its `count` from the answers of organizationCollectionsPageQueries' batch, null for whoever is no
 * member of the organization (its 404): the rows read from the organization's index for a member with a role,
 * from the grants for anyone else; the count from the counter for an admin, less the hidden capped collections
 * for a member, the granted ones they read otherwise.
 */
export function collectionsPageOf<R>([[caller], orgRows, grantRows, hiddenCapped, granted]: readonly [Caller[], R[], R[], Counts, Counts]) {
  if (!caller || caller.rank === null) return null;
  const { memberRole, collectionCount } = caller;
  if (memberRole === RANK.admin) return { rows: orgRows, total: collectionCount };
  if (memberRole !== null && memberRole >= RANK.read) return { rows: orgRows, total: collectionCount - hiddenCapped[0].total };
  return { rows: grantRows, total: granted[0].total };
}
