import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { createApp } from '../../src/app';
import { BASE } from './harness';

type Statement = D1PreparedStatement & { __real?: D1PreparedStatement };

/**
 * A D1 binding that counts round trips: each statement execution (first/all/run/raw) is one,
 * and so is a whole batch (D1 runs it as one request).
 */
export function countingD1(real: D1Database) {
  let count = 0;
  const wrap = (stmt: D1PreparedStatement): Statement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === '__real') return target;
        if (prop === 'bind') return (...args: unknown[]) => wrap(target.bind(...args));
        const value = Reflect.get(target, prop, target);
        if (prop === 'first' || prop === 'all' || prop === 'run' || prop === 'raw') {
          return (...args: unknown[]) => {
            count++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Statement;
  const db = new Proxy(real, {
    get(target, prop) {
      if (prop === 'prepare') return (query: string) => wrap(target.prepare(query));
      if (prop === 'batch') {
        return (statements: Statement[]) => {
          count++;
          return target.batch(statements.map((s) => s.__real ?? s));
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    db,
    get count() {
      return count;
    },
  };
}

const app = createApp();

/** Runs one request through the app with a counting D1 and returns its status and round trips. */
export async function measureRoundTrips(method: string, path: string, token: string, body?: unknown) {
  const counter = countingD1(env.DB);
  const ctx = createExecutionContext();
  const res = await app.request(
    `${BASE}${path}`,
    {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
    { ...env, DB: counter.db },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, roundTrips: counter.count, body: await res.json().catch(() => null) };
}
