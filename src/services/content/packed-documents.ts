import { brotliDecompressSync, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { StoredBody } from '../../db/schema/content';
import {
  applyDeltaOps,
  DEFLATE,
  DEFLATE_KEYS_ELIDED,
  DELTA,
  DELTA_KEYS_ELIDED,
  DELTA_OPS_DEFLATED,
  hasKeysElided,
  isDeflated,
  isWholePacked,
  packedBytes,
  restoreKeys,
  splitDelta,
  type DeltaOp,
} from './packed-form';

export type { StoredBody };
export { applyDeltaOps, DELTA, isWholePacked, packedBytes, type DeltaOp };
export { composedBodySql, documentHasKeySql, documentRefsSql, isDocumentSql, storedBodySql } from './packed-sql';

/**
 * How a page document (or a reusable content) is stored in D1 (issue 42, storage): its canonical JSON compressed
 * with deflate (raw), as a BLOB in `documents.body`, with a small `documents.refs` beside it holding what SQL must see
 * inside the document without unpacking it. GitBook's JSON documents compress to about a seventh of their size
 * (the AxonIQ guide: 5.3 MB of JSON to about 0.4 times its Markdown); nodes of the page and file
 * maps and child-list chunks stay JSON text, for SQL walks them with `json_each`. Documents stored before migration
 * 0052 are JSON text with no refs: every reader takes both forms (`documentText`), and every statement that looks
 * into a document reads `refs` when it is set and the JSON body otherwise.
 *
 * The packed form is one format byte and the compressed bytes (services/content/packed-form): `4`, deflate of the
 * JSON; `5`, deflate of the JSON with its numbered node keys left out (`elideKeys`); `3`, a delta against another
 * document's packed form (its base, `documents.base`, migration 0162: services/content/document-deltas); `1` and `2`,
 * Brotli, as documents were written before, still read. A delta is read with its base's body appended
 * (`storedBodySql`, one statement), so every reader takes every form alike. The published site reads them with
 * packed-form's `documentTextNative`, without this module's node:zlib.
 */

/**
 * A node's key as it stands in canonical JSON (object members sorted, so a node's key comes before its children's).
 * Only where JSON's syntax is (after `{` or `,`): inside a string, a quote is always escaped.
 */
const NUMBERED_KEY = /([{,])"key":"k([1-9]\d{0,8})"/g;

/**
 * The JSON with its node keys `k1`, `k2`... (the converter numbers a document's nodes in order) written as `0`, or
 * null when none is, or when the JSON has a key `0` of its own (which would not read back). The n-th key elided is
 * always `k<n>`, so `restoreKeys` numbers them again in order. The keys were about a sixth of a packed page: a
 * compressor cannot predict a counter (the AxonIQ guide's documents pack 16% smaller without them).
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

/**
 * Deflate's level 6 (zlib's default): on the AxonIQ guide's documents 2% larger than level 9 at a fifth of its CPU
 * (0.012 against 0.06 ms per KB of JSON in Node). What every write that packs many documents (an import, a Git Sync,
 * a translation) uses.
 */
const QUALITY = 6;

/**
 * Level 9, deflate's densest. A page's document is written again by every edit of it and kept as long as history
 * keeps it, so an editor's request packs densely, within a budget (`PackingBudget`) that bounds what one request
 * spends on it.
 */
const DENSE_QUALITY = 9;
const DENSE_BUDGET_BYTES = 128 * 1024;

/**
 * What one request may pack at DENSE_QUALITY: its first documents, up to 128 KB of JSON (under 10 ms of CPU), and
 * every document past that at QUALITY. The stored form does not name its level (deflate's stream is the same format):
 * documents are addressed by their JSON's hash, whichever way they were packed.
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
  const compressed = deflated(text, quality);
  const packed = new Uint8Array(compressed.length + 1);
  packed[0] = elided ? DEFLATE_KEYS_ELIDED : DEFLATE;
  packed.set(compressed, 1);
  return packed;
}

const deflated = (text: string, level: number) => deflateRawSync(text, { level, memLevel: 9 });

/** The JSON text of a stored body, whichever form it was stored in. */
export function documentText(value: StoredBody): string {
  if (typeof value === 'string') return value;
  const { text, elided } = packedText(packedBytes(value));
  return elided ? restoreKeys(text) : text;
}

/** A packed stream's text: deflate-raw, or Brotli for a document stored before. */
const unpacked = (bytes: Uint8Array, deflate: boolean) => (deflate ? inflateRawSync(bytes) : brotliDecompressSync(bytes)).toString('utf8');

/**
 * What a packed body's compressed bytes hold (its JSON, with its keys elided or not: what a delta is computed over),
 * a delta applied to its base's.
 */
export function packedText(bytes: Uint8Array): { text: string; elided: boolean } {
  if (bytes[0] === DELTA) {
    const delta = splitDelta(bytes);
    const ops = JSON.parse(unpacked(delta.ops, (delta.flags & DELTA_OPS_DEFLATED) !== 0)) as DeltaOp[];
    return { text: applyDeltaOps(packedText(delta.base).text, ops), elided: (delta.flags & DELTA_KEYS_ELIDED) !== 0 };
  }
  if (!isWholePacked(bytes)) throw new Error(`stored document: unknown format ${bytes[0]}`);
  return { text: unpacked(bytes.subarray(1), isDeflated(bytes[0])), elided: hasKeysElided(bytes) };
}

/** A delta's stored bytes (without its base): see packed-form's `splitDelta`. */
export function deltaBytes(ops: DeltaOp[], elided: boolean): Uint8Array {
  const compressed = deflated(JSON.stringify(ops), DENSE_QUALITY);
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
  bytes[1] = DELTA_OPS_DEFLATED | (elided ? DELTA_KEYS_ELIDED : 0);
  bytes.set(varint, 2);
  bytes.set(compressed, 2 + varint.length);
  return bytes;
}

/** The text a document is packed from (its JSON with its numbered keys elided where they read back). */
export function packingText(json: string): { text: string; elided: boolean } {
  const elided = elideKeys(json);
  return elided !== null && restoreKeys(elided) === json ? { text: elided, elided: true } : { text: json, elided: false };
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
