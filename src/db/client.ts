import { drizzle } from 'drizzle-orm/d1';
import * as drizzleOrm from 'drizzle-orm';
import { Column, fillPlaceholders, getTableColumns, getTableName, is, SQL, sql, Subquery } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from './schema';

/** What queries run on: the binding itself, or a session of it (`openSession`). */
export type D1Client = D1Database | D1DatabaseSession;

/**
 * The one place every query reaches D1 through (a later shard router would pick the database here). Drizzle reads
 * only `prepare` and `batch` of its client, which a session has as the binding does.
 *
 * Made once per request (each runs on a session of its own), so it must be cheap: without drizzle's relational
 * schema (`db.query.*`, which nothing uses), whose configuration drizzle would otherwise rebuild over every table
 * of the schema for each request (a tenth of a page read's CPU, measured with test/bench/profile.ts).
 */
export function createDb(d1: D1Client) {
  return drizzle(d1 as D1Database);
}

/**
 * The database a request's queries go to. One today (`DB`); when the deployment grows past one database, this is
 * where an organization's shard is chosen (from the shard its ids carry, or the directory's `org_shards`): see the
 * Handbook's project layout guide, "Growing past one database".
 */
export function databaseFor(env: { DB: D1Database }): D1Database {
  return env.DB;
}

// ---------------------------------------------------------------------------------------------
// D1 sessions: read replicas, and reading one's own writes

/**
 * The header that carries a D1 bookmark both ways (Cloudflare's own examples name it so; GitBook has none): every
 * answer sends the bookmark of the database state it saw or made, and a request that sends one back reads a state at
 * least as new, whichever replica serves it (read-your-writes across requests).
 */
export const BOOKMARK_HEADER = 'X-D1-Bookmark';

/** D1's bookmarks: hexadecimal groups joined by `-` (`00000000-00000017-00000000-<32 hex>`). */
const BOOKMARK = /^[0-9a-f]{1,64}(?:-[0-9a-f]{1,64}){1,7}$/i;

export const isBookmark = (value: string) => value.length <= 256 && BOOKMARK.test(value);

/**
 * A session of the database: from `bookmark` when one is given; otherwise reads may be served by the nearest
 * replica (`first-unconstrained`) and writes start on the primary (`first-primary`), so that a write never
 * builds on a stale read. A runtime without sessions (none known today) gets the binding itself.
 */
export function openSession(d1: D1Database, start: { bookmark?: string; write: boolean }): D1Client {
  if (typeof d1.withSession !== 'function') return d1;
  return keepingBookmarksInOrder(d1.withSession(start.bookmark ?? (start.write ? 'first-primary' : 'first-unconstrained')));
}

/** What `keepingBookmarksInOrder` reads and replaces of the runtime's session (workerd's cloudflare-internal:d1-api). */
interface RuntimeSession {
  _updateBookmark?: (bookmark: string) => string | null;
  bookmarkOrConstraint?: string | null;
  getBookmark(): string | null;
}

/**
 * The session, keeping the newest bookmark its answers carried as the runtime's own session does, but comparing them
 * as strings (`laterBookmark`) where the runtime calls `localeCompare` (on every answer after the first): an isolate's
 * first `localeCompare` builds ICU's collator, an eighth of the Worker isolate's CPU on a cold isolate's first page
 * read or published page (test/bench/cold.ts). Same order for D1's bookmarks: lowercase hexadecimal groups of fixed
 * widths. A runtime whose session lacks either member keeps its own comparison.
 */
function keepingBookmarksInOrder(session: D1DatabaseSession): D1DatabaseSession {
  const runtime = session as unknown as RuntimeSession;
  if (typeof runtime._updateBookmark !== 'function' || !('bookmarkOrConstraint' in runtime)) return session;
  runtime._updateBookmark = function (this: RuntimeSession, bookmark: string) {
    const received = bookmark.trim();
    if (received) this.bookmarkOrConstraint = laterBookmark(this.getBookmark(), received);
    return this.getBookmark();
  };
  return session;
}

/** The bookmark a client holds: the session's, or null on a binding without sessions. */
export function bookmarkOf(client: D1Client): string | null {
  return 'getBookmark' in client && typeof client.getBookmark === 'function' ? client.getBookmark() : null;
}

/** The newer of two bookmarks (D1's bookmarks sort oldest to newest as strings). */
export function laterBookmark(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a >= b ? a : b;
}

