import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ListQuerySchema } from '../../lib/pagination';
import { requireUser } from '../../middleware/auth';
import { toChangeRequest } from '../../schemas/change-request';
import { ContentQuerySchema, IdSchema, listOf, urlContext } from '../../schemas/common';
import { PageQuerySchema, pageOptions } from '../../schemas/page-query';
import { RevisionFileSchema, RevisionPageSchema, RevisionPageWithContentSchema, RevisionSchema, toRevision, toRevisionPage } from '../../schemas/revision';
import { findFile, pageOfFiles, pageWithContent, readContent, toApiFiles } from '../../services/content-reads';

/** The space's current content: its head revision, pages, files. Reading needs the `read` role. */
const tags = ['Space content'];
const SpaceParams = z.object({ spaceId: IdSchema('spaceId') });

const getCurrentRevisionRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/content',
  operationId: 'getCurrentRevision',
  tags,
  summary: "The space's current revision: page tree, files, variables",
  request: { params: SpaceParams, query: ContentQuerySchema },
  responses: { 200: jsonResponse(RevisionSchema, 'The revision') },
});

const listPagesRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/content/pages',
  operationId: 'listPages',
  tags,
  summary: "The space's page tree",
  request: { params: SpaceParams, query: ContentQuerySchema },
  responses: { 200: jsonResponse(z.object({ pages: z.array(RevisionPageSchema) }), 'The pages') },
});

const listFilesRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/content/files',
  operationId: 'listFiles',
  tags,
  summary: "The space's files, with signed download URLs",
  request: { params: SpaceParams, query: ListQuerySchema.extend(ContentQuerySchema.shape) },
  responses: { 200: jsonResponse(listOf(RevisionFileSchema, 'RevisionFiles'), 'The files') },
});

const getFileRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/content/files/{fileId}',
  operationId: 'getFileById',
  tags,
  summary: 'A file of the space',
  request: { params: SpaceParams.extend({ fileId: IdSchema('fileId') }), query: ContentQuerySchema },
  responses: { 200: jsonResponse(RevisionFileSchema, 'The file') },
});

const getPageRoute = defineRoute({
  method: 'get',
  path: '/spaces/{spaceId}/content/page/{pageId}',
  operationId: 'getPageById',
  tags,
  summary: 'A page of the space with its content, as a document or Markdown',
  request: { params: SpaceParams.extend({ pageId: IdSchema('pageId') }), query: PageQuerySchema },
  responses: { 200: jsonResponse(RevisionPageWithContentSchema, 'The page') },
});

export const spaceContentRouter = createRouter()
  .openapi(getCurrentRevisionRoute, async (c) => {
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const read = await readContent(c.get('db'), c.req.valid('param'), requireUser(c), { urls, withMergedFrom: true });
    const files = await toApiFiles(c.env, new URL(c.req.url).origin, read.manifest.files);
    const mergedFrom = read.mergedFrom ? toChangeRequest(read.mergedFrom, urls) : undefined;
    return c.json(toRevision(read.revision, read.manifest, read.urls, files, mergedFrom), 200);
  })
  .openapi(listPagesRoute, async (c) => {
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const read = await readContent(c.get('db'), c.req.valid('param'), requireUser(c), { urls });
    return c.json({ pages: read.manifest.pages.map((page) => toRevisionPage(page, read.urls)) }, 200);
  })
  .openapi(listFilesRoute, async (c) => {
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const read = await readContent(c.get('db'), c.req.valid('param'), requireUser(c), { urls });
    const page = pageOfFiles(read.manifest.files, c.req.valid('query'));
    return c.json({ ...page, items: await toApiFiles(c.env, new URL(c.req.url).origin, page.items) }, 200);
  })
  .openapi(getFileRoute, async (c) => {
    const { spaceId, fileId } = c.req.valid('param');
    const read = await readContent(c.get('db'), { spaceId }, requireUser(c), { urls: urlContext(c.req.url, c.env.APP_URL) });
    const [file] = await toApiFiles(c.env, new URL(c.req.url).origin, [findFile(read.manifest, fileId)]);
    return c.json(file, 200);
  })
  .openapi(getPageRoute, async (c) => {
    const { spaceId, pageId } = c.req.valid('param');
    const db = c.get('db');
    const read = await readContent(db, { spaceId }, requireUser(c), { urls: urlContext(c.req.url, c.env.APP_URL), pageId });
    return c.json(await pageWithContent(db, read, pageId, pageOptions(c.req.valid('query'))), 200);
  });
