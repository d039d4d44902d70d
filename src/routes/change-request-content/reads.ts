import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { jsonText } from '../../lib/json-text';
import { requireUser } from '../../middleware/auth';
import { ContentQuerySchema, IdSchema } from '../../schemas/common';
import { PageByPathQuerySchema, PagePathSchema, pageOptions } from '../../schemas/page-query';
import { RevisionPageMetaLinksSchema, RevisionPageReadSchema, RevisionReusableContentSchema } from '../../schemas/revision';
import { ChangesQuerySchema, RevisionSemanticChangesSchema } from '../../schemas/semantic-changes';
import { pageByPathResponseJson, pageMetaLinksResponse, reusableContentResponse, type ContentRequest } from '../../services/content/reads';
import { changeRequestChanges } from '../../services/content/semantic-changes';

/**
 * More reads of a change request's own content (GitBook's): a page by path, a page's meta links, a reusable
 * content, and what the change request changes from the main content it is based on. Reading needs the
 * `read` role on the space, like the change request's other content reads (routes/change-request-content/content).
 */
const tags = ['Change request content'];
const Params = z.object({
  spaceId: IdSchema('spaceId'),
  changeRequestId: IdSchema('changeRequestId').openapi({ description: 'The change request id, or its number in the space' }),
});
const BASE = '/spaces/{spaceId}/change-requests/{changeRequestId}';

const getPageByPathRoute = defineRoute('get', `${BASE}/content/path/{pagePath}`, () => ({
  operationId: 'getPageInChangeRequestByPath',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'A page of the change request by its path, with its content',
  description: 'The path is the slugs of the page and its ancestors joined by `/`, URL-encoded as one path segment (`guides%2Finstall`).',
  request: { params: Params.extend({ pagePath: PagePathSchema }), query: PageByPathQuerySchema },
  responses: { 200: jsonResponse(RevisionPageReadSchema, 'The page') },
}));

const listPageMetaLinksRoute = defineRoute('get', `${BASE}/content/page/{pageId}/meta-links`, () => ({
  operationId: 'listChangeRequestPageMetaLinks',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: "A page's canonical and alternate links in the change request",
  request: { params: Params.extend({ pageId: IdSchema('pageId') }) },
  responses: { 200: jsonResponse(RevisionPageMetaLinksSchema, 'The meta links') },
}));

const getReusableContentRoute = defineRoute('get', `${BASE}/content/reusable-contents/{reusableContentId}`, () => ({
  operationId: 'getReusableContentInChangeRequestById',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'A reusable content of the change request: its title and the id of its document (getDocumentById)',
  request: { params: Params.extend({ reusableContentId: IdSchema('reusableContentId') }), query: ContentQuerySchema },
  responses: { 200: jsonResponse(RevisionReusableContentSchema, 'The reusable content') },
}));

const getChangesRoute = defineRoute('get', `${BASE}/changes`, () => ({
  operationId: 'getChangeRequestChanges',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'What the change request changes from the main content it was last based on: pages, files, variables, reusable contents',
  description: 'At most `limit` changes (100 unless told); `more` says how many were left out.',
  request: { params: Params, query: ChangesQuerySchema },
  responses: { 200: jsonResponse(RevisionSemanticChangesSchema, 'The changes') },
}));

const request = (c: Context<AppBindings>, params: z.infer<typeof Params>): ContentRequest => ({
  db: c.get('db'),
  env: c.env,
  url: c.req.url,
  userId: requireUser(c),
  source: { spaceId: params.spaceId, changeRequest: params.changeRequestId },
  computed: c.req.query('computed') !== 'false',
});

export const changeRequestReadsRouter = createRouter()
  .openapi(getPageByPathRoute, async (c) => {
    const params = c.req.valid('param');
    return jsonText(c, await pageByPathResponseJson(request(c, params), params.pagePath, pageOptions(c.req.valid('query'))));
  })
  .openapi(listPageMetaLinksRoute, async (c) => {
    const params = c.req.valid('param');
    return c.json(await pageMetaLinksResponse(request(c, params), params.pageId), 200);
  })
  .openapi(getReusableContentRoute, async (c) => {
    const params = c.req.valid('param');
    return c.json(await reusableContentResponse(request(c, params), params.reusableContentId), 200);
  })
  .openapi(getChangesRoute, async (c) => {
    const { spaceId, changeRequestId } = c.req.valid('param');
    const base = { db: c.get('db'), env: c.env, url: c.req.url, userId: requireUser(c), spaceId, limit: c.req.valid('query').limit };
    return c.json(await changeRequestChanges({ ...base, changeRequest: changeRequestId }), 200);
  });
