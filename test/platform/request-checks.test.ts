/**
 * Routes served without zod (lib/lazy-router `served`, lib/request-checks): the page read's first request in a cold
 * isolate evaluates no zod (issue 42 item 7), so its params and query are checked by precompiled twins of its zod
 * schemas. Here each twin is held to its schema: the same data and the same 400 message for the same input, hostile
 * ones included, and the same token access as the definition documents. And a LazyRouter's definitions (its zod) are
 * not loaded until a route that needs them serves a request, never by a served route.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import type { RouteConfig } from '@hono/zod-openapi';
import type { ZodType } from 'zod';
import type { AppBindings } from '../../src/env';
import { defineRoute, routeSecurity } from '../../src/lib/create-router';
import { describeZodError } from '../../src/lib/errors';
import { LazyRouter, createLazyRouter, routeDefinitions, type LazyRoute } from '../../src/lib/lazy-router';
import { describeIssues, runCheck, type ObjectCheck } from '../../src/lib/request-checks';
import { ROUTERS } from '../../src/routes/groups';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

const LONG = 'x'.repeat(129);
const PARAMS: Record<string, unknown>[] = [
  { spaceId: 'abc', pageId: 'def' },
  { spaceId: 'a'.repeat(128), pageId: 'b' },
  { spaceId: LONG, pageId: 'b' },
  { spaceId: '', pageId: LONG },
  { spaceId: 'abc' },
  { spaceId: 'abc', pageId: 'def', extra: 'dropped' },
  { spaceId: ['a', 'b'], pageId: 7 },
  { spaceId: 'é🙂\u0000', pageId: '../../etc' },
];
const QUERIES: Record<string, unknown>[] = [
  {},
  { metadata: 'false', computed: 'true' },
  { metadata: 'yes' },
  { metadata: '', computed: 'FALSE' },
  { computed: ['true', 'false'] },
  { format: 'markdown', evaluated: 'deterministic-only', dereferenced: 'reusable-contents' },
  { format: 'html' },
  { format: ['document', 'markdown'] },
  { evaluated: '1', dereferenced: 'x' },
  { metadata: 'no', computed: 'no', format: 'no', evaluated: 'no', dereferenced: 'no' },
  { foo: 'bar', toString: 'x', constructor: 'y', limit: '5' },
  Object.fromEntries([['__proto__', 'x'], ['format', 'document']]),
  { format: 'document\u0000' },
];

/** What the route's zod schema answers for `input`, as createRouter's defaultHook words a failure. */
function zodAnswer(schema: ZodType, input: unknown, where: string) {
  const result = schema.safeParse(input);
  return result.success ? { data: JSON.stringify(result.data) } : { message: describeZodError(result.error, where) };
}
function checkAnswer(check: ObjectCheck, input: Record<string, unknown>, where: string) {
  const result = runCheck(check, input);
  return result.success ? { data: JSON.stringify(result.data) } : { message: describeIssues(result.issues, where) };
}

/** Every route a LazyRouter of routes/groups.ts serves with precompiled checks, with its definition. */
async function servedRoutes(): Promise<{ route: LazyRoute; definition: RouteConfig }[]> {
  const found = [];
  for (const { load } of ROUTERS) {
    const router = await load();
    if (!(router instanceof LazyRouter)) continue;
    for (const { route } of router.lazyRoutes) if (route.served) found.push({ route, definition: await route.definition() });
  }
  return found;
}

describe('precompiled request checks are the twins of their zod schemas', () => {
  let served: Awaited<ReturnType<typeof servedRoutes>>;
  beforeAll(async () => {
    served = await servedRoutes();
  });

  it('the page read is served with them', () => {
    expect(served.map(({ route }) => `${route.method} ${route.path}`)).toContain('get /spaces/{spaceId}/content/page/{pageId}');
  });

  it('answer the same data or the same 400 message as the schema, input by input', () => {
    for (const { route, definition } of served) {
      const { params, query } = definition.request ?? {};
      expect(Boolean(route.served!.param), `${route.path}: params checked`).toBe(Boolean(params));
      expect(Boolean(route.served!.query), `${route.path}: query checked`).toBe(Boolean(query));
      for (const input of params ? PARAMS : []) {
        expect(checkAnswer(route.served!.param!, input, 'path'), `${route.path} params ${JSON.stringify(input)}`).toEqual(zodAnswer(params as ZodType, input, 'path'));
      }
      for (const input of query ? QUERIES : []) {
        expect(checkAnswer(route.served!.query!, input, 'query'), `${route.path} query ${JSON.stringify(input)}`).toEqual(zodAnswer(query as ZodType, input, 'query'));
      }
    }
  });

  it('admit the tokens the definition documents, and run no middleware the definition has besides', () => {
    for (const { route, definition } of served) {
      expect(definition.security, route.path).toEqual(routeSecurity(route.served!.tokens, route.served!.siteToken));
      // Token access only: a costly limit or a middleware of its own would be skipped by the served chain.
      expect(definition.middleware, route.path).toHaveLength(1);
    }
  });
});

