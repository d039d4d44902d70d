import { OpenAPIHono, createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppBindings } from '../env';
import { limitCostly } from '../middleware/rate-limit';
import { tokenAccess } from '../middleware/token-access';
import { describeZodError, errorBody } from './errors';
import { inOrder } from './handler-chain';
import type { TokenAccess } from './integration-scopes';

/** The expensive rate limit policies an operation may add (`costly`): what `limitCostly` takes. */
type CostlyPolicy = Parameters<typeof limitCostly>[0];

const defaultHook: Hook = (result, c) => {
  if (!result.success) {
    const where = (result as { target?: string }).target ?? 'request';
    const label = where === 'json' ? 'body' : where === 'param' ? 'path' : where;
    return c.json(errorBody(400, describeZodError(result.error, label)), 400);
  }
};
type Hook = NonNullable<ConstructorParameters<typeof OpenAPIHono<AppBindings>>[0]>['defaultHook'];

/**
 * A router of OpenAPI routes. A route made by defineRoute is built on demand: `.openapi(route, handler)` registers
 * its method and path at once, and builds its schemas, validators and middleware on the first request it serves
 * (or when the OpenAPI document is made, which reads every route): a cold isolate's first request builds the zod
 * schemas of its own route, not those of every route of its group. The routes it then runs are what OpenAPIHono's
 * own `.openapi()` makes of the built route, so validation and the document are those of an eager route.
 */
export function createRouter() {
  const router = new OpenAPIHono<AppBindings>({ defaultHook });
  const eager = router.openapi;
  router.openapi = ((route: RouteConfig, handler: never, hook: never) => {
    const source = (route as Partial<LazyRoute>)[LAZY_ROUTE];
    if (!source) return eager(route, handler, hook);
    registerOnDemand(router, source, handler, hook);
    return router;
  }) as typeof eager;
  return router;
}

const LAZY_ROUTE = Symbol('route built on demand');
interface RouteSource {
  method: string;
  path: string;
  hide: boolean;
  build: () => RouteConfig;
}
interface LazyRoute {
  [LAZY_ROUTE]: RouteSource;
}

/**
 * An object that is `build()`'s result, built on first use (a property read, a spread): what defineRoute answers
 * for code that reads a route's config (a test, a spread), and what the OpenAPI registry holds until the document
 * reads it.
 */
function builtOnFirstUse<T extends object>(build: () => T, source?: RouteSource): T {
  let built: T | undefined;
  const target = () => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => (key === LAZY_ROUTE ? source : Reflect.get(target(), key)),
    has: (_, key) => (key === LAZY_ROUTE ? source !== undefined : Reflect.has(target(), key)),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(target(), key),
  });
}

/**
 * Registers a route built on demand as OpenAPIHono's `.openapi()` registers a built one: its path in the OpenAPI
 * registry, in order, unless hidden (built when the document reads it), and one handler on its method and path
 * that, on its first request, builds the route and what `.openapi()` makes of it (token access, validators, the
 * handler), then runs them in order on every request.
 */
function registerOnDemand(router: OpenAPIHono<AppBindings>, source: RouteSource, handler: never, hook: never) {
  let built: RouteConfig | undefined;
  const route = () => (built ??= source.build());
  if (!source.hide) router.openAPIRegistry.registerPath(builtOnFirstUse(() => withoutKeys(route(), ['middleware', 'hide'])));
  let handlers: MiddlewareHandler<AppBindings> | undefined;
  const serve = () => inOrder(servingHandlers(route(), handler, hook));
  router.on([source.method], [source.path.replaceAll(/\/{(.+?)}/g, '/:$1')], (c, next) => (handlers ??= serve())(c, next));
}

/** What `.openapi()` makes of a built route to serve it (token access, validators, the handler), in order. */
export function servingHandlers(route: RouteConfig, handler: unknown, hook: unknown): MiddlewareHandler<AppBindings>[] {
  const scratch = new OpenAPIHono<AppBindings>({ defaultHook });
  // Without its responses: `.openapi()` never reads them to serve, and they may need a document-only module.
  scratch.openapi(withoutKeys(route, ['responses']) as never, handler as never, hook as never);
  return scratch.routes.map((r) => r.handler as MiddlewareHandler<AppBindings>);
}

/**
 * `value`'s own properties but `keys`, in order, copied as they are defined: an accessor stays an accessor, unread
 * (a route's `responses` may read a document-only module: `documentOnly`), where a spread would read it.
 */
function withoutKeys<T extends object>(value: T, keys: readonly string[]): T {
  const descriptors = Object.getOwnPropertyDescriptors(value) as Record<string | symbol, PropertyDescriptor>;
  for (const key of keys) delete descriptors[key];
  return Object.defineProperties({}, descriptors) as T;
}

/** What documentOnly modules need loading before the OpenAPI document is made. */
const DOCUMENT_MODULES = new Set<() => Promise<void>>();