export type Db = ReturnType<typeof createDb>;

// ---------------------------------------------------------------------------------------------
// Statements built once per isolate

/** What `selectOfShape` reads of drizzle's select builder (its internals, stable across drizzle 0.4x). */
interface SelectInternals {
  _prepare(isOneTimeQuery?: boolean): unknown;
  getSQL(): SQL;
  dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
  session: Record<'prepareQuery' | 'prepareOneTimeQuery', (...args: unknown[]) => { joinsNotNullableMap?: unknown }>;
  config: { fields: Record<string, unknown> };
  usedTables: Set<string>;
  cacheConfig?: unknown;
  joinsNotNullableMap: unknown;
}

const shapes = new Map<string, { sql: string; params: unknown[]; fields: unknown }>();

/** drizzle's own ordering of a select's fields (exported by drizzle-orm, missing from its type declarations). */
const { orderSelectedFields } = drizzleOrm as unknown as { orderSelectedFields(fields: Record<string, unknown>): unknown };

/**
 * A select whose SQL text is built once per isolate for `shape`, the name of what `builder` is: the builder has
 * `sql.placeholder(name)` where its values go, and `values` gives them for this statement. Building the SQL of a
 * statement with drizzle (walking its tree of fragments, `buildSelectQuery` and `sqlToQuery`) was a quarter of the
 * CPU of a space read (test/bench/profile.ts); a statement built from a shape costs only binding its values. The
 * builder works as any other (in a batch, `.get()`, `.all()`, awaited), and must not be changed after this call
 * (no `.limit()` chained on it): its shape's SQL would not have it. One shape, one SQL text: a builder whose SQL
 * depends on anything but placeholders is not a shape.
 */
export function selectOfShape<B extends object>(shape: string, builder: B, values: Record<string, unknown>): B {
  return withPlaceholderValues(builder, values, shape);
}

/** What a select of a known shape needs for each of its statements: its SQL, its fields, the tables it reads. */
interface BuiltShape {
  sql: string;
  params: unknown[];
  fields: unknown;
  tables: string[];
  joinsNotNullableMap: unknown;
}
const builtShapes = new Map<string, BuiltShape>();

/**
 * `selectOfShape` whose builder is made only for the shape's first statement: `build` (with `sql.placeholder(name)`
 * where values go) is called once per isolate, and every later statement of `shape` is prepared from what that one
 * left (its SQL, fields and joins), on `db`'s session, without assembling a builder. For a select with joins,
 * aliased fields and an order (a space read's placement on published sites), the builder alone was a twentieth of a
 * warm read's CPU (test/bench/profile.ts). What it answers works as a builder does in a batch, awaited, or with
 * `.all()`, `.get()`, `.values()`, `.run()`; nothing may be chained on it.
 */
export function selectOfBuiltShape<B extends object>(db: Db, shape: string, build: () => B, values: Record<string, unknown>): B {
  const known = builtShapes.get(shape);
  if (!known) {
    const builder = build();
    const select = builder as unknown as SelectInternals;
    builtShapes.set(shape, {
      ...select.dialect.sqlToQuery(select.getSQL()),
      fields: orderSelectedFields(select.config.fields),
      tables: [...select.usedTables],
      joinsNotNullableMap: select.joinsNotNullableMap,
    });
    return withPlaceholderValues(builder, values);
  }
  const session = (db as unknown as { session: SelectInternals['session'] }).session;
  const prepare = (isOneTimeQuery = true) => {
    const query = session[isOneTimeQuery ? 'prepareOneTimeQuery' : 'prepareQuery'](
      { sql: known.sql, params: fillPlaceholders(known.params, values) },
      known.fields,
      'all',
      true,
      undefined,
      { type: 'select', tables: known.tables },
      undefined,
    );
    query.joinsNotNullableMap = known.joinsNotNullableMap;
    mapRowsOnce(query, known.fields, known.joinsNotNullableMap);
    return query as unknown as Record<'all' | 'get' | 'values' | 'run', () => Promise<unknown>>;
  };
  return {
    _prepare: prepare,
    prepare: () => prepare(false),
    all: () => prepare().all(),
    get: () => prepare().get(),
    values: () => prepare().values(),
    run: () => prepare().run(),
    execute: () => prepare().all(),
    then: (resolve?: (rows: unknown) => unknown, reject?: (error: unknown) => unknown) => prepare().all().then(resolve, reject),
  } as unknown as B;
}

