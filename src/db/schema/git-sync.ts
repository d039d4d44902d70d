import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { spaces } from './content';

/** Git Sync (migrations/0040_git_sync.sql): the state of a space's sync, its operations, what the last sync left, revisions' git. */
export const gitSyncStates = sqliteTable('git_sync_states', {
  spaceId: text('space_id')
    .primaryKey()
    .references(() => spaces.id, { onDelete: 'cascade' }),
  provider: text('provider').notNull(),
  installationId: text('installation_id').notNull(),
  repoUrl: text('repo_url').notNull(),
  treeUrl: text('tree_url'),
  ref: text('ref').notNull(),
  projectDirectory: text('project_directory'),
  lastTimestamp: text('last_timestamp'),
  opId: text('op_id'),
  opDirection: text('op_direction'),
  opState: text('op_state'),
  opStartedAt: text('op_started_at'),
  opEndedAt: text('op_ended_at'),
  opError: text('op_error'),
  updatedAt: text('updated_at').notNull(),
});

export const gitSyncOperations = sqliteTable(
  'git_sync_operations',
  {
    id: text('id').primaryKey(),
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    direction: text('direction').notNull(),
    userId: text('user_id').notNull(),
    request: text('request').notNull(),
    secret: text('secret'),
    timestamp: text('timestamp'),
    state: text('state').notNull(),
    error: text('error'),
    revisionId: text('revision_id'),
    createdAt: text('created_at').notNull(),
    endedAt: text('ended_at'),
    /** What the operation fetched (migration 0042): protocol, requests, pack bytes, blobs fetched by id. */
    stats: text('stats', { mode: 'json' }).$type<Record<string, unknown>>(),
  },
  (t) => [index('git_sync_operations_space').on(t.spaceId, t.createdAt)],
);

export const gitSyncEntries = sqliteTable(
  'git_sync_entries',
  {
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    kind: text('kind').notNull(),
    targetId: text('target_id').notNull(),
    oid: text('oid').notNull(),
    hash: text('hash'),
    /** A page's file began with a heading 1 (its title): written back without one when it had none. */
    titleHeading: integer('title_heading', { mode: 'boolean' }).notNull().default(true),
    /** A page's head when its file was synced (`headSignature`): its title or a field alone changed rewrites the file. */
    head: text('head'),
    /** A page's parent and slug when its file was synced (`placeOf`, migration 0163): a page moved since moves its file. */
    place: text('place'),
    /** The `.gitbook.yaml` an import read (kind `config`): written again where an export's target has none. */
    text: text('text'),
  },
  (t) => [primaryKey({ columns: [t.spaceId, t.path] })],
);

export const revisionGit = sqliteTable('revision_git', {
  revisionId: text('revision_id').primaryKey(),
  spaceId: text('space_id')
    .notNull()
    .references(() => spaces.id, { onDelete: 'cascade' }),
  oid: text('oid').notNull(),
  message: text('message').notNull(),
  createdByGitBook: integer('created_by_gitbook', { mode: 'boolean' }).notNull(),
  url: text('url'),
  ref: text('ref'),
});

/** Where an import applied in several SpaceWriter calls stands between them (migration 0164; services/git-sync/apply GitImportProgress). */
export const gitSyncImportProgress = sqliteTable('git_sync_import_progress', {
  operationId: text('operation_id').primaryKey(),
  spaceId: text('space_id').notNull(),
  progress: text('progress', { mode: 'json' }).notNull().$type<unknown>(),
  updatedAt: text('updated_at').notNull(),
});

/** The git_sync_entries rows an import's slices made (migration 0164), copied into git_sync_entries by its last call. */
export const gitSyncImportRows = sqliteTable(
  'git_sync_import_rows',
  {
    operationId: text('operation_id').notNull(),
    path: text('path').notNull(),
    kind: text('kind').notNull(),
    targetId: text('target_id').notNull(),
    oid: text('oid').notNull(),
    hash: text('hash'),
    titleHeading: integer('title_heading', { mode: 'boolean' }).notNull().default(true),
    head: text('head'),
    place: text('place'),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.path] })],
);
