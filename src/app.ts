import type { OpenAPIHono } from '@hono/zod-openapi';
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { TrieRouter } from 'hono/router/trie-router';
import type { AppBindings } from './env';
import { MAX_PUBLISH_BODY_BYTES, PUBLISH_BODY_PATH } from './lib/body-limits';
import { errorResponse, onError } from './lib/errors';
import { MAX_CONTENT_BATCH_BYTES } from './services/content/files';
import { auditRecording } from './middleware/audit';
import { authenticate } from './middleware/auth';
import { requestContext } from './middleware/context';
import { limitByCaller, limitByClientIp, limitRefusedTokens, rateLimitHeaders } from './middleware/rate-limit';
import { MAX_SPEC_BODY_BYTES, SPEC_BODY_PATH } from './services/openapi/types';
import { CONVERSATIONS_BODY_LIMIT, CONVERSATIONS_BODY_PATH } from './services/conversations/types';
import { orgHostOf } from './services/organizations/hostnames';
import { hostnameOf, originOf } from './lib/request-origin';
import { ROUTE_MANIFEST } from './routes/manifest';
import { serveApiReference } from './routes/api-reference';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
const CONTENT_BATCH_PATH = /^\/v1\/spaces\/[^/]+\/change-requests\/[^/]+\/content$/;


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

/** Turns `/v1/spaces/:spaceId` into a matcher, to tell an unknown path (404) from a wrong method (405). */
function pathMatcher(path: string): RegExp {
  const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+');
  return new RegExp(`^${pattern}/?$`);
}

/**
 * A handler that serves a manifest route with the handler `load` gives, loading it on the route's first request.
 * Once loaded it is called directly: a warm request awaits no import.
 *
 * What is kept for the isolate is the loaded handler, never the promise of its load: each request that finds it
 * missing loads it itself (the module system still evaluates each module once). A request that went on from a
 * promise another request created answered with a Response workerd then refused to send ("Cannot perform I/O on
 * behalf of a different request", ReadableStreamSource: a plain 500), the requests of a route's first wave but the
 * one that started its load (test/platform/io-context.test.ts).
 */
function servedOnceLoaded(load: () => Promise<MiddlewareHandler<AppBindings>>): MiddlewareHandler<AppBindings> {
  let handler: MiddlewareHandler<AppBindings> | undefined;
  const loadAndServe: MiddlewareHandler<AppBindings> = async (c, next) => {
    const loaded = await load();
    handler ??= loaded;
    return handler(c, next);
  };
  return (c, next) => (handler ? handler(c, next) : loadAndServe(c, next));
}

/** The manifest's route (`method`, `path`) served with its group's handlers (group-app `routeHandler`). */
async function groupHandler(group: string, method: string, path: string): Promise<MiddlewareHandler<AppBindings>> {
  return (await import('./routes/group-app')).routeHandler(group, method, path);
}

function serveWithGroup(group: string, method: string, path: string): MiddlewareHandler<AppBindings> {
  return servedOnceLoaded(() => groupHandler(group, method, path));
}

/**
 * A route of the published site (group `site`): its handler (site/routes `siteRouteHandler`) called straight from
 * this app's match, with no group app between (a first page view's dispatch through one was part of a cold isolate's
 * first published page, issue 42 item 7); a route the site module does not list is served by its group's app.
 */
function serveSiteRoute(method: string, path: string): MiddlewareHandler<AppBindings> {
  return servedOnceLoaded(async () => {
    const own = (await import('./site/routes')).siteRouteHandler(method, path);
    return own ? async (c) => own(c) : groupHandler(SITE_GROUP, method, path);
  });
}

/** The route group of the published site's HTML (routes/groups.ts). */
const SITE_GROUP = 'site';

/**
 * Whether a host name is an organization's (`orgHostOf`), decided once per host and deployment configuration: the
 * decision reads the deployment's URLs from `env` (three URL parses), and every request asks it. Bounded: the host
 * is the client's to choose.
 */
const orgHosts = new WeakMap<object, Map<string, boolean>>();
function isOrgHost(hostname: string, env: AppBindings['Bindings']): boolean {
  let known = orgHosts.get(env);
  if (!known) orgHosts.set(env, (known = new Map()));
  let decided = known.get(hostname);
  if (decided === undefined) {
    decided = orgHostOf(hostname, env) !== null;
    if (known.size >= 1_000) known.clear();
    known.set(hostname, decided);
  }
  return decided;
}

