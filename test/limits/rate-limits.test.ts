import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import wranglerToml from '../../wrangler.toml?raw';
import { createSpace, openChangeRequest, pageTree, postChanges } from '../helpers/content';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { ADMIN_TOKEN, api, createUser, expectError, expectStatus, seedOrg, type ApiResponse } from '../helpers/harness';
import { RATE_LIMIT_POLICIES } from '../../src/services/limits/rate-limits';
import { inIsolateRateLimit } from '../helpers/worker';

// The budgets of this project (TEST_RATE_LIMITS in test/limits/vitest.config.ts), per 10-second window.
const USER = 40;
const VISITOR = 5;
const CONTENT_WRITES = 5;
const SEARCH = 3;

let ipCounter = 0;
/** A client address of its own for each test: visitor budgets are per address and shared by every test file. */
const freshIp = () => `198.51.100.${(Date.now() % 200) + (ipCounter++ % 50)}.${Math.floor(Math.random() * 1e6)}`;

async function hammer(times: number, send: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  for (let i = 0; i < times; i++) answers.push(await send());
  return answers;
}

/** `"name";r=1;t=2, ...` as { name: { r, t } } (and `q`, `w` for RateLimit-Policy). */
function parseItems(header: string | null): Record<string, Record<string, number>> {
  const items: Record<string, Record<string, number>> = {};
  for (const item of (header ?? '').split(',').filter(Boolean)) {
    const [name, ...params] = item.trim().split(';');
    items[JSON.parse(name)] = Object.fromEntries(params.map((p) => [p.split('=')[0], Number(p.split('=')[1])]));
  }
  return items;
}

/**
 * Windows are aligned to the clock (floor(now / 10 s)): a test that must stay inside one window starts in a
 * fresh one when less than 4 seconds of the current one are left.
 */
async function inFreshWindow(): Promise<void> {
  const left = 10_000 - (Date.now() % 10_000);
  if (left < 4_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** Waits until the window of `retryAfter` seconds has passed (plus a margin for the clock-aligned window). */
const waitFor = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 250));

describe('rate limits per caller', () => {
  it('a user past the limit gets 429 with Retry-After and the error body; another user keeps being served; the budget comes back', async () => {
    const first = await createUser();
    const second = await createUser();
    await inFreshWindow();
    const answers = await hammer(USER + 2, () => api('GET', '/v1/user', { token: first.token }));
    expect(answers.map((a) => a.status)).toEqual([...Array(USER).fill(200), 429, 429]);
    const refused = answers.at(-1)!;
    expectError(refused, 429, 'rate limit');
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(parseItems(refused.headers.get('RateLimit-Policy'))).toEqual({ user: { q: USER, w: 10 } });
    expect(parseItems(refused.headers.get('RateLimit'))).toEqual({ user: { r: 0, t: retryAfter } });

    const other = await api('GET', '/v1/user', { token: second.token });
    expect(other.status).toBe(200);
    expect(other.body.id).toBe(second.id);

    await waitFor(Number((await api('GET', '/v1/user', { token: first.token })).headers.get('Retry-After') ?? 0));
    const again = await api('GET', '/v1/user', { token: first.token });
    expect(again.status).toBe(200);
    expect(parseItems(again.headers.get('RateLimit')).user.r).toBe(USER - 1);
  });

  it('every answer says the budget: the remaining count goes down by one per request', async () => {
    const user = await createUser();
    await inFreshWindow();
    const answers = await hammer(3, () => api('GET', '/v1/user', { token: user.token }));
    const remaining = answers.map((a) => parseItems(a.headers.get('RateLimit')).user.r);
    expect(remaining).toEqual([USER - 1, USER - 2, USER - 3]);
    for (const a of answers) {
      expect(a.headers.get('RateLimit-Policy')).toBe(`"user";q=${USER};w=10`);
      expect(parseItems(a.headers.get('RateLimit')).user.t).toBeLessThanOrEqual(10);
    }
  });

  it('errors count and carry the headers too (a 404 spends budget like a 200)', async () => {
    const user = await createUser();
    const missing = await api('GET', '/v1/spaces/doesnotexist000000', { token: user.token });
    expectError(missing, 404);
    expect(missing.headers.get('RateLimit-Policy')).toBe(`"user";q=${USER};w=10`);
  });

  it('one user is one budget, whichever of their tokens they use', async () => {
    const user = await createUser();
    const token2 = (await api('POST', `/v1/users/${user.id}/tokens`, { token: ADMIN_TOKEN, body: {} })).body.token as string;
    await inFreshWindow();
    await hammer(USER, () => api('GET', '/v1/user', { token: user.token }));
    expectError(await api('GET', '/v1/user', { token: token2 }), 429);
  });

  it('installation tokens count per installation, apart from users', async () => {
    const org = await seedOrg();
    const integration = await seedIntegration(org.id, { scopes: ['space:content:read'] });
    const installation = await seedInstallation(integration, org.id, { spaces: 'all' });
    const token = await seedToken(integration.id, installation.id);
    const space = await createSpace(org.id, org.owner.token);
    await inFreshWindow();
    const answers = await hammer(USER + 1, () => api('GET', `/v1/spaces/${space.id}/content`, { token }));
    expect(answers[0].status).toBe(200);
    expect(answers[0].headers.get('RateLimit-Policy')).toBe(`"installation";q=${USER};w=10`);
    expectError(answers.at(-1)!, 429);
    // The organization's people are not spent by their integration.
    expect((await api('GET', `/v1/spaces/${space.id}/content`, { token: org.owner.token })).status).toBe(200);
  });

  it("the operator token has its own, higher budget", async () => {
    const res = await api('GET', '/v1/users/doesnotexist000000', { token: ADMIN_TOKEN });
    expect(parseItems(res.headers.get('RateLimit-Policy')).operator.q).toBeGreaterThan(USER);
  });
});

