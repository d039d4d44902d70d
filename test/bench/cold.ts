/**
 * Cold start (`npm run bench -- cold`, or `node --import tsx test/bench/cold.ts [--rounds=N]`): the first
 * request a fresh isolate answers, for a space read, a page read and a published HTML page, each as a ratio to
 * the first request of the reference Worker (reference-worker.ts: one zod-openapi route, one D1 read) in the
 * same fresh Miniflare. Each measurement starts a new Miniflare on the same persisted state (seeded once through
 * the API; with a baseline, each build its own, seeded through its own API: `seeded`), so the Worker's isolate is new and has loaded no route group: the first request pays for its
 * group (app.ts, routes/groups.ts). The isolate's own startup happens before Miniflare is ready and is measured by
 * startup.ts: workerd's default (legacy) module registry compiles every module of the Worker when it creates the
 * isolate (workerd-api.c++ `compileModules`: V8's CompileModule on each, which parses its top level and pre-parses its
 * functions), and instantiates and evaluates a module on its first import; the `new_module_registry` flag would compile
 * a module on its first import too. So a group's first request pays for evaluating its modules and for V8's full parse
 * and bytecode of every function it calls for the first time (a pre-parsed function is parsed again on its first call:
 * some 400 of them on a published page, counted with `MINIFLARE_WORKERD_V8_FLAGS=--log-function-events`), except in the
 * modules a published page evaluates, whose functions the build writes to be compiled with their module
 * (src/cli/eager-compile.mjs). Node.js built-ins (`node:zlib` and the stream modules it imports) are compiled on their
 * first import, from workerd's compile cache. Medians of `--rounds` (5); ratios, not absolute times, are the figure.
 * First it prints what each first request evaluates beyond the entry (the build's module graph), and stops if a
 * published page or a page read would evaluate zod (a page read is served by precompiled checks: lib/lazy-router).
 *
 * Then a fresh isolate's first event that is not a request: the hourly cron, and a queue batch (a job of no known type,
 * which the consumer answers with a retry once its module graph, every job handler's, is evaluated). Their modules are
 * reached from no route: a module using zod's `.openapi()` without the extension having run first failed there
 * (`.openapi is not a function`) while every request worked. The run stops if either fails.
 *
 * `--baseline=<directory>`: the Worker of another checkout of this repository (e.g. `git worktree add /tmp/base main`,
 * with node_modules linked) measured in the same run, interleaved, each on the same content written by its own Worker
 * (a baseline cannot always read what this checkout stores, nor the other way round): a before/after comparison.
 * Beside the wall-clock ratio, the CPU ratio: the CPU time workerd's threads spent on each first request (read in
 * nanoseconds from /proc/<pid>/task/<tid>/schedstat, Linux only), which a loaded machine (other processes taking turns
 * on the cores) inflates far less than the time a request waits for a core. That process runs, besides the Worker's
 * isolate, Miniflare's own: local D1 (an entry worker and the database's Durable Object, which runs SQLite), the Cache
 * API and the rate limiter, none of which is the Worker's CPU on Cloudflare (D1 runs on D1's machines, the cache and the
 * limiter in the runtime), and whose first use in a fresh instance falls on our request, not the reference's (it comes
 * second). So each measurement also runs on a second fresh instance whose every isolate is CPU-profiled
 * (isolate-cpu.ts): the Worker CPU is the process's CPU times the Worker isolate's share of the isolates' samples,
 * ours and the reference's each on its own request. That is the figure the target is judged on; the process's is
 * printed too.
 *
 * Each is built with its own checkout's src/cli/build-worker.mjs (its entry is test/bench/worker.ts in each), so that a
 * change of the build's settings is measured too. `--only=<text>`: only the kinds whose label contains it.
 *
 * How long: each measurement starts two Miniflare instances (2-5 s each, by load), so `--rounds=5` with a baseline (30
 * measurements) takes 4-8 minutes after the build and seeding (about 1 minute); a line on stderr marks each round. It used
 * to never finish now and then: workerd sometimes closes one of the 18 inspector sessions a profiled instance opens
 * (seen: `outbound:0`, close code 1000), and the CPU profile then awaited that session's answer forever, its other
 * profilers left sampling (the "waiting near 10% CPU" of earlier runs). Every wait on the inspector now ends
 * (isolate-cpu.ts `inspect`: a closed session or 30 s of silence rejects), and a failed profiled instance is measured
 * again on a fresh one (`withRetries`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isZodModule, onDemandModules } from '../../src/cli/build-worker.mjs';
import { createServer } from 'node:net';
import { isolatesOf, profiled } from './isolate-cpu';
import { bundle, bundleWorkers, client, seedSite, seedSpace, seedUser, start, workerdCpuNs, type WorkerModules } from './routes';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const ROUNDS = Number(args.get('rounds') ?? 5);
const BASELINE = args.get('baseline');
const ONLY = args.get('only');
/** The 1-minute load average, printed at the start and end of a run: ratios measured under a load of 20 differ from those at 2. */
const load = () => loadavg()[0].toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One measurement of a kind: wall clock and workerd's CPU (ratio and ours), then the Worker isolate's own CPU. */
interface Sample {
  ratio: number;
  ms: number;
  cpuRatio: number;
  cpuMs: number;
  workerRatio: number;
  workerMs: number;
  referenceWorkerMs: number;
  /** The Worker isolate's share of the process's CPU on our request. */
  share: number;
}

