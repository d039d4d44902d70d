import { getTableColumns, getTableName, type Column } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { BatchItem, Db } from './client';

/**
 * Selects whose SQL text is written out (constant text with `?` for its values) instead of built by drizzle: a
 * statement costs binding its values and mapping its rows, nothing else, even the first time an isolate runs it.
 * drizzle building a statement's text on first use (its select builder, `buildSelectQuery`, `sqlToQuery`: code V8
 * runs for the first time, in its interpreter) was about an eighth of a cold isolate's first published page
 * (test/bench/cold.ts, issue 42 item 7). Each text is checked against the one drizzle builds for the same select
 * (test/platform/constant-select.test.ts), so a schema change that would make them differ fails there.
 */

/**
 * A statement of constant text (or a piece of one) with its values in order: a placeholder's name, which `boundValues`
 * fills, or `{ value }`, a value drizzle wrote into the statement. The Worker's are generated from their drizzle
 * definitions (src/cli/constant-sql.ts, the `*.generated.ts` modules), never written by hand.
 */
export interface ConstantText {
  text: string;
  params: readonly (string | { value: unknown })[];
}

/** The statement's values, in order: each placeholder's from `values`, the written-in ones as they are. */
export function boundValues(statement: ConstantText, values: Record<string, unknown>): unknown[] {
  return statement.params.map((param) => (typeof param === 'string' ? values[param] : param.value));
}

/** A table's columns in drizzle's order (its `select()` order), as SQL text, and its row decoder by column name. */
export interface TableRows<T> {
  /** `"id", "org_id", ...`: the columns as drizzle's `select().from(table)` lists them. */
  columns: string;
  /** A row of D1 (an object by column name) as drizzle maps it: each field through its column's decoder, null as null. */
  row(raw: Record<string, unknown>): T;
}

/** `TableRows` of a table, read from its drizzle definition (no builder). */
export function tableRows<T extends SQLiteTable>(table: T): TableRows<T['$inferSelect']> {
  const fields = Object.entries(getTableColumns(table)) as [string, Column][];
  return {
    columns: fields.map(([, column]) => `"${column.name}"`).join(', '),
    row(raw) {
      const out: Record<string, unknown> = {};
      for (const [key, column] of fields) {
        const value = raw[column.name];
        out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
      }
      return out as T['$inferSelect'];
    },
  };
}

/**
 * A statement for `runBatch` (or alone: `rows()`), of constant SQL text and its values, whose rows `map` makes from D1's
 * (objects by column name). In a batch it stands as drizzle's own statements do: drizzle's D1 batch asks each for a
 * prepared query (`_prepare`), binds its `stmt` with `getQuery().params` and maps what D1 answered with `mapResult`.
 */
export function constantSelect<T>(db: Db, text: string, params: unknown[], map: (raw: Record<string, unknown>) => T) {
  const prepared = {
    stmt: db.$client.prepare(text),
    getQuery: () => ({ sql: text, params }),
    mapResult: (result: { results: Record<string, unknown>[] }) => result.results.map(map),
  };
  return Object.assign({ _prepare: () => prepared } as unknown as BatchItem, {
    /** The statement run alone. */
    rows: async (): Promise<T[]> => (await prepared.stmt.bind(...params).all<Record<string, unknown>>()).results.map(map),
  });
}

/** A select of named fields (`select({ tokenId: apiTokens.id, ... })`, joins allowed) in constant text: its columns and row decoder. */
export interface FieldRows<T> {
  /** `"api_tokens"."id", "users"."id", ...`: the fields' columns, qualified by table, in the fields' order (drizzle's). */
  columns: string;
  /** A raw row of D1 (an array, in the columns' order: two tables' `id` do not collide) as drizzle maps it. */
  row(values: unknown[]): T;
}

/** `FieldRows` of named columns, read from their drizzle definitions (no builder). */
export function fieldRows<T extends object>(fields: { [K in keyof T]: Column }): FieldRows<T> {
  const entries = Object.entries(fields) as [string, Column][];
  return {
    columns: entries.map(([, column]) => `"${getTableName(column.table)}"."${column.name}"`).join(', '),
    row(values) {
      const out: Record<string, unknown> = {};
      entries.forEach(([key, column], i) => {
        const value = values[i];
        out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
      });
      return out as T;
    },
  };
}

/**
 * The first row of a constant select read as D1's raw arrays (as drizzle's `.get()` of a select of fields reads it:
 * `values()`, then the first row), through `map`; undefined when there is none.
 */
export async function constantGet<T>(db: Db, text: string, params: unknown[], map: (values: unknown[]) => T): Promise<T | undefined> {
  const [first] = await db.$client.prepare(text).bind(...params).raw();
  return first === undefined ? undefined : map(first);
}

/** A statement of constant text (an update, a delete) bound to its values, for `db.$client.batch` or alone (`.run()`). */
export function constantStatement(db: Db, text: string, params: unknown[]) {
  return db.$client.prepare(text).bind(...params);
}
