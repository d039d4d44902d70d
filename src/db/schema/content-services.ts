import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from './identity';
import { organizations } from './organizations';
import { spaces } from './content';

/** An organization's instructions for docs agents: a rich-text document. */
export const orgAgentInstructions = sqliteTable('org_agent_instructions', {
  orgId: text('org_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  /** The document (canonical JSON). */
  document: text('document').notNull(),
  updatedAt: text('updated_at').notNull(),
  updatedBy: text('updated_by')
    .notNull()
    .references(() => users.id),
});

/**
 * Which revision of a space's main content its derived indexes (search sections, links) reflect.
 * Whoever moves main brings them up to date from this revision (see services/indexing).
 */
export const spaceIndexState = sqliteTable('space_index_state', {
  spaceId: text('space_id')
    .primaryKey()
    .references(() => spaces.id, { onDelete: 'cascade' }),
  revisionId: text('revision_id').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/** The links each page of a space's main content makes, with their status against that content. */
export const spaceLinks = sqliteTable(
  'space_links',
  {
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    pageId: text('page_id').notNull(),
    /** `kind:target` (page:<id>, file:<id>, url:<href>, space:<id>[/page]): one row per page and target. */
    targetKey: text('target_key').notNull(),
    /** The content reference as the API shows it (JSON). */
    target: text('target').notNull(),
    /** The page or file of this space the target needs (null for URLs and other spaces): what its status follows. */
    targetId: text('target_id'),
    /** `ok` or `broken` against the indexed revision (`in-app` is decided when read, from the request's URLs). */
    status: text('status').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.spaceId, t.pageId, t.targetKey] }),
    index('space_links_target').on(t.spaceId, t.targetKey),
    index('space_links_target_id').on(t.spaceId, t.targetId),
    // space_links_status (space_id, status, target_key) was dropped by migration 0053: no statement seeks by it.
  ],
);

/** Sections of a space's main pages, the rows behind the `search_sections` FTS5 index (by rowid). */
export const searchSections = sqliteTable(
  'search_section_rows',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    pageId: text('page_id').notNull(),
    /** `s<spaceId>`: a word of the FTS index, so a search reads only the matches of the spaces it may see. */
    spaceKey: text('space_key').notNull(),
    /** Position of the section in its page (0: the text before the first heading). */
    position: integer('position').notNull(),
    /** The heading's anchor, empty for the leading section. */
    anchor: text('anchor').notNull(),
    pageTitle: text('page_title').notNull(),
    sectionTitle: text('section_title').notNull(),
    body: text('body').notNull(),
  },
  (t) => [index('search_section_rows_page').on(t.spaceId, t.pageId)],
);
