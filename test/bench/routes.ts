/**
 * Route benchmark (`npm run bench`): the bundled Worker served by Miniflare through a direct socket
 * (no wrangler dev proxy), next to a reference Worker (one zod-openapi route, one D1 point read)
 * in the same process and database. Spaces of 10, 1,000 and 20,000 pages are seeded through the
 * API; it prints requests/s and p50/p99 of reads as ratios to the reference, write times as ratios
 * between sizes, bytes stored per revision and D1 round trips per request. Absolute numbers on a
 * 2-core machine are noise; ratios measured in one run are what to compare.
 *
 *   npm run bench                     sizes 10, 1000, 20000
 *   npm run bench -- --sizes=10,1000  other sizes
 *   npm run bench -- --ceiling        also seeds 50,000 pages and checks reads, a batch and a merge
 *   npm run bench -- --no-rate-limits without the rate limit bindings at all (no "RL in memory" columns then)
 *
 * What the harness charges for rate limiting: the Worker has the rate limit bindings of wrangler.toml (limits out of
 * reach), and under Miniflare each `limit()` is a fetch to a Durable Object that reads and writes its SQLite table
 * (miniflare/dist/src/workers/ratelimit/*.js), in the same workerd process whose CPU is measured; on Cloudflare the
 * binding counts in memory at the location. So every read is measured twice in each round: on the Worker, and on its
 * twin whose bindings count in the isolate's memory (`api-unlimited`: same build, database, bucket and space writers;
 * test/bench/worker.ts `BENCH_MEMORY_RATE_LIMITS`: every `limit()` awaited and its headers written, no SQLite). The
 * table prints both ratios; the difference is what Miniflare's Durable Object limiter costs here. Issue 42's warm read
 * targets are judged on the twin's (the Worker as deployed; Handbook, Benchmark); the other stays printed.
 * A `--baseline` checkout whose test/bench/worker.ts predates `BENCH_MEMORY_RATE_LIMITS` runs its twin without limits.
 *   npm run bench -- --reads-only     the reads table alone; --targets=<regex> only the reads whose label matches
 *   npm run bench -- --plain-d1       the Worker's D1 a plain pass-through of the binding, without sessions (worker.ts)
 *   npm run bench -- --baseline=<dir> the Worker of another checkout (with node_modules linked) on the same reads in the
 *                                     same rounds: before and after a change in one run ("base" rows)
 *   --rounds=9 --cycles=4 --window=0.4  how long the reads are measured (measureReads); --raw=<file> every window as JSON
 *
 * How reads are measured (measureReads): ratios to ref d of windows taken at the same moments, pooled over the run,
 * with the rounds' spread beside them, and a control row (ref d measured against itself: 1.00 expected, its distance
 * from 1 and its spread are the run's noise). Two runs of the six warm reads at load 25-30 (2026-11-30, each with a
 * baseline) agreed within ±0.13 on rates (most within ±0.05) and within ±0.3 on CPU ratios (half within ±0.1): read a
 * difference smaller than that, between runs or between the Worker and its baseline in one run, as none.
 *
 * The intermittent failure this benchmark used to stop on (a 500 in workerd's plain text, `Cannot perform I/O on behalf
 * of a different request ... (I/O type: ReadableStreamSource)`, on search, published pages, `/v1/user`...) was the
 * first wave of a target whose route group was not loaded yet: the requests that awaited the load another request had
 * started (a promise kept for the isolate, app.ts `serveWithGroup`) answered with Responses workerd refused to send.
 * Loads are now kept as values, each request awaiting its own; first-wave.ts checks it (`npm run bench -- first-wave`).
 * The load still stops at the first answer that is not a 200 and names the target and what it answered.
 */
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from 'miniflare';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { unstable_splitSqlQuery } from 'wrangler';
import { buildWorker } from '../../src/cli/build-worker.mjs';
import { RATE_LIMIT_POLICIES } from '../../src/services/limits/rate-limits';

const root = path.resolve(import.meta.dirname, '../..');
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const SIZES = (args.get('sizes') ?? '10,1000,20000').split(',').map(Number);
const CEILING = args.has('ceiling');
const CONNECTIONS = 10;
/** Rounds of interleaved windows (measureReads); the figures are medians over rounds. */
const ROUNDS = Number(args.get('rounds') ?? 9);
/** measureReads: the turns the reference, a read and its twin take in a round, and each turn's seconds. */
const CYCLES = Number(args.get('cycles') ?? 4);
const WINDOW = Number(args.get('window') ?? 0.4);
const ADMIN = 'bench-admin-token';

/** A Worker as the modules workerd is given: the entry first, then every chunk it may import. */
export interface WorkerModules {
  modules: { type: 'ESModule'; path: string; contents: string }[];
}

