import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { collections } from '../../db/schema/index';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { collectionRoleSql, qualify } from '../access/access';
import { loadOrganization, requireOrgRole } from '../organizations/organizations';
import { authorize, authorizeOrg } from '../access/permissions';

export type CollectionRow = typeof collections.$inferSelect;

/** The query for a collection with the caller's effective role rank on it (to run alone or in a batch). */
export function collectionQuery(db: Db, collectionId: string, userId: string) {
  return db.select({ collection: collections, rank: collectionRoleSql(userId) }).from(collections).where(eq(collections.id, collectionId));
}

/** A collection with the caller's effective role rank on it, in one query. */
export async function loadCollection(db: Db, collectionId: string, userId: string) {
  return (await collectionQuery(db, collectionId, userId).get()) ?? null;
}

/** SQL selecting the ids of a collection and of every collection nested in it (for `in (...)`). */
export function subtreeSql(collectionId: string) {
  return sql`with recursive sub(id) as (
      select ${collectionId}
      union all
      select c.id from collections c join sub on c.parent_id = sub.id
    ) select id from sub`;
}

export async function requireCollection(db: Db, collectionId: string, userId: string, needed: number) {
  const row = await loadCollection(db, collectionId, userId);
  authorize(row?.rank, needed, 'Collection');
  return row!;
}

/**
 * The parent collection of a new or moved item: must be visible and allow creating in it.
 * A caller who is not a member of the organization gets the organization's 404 (as without a
 * parent), never a 400 that would tell them about its collections. The row carries the
 * organization's `spaceCount`, read by the same query, for the cap on new spaces.
 */
export async function requireParentCollection(db: Db, orgId: string, parentId: string, userId: string, needed: number) {
  const parent = await db
    .select({
      collection: collections,
      rank: collectionRoleSql(userId),
      spaceCount: sql<number>`(select o.space_count from organizations o where o.id = ${qualify(collections.orgId)})`.as('org_space_count'),
    })
    .from(collections)
    .where(eq(collections.id, parentId))
    .get();
  if (!parent || parent.collection.orgId !== orgId || parent.rank < 1) {
    // Only on this failure path: tell a non-member (or an unknown organization) apart from a bad parent.
    const org = await loadOrganization(db, orgId, userId);
    if (!org || org.rank === null) throw new ApiError(404, 'Organization not found');
    throw new ApiError(400, `parent: collection "${parentId}" does not exist in this organization`);
  }
  if (parent.rank < needed) throw new ApiError(403, 'You cannot create content in the parent collection');
  return parent;
}

/**
 * Checks that the caller may create content where an item lands: the `create` role in the parent
 * collection, or in the organization when the item lands at its root. Answers the organization's
 * `spaceCount` (spaces not in the trash), read by the same query, for a new space's cap check.
 */
export async function requireCreateIn(db: Db, orgId: string, parentId: string | null, userId: string): Promise<{ spaceCount: number }> {
  if (parentId) return { spaceCount: (await requireParentCollection(db, orgId, parentId, userId, RANK.create)).spaceCount };
  return { spaceCount: (await requireOrgRole(db, orgId, userId, RANK.create)).org.spaceCount };
}

/**
 * The check of `requireCreateIn` on rows read in the caller's batch (for callers already known to be
 * members: 400 for a parent that is not a visible collection of the organization, 403 without `create`).
 */
export function checkCreateIn(
  orgId: string,
  parentId: string | null,
  parent: { collection: CollectionRow; rank: number } | undefined,
  orgRank: number | null | undefined,
) {
  if (parentId === null) return authorizeOrg(orgRank, RANK.create);
  if (!parent || parent.collection.orgId !== orgId || parent.rank < RANK.read) {
    throw new ApiError(400, `parent: collection "${parentId}" does not exist in this organization`);
  }
  if (parent.rank < RANK.create) throw new ApiError(403, 'You cannot create content in the parent collection');
}
