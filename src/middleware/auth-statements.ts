import type { Db } from '../db/client';
import { constantGet, constantStatement, fieldRows } from '../db/constant-select';
import { apiTokens, users } from '../db/schema';
import type { CachedIdentity } from './identity-cache';

/**
 * The auth middleware's statements in constant SQL (db/constant-select): building the token lookup with drizzle on an
 * isolate's first request was about a seventh of a cold page read's CPU (test/bench/profile.ts --cold, issue 42 item 7).
 * Each text is the one drizzle builds for the same query (test/platform/auth-statements.test.ts).
 */

/** The token's row and its user's identity, in drizzle's order (`select({ tokenId: apiTokens.id, ... })`). */
const identity = fieldRows<CachedIdentity>({
  tokenId: apiTokens.id,
  lastUsedAt: apiTokens.lastUsedAt,
  userId: users.id,
  email: users.email,
  emailVerified: users.emailVerified,
});

export const TOKEN_IDENTITY_SQL = `select ${identity.columns} from "api_tokens" inner join "users" on "users"."id" = "api_tokens"."user_id" where "api_tokens"."hash" = ?`;
export const TOKEN_LAST_USED_SQL = `update "api_tokens" set "last_used_at" = ? where "api_tokens"."id" = ?`;
export const MEMBER_LAST_SEEN_SQL = `update "org_members" set "last_seen_at" = ? where "org_members"."user_id" = ?`;

/** The identity of an API token's hash, or undefined for no such token. */
export function identityOfTokenHash(db: Db, hash: string): Promise<CachedIdentity | undefined> {
  return constantGet(db, TOKEN_IDENTITY_SQL, [hash], identity.row);
}

/** The token's lastUsedAt and its user's lastSeenAt in every organization, set to `now` in one batch. */
export function recordTokenUse(db: Db, tokenId: string, userId: string, now: string) {
  return db.$client.batch([constantStatement(db, TOKEN_LAST_USED_SQL, [now, tokenId]), constantStatement(db, MEMBER_LAST_SEEN_SQL, [now, userId])]);
}
