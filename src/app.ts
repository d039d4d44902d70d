import { OpenAPIHono } from '@hono/zod-openapi';
import { Scalar } from '@scalar/hono-api-reference';
import { bodyLimit } from 'hono/body-limit';
import type { AppBindings } from './env';
import { createRouter } from './lib/create-router';
import { errorResponse, onError } from './lib/errors';
import { MAX_CONTENT_BATCH_BYTES } from './services/files';
import { authenticate } from './middleware/auth';
import { requestContext } from './middleware/context';
import { limitByCaller, limitByClientIp, limitRefusedTokens, rateLimitHeaders } from './middleware/rate-limit';
import { changeRequestContentRouter } from './routes/change-request-content/content';
import { importRouter } from './routes/change-request-content/import';
import { changeRequestsRouter } from './routes/change-requests/change-requests';
import { pdfRouter } from './routes/change-requests/pdf';
import { reviewsRouter } from './routes/change-requests/reviews';
import { changeRequestCommentsRouter, spaceCommentsRouter } from './routes/comments/comments';
import { collectionsRouter } from './routes/collections/collections';
import { downloadsRouter } from './routes/files/downloads';
import { tokensRouter } from './routes/identity/tokens';
import { usersRouter } from './routes/identity/users';
import { MAX_PUBLISH_BODY_BYTES, PUBLISH_BODY_PATH } from './schemas/integration';
import { MAX_SPEC_BODY_BYTES, SPEC_BODY_PATH } from './services/openapi/types';
import { CONVERSATIONS_BODY_LIMIT, CONVERSATIONS_BODY_PATH } from './services/conversations/types';
import { integrationAssetsRouter } from './routes/integrations/assets';
import { integrationEventsRouter } from './routes/integrations/events';
import { integrationInstallationsRouter } from './routes/integrations/installations';
import { integrationPublicRouter } from './routes/integrations/public-endpoint';
import { integrationsRouter } from './routes/integrations/integrations';
import { integrationSiteInstallationsRouter } from './routes/integrations/site-installations';
import { integrationSpaceInstallationsRouter } from './routes/integrations/space-installations';
import { invitesRouter } from './routes/organizations/invites';
import { openapiPublishedRouter } from './routes/openapi/published';
import { conversationsRouter } from './routes/conversations/conversations';
import { conversationClustersRouter } from './routes/conversations/clusters';
import { conversationIssuesRouter } from './routes/conversations/issues';
import { openapiSpecsRouter } from './routes/openapi/specs';
import { openapiVersionsRouter } from './routes/openapi/versions';
import { membersRouter } from './routes/organizations/members';
import { agentInstructionsRouter } from './routes/organizations/agent-instructions';
import { organizationsRouter } from './routes/organizations/organizations';
import { linksRouter } from './routes/links/links';
import { searchRouter } from './routes/search/search';
import { spaceContentRouter } from './routes/space-content/content';
import { spaceTemplateRouter } from './routes/space-content/template';
import { spaceUsersRouter } from './routes/space-users/permissions';
import { siteAdaptiveRouter } from './routes/sites/adaptive';
import { siteCustomizationRouter } from './routes/sites/customization';
import { publishedSiteRouter } from './routes/sites/published';
import { siteSectionGroupsRouter } from './routes/sites/section-groups';
import { siteSectionsRouter } from './routes/sites/sections';
import { siteSharingRouter } from './routes/sites/sharing';
import { siteSpacesRouter } from './routes/sites/site-spaces';
import { sitesRouter } from './routes/sites/sites';
import { spacesRouter } from './routes/spaces/spaces';
import { teamMembersRouter } from './routes/teams/team-members';
import { teamsRouter } from './routes/teams/teams';
import { translationsRouter } from './routes/translations/translations';
import { samlProvidersRouter } from './routes/sso/saml-providers';
import { samlLoginRouter } from './routes/sso/saml-login';
import { siteHostDispatch, siteRouter } from './site/routes';
import { urlsRouter } from './routes/urls/published';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
const CONTENT_BATCH_PATH = /^\/v1\/spaces\/[^/]+\/change-requests\/[^/]+\/content$/;

const ROUTERS = [
  usersRouter,
  tokensRouter,
  organizationsRouter,
  membersRouter,
  invitesRouter,
  teamsRouter,
  teamMembersRouter,
  collectionsRouter,
  spacesRouter,
  spaceUsersRouter,
  spaceContentRouter,
  changeRequestsRouter,
  changeRequestContentRouter,
  spaceCommentsRouter,
  changeRequestCommentsRouter,
  reviewsRouter,
  searchRouter,
  linksRouter,
  importRouter,
  spaceTemplateRouter,
  agentInstructionsRouter,
  pdfRouter,
  sitesRouter,
  siteSectionsRouter,
  siteSectionGroupsRouter,
  siteSpacesRouter,
  siteSharingRouter,
  siteAdaptiveRouter,
  siteCustomizationRouter,
  publishedSiteRouter,
  openapiSpecsRouter,
  openapiVersionsRouter,
  integrationsRouter,
  integrationInstallationsRouter,
  integrationSpaceInstallationsRouter,
  integrationSiteInstallationsRouter,
  integrationEventsRouter,
  conversationsRouter,
  conversationClustersRouter,
  conversationIssuesRouter,
  translationsRouter,
  samlProvidersRouter,
  urlsRouter,
];

/** Every API route is under this path; the served OpenAPI document's server URL ends with it. */
export const API_BASE_PATH = '/v1';

