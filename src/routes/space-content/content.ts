import type { Context } from 'hono';
import type { AppBindings } from '../../env';
import { createLazyRouter, routeDefinitions } from '../../lib/lazy-router';
import { jsonText } from '../../lib/json-text';
import { requireUser } from '../../middleware/auth';
import { pageOptions } from '../../schemas/page-options';
import {
  fileResponse,
  filesResponse,
  pageByPathResponseJson,
  pageMetaLinksResponse,
  pageResponseJson,
  pagesResponseStream,
  reusableContentResponse,
  revisionResponseStream,
  type ContentRequest,
} from '../../services/content/reads';
import { siteTokenOf } from '../../services/sites/site-token';

/**
 * The space's current content: its head revision, pages, files. Reading needs the `read` role. This module evaluates
 * no zod: the routes' definitions are content-routes.ts, imported on a route's first request (lib/lazy-router), and a
 * page read, the hot route, is served by precompiled checks of its params and query (lib/request-checks), the twins of
 * its definition's schemas: its first request in a cold isolate builds no schema at all (issue 42 item 7).
 */
const routes = routeDefinitions(() => import('./content-routes'));
const CONTENT_READ = { scope: 'space:content:read' } as const;
const ID = { string: { min: 1, max: 128 } };
const FLAG_TRUE = { flag: true };

const getReusableContentRoute = routes.route('get', '/spaces/{spaceId}/content/reusable-contents/{reusableContentId}', (m) => m.getReusableContentRoute);
const listPageMetaLinksRoute = routes.route('get', '/spaces/{spaceId}/content/page/{pageId}/meta-links', (m) => m.listPageMetaLinksRoute);
const getCurrentRevisionRoute = routes.route('get', '/spaces/{spaceId}/content', (m) => m.getCurrentRevisionRoute);
const listPagesRoute = routes.route('get', '/spaces/{spaceId}/content/pages', (m) => m.listPagesRoute);
const listFilesRoute = routes.route('get', '/spaces/{spaceId}/content/files', (m) => m.listFilesRoute);
const getFileRoute = routes.route('get', '/spaces/{spaceId}/content/files/{fileId}', (m) => m.getFileRoute);
const getPageRoute = routes.route('get', '/spaces/{spaceId}/content/page/{pageId}', (m) => m.getPageRoute, {
  tokens: CONTENT_READ,
  param: { spaceId: ID, pageId: ID },
  query: {
    metadata: FLAG_TRUE,
    computed: FLAG_TRUE,
    format: { oneOf: ['document', 'markdown'] },
    evaluated: { oneOf: ['true', 'false', 'deterministic-only'] },
    dereferenced: { oneOf: ['true', 'false', 'reusable-contents'] },
  },
});
const getPageByPathRoute = routes.route('get', '/spaces/{spaceId}/content/path/{pagePath}', (m) => m.getPageByPathRoute);
/** The same operation when the path comes as several segments (`/content/path/guides/install`): not documented twice. */
const getPageByPathSegmentsRoute = routes.hiddenAt(getPageByPathRoute, '/spaces/{spaceId}/content/path/{pagePath{.+}}');

/** A read of the current content that site tokens may make too: as the token's visitor, of the published content. */
const publishedOrMember = (c: Context<AppBindings>, spaceId: string): ContentRequest => {
  const siteToken = siteTokenOf(c);
  return siteToken ? { ...request(c, spaceId, ''), source: { spaceId, published: siteToken } } : request(c, spaceId);
};

const request = (c: Context<AppBindings>, spaceId: string, userId = requireUser(c)): ContentRequest => ({
  db: c.get('db'),
  env: c.env,
  url: c.req.url,
  userId,
  source: { spaceId },
  // GitBook's `computed` (validated by each route's query schema): false reads computed pages as stored.
  computed: c.req.query('computed') !== 'false',
});

export const spaceContentRouter = createLazyRouter()
  .openapi(getReusableContentRoute, async (c) => {
    const { spaceId, reusableContentId } = c.req.valid('param');
    return c.json(await reusableContentResponse(publishedOrMember(c, spaceId), reusableContentId), 200);
  })
  .openapi(listPageMetaLinksRoute, async (c) => {
    const { spaceId, pageId } = c.req.valid('param');
    return c.json(await pageMetaLinksResponse(publishedOrMember(c, spaceId), pageId), 200);
  })
  .openapi(getCurrentRevisionRoute, async (c) => jsonText(c, await revisionResponseStream(request(c, c.req.valid('param').spaceId))))
  .openapi(listPagesRoute, async (c) => jsonText(c, await pagesResponseStream(request(c, c.req.valid('param').spaceId))))
  .openapi(listFilesRoute, async (c) => c.json(await filesResponse(request(c, c.req.valid('param').spaceId), c.req.valid('query')), 200))
  .openapi(getFileRoute, async (c) => {
    const { spaceId, fileId } = c.req.valid('param');
    return c.json(await fileResponse(request(c, spaceId), fileId), 200);
  })
  .openapi(getPageRoute, async (c) => {
    const { spaceId, pageId } = c.req.valid('param');
    // Its JSON text made by the read, which splices in a stored document's text and streams a page with child pages
    // (services/content/reads pageJson).
    return jsonText(c, await pageResponseJson(request(c, spaceId), pageId, pageOptions(c.req.valid('query'))));
  })
  .openapi(getPageByPathRoute, async (c) => {
    const { spaceId, pagePath } = c.req.valid('param');
    return jsonText(c, await pageByPathResponseJson(request(c, spaceId), pagePath, pageOptions(c.req.valid('query'))));
  })
  .openapi(getPageByPathSegmentsRoute, async (c) => {
    const { spaceId, pagePath } = c.req.valid('param');
    return jsonText(c, await pageByPathResponseJson(request(c, spaceId), pagePath, pageOptions(c.req.valid('query'))));
  });