/**
 * A module of schemas only the OpenAPI document reads: a route's response schemas (`@hono/zod-openapi` never reads
 * `responses` to serve a request). It is imported when the document is made (`loadDocumentModules`, group-app.ts),
 * so a cold isolate's first request does not evaluate it: for a page read, schemas/revision was an eighth of its
 * CPU (issue 42 item 7). The route reads it in a `responses` getter, which defineRoute keeps unread until then:
 *
 *     const revision = documentOnly(() => import('../../schemas/revision'));
 *     defineRoute('get', path, () => ({ ..., get responses() { return { 200: jsonResponse(revision().RevisionSchema, 'The revision') }; } }));
 *
 * Reading it before (a test reading a route's responses without the document) throws, saying so.
 */
export function documentOnly<M>(load: () => Promise<M>): () => M {
  let loaded: M | undefined;
  DOCUMENT_MODULES.add(async () => {
    loaded ??= await load();
  });
  return () => {
    if (loaded === undefined) throw new Error('A document-only module was read before the OpenAPI document loaded it (loadDocumentModules)');
    return loaded;
  };
}

/** Imports every documentOnly module of the routers loaded so far: before the OpenAPI document reads their routes. */
export async function loadDocumentModules(): Promise<void> {
  await Promise.all([...DOCUMENT_MODULES].map((load) => load()));
}

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.number().int().openapi({ example: 404 }),
      message: z.string().openapi({ example: 'Space not found' }),
    }),
  })
  .openapi('Error');

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorSchema } },
});

const rateLimitHeaders = {
  'Retry-After': { description: 'Seconds until the exhausted budget starts again', schema: { type: 'integer' as const, minimum: 1 } },
  'RateLimit-Policy': {
    description: 'Each rate limit policy counted for this request: `"<policy>";q=<requests>;w=<seconds>`',
    schema: { type: 'string' as const },
  },
  RateLimit: {
    description: 'What is left of each policy\'s window: `"<policy>";r=<remaining>;t=<seconds to reset>`',
    schema: { type: 'string' as const },
  },
};

const tooManyRequests = (costly?: CostlyPolicy) => ({
  ...errorResponse(
    costly
      ? `Too many requests: the caller's rate limit, or this operation's own lower "${costly}" limit, is spent until the window resets`
      : "Too many requests: the caller's rate limit (per token's user, installation or client IP) is spent until the window resets",
  ),
  headers: rateLimitHeaders,
});

const STANDARD_ERRORS = {
  400: errorResponse('Invalid request'),
  401: errorResponse('Missing or invalid API token'),
  403: errorResponse('The caller may see the resource but not do this'),
  404: errorResponse('Not found, or not visible to the caller'),
  429: tooManyRequests(),
} as const;

/**
 * createRoute with bearer security and the standard error responses every operation can answer, built on demand:
 * `config` (everything but the method and path) is called when the route first serves a request or the OpenAPI
 * document is made (createRouter), so the zod schemas written inside it cost nothing until then. Schemas declared
 * at a module's top level (a schemas/ module, a body schema beside the route) are still built when the module loads.
 * `tokens` says what integration tokens may call it (services/integrations/scopes): the installation
 * scope it needs, documented as the `installationToken` security scheme's scope. Without it, integration
 * and installation tokens are refused (403). `costly` names the expensive operation's own rate limit
 * policy, counted on top of the caller's (services/limits/rate-limits). `visitors`: the operation also answers
 * without a token, what a published site's visitors may read (documented as optional authentication).
 *
 * `siteToken: true` admits site tokens (services/sites/site-token): the bearer resolvePublishedContentByUrl
 * hands a published site's renderer, standing for one visitor of one site. It is an allowlist: every operation
 * without it answers 403 to a site token (middleware/token-access), so only the reads a renderer makes of a
 * site's published content carry it. Where it is set:
 * - the path names what the token must own: `{organizationId}` (its organization), `{siteId}` (its site) or
 *   `{spaceId}` (one of its `spaces`), checked before the handler (another one reads as 404). A route with
 *   none of them cannot take the option (defineRoute throws), nor can a PUT, PATCH or DELETE: a site token
 *   never changes anything (a POST only for reads that take a body, such as a search).
 * - the handler reads as the visitor the token stands for: `siteTokenOf(c)` gives its payload (claims for
 *   adaptive content, the site, the spaces); it checks that the site is still published and still has the
 *   space (services/sites/site-token `siteTokenSpaceQuery`, in the handler's own batch), and reads only the
 *   published content (a space's current revision), never drafts, change requests or unpublished sites.
 * - it is documented as the `siteToken` security scheme (test/platform/adversarial-* attack every other
 *   operation with one).
 */
