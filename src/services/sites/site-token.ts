/**
 * Site tokens: what `resolvePublishedContentByUrl` hands a published site's renderer (GitBook's open-source
 * renderer decodes it without checking the signature, then sends it as the bearer of every later call).
 *
 * - A JWT signed HS256 with SITE_TOKENS_KEY, a secret of its own (never ADMIN_TOKEN, FILES_SIGNING_KEY or
 *   INTEGRATIONS_KEY, and no fallback to them): unset, issuing one answers 503 naming it, and a request that
 *   carries one is refused (503 too: nothing can verify it).
 * - Its payload is GitBook's `SiteAPIToken`: `kind: "site"`, the organization, site, site section, site space
 *   and space it resolved, `spaces` (every space of the site the visitor may open), the visitor's `claims`
 *   (from their visitor-auth token, checked against the site's adaptive schema) and `visitorType`; with `iss`,
 *   `aud`, `iat` and `exp`; and `siteUrl`, the site's root as the visitor reached it.
 * - Short-lived: `SITE_TOKEN_TTL_SECONDS` (one hour), never beyond the visitor-auth token it carries the claims
 *   of. Verified on every use (middleware/auth): signature, algorithm, issuer, audience, expiry, shape.
 * - Read-only and scoped: it reaches only the operations that admit it (lib/create-router `siteToken: true`),
 *   and there only its own organization, site and spaces (middleware/token-access); handlers read as the
 *   visitor it stands for (`siteTokenOf`), and check that the site is still published.
 */
import { and, eq } from 'drizzle-orm';
import { SignJWT, jwtVerify } from 'jose';
import type { Context } from 'hono';
import type { Db } from '../../db/client';
import { sites, siteSpaces } from '../../db/schema';
import type { AppBindings, Env } from '../../env';
import { ApiError } from '../../lib/errors';

/** One hour: the renderer asks again (resolve answers on every request) long before it would matter. */
export const SITE_TOKEN_TTL_SECONDS = 60 * 60;
const ALGORITHM = 'HS256';
const ISSUER = 'docs-platform';
const AUDIENCE = 'site';
const TYPE = 'site+jwt';
/** Longer bearers are not parsed as site tokens (a site of many spaces stays far below). */
const MAX_LENGTH = 16 * 1024;
export const SITE_TOKEN_REFUSED = 'Site tokens may only read the published content of their site, through the operations that admit them';
export const NO_SITE_TOKENS_KEY_MESSAGE = 'Site tokens are not configured on this deployment: set the SITE_TOKENS_KEY secret';

/** GitBook's `SiteAPIToken`, as we sign it. */
export interface SiteTokenPayload {
  kind: 'site';
  organization: string;
  site: string;
  siteSection?: string;
  siteSpace: string;
  space: string;
  /** Every space of the site the visitor may open: what the token may read. */
  spaces: string[];
  claims: Record<string, unknown>;
  visitorType: 'human' | 'agent';
  /**
   * The site's root as the visitor reached it (the resolved URL's origin and site base path, with a share key
   * segment): published URLs read with the token are built on it, so that they lead where the renderer
   * serves the site (services/sites/present `siteUrlContext`). Not in GitBook's `SiteAPIToken`.
   */
  siteUrl?: string;
  exp: number;
  iat: number;
}

function keyOf(env: Pick<Env, 'SITE_TOKENS_KEY'>): Uint8Array {
  const key = env.SITE_TOKENS_KEY;
  if (!key) throw new ApiError(503, NO_SITE_TOKENS_KEY_MESSAGE);
  return new TextEncoder().encode(key);
}

/** A bearer shaped like a JWT (`eyJ...` in three base64url parts): API tokens never are. */
export function looksLikeSiteToken(token: string): boolean {
  return token.length <= MAX_LENGTH && /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/** Signs a site token valid for `SITE_TOKEN_TTL_SECONDS`, or until `notAfter` (seconds) when sooner. */
export async function issueSiteToken(
  env: Pick<Env, 'SITE_TOKENS_KEY'>,
  content: Omit<SiteTokenPayload, 'exp' | 'iat'>,
  notAfter?: number,
): Promise<{ token: string; payload: SiteTokenPayload }> {
  const key = keyOf(env);
  const iat = Math.floor(Date.now() / 1000);
  const exp = Math.min(iat + SITE_TOKEN_TTL_SECONDS, notAfter ?? Infinity);
  const payload: SiteTokenPayload = { ...content, iat, exp };
  const token = await new SignJWT({ ...payload })
    .setProtectedHeader({ alg: ALGORITHM, typ: TYPE })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .sign(key);
  return { token, payload };
}

/** The longest `siteUrl` a token carries. */
export const MAX_SITE_URL = 2048;
const isSiteUrl = (value: unknown): value is string => typeof value === 'string' && value.length <= MAX_SITE_URL && /^https?:\/\//.test(value) && URL.canParse(value);
const isString = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 128;

/** The payload of a site token this deployment signed and that has not expired; null otherwise. Throws 503 without the key. */
export async function verifySiteToken(env: Pick<Env, 'SITE_TOKENS_KEY'>, token: string): Promise<SiteTokenPayload | null> {
  const key = keyOf(env);
  if (!looksLikeSiteToken(token)) return null;
  try {
    const { payload, protectedHeader } = await jwtVerify(token, key, {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
      requiredClaims: ['exp', 'iat'],
      typ: TYPE,
    });
    if (protectedHeader.typ !== TYPE || payload.kind !== 'site') return null;
    const { organization, site, siteSpace, space, spaces, claims, siteSection, siteUrl } = payload as Record<string, unknown>;
    if (siteUrl !== undefined && !isSiteUrl(siteUrl)) return null;
    if (![organization, site, siteSpace, space].every(isString)) return null;
    if (siteSection !== undefined && !isString(siteSection)) return null;
    if (!Array.isArray(spaces) || !spaces.every(isString) || !spaces.includes(space as string)) return null;
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return null;
    return payload as unknown as SiteTokenPayload;
  } catch {
    return null;
  }
}

/** The site token the request was made with, or null (any other caller). */
export function siteTokenOf(c: Context<AppBindings>): SiteTokenPayload | null {
  const actor = c.get('actor');
  return actor.kind === 'site' ? actor.token : null;
}

/**
 * For a handler admitting site tokens: one row when the token's site is still published and still has
 * `spaceId` (put it in the handler's own batch). The token was valid when issued; this is what may have
 * changed since (an unpublished site, a space taken out of it).
 */
export function siteTokenSpaceQuery(db: Db, token: SiteTokenPayload, spaceId: string) {
  return db
    .select({ id: siteSpaces.id })
    .from(siteSpaces)
    .innerJoin(sites, eq(sites.id, siteSpaces.siteId))
    .where(and(eq(siteSpaces.siteId, token.site), eq(siteSpaces.spaceId, spaceId), eq(sites.orgId, token.organization), eq(sites.published, true)))
    .limit(1);
}
