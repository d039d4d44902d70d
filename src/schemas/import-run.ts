import { z } from '@hono/zod-openapi';
import type { importRuns } from '../db/schema';
import { TimestampSchema } from './common';

/**
 * GitBook's import runs (`ContentImportRun`, `ContentImportSource`, `ContentImportTarget`): a website imported
 * into a space in the background (services/import/runs.ts). Rows are mapped by `toImportRun`.
 */

export const IMPORT_RUN_STATUSES = ['pending', 'in-progress', 'completed', 'failed', 'cancelled'] as const;
export type ImportRunStatus = (typeof IMPORT_RUN_STATUSES)[number];
/** A run's status while it may still change. */
export const LIVE_IMPORT_RUN_STATUSES = ['pending', 'in-progress'] as const;

const ImportUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .openapi({ format: 'uri', description: 'URL of the website to import (http or https): the page there and the pages under its path' });

export const ContentImportSourceSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('website'), url: ImportUrlSchema }),
    z.object({
      type: z.literal('file'),
      files: z
        .array(z.string().min(1).max(512))
        .max(50)
        .openapi({ description: 'Keys of files to import: not supported by this deployment (it has no upload of import files), answered 400' }),
    }),
  ])
  .openapi('ContentImportSource', { description: 'Where the content is imported from: a website (`file` imports are answered 400 here)' });

export const ContentImportTargetSchema = z
  .object({
    space: z.string().min(1).max(128).openapi({ description: 'ID of the space to import in (its main content, unless `changeRequest` is given)' }),
    changeRequest: z.string().min(1).max(128).optional().openapi({ description: 'ID (or number in the space) of an open change request of the space to import in' }),
    page: z.string().min(1).max(128).optional().openapi({ description: 'ID of the page the imported pages go under (top level when absent)' }),
  })
  .openapi('ContentImportTarget');

const ImportRunPageSchema = z.object({
  id: z.string().openapi({ description: 'ID of the page created' }),
  sourceURL: z.string().openapi({ description: 'URL the page was imported from' }),
  type: z.enum(['page', 'folder']).openapi({ description: 'Always `page` here: every imported URL becomes a page' }),
  status: z.enum(['complete', 'pending']).openapi({ description: 'Always `complete`: pages are listed once the run has written them' }),
});

export const ContentImportRunSchema = z
  .object({
    object: z.literal('import-run'),
    id: z.string(),
    status: z.enum(IMPORT_RUN_STATUSES).openapi({
      description:
        '`pending`: queued; `in-progress`: fetching the website, then writing; `completed`: written (see `pages`); `failed`: see `reason`; `cancelled`: stopped before anything was written',
    }),
    reason: z.string().optional().openapi({ description: 'Why the run failed, when `status` is `failed`' }),
    source: ContentImportSourceSchema,
    target: ContentImportTargetSchema,
    site: z.string().optional().openapi({ description: 'ID of the site the run is for: given when it started, else the one site the target space is in' }),
    createdBy: z.string().openapi({ description: 'ID of the user who started the import' }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    startedAt: TimestampSchema.optional(),
    completedAt: TimestampSchema.optional(),
    urls: z.object({ location: z.string().openapi({ format: 'uri', description: 'URL of the import run in the API' }) }),
    pages: z.array(ImportRunPageSchema).openapi({ description: 'The pages the run created (empty until it completed)' }),
  })
  .openapi('ContentImportRun');
export type ContentImportRun = z.infer<typeof ContentImportRunSchema>;

type ImportRunRow = typeof importRuns.$inferSelect;

/**
 * A run that has not reported back for this long while pending or in progress is answered as failed (GitBook:
 * "runs left behind by an import that never reported back are returned as failed"), and the consumer no longer
 * takes it up. A run's every step moves `updatedAt`; a crawl takes at most a minute and a half, and the queue's
 * retries (with backoff) about five more minutes.
 */
export const IMPORT_RUN_STALE_MS = 60 * 60 * 1000;
export const STALE_REASON = 'The import did not report back within an hour: it was interrupted';

/** What the API says of a row at `now`: a live run not heard of within IMPORT_RUN_STALE_MS is failed. */
export function effectiveStatus(row: Pick<ImportRunRow, 'status' | 'updatedAt'>, now: number): { status: ImportRunStatus; stale: boolean } {
  const live = (LIVE_IMPORT_RUN_STATUSES as readonly string[]).includes(row.status);
  if (live && Date.parse(row.updatedAt) < now - IMPORT_RUN_STALE_MS) return { status: 'failed', stale: true };
  return { status: row.status as ImportRunStatus, stale: false };
}

/** The API object of a run; `apiBase` is `<origin>/v1`. */
export function toImportRun(row: ImportRunRow, apiBase: string, now = Date.now()): ContentImportRun {
  const { status, stale } = effectiveStatus(row, now);
  const reason = stale ? STALE_REASON : row.reason;
  return {
    object: 'import-run',
    id: row.id,
    status,
    ...(status === 'failed' && reason ? { reason } : {}),
    source: { type: 'website', url: row.sourceUrl },
    target: { space: row.spaceId, ...(row.changeRequestId ? { changeRequest: row.changeRequestId } : {}), ...(row.pageId ? { page: row.pageId } : {}) },
    ...(row.siteId ? { site: row.siteId } : {}),
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.startedAt ? { startedAt: row.startedAt } : {}),
    ...(row.completedAt ? { completedAt: row.completedAt } : {}),
    urls: { location: `${apiBase}/org/${row.orgId}/imports/${row.id}` },
    pages: (row.pages ?? []).map((page) => ({ id: page.id, sourceURL: page.sourceURL, type: 'page' as const, status: 'complete' as const })),
  };
}