/**
 * `entry` built as the Worker is deployed (src/cli/build-worker.mjs, which wrangler.toml's `[build] command` runs and
 * whose output wrangler uploads as it is): the entry module and the chunks it imports on demand, so that what is
 * measured (a cold isolate's first request above all) is what runs on Cloudflare.
 */
export async function bundle(entry: string, checkout = root): Promise<WorkerModules> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'dpa-bench-bundle-'));
  try {
    const built = await buildWorker({ root: checkout, entry, outdir: scratch });
    // Paths relative to a root of their own: the chunks import each other as `./on-demand/<name>.js`.
    const modules = built.map(({ name }) => ({ type: 'ESModule' as const, path: path.join('/worker', name), contents: readFileSync(path.join(scratch, name), 'utf8') }));
    return { modules };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The Worker and the reference; `checkout`: the Worker of another checkout of this repository (cold.ts's --baseline). */
export const bundleWorkers = async (checkout = root) => {
  const [api, reference] = await Promise.all([bundle('test/bench/worker.ts', checkout), bundle('test/bench/reference-worker.ts')]);
  return { api, reference };
};

/**
 * Miniflare serving the Worker ('api') and the reference ('ref'). `persist`: a directory keeping D1, R2 and
 * Durable Objects across instances (cold.ts starts one per measurement); `scripts`: bundles made once; `plainD1`: the
 * Worker's D1 without sessions (worker.ts, `--plain-d1`).
 */
export async function start({
  persist,
  scripts,
  inspectorPort,
  plainD1 = args.has('plain-d1'),
  unlimitedTwin = false,
  baseline,
}: {
  persist?: string;
  scripts?: { api: WorkerModules; reference: WorkerModules };
  inspectorPort?: number;
  plainD1?: boolean;
  unlimitedTwin?: boolean;
  baseline?: WorkerModules;
} = {}) {
  const { api, reference } = scripts ?? (await bundleWorkers());
  const common = { modulesRoot: '/worker', compatibilityDate: '2026-11-01', compatibilityFlags: ['nodejs_compat'], d1Databases: { DB: 'bench-db' } };
  const limited = !args.has('no-rate-limits');
  const apiWorker = {
    ...common,
    name: 'api',
    modules: api.modules,
    r2Buckets: { FILES: 'bench-files' },
    queueProducers: { JOBS: { queueName: 'docs-platform-jobs' } },
    durableObjects: { SPACE_WRITER: { className: 'SpaceWriter', useSQLite: true } },
    // The three secrets, distinct as a deployment has them (none stands in for another): file URLs are signed.
    bindings: {
      ADMIN_TOKEN: ADMIN, FILES_SIGNING_KEY: 'bench-files-signing-key', INTEGRATIONS_KEY: 'bench-integrations-key', APP_URL: '',
      ...(plainD1 ? { BENCH_PLAIN_D1: '1' } : {}),
    },
    // The rate limit bindings, as wrangler.toml declares them but out of reach: every request pays for
    // its checks (one per policy it counts against) without being refused.
    ratelimits: limited ? Object.fromEntries(
      Object.values(RATE_LIMIT_POLICIES).map(({ binding }, i) => [binding, { namespace_id: String(1001 + i), simple: { limit: 1_000_000_000, period: 60 } }]),
    ) : {},
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  };
  // `unlimitedTwin`: the same Worker, database, bucket and space writers (the api Worker's class), its rate limits
  // counted in memory instead of Miniflare's rate limit bindings
  // limit bindings: each read is measured on both in the same run, so that what Miniflare's limiter costs (a Durable
  // Object's SQLite write per `limit()`) is seen beside what the Worker itself costs.
  const memoryLimits = Object.fromEntries(Object.values(RATE_LIMIT_POLICIES).map(({ binding }) => [binding, { limit: 1_000_000_000, period: 60 }]));
  const inMemory = { ...apiWorker.bindings, BENCH_MEMORY_RATE_LIMITS: JSON.stringify(memoryLimits) };
  const twin = unlimitedTwin && limited
    ? { ...apiWorker, name: 'api-unlimited', ratelimits: {}, bindings: inMemory, durableObjects: { SPACE_WRITER: { className: 'SpaceWriter', scriptName: 'api', useSQLite: true } } }
    : undefined;
  // `baseline`: another checkout's Worker ('base', and its twin 'base-unlimited'), on the same database, bucket and space
  // writers: the same reads measured before and after a change in one run (`--baseline=<checkout>`).
  const sharedWriter = { SPACE_WRITER: { className: 'SpaceWriter', scriptName: 'api', useSQLite: true } };
  const base = baseline ? { ...apiWorker, name: 'base', modules: baseline.modules, durableObjects: sharedWriter } : undefined;
  const baseTwin = base && twin ? { ...base, name: 'base-unlimited', ratelimits: {}, bindings: inMemory } : undefined;
  // Miniflare 5 (pinned by wrangler) takes a new shape of options; it converts the classic one.
  const mf = new Miniflare(convertV4MiniflareOptions({
    // The Worker's errors (a 500's cause) show; its request lines do not.
    log: new Log(LogLevel.WARN),
    cf: false,
    ...(persist ? { resourcePersistencePath: persist } : {}),
    // profile.ts takes CPU profiles of the Worker through workerd's inspector.
    ...(inspectorPort ? { inspectorPort } : {}),
    workers: [
      apiWorker,
      ...[twin, base, baseTwin].filter((worker) => worker !== undefined),
      { ...common, name: 'ref', modules: reference.modules, unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }] },
    ],
  } as Parameters<typeof convertV4MiniflareOptions>[0]));
  await mf.ready;
  const db = await mf.getD1Database('DB', 'api');
  const migrated = await db.prepare("select 1 from sqlite_master where name = 'users'").first();
  for (const file of migrated ? [] : readdirSync(path.join(root, 'migrations')).filter((f) => f.endsWith('.sql')).sort()) {
    // wrangler's own splitter: a migration may hold several statements between breakpoints, or a trigger.
    for (const statement of unstable_splitSqlQuery(readFileSync(path.join(root, 'migrations', file), 'utf8'))) {
      if (statement.trim()) await db.prepare(statement).run();
    }
  }
  const apiUrl = (await mf.unsafeGetDirectURL('api')).origin;
  const refUrl = (await mf.unsafeGetDirectURL('ref')).origin;
  const urlOf = async (worker: { name: string } | undefined) => (worker ? (await mf.unsafeGetDirectURL(worker.name)).origin : undefined);
  const [unlimitedUrl, baseUrl, baseUnlimitedUrl] = await Promise.all([urlOf(twin), urlOf(base), urlOf(baseTwin)]);
  return { mf, db, apiUrl, refUrl, unlimitedUrl, baseUrl, baseUnlimitedUrl };
}

