import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apiTokens, orgEmailInvites, orgMembers, users } from '../db/schema';
import { newId, randomBase62, sha256Hex } from '../lib/ids';
import { nowIso } from '../lib/time';

export const TOKEN_PREFIX = 'dpa_';

/** Creates a token; the plaintext is returned once and only its hash is stored. */
export async function issueToken(db: Db, userId: string, label: string | null) {
  const token = `${TOKEN_PREFIX}${randomBase62(40)}`;
  const row = {
    id: newId(),
    userId,
    label,
    hash: await sha256Hex(token),
    prefix: token.slice(0, TOKEN_PREFIX.length + 6),
    createdAt: nowIso(),
    lastUsedAt: null,
  };
  await db.insert(apiTokens).values(row).run();
  return { row, token };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * Creates a user and, in the same transaction, turns every invitation held for their email into a
 * membership, so an invite sent before the person had an account is honoured the moment they do.
 * Only for a verified email: an invitation is meant for the owner of the address, and an account
 * whose email nobody vouched for does not prove it (the same rule as joining by email domain).
 */
export async function createUser(db: Db, input: { displayName: string; email: string; emailVerified: boolean; photoURL?: string }) {
  const now = nowIso();
  const row = {
    id: newId(),
    displayName: input.displayName,
    email: normalizeEmail(input.email),
    emailVerified: input.emailVerified,
    photoURL: input.photoURL ?? null,
    createdAt: now,
  };
  const pending = row.emailVerified ? await db.select().from(orgEmailInvites).where(eq(orgEmailInvites.email, row.email)).all() : [];
  const memberships = pending.map((invite) => ({
    orgId: invite.orgId,
    userId: row.id,
    role: invite.role,
    joinedAt: now,
    sso: invite.sso,
  }));
  await db.batch([
    db.insert(users).values(row),
    ...memberships.map((m) => db.insert(orgMembers).values(m).onConflictDoNothing()),
    ...(row.emailVerified ? [db.delete(orgEmailInvites).where(eq(orgEmailInvites.email, row.email))] : []),
  ]);
  return { row, joinedOrganizations: memberships.map((m) => m.orgId) };
}
