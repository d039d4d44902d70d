/**
 * The deployment's front door: `GET /` (where to go from the root, as JSON or HTML) and GitBook's
 * getApiInformation (`GET /v1/`, with a token as GitBook's needs one), answered as GitBook's `ApiInformation`.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { BASE, api, createUser, expectError, expectStatus } from '../helpers/harness';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { measureRoundTrips, requestWithBindings } from '../helpers/round-trips';
import { buildTime } from '../../src/routes/system/api-information';
import packageJson from '../../package.json';

const OPERATIONS = gitbookOperations();

describe('GET /', () => {
  it('answers JSON leading to the reference, the OpenAPI document and the API, without a token', async () => {
    const res = expectStatus(await api('GET', '/'), 200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body.links).toEqual({ reference: `${BASE}/docs`, openapi: `${BASE}/openapi.json`, api: `${BASE}/v1/` });
    expect(res.body.authentication).toContain('Authorization: Bearer');
    // Every link it gives answers (the API's base with a token).
    expect((await api('GET', '/openapi.json')).status).toBe(200);
    const user = await createUser();
    expect((await api('GET', '/v1/', { token: user.token })).status).toBe(200);
  });

  it('answers a small HTML page to a browser, with the links and a strict CSP', async () => {
    const res = await api('GET', '/', { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    for (const href of [`${BASE}/docs`, `${BASE}/openapi.json`]) expect(res.body).toContain(`href="${href}"`);
  });

  it('leaves other unknown paths 404, and HEAD / answers as GET does', async () => {
    expectError(await api('GET', '/nothing-here'), 404);
    expect((await api('HEAD', '/')).status).toBe(200);
  });
});

describe('getApiInformation (GET /v1/)', () => {
  it("answers GitBook's ApiInformation to a user token, reading nothing but the token (at most 2 D1 round trips, the budget of a read)", async () => {
    const user = await createUser();
    const { status, roundTrips: trips, body } = (await measureRoundTrips('GET', '/v1/', user.token)) as { status: number; roundTrips: number; body: any };
    expect(status).toBe(200);
    expect(body).toEqual({ version: packageJson.version, build: expect.any(String) });
    const validator = schemaValidator(OPERATIONS.get('getApiInformation')!.responses['200']!, GITBOOK_0202.components);
    expect(gitbookErrors(validator, body)).toBe('valid');
    // The runtime's version metadata: locally (the test pool, wrangler dev), when it loaded this build.
    expect(body.build).toBe(new Date((env as { CF_VERSION_METADATA?: { timestamp: string } }).CF_VERSION_METADATA!.timestamp).toISOString());
    expect(trips).toBeLessThanOrEqual(2);
  });

  it('needs a token (401 without one or with an unknown one), as GitBook does; takes integration and installation tokens', async () => {
    expectError(await api('GET', '/v1/'), 401);
    expectError(await api('GET', '/v1/', { token: 'dpa_unknown' }), 401);
    const user = await createUser();
    const org = expectStatus(await api('POST', '/v1/orgs', { token: user.token, body: { title: 'Info' } }), 201).body;
    const integration = await seedIntegration(org.id, { scopes: ['space:content:read'] });
    const installation = await seedInstallation(integration, org.id, { spaces: 'all' });
    expectStatus(await api('GET', '/v1/', { token: await seedToken(integration.id, installation.id) }), 200);
    expectStatus(await api('GET', '/v1/', { token: await seedToken(integration.id, null) }), 200);
  });

  it('sends /v1 to /v1/ (308), and refuses other methods with 405', async () => {
    const user = await createUser();
    const res = await api('GET', '/v1', { token: user.token });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/v1/');
    const post = await api('POST', '/v1/', { token: user.token, body: {} });
    expectError(post, 405);
  });

  it("gives the Worker version's upload time as the build, the epoch where the platform gives none", () => {
    expect(buildTime({ timestamp: '2026-11-28T10:00:00.000Z' })).toBe('2026-11-28T10:00:00.000Z');
    expect(buildTime(undefined)).toBe('1970-01-01T00:00:00.000Z');
    expect(buildTime({ timestamp: '' })).toBe('1970-01-01T00:00:00.000Z');
    expect(buildTime({ timestamp: 'garbage' })).toBe('1970-01-01T00:00:00.000Z');
  });
});

describe('a database without its tables (a fresh `npx wrangler dev`, a new deployment)', () => {
  it('answers 503 saying which migrations command to run, not a 500', async () => {
    const missing = () => {
      throw new Error('D1_ERROR: no such table: api_tokens: SQLITE_ERROR');
    };
    const db = { prepare: missing, batch: missing, exec: missing, dump: missing, withSession: missing } as unknown as D1Database;
    const res = (await requestWithBindings('GET', '/v1/user', 'dpa_0000000000000000000000000000000000000000', undefined, { DB: db })) as { status: number; body: any };
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe(503);
    expect(res.body.error.message).toContain('npx wrangler d1 migrations apply DB --local');
  });
});