// ---------------------------------------------------------------------------------------------
// Seeding through the API

type Json = any;

export function client(apiUrl: string) {
  return async function call(method: string, route: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${apiUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
    return { body: text ? (JSON.parse(text) as Json) : null, headers: res.headers };
  };
}
export type Call = ReturnType<typeof client>;

export async function seedUser(call: Call) {
  const user = (await call('POST', '/v1/users', ADMIN, { displayName: 'Bench', email: 'bench@example.test' })).body;
  const token = (await call('POST', `/v1/users/${user.id}/tokens`, ADMIN, {})).body.token as string;
  const org = (await call('POST', '/v1/orgs', token, { title: 'Bench' })).body;
  return { user, token, org };
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A space of `pages` pages (sections of 100 when larger than 100) and one file, merged into main. */
export async function seedSpace(call: Call, token: string, orgId: string, pages: number) {
  const space = (await call('POST', `/v1/orgs/${orgId}/spaces`, token, { title: `${pages} pages` })).body;
  const cr = (await call('POST', `/v1/spaces/${space.id}/change-requests`, token, { subject: 'Seed' })).body;
  const post = async (changes: unknown[]) =>
    (await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/content?compat=false`, token, { changes })).body;
  const insert = (title: string, into?: string) => ({ operation: 'insert_page', title, ...(into ? { into } : {}), document: { markdown: `Body of ${title}.` } });
  const file = (await post([{ operation: 'insert_files', files: [{ name: 'a.png', contentType: 'image/png', base64: PNG }] }])).insertedFiles[0].id as string;
  const leaves: string[] = [];
  const flat = pages <= 100;
  const sections = flat ? 0 : Math.ceil(pages / 100);
  const sectionIds: string[] = [];
  for (let i = 0; i < sections; i += 50) {
    const batch = await post(Array.from({ length: Math.min(50, sections - i) }, (_, j) => insert(`Section ${i + j}`)));
    sectionIds.push(...batch.changes.map((c: Json) => c.page.id));
  }
  const children: Array<[string, string | undefined]> = [];
  for (let n = 0; children.length < pages - sections; n++) children.push([`Page ${n}`, flat ? undefined : sectionIds[n % sections]]);
  for (let i = 0; i < children.length; i += 50) {
    const batch = await post(children.slice(i, i + 50).map(([title, into]) => insert(title, into)));
    leaves.push(...batch.changes.map((c: Json) => c.page.id));
  }
  await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/merge`, token);
  return { id: space.id as string, leaves, file, changeRequest: cr.id as string };
}

// ---------------------------------------------------------------------------------------------
// Load

interface Sample {
  rps: number;
  latencies: number[];
  /** CPU time of the workerd process (both Workers and local D1) per request, in ms. */
  cpuMs: number;
  /** What the rate and CPU per request are of: requests answered, seconds taken, workerd's CPU in ns. */
  done: number;
  seconds: number;
  cpuNs: number;
}

/**
 * The CPU time (ns) every thread of this process's workerd children has run so far, read from
 * /proc/<pid>/task/<tid>/schedstat (Linux), NaN elsewhere. Nanoseconds, where /proc/<pid>/stat counts clock ticks of
 * 10 ms: a 1.5 s window of a read at 50 req/s spends ~150 ms of CPU, which ticks resolve to ±7%. Load runs one target at
 * a time, so the difference over a window is that target's: the Worker's CPU and its D1 queries' (local D1 runs in the
 * same process), as for the reference.
 */
export function workerdCpuNs(): number {
  try {
    let total = 0;
    for (const pid of readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('workerd')) continue;
      for (const tid of readdirSync(`/proc/${pid}/task`)) total += threadCpuNs(pid, tid);
    }
    return total;
  } catch {
    return Number.NaN;
  }
}

/** A thread's run time; one that ended since its directory was listed ran for nothing more. */
function threadCpuNs(pid: string, tid: string): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

/** workerdCpuNs in ms, null where /proc cannot say. */
export function workerdCpuMs(): number | null {
  const ns = workerdCpuNs();
  return Number.isNaN(ns) ? null : ns / 1e6;
}

/**
 * Requests per second and workerd's CPU per request (the Worker and its local D1) of authenticated GETs of `url`,
 * ten at a time for `seconds`: what the lists and storage benches measure a read by.
 */
export async function getLoad(url: string, token: string, seconds: number): Promise<{ rps: number; cpuMs: number }> {
  const cpuBefore = workerdCpuMs();
  const end = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (performance.now() < end) {
        const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
        done++;
      }
    }),
  );
  const cpuAfter = workerdCpuMs();
  return { rps: done / seconds, cpuMs: cpuBefore === null || cpuAfter === null ? NaN : (cpuAfter - cpuBefore) / done };
}

