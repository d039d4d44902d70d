/**
 * A space's change-request lists, held per isolate by the space's change-request version (issue 42 item 6, warm
 * reads). Every row a space's list shows is one of its change requests with its creator's name, email and photo, and
 * triggers move `spaces.change_requests_version` with each write to any of them in the write's own transaction
 * (migration 0168). So a list read with the version V is the space's list for as long as the space's version is V.
 *
 * Local D1 compiles every statement it is sent (test/bench/statement-compile.ts); a warm list that this isolate holds
 * sends the space's statement with the caller's rank alone (the access check, on every request), whose row carries
 * the version, where a list sent two. Nothing here decides who may read what: a held list is looked at only after
 * the request's own statement let the caller read the space, and the rows do not depend on who reads them. The
 * space's own columns (its revision, for `outdated`) come from that statement on every read, never from here.
 */
import { SizedLru } from '../../lib/sized-lru';
import type { SpaceRow } from '../spaces/spaces';
import type { ChangeRequestWithContext } from './change-requests';

/** A held list's rows: the change requests and their creators, without the space's columns. */
type HeldRow = Omit<ChangeRequestWithContext, 'spaceRevision' | 'orgId'>;

export interface HeldChangeRequestList {
  version: number;
  rows: HeldRow[];
}

/** The filters a held list may have: each a column of the change request (the others read tables no version covers). */
export interface HoldableFilters {
  status?: string;
  creator?: string;
  conversationsIssuesCluster?: string;
  orderBy?: string;
  limit?: number;
  page?: string;
  contributor?: string;
  requestedReviewer?: string;
}

/** About 4 MB of UTF-16 text in all, counted roughly (a row's fixed columns, and its description's JSON). */
const held = new SizedLru<HeldChangeRequestList>(2_000_000, (list, key) =>
  list.rows.reduce((sum, { cr }) => sum + 600 + (cr.description ? JSON.stringify(cr.description).length : 0), key.length),
);

/**
 * The key a space's list is held under, or undefined when it is not held: a page after the first (its count is
 * another statement), or a list filtered by contributors or review requests (tables the version does not follow).
 */
export function heldListKey(spaceId: string, filters: HoldableFilters): string | undefined {
  if (filters.page !== undefined || filters.contributor !== undefined || filters.requestedReviewer !== undefined) return undefined;
  const { status, creator, conversationsIssuesCluster, orderBy, limit } = filters;
  return JSON.stringify([spaceId, status ?? null, creator ?? null, conversationsIssuesCluster ?? null, orderBy ?? null, limit ?? null]);
}

export function heldChangeRequestList(key: string): HeldChangeRequestList | undefined {
  return held.get(key);
}

/**
 * Holds the rows of a first page read with the space's version `version` (from the same transaction, or an earlier
 * one: rows newer than their version only cost a read again). Only a list that fits its page, whose count is its
 * length: a longer one's count is a statement of its own.
 */
export function holdChangeRequestList(key: string, version: number, rows: ChangeRequestWithContext[], limit: number): void {
  if (rows.length > limit) return held.delete(key);
  held.set(key, { version, rows: rows.map(({ cr, creator }) => ({ cr, creator })) });
}

/** A held list's rows with the space's columns as the request's own statement read them. */
export function heldRowsOf(list: HeldChangeRequestList, space: Pick<SpaceRow, 'revisionId' | 'orgId'>): ChangeRequestWithContext[] {
  return list.rows.map(({ cr, creator }) => ({ cr, creator, spaceRevision: space.revisionId, orgId: space.orgId }));
}

/** Forgets every held list (tests). */
export function clearHeldChangeRequestLists(): void {
  held.clear();
}
