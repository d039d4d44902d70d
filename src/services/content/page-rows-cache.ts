/**
 * A page read's tree rows (the page, its ancestors and subtree, its child lists' chunks, the Markdown of its
 * subpages' documents), kept per isolate by the revision they were read from (issue 42 item 6, warm reads).
 *
 * A revision is an immutable snapshot and its page map content-addressed (db/schema `revisions`, `documents`), so
 * what a page statement answered for one revision it answers for that revision forever. Local D1 compiles every
 * statement it is sent (miniflare's d1 worker prepares each call), and the page statement's walk is about two
 * thirds of that compiling (test/bench/statement-compile.ts): a warm read that holds the rows of the revision
 * sends the space's row with the caller's rank and the revision's header alone (reads.ts
 * spaceAndRevisionStatement), and uses the held rows when the revision it answers is theirs. The access check is
 * that statement's, on every read; nothing here decides who may read what, and rows are found only by the
 * revision the read's own statement answered. Rows that depend on more than the revision are never held: a page
 * whose tree has a computed page (the specs it reads change apart from the revision).
 */
import { SizedLru } from '../../lib/sized-lru';

/** The rows of one read, and the revision they are the rows of. */
export interface HeldPageRows<R> {
  revisionId: string;
  rows: R[];
}

/** About 4 MB of UTF-16 text in all; one read's rows of more than an eighth of that are not held (lib/sized-lru). */
const entries = new SizedLru<HeldPageRows<{ value: unknown }>>(2_000_000, (held, key) =>
  held.rows.reduce((sum, row) => sum + sizeOf(row.value) + 64, key.length),
);

/** By read (reads.ts placeOf and the statement's flags). */
export function heldPageRows<R extends { value: unknown }>(key: string): HeldPageRows<R> | undefined {
  return entries.get(key) as unknown as HeldPageRows<R> | undefined;
}

export function holdPageRows<R extends { value: unknown }>(key: string, held: HeldPageRows<R>): void {
  entries.set(key, held as unknown as HeldPageRows<{ value: unknown }>);
}

/** A row's value in characters, or bytes for a body D1 answered as bytes (a packed document, a Markdown row's body). */
function sizeOf(value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return value.byteLength;
  return 0;
}

/** Empties the cache (tests). */
export function clearHeldPageRows(): void {
  entries.clear();
}