/** A TCP port free now, for workerd's inspector. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * What share of the process's CPU on the first request of a fresh isolate its Worker's isolate had, ours and then the
 * reference's, on an instance whose every isolate is profiled (isolate-cpu.ts): the Worker's isolate ('core:user:api',
 * or 'core:user:ref') against the sum of it and Miniflare's (local D1, cache, rate limiter, their entry workers).
 * Shares, not the profiles' times: profiling a cold isolate slows it (V8 records every function it compiles), and
 * the process's CPU is measured on an instance nobody profiles.
 */
async function workerShares(
  persist: string,
  scripts: { api: WorkerModules; reference: WorkerModules },
  ours: (api: string) => Promise<unknown>,
  userId: string,
): Promise<{ ours: number; reference: number }> {
  const inspectorPort = await freePort();
  const fresh = await start({ persist, scripts, inspectorPort });
  try {
    const simulators = (await isolatesOf(inspectorPort)).filter((service) => !service.startsWith('core:user:'));
    const shareOf = async (worker: string, work: () => Promise<unknown>) => {
      const { cpuMs } = await profiled(inspectorPort, [worker, ...simulators], work);
      const total = [...cpuMs.values()].reduce((sum, ms) => sum + ms, 0);
      return cpuMs.get(worker)! / total;
    };
    const oursShare = await shareOf('core:user:api', () => ours(fresh.apiUrl));
    const referenceShare = await shareOf('core:user:ref', () => timedFetch(`${fresh.refUrl}/ref/${userId}`));
    return { ours: oursShare, reference: referenceShare };
  } finally {
    await fresh.mf.dispose();
  }
}

/**
 * `measure`, tried again on a fresh instance when it fails (at most ATTEMPTS times in all), saying why on stderr: a CPU
 * profile's inspector session lost (isolate-cpu.ts `inspect`) costs one more instance, not the run. A lost session
 * leaves no figure (the attempt's profiles are dropped whole), so a retry takes nothing from the median but time. Five:
 * workerd closed a session (`outbound:0`, `core:entry`, code 1000) in 4 of 20 profiled instances of one idle run, twice
 * in a row for one measurement; three attempts left a run one loss from dying.
 */
const ATTEMPTS = 5;
async function withRetries<T>(what: string, measure: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await measure();
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      console.error(`  ${what}: attempt ${attempt} failed (${(error as Error).message}); again on a fresh instance`);
    }
  }
}

/** How long a first request may take before it counts as failed (a cold one takes 0.1-0.5 s, 3 s on a machine at load 25). */
const REQUEST_MS = 60_000;

/** One GET answered 200: its wall-clock time and workerd's CPU time for it, in ms. */
async function timedFetch(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; cpuMs: number }> {
  const cpu0 = workerdCpuNs();
  const t0 = performance.now();
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(REQUEST_MS) });
  await response.arrayBuffer();
  const ms = performance.now() - t0;
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return { ms, cpuMs: (workerdCpuNs() - cpu0) / 1e6 };
}

/** The modules each kind's first request imports on demand: the group apps' module, its group (routes/groups.ts) and what the group imports on demand for it. */
const FIRST_IMPORT: Record<string, string[]> = {
  'space read (GET /v1/spaces/{id})': ['src/routes/group-app.ts', 'src/routes/spaces/spaces.ts'],
  'page read (GET .../content/page/{pageId})': ['src/routes/group-app.ts', 'src/routes/space-content/content.ts'],
  // The site's module (served from the main app's match, no group app: app.ts serveSiteRoute), then the renderer it
  // imports on demand for the page it renders (views.ts documentRenderer).
  'published HTML page (GET /s/{site}/)': ['src/site/routes.ts', 'src/site/render/document.ts'],
};
/** The first requests that must evaluate no zod (build-worker.mjs ZOD_FREE): the published site, and the page read's group. */
const ZOD_FREE_KINDS = ['published HTML page (GET /s/{site}/)', 'page read (GET .../content/page/{pageId})'];

