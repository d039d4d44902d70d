import { sql, type SQL } from 'drizzle-orm';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { StoredBody } from '../../db/schema/content';

export type { StoredBody };

/**
 * How a page document (or a reusable content) is stored in D1 (issue 42, storage): its canonical JSON compressed
 * with Brotli, as a BLOB in `documents.body`, with a small `documents.refs` beside it holding what SQL must see
 * inside the document without unpacking it. GitBook's JSON documents compress to about an eighth of their size
 * (the AxonIQ guide: 35 KB of JSON per page to 3.7 KB, about half the page's Markdown); nodes of the page and file
 * maps and child-list chunks stay JSON text, for SQL walks them with `json_each`. Documents stored before migration
 * 0052 are JSON text with no refs: every reader takes both forms (`documentText`), and every statement that looks
 * into a document reads `refs` when it is set and the JSON body otherwise.
 *
 * The packed form is one format byte and the compressed bytes: `1`, Brotli of the JSON; `2`, Brotli of the JSON with
 * its numbered node keys left out (`elideKeys`); `3`, a delta against another document's packed form (its base,
 * `documents.base`, migration 0162: services/content/document-deltas). A delta is read with its base's body appended
 * (`storedBodySql`, one statement), so every reader takes the three forms alike.
 */

const BROTLI = 1;
const BROTLI_KEYS_ELIDED = 2;
export const DELTA = 3;

/**
 * A node's key as it stands in canonical JSON (object members sorted, so a node's key comes before its children's).
 * Only where JSON's syntax is (after `{` or `,`): inside a string, a quote is always escaped.
 */
