import { badRequest } from './errors';

/**
 * Keyset pages: the cursor a list's `page` carries, a page of rows, the query's page parameters. Apart from
 * lib/pagination (which re-exports them) because that module also holds the lists' zod query schema, and the
 * content reads the published site shares with the API (services/content/reads) page a list too: importing
 * this builds no zod schema.
 */

export const DEFAULT_PAGE_SIZE = 100;

type CursorValue = string | number;
export type Cursor = [CursorValue, string];

/** A cursor is the (sort value, id) of the last row of the previous page: stable while rows are inserted. */
export function encodeCursor(cursor: Cursor): string {
  return btoa(JSON.stringify(cursor)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function decodeCursor(page: string | undefined): Cursor | null {
  if (page === undefined) return null;
  try {
    const json = atob(page.replace(/-/g, '+').replace(/_/g, '/'));
    const value = JSON.parse(json);
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      (typeof value[0] === 'string' || typeof value[0] === 'number') &&
      typeof value[1] === 'string'
    ) {
      return value as Cursor;
    }
  } catch {
    // fall through to the error below
  }
  throw badRequest('Invalid page: not a cursor returned by this list');
}

export interface Page<T> {
  items: T[];
  count: number;
  next?: { page: string };
}

/** Rows were fetched with `limit + 1`: the extra row only tells whether a next page exists. */
export function toPage<R, T>(rows: R[], limit: number, count: number, key: (row: R) => Cursor, map: (row: R) => T): Page<T> {
  const pageRows = rows.slice(0, limit);
  const page: Page<T> = { items: pageRows.map(map), count };
  if (rows.length > limit && pageRows.length > 0) page.next = { page: encodeCursor(key(pageRows[pageRows.length - 1])) };
  return page;
}

export function pageParams(query: { page?: string; limit?: number }) {
  return { cursor: decodeCursor(query.page), limit: query.limit ?? DEFAULT_PAGE_SIZE };
}
