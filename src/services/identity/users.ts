import { and, eq, sql } from 'drizzle-orm';
import { runBatch, type Db } from '../../db/client';
import { apiTokens, orgEmailInvites, users } from '../../db/schema/index';
import type { Env } from '../../env';
import { newId, randomBase62, sha256Hex } from '../../lib/ids';
import { nowIso } from '../../lib/time';
import { qualify } from '../access/access';
import { membersCapGuard } from '../organizations/members';

export const TOKEN_PREFIX = 'dpa_';

/** A new token's row and its plaintext, which is shown once: only its hash is stored. */
export async function newTokenRow(userId: string, label: string | null) {
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
  return { row, token };
}

/** Creates a token; the plaintext is returned once and only its hash is stored. */
export async function issueToken(db: Db, userId: string, label: string | null) {
  const issued = await newTokenRow(userId, label);
  await db.insert(apiTokens).values(issued.row).run();
  return issued;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/** A new user's row. */
export function newUserRow(input: { displayName: string; email: string; emailVerified: boolean; photoURL?: string }) {
  return {
    id: newId(),
    displayName: input.displayName,
    email: normalizeEmail(input.email),
    emailVerified: input.emailVerified,
    photoURL: input.photoURL ?? null,
    createdAt: nowIso(),
  };
}

/**
 * Creates a user and, in the same transaction, turns every invitation held for their email into a
 * membership, so an invite sent before the person had an account is honoured the moment they do.
 * Only for a verified email: an invitation is meant for the owner of the address, and an account
 * whose email nobody vouched for does not prove it (the same rule as joining by email domain).
 * An organization at its members cap (MAX_MEMBERS_PER_ORGANIZATION) does not take them: creating the
 * account is not the organization's to refuse, so that invitation stays held, and only the invitations
 * that became memberships are removed.
 */
export async function createUser(env: Env, db: Db, input: { displayName: string; email: string; emailVerified: boolean; photoURL?: string }) {
  const row = newUserRow(input);
  const now = row.createdAt;
  const pending = row.emailVerified ? await db.select().from(orgEmailInvites).where(eq(orgEmailInvites.email, row.email)).all() : [];
  const joins = pending.map((invite) =>
    membersCapGuard(db, env, invite.orgId, [row.id]).insert({ orgId: invite.orgId, userId: row.id, role: invite.role, joinedAt: now, sso: invite.sso }),
  );
  const results = await runBatch(db, [
    db.insert(users).values(row),
    ...joins,
    ...(joins.length
      ? [
          db
            .delete(orgEmailInvites)
            .where(and(eq(orgEmailInvites.email, row.email), sql`exists (select 1 from org_members m where m.org_id = ${qualify(orgEmailInvites.orgId)} and m.user_id = ${row.id})`)),
        ]
      : []),
  ]);
  const joined = (results.slice(1, 1 + joins.length) as { orgId: string }[][]).flat();
  return { row, joinedOrganizations: joined.map((m) => m.orgId) };
}
