import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { organizations } from './organizations';
import { spaces } from './content';

/** One imported page of a completed run: GitBook's `ContentImportRun.pages` item. */
export interface ImportRunPage {
  id: string;
  sourceURL: string;
}

/**
 * An import run (services/import/runs.ts): a website imported into a space's main content or into one of its
 * change requests (`changeRequestId`, the change request's id) by the queue consumer. `status` is GitBook's
 * (pending, in-progress, completed, failed with `reason`, cancelled); `step` is where a live run is: `crawling`,
 * then `writing` once it claimed the right to write (a cancel then no longer applies). `pages` are the pages a
 * completed run created, `revisionId` the revision it wrote.
 */
export const importRuns = sqliteTable(
  'import_runs',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    changeRequestId: text('change_request_id'),
    pageId: text('page_id'),
    siteId: text('site_id'),
    sourceType: text('source_type').notNull(),
    sourceUrl: text('source_url').notNull(),
    status: text('status').notNull().default('pending'),
    step: text('step'),
    reason: text('reason'),
    pages: text('pages', { mode: 'json' }).$type<ImportRunPage[]>(),
    revisionId: text('revision_id'),
    createdBy: text('created_by').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    startedAt: text('started_at'),
    completedAt: text('completed_at'),
  },
  (t) => [index('import_runs_org').on(t.orgId, t.createdAt, t.id), index('import_runs_space').on(t.spaceId, t.createdAt)],
);
