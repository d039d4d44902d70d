import type { Context } from 'hono';
import type { AppBindings, Env } from '../env';

/**
 * The edge cache of published pages: what a visitor without credentials is answered before anything is read from
 * D1, so that a page view served from the cache costs no D1 round trip (issue 42).
 *
 * Why a second cache beside views.ts's: views.ts keys its Cache API entries by the site's version, which it knows
 * only after reading the site's model from D1 (one round trip, even on a hit). This one is keyed by the request's
 * URL alone (host, path, query) and trusts an entry for a bounded time, `SITE_EDGE_FRESH_SECONDS` (30 by default;
 * 0 turns it off): within it a view costs no D1 round trip; past it the request reads the site's model again.
 *
 * Freshness: a publish, a merge into a published space, a customization, an unpublish or a change of visibility
 * reaches visitors of a page within `SITE_EDGE_FRESH_SECONDS`: the Cache API is per data center and has no global
 * purge, and a D1-free answer cannot learn of a change any sooner. No stale-while-revalidate beyond that: a stale
 * answer served while revalidating would extend how long a site made private keeps being served.
 *
 * One entry per URL, read once and written at most once per view (issue 42 item 7: each Cache API operation is a
 * round trip of its own): the entry keeps the site's version it was made for, and is kept for as long as views.ts's
 * versioned entries (`STORED_FOR_SECONDS`). Past the freshness bound it is not served as it stands: the request
 * reads the site, and views.ts serves the entry still (a `hit`) when the site's version is the one it was made for,
 * and stores it again (fresh for another bound); otherwise the page is made anew and replaces it. So a request the
 * edge cache is read for does not use views.ts's versioned entries at all: one `match`, at most one `put`.
 *
 * Who gets what: only answers views.ts deems shareable enter it (a site public or unlisted, a visitor with no
 * claims, a 200 of a cacheable view: `EDGE_VERSION_HEADER`), and only requests that carry no credentials of the
 * site (no share key or visitor token in the query or in the site's cookies) read it. A share-link or visitor-auth
 * page is never stored, so never served from here; a request with credentials always takes the checked path.
 */

/** Set by views.ts on an answer anyone may be served (its value: the site's version); never leaves the Worker. */
export const EDGE_VERSION_HEADER = 'X-Site-Edge-Version';
/** Kept with a stored answer: when it was stored (ms), the site it belongs to and the receivers of its page views. */
const STORED_AT = 'X-Site-Edge-Stored-At';
const SITE = 'X-Site-Edge-Site';
const RECEIVERS = 'X-Site-Edge-Receivers';
/** The site's version the stored answer was made for (views.ts `versionOf`). */
const STORED_VERSION = 'X-Site-Edge-Stored-Version';
const INTERNAL = [EDGE_VERSION_HEADER, STORED_AT, SITE, RECEIVERS, STORED_VERSION];
/** How long the Cache API keeps an entry: past the freshness bound it is still served once its version is checked. */
export const STORED_FOR_SECONDS = 600;

const EDGE_ORIGIN = 'https://site-edge.invalid';
const DEFAULT_FRESH_SECONDS = 30;

/** The freshness bound, from the deployment's `SITE_EDGE_FRESH_SECONDS` (0: no edge cache). */
export function edgeFreshSeconds(env: Env): number {
  const raw = env.SITE_EDGE_FRESH_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_FRESH_SECONDS;
  const seconds = Number(raw);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(Math.floor(seconds), 3600) : 0;
}

function cacheApi(): Cache | null {
  try {
    return (globalThis as { caches?: { default?: Cache } }).caches?.default ?? null;
  } catch {
    return null;
  }
}

/** The entry's key: the whole URL the visitor asked for, host included (an organization's host or `/s/<id>/`). */
function keyOf(url: URL): Request {
  return new Request(`${EDGE_ORIGIN}/${encodeURIComponent(url.host)}${url.pathname}${url.search}`);
}

export interface EdgeHit {
  response: Response;
  siteId: string;
  /** The integrations that receive the site's page views, as they were when the answer was stored. */
  receivers: string[];
}

/** A stored answer past the freshness bound: servable once the site's version is read and found to be `version`. */
export interface EdgeStale {
  version: string;
  status: number;
  /** Its headers without the internal ones. */
  headers: Headers;
  /** Read whole: the request may end before views.ts (a redirect, a 404), and a stream left unread would hang on. */
  body: ArrayBuffer;
}