/**
 * What each kind's first request evaluates beyond the entry, from the build's module graph (build-worker.mjs); a
 * published page and a page read must evaluate no zod (the site reaches no schema module: schemas/mappers says why;
 * the page read's group keeps its definitions apart: lib/lazy-router), else this run stops here and names the modules.
 */
async function printModuleGraph() {
  const graphs = await onDemandModules({ entry: 'test/bench/worker.ts', sources: [...new Set(Object.values(FIRST_IMPORT).flat())] });
  console.log('Modules evaluated on demand by the first request (beyond the entry):');
  for (const [label, sources] of Object.entries(FIRST_IMPORT)) {
    const modules = [...new Map(sources.flatMap((source) => graphs.get(source)!).map((m) => [m.input, m])).values()];
    const kb = (list: { bytes: number }[]) => (list.reduce((sum, m) => sum + m.bytes, 0) / 1e3).toFixed(0);
    const zod = modules.filter((m) => isZodModule(m.input));
    console.log(`  ${label.padEnd(44)} ${modules.length} modules, ${kb(modules)} KB (zod ${kb(zod)} KB)`);
    if (ZOD_FREE_KINDS.includes(label) && zod.length > 0) {
      throw new Error(`A ${label} evaluates zod: ${zod.map((m) => m.input).join(', ')}`);
    }
  }
}

/**
 * The cron and the queue consumer, each as the first event of a fresh isolate: what they import must evaluate
 * on its own (zod's OpenAPI extension first: build-worker.mjs, zodOpenApiFirst). Throws if either fails.
 */
async function firstEventsOtherThanRequests(persist: string, scripts: Awaited<ReturnType<typeof bundleWorkers>>) {
  const cron = await start({ persist, scripts });
  try {
    const result = await (await cron.mf.getWorker('api')).scheduled({ cron: '0 * * * *', scheduledTime: new Date() });
    if (result.outcome !== 'ok') throw new Error(`the cron as a fresh isolate's first event: ${result.outcome}`);
  } finally {
    await cron.mf.dispose();
  }
  const queue = await start({ persist, scripts });
  try {
    const message = { id: 'cold-first-event', timestamp: new Date(), attempts: 1, body: { id: 'cold-first-event', type: 'cold-bench-no-such-job', payload: null } };
    const result = await (await queue.mf.getWorker('api')).queue('docs-platform-jobs', [message]);
    if (result.outcome !== 'ok' || !result.retryMessages.some((retried: { msgId: string }) => retried.msgId === message.id)) {
      throw new Error(`the queue consumer as a fresh isolate's first event: ${result.outcome}, retried ${JSON.stringify(result.retryMessages)}`);
    }
  } finally {
    await queue.mf.dispose();
  }
  console.log('The cron and the queue consumer, each as a fresh isolate\'s first event: ok');
}

