import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations } from './organizations';

/**
 * An OpenAPI spec record of an organization: where its document comes from (a URL, or a text kept in
 * R2 at `source_text_key`), its visibility and its processing state.
 *
 * `processing_job` is the id of the one queue message that is to process the current source (null when
 * nothing is outstanding): a create, an update and the cron's refresh set it and enqueue that message;
 * the consumer works only for the message it names and clears it with its final write, so a
 * redelivered message, or one superseded by a newer update, changes nothing.
 *
 * `processing_attempts` counts the claims of that job that never ended: each claim adds one (with
 * `queued_at` set to the claim's time), a claim that ends in a failure of ours gives it back, and a new job
 * starts at 0. A claim that finds it at the bound (services/openapi/process: MAX_PROCESSING_CLAIMS) records
 * a final failure instead of processing: the isolate was killed (CPU or memory limit) that many times.
 */
export const openapiSpecs = sqliteTable(
  'openapi_specs',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    sourceUrl: text('source_url'),
    sourceTextKey: text('source_text_key'),
    visibility: text('visibility').notNull().default('private'),
    /** `pending` (queued), `progress` (a consumer is at it), `complete` (done, successfully or not). */
    processingState: text('processing_state').notNull().default('pending'),
    processingJob: text('processing_job'),
    /** When the job was last sent, or claimed by a consumer (jobs/cron sends a job again once this is 15 minutes old). */
    queuedAt: text('queued_at'),
    processingAttempts: integer('processing_attempts').notNull().default(0),
    lastVersionId: text('last_version_id'),
    lastProcessedAt: text('last_processed_at'),
    lastProcessErrorCode: text('last_process_error_code'),
    lastProcessedErrors: text('last_processed_errors', { mode: 'json' }).$type<Array<{ message: string; code?: string }>>(),
    lastProcessedErrorCount: integer('last_processed_error_count').notNull().default(0),
    createdBy: text('created_by'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('openapi_specs_org_slug').on(t.orgId, t.slug),
    index('openapi_specs_org').on(t.orgId, t.createdAt, t.id),
    index('openapi_specs_refresh').on(t.lastProcessedAt),
  ],
);

/**
 * One processed version of a spec: a distinct result of processing (`hash`: services/openapi/process
 * `versionHash`, over the bundle's JSON, the entry file's raw bytes and the source URL). Its filesystem and the entry file's raw text are in R2 (services/openapi/storage keys);
 * `outline` is what computed API reference pages are built from (services/openapi/outline), kept in D1
 * so a content read gets it in the same batch as the pages that need it.
 */
export const openapiSpecVersions = sqliteTable(
  'openapi_spec_versions',
  {
    id: text('id').primaryKey(),
    specId: text('spec_id')
      .notNull()
      .references(() => openapiSpecs.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    /** The source URL it was fetched from; null for a text source. */
    url: text('url'),
    /** `json` or `yaml`: the format of the entry file's raw text. */
    format: text('format').notNull(),
    /** The entry file's name in the filesystem. */
    entry: text('entry').notNull(),
    outline: text('outline').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('openapi_spec_versions_spec').on(t.specId, t.createdAt, t.id)],
);
