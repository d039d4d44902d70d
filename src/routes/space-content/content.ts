import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ListQuerySchema } from '../../lib/pagination';
import { requireUser } from '../../middleware/auth';
import type { Context } from 'hono';
import type { AppBindings } from '../../env';
import { ContentQuerySchema, IdSchema, listOf } from '../../schemas/common';
import { PageQuerySchema, pageOptions } from '../../schemas/page-query';
import { RevisionFileSchema, RevisionPageReadSchema, RevisionPageSchema, RevisionSchema } from '../../schemas/revision';
import { fileResponse, filesResponse, pageResponse, pagesResponse, revisionResponse, type ContentRequest } from '../../services/content/reads';

/** The space's current content: its head revision, pages, files. Reading needs the `read` role. */
const tags = ['Space content'];
const SpaceParams = z.object({ spaceId: IdSchema('spaceId') });

const getCurrentRevisionRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/content',
  operationId: 'getCurrentRevision',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: "The space's current revision: page tree, files, variables",
  request: { params: SpaceParams, query: ContentQuerySchema },
  responses: { 200: jsonResponse(RevisionSchema, 'The revision') },
});

const listPagesRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/content/pages',
  operationId: 'listPages',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: "The space's page tree",
  request: { params: SpaceParams, query: ContentQuerySchema },
  responses: { 200: jsonResponse(z.object({ pages: z.array(RevisionPageSchema) }), 'The pages') },
});

const listFilesRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/content/files',
  operationId: 'listFiles',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: "The space's files, with signed download URLs",
  request: { params: SpaceParams, query: ListQuerySchema.extend(ContentQuerySchema.shape) },
  responses: { 200: jsonResponse(listOf(RevisionFileSchema, 'RevisionFiles'), 'The files') },
});

const getFileRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/content/files/{fileId}',
  operationId: 'getFileById',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'A file of the space',
  request: { params: SpaceParams.extend({ fileId: IdSchema('fileId') }), query: ContentQuerySchema },
  responses: { 200: jsonResponse(RevisionFileSchema, 'The file') },
});

const getPageRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/content/page/{pageId}',
  operationId: 'getPageById',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'A page of the space with its content, as a document or Markdown',
  request: { params: SpaceParams.extend({ pageId: IdSchema('pageId') }), query: PageQuerySchema },
  responses: { 200: jsonResponse(RevisionPageReadSchema, 'The page') },
});

const request = (c: Context<AppBindings>, spaceId: string): ContentRequest => ({
  db: c.get('db'),
  env: c.env,
  url: c.req.url,
  userId: requireUser(c),
  source: { spaceId },
  // GitBook's `computed` (validated by each route's query schema): false reads computed pages as stored.
  computed: c.req.query('computed') !== 'false',
});

export const spaceContentRouter = createRouter()
  .openapi(getCurrentRevisionRoute, async (c) => c.json(await revisionResponse(request(c, c.req.valid('param').spaceId)), 200))
  .openapi(listPagesRoute, async (c) => c.json(await pagesResponse(request(c, c.req.valid('param').spaceId)), 200))
  .openapi(listFilesRoute, async (c) => c.json(await filesResponse(request(c, c.req.valid('param').spaceId), c.req.valid('query')), 200))
  .openapi(getFileRoute, async (c) => {
    const { spaceId, fileId } = c.req.valid('param');
    return c.json(await fileResponse(request(c, spaceId), fileId), 200);
  })
  .openapi(getPageRoute, async (c) => {
    const { spaceId, pageId } = c.req.valid('param');
    return c.json(await pageResponse(request(c, spaceId), pageId, pageOptions(c.req.valid('query'))), 200);
  });
