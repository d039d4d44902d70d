import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppBindings } from '../env';
import { ApiError } from '../lib/errors';
import { sha256Hex, timingSafeEqual } from '../lib/ids';
import { nowIso } from '../lib/time';
import { integrationTokenActor, isIntegrationToken } from '../services/integrations/tokens';
import { looksLikeSiteToken, SITE_TOKEN_REFUSED, verifySiteToken } from '../services/sites/site-token';
import { noteTokenLookup } from '../db/client';
import { identityOfTokenHash, recordTokenUse } from './auth-statements';
import { cachedIdentity, rememberIdentity } from './identity-cache';

const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/**
 * The reads made without an API token: a published site's visitors' (their share key or visitor JWT
 * is checked by the route, in services/sites/access). Any other request needs a token.
 */
const VISITOR_READS = [
  /^\/v1\/orgs\/[^/]+\/sites\/[^/]+\/(published|sections|site-spaces)\/?$/,
  /^\/v1\/spaces\/[^/]+\/?$/,
  // An organization's SSO logins: what its login page shows before anyone is signed in.
  /^\/v1\/orgs\/[^/]+\/sso\/?$/,
];

/** Resolving a published URL (resolvePublishedContentByUrl): a POST that changes nothing, made by a site's renderer for its visitors. */
const RESOLVE_URL = /^\/v1\/urls\/published\/?$/;
/** Tracking a published site's insights events (trackEventsInSiteById): its readers send them, with the site's credentials. */
const TRACK_EVENTS = /^\/v1\/orgs\/[^/]+\/sites\/[^/]+\/insights\/events\/?$/;

function isVisitorRead(method: string, path: string): boolean {
  if (method === 'POST' && (RESOLVE_URL.test(path) || TRACK_EVENTS.test(path))) return true;
  // getPublishedContentByUrl: the same resolution as a GET with query parameters (GitBook's older form).
  if (method === 'GET' && RESOLVE_URL.test(path)) return true;
  return (method === 'GET' || method === 'HEAD') && VISITOR_READS.some((pattern) => pattern.test(path));
}

// The hash of each token this isolate saw: a pure function of the token, so remembering it caches no decision (the
// token's row is still looked up, through identity-cache, and the caller's roles read by every route). Bounded:
// tokens are the client's to choose; a full map starts over.
const tokenHashes = new Map<string, string>();
const MAX_TOKEN_HASHES = 5_000;

async function tokenHash(token: string): Promise<string> {
  let hash = tokenHashes.get(token);
  if (hash === undefined) {
    hash = await sha256Hex(token);
    if (tokenHashes.size >= MAX_TOKEN_HASHES) tokenHashes.clear();
    tokenHashes.set(token, hash);
  }
  return hash;
}

/** Resolves `Authorization: Bearer <token>` to an actor: the operator (ADMIN_TOKEN) or a user; a visitor on visitor reads. */
export const authenticate = createMiddleware<AppBindings>(async (c, next) => {
  const header = c.req.header('Authorization') ?? '';
  if (!header && isVisitorRead(c.req.method, c.req.path)) {
    c.set('actor', { kind: 'visitor' });
    return next();
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError(401, 'Missing API token: send "Authorization: Bearer <token>"');
  const token = match[1];

  const adminToken = c.env.ADMIN_TOKEN;
  if (adminToken && timingSafeEqual(token, adminToken)) {
    c.set('actor', { kind: 'operator' });
    return next();
  }

  // A site token (a JWT: API tokens never look like one) is verified on every request, without D1; which
  // operations admit it, and on which ids, is middleware/token-access's (defineRoute `siteToken`).
  if (looksLikeSiteToken(token)) {
    const payload = await verifySiteToken(c.env, token);
    if (!payload) throw new ApiError(401, 'Invalid or expired site token');
    c.set('actor', { kind: 'site', token: payload });
    return next();
  }

  const db = c.get('db');
  if (isIntegrationToken(token)) {
    const actor = await integrationTokenActor(db, token);
    if (!actor) throw new ApiError(401, 'Invalid or expired integration token');
    c.set('actor', actor);
    return next();
  }
  const hash = tokenHashes.get(token) ?? (await tokenHash(token));
  let row = cachedIdentity(hash);
  if (!row) {
    row = await identityOfTokenHash(db, hash);
    noteTokenLookup(db);
    if (!row) throw new ApiError(401, 'Invalid or revoked API token');
    rememberIdentity(hash, row);
  }

  // Coarse activity tracking (the token's lastUsedAt, the member's lastSeenAt in each organization):
  // at most one write per token per hour, off the response path.
  if (!row.lastUsedAt || Date.now() - Date.parse(row.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
    const now = nowIso();
    row.lastUsedAt = now;
    const write = recordTokenUse(db, row.tokenId, row.userId, now);
    try {
      c.executionCtx.waitUntil(write);
    } catch {
      await write;
    }
  }

  c.set('actor', { kind: 'user', userId: row.userId, email: row.email, emailVerified: row.emailVerified });
  await next();
});

/**
 * The calling user's id; the operator token is not a user. Integration and installation tokens act as
 * their integration's bot user: they reach a handler only through a route that admits them (defineRoute's
 * `tokens`), and the bot's roles come from the installation (services/access/access).
 */
export function requireUser(c: Context<AppBindings>): string {
  const actor = c.get('actor');
  if (actor.kind === 'visitor') throw new ApiError(401, 'Missing API token: send "Authorization: Bearer <token>"');
  if (actor.kind === 'site') throw new ApiError(403, SITE_TOKEN_REFUSED);
  if (actor.kind === 'operator') throw new ApiError(403, 'This operation needs a user API token, not the operator token');
  return actor.userId;
}

export function requireOperator(c: Context<AppBindings>): void {
  if (c.get('actor').kind !== 'operator') throw new ApiError(403, 'This operation needs the operator token (ADMIN_TOKEN)');
}
