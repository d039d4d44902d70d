/**
 * Canonical JSON: what documents and tree nodes are hashed and stored as.
 * Apart from revisions.ts, which re-exports it, so that a read that needs only this (a cold isolate's first page read:
 * tree.ts, presenter.ts, computed-pages.ts, spaces.ts) does not evaluate revisions.ts's document writing, its
 * packed-documents (node:zlib) and its delta differ (issue 42 item 7).
 */

/**
 * JSON with object keys sorted, so equal documents hash equally whatever order a client sent. Written directly for
 * plain JSON data (what documents and tree nodes are): a replacer that rebuilt every object sorted cost six times a
 * plain stringify, about a tenth of an import's conversion of a page (issue 40). The text is the replacer's, byte for
 * byte (`sortedJson`, kept for anything else: a `toJSON`, a class instance, a cycle, which it answers as it did).
 */
export function canonicalJson(value: unknown): string {
  try {
    return plainJson(value) as string;
  } catch (error) {
    if (error !== NOT_PLAIN && !(error instanceof RangeError)) throw error;
    return sortedJson(value);
  }
}

function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

const NOT_PLAIN = new Error('not plain JSON data');

/** Object keys quoted, remembered: a document repeats a few names (`object`, `type`, `nodes`, `leaves`...) thousands of times. */
const QUOTED_KEYS = new Map<string, string>();
function quotedKey(key: string): string {
  let quoted = QUOTED_KEYS.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (QUOTED_KEYS.size < 1024) QUOTED_KEYS.set(key, quoted);
  }
  return quoted;
}

/** An own key an object enumerates first, in ascending order, whatever order it was set in (an array index). */
const isArrayIndex = (key: string) => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 2 ** 32 - 1;

/**
 * `sortedJson`'s text of plain data: `undefined` (and functions, symbols) left out of objects and `null` in arrays, as
 * JSON.stringify does. An object rebuilt with sorted keys still enumerates its array-index keys first, in numeric order
 * (the language's own key order): so do these.
 */
function plainJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      break;
    default:
      throw NOT_PLAIN;
  }
  if (value === null) return 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i ? ',' : ''}${plainJson(value[i]) ?? 'null'}`;
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
  const keys = Object.keys(value);
  let indexes = 0;
  while (indexes < keys.length && isArrayIndex(keys[indexes])) indexes++;
  const named = indexes === 0 ? keys.sort() : [...keys.slice(0, indexes), ...keys.slice(indexes).sort()];
  let out = '{';
  let first = true;
  for (const key of named) {
    const member = plainJson((value as Record<string, unknown>)[key]);
    if (member === undefined) continue;
    out += `${first ? '' : ','}${quotedKey(key)}:${member}`;
    first = false;
  }
  return `${out}}`;
}