/**
 * A select with `sql.placeholder(name)` where its values go, given `values` for them, whose SQL text is built for
 * this statement alone: what a statement shares its placeholders with a `selectOfShape` of needs when its own text
 * varies (a list filtered by what a caller chose, say, when the choices are too many to name as shapes).
 */
export function selectWithValues<B extends object>(builder: B, values: Record<string, unknown>): B {
  return withPlaceholderValues(builder, values);
}

function withPlaceholderValues<B extends object>(builder: B, values: Record<string, unknown>, shape?: string): B {
  const select = builder as unknown as SelectInternals;
  select._prepare = (isOneTimeQuery = true) => {
    let built = shape === undefined ? undefined : shapes.get(shape);
    if (!built) {
      built = { ...select.dialect.sqlToQuery(select.getSQL()), fields: orderSelectedFields(select.config.fields) };
      if (shape !== undefined) shapes.set(shape, built);
    }
    const query = select.session[isOneTimeQuery ? 'prepareOneTimeQuery' : 'prepareQuery'](
      { sql: built.sql, params: fillPlaceholders(built.params, values) },
      built.fields,
      'all',
      true,
      undefined,
      { type: 'select', tables: [...select.usedTables] },
      select.cacheConfig,
    );
    query.joinsNotNullableMap = select.joinsNotNullableMap;
    mapRowsOnce(query, built.fields, select.joinsNotNullableMap);
    return query;
  };
  return builder;
}

/** How a value read from D1 becomes the field's (a JSON column parsed, a boolean column made a boolean...). */
interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}
type SelectedField = { path: string[]; field: unknown };
type RowMapper = (row: unknown[]) => Record<string, unknown>;

/** drizzle's choice of a field's decoder (`mapResultRow`), made once per statement shape instead of once per value. */
function decoderOf(field: unknown): Decoder {
  // `decoder` is drizzle's internal (absent from its type declarations), read as mapResultRow reads it.
  const decoderIn = (sqlOf: unknown) => (sqlOf as { decoder: Decoder }).decoder;
  if (is(field, Column)) return field;
  if (is(field, SQL)) return decoderIn(field);
  if (is(field, Subquery)) return decoderIn((field._ as unknown as { sql: SQL }).sql);
  return decoderIn((field as SQL.Aliased).sql);
}

/**
 * drizzle's `mapResultRow` for a select without joins, its decoders found once: drizzle looks each field's decoder up
 * again for every value it maps (up to three `is()` walks of its class chain per column), a twentieth of a change
 * request list's CPU (test/bench/profile.ts). Same objects: each value at its path, null as null, the others through
 * the field's decoder.
 */
function rowMapperOf(fields: SelectedField[]): RowMapper {
  const decoders = fields.map(({ field }) => decoderOf(field));
  const paths = fields.map(({ path }) => path);
  return (row) => {
    const result: Record<string, unknown> = {};
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i];
      let node = result;
      for (let depth = 0; depth < path.length - 1; depth++) node = (node[path[depth]] ??= {}) as Record<string, unknown>;
      const raw = row[i];
      node[path[path.length - 1]] = raw === null ? null : decoders[i].mapFromDriverValue(raw);
    }
    return result;
  };
}

/**
 * Whether drizzle's mapping could turn an object of a row into null: a column of a table that may be missing from the
 * row (the optional side of a left join; `joinsNotNullableMap` says false, or does not name it), read as `{ table: {
 * column } }`. Such selects keep drizzle's mapping.
 */
function mayNullify(fields: SelectedField[], joinsNotNullableMap: unknown): boolean {
  const notNullable = (joinsNotNullableMap ?? {}) as Record<string, boolean>;
  return fields.some(({ path, field }) => path.length === 2 && is(field, Column) && !notNullable[getTableName(field.table)]);
}

// Each statement shape's fields (the same array for every statement of the shape: selectOfShape, selectOfBuiltShape)
// and what was decided for them: its mapper, or null where drizzle's mapping stays. Deciding (`mayNullify`'s `is()`
// walks) for each statement was a hundredth of a page read's Worker CPU (test/bench/profile.ts).
const rowMappers = new WeakMap<SelectedField[], RowMapper | null>();

