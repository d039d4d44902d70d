import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations } from './organizations';

/**
 * A translation of a space's main content into another language (services/translations). `resultSpaceId`
 * is the space runs write into; it outlives the translation (deleting that space makes later runs fail, saying so). `status` is what the API shows: pending,
 * running, completed, or failed (with `failure` saying why). `runId` names the run in progress or last run.
 * The stats columns are the API's `stats`, kept by each run's completion (durations in milliseconds).
 */
export const translations = sqliteTable(
  'translations',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    sourceSpaceId: text('source_space_id').notNull(),
    sourceLanguage: text('source_language').notNull(),
    language: text('language').notNull(),
    resultSpaceId: text('result_space_id').notNull(),
    instructions: text('instructions', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    status: text('status').notNull().default('pending'),
    failure: text('failure'),
    runId: text('run_id'),
    resultRevisionId: text('result_revision_id'),
    createdBy: text('created_by').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    runs: integer('runs').notNull().default(0),
    totalWords: integer('total_words').notNull().default(0),
    totalPages: integer('total_pages').notNull().default(0),
    totalDurationMs: integer('total_duration_ms').notNull().default(0),
    latestRunDurationMs: integer('latest_run_duration_ms').notNull().default(0),
    latestPages: integer('latest_pages').notNull().default(0),
    latestWords: integer('latest_words').notNull().default(0),
  },
  (t) => [
    index('translations_org').on(t.orgId, t.createdAt, t.id),
    uniqueIndex('translations_source_language').on(t.sourceSpaceId, t.language),
    index('translations_result_space').on(t.resultSpaceId),
  ],
);

/**
 * One run of a translation: the source revision it reads, its state, and what it did. Its pages are
 * translated by several queue messages (chunks); `finishedAt` is set once, by the message that completes it.
 */
export const translationRuns = sqliteTable(
  'translation_runs',
  {
    id: text('id').primaryKey(),
    translationId: text('translation_id')
      .notNull()
      .references(() => translations.id, { onDelete: 'cascade' }),
    sourceRevisionId: text('source_revision_id').notNull(),
    status: text('status').notNull().default('pending'),
    failure: text('failure'),
    pagesTotal: integer('pages_total').notNull().default(0),
    pagesDone: integer('pages_done').notNull().default(0),
    words: integer('words').notNull().default(0),
    createdAt: text('created_at').notNull(),
    startedAt: text('started_at'),
    finishedAt: text('finished_at'),
    /** The run's last step (created, planned, a chunk written, finished): the cron sends a run again when it is old (jobs/cron.ts). */
    touchedAt: text('touched_at'),
    /** Messages the cron sent again for this run (services/translations/requeue.ts): past a few, the run fails. */
    requeues: integer('requeues').notNull().default(0),
  },
  (t) => [index('translation_runs_translation').on(t.translationId, t.createdAt), index('translation_runs_unfinished').on(t.finishedAt, t.touchedAt)],
);

/**
 * What a translation knows of each source page: the key of the source it last translated (a hash of the
 * page's document, title and description, so a later run translates only pages whose key changed) and the
 * translated title, description and document (a hash in `documents`). `pendingRun` marks a page a run still
 * has to translate, `claimedAt` a message working on it, so a redelivered message never translates a page twice.
 */
export const translationPages = sqliteTable(
  'translation_pages',
  {
    translationId: text('translation_id')
      .notNull()
      .references(() => translations.id, { onDelete: 'cascade' }),
    pageId: text('page_id').notNull(),
    sourceKey: text('source_key'),
    title: text('title'),
    description: text('description'),
    documentHash: text('document_hash'),
    words: integer('words').notNull().default(0),
    translatedRun: text('translated_run'),
    translatedAt: text('translated_at'),
    pendingRun: text('pending_run'),
    pendingKey: text('pending_key'),
    claimedAt: text('claimed_at'),
  },
  (t) => [primaryKey({ columns: [t.translationId, t.pageId] }), index('translation_pages_pending').on(t.pendingRun)],
);

/**
 * Translated segments of a translation, by the hash of their source text (services/translations/run.ts): a
 * page with more segments than a message may send is translated over several messages, each storing what it
 * translated here; a later run sends only texts not found here. `words` are the words sent (counted once:
 * the stats sum them), `runId` the run that sent them. Deleted with the translation.
 */
export const translationSegments = sqliteTable(
  'translation_segments',
  {
    translationId: text('translation_id')
      .notNull()
      .references(() => translations.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    translated: text('translated').notNull(),
    words: integer('words').notNull().default(0),
    runId: text('run_id').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.translationId, t.hash] }), index('translation_segments_run').on(t.translationId, t.runId)],
);

export type TranslationRow = typeof translations.$inferSelect;
export type TranslationRunRow = typeof translationRuns.$inferSelect;
export type TranslationPageRow = typeof translationPages.$inferSelect;