describe('visitor routes are limited by client address', () => {
  it('anonymous reads outside and inside /v1 share the address budget; another address is served', async () => {
    const ip = freshIp();
    const headers = { 'CF-Connecting-IP': ip };
    // The document is built on its first request (every route group loaded): seconds on a busy machine, which would
    // let the window turn between the requests counted here. Built first, from another address.
    expectStatus(await api('GET', '/openapi.json', { token: null, headers: { 'CF-Connecting-IP': freshIp() } }), 200);
    await inFreshWindow();
    const answers = await hammer(VISITOR + 1, () => api('GET', '/openapi.json', { token: null, headers }));
    expect(answers.map((a) => a.status)).toEqual([...Array(VISITOR).fill(200), 429]);
    expect(answers[0].headers.get('RateLimit-Policy')).toBe(`"visitor";q=${VISITOR};w=10`);
    const refused = answers.at(-1)!;
    expectError(refused, 429, 'client address');
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    // A published-site read without a token (a visitor inside /v1) is the same budget.
    expectError(await api('GET', '/v1/spaces/doesnotexist000000', { token: null, headers }), 429);
    const elsewhere = await api('GET', '/v1/spaces/doesnotexist000000', { token: null, headers: { 'CF-Connecting-IP': freshIp() } });
    // A space's anonymous read answers 401 for a space that is not public: counted all the same.
    expectError(elsewhere, 401);
    expect(parseItems(elsewhere.headers.get('RateLimit')).visitor.r).toBe(VISITOR - 1);
  });

  it('requests with made-up tokens count against their address: a flood of them ends in 429s, a valid token from there is served', async () => {
    const headers = { 'CF-Connecting-IP': freshIp() };
    const user = await createUser();
    await inFreshWindow();
    const answers = await hammer(VISITOR + 1, () => api('GET', '/v1/user', { token: `made-up-${Math.random()}`, headers }));
    expect(answers.map((a) => a.status)).toEqual([...Array(VISITOR).fill(401), 429]);
    expect(answers[0].headers.get('RateLimit-Policy')).toBe(`"visitor";q=${VISITOR};w=10`);
    expectError(answers.at(-1)!, 429, 'client address');
    expect((await api('GET', '/v1/user', { token: user.token, headers })).status).toBe(200);
  });

  it('an IPv6 client counts by its /64: rotating addresses within it does not add budget', async () => {
    const fourth = Math.floor(Math.random() * 65535);
    const prefix = `2001:db8:${(Date.now() % 65536).toString(16)}`;
    const block = `${prefix}:${fourth.toString(16)}`;
    await inFreshWindow();
    const answers = await hammer(VISITOR + 1, () => api('GET', '/openapi.json', { token: null, headers: { 'CF-Connecting-IP': `${block}::${Math.floor(Math.random() * 65536).toString(16)}` } }));
    expect(answers.map((a) => a.status)).toEqual([...Array(VISITOR).fill(200), 429]);
    // The next /64 is another subscriber.
    const next = await api('GET', '/openapi.json', { token: null, headers: { 'CF-Connecting-IP': `${prefix}:${(fourth + 1).toString(16)}::1` } });
    expect(next.status).toBe(200);
  });

  it('signed file downloads are visitor routes', async () => {
    const res = await api('GET', '/files/abc/name.png', { token: null, headers: { 'CF-Connecting-IP': freshIp() } });
    expect(res.headers.get('RateLimit-Policy')).toBe(`"visitor";q=${VISITOR};w=10`);
  });
});

