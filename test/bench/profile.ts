/**
 * CPU profile of the Worker under load (`node --import tsx test/bench/profile.ts [--route=<path>] [--seconds=N]`):
 * the bundled Worker on Miniflare (as routes.ts serves it), a space of 10 pages seeded through the API, then
 * `--route` (default: a page read; `{space}`, `{page}`, `{cr}`, `{org}`, `{site}` are replaced) loaded for `--seconds` (5)
 * at 10 connections while workerd's inspector records a CPU profile of the 'api' Worker. Prints the functions
 * with the most self time and the heaviest call paths; writes the profile to /tmp/worker.cpuprofile, or to `--out=<file>`
 * (open it in Chrome DevTools; helpers working at once on one machine each name their own). What a warm read costs is read here before anything is changed. `--cold`: the first request
 * of a fresh isolate instead (what `npm run bench -- cold` times). `--isolates`: Miniflare's local D1 (`d1:db`) and
 * rate limiter (`ratelimit:ns`) isolates profiled too, with each one's busy samples: on a page read the D1 isolate is
 * as busy as the Worker's (per statement: the statement, two `total_changes()` reads, the database size), the limiter's
 * a quarter of it; `--no-rate-limits` as in routes.ts. `--twin`: the Worker as deployed instead (routes.ts' twin, its rate
 * limits counted in its memory: no limiter isolate). `--reference`: then the reference Worker (ref d) loaded and profiled
 * the same way, and each isolate's busy time per request printed for both: what a read spends that the reference does not.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { busyMs, inspect, type CpuProfile } from './isolate-cpu';
import { bundleWorkers, client, seedSite, seedSpace, seedUser, start } from './routes';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const SECONDS = Number(args.get('seconds') ?? 5);
const ROUTE = args.get('route') ?? '/v1/spaces/{space}/content/page/{page}';
const INSPECTOR_PORT = 9330 + Math.floor(Math.random() * 500);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

/**
 * `--isolates`: besides the Worker, the isolates of Miniflare's local D1 (its database Durable Object, `d1:db`) and of
 * its rate limiter (`ratelimit:ns`), profiled at the same time: how the process's CPU per request splits between them.
 */
const TWIN = args.has('twin');
const WORKER = TWIN ? 'core:user:api-unlimited' : 'core:user:api';
const ISOLATES = args.has('isolates') ? [WORKER, 'd1:db', ...(args.has('no-rate-limits') || TWIN ? [] : ['ratelimit:ns'])] : [WORKER];

async function load(url: string, token: string) {
  const end = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (performance.now() < end) {
        const res = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
        done++;
      }
    }),
  );
  return done;
}

/** `--cold`: the first request of a fresh isolate, alone. */
async function first(url: string, token: string) {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return 1;
}

/** Samples in which the isolate ran (not idle): on a loaded machine the samples' timestamps are not its CPU time. */
function busy(profile: { nodes: ProfileNode[]; samples: number[] }) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  return profile.samples.filter((id) => byId.get(id)?.callFrame.functionName !== '(idle)').length;
}

function summarize(profile: { nodes: ProfileNode[]; samples: number[] }, lines = 30) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const total = profile.samples.length;
  const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const sample of profile.samples) {
    let node = byId.get(sample);
    if (!node) continue;
    self.set(label(node), (self.get(label(node)) ?? 0) + 1);
    const seen = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const l = label(byId.get(id)!);
      if (!seen.has(l)) inclusive.set(l, (inclusive.get(l) ?? 0) + 1);
      seen.add(l);
    }
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([l, v]) => `  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${l}`).join('\n');
  console.log(`${total} samples. Self time:\n${top(self, lines)}\n\nInclusive time:\n${top(inclusive, lines * 2)}`);
}

/** `work` run while every isolate of `services` is profiled: its requests, each isolate's profile and busy time (µs). */
async function record(services: string[], work: () => Promise<number>) {
  const inspectors = await Promise.all(services.map((service) => inspect(INSPECTOR_PORT, service)));
  for (const inspector of inspectors) {
    await inspector.send('Profiler.enable');
    await inspector.send('Profiler.setSamplingInterval', { interval: 100 });
    await inspector.send('Profiler.start');
  }
  const requests = await work();
  const profiles: Array<CpuProfile & { nodes: ProfileNode[] }> = await Promise.all(inspectors.map(async (inspector) => (await inspector.send('Profiler.stop')).profile));
  for (const inspector of inspectors) inspector.close();
  return { requests, profiles, busyUs: profiles.map((profile) => busyMs(profile, 100) * 1000) };
}

