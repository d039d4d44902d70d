/**
 * The Worker as the benchmark serves it: the real one, which also answers how many D1 round trips a
 * request took (`x-d1-round-trips`) when asked with `x-count-d1: 1`. Unasked, requests go straight through.
 * Its SpaceWriter is the real one on a counting D1: `GET /__bench/writer-round-trips/<spaceId>` answers how many
 * round trips that space's writer has made so far (storage.ts reads it before and after a merge).
 * `POST /__bench/collect-history/<spaceId>?now=<ms>` collects that space's history in its writer as the cron would at
 * that time, until nothing is left pending, and answers what it deleted (storage.ts: bytes before and after).
 * With the binding `BENCH_PLAIN_D1` set (routes.ts `--plain-d1`), every request's D1 is a plain pass-through of the
 * binding without `withSession` (db/client `openSession` then runs the request on the binding itself): whether
 * something seen under load (the published route's intermittent 500) needs D1's sessions.
 * With `BENCH_MEMORY_RATE_LIMITS` (JSON: each rate limit binding's name with its `{ limit, period }`), the Worker's rate
 * limit bindings count in this isolate's memory, as Cloudflare's binding counts at its location (routes.ts' twin):
 * every `limit()` is still awaited and its outcome still makes the Worker's headers, but no Durable Object writes
 * SQLite for it as Miniflare's binding does.
 */
import worker, { SpaceWriter as RealSpaceWriter } from '../../src/index';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import type { Env } from '../../src/env';
import { countingD1 } from '../helpers/counting-d1';

export class SpaceWriter extends RealSpaceWriter {
  private readonly counter: ReturnType<typeof countingD1>;

  constructor(ctx: DurableObjectState, env: Env) {
    const counter = countingD1(env.DB);
    super(ctx, { ...env, DB: counter.db });
    this.counter = counter;
  }

  roundTrips(): number {
    return this.counter.count;
  }
}

const WRITER_TRIPS = '/__bench/writer-round-trips/';
const COLLECT_HISTORY = '/__bench/collect-history/';

async function collectHistory(env: Env, spaceId: string, now: number) {
  const total = { revisions: 0, references: 0, documents: 0, runs: 0 };
  for (let pending = true; pending; total.runs++) {
    const result = await spaceWriter(env, spaceId).collectHistory(spaceId, now);
    if (!result.ok) throw new Error(result.message);
    total.revisions += result.value.revisions;
    total.references += result.value.references;
    total.documents += result.value.documents;
    pending = result.value.pending;
  }
  return total;
}

/** The binding's `prepare`, `batch`, `exec` and `dump`, and nothing else: no sessions. */
function plainD1(real: D1Database): D1Database {
  return {
    prepare: (query: string) => real.prepare(query),
    batch: (statements: D1PreparedStatement[]) => real.batch(statements),
    exec: (query: string) => real.exec(query),
    dump: () => real.dump(),
  } as D1Database;
}

type BenchEnv = Env & { BENCH_PLAIN_D1?: string; BENCH_MEMORY_RATE_LIMITS?: string };

/** A rate limit binding counting in memory: fixed windows of `period` seconds, as Miniflare's own binding counts them. */
function memoryRateLimit({ limit, period }: { limit: number; period: number }): RateLimit {
  const buckets = new Map<string, { window: number; count: number }>();
  return {
    async limit({ key }: RateLimitOptions): Promise<RateLimitOutcome> {
      const window = Math.floor(Date.now() / (period * 1000));
      const bucket = buckets.get(key);
      if (!bucket || bucket.window !== window) {
        if (bucket === undefined && buckets.size >= 10_000) buckets.clear();
        buckets.set(key, { window, count: 1 });
        return { success: limit >= 1 };
      }
      if (bucket.count >= limit) return { success: false };
      bucket.count++;
      return { success: true };
    },
  };
}

// The environment with in-memory rate limits, made once per isolate (workerd gives each request the same env).
const withMemoryLimits = new WeakMap<object, Env>();

function memoryLimited(benchEnv: BenchEnv): Env {
  let env = withMemoryLimits.get(benchEnv);
  if (!env) {
    const config = JSON.parse(benchEnv.BENCH_MEMORY_RATE_LIMITS!) as Record<string, { limit: number; period: number }>;
    env = { ...benchEnv, ...Object.fromEntries(Object.entries(config).map(([binding, rate]) => [binding, memoryRateLimit(rate)])) };
    withMemoryLimits.set(benchEnv, env);
  }
  return env;
}

export default {
  ...worker,
  async fetch(request: Request, benchEnv: BenchEnv, ctx: ExecutionContext): Promise<Response> {
    const limited = benchEnv.BENCH_MEMORY_RATE_LIMITS ? memoryLimited(benchEnv) : benchEnv;
    const env: Env = benchEnv.BENCH_PLAIN_D1 ? { ...limited, DB: plainD1(benchEnv.DB) } : limited;
    // The measured requests pass through untouched: parsing their URL here showed in the Worker's profile (`URL`, 1.4%
    // of a page read's samples), a cost the deployed Worker does not have.
    const path = request.url.includes('/__bench/') ? new URL(request.url).pathname : '';
    if (path.startsWith(WRITER_TRIPS)) {
      const writer = spaceWriter(env, path.slice(WRITER_TRIPS.length)) as unknown as { roundTrips(): Promise<number> };
      return Response.json({ roundTrips: await writer.roundTrips() });
    }
    if (path.startsWith(COLLECT_HISTORY)) {
      const now = Number(new URL(request.url).searchParams.get('now'));
      return Response.json(await collectHistory(env, path.slice(COLLECT_HISTORY.length), now));
    }
    if (request.headers.get('x-count-d1') !== '1') return worker.fetch!(request as never, env, ctx);
    const counter = countingD1(env.DB);
    // The counting proxy offers `withSession` whatever it wraps: a plain binding stays plain.
    const response = await worker.fetch!(request as never, { ...env, DB: benchEnv.BENCH_PLAIN_D1 ? plainD1(counter.db) : counter.db }, ctx);
    const counted = new Response(response.body, response);
    counted.headers.set('x-d1-round-trips', String(counter.count));
    counted.headers.set('x-d1-statements', String(counter.statements));
    return counted;
  },
} satisfies ExportedHandler<BenchEnv>;
