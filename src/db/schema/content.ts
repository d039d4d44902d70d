import { sql } from 'drizzle-orm';
import { customType, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
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

/** GitBook's `GitSyncState` as a space carries it (`Space.gitSync`). */
export interface SpaceGitSync {
  repoName?: string;
  installationProvider?: 'github' | 'gitlab' | 'github-legacy';
  integration?: string;
  url?: string;
  updatedAt?: string;
}

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
    /**
     * Moved by triggers (migration 0168) with every write to the space's change requests and their creators' names:
     * whether a change-request list an isolate holds is the space's now (services/content/change-request-lists).
     * Never written by the Worker.
     */
    changeRequestsVersion: integer('change_requests_version').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    deletedAt: text('deleted_at'),
    /** GitBook's `Space.gitSync`, once an operation of Git Sync succeeded (migration 0041, services/git-sync). */
    gitSync: text('git_sync', { mode: 'json' }).$type<SpaceGitSync>(),
  },
  (t) => [
    index('spaces_org').on(t.orgId, t.createdAt, t.id),
    index('spaces_parent').on(t.parentId, t.position),
    index('spaces_deleted').on(t.deletedAt),
  ],
);

/**
 * An immutable snapshot of a space's content: the roots of its page map and file map (persistent
 * tries of content-addressed nodes in `documents`, services/content/tree), with their sizes, and
 * its variables and reusable contents (`meta`). `manifest` is the whole-tree form that revisions had
 * before migration 0003 converted them; it is kept as it was and no longer read or written.
 */
export const revisions = sqliteTable(
  'revisions',
  {
    id: text('id').primaryKey(),
    spaceId: text('space_id').notNull(),
    parents: text('parents', { mode: 'json' }).$type<string[]>().notNull().default([]),
    type: text('type').notNull(),
    manifest: text('manifest').notNull().default('{"pages":[],"files":[],"variables":{},"reusableContents":[]}'),
    pagesRoot: text('pages_root'),
    filesRoot: text('files_root'),
    meta: text('meta'),
    pageCount: integer('page_count').notNull().default(0),
    fileCount: integer('file_count').notNull().default(0),
    /** The change request this revision merged (type `merge`). */
    mergedFrom: text('merged_from'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('revisions_space').on(t.spaceId)],
);

/** A document's body: JSON text, or (a page document or reusable content since migration 0052) a packed BLOB. */
/** A document's body as D1 hands it back: JSON text, or packed bytes (services/content/packed-documents.ts). */
export type StoredBody = string | ArrayBuffer | ArrayBufferView | number[];

const storedBody = customType<{ data: StoredBody; driverData: StoredBody; notNull: true }>({ dataType: () => 'text' });

/**
 * Content-addressed objects: page documents and the nodes of revisions' page and file maps. `hash`
 * is the SHA-256 of the canonical JSON, except for the nodes migration 0003 wrote (`legacy:...`).
 * Shared by revisions and spaces. `markdown` is no longer written (migration 0051 emptied it: a page is stored in
 * one form, its JSON document, and reads derive its Markdown); it is always null. Since migration 0052 a page
 * document's `body` is its JSON packed (services/content/packed-documents) and `refs` what statements look up
 * inside it; nodes and older documents keep a JSON body and no refs.
 */
export const documents = sqliteTable('documents', {
  hash: text('hash').primaryKey(),
  body: storedBody('body').notNull(),
  markdown: text('markdown'),
  createdAt: text('created_at').notNull(),
  refs: text('refs'),
  /** A delta's base (migration 0162): the whole document its body is the difference from; null for a whole body. */
  base: text('base'),
});

/**
 * Which spaces refer to which documents (through any of their revisions): written with each new
 * document, so the purge finds the documents no other space uses with an indexed lookup.
 */
export const spaceDocuments = sqliteTable(
  'space_documents',
  {
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
  },
  (t) => [primaryKey({ columns: [t.spaceId, t.hash] }), index('space_documents_hash').on(t.hash)],
);

export const changeRequests = sqliteTable(
  'change_requests',
  {
    id: text('id').primaryKey(),
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    status: text('status').notNull(),
    subject: text('subject').notNull().default(''),
    description: text('description', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdBy: text('created_by').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /** Head of the change request's own content. */
    revisionId: text('revision_id').notNull(),
    revisionInitial: text('revision_initial').notNull(),
    revisionMergedAncestor: text('revision_merged_ancestor'),
    revisionMerged: text('revision_merged'),
    commentsCount: integer('comments_count').notNull().default(0),
    /** The conversations issues cluster the change request addresses (its tasks: services/conversations), if any. */
    conversationsIssuesCluster: text('conversations_issues_cluster'),
    /**
     * Its space's organization, kept by triggers (migration 0070: set on insert, moved with a transferred space):
     * what the organization-wide list reads a page along. Never written by the Worker.
     */
    orgId: text('org_id'),
  },
  (t) => [
    uniqueIndex('change_requests_number').on(t.spaceId, t.number),
    index('change_requests_cluster').on(t.conversationsIssuesCluster),
    index('change_requests_space_status').on(t.spaceId, t.status, t.updatedAt, t.id),
    index('change_requests_creator').on(t.createdBy),
    index('change_requests_org_updated').on(t.orgId, t.status, t.updatedAt, t.id),
    index('change_requests_org_created').on(t.orgId, t.status, t.createdAt, t.id),
  ],
);

/** Who edited a change request's content (its creator included): the `contributor` filter. */
export const changeRequestContributors = sqliteTable(
  'change_request_contributors',
  {
    changeRequestId: text('change_request_id')
      .notNull()
      .references(() => changeRequests.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    /** How many content batches of theirs the change request has (migration 0100). */
    edits: integer('edits').notNull().default(0),
    /** When they last edited it (their first contribution: creating it). */
    updatedAt: text('updated_at'),
  },
  (t) => [primaryKey({ columns: [t.changeRequestId, t.userId] }), index('change_request_contributors_user').on(t.userId)],
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

/** A user's role on a collection and on everything nested in it (migration 0080). */
export const collectionUserGrants = sqliteTable(
  'collection_user_grants',
  {
    collectionId: text('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: integer('role').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.collectionId, t.userId] }),
    index('collection_user_grants_user').on(t.userId),
    index('collection_user_grants_listed').on(t.collectionId, t.createdAt, t.userId),
  ],
);

/** A team's role on a collection and on everything nested in it (migration 0080). */
export const collectionTeamGrants = sqliteTable(
  'collection_team_grants',
  {
    collectionId: text('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    role: integer('role').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.collectionId, t.teamId] }),
    index('collection_team_grants_team').on(t.teamId),
    index('collection_team_grants_listed').on(t.collectionId, t.createdAt, t.teamId),
  ],
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

/**
 * History collection (services/content/history.ts, migration 0110): when the collection last looked at a space, and
 * whether the documents its collected revisions alone referred to are still to be swept.
 */
export const historyCollections = sqliteTable('history_collections', {
  spaceId: text('space_id')
    .primaryKey()
    .references(() => spaces.id, { onDelete: 'cascade' }),
  collectedAt: text('collected_at').notNull(),
  documentsPending: integer('documents_pending', { mode: 'boolean' }).notNull().default(false),
});

/** Storage jobs that walk a table once in bounded steps (migration 0111: `pack-documents`), and where they are. */
export const storageJobs = sqliteTable('storage_jobs', {
  name: text('name').primaryKey(),
  cursor: text('cursor').notNull().default(''),
  doneAt: text('done_at'),
});
