import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { MAX_PUBLIC_REQUEST_BYTES } from '../../src/routes/integrations/public-endpoint';
import { MAX_FETCH_RESPONSE_BYTES } from '../../src/services/integrations/runtime';
import { createSpace } from '../helpers/content';
import { measureRoundTrips } from '../helpers/round-trips';
import { api, BASE, expectError, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration, type SeededIntegration } from '../helpers/integrations';
import { fetchWorker } from '../helpers/worker';

const SECRET_VALUE = 'sk-live-public-endpoint-0123456789';

/**
 * A script written the way GitBook's `@gitbook/runtime` handles a fetch event: it rebuilds the incoming request
 * from `event.request` and the `fetch-body` field, and routes on the path below its public endpoint (the
 * installation's when there is one), as GitBook's integrations do.
 */
const SCRIPT = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const environment = JSON.parse(form.get('environment'));
    const incoming = new Request(event.request.url, {
      method: event.request.method,
      headers: new Headers(event.request.headers),
      body: form.get('fetch-body'),
    });
    const url = new URL(incoming.url);
    const endpoint = (environment.installation ?? environment.integration).urls.publicEndpoint;
    const route = url.pathname.slice(new URL(endpoint).pathname.length);
    console.log('fetch ' + incoming.method + ' ' + (route || '/'));
    if (route === '/throw') throw new Error('boom with ' + environment.secrets.API_KEY);
    if (route === '/big') return new Response('x'.repeat(${MAX_FETCH_RESPONSE_BYTES} + 1));
    if (route === '/empty') return new Response(null, { status: 204, headers: { 'x-empty': 'yes' } });
    if (route === '/refuse') return new Response('no', { status: 401 });
    if (route === '/redirect') {
      // Whatever a script may answer to set state on, or send visitors elsewhere on, the origin it is served from.
      const headers = new Headers({ location: url.searchParams.get('to'), 'x-kept': 'yes', 'clear-site-data': '"cookies"', refresh: '0; url=/v1/user' });
      headers.append('set-cookie', 'site_share=stolen; Path=/');
      headers.append('set-cookie2', 'legacy=1');
      return new Response(null, { status: 302, headers });
    }
    if (route === '/spoofed-visitor') {
      // Two anonymous reads of the API, each claiming another client address.
      const remaining = [];
      for (const ip of ['203.0.113.1', '203.0.113.2']) {
        const answer = await fetch(environment.apiEndpoint + '/v1/spaces/nothing-here-000000', { headers: { 'CF-Connecting-IP': ip } });
        remaining.push(answer.headers.get('RateLimit'));
      }
      return Response.json({ remaining });
    }
    if (route === '/space') {
      const content = await fetch(environment.apiEndpoint + '/v1/spaces/' + url.searchParams.get('id') + '/content', {
        headers: { Authorization: 'Bearer ' + environment.apiTokens.installation },
      });
      console.info('content read with the installation token: ' + content.status);
      return Response.json({ status: content.status, revision: (await content.json()).id ?? null });
    }
    const bytes = new Uint8Array(await incoming.arrayBuffer());
    const headers = new Headers({ 'x-echo': incoming.headers.get('x-echo') ?? '', 'x-method': incoming.method });
    headers.append('set-cookie', 'state=1; Path=' + new URL(endpoint).pathname);
    headers.append('set-cookie', 'other=2; Path=' + new URL(endpoint).pathname);
    return Response.json(
      {
        event,
        route,
        search: url.search,
        body: new TextDecoder().decode(bytes),
        bytes: bytes.byteLength <= 1024 ? [...bytes] : null,
        contentType: incoming.headers.get('content-type'),
        installation: environment.installation ? { id: environment.installation.id, publicEndpoint: environment.installation.urls.publicEndpoint } : null,
        integrationEndpoint: environment.integration.urls.publicEndpoint,
        tokens: Object.keys(environment.apiTokens).sort(),
        secretMatches: environment.secrets.API_KEY === '${SECRET_VALUE}',
        runtimeHeaders: [...request.headers.keys()].filter((name) => name.startsWith('x-integration')),
        seenHeaders: [...incoming.headers.keys()],
      },
      { status: 201, headers },
    );
  },
};
`;

interface Fixture {
  publisher: TestOrg;
  customer: TestOrg;
  integration: SeededIntegration;
  installationId: string;
  spaceId: string;
  /** The advertised endpoints, as paths of this origin. */
  integrationPath: string;
  installationPath: string;
}

let f: Fixture;

/** A URL of this API as a path (the harness sends every request to BASE). */
const pathOf = (url: string) => {
  expect(url.startsWith(`${BASE}/`), url).toBe(true);
  return url.slice(BASE.length);
};

beforeAll(async () => {
  const publisher = await seedOrg();
  const customer = await seedOrg();
  const integration = await seedIntegration(publisher.id, { script: SCRIPT, scopes: ['space:content:read'], secrets: { API_KEY: SECRET_VALUE } });
  const space = await createSpace(customer.id, customer.owner.token);
  const installation = await seedInstallation(integration, customer.id, { spaces: [space.id] });
  const advertised = expectStatus(await api('GET', `/v1/integrations/${integration.name}`, { token: publisher.owner.token }), 200).body;
  const installed = expectStatus(await api('GET', `/v1/integrations/${integration.name}/installations/${installation.id}`, { token: customer.owner.token }), 200).body;
  f = {
    publisher,
    customer,
    integration,
    installationId: installation.id,
    spaceId: space.id,
    integrationPath: pathOf(advertised.urls.publicEndpoint),
    installationPath: pathOf(installed.urls.publicEndpoint),
  };
});

/** A request without any API token, as the outside world sends one. */
async function call(method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}) {
  const res = await fetchWorker(`${BASE}${path}`, { method, headers: init.headers, body: init.body, redirect: 'manual' });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // keep the text
  }
  return { status: res.status, body, headers: res.headers } satisfies ApiResponse;
}

/** Through the Worker's fetch with an execution context, waiting for what it does after answering (the event record). */
async function callAndWait(path: string, environment: object = env, headers: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  const request = new Request(`${BASE}${path}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', ...headers } });
  const res = await worker.fetch(request, environment as never, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, text, headers: res.headers };
}

