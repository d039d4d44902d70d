import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    displayName: text('display_name').notNull(),
    email: text('email').notNull(),
    // Operator-created users arrive with an email the operator vouches for.
    emailVerified: integer('email_verified', { mode: 'boolean' }).notNull().default(true),
    photoURL: text('photo_url'),
    createdAt: text('created_at').notNull(),
    /**
     * The SAML provider whose login created this user (services/sso): only that provider's assertions log the user
     * in again. An account made any other way is never logged in by an organization's identity provider, which
     * could otherwise assert any email and take over someone else's account.
     */
    ssoProviderId: text('sso_provider_id'),
  },
  // An SSO user is an identity of its provider, not the owner of its email: a normal account and each provider's
  // user of one email are separate users (services/sso/login).
  (t) => [
    uniqueIndex('users_email_unique').on(t.email).where(sql`sso_provider_id is null`),
    uniqueIndex('users_sso_email_unique').on(t.ssoProviderId, t.email).where(sql`sso_provider_id is not null`),
  ],
);

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    label: text('label'),
    // Only the SHA-256 of the token is ever stored.
    hash: text('hash').notNull(),
    prefix: text('prefix').notNull(),
    createdAt: text('created_at').notNull(),
    lastUsedAt: text('last_used_at'),
  },
  (t) => [uniqueIndex('api_tokens_hash_unique').on(t.hash), index('api_tokens_user').on(t.userId, t.createdAt)],
);
