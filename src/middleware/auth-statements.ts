import type { Db } from '../db/client';
import { boundValues, constantGet, constantStatement } from '../db/constant-select';
import { IDENTITY, MEMBER_LAST_SEEN, TOKEN_IDENTITY, TOKEN_LAST_USED } from './auth-statements.generated';
import type { CachedIdentity } from './identity-cache';

/**
 * The auth middleware's statements in constant SQL (db/constant-select): building the token lookup with drizzle on an
 * isolate's first request was about a seventh of a cold page read's CPU (test/bench/profile.ts --cold, issue 42 item 7).
 * Each text, and the lookup's row mapping, is generated from its drizzle query (auth-statements.generated.ts, by
 * src/cli/constant-sql.ts).
 */

export const TOKEN_IDENTITY_SQL = TOKEN_IDENTITY.text;
export const TOKEN_LAST_USED_SQL = TOKEN_LAST_USED.text;
export const MEMBER_LAST_SEEN_SQL = MEMBER_LAST_SEEN.text;

/** The identity of an API token's hash, or undefined for no such token. */
export function identityOfTokenHash(db: Db, hash: string): Promise<CachedIdentity | undefined> {
  return constantGet(db, TOKEN_IDENTITY.text, boundValues(TOKEN_IDENTITY, { hash }), IDENTITY.row);
}

/** The token's lastUsedAt and its user's lastSeenAt in every organization, set to `now` in one batch. */
export function recordTokenUse(db: Db, tokenId: string, userId: string, now: string) {
  return db.$client.batch([
    constantStatement(db, TOKEN_LAST_USED.text, boundValues(TOKEN_LAST_USED, { now, tokenId })),
    constantStatement(db, MEMBER_LAST_SEEN.text, boundValues(MEMBER_LAST_SEEN, { now, userId })),
  ]);
}
