import { newId } from '../../lib/ids';

/**
 * GitBook's bulkUpsertSiteRedirects, planned in memory: the site's redirects (at most a thousand) are read with
 * the request's authorization, each item of the body is applied in order to that copy, and what changed comes
 * out as rows to delete, update and insert, written in one batch by the route. Items are independent: one that
 * cannot apply answers `error` and leaves the others be, as GitBook's per-item results do.
 */

export interface RedirectState {
  id: string;
  siteId: string;
  source: string;
  draft: boolean;
  captureWildcard: boolean;
  permanent: boolean;
  destination: Record<string, unknown>;
  createdAt: string;
  updatedAt: string | null;
  sortedAt: string;
}

/** One item of the body, its destination already resolved (`path` destinations to the page they name). */
export type BulkItem =
  | { source: string; intent: 'publish' }
  | {
      source: string;
      intent: 'live' | 'draft';
      captureWildcard?: boolean;
      permanent?: boolean;
      /** null deletes; an Error is a destination that could not be resolved or is not of the site. */
      destination: Record<string, unknown> | null | Error;
    };

export type BulkResult =
  | { status: 'created' | 'updated' | 'published'; source: string; draft: boolean; id: string }
  | { status: 'deleted'; source: string; draft: boolean }
  | { status: 'error'; source: string; draft: boolean; error: string };

export interface BulkPlan {
  results: BulkResult[];
  deleted: string[];
  updated: RedirectState[];
  inserted: RedirectState[];
}

const keyOf = (draft: boolean, source: string) => `${draft ? 'draft' : 'live'} ${source}`;

/** Applies `items` in order to the site's `existing` redirects, keeping at most `limit` of them. */
export function planBulkRedirects(siteId: string, existing: RedirectState[], items: BulkItem[], limit: number, now: string): BulkPlan {
  const current = new Map(existing.map((row) => [keyOf(row.draft, row.source), { ...row }]));
  const results = items.map((item): BulkResult => {
    if (item.intent === 'publish') return publish(current, item.source, now);
    const draft = item.intent === 'draft';
    const key = keyOf(draft, item.source);
    const found = current.get(key);
    const fail = (error: string): BulkResult => ({ status: 'error', source: item.source, draft, error });
    if (item.destination instanceof Error) return fail(item.destination.message);
    if (item.destination === null) {
      if (!found) return fail(`no ${draft ? 'draft' : 'live'} redirect from "${item.source}" to delete`);
      current.delete(key);
      return { status: 'deleted', source: item.source, draft };
    }
    const fields = { destination: item.destination, captureWildcard: item.captureWildcard ?? false };
    if (found) {
      Object.assign(found, fields, item.permanent !== undefined && { permanent: item.permanent }, { updatedAt: now, sortedAt: now });
      return { status: 'updated', source: item.source, draft, id: found.id };
    }
    if (current.size >= limit) return fail(`a site has at most ${limit} redirects: delete some first`);
    const row: RedirectState = { id: newId(), siteId, source: item.source, draft, permanent: item.permanent ?? false, ...fields, createdAt: now, updatedAt: null, sortedAt: now };
    current.set(key, row);
    return { status: 'created', source: item.source, draft, id: row.id };
  });
  return { results, ...changesBetween(existing, [...current.values()]) };
}

/** The draft from `source` becomes the live one: the live redirect (if any) takes its fields, the draft goes. */
function publish(current: Map<string, RedirectState>, source: string, now: string): BulkResult {
  const draft = current.get(keyOf(true, source));
  if (!draft) return { status: 'error', source, draft: false, error: `no draft redirect from "${source}" to publish` };
  current.delete(keyOf(true, source));
  const live = current.get(keyOf(false, source));
  const fields = { destination: draft.destination, captureWildcard: draft.captureWildcard, permanent: draft.permanent, updatedAt: now, sortedAt: now };
  if (live) {
    Object.assign(live, fields);
    return { status: 'published', source, draft: false, id: live.id };
  }
  current.set(keyOf(false, source), { ...draft, ...fields, draft: false });
  return { status: 'published', source, draft: false, id: draft.id };
}

/**
 * What to write: deletions first, then updates, then insertions, an order under which the unique
 * (site, draft, source) index never sees two rows at once (a key freed by a deletion or a publish is taken after).
 */
function changesBetween(before: RedirectState[], after: RedirectState[]): Omit<BulkPlan, 'results'> {
  const old = new Map(before.map((row) => [row.id, row]));
  const kept = new Set(after.map((row) => row.id));
  return {
    deleted: before.filter((row) => !kept.has(row.id)).map((row) => row.id),
    updated: after.filter((row) => old.has(row.id) && JSON.stringify(old.get(row.id)) !== JSON.stringify(row)),
    inserted: after.filter((row) => !old.has(row.id)),
  };
}