/** A published public site of 20 sections with 5 site spaces each (100), over the seeded spaces. */
export async function seedSite(call: Call, token: string, orgId: string, spaceIds: string[]) {
  const base = `/v1/orgs/${orgId}/sites`;
  const site = (await call('POST', base, token, { title: 'Bench site' })).body as { id: string };
  for (let i = 0; i < 20; i++) {
    const section = (await call('POST', `${base}/${site.id}/sections`, token, { spaceId: spaceIds[i % spaceIds.length], title: `Section ${i}` })).body as { id: string };
    for (let j = 1; j < 5; j++) await call('POST', `${base}/${site.id}/site-spaces`, token, { spaceId: spaceIds[j % spaceIds.length], sectionId: section.id });
  }
  await call('POST', `${base}/${site.id}/publish`, token);
  return `${base}/${site.id}`;
}

/** `url` read by CONNECTIONS clients in a closed loop for `seconds`; the rate over the time the last answer took to come. */
async function load(url: string, token: string, seconds: number): Promise<Sample> {
  const latencies: number[] = [];
  const cpuBefore = workerdCpuNs();
  const start = performance.now();
  const end = start + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        // An empty token reads as a visitor (published sites).
        const res = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
        const body = await res.text();
        // The answer's body says which error it was (ours: `{ "error" }`; workerd's own: its plain text).
        if (res.status !== 200) throw new Error(`${url} (${token ? 'member' : 'visitor'}): ${res.status} ${body.slice(0, 500)}`);
        latencies.push(performance.now() - t0);
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const cpuNs = workerdCpuNs() - cpuBefore;
  return { rps: done / elapsed, latencies, cpuMs: cpuNs / 1e6 / done, done, seconds: elapsed, cpuNs };
}

