import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { spaces } from './content';
import { users } from './identity';
import { organizations } from './organizations';
import { sites } from './sites';

/**
 * A published integration: its manifest (the JSON columns, as published) and the current version's
 * assets in R2 (`iconKey`, `previewKeys`, `scriptKey`). `secrets` are AES-GCM ciphertext, never read
 * back by an API route. `botUserId` is the user its integration tokens act as; it is never a member of
 * any organization and has no role anywhere (each installation has a bot user of its own).
 */
export const integrations = sqliteTable(
  'integrations',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    ownerOrgId: text('owner_org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    botUserId: text('bot_user_id')
      .notNull()
      .references(() => users.id),
    version: integer('version').notNull().default(1),
    runtime: text('runtime').notNull().default('v1'),
    title: text('title').notNull(),
    description: text('description').notNull(),
    summary: text('summary'),
    visibility: text('visibility').notNull().default('private'),
    target: text('target').notNull().default('all'),
    verified: integer('verified', { mode: 'boolean' }).notNull().default(false),
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    categories: text('categories', { mode: 'json' }).$type<string[]>().notNull(),
    blocks: text('blocks', { mode: 'json' }).$type<unknown[]>().notNull(),
    contentSources: text('content_sources', { mode: 'json' }).$type<unknown[]>().notNull(),
    externalLinks: text('external_links', { mode: 'json' }).$type<unknown[]>().notNull(),
    configurations: text('configurations', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    contentSecurityPolicy: text('content_security_policy'),
    iconKey: text('icon_key'),
    previewKeys: text('preview_keys', { mode: 'json' }).$type<string[]>().notNull(),
    scriptKey: text('script_key'),
    /** AES-GCM ciphertext of the secrets map (base64 of iv + ciphertext); null when none. */
    secrets: text('secrets'),
    /**
     * AES-GCM ciphertext of the integration's own signing secret (GitBook's `signingSecrets.integration`), made
     * at its first publish and handed to its script with every event; null for one published before migration 0016
     * until its next publish or delivery.
     */
    signingSecret: text('signing_secret'),
    /** Development mode: events are also sent to this tunnel URL (the owner's, or everyone's when `devAll`). */
    devTunnelUrl: text('dev_tunnel_url'),
    devAll: integer('dev_all', { mode: 'boolean' }).notNull().default(false),
    /** Event types whose delivery the script answered 406 (not handled), by type: the version that did (migration 0021). */
    unhandledEvents: text('unhandled_events', { mode: 'json' }).$type<Record<string, number>>(),
    /**
     * Set by unpublish: the row stays (invisible to every read) until the installation_deleted events
     * it sent are delivered to its script; the hourly cron purges it after a week, and publishing the
     * name again replaces it.
     */
    deletedAt: text('deleted_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('integrations_name_unique').on(t.name), index('integrations_owner').on(t.ownerOrgId)],
);

/**
 * An integration installed on an organization (one per pair). Its tokens act as its own bot user
 * (`botUserId`, one per installation, never a member of any organization), so the roles that user gets
 * (services/access/access) come from this installation alone and can never reach another organization's
 * installation of the same integration. `approvedScopes` are the scopes its organization's admins consented
 * to: its tokens carry only those of the integration's scopes (a publish asking for more leaves it
 * `pending` until an admin installs it again; one asking for fewer narrows them at once). `spaceRole` is
 * the role rank its tokens get on the spaces it covers, derived from those scopes.
 * `signingSecret` (ciphertext) signs its HTTP deliveries; it is shown once, at installation.
 */
export const integrationInstallations = sqliteTable(
  'integration_installations',
  {
    id: text('id').primaryKey(),
    integrationId: text('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    botUserId: text('bot_user_id')
      .notNull()
      .references(() => users.id),
    status: text('status').notNull().default('active'),
    spaceSelection: text('space_selection').notNull().default('selected'),
    siteSelection: text('site_selection').notNull().default('selected'),
    spaceRole: integer('space_role').notNull().default(0),
    approvedScopes: text('approved_scopes', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /**
     * The Content-Security-Policy sources its organization approved (`directive source` pairs, site-scripts `cspGrants`);
     * null for an installation made before they were recorded: the integration's current policy (migration 0023).
     */
    approvedCsp: text('approved_csp', { mode: 'json' }).$type<string[] | null>(),
    configuration: text('configuration', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    externalIds: text('external_ids', { mode: 'json' }).$type<string[]>().notNull(),
    signingSecret: text('signing_secret').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('integration_installations_pair').on(t.integrationId, t.orgId),
    index('integration_installations_org').on(t.orgId, t.createdAt, t.id),
    index('integration_installations_list').on(t.integrationId, t.createdAt, t.id),
    uniqueIndex('integration_installations_bot').on(t.botUserId),
  ],
);

/** What an installation extended to one space or site holds besides the pair: its own state and settings. */
const contentInstallationColumns = () => ({
  installationId: text('installation_id')
    .notNull()
    .references(() => integrationInstallations.id, { onDelete: 'cascade' }),
  status: text('status').notNull().default('active'),
  configuration: text('configuration', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  externalIds: text('external_ids', { mode: 'json' }).$type<string[]>().notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/** An installation extended to one space (`space_selection: selected`), with its own configuration. */
export const integrationSpaceInstallations = sqliteTable(
  'integration_space_installations',
  {
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    ...contentInstallationColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.installationId, t.spaceId] }),
    index('integration_space_installations_space').on(t.spaceId),
    index('integration_space_installations_list').on(t.installationId, t.createdAt, t.spaceId),
  ],
);

/** An installation extended to one site. */
export const integrationSiteInstallations = sqliteTable(
  'integration_site_installations',
  {
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    ...contentInstallationColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.installationId, t.siteId] }),
    index('integration_site_installations_site').on(t.siteId),
    index('integration_site_installations_list').on(t.installationId, t.createdAt, t.siteId),
  ],
);

/**
 * Short-lived tokens (only their SHA-256 stored): an integration token (`installationId` null) acts
 * for the integration itself, an installation token for one installation within its scopes.
 */
export const integrationTokens = sqliteTable(
  'integration_tokens',
  {
    hash: text('hash').primaryKey(),
    integrationId: text('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    installationId: text('installation_id').references(() => integrationInstallations.id, { onDelete: 'cascade' }),
    expiresAt: text('expires_at').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('integration_tokens_expiry').on(t.expiresAt)],
);

/**
 * One event for one installation. It outlives its installation (an `installation_deleted` event is
 * delivered after the installation is gone), so `installationId` is not a foreign key.
 * `status`: pending until delivered, then success or failed; `attempts` counts delivery attempts.
 */
export const integrationEvents = sqliteTable(
  'integration_events',
  {
    id: text('id').primaryKey(),
    integrationId: text('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    installationId: text('installation_id'),
    orgId: text('org_id').notNull(),
    type: text('type').notNull(),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** A consumer delivering the event holds it until then; a second copy of its message waits or skips. */
    leaseUntil: text('lease_until'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    index('integration_events_list').on(t.integrationId, t.createdAt, t.id),
    index('integration_events_pending').on(t.status, t.updatedAt),
  ],
);

/** The trace of an event: one line per thing that happened while delivering it, in order. */
export const integrationEventLogs = sqliteTable(
  'integration_event_logs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    eventId: text('event_id')
      .notNull()
      .references(() => integrationEvents.id, { onDelete: 'cascade' }),
    level: text('level').notNull(),
    message: text('message').notNull(),
    timestamp: text('timestamp').notNull(),
  },
  (t) => [index('integration_event_logs_event').on(t.eventId, t.id)],
);
