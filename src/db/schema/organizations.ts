import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './identity';

export const organizations = sqliteTable(
  'organizations',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    createdAt: text('created_at').notNull(),
    emailDomains: text('email_domains', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /** A label: the organization's site at `<hostname>.<SITES_DOMAIN>` (services/organizations/organizations/hostnames). */
    hostname: text('hostname'),
    /** A domain of the organization's own, served once proved by DNS (`customHostnameVerifiedAt` set). */
    customHostname: text('custom_hostname'),
    /** The value the TXT record `_docs-platform-challenge.<customHostname>` must have. */
    customHostnameChallenge: text('custom_hostname_challenge'),
    customHostnameVerifiedAt: text('custom_hostname_verified_at'),
    /** When the pending claim was made: it expires after CUSTOM_HOSTNAME_PENDING_DAYS unless verified. */
    customHostnameClaimedAt: text('custom_hostname_claimed_at'),
    type: text('type').notNull().default('business'),
    useCase: text('use_case'),
    communityType: text('community_type'),
    /** Role rank given to members who join by email domain or without a role (0 = guest). */
    defaultRole: integer('default_role'),
    defaultContent: text('default_content', { mode: 'json' }).$type<{ type: 'site'; site: string } | null>(),
    logo: text('logo'),
    sso: integer('sso', { mode: 'boolean' }).notNull().default(false),
    ai: integer('ai', { mode: 'boolean' }).notNull().default(false),
    inviteLinks: integer('invite_links', { mode: 'boolean' }).notNull().default(true),
    mergeRules: text('merge_rules', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    // Usage the caps of services/limits are checked against. Triggers of migration 0011 keep the first four
    // with the writes that change them (spaces not in the trash, member rows, integrations it publishes (not unpublished ones),
    // installations in it); ingestion keeps the last two (conversations ingested on `conversations_day`, UTC).
    spaceCount: integer('space_count').notNull().default(0),
    memberCount: integer('member_count').notNull().default(0),
    /** Kept by triggers (migration 0116), as the space and member counters. */
    siteCount: integer('site_count').notNull().default(0),
    teamCount: integer('team_count').notNull().default(0),
    /** Kept by triggers (migration 0130): every collection, and those at the organization's root. */
    collectionCount: integer('collection_count').notNull().default(0),
    rootCollectionCount: integer('root_collection_count').notNull().default(0),
    integrationCount: integer('integration_count').notNull().default(0),
    installationCount: integer('installation_count').notNull().default(0),
    conversationsDay: text('conversations_day'),
    conversationsToday: integer('conversations_today').notNull().default(0),
  },
  (t) => [
    uniqueIndex('organizations_hostname_unique').on(t.hostname),
    // Unique among verified claims only: several organizations may hold one name pending (migration 0022).
    uniqueIndex('organizations_custom_hostname_verified_unique').on(t.customHostname).where(sql`${t.customHostnameVerifiedAt} is not null`),
    index('organizations_custom_hostname').on(t.customHostname),
  ],
);

export const orgMembers = sqliteTable(
  'org_members',
  {
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Role rank 1..6 (read..admin); 0 is a guest. */
    role: integer('role').notNull(),
    joinedAt: text('joined_at').notNull(),
    lastSeenAt: text('last_seen_at'),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    sso: integer('sso', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.userId] }),
    index('org_members_user').on(t.userId),
    index('org_members_joined').on(t.orgId, t.joinedAt, t.userId),
  ],
);

/** Email invitations held until a user with that email exists. */
export const orgEmailInvites = sqliteTable(
  'org_email_invites',
  {
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: integer('role').notNull(),
    sso: integer('sso', { mode: 'boolean' }).notNull().default(false),
    invitedBy: text('invited_by').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.email] }), index('org_email_invites_email').on(t.email)],
);

export const orgLinkInvites = sqliteTable(
  'org_link_invites',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    role: integer('role').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('org_link_invites_org').on(t.orgId, t.createdAt, t.id)],
);