describe('advertised public endpoints', () => {
  it('are outside /v1, under the integration, and are what the objects show', async () => {
    const { name } = f.integration;
    expect(f.integrationPath).toBe(`/integrations/${name}/public`);
    expect(f.installationPath).toBe(`/integrations/${name}/installations/${f.installationId}/public`);
    // Every object that shows them shows the same.
    const listed = expectStatus(await api('GET', `/v1/integrations/${name}/installations`, { token: f.publisher.owner.token }), 200).body;
    expect(listed.items.map((i: any) => i.urls.publicEndpoint)).toEqual([`${BASE}${f.installationPath}`]);
    const spaceInstallation = expectStatus(
      await api('GET', `/v1/integrations/${name}/installations/${f.installationId}/spaces/${f.spaceId}`, { token: f.customer.owner.token }),
      200,
    ).body;
    // A space installation's is its own, below the installation's (its requests get it in their environment).
    expect(spaceInstallation.urls.publicEndpoint).toBe(`${BASE}${f.installationPath.replace(/\/public$/, `/spaces/${f.spaceId}/public`)}`);
    expect(spaceInstallation.urls.publicContentEndpoint).toBe(spaceInstallation.urls.publicEndpoint);
  });
});

describe("the integration's public endpoint", () => {
  it("hands a POST to the script as a fetch event and answers the script's own response", async () => {
    const res = await call('POST', `${f.integrationPath}/webhook/github?delivery=42`, {
      body: JSON.stringify({ action: 'opened', number: 7 }),
      headers: { 'content-type': 'application/json', 'x-echo': 'hello' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('x-echo')).toBe('hello');
    expect(res.headers.get('x-method')).toBe('POST');
    // The script answered two cookies: none is set on the API's origin.
    expect(res.headers.getSetCookie()).toEqual([]);
    // Whatever the script serves runs sandboxed, never as the API's origin.
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox /);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-integration-runtime')).toBeNull();
    expect(res.headers.get('x-integration-report-length')).toBeNull();
    // Counted against the caller's address, like every request without a token (services/limits).
    expect(res.headers.get('RateLimit-Policy')).toMatch(/^"visitor";q=\d+;w=60$/);

    const { event } = res.body;
    expect(event).toMatchObject({ type: 'fetch', eventId: expect.any(String), request: { method: 'post', url: `${BASE}${f.integrationPath}/webhook/github?delivery=42` } });
    expect(event.request.headers['x-echo']).toBe('hello');
    expect(event.installationId).toBeUndefined();
    expect(res.body).toMatchObject({
      route: '/webhook/github',
      search: '?delivery=42',
      body: JSON.stringify({ action: 'opened', number: 7 }),
      contentType: 'application/json',
      installation: null,
      tokens: ['integration'],
      secretMatches: true,
      // The runtime's own marker never reaches the script.
      runtimeHeaders: [],
    });
    expect(new URL(res.body.integrationEndpoint).pathname).toBe(f.integrationPath);
  });

  it('answers the endpoint itself, other methods, a request without a body and a 204', async () => {
    const get = await call('GET', f.integrationPath);
    expect(get.status, JSON.stringify(get.body)).toBe(201);
    expect(get.body).toMatchObject({ route: '', body: '', event: { request: { method: 'get' } } });
    // GitBook's FetchRequest writes methods in lower case; the rebuilt request has the method sent.
    const patch = await call('PATCH', `${f.integrationPath}/settings`, { body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(patch.status, JSON.stringify(patch.body)).toBe(201);
    expect(patch.headers.get('x-method')).toBe('PATCH');
    expect(patch.body).toMatchObject({ body: 'a=1', event: { request: { method: 'patch' } } });
    const head = await fetchWorker(`${BASE}${f.integrationPath}/head`, { method: 'HEAD' });
    expect(head.status).toBe(201);
    expect(await head.text()).toBe('');
    const empty = await call('DELETE', `${f.integrationPath}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.headers.get('x-empty')).toBe('yes');
    expect(empty.body).toBeNull();
  });

  it('passes the bytes of a binary body through unchanged', async () => {
    const bytes = new Uint8Array(256).map((_, i) => i);
    const res = await call('PUT', `${f.integrationPath}/upload`, { body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.bytes).toEqual([...bytes]);
    expect(res.body.contentType).toBe('application/octet-stream');
  });

  it("passes the script's own error statuses through", async () => {
    const res = await call('POST', `${f.integrationPath}/refuse`, { body: 'x' });
    expect(res.status).toBe(401);
    expect(res.body).toBe('no');
  });
});

describe("an installation's public endpoint", () => {
  it("gives the script the installation's id, environment and token, with which it calls the API", async () => {
    const res = await call('POST', `${f.installationPath}/callback?code=abc`, { body: 'payload', headers: { 'content-type': 'text/plain' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.event).toMatchObject({ type: 'fetch', installationId: f.installationId, request: { method: 'post' } });
    expect(res.body.installation).toEqual({ id: f.installationId, publicEndpoint: expect.stringMatching(new RegExp(`${f.installationPath}$`)) });
    expect(res.body).toMatchObject({ route: '/callback', search: '?code=abc', body: 'payload', tokens: ['installation', 'integration'] });

    const space = await call('GET', `${f.installationPath}/space?id=${f.spaceId}`);
    expect(space.status, JSON.stringify(space.body)).toBe(200);
    expect(space.body).toEqual({ status: 200, revision: expect.any(String) });
  });

  it("counts a script's anonymous API reads against its integration, whatever client address it claims", async () => {
    const res = await call('GET', `${f.integrationPath}/spoofed-visitor`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [first, second] = (res.body.remaining as string[]).map((h) => Number(/"visitor";r=(\d+)/.exec(h)![1]));
    // One budget for both (the claimed addresses are replaced): the second read has one request less left.
    expect(second).toBe(first - 1);
  });

  it('costs two D1 round trips before the answer and one after it', async () => {
    const measured = await measureRoundTrips('POST', `${f.installationPath}/hook`, null, { ping: true });
    expect(measured.status, JSON.stringify(measured.body)).toBe(201);
    // The integration with the installation, the tokens; then the event with its trace (waitUntil).
    expect(measured.roundTrips).toBe(3);
  });

  it('is recorded as a fetch event whose trace is what the script logged', async () => {
    const ok = await callAndWait(`${f.installationPath}/recorded`);
    expect(ok.status, ok.text).toBe(201);
    const eventId = JSON.parse(ok.text).event.eventId;
    const read = expectStatus(await api('GET', `/v1/integrations/${f.integration.name}/events/${eventId}`, { token: f.publisher.owner.token }), 200).body;
    expect(read.event).toMatchObject({ id: eventId, installationId: f.installationId, status: 'success', payload: { type: 'fetch', eventId, installationId: f.installationId } });
    expect(read.trace.logs.map((l: any) => l.message)).toEqual([
      'fetch POST /recorded',
      expect.stringMatching(new RegExp(`^POST ${f.installationPath}/recorded: the script answered 201$`)),
    ]);
    const listed = expectStatus(await api('GET', `/v1/integrations/${f.integration.name}/events`, { token: f.publisher.owner.token }), 200).body;
    expect(listed.items.map((e: any) => e.id)).toContain(eventId);
  });
});

describe('what crosses the origin the endpoint shares with the API and the published sites', () => {
  const CREDENTIALS = {
    cookie: 'site_share=share-secret; site_token=visitor-jwt',
    authorization: 'Bearer api-token-of-a-member',
    'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
    'x-visitor-token': 'visitor-jwt',
    'cf-access-jwt-assertion': 'access-jwt',
  };

  it("never hands a visitor's credentials to the script, nor stores them in the event", async () => {
    const res = await callAndWait(`${f.installationPath}/credentials`, env, { ...CREDENTIALS, 'x-echo': 'kept' });
    expect(res.status, res.text).toBe(201);
    const answered = JSON.parse(res.text);
    const names = Object.keys(CREDENTIALS);
    // The script saw the other headers, not those: neither in the event nor on the request it rebuilt.
    expect(answered.event.request.headers['x-echo']).toBe('kept');
    expect(answered.seenHeaders).toContain('x-echo');
    for (const name of names) {
      expect(answered.event.request.headers[name], name).toBeUndefined();
      expect(answered.seenHeaders, name).not.toContain(name);
    }
    const read = expectStatus(await api('GET', `/v1/integrations/${f.integration.name}/events/${answered.event.eventId}`, { token: f.publisher.owner.token }), 200).body;
    expect(read.event.payload.request.headers['x-echo']).toBe('kept');
    for (const name of names) expect(read.event.payload.request.headers[name], name).toBeUndefined();
    for (const value of Object.values(CREDENTIALS)) expect(JSON.stringify(read)).not.toContain(value);

    // An event stored before they were filtered out reads without them too.
    await env.DB.prepare(`update integration_events set payload = json_set(payload, '$.request.headers.Cookie', 'site_token=old-jwt') where id = ?`)
      .bind(answered.event.eventId)
      .run();
    const old = expectStatus(await api('GET', `/v1/integrations/${f.integration.name}/events/${answered.event.eventId}`, { token: f.publisher.owner.token }), 200).body;
    expect(old.event.payload.request.headers).toEqual(read.event.payload.request.headers);
    expect(JSON.stringify(old)).not.toContain('old-jwt');
  });

  it("drops the script's cookies, Clear-Site-Data and Refresh, and keeps its other headers", async () => {
    const res = await call('GET', `${f.integrationPath}/redirect?to=${encodeURIComponent('https://auth.example.com/authorize?client_id=1')}`);
    expect(res.status).toBe(302);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(res.headers.get('set-cookie2')).toBeNull();
    expect(res.headers.get('clear-site-data')).toBeNull();
    expect(res.headers.get('refresh')).toBeNull();
    expect(res.headers.get('x-kept')).toBe('yes');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox /);
  });

  it('keeps a Location to another origin or under a public endpoint of the integration, and drops any other', async () => {
    const other = await seedIntegration(f.publisher.id);
    const location = async (to: string) => {
      const res = await call('GET', `${f.installationPath}/redirect?to=${encodeURIComponent(to)}`);
      expect(res.status, to).toBe(302);
      return res.headers.get('location');
    };
    // Another origin (an OAuth provider), as it is.
    expect(await location('https://auth.example.com/authorize?client_id=1&state=x')).toBe('https://auth.example.com/authorize?client_id=1&state=x');
    expect(await location('http://localhost:8788/callback')).toBe('http://localhost:8788/callback');
    // Under the integration's public endpoints, as a path of this origin.
    expect(await location(`${f.integrationPath}/done?ok=1`)).toBe(`${f.integrationPath}/done?ok=1`);
    expect(await location(`${BASE}${f.installationPath}/next#top`)).toBe(`${f.installationPath}/next#top`);
    expect(await location('step-2')).toBe(`${f.installationPath}/step-2`);
    const spaceEndpoint = f.installationPath.replace(/\/public$/, `/spaces/${f.spaceId}/public`);
    expect(await location(`${spaceEndpoint}/oauth`)).toBe(`${spaceEndpoint}/oauth`);
    // Anywhere else on this origin, however it is written, or no http(s) URL at all: dropped.
    for (const to of [
      '/v1/user',
      `${BASE}/v1/orgs`,
      '/s/some-site/page',
      '/files/abc',
      '../../../../v1/user',
      `${f.installationPath}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/v1/user`,
      '\\v1\\user',
      `/integrations/${other.name}/public`,
      `/integrations/${f.integration.name}/publicity`,
      `/integrations/${f.integration.name}/installations`,
      f.installationPath.replace(/\/public$/, `/spaces/${f.spaceId}/publicity`),
      f.installationPath.replace(/\/public$/, `/teams/${f.spaceId}/public`),
      'javascript:alert(document.domain)',
      'data:text/html,<script>alert(1)</script>',
      'https://user:pass@auth.example.com/',
    ]) {
      expect(await location(to), to).toBeNull();
    }
  });

  it('redirects to another origin send no Referer, and never downgrade an https request to http (issue 38)', async () => {
    const redirect = (base: string, to: string) => fetchWorker(new Request(`${base}${f.installationPath}/redirect?to=${encodeURIComponent(to)}&code=secret`, { redirect: 'manual' }));
    const external = await redirect(BASE, 'https://auth.example.com/authorize');
    expect(external.headers.get('location')).toBe('https://auth.example.com/authorize');
    expect(external.headers.get('referrer-policy')).toBe('no-referrer');
    // Over https, an http target is dropped (a local deployment over http keeps it: the test above).
    const secure = BASE.replace('http:', 'https:');
    expect((await redirect(secure, 'http://auth.example.com/authorize')).headers.get('location')).toBeNull();
    expect((await redirect(secure, 'https://auth.example.com/authorize')).headers.get('location')).toBe('https://auth.example.com/authorize');
    // A protocol-relative Location takes the request's scheme: over https, an https URL of the other host.
    expect((await redirect(secure, '//auth.example.com/x')).headers.get('location')).toBe('https://auth.example.com/x');
  });
});

describe('failures', () => {
  it('answers 404 for unknown integrations and installations, and those of another integration', async () => {
    const other = await seedIntegration(f.publisher.id, { script: SCRIPT });
    const otherInstallation = await seedInstallation(other, f.customer.id);
    const { name } = f.integration;
    expectError(await call('POST', '/integrations/no-such-integration/public/x', { body: '{}' }), 404, 'No matching integration');
    expectError(await call('GET', '/integrations/bad%20name!/public'), 404);
    expectError(await call('GET', `/integrations/${name}/installations/nosuchinstallation0/public`), 404, 'No matching installation');
    expectError(await call('GET', `/integrations/${name}/installations/${otherInstallation.id}/public`), 404, 'No matching installation');
    expectError(await call('GET', `/integrations/${name}/installations/bad-id!/public`), 404);
    // Not a public endpoint: the integration's own address is its `urls.app`, which sends to its API address
    // (routes/app-links); the paths beside them are no routes.
    const app = await call('GET', `/integrations/${name}`);
    expect(app.status).toBe(302);
    expect(new URL(app.headers.get('Location')!, BASE).pathname).toBe(`/v1/integrations/${name}`);
    expectError(await call('GET', `/integrations/${name}/publicity`), 404);
    // Unpublished integrations have no endpoint.
    await env.DB.prepare('update integrations set deleted_at = ? where id = ?').bind(new Date().toISOString(), other.id).run();
    expectError(await call('GET', `/integrations/${other.name}/public`), 404, 'No matching integration');
  });

  it('answers 404 for an integration without a script', async () => {
    const bare = await seedIntegration(f.publisher.id);
    expectError(await call('POST', `/integrations/${bare.name}/public/hook`, { body: '{}' }), 404, 'has no script');
  });

  it('answers 502 when the script throws, without what it threw, which its trace keeps', async () => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(`${BASE}${f.integrationPath}/throw`, { method: 'POST', body: 'x' }), env as never, ctx);
    const body = (await res.json()) as any;
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(502);
    expect(body).toEqual({ error: { code: 502, message: "The integration's script threw an error while handling the request" } });
    expect(JSON.stringify(body)).not.toContain(SECRET_VALUE);
    const events = expectStatus(await api('GET', `/v1/integrations/${f.integration.name}/events`, { token: f.publisher.owner.token }), 200).body;
    const failed = events.items.find((e: any) => e.status === 'failed' && e.payload.request.url.endsWith('/throw'));
    expect(failed).toBeDefined();
    const read = expectStatus(await api('GET', `/v1/integrations/${f.integration.name}/events/${failed.id}`, { token: f.publisher.owner.token }), 200).body;
    const messages = read.trace.logs.map((l: any) => l.message);
    expect(messages[0]).toBe('fetch POST /throw');
    expect(messages[1]).toContain(`threw Error: boom with ${SECRET_VALUE}`);
    expect(read.trace.logs[1].level).toBe('error');
  });

  it('answers 502 when the script answers more than 5 MiB', async () => {
    const res = await call('GET', `${f.integrationPath}/big`);
    expectError(res, 502, `answered a body larger than ${MAX_FETCH_RESPONSE_BYTES} bytes`);
  });

  it('answers 413 for a request body over 1 MiB, declared or streamed', async () => {
    const big = 'x'.repeat(MAX_PUBLIC_REQUEST_BYTES + 1);
    expectError(await call('POST', `${f.integrationPath}/hook`, { body: big }), 413, `larger than ${MAX_PUBLIC_REQUEST_BYTES} bytes`);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(300 * 1024));
        controller.close();
      },
    });
    expectError(await call('POST', `${f.installationPath}/hook`, { body: stream }), 413);
    // Exactly the limit is accepted.
    const atLimit = await call('POST', `${f.integrationPath}/hook`, { body: 'y'.repeat(MAX_PUBLIC_REQUEST_BYTES) });
    expect(atLimit.status).toBe(201);
    expect(atLimit.body.body.length).toBe(MAX_PUBLIC_REQUEST_BYTES);
  });

  it('answers 503 naming INTEGRATIONS_KEY when the deployment has none, and never uses ADMIN_TOKEN instead', async () => {
    const res = await callAndWait(`${f.installationPath}/hook`, { ...env, INTEGRATIONS_KEY: undefined });
    expect(res.status, res.text).toBe(503);
    expect(JSON.parse(res.text)).toEqual({ error: { code: 503, message: expect.stringContaining('INTEGRATIONS_KEY') } });
    // Another key than the one the installation's secrets were stored under reads nothing either.
    const wrongKey = await callAndWait(`${f.installationPath}/hook`, { ...env, INTEGRATIONS_KEY: env.ADMIN_TOKEN });
    expectError({ status: wrongKey.status, body: JSON.parse(wrongKey.text), headers: wrongKey.headers }, 502, 'its secrets could not be read');
  });

  it('answers 503 when the deployment has no Worker Loader', async () => {
    const res = await callAndWait(`${f.integrationPath}/hook`, { ...env, LOADER: undefined });
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toEqual({ error: { code: 503, message: expect.stringContaining('no Worker Loader binding') } });
  });
});