function report(route: string, services: string[], { requests, profiles, busyUs }: Awaited<ReturnType<typeof record>>) {
  console.log(`${route}: ${requests} requests in ${SECONDS} s`);
  if (services.length > 1) {
    console.log('Busy samples per isolate (not idle), and their time per request:');
    services.forEach((name, i) => console.log(`  ${name.padEnd(16)} ${String(busy(profiles[i])).padStart(7)} samples, ${(busyUs[i] / requests).toFixed(0).padStart(6)} µs per request`));
  }
  services.forEach((name, i) => {
    if (i > 0) writeFileSync(`/tmp/worker-${name.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`, JSON.stringify(profiles[i]));
    console.log(`\n${name}:`);
    summarize(profiles[i], i === 0 ? 30 : 12);
  });
}

const COLD = args.has('cold');
const REFERENCE = args.has('reference');
const persist = mkdtempSync(path.join(tmpdir(), 'dpa-profile-'));
const scripts = await bundleWorkers();
let { mf, apiUrl, unlimitedUrl } = await start({ inspectorPort: INSPECTOR_PORT, persist, scripts, unlimitedTwin: TWIN });
try {
  const call = client(apiUrl);
  const { token, org, user } = await seedUser(call);
  const space = await seedSpace(call, token, org.id, 10);
  const cr = (await call('POST', `/v1/spaces/${space.id}/change-requests`, token, { subject: 'Profile' })).body;
  // `{site}`: a public site publishing the space, as cold.ts seeds it (its published page is `/s/{site}/`).
  const site = ROUTE.includes('{site}') ? (await seedSite(call, token, org.id, [space.id])).split('/').pop()! : '';
  const route = ROUTE.replace('{site}', site).replace('{space}', space.id).replace('{page}', space.leaves[5]).replace('{cr}', String(cr.id)).replace('{org}', org.id);
  let url = `${TWIN ? unlimitedUrl : apiUrl}${route}`;
  if (COLD) {
    if (TWIN) throw new Error('--cold profiles the Worker with its rate limit bindings; --twin is for warm reads');
    // A fresh isolate on the same storage, profiled from its first request on.
    await mf.dispose();
    mf = (await start({ persist, scripts, inspectorPort: INSPECTOR_PORT })).mf;
    url = `${(await mf.unsafeGetDirectURL('api')).origin}${route}`;
  } else {
    await load(url, token); // warm-up: every lazy group and cache loaded
  }
  const recorded = await record(ISOLATES, () => (COLD ? first(url, token) : load(url, token)));
  writeFileSync(args.get('out') ?? '/tmp/worker.cpuprofile', JSON.stringify(recorded.profiles[0]));
  report(route, ISOLATES, recorded);
  if (REFERENCE) {
    // The reference (one zod-openapi route, one drizzle point read) under the same load, profiled the same way: what a
    // read costs beyond it, isolate by isolate and function by function.
    const refUrl = `${(await mf.unsafeGetDirectURL('ref')).origin}/ref/${user.id}`;
    await load(refUrl, token);
    const services = ISOLATES.map((name) => (name === WORKER ? 'core:user:ref' : name)).filter((name) => !name.startsWith('ratelimit:'));
    const reference = await record(services, () => load(refUrl, token));
    writeFileSync(`${(args.get('out') ?? '/tmp/worker.cpuprofile').replace(/\.cpuprofile$/, '')}-ref.cpuprofile`, JSON.stringify(reference.profiles[0]));
    report('reference /ref/{user}', services, reference);
    console.log('\nBusy time per request, Worker / reference (µs):');
    ISOLATES.forEach((name, i) => {
      const j = services.indexOf(name === WORKER ? 'core:user:ref' : name);
      const ours = recorded.busyUs[i] / recorded.requests;
      const theirs = j < 0 ? 0 : reference.busyUs[j] / reference.requests;
      console.log(`  ${name.padEnd(16)} ${ours.toFixed(0).padStart(6)} / ${theirs.toFixed(0).padStart(6)}${theirs ? `  ${(ours / theirs).toFixed(2)} ×` : ''}`);
    });
  }
} finally {
  await mf.dispose();
  rmSync(persist, { recursive: true, force: true });
}