/** The document with its paths relative to `base` (`/v1/orgs` -> `/orgs`); every documented route is under it. */
function relativeTo<D extends { paths?: Record<string, unknown> }>(base: string, doc: D): D {
  const paths = Object.entries(doc.paths ?? {}).map(([path, item]) => {
    if (!path.startsWith(`${base}/`)) throw new Error(`Documented route ${path} is outside ${base}`);
    return [path.slice(base.length), item] as const;
  });
  return { ...doc, paths: Object.fromEntries(paths) };
}

/** Turns `/v1/spaces/{spaceId}` into a matcher, to tell an unknown path (404) from a wrong method (405). */
function pathMatcher(path: string): RegExp {
  const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${pattern}/?$`);
}

export function createApp() {
  const app = createRouter();
  app.onError(onError);
  app.use('*', requestContext);
  app.use('*', rateLimitHeaders);
  // Outside the API (downloads, public specs, integrations' public endpoints, the document) there is no
  // token: those requests count against their client address.
  app.use('*', (c, next) => (c.req.path.startsWith(`${API_BASE_PATH}/`) ? next() : limitByClientIp(c, next)));
  // An organization's host serves its site and nothing else: decided before any of the API's middleware.
  app.use('*', siteHostDispatch);
  // Content batches may carry files as base64: they get a larger limit than every other body.
  const limitTo = (maxSize: number) =>
    bodyLimit({ maxSize, onError: (c) => errorResponse(c, 413, `Request body is larger than ${maxSize} bytes`) });
  const defaultLimit = limitTo(DEFAULT_BODY_LIMIT);
  const contentBatchLimit = limitTo(MAX_CONTENT_BATCH_BYTES);
  // An integration's publish carries its script, icon and preview images as base64.
  const publishLimit = limitTo(MAX_PUBLISH_BODY_BYTES);
  // An OpenAPI spec may be given as its whole text.
  const specLimit = limitTo(MAX_SPEC_BODY_BYTES);
  // Conversations are ingested up to a hundred at a time.
  const conversationsLimit = limitTo(CONVERSATIONS_BODY_LIMIT);
  app.use('/v1/*', (c, next) => {
    if (CONTENT_BATCH_PATH.test(c.req.path)) return contentBatchLimit(c, next);
    if (c.req.method === 'POST' && PUBLISH_BODY_PATH.test(c.req.path)) return publishLimit(c, next);
    if ((c.req.method === 'POST' || c.req.method === 'PUT') && SPEC_BODY_PATH.test(c.req.path)) return specLimit(c, next);
    if (c.req.method === 'POST' && CONVERSATIONS_BODY_PATH.test(c.req.path)) return conversationsLimit(c, next);
    return defaultLimit(c, next);
  });
  app.use('/v1/*', limitRefusedTokens);
  app.use('/v1/*', authenticate);
  app.use('/v1/*', limitByCaller);
  for (const router of ROUTERS) app.route(API_BASE_PATH, router);
  app.route('/', downloadsRouter);
  app.route('/', integrationAssetsRouter);
  app.route('/', integrationPublicRouter);
  app.route('/', openapiPublishedRouter);
  app.route('/', samlLoginRouter);
  app.route('/', siteRouter);

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token: `Authorization: Bearer <token>`',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'installationToken', {
    type: 'http',
    scheme: 'bearer',
    description:
      "An integration installation's temporary token (createIntegrationInstallationToken): it reaches only its organization and the spaces and sites the installation covers, and only operations whose scope the integration was published with (the scope listed here).",
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'integrationToken', {
    type: 'http',
    scheme: 'bearer',
    description: "An integration's own temporary token (given to its script with each event): it manages the integration's installations.",
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'siteToken', {
    type: 'http',
    scheme: 'bearer',
    description:
      "A site token (the `apiToken` of resolvePublishedContentByUrl, a JWT valid an hour): one visitor of one published site, reading that site's published content through the operations that list it, and nothing else.",
  });
  // Served with the server URL `<origin>/v1` and paths relative to it, as GitBook's document is: a client
  // generated from it calls `<origin>/v1/orgs`, and its operations have GitBook's paths.
  let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  app.get('/openapi.json', (c) => {
    document ??= relativeTo(
      API_BASE_PATH,
      app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: { title: 'Docs Platform API', version: '1.0.0', description: 'Open, self-hostable Docs Platform API (GitBook-compatible).' },
      }),
    );
    return c.json({ ...document, servers: [{ url: `${new URL(c.req.url).origin}${API_BASE_PATH}` }] });
  });
  app.get('/docs', Scalar({ url: '/openapi.json', pageTitle: 'Docs Platform API reference' }));

  const routes = app.openAPIRegistry.definitions
    .filter((d): d is Extract<typeof d, { type: 'route' }> => d.type === 'route')
    .map((d) => ({ method: d.route.method.toUpperCase(), matcher: pathMatcher(d.route.path) }));

  app.notFound((c) => {
    const allowed = routes.filter((r) => r.matcher.test(c.req.path)).map((r) => r.method);
    // A path that only differs by a trailing slash is not that route: 404, not "method not allowed".
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      c.header('Allow', [...new Set(allowed)].join(', '));
      return errorResponse(c, 405, `Method ${c.req.method} is not allowed on ${c.req.path}`);
    }
    return errorResponse(c, 404, `No route for ${c.req.method} ${c.req.path}`);
  });
  return app;
}

export type App = OpenAPIHono<AppBindings>;
