import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import type { AppBindings } from '../env';
import { errorResponse, onError } from '../lib/errors';
import { inOrder } from '../lib/handler-chain';
import { ROUTERS } from './groups';

/**
 * The apps behind app.ts's routes, loaded with the first request that needs a route group: each group's app
 * (its routers), and the app of every router the OpenAPI document describes.
 */

/** How a request reaches a route group's app: the request's context, adopted by the group's own. */
export const PARENT_CONTEXT = new WeakMap<Request, Context<AppBindings>>();

/**
 * A route group's app: its routers on a router of their own, behind the middleware the main app ran. Its
 * first middleware takes the main app's context variables (database, caller, rate limits, request id) and
 * gives back what the group set, so that the main app's middleware sees the request as if it had served it.
 */
const adoptParentContext: MiddlewareHandler<AppBindings> = async (c, next) => {
  const parent = PARENT_CONTEXT.get(c.req.raw);
  if (parent) for (const [key, value] of Object.entries(parent.var)) c.set(key as never, value as never);
  await next();
  if (parent) for (const [key, value] of Object.entries(c.var)) parent.set(key as never, value as never);
};

function groupApp(routers: readonly RouterModule[]) {
  // A plain Hono app: each router validates with its own hooks (lib/create-router), and the published site's
  // group builds no zod (an OpenAPIHono here would load zod and its OpenAPI extension for every page view).
  // Its router is the trie, as the main app's (app.ts): Hono's default tries to compile a RegExpRouter on the first
  // match and falls back to the trie where a path needs it (`{.+}`: content by path), so a cold isolate built both.
  const app = new Hono<AppBindings>({ router: new TrieRouter() });
  app.onError(onError);
  app.use('*', adoptParentContext);
  for (const { base, router } of routers) app.route(base, router);
  app.notFound((c) => errorResponse(c, 404, `No route for ${c.req.method} ${c.req.path}`));
  return app;
}

interface RouterModule {
  base: '/v1' | '/';
  router: Hono<AppBindings, any, any>;
}

/** Loads every router of `group` (all of them when it is null), in mount order. */
export async function loadRouters(group: string | null): Promise<RouterModule[]> {
  const entries = ROUTERS.filter((entry) => group === null || entry.group === group);
  // No module needs loading before them: the build makes every import of zod's `z` run @hono/zod-openapi's
  // extension first (build-worker.mjs, zodOpenApiFirst), wherever the module is reached from (jobs, cron).
  return Promise.all(entries.map(async ({ base, load }) => ({ base, router: await load() })));
}

/**
 * Each group's app, made once per isolate by the first request that needs it. The app is kept, never the promise of
 * its making: a request that finds none makes its own (its routers' modules are evaluated once all the same), and the
 * first made is kept. A request must not go on from a promise another request created (app.ts `serveWithGroup`).
 */
const groupApps = new Map<string, Hono<AppBindings>>();
export async function loadGroup(group: string): Promise<Hono<AppBindings>> {
  const known = groupApps.get(group);
  if (known) return known;
  const app = groupApp(await loadRouters(group));
  const first = groupApps.get(group);
  if (first) return first;
  groupApps.set(group, app);
  return app;
}

/**
 * What serves the manifest's route (`method`, `path`) of `group` from now on, in the main app's own context: the
 * route's handlers as its group registered them (token access, validators, the handler), run in order. The main
 * app's route match found the route, so its parameters are the group route's (same path): a warm request is
 * routed once, and makes no second context. A group that has handlers on more than its routes' own paths
 * (`use` middleware, `ALL` routes, wildcards) could run several of them for one request: its requests still go
 * through the group's app (routed there a second time), which alone knows which of them match.
 */
export async function routeHandler(group: string, method: string, path: string): Promise<MiddlewareHandler<AppBindings>> {
  const app = await loadGroup(group);
  const handlers = ownHandlers(app, method, path);
  return handlers ? inOrder(handlers) : async (c) => serveThroughGroupApp(app, c);
}

/** The handlers of exactly (`method`, `path`) in `app`, or undefined when other entries of `app` might match its requests too. */
export function ownHandlers(app: Hono<AppBindings, any, any>, method: string, path: string): MiddlewareHandler<AppBindings>[] | undefined {
  if (path.includes('*')) return undefined;
  const catchAll = app.routes.some((r) => r.handler !== adoptParentContext && (r.method === 'ALL' || r.path.includes('*')));
  if (catchAll) return undefined;
  const handlers = app.routes.filter((r) => r.method === method && r.path === path).map((r) => r.handler as MiddlewareHandler<AppBindings>);
  return handlers.length > 0 ? handlers : undefined;
}

/** The request served by the group's app: its own route match and context, which adopts the main app's. */
function serveThroughGroupApp(app: Hono<AppBindings, any, any>, c: Context<AppBindings>) {
  PARENT_CONTEXT.set(c.req.raw, c);
  let executionCtx: Context<AppBindings>['executionCtx'] | undefined;
  try {
    executionCtx = c.executionCtx;
  } catch {
    // app.request() in tests runs without one
  }
  return app.fetch(c.req.raw, c.env, executionCtx);
}
