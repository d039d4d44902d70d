import { drizzle } from 'drizzle-orm/d1';
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
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

/**
 * A raw `select` that can also stand in a batch. drizzle-orm 0.45's D1 batch reads a prepared
 * statement from each query, which its raw queries (`db.all(sql)`) lack when they have parameters;
 * this gives the query one, so it runs alone or batched and answers its rows either way.
 */
export function rawAll<T>(db: Db, query: SQL) {
  const raw = db.all<T>(query);
  const built = (raw as unknown as { getQuery(): { sql: string } }).getQuery();
  Object.assign(raw, { stmt: db.$client.prepare(built.sql) });
  return raw;
}

/**
 * `select <the row's values, in its table's column order> where <when>`: the source of an `insert ... select`
 * that adds the row only where `when` holds (columns left out take their defaults, as in `values`).
 */
export function rowWhere<T extends SQLiteTable>(table: T, row: T['$inferInsert'], when: SQL): SQL {
  const values = Object.entries(getTableColumns(table)).map(([key, column]) =>
    sql.param((row as Record<string, unknown>)[key] ?? column.default ?? null, column),
  );
  return sql`select ${sql.join(values, sql`, `)} where ${when}`;
}

/** A raw write (insert, update, delete) that can also stand in a batch, like `rawAll`. */
export function rawRun(db: Db, query: SQL) {
  const raw = db.run(query);
  const built = (raw as unknown as { getQuery(): { sql: string } }).getQuery();
  Object.assign(raw, { stmt: db.$client.prepare(built.sql) });
  return raw;
}

/** Raw `db.all` statements in a batch answer D1's result object; drizzle's queries answer rows. */
export function rowsOf<T = unknown>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { results?: unknown[] }).results ?? []) as T[];
}
