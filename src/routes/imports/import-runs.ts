import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { ContentImportRunSchema, ContentImportSourceSchema, ContentImportTargetSchema, IMPORT_RUN_STATUSES, toImportRun } from '../../schemas/import-run';
import { cancelImportRun, getImportRun, listImportRuns, startImportRun } from '../../services/import/runs';

/**
 * An organization's import runs (services/import/runs.ts): a website imported into a space in the background.
 * GitBook's paths are under `/org/` (singular), not `/orgs/`. Members who may read a run's target space see it;
 * starting and cancelling need the edit role there. User tokens only, as GitBook's (no integration tokens).
 */
const tags = ['Imports'];
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
const RunParams = OrgParams.extend({ importRunId: IdSchema('importRunId').openapi({ description: 'The unique id of the import run' }) });

const ListFilters = ListQuerySchema.extend({
  space: z.string().min(1).max(128).optional().openapi({ description: 'Only the import runs targeting this space' }),
  changeRequest: z.string().min(1).max(128).optional().openapi({ description: 'Only the import runs targeting this change request (its id)' }),
  site: z.string().min(1).max(128).optional().openapi({ description: 'Only the import runs targeting a space of this site (or started for it)' }),
  status: z
    .enum(['active', ...IMPORT_RUN_STATUSES])
    .optional()
    .openapi({ description: 'Only the import runs in this status; `active` covers both `pending` and `in-progress`' }),
});

const StartBody = z.object({
  source: ContentImportSourceSchema,
  target: ContentImportTargetSchema,
  site: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: 'ID of a site of the organization the import is for; otherwise the one site the target space is in, if only one' }),
  enhance: z
    .boolean()
    .optional()
    .openapi({ description: 'AI enhancement of the imported content: not done by this deployment; `true` is answered 400 (GitBook defaults to true)' }),
});

const listRoute = defineRoute('get', '/org/{organizationId}/imports', () => ({
  operationId: 'listImportRuns',
  tags,
  summary: 'List the import runs of the organization the caller may see (read role on their target space), most recent first',
  description: 'A run left behind by an import that never reported back (no news for an hour while pending or in progress) is returned as failed.',
  request: { params: OrgParams, query: ListFilters },
  responses: { 200: jsonResponse(listOf(ContentImportRunSchema, 'ContentImportRuns'), 'The import runs') },
}));

const startRoute = defineRoute('post', '/org/{organizationId}/imports', () => ({
  operationId: 'startImportRun',
  costly: 'content-writes',
  tags,
  summary: 'Import a website into a space, in the background (edit role on the space)',
  description:
    "The run is created `pending` and a queue consumer imports the website as importContentInChangeRequest does (at most 20 pages and 40 images, same origin and path prefix): one new revision of the space's main content, or of the open change request `target.changeRequest`, with the pages under `target.page` when given. Read the run to follow it. A URL the outbound guard refuses (private, loopback, link-local, internal) is a 400 and starts nothing; `file` sources are a 400.",
  request: { params: OrgParams, ...jsonBody(StartBody) },
  responses: { 201: jsonResponse(ContentImportRunSchema, 'Import run created (pending)') },
}));

const getRoute = defineRoute('get', '/org/{organizationId}/imports/{importRunId}', () => ({
  operationId: 'getImportRun',
  tags,
  summary: 'Get an import run (read role on its target space)',
  description: 'A run left behind by an import that never reported back (no news for an hour while pending or in progress) is returned as failed.',
  request: { params: RunParams },
  responses: { 200: jsonResponse(ContentImportRunSchema, 'The import run') },
}));

const cancelRoute = defineRoute('post', '/org/{organizationId}/imports/{importRunId}/cancel', () => ({
  operationId: 'cancelImportRun',
  tags,
  summary: 'Cancel an import run that is pending or still fetching the website (edit role on its target space): nothing is written',
  description: 'A run that is writing its content, or finished, is a 400: a run writes its pages in one transaction, whole or not at all.',
  request: { params: RunParams },
  responses: { 200: jsonResponse(ContentImportRunSchema, 'Import run cancelled') },
}));

const apiBase = (requestUrl: string) => urlContext(requestUrl, undefined).api;

export const importRunsRouter = createRouter()
  .openapi(listRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const { page, limit: limitParam, ...filters } = c.req.valid('query');
    const { cursor, limit } = pageParams({ page, limit: limitParam });
    const { rows, total } = await listImportRuns(c.get('db'), organizationId, userId, filters, cursor, limit);
    const base = apiBase(c.req.url);
    const now = Date.now();
    return c.json(toPage(rows, limit, total, (row) => [row.createdAt, row.id], (row) => toImportRun(row, base, now)), 200);
  })
  .openapi(startRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const body = c.req.valid('json');
    const row = await startImportRun(c.env, c.get('db'), { orgId: organizationId, userId, ...body });
    const run = toImportRun(row, apiBase(c.req.url));
    c.header('Location', run.urls.location);
    return c.json(run, 201);
  })
  .openapi(getRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, importRunId } = c.req.valid('param');
    return c.json(toImportRun(await getImportRun(c.get('db'), organizationId, importRunId, userId), apiBase(c.req.url)), 200);
  })
  .openapi(cancelRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, importRunId } = c.req.valid('param');
    return c.json(toImportRun(await cancelImportRun(c.get('db'), organizationId, importRunId, userId), apiBase(c.req.url)), 200);
  });
