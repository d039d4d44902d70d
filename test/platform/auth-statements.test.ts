/**
 * The auth middleware's statements in constant SQL (middleware/auth-statements, db/constant-select) are the ones drizzle
 * builds for the same queries (as auth.ts built them before): the same text and values, and the same rows, objects as
 * drizzle maps them (a verified and an unverified user's boolean, a token never used); recording a token's use sets its
 * row and its user's memberships, and nobody else's.
 */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { apiTokens, orgMembers, users } from '../../src/db/schema';
import { sha256Hex } from '../../src/lib/ids';
import {
  identityOfTokenHash,
  MEMBER_LAST_SEEN_SQL,
  recordTokenUse,
  TOKEN_IDENTITY_SQL,
  TOKEN_LAST_USED_SQL,
} from '../../src/middleware/auth-statements';
import { createUser, seedOrg } from '../helpers/harness';

const db = () => createDb(env.DB);

/** The token lookup as drizzle builds it (auth.ts before its statements were written out). */
const drizzleLookup = (hash: string) =>
  db()
    .select({ tokenId: apiTokens.id, lastUsedAt: apiTokens.lastUsedAt, userId: users.id, email: users.email, emailVerified: users.emailVerified })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(eq(apiTokens.hash, hash));

describe("the auth middleware's statements in constant SQL", () => {
  it('are the SQL drizzle builds', () => {
    expect(drizzleLookup('h').toSQL()).toEqual({ sql: TOKEN_IDENTITY_SQL, params: ['h'] });
    expect(db().update(apiTokens).set({ lastUsedAt: 'now' }).where(eq(apiTokens.id, 't')).toSQL()).toEqual({ sql: TOKEN_LAST_USED_SQL, params: ['now', 't'] });
    expect(db().update(orgMembers).set({ lastSeenAt: 'now' }).where(eq(orgMembers.userId, 'u')).toSQL()).toEqual({ sql: MEMBER_LAST_SEEN_SQL, params: ['now', 'u'] });
  });

  it('answer the identity drizzle maps, for a verified and an unverified user, and nothing for an unknown token', async () => {
    const verified = await createUser();
    const unverified = await createUser({ emailVerified: false });
    for (const user of [verified, unverified]) {
      const hash = await sha256Hex(user.token);
      const expected = await drizzleLookup(hash).get();
      expect(await identityOfTokenHash(db(), hash)).toEqual(expected);
      expect(expected).toMatchObject({ userId: user.id, email: user.email, emailVerified: user === verified, lastUsedAt: null });
    }
    expect(await drizzleLookup(await sha256Hex('no-such-token')).get()).toBeUndefined();
    expect(await identityOfTokenHash(db(), await sha256Hex('no-such-token'))).toBeUndefined();
  });

  it("record a token's use on its row and its user's memberships only", async () => {
    const org = await seedOrg();
    const owner = org.owner;
    const other = Object.values(org.members).find((member) => member.id !== owner.id)!;
    const hash = await sha256Hex(owner.token);
    const identity = (await identityOfTokenHash(db(), hash))!;
    const now = new Date(Date.UTC(2026, 0, 2, 3, 4, 5)).toISOString();
    await recordTokenUse(db(), identity.tokenId, identity.userId, now);

    expect((await identityOfTokenHash(db(), hash))!.lastUsedAt).toBe(now);
    const seen = (userId: string) =>
      db().select({ lastSeenAt: orgMembers.lastSeenAt }).from(orgMembers).where(and(eq(orgMembers.orgId, org.id), eq(orgMembers.userId, userId))).get();
    expect(await seen(owner.id)).toEqual({ lastSeenAt: now });
    expect((await seen(other.id))?.lastSeenAt).not.toBe(now);
    expect((await identityOfTokenHash(db(), await sha256Hex(other.token)))!.lastUsedAt).not.toBe(now);
  });
});
