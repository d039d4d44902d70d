import { drizzle } from 'drizzle-orm/d1';
import * as schema from './schema';

export function createDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Db = ReturnType<typeof createDb>;
export { schema };

/** One statement of a `db.batch`. */
export type BatchItem = Parameters<Db['batch']>[0][number];

/** Runs statements assembled at run time as one D1 batch: one round trip, one transaction. */
export function runBatch(db: Db, statements: BatchItem[]) {
  return db.batch(statements as [BatchItem, ...BatchItem[]]);
}