export function defineRoute<M extends RouteConfig['method'], P extends string, R extends Omit<RouteConfig, 'path' | 'method'> & RouteOptions>(
  method: M,
  path: P,
  config: () => R,
): BuiltRoute<M, P, R> {
  // Built once, whoever asks first (its registration, the document, a hidden variant spreading it, a test reading it).
  let built: RouteConfig | undefined;
  const source: RouteSource = { method, path, hide: false, build: () => (built ??= buildRoute(method, path, config()) as RouteConfig) };
  return builtOnFirstUse(source.build, source) as unknown as BuiltRoute<M, P, R>;
}

/** `route` at another path (the same operation where its parameter may span segments), hidden from the document. */
export function hiddenRouteAt<M extends RouteConfig['method'], P extends string, R extends RouteConfig>(route: R & { method: M }, path: P) {
  const source = (route as Partial<LazyRoute>)[LAZY_ROUTE];
  // Its properties copied as defined (withoutKeys): `responses` stays unread, as defineRoute keeps it.
  const build = () => Object.assign(withoutKeys(route, []), { path, hide: true }) as unknown as Omit<R, 'path'> & { path: P; hide: true };
  if (!source) return build();
  return builtOnFirstUse(build, { method: source.method, path, hide: true, build: build as () => RouteConfig });
}

interface RouteOptions {
  tokens?: TokenAccess;
  costly?: CostlyPolicy;
  visitors?: true;
  siteToken?: true;
}
/** What createRoute answers for the route (as it did when defineRoute built it at once): its types are the handler's. */
type BuiltRoute<M extends RouteConfig['method'], P extends string, R> = Omit<R, 'tokens' | 'costly'> & { method: M; path: P; getRoutingPath(): string };

/** defineRoute's own options, which createRoute's config does not take. */
const ROUTE_OPTIONS = ['tokens', 'costly', 'visitors', 'siteToken'];

/**
 * What createRoute made of the config (the same properties in the same order, so the same document), except that
 * `responses` stays an accessor read once, when the document reads it: a config may write it as a getter reading a
 * documentOnly module, which serving a request never loads.
 */
function buildRoute(method: RouteConfig['method'], path: string, config: Omit<RouteConfig, 'path' | 'method'> & RouteOptions) {
  const { tokens = {}, costly, visitors, siteToken } = config;
  if (siteToken) assertSiteTokenRoute(method, path);
  const security = routeSecurity(tokens, siteToken, visitors);
  const middleware = config.middleware === undefined ? [] : Array.isArray(config.middleware) ? config.middleware : [config.middleware];
  const route: Record<string, unknown> = Object.defineProperties({ security, method, path }, Object.getOwnPropertyDescriptors(withoutKeys(config, ROUTE_OPTIONS)));
  route.middleware = [tokenAccess(tokens, siteToken === true), ...(costly ? [limitCostly(costly)] : []), ...middleware];
  let responses: RouteConfig['responses'] | undefined;
  const read = Object.getOwnPropertyDescriptor(config, 'responses');
  Object.defineProperty(route, 'responses', {
    enumerable: true,
    configurable: true,
    get: () => (responses ??= { ...STANDARD_ERRORS, ...(costly ? { 429: tooManyRequests(costly) } : {}), ...(read?.get ? read.get.call(config) : read?.value) }),
  });
  // createRoute's own addition, not enumerable.
  Object.defineProperty(route, 'getRoutingPath', { value: () => path.replaceAll(/\/{(.+?)}/g, '/:$1'), enumerable: false, writable: true, configurable: true });
  return route as unknown as ReturnType<typeof createRoute>;
}

/** The OpenAPI security requirements of a route with these options (defineRoute's `tokens`, `siteToken`, `visitors`). */
export function routeSecurity(tokens: TokenAccess, siteToken?: true, visitors?: true): Record<string, string[]>[] {
  const security: Record<string, string[]>[] = [{ bearerAuth: [] }];
  if (tokens.scope) security.push({ installationToken: tokens.scope === 'installation' ? [] : [tokens.scope] });
  if (tokens.integration) security.push({ integrationToken: [] });
  if (siteToken) security.push({ siteToken: [] });
  // The empty requirement is OpenAPI's "no authentication": a published site's visitors call it without a
  // token (middleware/auth's VISITOR_READS admits them; test/platform/openapi.test.ts holds the two together).
  if (visitors) security.push({});
  return security;
}

/** A site token reads, and only what the path ties to its organization, site or spaces. */
function assertSiteTokenRoute(method: string, path: string): void {
  if (method !== 'get' && method !== 'post') throw new Error(`${method.toUpperCase()} ${path}: site tokens never change anything`);
  if (!/\{(organizationId|siteId|spaceId)\}/.test(path)) throw new Error(`${path}: a route admitting site tokens must name {organizationId}, {siteId} or {spaceId}`);
}

/** A JSON request body that must be present and valid. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { body: { required: true, description, content: { 'application/json': { schema } } } };
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export const noContent = (description: string) => ({ description });
