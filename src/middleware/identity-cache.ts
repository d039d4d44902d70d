/**
 * Which user a token belongs to, remembered by this isolate for a few seconds so that a warm read
 * costs the one D1 round trip of its own batch instead of two. Only identity is cached: every route
 * still reads the caller's roles from D1 in its own query, so a removed member or a changed role takes
 * effect at once. A token revoked through this isolate is forgotten at once; one revoked through
 * another isolate keeps working there for at most `IDENTITY_TTL_MS`.
 */
export const IDENTITY_TTL_MS = 30_000;
const MAX_ENTRIES = 5_000;

export interface CachedIdentity {
  tokenId: string;
  userId: string;
  email: string;
  emailVerified: boolean;
  lastUsedAt: string | null;
}

const entries = new Map<string, { identity: CachedIdentity; expires: number }>();

/** The identity of a token hash, if this isolate looked it up less than `IDENTITY_TTL_MS` ago. */
export function cachedIdentity(hash: string, now = Date.now()): CachedIdentity | undefined {
  const entry = entries.get(hash);
  if (!entry) return undefined;
  if (entry.expires <= now) {
    entries.delete(hash);
    return undefined;
  }
  return entry.identity;
}

export function rememberIdentity(hash: string, identity: CachedIdentity, now = Date.now()): void {
  entries.delete(hash);
  // Oldest first (insertion order): a full cache drops the entry looked up longest ago.
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(hash, { identity, expires: now + IDENTITY_TTL_MS });
}

/** Forgets a revoked token. */
export function forgetToken(tokenId: string): void {
  for (const [hash, { identity }] of entries) if (identity.tokenId === tokenId) entries.delete(hash);
}
