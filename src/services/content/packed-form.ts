import type { StoredBody } from '../../db/schema/content';

/**
 * The packed form of a stored document (services/content/packed-documents writes it), read without `node:zlib`: one
 * format byte and the compressed bytes. `4`, deflate-raw of the JSON; `5`, the same with its numbered node keys left out
 * (`restoreKeys`); `3`, a delta against another document's packed form (document-deltas), read with its base appended.
 * Documents stored before (formats `1` and `2`, Brotli) are still read, by packed-documents.
 *
 * Deflate because the runtime inflates it natively (`DecompressionStream('deflate-raw')`), where Brotli needed
 * workerd's `node:zlib`, whose first import (its zlib, stream and process modules) was about 45% of a cold isolate's
 * first published page (issue 42 item 7). On the AxonIQ guide's documents deflate (level 9) is 10% larger than Brotli's
 * quality 5 and 26% larger than its 10 (0.40 times their Markdown against 0.37 and 0.32), for a fifth of quality 5's CPU.
 */

export const BROTLI = 1;
export const BROTLI_KEYS_ELIDED = 2;
export const DELTA = 3;
export const DEFLATE = 4;
export const DEFLATE_KEYS_ELIDED = 5;

/** A delta's flags (its second byte): its result's keys are elided; its operations are deflated (else Brotli). */
export const DELTA_KEYS_ELIDED = 1;
export const DELTA_OPS_DEFLATED = 2;

const ELIDED_KEY = /([{,])"key":0(?=[,}])/g;

/** The JSON of a text packed with its keys elided (packed-documents `elideKeys`): the n-th elided key is `k<n>`. */
export function restoreKeys(elided: string): string {
  let next = 1;
  return elided.replace(ELIDED_KEY, (_whole: string, lead: string) => `${lead}"key":"k${next++}"`);
}

/** A stored body as D1 returns it: JSON text, or a packed BLOB (an array of bytes through the D1 binding). */
export function packedBytes(value: Exclude<StoredBody, string>): Uint8Array {
  if (Array.isArray(value)) return Uint8Array.from(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

/** Whether a packed body's format is deflate (else Brotli, or a delta). */
export const isDeflated = (format: number | undefined) => format === DEFLATE || format === DEFLATE_KEYS_ELIDED;
const isBrotli = (format: number | undefined) => format === BROTLI || format === BROTLI_KEYS_ELIDED;

/** Whether a packed body is a whole document (a delta's base must be one: chains are one delta long). */
export const isWholePacked = (bytes: Uint8Array) => isDeflated(bytes[0]) || isBrotli(bytes[0]);

/** Whether a whole packed body's text has its keys elided. */
export const hasKeysElided = (bytes: Uint8Array) => bytes[0] === BROTLI_KEYS_ELIDED || bytes[0] === DEFLATE_KEYS_ELIDED;

/**
 * A delta as read (`storedBodySql`): its format byte, its flags byte, the length of its operations as a LEB128 varint,
 * the operations (a JSON array, `DeltaOp`, deflated or Brotli by its flags), then its base's packed body.
 */
export function splitDelta(bytes: Uint8Array): { flags: number; ops: Uint8Array; base: Uint8Array } {
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
  return { flags: bytes[1], ops: bytes.subarray(at, at + length), base };
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

/** Whether every stream of a packed body is deflate (so `documentTextNative` reads it without node:zlib). */
function readNatively(bytes: Uint8Array): boolean {
  if (bytes[0] !== DELTA) return isDeflated(bytes[0]);
  const delta = splitDelta(bytes);
  return (delta.flags & DELTA_OPS_DEFLATED) !== 0 && isDeflated(delta.base[0]);
}

/** Deflate-raw bytes inflated by the runtime, as UTF-8 text. */
async function inflatedText(bytes: Uint8Array): Promise<string> {
  const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Response(inflated).text();
}

/**
 * The JSON text of a stored body, as `documentText` reads it, for a reader that must not import node:zlib (the
 * published site's first page): a deflated body is inflated by the runtime; a Brotli one (stored before) loads
 * packed-documents and its node:zlib then, only for it.
 */
export async function documentTextNative(value: StoredBody): Promise<string> {
  if (typeof value === 'string') return value;
  const bytes = packedBytes(value);
  if (!readNatively(bytes)) return (await import('./packed-documents')).documentText(value);
  if (bytes[0] !== DELTA) {
    const text = await inflatedText(bytes.subarray(1));
    return hasKeysElided(bytes) ? restoreKeys(text) : text;
  }
  const delta = splitDelta(bytes);
  const [ops, base] = await Promise.all([inflatedText(delta.ops), inflatedText(delta.base.subarray(1))]);
  const text = applyDeltaOps(base, JSON.parse(ops) as DeltaOp[]);
  return (delta.flags & DELTA_KEYS_ELIDED) !== 0 ? restoreKeys(text) : text;
}

/** `parseStoredBody` without node:zlib for a deflated body (`documentTextNative`). */
export async function parseStoredBodyNative<T>(value: StoredBody): Promise<T> {
  return JSON.parse(await documentTextNative(value)) as T;
}
