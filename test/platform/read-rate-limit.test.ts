import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppBindings } from '../../src/env';
import { onError } from '../../src/lib/errors';
import { limitByCaller, rateLimitHeaders } from '../../src/middleware/rate-limit';

/**
 * middleware/rate-limit `limitByCaller`: a read runs while the limiter decides, and a refused one answers the 429
 * and nothing of what it read; a write waits for the limiter and does not run when refused; a caller refused in
 * its window waits for the limiter again. The limiter here answers when the test says so, and logs what happened
 * in which order.
 */
function harness(verdicts: boolean[]) {
  const log: string[] = [];
  const limiter: RateLimit = {
    async limit() {
      log.push('limiter asked');
      // Answers after the calls already under way have had their turn (a read started with it runs first).
      await new Promise((resolve) => setTimeout(resolve, 5));
      const success = verdicts.shift() ?? true;
      log.push(success ? 'limiter passed' : 'limiter refused');
      return { success };
    },
  };
  const app = new Hono<AppBindings>();
  app.onError(onError);
  app.use('*', rateLimitHeaders);
  app.use('*', async (c, next) => {
    c.set('actor', { kind: 'user', userId: c.req.header('X-User')!, email: 'u@example.test', emailVerified: true });
    await next();
  });
  app.use('*', limitByCaller);
  app.get('/secret', (c) => {
    log.push('read');
    c.header('ETag', '"secret-version"');
    c.header('Content-Disposition', 'attachment; filename="secret.txt"');
    return c.json({ secret: 'the data' });
  });
  app.post('/write', (c) => {
    log.push('wrote');
    return c.json({ ok: true }, 201);
  });
  const env = { RL_USER: limiter, RATE_LIMIT_USER: '100/60' } as unknown as AppBindings['Bindings'];
  const send = (method: string, path: string, user: string) => app.request(path, { method, headers: { 'X-User': user } }, env);
  return { log, send };
}

const userId = () => `user-${crypto.randomUUID()}`;

describe('the caller rate limit on reads and writes', () => {
  it('a read runs while the limiter decides, and answers with its budget when allowed', async () => {
    const { log, send } = harness([true]);
    const res = await send('GET', '/secret', userId());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ secret: 'the data' });
    expect(log).toEqual(['limiter asked', 'read', 'limiter passed']);
    expect(res.headers.get('RateLimit-Policy')).toBe('"user";q=100;w=60');
    expect(res.headers.get('RateLimit')).toMatch(/^"user";r=99;t=\d+$/);
  });

  it('a refused read answers 429 and nothing of what it read: no body, no header of it', async () => {
    const { log, send } = harness([false]);
    const res = await send('GET', '/secret', userId());
    expect(log).toEqual(['limiter asked', 'read', 'limiter refused']);
    expect(res.status).toBe(429);
    const text = await res.text();
    expect(text).not.toContain('the data');
    expect(JSON.parse(text)).toEqual({ error: { code: 429, message: expect.stringContaining('"user" rate limit allows 100 requests per 60 seconds') } });
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(res.headers.get('ETag')).toBeNull();
    expect(res.headers.get('Content-Disposition')).toBeNull();
    expect(Number(res.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('RateLimit')).toMatch(/^"user";r=0;t=\d+$/);
  });

  it('a write waits for the limiter, and a refused one does not run', async () => {
    const { log, send } = harness([true, false]);
    const user = userId();
    expect((await send('POST', '/write', user)).status).toBe(201);
    const refused = await send('POST', '/write', user);
    expect(refused.status).toBe(429);
    expect(log).toEqual(['limiter asked', 'limiter passed', 'wrote', 'limiter asked', 'limiter refused']);
  });

  it("once refused in its window, a caller's reads wait for the limiter and do not run when refused; other callers' do not wait", async () => {
    const { log, send } = harness([false, false, true]);
    const flooder = userId();
    expect((await send('GET', '/secret', flooder)).status).toBe(429);
    log.length = 0;
    expect((await send('GET', '/secret', flooder)).status).toBe(429);
    expect(log).toEqual(['limiter asked', 'limiter refused']);
    log.length = 0;
    expect((await send('GET', '/secret', userId())).status).toBe(200);
    expect(log).toEqual(['limiter asked', 'read', 'limiter passed']);
  });
});