const NUMBERED_KEY = /([{,])"key":"k([1-9]\d{0,8})"/g;
const ELIDED_KEY = /([{,])"key":0(?=[,}])/g;

/**
 * The JSON with its node keys `k1`, `k2`... (the converter numbers a document's nodes in order) written as `0`, or
 * null when none is, or when the JSON has a key `0` of its own (which would not read back). The n-th key elided is
 * always `k<n>`, so `restoreKeys` numbers them again in order. The keys were about a sixth of a packed page: Brotli
 * cannot predict a counter (the AxonIQ guide's documents pack 16% smaller without them).
 */
function elideKeys(json: string): string | null {
  if (/[{,]"key":0[,}]/.test(json)) return null;
  let next = 1;
  const elided = json.replace(NUMBERED_KEY, (whole: string, lead: string, n: string) => {
    if (n !== String(next)) return whole;
    next++;
    return `${lead}"key":0`;
  });
  return next > 1 ? elided : null;
}

function restoreKeys(elided: string): string {
  let next = 1;
  return elided.replace(ELIDED_KEY, (_whole: string, lead: string) => `${lead}"key":"k${next++}"`);
}

/**
 * Quality 5 of 11: on GitBook documents it compresses within 2% of quality 9 at a tenth of its time (a few
 * milliseconds for a long page), where quality 11 costs a hundred times more for 15% less. What every write that
 * packs many documents (an import, a Git Sync, a translation) uses.
 */
const QUALITY = 5;

/**
 * Quality 10: 14% smaller than quality 5 on the AxonIQ guide's documents (its first quality that searches its
 * matches thoroughly: 9 is 2% smaller), at about 2 ms of CPU per KB of JSON (70 ms for a 35 KB page) against
 * 0.1. A page's document is written again by every edit of it and kept as long as history keeps it, so an editor's
 * request packs densely, within a budget (`PackingBudget`) that bounds what one request spends on it.
 */
const DENSE_QUALITY = 10;
const DENSE_BUDGET_BYTES = 128 * 1024;

/**
 * What one request may pack at DENSE_QUALITY: its first documents, up to 128 KB of JSON (about 250 ms of CPU), and
 * every document past that at QUALITY. The stored form does not name its quality (Brotli's stream is the same
 * format): documents are addressed by their JSON's hash, whichever way they were packed.
 */
export class PackingBudget {
  private left = DENSE_BUDGET_BYTES;

  qualityFor(jsonLength: number): number {
    if (jsonLength > this.left) return QUALITY;
    this.left -= jsonLength;
    return DENSE_QUALITY;
  }
}

/**
 * A document packed: with its numbered keys elided when they read back exactly (checked here, so that no document is
 * ever stored in a form that does not give its JSON back), else whole.
 */
export function packDocument(json: string, quality = QUALITY): Uint8Array {
  const { text, elided } = packingText(json);
  return brotliPacked(text, elided ? BROTLI_KEYS_ELIDED : BROTLI, quality);
}

function brotliPacked(json: string, format: number, quality: number): Uint8Array {
  const compressed = brotliCompressSync(json, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
  const packed = new Uint8Array(compressed.length + 1);
  packed[0] = format;
  packed.set(compressed, 1);
  return packed;
}

/** A stored body as D1 returns it: JSON text, or a packed BLOB (an array of bytes through the D1 binding). */

export function packedBytes(value: Exclude<StoredBody, string>): Uint8Array {
  if (Array.isArray(value)) return Uint8Array.from(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

/** The JSON text of a stored body, whichever form it was stored in. */
export function documentText(value: StoredBody): string {
  if (typeof value === 'string') return value;
  const { text, elided } = packedText(packedBytes(value));
  return elided ? restoreKeys(text) : text;
}

/**
 * What a packed body's compressed bytes hold (its JSON, with its keys elided or not: what a delta is computed over),
 * a delta applied to its base's.
 */
export function packedText(bytes: Uint8Array): { text: string; elided: boolean } {
  if (bytes[0] === DELTA) {
    const delta = splitDelta(bytes);
    return { text: applyDeltaOps(packedText(delta.base).text, delta.ops), elided: delta.elided };
  }
  if (bytes[0] !== BROTLI && bytes[0] !== BROTLI_KEYS_ELIDED) throw new Error(`stored document: unknown format ${bytes[0]}`);
  return { text: brotliDecompressSync(bytes.subarray(1)).toString('utf8'), elided: bytes[0] === BROTLI_KEYS_ELIDED };
}

/** Whether a packed body is a whole document (a delta's base must be one: chains are one delta long). */
export const isWholePacked = (bytes: Uint8Array) => bytes[0] === BROTLI || bytes[0] === BROTLI_KEYS_ELIDED;

/**
 * A delta as read (`storedBodySql`): its format byte, a flags byte (1: the result's keys are elided), the length of
 * its operations as a LEB128 varint, the operations (Brotli of a JSON array, `deltaOps`), then its base's packed body.
 */
function splitDelta(bytes: Uint8Array): { elided: boolean; ops: DeltaOp[]; base: Uint8Array } {
  let length = 0;
  let at = 2;
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[at++];
    if (byte === undefined) throw new Error('stored document: truncated delta');
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  const base = bytes.subarray(at + length);
  if (!isWholePacked(base)) throw new Error('stored document: a delta read without its base');
  const ops = JSON.parse(brotliDecompressSync(bytes.subarray(at, at + length)).toString('utf8')) as DeltaOp[];
  return { elided: (bytes[1] & 1) === 1, ops, base };
}

/**
 * A delta's operations, over the base's text: a positive number copies that many of its next characters, a negative
 * one skips as many, a string is inserted.
 */
export type DeltaOp = number | string;

export function applyDeltaOps(base: string, ops: DeltaOp[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const op of ops) {
    if (typeof op === 'string') parts.push(op);
    else if (op > 0) {
      if (at + op > base.length) throw new Error('stored document: a delta copies past its base');
      parts.push(base.slice(at, at + op));
      at += op;
    } else at -= op;
  }
  return parts.join('');
}

/** A delta's stored bytes (without its base): see `splitDelta`. */
export function deltaBytes(ops: DeltaOp[], elided: boolean): Uint8Array {
  const json = JSON.stringify(ops);
  const compressed = brotliCompressSync(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: DENSE_QUALITY, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
  });
  const varint: number[] = [];
  for (let n = compressed.length; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      varint.push(n);
      break;
    }
    varint.push((n % 128) | 0x80);
  }
  const bytes = new Uint8Array(2 + varint.length + compressed.length);
  bytes[0] = DELTA;
  bytes[1] = elided ? 1 : 0;
  bytes.set(varint, 2);
  bytes.set(compressed, 2 + varint.length);
  return bytes;
}

/** The text a document is packed from (its JSON with its numbered keys elided where they read back). */
export function packingText(json: string): { text: string; elided: boolean } {
  const elided = elideKeys(json);
  return elided !== null && restoreKeys(elided) === json ? { text: elided, elided: true } : { text: json, elided: false };
}

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

/** `documentText` of a body a statement may not have found. */
export function bodyText(value: StoredBody | null | undefined): string | null {
  return value === null || value === undefined ? null : documentText(value);
}

/** A stored body parsed: what `JSON.parse` of a JSON body was before bodies could be packed. */
export function parseStoredBody<T>(value: StoredBody): T {
  return JSON.parse(documentText(value)) as T;
}

/** Keys `<prefix><from>` to `<prefix><to>`, every one of them (numbers written without leading zeros). */
type KeyRun = [prefix: string, from: number, to: number];

/**
 * Node keys as runs where they are numbered (the converter names nodes `k1`, `k2`...: the keys of a page of
 * Markdown are one run) and one by one otherwise: a run of three or more costs less than its keys.
 */
function keyRuns(keys: string[]): { single: string[]; runs: KeyRun[] } {
  const numbered = new Map<string, number[]>();
  const single: string[] = [];
  for (const key of new Set(keys)) {
    const match = /^(.*?)([1-9]\d{0,8})$/.exec(key);
    if (!match || /\s/.test(key)) single.push(key);
    else {
      // Pushed where it was copied: a copy per key was quadratic in a page's nodes (issue 40: a long page has thousands).
      const numbers = numbered.get(match[1]);
      if (numbers) numbers.push(Number(match[2]));
      else numbered.set(match[1], [Number(match[2])]);
    }
  }
  const runs: KeyRun[] = [];
  for (const [prefix, numbers] of numbered) {
    numbers.sort((a, b) => a - b);
    for (let start = 0; start < numbers.length; ) {
      let end = start;
      while (end + 1 < numbers.length && numbers[end + 1] === numbers[end] + 1) end++;
      if (end - start >= 2) runs.push([prefix, numbers[start], numbers[end]]);
      else for (let i = start; i <= end; i++) single.push(`${prefix}${numbers[i]}`);
      start = end + 1;
    }
  }
  return { single, runs };
}

/**
 * What statements need to see inside a document without unpacking it, as JSON text:
 * - `keys` and `runs`: the key of every node (nodes and fragments, at any depth): whether a commented block is still
 *   there. `keys` space-separated with a space at each end (`instr(keys, ' ' || key || ' ')`), numbered ones as
 *   runs (`[prefix, from, to]`);
 * - `reusable`: the ids of the reusable contents it includes (any value named `reusableContent`);
 * - `files`: the ids of the files it refers to (any string named `file`).
 * The last two are what `json_tree` found in the JSON body before, so a read fetches the same rows with them.
 */
export function documentRefs(document: unknown): string {
  const keys: string[] = [];
  const reusable = new Set<string>();
  const files = new Set<string>();
  const visit = (value: unknown, inNodes: boolean) => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, inNodes);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const object = value as Record<string, unknown>;
    if (inNodes && typeof object.key === 'string') keys.push(object.key);
    for (const name of Object.keys(object)) {
      const member = object[name];
      if (name === 'reusableContent' && typeof member === 'string') reusable.add(member);
      else if (name === 'file' && typeof member === 'string') files.add(member);
      visit(member, name === 'nodes' || name === 'fragments');
    }
  };
  visit(document, false);
  const { single, runs } = keyRuns(keys);
  const refs: { keys: string; runs?: KeyRun[]; reusable?: string[]; files?: string[] } = { keys: single.length ? ` ${single.join(' ')} ` : ' ' };
  if (runs.length) refs.runs = runs;
  if (reusable.size) refs.reusable = [...reusable];
  if (files.size) refs.files = [...files];
  return JSON.stringify(refs);
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
