import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { spaces } from './content';
import { users } from './identity';
import { teams } from './teams';
import { organizations } from './organizations';

/**
 * A docs site and the settings that have one value per site. `structureVersion` guards writes to
 * the structure (sections, groups, site spaces): every structure write bumps it from the version it
 * read, so two concurrent edits cannot both apply and break the one-default invariants.
 */
export const sites = sqliteTable(
  'sites',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type').notNull().default('basic'),
    title: text('title').notNull(),
    visibility: text('visibility').notNull().default('public'),
    published: integer('published', { mode: 'boolean' }).notNull().default(false),
    basename: text('basename').notNull(),
    proxy: text('proxy'),
    adaptiveContent: integer('adaptive_content', { mode: 'boolean' }).notNull().default(false),
    agentsContext: text('agents_context').notNull().default('included'),
    defaultLevel: integer('default_level'),
    customization: text('customization', { mode: 'json' }).$type<Record<string, unknown>>(),
    customizationUpdatedAt: text('customization_updated_at'),
    adaptiveSchema: text('adaptive_schema', { mode: 'json' }).$type<Record<string, unknown>>(),
    adaptiveSchemaUpdatedAt: text('adaptive_schema_updated_at'),
    /** HS256 secret that signs visitor-auth JWTs (shown to admins as `privateKey`). */
    authKey: text('auth_key').notNull(),
    authFallbackUrl: text('auth_fallback_url'),
    authLogoutUrl: text('auth_logout_url'),
    structureVersion: integer('structure_version').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('sites_org').on(t.orgId, t.createdAt, t.id), uniqueIndex('sites_org_basename').on(t.orgId, t.basename)],
);

/** Section groups nest through `parentId` (null: the site's root). */
export const siteSectionGroups = sqliteTable(
  'site_section_groups',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    parentId: text('parent_id'),
    title: text('title').notNull(),
    icon: text('icon'),
    position: real('position').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('site_section_groups_site').on(t.siteId)],
);

export const siteSections = sqliteTable(
  'site_sections',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    groupId: text('group_id'),
    title: text('title').notNull(),
    description: text('description'),
    icon: text('icon'),
    path: text('path').notNull(),
    condition: text('condition'),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    position: real('position').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('site_sections_site').on(t.siteId)],
);

/** A space published in a site: at the site's root (`sectionId` null) or in a section. */
export const siteSpaces = sqliteTable(
  'site_spaces',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    sectionId: text('section_id'),
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    title: text('title'),
    condition: text('condition'),
    hidden: integer('hidden', { mode: 'boolean' }).notNull().default(false),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    position: real('position').notNull(),
    /** The site space's override of the site's customization (null: none). */
    customization: text('customization', { mode: 'json' }).$type<Record<string, unknown>>(),
    customizationUpdatedAt: text('customization_updated_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('site_spaces_site').on(t.siteId), index('site_spaces_space').on(t.spaceId)],
);

/** Secret links that open a `share-link` site; `key` travels in URLs as `shareKey`. */
export const siteShareLinks = sqliteTable(
  'site_share_links',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    key: text('key').notNull(),
    active: integer('active', { mode: 'boolean' }).notNull().default(true),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('site_share_links_site').on(t.siteId, t.createdAt, t.id), uniqueIndex('site_share_links_key').on(t.key)],
);

/**
 * Makes a structure write abort (and its whole batch roll back) when the site's structure changed
 * since it was read: the guarded insert violates the CHECK unless the version bump just applied.
 */
export const siteStructureGuard = sqliteTable(
  'site_structure_guard',
  { ok: integer('ok').notNull() },
  (t) => [check('site_structure_guard_ok', sql`${t.ok} = 1`)],
);

/**
 * A site's redirects (GitBook's SiteRedirect): `source` is a path of the site (ending in `*` for a prefix),
 * `destination` a SiteRedirectDestination. `sortedAt` is the last change (updated, else created).
 */
export const siteRedirects = sqliteTable(
  'site_redirects',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    draft: integer('draft', { mode: 'boolean' }).notNull().default(false),
    captureWildcard: integer('capture_wildcard', { mode: 'boolean' }).notNull().default(false),
    permanent: integer('permanent', { mode: 'boolean' }).notNull().default(false),
    destination: text('destination', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at'),
    sortedAt: text('sorted_at').notNull(),
  },
  (t) => [uniqueIndex('site_redirects_source').on(t.siteId, t.draft, t.source), index('site_redirects_created').on(t.siteId, t.createdAt, t.id)],
);

/** A user's role on a site (the site, unpublished too, and the spaces it links; migration 0080). */
export const siteUserGrants = sqliteTable(
  'site_user_grants',
  {
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: integer('role').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.userId] }), index('site_user_grants_user').on(t.userId), index('site_user_grants_listed').on(t.siteId, t.createdAt, t.userId)],
);

/** A team's role on a site (the site, unpublished too, and the spaces it links; migration 0080). */
export const siteTeamGrants = sqliteTable(
  'site_team_grants',
  {
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    role: integer('role').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.teamId] }), index('site_team_grants_team').on(t.teamId), index('site_team_grants_listed').on(t.siteId, t.createdAt, t.teamId)],
);
