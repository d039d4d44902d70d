import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { createApp } from '../../src/app';
import { countingD1 } from './counting-d1';
import { BASE } from './harness';

export { countingD1 };

const app = createApp();

/**
 * One request through the app with some of its bindings replaced (a counting D1, a queue that keeps what
 * it is sent), once its background work is done; a null token sends none (a visitor).
 */
export async function requestWithBindings(method: string, path: string, token: string | null, body: unknown, bindings: Partial<typeof env>) {
  const ctx = createExecutionContext();
  const res = await app.request(
    `${BASE}${path}`,
    {
      method,
      headers: { ...(token && { Authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
    { ...env, ...bindings },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** Runs one request through the app with a counting D1 and returns its status and round trips; a null token sends none (a visitor). */
export async function measureRoundTrips(method: string, path: string, token: string | null, body?: unknown) {
  const counter = countingD1(env.DB);
  const { status, body: answer } = await requestWithBindings(method, path, token, body, { DB: counter.db });
  return { status, roundTrips: counter.count, body: answer };
}
