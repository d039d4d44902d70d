import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import type { AppBindings } from '../env';
import { LazyRouter } from '../lib/lazy-router';
import { loadRouters } from './group-app';

/**
 * The app the OpenAPI document describes (app.ts, its first request): apart from group-app.ts, so that a route group's
 * first request (the published site's above all) evaluates neither lib/lazy-router nor what it imports (issue 42 item 7).
 */

/** Every router mounted on one app, in order, with the security schemes: the app the OpenAPI document describes. */
export async function createDocumentedApp() {
  const { createRouter, loadDocumentModules } = await import('../lib/create-router');
  const app = createRouter();
  const routers = await Promise.all((await loadRouters(null)).map(async ({ base, router }) => ({ base, router: await documentedRouter(router, createRouter) })));
  // Mounting copies each route's documented config (its responses read): the modules only they need come first.
  await loadDocumentModules();
  for (const { base, router } of routers) app.route(base, router);
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
  return app;
}

/**
 * The router the document reads: a LazyRouter's routes (lib/lazy-router, whose module evaluates no zod) replayed from
 * their definitions into a createRouter router, in order, as its own module would have registered them; any other
 * router as it is.
 */
async function documentedRouter(router: Hono<AppBindings, any, any>, createRouter: () => OpenAPIHono<AppBindings>) {
  if (!(router instanceof LazyRouter)) return router;
  const definitions = await Promise.all(router.lazyRoutes.map(({ route }) => route.definition()));
  const documented = createRouter();
  router.lazyRoutes.forEach(({ handler, hook }, i) => documented.openapi(definitions[i], handler as never, hook as never));
  return documented;
}
