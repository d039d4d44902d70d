/**
 * lib/create-router: a route made by defineRoute is built on demand. Registering it builds nothing; its first
 * request builds it once (schemas, validators, token access) and it then validates, refuses and answers as the same
 * route built at once; the OpenAPI document, which reads every route, describes it as the eager route, in order.
 */
import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppBindings } from '../../src/env';
import { createRouter, defineRoute, documentOnly, hiddenRouteAt, jsonResponse, loadDocumentModules } from '../../src/lib/create-router';
import { onError } from '../../src/lib/errors';

/** Two routes whose configs count how often they are built; `eager`: the same routes, built before registration. */
function routers(eager = false) {
  const builds = { get: 0, post: 0 };
  const getThing = defineRoute('get', '/things/{thingId}', () => {
    builds.get++;
    return {
      operationId: 'getThing',
      tokens: { scope: 'space:content:read' as const },
      summary: 'A thing',
      request: { params: z.object({ thingId: z.string().min(3) }), query: z.object({ n: z.coerce.number().int().optional() }) },
      responses: { 200: jsonResponse(z.object({ id: z.string(), n: z.number().optional() }).openapi('Thing'), 'The thing') },
    };
  });
  const postThing = defineRoute('post', '/things', () => {
    builds.post++;
    return { operationId: 'createThing', summary: 'Make a thing', responses: { 201: jsonResponse(z.object({ id: z.string() }), 'Made') } };
  });
  const anyDepth = hiddenRouteAt(getThing, '/things/{thingId{.+}}');
  const router = createRouter()
    .openapi(eager ? { ...getThing } : getThing, (c) => c.json({ id: c.req.valid('param').thingId, n: c.req.valid('query').n }, 200))
    .openapi(eager ? { ...postThing } : postThing, (c) => c.json({ id: 'new' }, 201))
    .openapi(eager ? { ...anyDepth } : anyDepth, (c) => c.json({ id: c.req.valid('param').thingId }, 200));
  return { router, builds };
}

function appOf(router: ReturnType<typeof routers>['router'], actor: unknown = { kind: 'user' }) {
  const app = new Hono<AppBindings>();
  app.onError(onError);
  app.use('*', async (c, next) => {
    c.set('actor', actor as never);
    await next();
  });
  app.route('/v1', router);
  return app;
}

describe('routes built on demand (defineRoute)', () => {
  it('builds a route on its first request only, once', async () => {
    const { router, builds } = routers();
    const app = appOf(router);
    expect(builds).toEqual({ get: 0, post: 0 });
    expect((await app.request('/v1/things', { method: 'POST' })).status).toBe(201);
    expect(builds).toEqual({ get: 0, post: 1 });
    const read = await app.request('/v1/things/abc?n=4');
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ id: 'abc', n: 4 });
    await app.request('/v1/things/abd');
    expect(builds).toEqual({ get: 1, post: 1 });
    // The hidden variant at another path (built by spreading the route) is the same build, not a second one.
    expect((await app.request('/v1/things/a/b/c')).status).toBe(200);
    expect(builds).toEqual({ get: 1, post: 1 });
  });

  it('validates and refuses as the route built at once', async () => {
    for (const eager of [false, true]) {
      const { router } = routers(eager);
      const bad = await appOf(router).request('/v1/things/ab?n=x');
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(400);
      // Token access runs first: an installation token without the scope is refused before the handler.
      const installation = { kind: 'installation', grant: { scopes: [], orgId: 'o', sites: 'all', spaces: 'all' } };
      const refused = await appOf(routers(eager).router, installation).request('/v1/things/abc');
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('space:content:read');
      expect((await appOf(router).request('/v1/things/a/b/c')).status).toBe(200);
    }
  });

  it('is described in the OpenAPI document as the eager route, in order, the hidden one not at all', () => {
    const documentOf = (eager: boolean) => {
      const app = createRouter();
      app.route('/v1', routers(eager).router);
      return app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } });
    };
    const lazy = documentOf(false);
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(documentOf(true)));
    expect(Object.keys(lazy.paths ?? {})).toEqual(['/v1/things/{thingId}', '/v1/things']);
  });
});

describe('response schemas only the document reads (documentOnly)', () => {
  it('serving a route and its hidden variant never loads them; the document loads them and describes them', async () => {
    let loads = 0;
    const schemas = documentOnly(async () => {
      loads++;
      return { Note: z.object({ id: z.string() }).openapi('DocumentOnlyNote') };
    });
    const getNote = defineRoute('get', '/notes/{noteId}', () => ({
      operationId: 'getNote',
      summary: 'A note',
      request: { params: z.object({ noteId: z.string().min(3) }) },
      get responses() {
        return { 200: jsonResponse(schemas().Note, 'The note') };
      },
    }));
    const router = createRouter()
      .openapi(getNote, (c) => c.json({ id: c.req.valid('param').noteId }, 200))
      .openapi(hiddenRouteAt(getNote, '/notes/{noteId{.+}}'), (c) => c.json({ id: c.req.valid('param').noteId }, 200));
    const app = appOf(router);
    expect(await (await app.request('/v1/notes/abc')).json()).toEqual({ id: 'abc' });
    expect(await (await app.request('/v1/notes/a/b')).json()).toEqual({ id: 'a/b' });
    expect((await app.request('/v1/notes/x')).status).toBe(400);
    expect(loads).toBe(0);
    expect(() => schemas()).toThrow(/before the OpenAPI document loaded it/);

    await loadDocumentModules();
    expect(loads).toBe(1);
    const documented = createRouter();
    documented.route('/v1', router);
    const document = documented.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } });
    const operation = document.paths?.['/v1/notes/{noteId}']?.get;
    expect(operation?.responses?.['200']).toEqual({ description: 'The note', content: { 'application/json': { schema: { $ref: '#/components/schemas/DocumentOnlyNote' } } } });
    // The standard errors are there as on every route.
    expect(Object.keys(operation?.responses ?? {})).toEqual(['200', '400', '401', '403', '404', '429']);
    expect(Object.keys(document.paths ?? {})).toEqual(['/v1/notes/{noteId}']);
  });
});