/**
 * What the edge cache holds for a request it is read for (a GET or HEAD without credentials of the site, the cache
 * on): a fresh answer to serve as it is (`hit`), or one past its bound (`stale`), or neither. Null when the edge
 * cache is not read for the request (views.ts then uses its versioned entries).
 */
export type EdgeLookup = { hit: EdgeHit; stale: null } | { hit: null; stale: EdgeStale | null };

/**
 * The stored answer to `url` for a GET or HEAD that carries no credentials of the site (`credentialFree`, decided
 * by routes.ts); null when the edge cache is not read for it. A fresh one whose ETag an `If-None-Match` matches
 * gets a 304.
 */
export async function edgeLookup(c: Context<AppBindings>, url: URL, credentialFree: boolean): Promise<EdgeLookup | null> {
  const fresh = edgeFreshSeconds(c.env);
  const cache = fresh > 0 && credentialFree && (c.req.method === 'GET' || c.req.method === 'HEAD') ? cacheApi() : null;
  if (!cache) return null;
  const stored = await cache.match(keyOf(url)).catch(() => undefined);
  if (!stored) return { hit: null, stale: null };
  const storedAt = Number(stored.headers.get(STORED_AT));
  const version = stored.headers.get(STORED_VERSION);
  const siteId = stored.headers.get(SITE) ?? '';
  const receivers = (stored.headers.get(RECEIVERS) ?? '').split(',').filter(Boolean);
  const headers = new Headers(stored.headers);
  for (const name of INTERNAL) headers.delete(name);
  // The entry outlives the bound (STORED_FOR_SECONDS): past it, it is served only once views.ts has read the site
  // and found its version unchanged.
  if (!Number.isFinite(storedAt) || Date.now() - storedAt > fresh * 1000) {
    if (version === null || stored.status !== 200) {
      await stored.body?.cancel();
      return { hit: null, stale: null };
    }
    return { hit: null, stale: { version, status: stored.status, headers, body: await stored.arrayBuffer() } };
  }
  headers.set('Cache-Control', 'public, max-age=60');
  headers.set('X-Site-Cache', 'edge');
  const etag = headers.get('ETag');
  const ifNoneMatch = c.req.header('If-None-Match');
  if (etag && ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
    await stored.body?.cancel();
    headers.delete('Content-Type');
    headers.delete('Content-Security-Policy');
    return { hit: { response: new Response(null, { status: 304, headers }), siteId, receivers: [] }, stale: null };
  }
  return { hit: { response: new Response(stored.body, { status: stored.status, headers }), siteId, receivers }, stale: null };
}

/**
 * Keeps `response` for `url` when views.ts marked it shareable (`EDGE_VERSION_HEADER`) and the request carried no
 * credentials of the site (`credentialFree`, as for `edgeLookup`), in the background, and
 * removes the mark from what the visitor gets. Anything else (a 404, a redirect, an answer with cookies, a page of
 * a site not everyone may read) is left alone.
 */
export function edgeStore(c: Context<AppBindings>, url: URL, response: Response, credentialFree: boolean, siteId: string, receivers: string[]): Response {
  const version = response.headers.get(EDGE_VERSION_HEADER);
  if (version === null) return response;
  response.headers.delete(EDGE_VERSION_HEADER);
  const fresh = edgeFreshSeconds(c.env);
  const cache = fresh > 0 && credentialFree && c.req.method === 'GET' && response.status === 200 && !response.headers.has('Set-Cookie') ? cacheApi() : null;
  if (!cache || !response.body) return response;
  const [forVisitor, forCache] = response.body.tee();
  const stored = new Headers(response.headers);
  stored.set('Cache-Control', `public, max-age=${STORED_FOR_SECONDS}`);
  stored.set(STORED_AT, String(Date.now()));
  stored.set(STORED_VERSION, version);
  stored.set(SITE, siteId);
  stored.set(RECEIVERS, receivers.join(','));
  const put = cache.put(keyOf(url), new Response(forCache, { status: 200, headers: stored })).catch(() => undefined);
  try {
    c.executionCtx.waitUntil(put);
  } catch {
    // No execution context (a direct call of the app): the put runs on, unawaited.
  }
  return new Response(forVisitor, { status: response.status, headers: response.headers });
}
