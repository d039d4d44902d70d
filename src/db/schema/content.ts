import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from './identity';
import { organizations } from './organizations';
import { teams } from './teams';

/**
 * `defaultLevel` is null for "inherit", 0 for guest (no default access), 1..6 for read..admin.
 * `accessCap` is the resolved level after walking the collection chain (root inherit = 6):
 * it is kept up to date by services/access-caps so that reads never walk the tree.
 */
export const collections = sqliteTable(
  'collections',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    parentId: text('parent_id'),
    title: text('title').notNull(),
    description: text('description'),
    defaultLevel: integer('default_level'),
    accessCap: integer('access_cap').notNull().default(6),
    position: real('position').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('collections_org').on(t.orgId, t.createdAt, t.id), index('collections_parent').on(t.parentId, t.position)],
);

export const spaces = sqliteTable(
  'spaces',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    parentId: text('parent_id'),
    title: text('title').notNull(),
    emoji: text('emoji').notNull().default(''),
    visibility: text('visibility').notNull().default('private'),
    editMode: text('edit_mode').notNull().default('live'),
    mergeRules: text('merge_rules', { mode: 'json' })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{"type":"inherit"}'`),
    language: text('language'),
    defaultLevel: integer('default_level'),
    accessCap: integer('access_cap').notNull().default(6),
    position: real('position').notNull(),
    revisionId: text('revision_id').notNull(),
    commentsCount: integer('comments_count').notNull().default(0),
    changeRequestsCount: integer('change_requests_count').notNull().default(0),
    changeRequestsOpen: integer('change_requests_open').notNull().default(0),
    changeRequestsDraft: integer('change_requests_draft').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    deletedAt: text('deleted_at'),
  },
  (t) => [
    index('spaces_org').on(t.orgId, t.createdAt, t.id),
    index('spaces_parent').on(t.parentId, t.position),
    index('spaces_deleted').on(t.deletedAt),
  ],
);

/** An immutable snapshot of a space's content; the content engine fills in its manifest. */
export const revisions = sqliteTable(
  'revisions',
  {
    id: text('id').primaryKey(),
    spaceId: text('space_id').notNull(),
    parents: text('parents', { mode: 'json' }).$type<string[]>().notNull().default([]),
    type: text('type').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('revisions_space').on(t.spaceId)],
);

export const spaceUserGrants = sqliteTable(
  'space_user_grants',
  {
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: integer('role').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.spaceId, t.userId] }), index('space_user_grants_user').on(t.userId)],
);

export const spaceTeamGrants = sqliteTable(
  'space_team_grants',
  {
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    role: integer('role').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.spaceId, t.teamId] }), index('space_team_grants_team').on(t.teamId)],
);
