import type { StoredBody } from '../../db/schema/content';
import { documentTextNative } from './packed-form';

/**
 * Page documents as JSON text, unpacked once per isolate (issue 42, warm reads). A document is content-addressed:
 * its hash names its bytes forever, so what is cached under a hash can never be stale, and holds nothing a reader
 * may not see (it is found only through the hash a read's own statement answered, after that statement checked
 * the reader's role). Bounded by `MAX_CACHED_CHARS`: the documents used longest ago leave first.
 *
 * A warm read of a page also skips moving the document out of D1: `knownDocumentHint` gives the statement the hash
 * this isolate last read at the same place (the same page of the same content), and the statement answers the
 * body only when the page's document is another one (`documentTextOf`). The hint is only a hint: the hash the
 * statement answers is the one used.
 */

/** About 8 MB of UTF-16 text per cache, well within an isolate's 128 MB. */
export const MAX_CACHED_CHARS = 4_000_000;
const MAX_HINTS = 20_000;

/**
 * Strings by key, bounded by their total length: the ones used longest ago leave first (a Map's insertion order is
 * its recency: a hit moves its entry to the end). A string larger than an eighth of the bound is not kept, rather
 * than clearing a good part of the cache.
 */
class TextLru {
  private chars = 0;
  private readonly entries = new Map<string, string>();

  get(key: string): string | undefined {
    const text = this.entries.get(key);
    if (text === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, text);
    return text;
  }

  set(key: string, text: string): void {
    if (text.length > MAX_CACHED_CHARS / 8 || this.entries.has(key)) return;
    this.entries.set(key, text);
    this.chars += text.length;
    for (const [oldest, oldText] of this.entries) {
      if (this.chars <= MAX_CACHED_CHARS) break;
      this.entries.delete(oldest);
      this.chars -= oldText.length;
    }
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }
}

const texts = new TextLru();
/** A document's Markdown as a page read writes it, by hash and what else the writing depends on (`markdownOf`). */
const markdowns = new TextLru();
/** Where a document was last read (`placeKey`) -> its hash. */
const hints = new Map<string, string>();

/** The cached text of the document `hash`, if this isolate holds it; marks it as used. */
export function cachedDocumentText(hash: string): string | undefined {
  return texts.get(hash);
}

export function rememberDocumentText(hash: string, text: string): void {
  texts.set(hash, text);
}

/**
 * The Markdown of the document `hash` written with `variant` (what besides the document the writing depends on: the
 * title and front matter), written by `write` the first time. Only for a stored document read as it is stored: an
 * evaluated, dereferenced or generated one depends on more than its hash.
 */
export async function markdownOf(hash: string, variant: string, write: () => Promise<string>): Promise<string> {
  const key = `${hash}\n${variant}`;
  const cached = markdowns.get(key);
  if (cached !== undefined) return cached;
  const markdown = await write();
  markdowns.set(key, markdown);
  return markdown;
}

/**
 * What a statement is told it need not answer for the place `place`: the hash of the document last read there with
 * its text, held by the caller for the request (`text`), so that an eviction while the statement runs loses nothing.
 */
export interface DocumentHint {
  place: string;
  hash: string;
  text?: string;
}

export function knownDocumentHint(place: string): DocumentHint {
  const hash = hints.get(place);
  const text = hash === undefined ? undefined : cachedDocumentText(hash);
  return { place, hash: text === undefined ? '' : hash!, text };
}

/**
 * The JSON text of the document `hash` as a statement answered it: its stored body (unpacked, or taken from the
 * cache when this isolate unpacked it before), or no body when the statement was told the reader holds it (`hint`).
 * Null when the page has no document, or when its document is missing from the table (as an unpacked read was).
 * Unpacked by the runtime's inflate (packed-form `documentTextNative`): a cold isolate's first page read imports no
 * node:zlib (issue 42 item 7); a Brotli body, stored before, loads packed-documents then.
 */
export async function documentTextOf(hash: string | null | undefined, body: StoredBody | null | undefined, hint?: DocumentHint): Promise<string | null> {
  if (hash === null || hash === undefined || hash === '') return body === null || body === undefined ? null : documentTextNative(body);
  if (hint) noteHint(hint.place, hash);
  if (body === null || body === undefined) {
    return hint?.hash === hash && hint.text !== undefined ? hint.text : null;
  }
  const cached = cachedDocumentText(hash);
  if (cached !== undefined) return cached;
  const text = await documentTextNative(body);
  rememberDocumentText(hash, text);
  return text;
}

function noteHint(place: string, hash: string): void {
  if (hints.get(place) === hash) return;
  hints.delete(place);
  if (hints.size >= MAX_HINTS) hints.delete(hints.keys().next().value!);
  hints.set(place, hash);
}

/** Empties the cache (tests). */
export function clearDocumentCache(): void {
  texts.clear();
  markdowns.clear();
  hints.clear();
}
