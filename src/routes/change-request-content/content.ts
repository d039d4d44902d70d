import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppBindings } from '../../env';
import { spaceWriter, throughWriter } from '../../durable-objects/space-writer';
import { auditForWriter } from '../../services/audit/context';
import { createRouter, defineRoute, ErrorSchema, jsonBody, jsonResponse } from '../../lib/create-router';
import { ListQuerySchema } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { jsonText } from '../../lib/json-text';
import { requireUser } from '../../middleware/auth';
import { ChangeRequestSchema } from '../../schemas/change-request';
import { toChangeRequest } from '../../services/content/presenter';
import { booleanQuery, ContentQuerySchema, IdSchema, listOf, urlContext } from '../../schemas/common';
import { PageQuerySchema, pageOptions } from '../../schemas/page-query';
import { ComputedRevisionSourceSchema, RevisionFileSchema, RevisionPageReadSchema, RevisionPageSchema, RevisionSchema } from '../../schemas/revision';
import { changeRequestMatch, changeRequestQuery, loadChangeRequest, type ChangeRequestWithContext } from '../../services/content/change-requests';
import type { ContentChange } from '../../services/content/batch';
import { authorizeComputedSources, computedSourceChange, orgRankOfSpaceQuery } from '../../services/content/computed-sources';
import { fileResponse, filesResponse, pageResponseJson, pagesResponseStream, revisionResponseStream, toApiFiles, type ContentRequest } from '../../services/content/reads';

/** A change request's own content: reads like the space's, and batches of edits that make new revisions. */
const tags = ['Change request content'];
const Params = z.object({
  spaceId: IdSchema('spaceId'),
  changeRequestId: IdSchema('changeRequestId').openapi({ description: 'The change request id, or its number in the space' }),
});
const BASE = '/spaces/{spaceId}/change-requests/{changeRequestId}/content';

const getRevisionRoute = defineRoute('get', BASE, () => ({
  operationId: 'getRevisionOfChangeRequestById',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: "The change request's current revision",
  request: { params: Params, query: ContentQuerySchema },
  responses: { 200: jsonResponse(RevisionSchema, 'The revision') },
}));

const listPagesRoute = defineRoute('get', `${BASE}/pages`, () => ({
  operationId: 'listPagesInChangeRequest',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: "The change request's page tree",
  request: { params: Params, query: ContentQuerySchema },
  responses: { 200: jsonResponse(z.object({ pages: z.array(RevisionPageSchema) }), 'The pages') },
}));

const listFilesRoute = defineRoute('get', `${BASE}/files`, () => ({
  operationId: 'listFilesInChangeRequestById',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: "The change request's files, with signed download URLs",
  request: { params: Params, query: ListQuerySchema.extend(ContentQuerySchema.shape) },
  responses: { 200: jsonResponse(listOf(RevisionFileSchema, 'RevisionFiles'), 'The files') },
}));

const getFileRoute = defineRoute('get', `${BASE}/files/{fileId}`, () => ({
  operationId: 'getFileInChangeRequestById',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'A file of the change request',
  request: { params: Params.extend({ fileId: IdSchema('fileId') }), query: ContentQuerySchema },
  responses: { 200: jsonResponse(RevisionFileSchema, 'The file') },
}));

const getPageRoute = defineRoute('get', `${BASE}/page/{pageId}`, () => ({
  operationId: 'getPageInChangeRequestById',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'A page of the change request with its content, as a document or Markdown',
  request: { params: Params.extend({ pageId: IdSchema('pageId') }), query: PageQuerySchema },
  responses: { 200: jsonResponse(RevisionPageReadSchema, 'The page') },
}));

// ---------------------------------------------------------------------------------------------
// Content batches (GitBook's updateChangeRequestContent)

const DocumentInput = z
  .union([
    z.object({ markdown: z.string() }),
    z.object({ document: z.record(z.string(), z.unknown()) }),
    z.object({}).strict(),
  ])
  .openapi('Document', { description: '`{markdown}`, `{document}` (a JSON document) or `{}` for an empty page' });

