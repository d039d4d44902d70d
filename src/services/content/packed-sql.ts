import { sql, type SQL } from 'drizzle-orm';

/**
 * The SQL that reads stored documents (services/content/packed-documents writes them), apart from that module and its
 * node:zlib: a page read's first request in a cold isolate builds these statements and inflates with the runtime
 * (packed-form `documentTextNative`), so it imports no Node.js built-in (issue 42 item 7, as the published page).
 */

/**
 * A document's body as every reader takes it, for the row `d` of `documents` (an SQL alias): its stored body, and for
 * a delta its base's appended (as hex and back: `||` on BLOBs makes text), so a read costs no statement more.
 */
export function composedBodySql(d: string): SQL {
  const row = sql.raw(d);
  return sql`(case when ${row}.base is null then ${row}.body
    else unhex(hex(${row}.body) || hex((select b.body from documents b where b.hash = ${row}.base))) end)`;
}

/** The composed body (`composedBodySql`) of the document `hash` (an SQL expression); null when there is none. */
export function storedBodySql(hash: SQL): SQL {
  return sql`(select ${composedBodySql('sb')} from documents sb where sb.hash = ${hash})`;
}

/**
 * The ids (one `value` column) of the reusable contents (`reusable`) or files (`files`) that the documents named
 * by `hashes` (a subquery of hashes) refer to: from their refs, or from their JSON body for a document stored
 * before refs were (what `json_tree` finds there under `reusableContent`, or as a string under `file`). A packed
 * body is never given to a JSON function (it is no JSON).
 */
export function documentRefsSql(hashes: SQL, kind: 'reusable' | 'files'): SQL {
  const path = kind === 'reusable' ? '$.reusable' : '$.files';
  const key = kind === 'reusable' ? 'reusableContent' : 'file';
  return sql`select j.value from documents d cross join json_each(d.refs, ${path}) j where d.hash in (${hashes}) and d.refs is not null
    union all
    select t.value from documents d cross join json_tree(case when d.refs is null and typeof(d.body) = 'text' then d.body end) t
      where d.hash in (${hashes}) and d.refs is null and t.key = ${key}${kind === 'files' ? sql` and t.type = 'text'` : sql``}`;
}

/**
 * Whether the document `hash` (an SQL expression) holds a node whose key is `key` (an SQL expression): in its
 * refs' keys, or (stored before refs were) anywhere in its JSON body as `"key":<key>`. Null when no such document.
 */
export function documentHasKeySql(hash: SQL, key: SQL): SQL {
  const prefix = sql`json_extract(r.value, '$[0]')`;
  const number = sql`substr(${key}, length(${prefix}) + 1)`;
  const inRun = sql`exists (select 1 from json_each(d.refs, '$.runs') r
    where substr(${key}, 1, length(${prefix})) = ${prefix} and ${number} glob '[1-9]*' and ${number} not glob '*[^0-9]*' and length(${number}) <= 9
      and cast(${number} as integer) between json_extract(r.value, '$[1]') and json_extract(r.value, '$[2]'))`;
  return sql`(select case when d.refs is not null then instr(json_extract(d.refs, '$.keys'), ' ' || ${key} || ' ') > 0 or ${inRun}
    else instr(d.body, '"key":' || json_quote(${key})) end from documents d where d.hash = ${hash})`;
}

/**
 * Whether a stored body (an SQL expression of `documents.body`) is a page document or reusable content rather than a
 * node of a page or file map (both live in `documents`): a packed body (a BLOB) always is; a JSON text body is one when
 * it says so (`"object":"document"`, stored before 0052). Never gives a BLOB to a JSON function.
 */
export function isDocumentSql(body: SQL): SQL {
  return sql`(case when typeof(${body}) = 'blob' then 1 else json_extract(${body}, '$.object') = 'document' end)`;
}
