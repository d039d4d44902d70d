import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { collections } from '../db/schema';
import { ApiError } from '../lib/errors';
import { collectionRoleSql } from './access';
import { authorize } from './permissions';

export type CollectionRow = typeof collections.$inferSelect;

/** A collection with the caller's effective role rank on it, in one query. */
export async function loadCollection(db: Db, collectionId: string, userId: string) {
  return (
    (await db
      .select({ collection: collections, rank: collectionRoleSql(userId) })
      .from(collections)
      .where(eq(collections.id, collectionId))
      .get()) ?? null
  );
}

export async function requireCollection(db: Db, collectionId: string, userId: string, needed: number) {
  const row = await loadCollection(db, collectionId, userId);
  authorize(row?.rank, needed, 'Collection');
  return row!;
}

/** Ids of a collection and every collection nested in it, at any depth. */
export async function collectionSubtree(db: Db, collectionId: string): Promise<string[]> {
  const rows = await db.all<{ id: string }>(sql`with recursive sub(id) as (
      select ${collectionId}
      union all
      select c.id from collections c join sub on c.parent_id = sub.id
    ) select id from sub`);
  return rows.map((r) => r.id);
}

/** The parent collection of a new or moved item: must be visible and allow creating in it. */
export async function requireParentCollection(db: Db, orgId: string, parentId: string, userId: string, needed: number) {
  const parent = await loadCollection(db, parentId, userId);
  if (!parent || parent.collection.orgId !== orgId || parent.rank < 1) {
    throw new ApiError(400, `parent: collection "${parentId}" does not exist in this organization`);
  }
  if (parent.rank < needed) throw new ApiError(403, 'You cannot create content in the parent collection');
  return parent;
}