describe('a page read served without zod answers as the schema would', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });
  const read = (query: string, pageId = 'pageId') => api('GET', `/v1/spaces/no-such-space/content/page/${pageId}${query}`, { token: org.owner.token });

  it('a bad query or path is the 400 zod words, the query first', async () => {
    const [route] = (await servedRoutes()).filter(({ route }) => route.path === '/spaces/{spaceId}/content/page/{pageId}');
    const { params, query } = route.definition.request!;
    const cases: [string, string][] = [
      ['?format=html&metadata=1', zodAnswer(query as ZodType, { format: 'html', metadata: '1' }, 'query').message!],
      ['?format=markdown&format=document', zodAnswer(query as ZodType, { format: ['markdown', 'document'] }, 'query').message!],
      ['?evaluated=x', zodAnswer(query as ZodType, { evaluated: 'x' }, 'query').message!],
    ];
    for (const [search, message] of cases) expect((await expectStatus(await read(search), 400)).body, search).toEqual({ error: { code: 400, message } });
    const long = zodAnswer(params as ZodType, { spaceId: 'no-such-space', pageId: LONG }, 'path').message!;
    expect((await expectStatus(await read('', LONG), 400)).body).toEqual({ error: { code: 400, message: long } });
    // Both wrong: the query's answer, as zod-openapi validates the query before the params.
    expect((await expectStatus(await read('?format=html', LONG), 400)).body.error.message).toBe(zodAnswer(query as ZodType, { format: 'html' }, 'query').message);
  });

  it('a good query reaches the handler (an unknown space is a 404, not a 400)', async () => {
    await expectStatus(await read('?format=markdown&evaluated=deterministic-only&dereferenced=reusable-contents&metadata=false&computed=false&unknown=1'), 404);
  });
});

describe('LazyRouter: definitions loaded only when a route needs them', () => {
  /** A router of two routes over one definitions module whose loads are counted: one served, one not. */
  function counted() {
    let loads = 0;
    const module = routeDefinitions(async () => {
      loads++;
      const { z } = await import('@hono/zod-openapi');
      return {
        served: defineRoute('get', '/things/{thingId}', () => ({ tokens: {}, request: { params: z.object({ thingId: z.string().min(1).max(3) }) }, responses: {} })),
        other: defineRoute('get', '/others/{otherId}', () => ({ tokens: {}, request: { params: z.object({ otherId: z.string().min(1).max(3) }) }, responses: {} })),
      };
    });
    const router = createLazyRouter()
      .openapi(module.route('get', '/things/{thingId}', (m) => m.served, { tokens: {}, param: { thingId: { string: { min: 1, max: 3 } } } }), ((c: any) =>
        c.json({ thing: c.req.valid('param').thingId }, 200)) as never,
      )
      .openapi(module.route('get', '/others/{otherId}', (m) => m.other), ((c: any) => c.json({ other: c.req.valid('param').otherId }, 200)) as never);
    const app = new Hono<AppBindings>();
    app.use('*', async (c, next) => {
      c.set('actor', { kind: 'operator' } as never);
      await next();
    });
    app.route('/', router);
    return { app, loads: () => loads };
  }

  it('a served route never loads them, valid or not; the first request of another route does, once', async () => {
    const { app, loads } = counted();
    expect(await (await app.request('/things/abc')).json()).toEqual({ thing: 'abc' });
    const tooLong = await app.request('/things/abcd');
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toEqual({ error: { code: 400, message: 'Invalid path: thingId: Too big: expected string to have <=3 characters' } });
    expect(loads()).toBe(0);
    expect(await (await app.request('/others/xyz')).json()).toEqual({ other: 'xyz' });
    expect(loads()).toBe(1);
    expect((await app.request('/others/wxyz')).status).toBe(400);
    expect(loads()).toBe(1);
  });

  it("a definition whose method or path is not the router's says so", async () => {
    const module = routeDefinitions(async () => ({ route: defineRoute('get', '/a/{id}', () => ({ responses: {} })) }));
    const route = module.route('get', '/b/{id}' as never, (m) => m.route) as unknown as LazyRoute;
    await expect(route.definition()).rejects.toThrow('get /b/{id}: its definition is get /a/{id}');
  });
});