const PageMetadata = {
  title: z.string().trim().min(1).max(200).optional(),
  linkTitle: z.string().trim().max(100).optional().openapi({ description: 'The title of the page in the table of contents, pagination and links, where it differs from `title`; empty removes it' }),
  slug: z.string().max(100).optional().openapi({ description: "Slug in the page's parent; derived from the title when omitted" }),
  emoji: z.string().max(50).optional(),
  icon: z.string().max(50).optional(),
  description: z.string().max(1000).optional(),
  hidden: z.boolean().optional(),
  noIndex: z.boolean().optional(),
  noRobotsIndex: z.boolean().optional(),
  condition: z.string().max(1000).optional(),
};

const ref = z.string().min(1).max(256);

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A file name becomes part of a URL and a header: well-formed text, no control characters or slashes. */
const FileNameSchema = z
  .string()
  .min(1)
  .max(256)
  .refine((name) => !LONE_SURROGATE.test(name) && !/[\u0000-\u001f\u007f/\\]/.test(name), {
    message: 'must be a file name without control characters, slashes or invalid Unicode',
  });
const MimeTypeSchema = z
  .string()
  .max(255)
  .regex(/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(?:\s*;\s*[a-z0-9!#$&^_.+-]+=(?:[a-z0-9!#$&^_.+-]+|"[^"\r\n\\]*"))*$/i, {
    message: 'must be a MIME type such as image/png or text/plain; charset=utf-8',
  });

export const ContentChangeSchema = z
  .discriminatedUnion('operation', [
    z.object({
      operation: z.literal('insert_page'),
      ...PageMetadata,
      type: z.enum(['document', 'group']).optional().openapi({
        description:
          "`group`: a page group (GitBook's RevisionPageGroup), a section heading of the top level holding pages; it has no document, description or parent. Default `document`",
      }),
      into: z.string().min(1).optional().openapi({ description: 'Parent page id (or a ref of this batch); root when omitted' }),
      at: z.number().int().min(0).optional(),
      ref: ref.optional(),
      document: DocumentInput.optional().openapi({ description: 'The page body; required unless the page is computed (then omitted or `{}`)' }),
      computed: ComputedRevisionSourceSchema.optional().openapi({
        description: 'Makes the page an API reference computed from an OpenAPI spec of the organization: it has no document and no child pages of its own',
      }),
    }),
    z.object({
      operation: z.literal('update_page'),
      ...PageMetadata,
      page: z.string().min(1),
      document: DocumentInput.optional(),
      computed: z
        .union([ComputedRevisionSourceSchema, z.null()])
        .optional()
        .openapi({ description: 'Makes the page computed (its document is dropped; it must have no child pages); null makes it an ordinary empty page again' }),
      into: z.string().min(1).nullable().optional().openapi({ description: 'New parent page id; null for the root; omitted: unchanged' }),
      at: z.number().int().min(0).optional(),
    }),
    z.object({ operation: z.literal('delete_page'), page: z.string().min(1) }),
    z.object({
      operation: z.literal('revert_page'),
      page: z.string().min(1),
      revision: z.string().min(1).optional(),
      block: z.array(z.string().min(1)).min(1).max(500).optional(),
    }),
    z.object({
      operation: z.literal('insert_files'),
      files: z
        .array(
          z.object({
            ref: ref.optional(),
            name: FileNameSchema,
            contentType: MimeTypeSchema.optional(),
            base64: z.string().optional(),
            url: z.string().max(2048).optional(),
          }),
        )
        .min(1)
        .max(20),
    }),
  ])
  .openapi('ChangeRequestContentChange');

const ContentBatchBody = z.object({ changes: z.array(ContentChangeSchema).min(1).max(50) });

const PageRefSchema = z.object({ object: z.literal('page'), id: z.string(), urls: z.object({ location: z.string() }) });
const ContentUpdateSchema = z
  .object({
    changeRequest: ChangeRequestSchema,
    changes: z.array(
      z.union([
        z.object({ object: z.literal('created_page'), ref: z.string().optional(), page: PageRefSchema }),
        z.object({ object: z.literal('updated_page'), page: PageRefSchema }),
        z.object({ object: z.literal('deleted_page'), page: z.string() }),
      ]),
    ),
    insertedFiles: z.array(RevisionFileSchema),
  })
  .openapi('ChangeRequestContentUpdate');

const updateContentRoute = defineRoute('post', BASE, () => ({
  operationId: 'updateChangeRequestContent',
  costly: 'content-writes',
  tokens: { scope: 'space:content:write' },
  tags,
  summary: 'Apply a batch of up to 50 content changes atomically, as one new revision',
  description:
    'A batch that would leave the change request with more pages or files than the deployment allows in a space (MAX_PAGES_PER_SPACE, ' +
    'MAX_FILES_PER_SPACE), and more than it had, is refused with 403; edits, moves and deletions never are. A file over MAX_FILE_BYTES answers 413.',
  request: {
    params: Params,
    query: z.object({ compat: booleanQuery(true, 'true: answer the change request; false: also the affected pages and inserted files') }),
    ...jsonBody(ContentBatchBody),
  },
  responses: {
    200: jsonResponse(z.union([ChangeRequestSchema, ContentUpdateSchema]), 'The change request (compat=true) or the change request with the affected pages'),
    413: jsonResponse(ErrorSchema, 'A file is larger than MAX_FILE_BYTES, or the body larger than the content batch limit'),
  },
}));

const request = (c: Context<AppBindings>, params: z.infer<typeof Params>): ContentRequest => ({
  db: c.get('db'),
  env: c.env,
  url: c.req.url,
  userId: requireUser(c),
  source: { spaceId: params.spaceId, changeRequest: params.changeRequestId },
  // GitBook's `computed` (validated by each route's query schema): false reads computed pages as stored.
  computed: c.req.query('computed') !== 'false',
});

export const changeRequestContentRouter = createRouter()
  .openapi(getRevisionRoute, async (c) => jsonText(c, await revisionResponseStream(request(c, c.req.valid('param')))))
  .openapi(listPagesRoute, async (c) => jsonText(c, await pagesResponseStream(request(c, c.req.valid('param')))))
  .openapi(listFilesRoute, async (c) => c.json(await filesResponse(request(c, c.req.valid('param')), c.req.valid('query')), 200))
  .openapi(getFileRoute, async (c) => {
    const params = c.req.valid('param');
    return c.json(await fileResponse(request(c, params), params.fileId), 200);
  })
  .openapi(getPageRoute, async (c) => {
    const params = c.req.valid('param');
    // Its JSON text, streamed when the page has child pages (services/content/reads pageJson).
    return jsonText(c, await pageResponseJson(request(c, params), params.pageId, pageOptions(c.req.valid('query'))));
  })
  .openapi(updateContentRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId, changeRequestId } = c.req.valid('param');
    const db = c.get('db');
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const changes = c.req.valid('json').changes as ContentChange[];
    // A batch that makes a page computed also reads the caller's organization role, in the same round trip.
    const sets = computedSourceChange(changes) !== undefined;
    const loaded = await loadChangeRequest(db, spaceId, changeRequestId, userId, RANK.edit, sets ? [orgRankOfSpaceQuery(db, spaceId, userId)] : []);
    authorizeComputedSources(c.get('actor'), loaded.more[0], changes);
    const { cr } = loaded.row;
    const output = await throughWriter(spaceWriter(c.env, spaceId).applyContent({ spaceId, changeRequestId: cr.id, userId }, changes, auditForWriter(c)), c);
    const updated = toChangeRequest((await changeRequestQuery(db, changeRequestMatch(spaceId, cr.id)).get()) as ChangeRequestWithContext, urls);
    if (c.req.valid('query').compat) return c.json(updated, 200);
    const pageUrl = (page: string) => ({ object: 'page' as const, id: page, urls: { location: `${updated.urls.location}/content/page/${page}` } });
    const affected = output.outcomes.map((o) => (o.object === 'deleted_page' ? o : { ...o, page: pageUrl(o.page) }));
    const insertedFiles = await toApiFiles(c.env, new URL(c.req.url).origin, output.insertedFiles);
    return c.json({ changeRequest: updated, changes: affected, insertedFiles }, 200);
  });