describe('expensive operations have their own lower limits', () => {
  it('search runs out before the caller does, and other calls keep working', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const token = org.owner.token;
    await inFreshWindow();
    const searches = await hammer(SEARCH + 1, () => api('GET', `/v1/spaces/${space.id}/search?query=alpha`, { token }));
    expect(searches.map((a) => a.status)).toEqual([...Array(SEARCH).fill(200), 429]);
    expect(parseItems(searches[0].headers.get('RateLimit-Policy'))).toEqual({ user: { q: USER, w: 10 }, search: { q: SEARCH, w: 10 } });
    const refused = searches.at(-1)!;
    expectError(refused, 429, '"search" rate limit');
    expect(parseItems(refused.headers.get('RateLimit')).search.r).toBe(0);
    expect(parseItems(refused.headers.get('RateLimit')).user.r).toBeGreaterThan(0);
    const read = await api('GET', `/v1/spaces/${space.id}`, { token });
    expect(read.status).toBe(200);
  });

  it('content batches stop at their limit and a refused batch changes nothing', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const cr = await openChangeRequest(space.id, org.owner.token);
    await inFreshWindow();
    const answers = await hammer(CONTENT_WRITES + 1, () =>
      postChanges(space.id, cr.id, org.owner.token, [{ operation: 'insert_page', title: `P${Math.random()}`, document: {} }]),
    );
    expect(answers.map((a) => a.status)).toEqual([...Array(CONTENT_WRITES).fill(200), 429]);
    expectError(answers.at(-1)!, 429, '"content-writes" rate limit');
    // One page per batch that passed, none for the refused one.
    expect((await pageTree(space.id, org.owner.token, cr.id)).length).toBe(CONTENT_WRITES);
  });
});

describe('a change request opened with a template', () => {
  it('is a content write; opened without one it is not', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const open = (body: object) => api('POST', `/v1/spaces/${space.id}/change-requests`, { token: org.owner.token, body });
    await inFreshWindow();
    const answers = await hammer(CONTENT_WRITES + 1, () => open({ subject: 'From a template', template: { id: 'changelog' } }));
    expect(answers.map((a) => a.status)).toEqual([...Array(CONTENT_WRITES).fill(201), 429]);
    expectError(answers.at(-1)!, 429, '"content-writes" rate limit');
    const plain = await open({ subject: 'Plain' });
    expect(plain.status).toBe(201);
    expect(plain.headers.get('RateLimit-Policy')).toBe(`"user";q=${USER};w=10`);
  });
});

describe('configuration', () => {
  it("wrangler.toml's RATE_LIMIT_* variables say what its bindings enforce", () => {
    const vars = Object.fromEntries([...wranglerToml.matchAll(/^(RATE_LIMIT_[A-Z_]+)\s*=\s*"(\d+)\/(\d+)"/gm)].map((m) => [m[1], `${m[2]}/${m[3]}`]));
    const bindings = Object.fromEntries(
      [...wranglerToml.matchAll(/name\s*=\s*"RL_([A-Z_]+)"\s*\n\s*namespace_id\s*=\s*"\d+"\s*\n\s*simple\s*=\s*\{\s*limit\s*=\s*(\d+),\s*period\s*=\s*(\d+)\s*\}/g)].map(
        (m) => [`RATE_LIMIT_${m[1]}`, `${m[2]}/${m[3]}`],
      ),
    );
    expect(Object.keys(vars).length).toBe(Object.keys(RATE_LIMIT_POLICIES).length);
    expect(bindings).toEqual(vars);
    expect(env.RATE_LIMIT_USER).toBe(`${USER}/10`);
  });
});

describe("the main project's in-isolate rate limit binding (test/helpers/worker.ts)", () => {
  it("answers as miniflare's binding of the same budget does: per key, passing until the window's budget is spent", async () => {
    const real = (env as unknown as Record<string, RateLimit>).RL_VISITOR;
    const standIn = inIsolateRateLimit(VISITOR, 10);
    await inFreshWindow();
    const keys = [`a-${crypto.randomUUID()}`, `b-${crypto.randomUUID()}`];
    const answers = async (binding: RateLimit) => {
      const said: boolean[] = [];
      for (const key of [...Array(VISITOR + 2).fill(keys[0]), keys[1]]) said.push((await binding.limit({ key })).success);
      return said;
    };
    const expected = [...Array(VISITOR).fill(true), false, false, true];
    expect(await answers(real)).toEqual(expected);
    expect(await answers(standIn)).toEqual(expected);
  });
});
