import { Hono, type MiddlewareHandler } from 'hono';
import type { RouteConfig, RouteHandler } from '@hono/zod-openapi';
import type { AppBindings } from '../env';
import { tokenAccess } from '../middleware/token-access';
import { inOrder } from './handler-chain';
import type { TokenAccess } from './integration-scopes';
import { checkedInput, type ObjectCheck } from './request-checks';

/**
 * A router whose module evaluates no zod: its routes' definitions (defineRoute configs: zod schemas, OpenAPI
 * metadata) live in a module of their own, imported when the OpenAPI document is made or when a route that needs
 * them first serves a request. A hot route may carry `served`: what serving it needs (its token access, and a
 * precompiled check of its params and query, request-checks.ts), so that its first request in a cold isolate
 * evaluates no zod at all (issue 42 item 7: zod's module and the group's schemas were a third of a cold page read).
 * The document is made from the definitions as createRouter's routes make it (createDocumentedApp replays them into
 * one), so it does not change; test/platform/request-checks.test.ts holds each precompiled check to its zod schema.
 */
export class LazyRouter extends Hono<AppBindings> {
  /** The routes registered with `.openapi()`, in order: what the OpenAPI document replays. */
  readonly lazyRoutes: { route: LazyRoute; handler: unknown; hook: unknown }[] = [];

  /** Registers `route` on its method and path: built on its first request (see `LazyRoute`). */
  openapi<R extends RouteConfig>(route: LazyRouteOf<R>, handler: RouteHandler<R, AppBindings>, hook?: unknown): this {
    const lazy = route as unknown as LazyRoute;
    this.lazyRoutes.push({ route: lazy, handler, hook });
    let handlers: MiddlewareHandler<AppBindings> | undefined;
    // The handlers are kept once made, never the promise of their making: a request must not wait on a promise
    // another request created (workerd), so each request that finds none makes its own, and the first made is kept.
    const made = async () => (handlers ??= await lazy.handlers(handler as never, hook));
    this.on([lazy.method.toUpperCase()], [lazy.path.replaceAll(/\/{(.+?)}/g, '/:$1')], async (c, next) => (handlers ?? (await made()))(c, next));
    return this;
  }

  /** What the route manifest test reads of OpenAPIHono's registry: each documented route's method and path. */
  get openAPIRegistry() {
    return { definitions: this.lazyRoutes.filter(({ route }) => !route.hide).map(({ route }) => ({ type: 'route', route: { method: route.method, path: route.path } })) };
  }
}

export function createLazyRouter(): LazyRouter {
  return new LazyRouter();
}

/** What serving a route needs, without its zod definition: for a route whose first request must evaluate no zod. */
export interface Served {
  /** As defineRoute's `tokens` (the definition's must be the same: request-checks.test.ts). */
  tokens: TokenAccess;
  siteToken?: true;
  param?: ObjectCheck;
  query?: ObjectCheck;
}

/** A route of a LazyRouter: its method and path, known at once; its definition, loaded from its module on demand. */
export interface LazyRoute {
  method: string;
  path: string;
  hide: boolean;
  served?: Served;
  /** The definition (defineRoute's route), its module loaded first. */
  definition(): Promise<RouteConfig>;
  /** What serves it: the precompiled chain when `served` is given, else the one createRouter's routes run (zod). */
  handlers(handler: MiddlewareHandler<AppBindings>, hook: unknown): Promise<MiddlewareHandler<AppBindings>>;
}
/** A LazyRoute typed as its definition, so that handlers read `c.req.valid()` as they would from the definition. */
export type LazyRouteOf<R> = R & { readonly [LAZY]: true };
declare const LAZY: unique symbol;

/**
 * The routes defined in the module `load` imports (a module of defineRoute calls), for a LazyRouter:
 * `definitions.route('get', '/spaces/{spaceId}/content/page/{pageId}', (m) => m.getPageRoute, served)`. The method
 * and path are said again here, so that the router registers them without the module; the module's own must be the
 * same (checked when it loads).
 */
export function routeDefinitions<M>(load: () => Promise<M>) {
  let loaded: M | undefined;
  const module = async () => (loaded ??= await load());
  return {
    route<R extends RouteConfig>(method: R['method'], path: R['path'], pick: (m: M) => R, served?: Served): LazyRouteOf<R> {
      const definition = async (): Promise<RouteConfig> => {
        const route = pick(await module());
        if (route.method !== method || route.path !== path) throw new Error(`${method} ${path}: its definition is ${route.method} ${route.path}`);
        return route;
      };
      return lazyRoute({ method, path, hide: false, served, definition }) as unknown as LazyRouteOf<R>;
    },
    /** The route at another path, hidden from the document: hiddenRouteAt of its definition. */
    hiddenAt<R extends RouteConfig, P extends string>(route: LazyRouteOf<R>, path: P): LazyRouteOf<Omit<R, 'path'> & { path: P }> {
      const of = route as unknown as LazyRoute;
      const definition = async (): Promise<RouteConfig> => {
        const { hiddenRouteAt } = await import('./create-router');
        return hiddenRouteAt((await of.definition()) as RouteConfig & { method: R['method'] }, path) as RouteConfig;
      };
      return lazyRoute({ method: of.method, path, hide: true, served: of.served, definition }) as never;
    },
  };
}

function lazyRoute(source: Omit<LazyRoute, 'handlers'>): LazyRoute {
  return {
    ...source,
    async handlers(handler, hook) {
      if (source.served) return inOrder(servedHandlers(source.served, handler));
      const [{ servingHandlers }, route] = await Promise.all([import('./create-router'), source.definition()]);
      return inOrder(servingHandlers(route, handler, hook));
    },
  };
}

/** What createRouter's routes run (token access, query then params validated, the handler), zod-free. */
function servedHandlers(served: Served, handler: MiddlewareHandler<AppBindings>): MiddlewareHandler<AppBindings>[] {
  const validators = [served.query && checkedInput('query', served.query), served.param && checkedInput('param', served.param)];
  return [tokenAccess(served.tokens, served.siteToken === true), ...validators.filter((v) => v !== undefined), handler];
}