/** Samples taken together: their rate over their summed time, their CPU over their summed requests. */
function pooled(samples: Sample[]): Sample {
  const done = samples.reduce((n, s) => n + s.done, 0);
  const seconds = samples.reduce((n, s) => n + s.seconds, 0);
  const cpuNs = samples.reduce((n, s) => n + s.cpuNs, 0);
  return { rps: done / seconds, latencies: samples.flatMap((s) => s.latencies), cpuMs: cpuNs / 1e6 / done, done, seconds, cpuNs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
};
const fmt = (n: number, digits = 2) => n.toFixed(digits);

async function bytes(db: D1Database): Promise<number> {
  return (await db.prepare('select coalesce(sum(length(body)), 0) as n from documents').first<number>('n'))!;
}

interface Read {
  key: string;
  token: string;
  /**
   * Where the read is made, by variant: '' the Worker, 'unlimited' its twin limited in memory, 'base' and
   * 'base-unlimited' the baseline's (`--baseline`): each measured in turn with the reference.
   */
  urls: Record<string, string>;
}

/**
 * Each read's rate and CPU per request as ratios to the reference's, measured so that two runs of unchanged code
 * agree. On this 2-core machine shared with other work (run queue 25-30), workerd gets a share of the cores that
 * changes from one moment to the next: within one run, one read's 0.4 s windows ranged 7-201 req/s and 1.0-3.7 ms of
 * CPU per request (a starved process pays again for its caches; workerd also spends 20-40 ms/s of CPU on its own,
 * spread over fewer requests when fewer are served). A window says as much about the machine then as about the read,
 * so a ratio is only taken between windows of the same moments: for each read, the reference, the read and its
 * variants (twin, baseline) take turns in short windows (CYCLES turns of WINDOW s, each turn begun by the next side,
 * after an unmeasured window of each), in ROUNDS rounds whose order of reads rotates. Each side's windows of the whole
 * run are pooled (requests over time, CPU over requests) and the ratio taken between the pools; the rounds' own ratios
 * show the spread. A warm-up pass first: the first requests of a route load its group and compile its code.
 */
async function measureReads(reference: { url: string; token: string }, reads: Read[]) {
  for (const read of reads) for (const url of Object.values(read.urls)) await load(url, read.token, 1);
  await load(reference.url, reference.token, 1);
  const results = new Map<string, { rps: number[]; cpu: number[]; latencies: number[]; windows: Sample[]; refWindows: Sample[] }>();
  const refRates: number[] = [];
  const refCpus: number[] = [];
  const record = (key: string, windows: Sample[], refWindows: Sample[]) => {
    const entry = results.get(key) ?? { rps: [], cpu: [], latencies: [], windows: [], refWindows: [] };
    const [sample, ref] = [pooled(windows), pooled(refWindows)];
    entry.rps.push(sample.rps / ref.rps);
    entry.cpu.push(sample.cpuMs / ref.cpuMs);
    entry.latencies.push(...sample.latencies);
    entry.windows.push(...windows);
    entry.refWindows.push(...refWindows);
    results.set(key, entry);
  };
  const raw: unknown[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...reads.slice(round % reads.length), ...reads.slice(0, round % reads.length)];
    for (const read of order) {
      const variants = Object.keys(read.urls);
      const sides = [reference, ...variants.map((variant) => ({ url: read.urls[variant], token: read.token }))];
      const windows: Sample[][] = sides.map(() => []);
      // Unmeasured: the first window after another read's ran slower, whichever side had it (the control read's ratio
      // was 1.15 with the reference always first); and each turn starts with the next side.
      for (const side of sides) await load(side.url, side.token, WINDOW / 2);
      for (let turn = 0; turn < CYCLES; turn++) {
        for (let k = 0; k < sides.length; k++) {
          const i = (turn + k) % sides.length;
          windows[i].push(await load(sides[i].url, sides[i].token, WINDOW));
        }
      }
      raw.push({ round, read: read.key, sides: ['ref', ...variants], windows: windows.map((side) => side.map(({ done, seconds, cpuNs }) => ({ done, seconds, cpuNs }))) });
      const ref = pooled(windows[0]);
      variants.forEach((variant, i) => record(`${read.key}|${variant}`, windows[i + 1], windows[0]));
      refRates.push(ref.rps);
      refCpus.push(ref.cpuMs);
    }
  }
  if (args.get('raw')) writeFileSync(args.get('raw')!, JSON.stringify(raw));
  const ratios = (entry: NonNullable<ReturnType<typeof results.get>>) => {
    const [ours, ref] = [pooled(entry.windows), pooled(entry.refWindows)];
    return { ...entry, rate: ours.rps / ref.rps, cpuRatio: ours.cpuMs / ref.cpuMs };
  };
  return {
    ref: { rps: median(refRates), rpsLow: Math.min(...refRates), rpsHigh: Math.max(...refRates), cpuMs: median(refCpus) },
    reads: new Map([...results].map(([key, entry]) => [key, ratios(entry)])),
  };
}

