import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';
import type { Env } from '../../src/env';
import { RATE_LIMIT_POLICIES, policyRate, type RateLimitPolicy } from '../../src/services/limits/rate-limits';

/**
 * A Workers Rate Limiting binding counted in this isolate: fixed windows aligned to the clock, a request passes
 * while its key has passed fewer than `limit` in the current window (what miniflare's binding does, in its
 * RateLimiterObject). Miniflare's answers each `limit()` through a fetch to a Durable Object that writes SQLite:
 * a third of a cheap request's time in the test pool, which Cloudflare's binding (local to the machine) does not
 * cost. The main project's budgets are out of reach (test/vitest.config.ts), so both always answer `success`.
 */
export function inIsolateRateLimit(limit: number, period: number): RateLimit {
  const buckets = new Map<string, { epoch: number; count: number }>();
  return {
    async limit({ key }: RateLimitOptions) {
      const epoch = Math.floor(Date.now() / (period * 1000));
      const bucket = buckets.get(key);
      const count = bucket?.epoch === epoch ? bucket.count : 0;
      if (bucket && bucket.epoch !== epoch) for (const [k, b] of buckets) if (b.epoch !== epoch) buckets.delete(k);
      if (count >= limit) return { success: false };
      buckets.set(key, { epoch, count: count + 1 });
      return { success: true };
    },
  };
}

/**
 * The environment requests are served with. `TEST_RATE_LIMITER = "isolate"` (the main project; the limits
 * project keeps miniflare's bindings, whose refusals it tests) puts an in-isolate binding in place of each rate
 * limit binding, with the budget the project gives it.
 */
function servingEnv(): Env {
  const vars = env as unknown as Record<string, unknown>;
  if (vars.TEST_RATE_LIMITER !== 'isolate') return env as unknown as Env;
  const limiters = Object.fromEntries(
    (Object.keys(RATE_LIMIT_POLICIES) as RateLimitPolicy[])
      .filter((policy) => vars[RATE_LIMIT_POLICIES[policy].binding])
      .map((policy) => {
        const { limit, period } = policyRate(env as unknown as Env, policy);
        return [RATE_LIMIT_POLICIES[policy].binding, inIsolateRateLimit(limit, period)];
      }),
  );
  return { ...(env as unknown as Env), ...limiters };
}

const served = servingEnv();

/**
 * A request through the Worker's own fetch handler (the default export of src/index.ts: routing, middleware,
 * validation, errors), called in this isolate with the test environment and an execution context whose
 * `waitUntil` work the test pool awaits. The same handler `exports.default.fetch` reaches, without its
 * loopback: a service-binding round trip costs about 5 ms, more than most requests themselves, and the
 * suite makes hundreds of thousands of them.
 */
export function fetchWorker(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  return Promise.resolve(worker.fetch(request, served, createExecutionContext()));
}