/** The bench Worker of another checkout, built by that checkout's own build-worker.mjs (its settings are part of what is compared). */
async function bundleBaseline(checkout: string): Promise<{ api: WorkerModules; reference: WorkerModules }> {
  const { buildWorker } = await import(pathToFileURL(path.join(checkout, 'src/cli/build-worker.mjs')).href);
  const scratch = mkdtempSync(path.join(tmpdir(), 'dpa-cold-baseline-'));
  try {
    const built: { name: string }[] = await buildWorker({ root: checkout, entry: 'test/bench/worker.ts', outdir: scratch });
    const modules = built.map(({ name }) => ({ type: 'ESModule' as const, path: path.join('/worker', name), contents: readFileSync(path.join(scratch, name), 'utf8') }));
    return { api: { modules }, reference: await bundle('test/bench/reference-worker.ts') };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A build's own database, seeded through its own API: what its first requests read. */
interface Seeded {
  persist: string;
  userId: string;
  token: string;
  spaceId: string;
  leaf: string;
  siteId: string;
}

/**
 * A space of 10 pages and a public site publishing it, written through the API of a first instance of `scripts` into a
 * database of its own. Each build reads what it wrote: a checkout that stores content in another form (documents
 * packed with deflate where the baseline packed them with Brotli) could not read the other's.
 */
async function seeded(scripts: { api: WorkerModules; reference: WorkerModules }): Promise<Seeded> {
  const persist = mkdtempSync(path.join(tmpdir(), 'dpa-cold-'));
  const seeding = await start({ persist, scripts });
  try {
    const call = client(seeding.apiUrl);
    const { user, token, org } = await seedUser(call);
    const space = await seedSpace(call, token, org.id, 10);
    const sitePath = await seedSite(call, token, org.id, [space.id]);
    return { persist, userId: user.id, token, spaceId: space.id, leaf: space.leaves[0], siteId: sitePath.split('/').pop()! };
  } finally {
    await seeding.mf.dispose();
  }
}

const seeds: Seeded[] = [];
try {
  console.log(`Load average at start: ${load()}`);
  await printModuleGraph();
  const scripts = await bundleWorkers();
  const baseline = BASELINE ? await bundleBaseline(path.resolve(BASELINE)) : undefined;
  const builds = { ours: scripts, ...(baseline ? { baseline } : {}) };
  const seedOf = new Map<string, Seeded>();
  for (const [build, modules] of Object.entries(builds)) {
    const seed = await seeded(modules);
    seeds.push(seed);
    seedOf.set(build, seed);
  }
  await firstEventsOtherThanRequests(seedOf.get('ours')!.persist, scripts);

  const kinds = {
    'space read (GET /v1/spaces/{id})': (api: string, seed: Seeded) => timedFetch(`${api}/v1/spaces/${seed.spaceId}`, { Authorization: `Bearer ${seed.token}` }),
    'page read (GET .../content/page/{pageId})': (api: string, seed: Seeded) =>
      timedFetch(`${api}/v1/spaces/${seed.spaceId}/content/page/${seed.leaf}`, { Authorization: `Bearer ${seed.token}` }),
    'published HTML page (GET /s/{site}/)': (api: string, seed: Seeded) => timedFetch(`${api}/s/${seed.siteId}/`),
  };
  const samples = new Map<string, Sample[]>();
  const record = (key: string, sample: Sample) => samples.set(key, [...(samples.get(key) ?? []), sample]);
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, firstOf] of Object.entries(kinds).filter(([label]) => !ONLY || label.includes(ONLY))) {
      for (const [build, modules] of Object.entries(builds)) {
        const seed = seedOf.get(build)!;
        const first = (api: string) => firstOf(api, seed);
        // The process's CPU, on an instance nobody profiles (sampling slows the isolates it watches).
        const fresh = await start({ persist: seed.persist, scripts: modules });
        let ours: { ms: number; cpuMs: number };
        let reference: { ms: number; cpuMs: number };
        try {
          ours = await first(fresh.apiUrl);
          reference = await timedFetch(`${fresh.refUrl}/ref/${seed.userId}`);
        } finally {
          await fresh.mf.dispose();
        }
        // The Worker isolate's share of it, from a second fresh instance whose every isolate is profiled.
        const shares = await withRetries(`${label} [${build}]`, () => workerShares(seed.persist, modules, first, seed.userId));
        const workerMs = ours.cpuMs * shares.ours;
        const referenceWorkerMs = reference.cpuMs * shares.reference;
        record(`${label}|${build}`, {
          ratio: ours.ms / reference.ms,
          ms: ours.ms,
          cpuRatio: ours.cpuMs / reference.cpuMs,
          cpuMs: ours.cpuMs,
          workerRatio: workerMs / referenceWorkerMs,
          workerMs,
          referenceWorkerMs,
          share: shares.ours,
        });
      }
    }
    // Progress, so that a long run shows it is alive (the figures come at the end).
    console.error(`  round ${round + 1} of ${ROUNDS} measured (${elapsed()}, load ${load()})`);
  }
  console.log(
    `First request of a fresh isolate, as a ratio to the reference Worker's first request (median of ${ROUNDS}; load average now ${load()}):\n` +
      `  wall clock; workerd CPU (the whole process: the Worker's isolate and Miniflare's local D1, cache and rate limiter\n` +
      `  isolates); Worker CPU (the Worker's isolate alone: the process's CPU times its share in CPU profiles of every\n` +
      `  isolate; what Cloudflare counts as the Worker's, and what the target is judged on), ours vs the reference's:`,
  );
  for (const label of Object.keys(kinds)) {
    for (const build of Object.keys(builds)) {
      const runs = samples.get(`${label}|${build}`);
      if (!runs) continue;
      const name = baseline ? `${label} [${build === 'ours' ? 'this checkout' : `baseline ${BASELINE}`}]` : label;
      const of = (field: keyof Sample) => median(runs.map((run) => run[field]));
      console.log(
        `  ${name.padEnd(baseline ? 70 : 44)} ${of('ratio').toFixed(2)} x   (${of('ms').toFixed(0)} ms here)   CPU ${of('cpuRatio').toFixed(2)} x   (${of('cpuMs').toFixed(0)} ms)` +
          `   Worker CPU ${of('workerRatio').toFixed(2)} x   (${of('workerMs').toFixed(0)} vs ${of('referenceWorkerMs').toFixed(0)} ms; ${(100 * of('share')).toFixed(0)}% of ours)`,
      );
    }
  }
} finally {
  for (const seed of seeds) rmSync(seed.persist, { recursive: true, force: true });
}
