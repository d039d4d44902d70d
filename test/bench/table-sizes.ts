/**
 * Every table's and index's bytes in a D1 database, as the storage benchmark (storage.ts) and the Git Sync benchmark
 * (git-sync.ts: what a re-import adds) count them: the sum of the lengths of the values each stores (storage.ts says why).
 */
export interface TableSize {
  name: string;
  bytes: number;
  rows: number;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Every table's and index's bytes (the sum of the lengths of what it stores), D1's and Cloudflare's own left out. */
export async function tableSizes(db: D1Database): Promise<TableSize[]> {
  const objects = await db
    .prepare(
      `select type, name, tbl_name as tbl, sql, (select t.sql from sqlite_master t where t.type = 'table' and t.name = m.tbl_name) as tableSql
       from sqlite_master m where type in ('table', 'index') and (name not like 'sqlite_%' or name like 'sqlite_autoindex_%')
       and name not like '_cf_%' and name not like 'd1_%'`,
    )
    .all<{ type: string; name: string; tbl: string; sql: string | null; tableSql: string | null }>();
  const sizes: TableSize[] = [];
  for (const object of objects.results) {
    // A virtual table stores nothing of its own (FTS5 keeps its index in shadow tables, counted as tables).
    if (object.type === 'table' && /create virtual table/i.test(object.sql ?? '')) continue;
    const withoutRowid = /\)\s*without\s+rowid\s*$/i.test(object.tableSql ?? '');
    // A WITHOUT ROWID table's primary key is the table itself (counted as the table), not an index beside it.
    if (object.type === 'index' && withoutRowid && object.name.startsWith('sqlite_autoindex_')) continue;
    const literal = `'${object.name.replaceAll("'", "''")}'`;
    // An index's entries: its columns, then the row's key (xinfo's auxiliary columns: the row id, named null, or the
    // primary key's columns the index does not hold already).
    const columns =
      object.type === 'table'
        ? (await db.prepare(`select name from pragma_table_info(${literal})`).all<{ name: string }>()).results.map((c) => c.name)
        : (await db.prepare(`select name from pragma_index_xinfo(${literal}) where name is not null or cid = -1`).all<{ name: string | null }>()).results.map((c) => c.name);
    const table = object.type === 'table' ? object.name : object.tbl;
    const lengths = columns.map((c) => (c === null ? '8' : `coalesce(length(cast(${quote(c)} as blob)), 0)`)).join(' + ') || '0';
    const row = await db.prepare(`select count(*) as rows, coalesce(sum(${lengths}), 0) as bytes from ${quote(table)}`).first<{ rows: number; bytes: number }>();
    sizes.push({ name: object.type === 'index' ? `  index ${object.name}` : object.name, bytes: row!.bytes, rows: row!.rows });
  }
  return sizes;
}
