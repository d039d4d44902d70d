import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, lt, or, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { badRequest } from './errors';
import { DEFAULT_PAGE_SIZE, encodeCursor, pageParams, type Cursor, type Page } from './keyset-pages';

// The keyset pages' own helpers, zod-free (lib/keyset-pages), for every list that imports them from here.
export { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor, pageParams, toPage, type Cursor, type Page } from './keyset-pages';

export const MAX_PAGE_SIZE = 1000;

export const ListQuerySchema = z.object({
  page: z
    .string()
    .optional()
    .openapi({ description: 'Identifier of the page results to fetch (the `next.page` of the previous page).' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .optional()
    .openapi({ description: `The number of results per page (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE})` }),
});

/** Rows strictly after the cursor in (sortColumn, idColumn) ascending order. */
export function afterCursor(cursor: Cursor | null, sortColumn: SQLiteColumn, idColumn: SQLiteColumn): SQL | undefined {
  if (!cursor) return undefined;
  const [value, id] = cursor;
  return or(gt(sortColumn, value), and(eq(sortColumn, value), gt(idColumn, id)));
}

/** Rows strictly after the cursor in (sortColumn, idColumn) descending order: newest-first lists. */
export function beforeCursor(cursor: Cursor | null, sortColumn: SQLiteColumn, idColumn: SQLiteColumn): SQL | undefined {
  if (!cursor) return undefined;
  const [value, id] = cursor;
  return or(lt(sortColumn, value), and(eq(sortColumn, value), lt(idColumn, id)));
}

/** The cursor of a list sorted by a text column (a time): its sort value compared as text, whatever a forged cursor holds. */
export const textCursor = (cursor: Cursor | null): Cursor | null => cursor && [String(cursor[0]), cursor[1]];

export function keysetOrder(sortColumn: SQLiteColumn, idColumn: SQLiteColumn) {
  return [asc(sortColumn), asc(idColumn)];
}

/**
 * A list's `count` without counting the whole list when it need not be counted, so that a first page costs the
 * same in a small organization and a large one: a first page that holds every row counts itself; otherwise
 * `known` (a counter kept by the database that equals the count for this caller, e.g. an organization's
 * space count for its admin) when there is one; otherwise `countAll()`, a query over the whole list (one round
 * trip more, only for a caller no counter stands for, on a list longer than a page).
 */
export async function listCount(rows: unknown[], limit: number, cursor: Cursor | null, known: number | undefined, countAll: () => Promise<number>): Promise<number> {
  if (!cursor && rows.length <= limit) return rows.length;
  if (known !== undefined) return known;
  return countAll();
}

/**
 * A page of a list already held in memory (a site's structure): the cursor is the position and id
 * of the last item; the next page resumes after that id, or at that position when it is gone.
 */
export function pageInMemory<T>(items: T[], query: { page?: string; limit?: number }, idOf: (item: T) => string): Page<T> {
  const { cursor, limit } = pageParams(query);
  let start = 0;
  if (cursor) {
    const at = items.findIndex((item) => idOf(item) === cursor[1]);
    const index = cursor[0];
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) throw badRequest('Invalid page: not a cursor returned by this list');
    start = at >= 0 ? at + 1 : index + 1;
  }
  const slice = items.slice(start, start + limit);
  const page: Page<T> = { items: slice, count: items.length };
  if (start + limit < items.length && slice.length > 0) page.next = { page: encodeCursor([start + slice.length - 1, idOf(slice[slice.length - 1])]) };
  return page;
}
