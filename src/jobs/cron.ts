import { and, inArray, isNotNull, lt } from 'drizzle-orm';
import { createDb, type Db } from '../db/client';
import { revisions, spaces } from '../db/schema';
import type { Env } from '../env';
import { DAY_MS } from '../lib/time';

export const SPACE_RETENTION_DAYS = 7;
const PURGE_CHUNK = 90; // under D1's 100 bound parameters per statement

/**
 * Permanently removes spaces deleted more than 7 days before `now`, with everything that belongs to
 * them (grants cascade through foreign keys; revisions are removed explicitly). Idempotent.
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
    await db.batch([db.delete(revisions).where(inArray(revisions.spaceId, ids)), db.delete(spaces).where(inArray(spaces.id, ids))]);
  }
  return expired.length;
}

export async function runScheduled(env: Env, scheduledTime: number): Promise<void> {
  const purged = await purgeDeletedSpaces(createDb(env.DB), scheduledTime);
  if (purged > 0) console.log(`cron: purged ${purged} deleted space(s)`);
}