/** An organization's host serves its site and nothing else: the HTML reader loads only for such a host. */
const siteHostDispatch: MiddlewareHandler<AppBindings> = async (c, next) => {
  if (!isOrgHost(hostnameOf(c.req.url), c.env)) return next();
  const site = await import('./site/routes');
  return site.siteHostDispatch(c, next);
};

/** The OpenAPI document, built on its first request (it needs every group); kept as a value (see `serveWithGroup`). */
type OpenApiDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;
let documentBuilt: OpenApiDocument | undefined;
async function openApiDocument(): Promise<OpenApiDocument> {
  if (documentBuilt) return documentBuilt;
  const { createDocumentedApp } = await import('./routes/documented-app');
  const app = await createDocumentedApp();
  documentBuilt ??= relativeTo(
    API_BASE_PATH,
    app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: { title: 'Docs Platform API', version: '1.0.0', description: 'Open, self-hostable Docs Platform API (GitBook-compatible).' },
    }),
  );
  return documentBuilt;
}

/**
 * The Worker's app. The middleware every request goes through is here; the routes are not: each (method,
 * path) of the route manifest (routes/manifest.ts) is served by its group's app, loaded on the group's first
 * request (routes/groups.ts). A cold isolate thus pays for its middleware and one group, not for ~230 routes'
 * schemas and every library behind them.
 */
export function createApp() {
  // A plain Hono app: zod and the OpenAPI machinery load with the first route group, not with the isolate.
  // The trie router: Hono's default (SmartRouter) compiles a RegExpRouter of every route on the first match, fails on
  // the `{.+}` paths (a page by path) and then builds the trie anyway: a cold isolate's first request paid for both.
  const app = new Hono<AppBindings>({ router: new TrieRouter() });
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
    // A request without a body (every read) has nothing to limit.
    if (!c.req.raw.body) return next();
    if (CONTENT_BATCH_PATH.test(c.req.path)) return contentBatchLimit(c, next);
    if (c.req.method === 'POST' && PUBLISH_BODY_PATH.test(c.req.path)) return publishLimit(c, next);
    if ((c.req.method === 'POST' || c.req.method === 'PUT') && SPEC_BODY_PATH.test(c.req.path)) return specLimit(c, next);
    if (c.req.method === 'POST' && CONVERSATIONS_BODY_PATH.test(c.req.path)) return conversationsLimit(c, next);
    return defaultLimit(c, next);
  });
  app.use('/v1/*', limitRefusedTokens);
  app.use('/v1/*', authenticate);
  app.use('/v1/*', limitByCaller);
  for (const [method, path, group] of ROUTE_MANIFEST) {
    // A state-changing route records its audit event in the batch of its change (middleware/audit).
    const audit = auditRecording(method, path);
    const serve = group === SITE_GROUP ? serveSiteRoute(method, path) : serveWithGroup(group, method, path);
    if (audit) app.on(method, path, audit, serve);
    else app.on(method, path, serve);
  }

  // Served with the server URL `<origin>/v1` and paths relative to it, as GitBook's document is: a client
  // generated from it calls `<origin>/v1/orgs`, and its operations have GitBook's paths.
  app.get('/openapi.json', async (c) => c.json({ ...(await openApiDocument()), servers: [{ url: `${originOf(c.req.url)}${API_BASE_PATH}` }] }));
  app.get('/docs', serveApiReference);
  // The deployment's root: where to go from here (the reference, the document, the API), as JSON or HTML.
  app.get('/', async (c) => (await import('./routes/home')).serveHome(c));

  // Made on the first unmatched request: a cold isolate compiles no regular expression it may not need.
  let documented: { method: string; matcher: RegExp }[] | undefined;
  app.notFound((c) => {
    documented ??= ROUTE_MANIFEST.filter(([, , , operation]) => operation).map(([method, path]) => ({ method, matcher: pathMatcher(path) }));
    const allowed = documented.filter((r) => r.matcher.test(c.req.path)).map((r) => r.method);
    // A path that only differs by a trailing slash is not that route: 404, not "method not allowed".
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      c.header('Allow', [...new Set(allowed)].join(', '));
      return errorResponse(c, 405, `Method ${c.req.method} is not allowed on ${c.req.path}`);
    }
    return errorResponse(c, 404, `No route for ${c.req.method} ${c.req.path}`);
  });
  return app;
}

export type App = ReturnType<typeof createApp>;