async function main() {
  const baselineCheckout = args.get('baseline') ? path.resolve(args.get('baseline')!) : undefined;
  const baseline = baselineCheckout ? await bundle('test/bench/worker.ts', baselineCheckout) : undefined;
  const { mf, db, apiUrl, refUrl, unlimitedUrl, baseUrl, baseUnlimitedUrl } = await start({ unlimitedTwin: true, baseline });
  const call = client(apiUrl);
  const { user, token, org } = await seedUser(call);
  console.log(`Seeding spaces of ${SIZES.join(', ')} pages through the API...`);
  const spaces = new Map<number, Awaited<ReturnType<typeof seedSpace>>>();
  for (const size of SIZES) {
    const t0 = performance.now();
    spaces.set(size, await seedSpace(call, token, org.id, size));
    console.log(`  ${size} pages seeded in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  }

  // Reads: interleaved rounds, every target once per round.
  const targets: Array<{ label: string; size?: number; url: string; visitor?: boolean }> = [
    { label: 'ref d (zod-openapi + 1 D1 read)', url: `${refUrl}/ref/${user.id}` },
    { label: 'GET /v1/user', url: `${apiUrl}/v1/user` },
  ];
  for (const [size, space] of spaces) {
    const leaf = space.leaves[Math.floor(space.leaves.length / 2)];
    targets.push({ label: 'GET /v1/spaces/{id}', size, url: `${apiUrl}/v1/spaces/${space.id}` });
    targets.push({ label: 'GET .../change-requests (list)', size, url: `${apiUrl}/v1/spaces/${space.id}/change-requests` });
    targets.push({ label: 'GET .../change-requests/{id}', size, url: `${apiUrl}/v1/spaces/${space.id}/change-requests/${space.changeRequest}` });
    targets.push({ label: 'GET .../content/page/{pageId}', size, url: `${apiUrl}/v1/spaces/${space.id}/content/page/${leaf}` });
    targets.push({ label: 'GET .../content/page/{pageId}?format=markdown', size, url: `${apiUrl}/v1/spaces/${space.id}/content/page/${leaf}?format=markdown` });
    targets.push({ label: 'GET .../content/files/{fileId}', size, url: `${apiUrl}/v1/spaces/${space.id}/content/files/${space.file}` });
    targets.push({ label: 'GET .../content (whole revision)', size, url: `${apiUrl}/v1/spaces/${space.id}/content` });
    // Full-text search: a word one page holds, and one every page holds (the index ranks every match).
    targets.push({ label: 'GET .../search?query=<rare word>', size, url: `${apiUrl}/v1/spaces/${space.id}/search?query=${encodeURIComponent(`page ${Math.floor(size / 2)}`)}` });
    targets.push({ label: 'GET .../search?query=<word of every page>', size, url: `${apiUrl}/v1/spaces/${space.id}/search?query=body&limit=20` });
  }
  // A public site per space, read as a visitor: a page's HTML, llms.txt and llms-full.txt (every page's Markdown, at
  // most 1,000). Served from the Cache API after the first request, as in production: the figure is a hit's cost.
  for (const [size, space] of spaces) {
    const site = (await call('POST', `/v1/orgs/${org.id}/sites`, token, { title: `Bench ${size}`, spaces: [space.id] })).body as { id: string };
    await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/publish`, token);
    targets.push({ label: 'GET /s/{site}/ (HTML page, visitor)', size, url: `${apiUrl}/s/${site.id}/`, visitor: true });
    targets.push({ label: 'GET /s/{site}/llms.txt', size, url: `${apiUrl}/s/${site.id}/llms.txt`, visitor: true });
    targets.push({ label: 'GET /s/{site}/llms-full.txt', size, url: `${apiUrl}/s/${site.id}/llms-full.txt`, visitor: true });
  }
  const sitePath = await seedSite(call, token, org.id, [...spaces.values()].map((s) => s.id));
  targets.push({ label: 'GET .../sites/{id}/published (member, 100 ss)', url: `${apiUrl}${sitePath}/published` });
  targets.push({ label: 'GET .../sites/{id}/published (visitor)', url: `${apiUrl}${sitePath}/published`, visitor: true });
  targets.push({ label: 'GET .../sites/{id}/site-spaces (100)', url: `${apiUrl}${sitePath}/site-spaces` });
  // The organization's sites, each with the caller's role on it (organization role or site grants), as listSites answers.
  targets.push({ label: 'GET /v1/orgs/{id}/sites (list)', url: `${apiUrl}/v1/orgs/${org.id}/sites` });
  // A published page as HTML, as a visitor without credentials gets it: from the edge cache (src/site/edge-cache.ts)
  // after the first view, with no D1 round trip.
  targets.push({ label: 'GET /s/{site}/ (published page, edge cache)', url: `${apiUrl}/s/${sitePath.split('/').pop()}/`, visitor: true });
  // `--targets=<regex>`: only the routes whose label matches (the reference always runs).
  const only = args.get('targets') ? new RegExp(args.get('targets')!) : undefined;
  if (only) targets.splice(1, targets.length, ...targets.slice(1).filter((t) => only.test(t.label)));
  // Each read of the Worker also on its twin limited in memory, right after it in every round.
  // A read of the Worker is also made on its twin limited in memory, and on the baseline's Worker and twin.
  const variantsOf = (url: string): Record<string, string> => {
    if (!url.startsWith(apiUrl)) return { '': url };
    const at = (origin: string | undefined) => (origin ? `${origin}${url.slice(apiUrl.length)}` : undefined);
    const urls = { '': url, unlimited: at(unlimitedUrl), base: at(baseUrl), 'base-unlimited': at(baseUnlimitedUrl) };
    return Object.fromEntries(Object.entries(urls).filter((entry): entry is [string, string] => entry[1] !== undefined));
  };
  // The reference measured as a read against itself: its ratios should be 1.00, and how far they stray is the noise.
  targets.push({ label: 'ref d again (control: 1.00 expected)', url: targets[0].url });
  const reads = targets.slice(1).map((target) => ({ ...target, key: `${target.label}|${target.size ?? ''}`, urls: variantsOf(target.url), token: target.visitor ? '' : token }));
  const measured = await measureReads({ url: targets[0].url, token }, reads);
  const { ref } = measured;
  const sides = ['the Worker', ...(unlimitedUrl ? ['its twin whose rate limits count in memory'] : []), ...(baseUrl ? [`the baseline's (${baselineCheckout})`] : [])];
  console.log(`\nReads: ${CONNECTIONS} connections; a warm-up pass, then ${ROUNDS} rounds: in each, ref d and ${sides.join(', ')} take ${CYCLES} turns`);
  console.log(`of ${WINDOW} s at each read (measureReads); ratios to ref d of each side's windows over the whole run, in brackets the middle half of the rounds' ratios`);
  console.log(`ref d: ${fmt(ref.rps, 0)} req/s (rounds ${fmt(ref.rpsLow, 0)}-${fmt(ref.rpsHigh, 0)}), ${fmt(ref.cpuMs)} ms CPU/req; load average ${loadavg()[0].toFixed(1)} at the end`);
  console.log('CPU: of the workerd process (Worker, local D1, Miniflare\'s rate limiter) per request, from its threads\' schedstat, as a multiple of the reference\'s');
  if (unlimitedUrl) console.log('RL in memory: the same Worker, its rate limits counted in its isolate\'s memory as on Cloudflare (under Miniflare each limit() is a Durable Object\'s SQLite write)');
  else if (args.has('no-rate-limits')) console.log('The Worker runs without the rate limit bindings (--no-rate-limits)');
  if (baseUrl) console.log('base: the same read on the baseline\'s Worker, in the same rounds');
  const twinColumns = unlimitedUrl ? ` ${'RL in memory ×'.padStart(16)} ${'CPU ×'.padStart(16)}` : '';
  console.log(`${'route'.padEnd(48)} ${'pages'.padStart(6)} ${'× ref d'.padStart(16)} ${'CPU ×'.padStart(16)}${twinColumns} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'D1 trips (statements)'.padStart(21)}`);
  const spread = (ratio: number, rounds: number[]) => `${fmt(ratio)} (${fmt(percentile(rounds, 25))}-${fmt(percentile(rounds, 75))})`.padStart(16);
  for (const read of reads) {
    const auth: Record<string, string> = read.visitor ? {} : { Authorization: `Bearer ${token}` };
    const counted = read.url.startsWith(apiUrl) ? (await fetch(read.url, { headers: { ...auth, 'x-count-d1': '1' } })).headers : undefined;
    const trips = counted ? `${counted.get('x-d1-round-trips')} (${counted.get('x-d1-statements')})` : '1 (1)';
    for (const [variant, twinVariant] of [['', 'unlimited'], ['base', 'base-unlimited']]) {
      const ours = measured.reads.get(`${read.key}|${variant}`);
      if (!ours) continue;
      const twin = measured.reads.get(`${read.key}|${twinVariant}`);
      const unlimited = twin ? ` ${spread(twin.rate, twin.rps)} ${spread(twin.cpuRatio, twin.cpu)}` : unlimitedUrl ? ' '.repeat(34) : '';
      const label = variant ? `  ${variant}` : read.label;
      console.log(
        `${label.padEnd(48)} ${String(read.size ?? '').padStart(6)} ${spread(ours.rate, ours.rps)} ${spread(ours.cpuRatio, ours.cpu)}${unlimited} ${fmt(percentile(ours.latencies, 50), 1).padStart(7)} ${fmt(percentile(ours.latencies, 99), 1).padStart(7)} ${(variant ? '' : trips).padStart(21)}`,
      );
    }
  }
  for (const label of ['GET .../content/page/{pageId}', 'GET .../content/files/{fileId}', 'GET /v1/spaces/{id}']) {
    const [small, large] = [measured.reads.get(`${label}|${SIZES[0]}|`), measured.reads.get(`${label}|${SIZES[SIZES.length - 1]}|`)];
    if (!small || !large) continue;
    console.log(`  ${label}: ${SIZES[SIZES.length - 1]} pages at ${fmt(large.rate / small.rate)} × the throughput of ${SIZES[0]} pages`);
  }

  if (args.has('reads-only')) return void (await mf.dispose());

  // Writes: a one-page content batch and a one-page three-way merge, median of 5, and what each stores.
  console.log('\nWrites (median of 5): one-page content batch, one-page three-way merge (main moved first)');
  console.log(`${'pages'.padStart(6)} ${'batch ms'.padStart(9)} ${'merge ms'.padStart(9)} ${'batch bytes'.padStart(12)} ${'merge bytes'.padStart(12)}`);
  const writes = new Map<number, { batch: number; merge: number }>();
  for (const [size, space] of spaces) {
    const batchTimes: number[] = [];
    const mergeTimes: number[] = [];
    const batchBytes: number[] = [];
    const mergeBytes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [a, b] = [space.leaves[(i * 7) % space.leaves.length], space.leaves[(i * 7 + 3) % space.leaves.length]];
      const crA = (await call('POST', `/v1/spaces/${space.id}/change-requests`, token, { subject: `A${i}` })).body;
      const crB = (await call('POST', `/v1/spaces/${space.id}/change-requests`, token, { subject: `B${i}` })).body;
      const before = await bytes(db);
      let t0 = performance.now();
      await call('POST', `/v1/spaces/${space.id}/change-requests/${crA.number}/content`, token, {
        changes: [{ operation: 'update_page', page: a, document: { markdown: `Edited ${i}` } }],
      });
      batchTimes.push(performance.now() - t0);
      batchBytes.push((await bytes(db)) - before);
      await call('POST', `/v1/spaces/${space.id}/change-requests/${crB.number}/content`, token, { changes: [{ operation: 'update_page', page: b, title: `Renamed ${i}` }] });
      await call('POST', `/v1/spaces/${space.id}/change-requests/${crB.number}/merge`, token);
      const beforeMerge = await bytes(db);
      t0 = performance.now();
      await call('POST', `/v1/spaces/${space.id}/change-requests/${crA.number}/merge`, token);
      mergeTimes.push(performance.now() - t0);
      mergeBytes.push((await bytes(db)) - beforeMerge);
    }
    writes.set(size, { batch: median(batchTimes), merge: median(mergeTimes) });
    console.log(`${String(size).padStart(6)} ${fmt(median(batchTimes), 1).padStart(9)} ${fmt(median(mergeTimes), 1).padStart(9)} ${String(median(batchBytes)).padStart(12)} ${String(median(mergeBytes)).padStart(12)}`);
  }
  const first = writes.get(SIZES[0])!;
  for (const size of SIZES.slice(1)) {
    const w = writes.get(size)!;
    console.log(`  ${size} pages vs ${SIZES[0]}: batch ${fmt(w.batch / first.batch)}×, merge ${fmt(w.merge / first.merge)}×`);
  }
  const total = await db.prepare('select count(*) as n, coalesce(sum(length(body)), 0) as b from documents').first<{ n: number; b: number }>();
  console.log(`  all stored documents and nodes: ${total!.n} rows, ${total!.b} bytes`);

  if (CEILING) await ceiling(call, token, org.id);
  await mf.dispose();
}

