import { Hono, type Context } from 'hono';
import type { AppBindings } from '../../env';
import { errorResponse } from '../../lib/errors';

/**
 * The objects' `urls.app` when the deployment has no app (`APP_URL` unset): they are built on the API's own
 * origin (`<origin>/o/<organizationId>/s/<spaceId>`, the app's URL scheme, schemas/common `urlContext`), and
 * each answers here with a redirect (302: an app configured later takes these URLs over) to the API
 * address of the same object, where the caller's token decides what they see. A pure rewrite of the path:
 * no lookup, so nothing here tells whether an id exists (the API answers that, to whoever may know).
 *
 * A page's app URL (`.../s/<spaceId>/<page path>`) leads to its space's (or change request's) page tree,
 * the API having no read of a page by its path at the head.
 */

const ID = /^[A-Za-z0-9_-]{1,128}$/;

type Ctx = Context<AppBindings>;

/** Redirects to `/v1` + the path built from the request's path parameters, all checked as ids first. */
function redirectTo(build: (p: (name: string) => string) => string, names: string[]) {
  return (c: Ctx) => {
    const values = Object.fromEntries(names.map((name) => [name, c.req.param(name) ?? '']));
    if (!Object.values(values).every((v) => ID.test(v))) return errorResponse(c, 404, `No route for ${c.req.method} ${c.req.path}`);
    const location = `/v1${build((name) => encodeURIComponent(values[name]))}`;
    return new Response(null, { status: 302, headers: { Location: location, 'Cache-Control': 'no-cache' } });
  };
}

export const appLinksRouter = new Hono<AppBindings>()
  .get('/o/:org', redirectTo((p) => `/orgs/${p('org')}`, ['org']))
  .get('/o/:org/c/:collection', redirectTo((p) => `/collections/${p('collection')}`, ['org', 'collection']))
  .get('/o/:org/s/:space', redirectTo((p) => `/spaces/${p('space')}`, ['org', 'space']))
  .get('/o/:org/s/:space/~/changes/:cr', redirectTo((p) => `/spaces/${p('space')}/change-requests/${p('cr')}`, ['org', 'space', 'cr']))
  .get('/o/:org/s/:space/~/changes/:cr/*', redirectTo((p) => `/spaces/${p('space')}/change-requests/${p('cr')}/content/pages`, ['org', 'space', 'cr']))
  .get('/o/:org/s/:space/*', redirectTo((p) => `/spaces/${p('space')}/content/pages`, ['org', 'space']))
  .get('/o/:org/sites/:site', redirectTo((p) => `/orgs/${p('org')}/sites/${p('site')}`, ['org', 'site']))
  .get('/o/:org/openapi/:slug', redirectTo((p) => `/orgs/${p('org')}/openapi/${p('slug')}`, ['org', 'slug']))
  .get('/o/:org/integrations/:name', redirectTo((p) => `/orgs/${p('org')}/installations?search=${p('name')}`, ['org', 'name']))
  .get('/o/:org/conversations/clusters/:cluster', redirectTo((p) => `/orgs/${p('org')}/conversations-clusters/${p('cluster')}`, ['org', 'cluster']))
  .get('/integrations/:name', redirectTo((p) => `/integrations/${p('name')}`, ['name']));