/** `rowMapperOf(fields)`, or null when a join could make one of the row's objects null; decided once per fields array. */
function rowMapperFor(fields: SelectedField[], joinsNotNullableMap: unknown): RowMapper | null {
  let mapper = rowMappers.get(fields);
  if (mapper === undefined) {
    mapper = joinsNotNullableMap && mayNullify(fields, joinsNotNullableMap) ? null : rowMapperOf(fields);
    rowMappers.set(fields, mapper);
  }
  return mapper;
}

/**
 * Gives a prepared select `rowMapperOf`'s mapping, alone (`all`) and in a batch (whose rows D1 answers as objects, made
 * arrays as drizzle's `d1ToRawMapping` makes them), unless a join could make one of its objects null.
 */
function mapRowsOnce(query: unknown, fields: unknown, joinsNotNullableMap: unknown): void {
  if (!Array.isArray(fields)) return;
  const map = rowMapperFor(fields as SelectedField[], joinsNotNullableMap);
  if (!map) return;
  (query as { mapAllResult(rows: unknown, isFromBatch?: boolean): unknown }).mapAllResult = (rows, isFromBatch) => {
    const arrays = isFromBatch ? (rows as { results: Record<string, unknown>[] }).results.map((row) => Object.values(row)) : (rows as unknown[][]);
    return arrays.map(map);
  };
}
export { schema };

/**
 * The requests (their Db) whose API token was looked up in D1 by the auth middleware: a round trip of DESIGN.md's
 * budget spent before the route's own. A read that may take a second round trip of its own (reads.ts, a page read
 * from held rows) takes the single-round-trip way for these.
 */
const tokenLookups = new WeakSet<object>();

export function noteTokenLookup(db: Db): void {
  tokenLookups.add(db);
}

export function lookedUpToken(db: Db): boolean {
  return tokenLookups.has(db);
}

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
  return withBuiltQuery(db, raw);
}

/**
 * Builds a raw query's SQL text once. Drizzle's raw query builds it again each time it is asked (`getQuery`),
 * and a batch asks up to twice more: the long statements of content reads spent most of their CPU there.
 */
function withBuiltQuery<R extends object>(db: Db, raw: R): R {
  const built = (raw as unknown as { getQuery(): { sql: string; params: unknown[] } }).getQuery();
  return Object.assign(raw, { stmt: db.$client.prepare(built.sql), getQuery: () => built });
}

const rawShapes = new Map<string, { sql: string; params: unknown[] }>();

/**
 * `rawAll` for a statement whose SQL text is built once per isolate for `shape` (the name of what `build` returns,
 * with every flag that changes its text): `build` puts `sql.placeholder(name)` where values go, and is called only
 * on the shape's first statement; `values` gives them for this one. The long content reads (a page with its
 * ancestors and subtree) spent a quarter of a page read's CPU assembling their fragments and turning them into
 * text (test/bench/profile.ts); a statement of a known shape costs only binding its values. One shape, one SQL
 * text: a `build` whose text depends on anything but placeholders (a flag, a list's length) names it in `shape`.
 */
export function rawAllOfShape<T>(db: Db, shape: string, build: () => SQL, values: Record<string, unknown>) {
  let built = rawShapes.get(shape);
  if (!built) {
    const { dialect } = db as unknown as { dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } } };
    built = dialect.sqlToQuery(build());
    rawShapes.set(shape, built);
  }
  const query = { sql: built.sql, params: fillPlaceholders(built.params, values) };
  const stmt = db.$client.prepare(built.sql);
  // Alone (awaited) it runs its own statement; in a batch, drizzle binds `stmt` with `getQuery().params`.
  const raw = db.all<T>(sql.raw(built.sql));
  return Object.assign(raw, {
    stmt,
    getQuery: () => query,
    execute: async () => (await stmt.bind(...query.params).all<T>()).results,
  });
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
  return withBuiltQuery(db, db.run(query));
}

/** Raw `db.all` statements in a batch answer D1's result object; drizzle's queries answer rows. */
export function rowsOf<T = unknown>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { results?: unknown[] }).results ?? []) as T[];
}

/** How many rows a D1 write changed (its result's `meta.changes`; 0 when the driver gives none). */
export function changedRows(result: unknown): number {
  return (result as { meta?: { changes?: number } }).meta?.changes ?? 0;
}