/** 50,000 pages through the API: the space keeps taking pages, and reads, a batch and a merge work. */
async function ceiling(call: Call, token: string, orgId: string) {
  console.log('\nCeiling: seeding 50,000 pages through the API...');
  const t0 = performance.now();
  const space = await seedSpace(call, token, orgId, 50_000);
  console.log(`  seeded in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  const leaf = space.leaves[space.leaves.length - 1];
  const timed = async (label: string, run: () => Promise<unknown>) => {
    const start = performance.now();
    const result = await run();
    console.log(`  ${label.padEnd(44)} ${fmt(performance.now() - start, 1).padStart(9)} ms`);
    return result;
  };
  await timed('GET .../content/page/{pageId}', () => call('GET', `/v1/spaces/${space.id}/content/page/${leaf}`, token));
  const pages = (await timed('GET .../content/pages (whole tree)', () => call('GET', `/v1/spaces/${space.id}/content/pages`, token))) as { body: Json };
  const count = (list: Json[]): number => list.reduce((n, p) => n + 1 + count(p.pages), 0);
  console.log(`  the tree read back has ${count(pages.body.pages)} pages`);
  const cr = (await call('POST', `/v1/spaces/${space.id}/change-requests`, token, { subject: 'At 50,000' })).body;
  await timed('one-page content batch', () =>
    call('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/content`, token, { changes: [{ operation: 'insert_page', title: 'Page 50001', document: {} }] }),
  );
  await timed('merge', () => call('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/merge`, token));
}

// Imported by cold.ts for its seeding and bundling: main runs only when this file is the command.
if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) await main();
