import { and, eq, inArray, isNotNull, isNull, lt, ne, or, sql } from 'drizzle-orm';
import { createDb, type Db } from '../db/client';
import { documents, revisions, spaceIndexState, spaces } from '../db/schema';
import { spaceWriter } from '../durable-objects/space-writer';
import type { Env } from '../env';
import { DAY_MS } from '../lib/time';
import { qualify } from '../services/access';

export const SPACE_RETENTION_DAYS = 7;
const PURGE_CHUNK = 90; // under D1's 100 bound parameters per statement

/**
 * Permanently removes spaces deleted more than 7 days before `now`, with everything that belongs to
 * them (grants and change requests cascade through foreign keys; revisions and the documents no other
 * revision refers to are removed explicitly). File bytes in R2 are kept: they are shared by content hash. Idempotent.
 */
export async function purgeDeletedSpaces(db: Db, now: number): Promise<number> {
  const cutoff = new Date(now - SPACE_RETENTION_DAYS * DAY_MS).toISOString();
  const expired = await db
    .select({ id: spaces.id })
    .from(spaces)
    .where(and(isNotNull(spaces.deletedAt), lt(spaces.deletedAt, cutoff)))
    .all();
  for (let i = 0; i < expired.length; i += PURGE_CHUNK) {
    const ids = expired.slice(i, i + PURGE_CHUNK).map((s) => s.id);
    const purged = JSON.stringify(ids);
    await db.batch([
      // Documents are shared between spaces (duplicates): only those no other space refers to go.
      db.delete(documents).where(sql`${documents.hash} in (
          select sd.hash from space_documents sd where sd.space_id in (select value from json_each(${purged})))
        and not exists (
          select 1 from space_documents other
          where other.hash = ${qualify(documents.hash)} and other.space_id not in (select value from json_each(${purged})))`),
      db.delete(revisions).where(inArray(revisions.spaceId, ids)),
      // Change requests, grants and document references go with the space (foreign keys cascade).
      db.delete(spaces).where(inArray(spaces.id, ids)),
    ]);
  }
  return expired.length;
}

/** Spaces whose indexes a cron run catches up at most (the rest wait for the next run). */
const INDEX_CATCH_UP_PER_RUN = 50;

/**
 * The safety net of the derived indexes: spaces never indexed (created before them, duplicated while a
 * background catch-up failed) or left behind their main content are caught up, each in its writer.
 */
export async function catchUpStaleIndexes(env: Env, db: Db): Promise<number> {
  const stale = await db
    .select({ id: spaces.id })
    .from(spaces)
    .leftJoin(spaceIndexState, eq(spaceIndexState.spaceId, spaces.id))
    .where(and(isNull(spaces.deletedAt), or(isNull(spaceIndexState.revisionId), ne(spaceIndexState.revisionId, spaces.revisionId))))
    // In random order: spaces whose catch-up keeps failing cannot keep the others waiting run after run.
    .orderBy(sql`random()`)
    .limit(INDEX_CATCH_UP_PER_RUN)
    .all();
  let caughtUp = 0;
  for (const { id } of stale) {
    try {
      const result = await spaceWriter(env, id).reindex(id);
      if (result.ok) caughtUp++;
      else console.error(`cron: space ${id}: indexes not caught up: ${result.message}`);
    } catch (error) {
      console.error(`cron: space ${id}: indexes not caught up`, error);
    }
  }
  return caughtUp;
}

export async function runScheduled(env: Env, scheduledTime: number): Promise<void> {
  const db = createDb(env.DB);
  const purged = await purgeDeletedSpaces(db, scheduledTime);
  if (purged > 0) console.log(`cron: purged ${purged} deleted space(s)`);
  const indexed = await catchUpStaleIndexes(env, db);
  if (indexed > 0) console.log(`cron: caught up the indexes of ${indexed} space(s)`);
}
