/**
 * Cold start (`npm run bench -- cold`, or `node --import tsx test/bench/cold.ts [--rounds=N]`): the first
 * request a fresh isolate answers, for a space read, a page read and a published HTML page, each as a ratio to
 * the first request of the reference Worker (reference-worker.ts: one zod-openapi route, one D1 read) in the
 * same fresh Miniflare. Each measurement starts a new Miniflare on the same persisted state (seeded once through
 * the API), so the Worker's isolate is new and has loaded no route group: the first request pays for its
 * group (app.ts, routes/groups.ts). The isolate's own startup (evaluating the bundle) happens before Miniflare is
 * ready and is measured by startup.ts. Medians of `--rounds` (5); ratios, not absolute times, are the figure.
 * First it prints what each first request evaluates beyond the entry (the build's module graph), and stops if a
 * published page would evaluate zod.
 *
 * `--baseline=<directory>`: the Worker of another checkout of this repository (e.g. `git worktree add /tmp/base main`,
 * with node_modules linked) measured in the same run, interleaved, on the same database: a before/after comparison.
 * Both are built with this checkout's src/cli/build-worker.mjs (its entry is test/bench/worker.ts in each).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isZodModule, onDemandModules } from '../../src/cli/build-worker.mjs';
import { bundleWorkers, client, seedSite, seedSpace, seedUser, start } from './routes';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const ROUNDS = Number(args.get('rounds') ?? 5);
const BASELINE = args.get('baseline');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timedFetch(url: string, headers: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return performance.now() - t0;
}

/** The modules each kind's first request imports on demand: the group apps' module and its group (routes/groups.ts). */
const FIRST_IMPORT: Record<string, string[]> = {
  'space read (GET /v1/spaces/{id})': ['src/routes/group-app.ts', 'src/routes/spaces/spaces.ts'],
  'page read (GET .../content/page/{pageId})': ['src/routes/group-app.ts', 'src/routes/space-content/content.ts'],
  'published HTML page (GET /s/{site}/)': ['src/routes/group-app.ts', 'src/site/routes.ts'],
};
const PUBLISHED_PAGE = 'published HTML page (GET /s/{site}/)';

/**
 * What each kind's first request evaluates beyond the entry, from the build's module graph (build-worker.mjs); a
 * published page must evaluate no zod (the site reaches no schema module: schemas/mappers says why), else this
 * run stops here and names the modules.
 */
async function printModuleGraph() {
  const graphs = await onDemandModules({ entry: 'test/bench/worker.ts', sources: [...new Set(Object.values(FIRST_IMPORT).flat())] });
  console.log('Modules evaluated on demand by the first request (beyond the entry):');
  for (const [label, sources] of Object.entries(FIRST_IMPORT)) {
    const modules = [...new Map(sources.flatMap((source) => graphs.get(source)!).map((m) => [m.input, m])).values()];
    const kb = (list: { bytes: number }[]) => (list.reduce((sum, m) => sum + m.bytes, 0) / 1e3).toFixed(0);
    const zod = modules.filter((m) => isZodModule(m.input));
    console.log(`  ${label.padEnd(44)} ${modules.length} modules, ${kb(modules)} KB (zod ${kb(zod)} KB)`);
    if (label === PUBLISHED_PAGE && zod.length > 0) {
      throw new Error(`A published page evaluates zod: ${zod.map((m) => m.input).join(', ')}`);
    }
  }
}

const persist = mkdtempSync(path.join(tmpdir(), 'dpa-cold-'));
try {
  await printModuleGraph();
  const scripts = await bundleWorkers();
  const baseline = BASELINE ? await bundleWorkers(path.resolve(BASELINE)) : undefined;
  // Seeding: a space of 10 pages and a public site publishing it, through the API of a first instance.
  const seeding = await start({ persist, scripts });
  const call = client(seeding.apiUrl);
  const { user, token, org } = await seedUser(call);
  const space = await seedSpace(call, token, org.id, 10);
  const sitePath = await seedSite(call, token, org.id, [space.id]);
  const siteId = sitePath.split('/').pop()!;
  await seeding.mf.dispose();

  const kinds = {
    'space read (GET /v1/spaces/{id})': (api: string) => timedFetch(`${api}/v1/spaces/${space.id}`, { Authorization: `Bearer ${token}` }),
    'page read (GET .../content/page/{pageId})': (api: string) =>
      timedFetch(`${api}/v1/spaces/${space.id}/content/page/${space.leaves[0]}`, { Authorization: `Bearer ${token}` }),
    'published HTML page (GET /s/{site}/)': (api: string) => timedFetch(`${api}/s/${siteId}/`),
  };
  const builds = { ours: scripts, ...(baseline ? { baseline } : {}) };
  const ratios = new Map<string, number[]>();
  const absolute = new Map<string, number[]>();
  const record = (key: string, ratio: number, ms: number) => {
    ratios.set(key, [...(ratios.get(key) ?? []), ratio]);
    absolute.set(key, [...(absolute.get(key) ?? []), ms]);
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, first] of Object.entries(kinds)) {
      for (const [build, modules] of Object.entries(builds)) {
        const fresh = await start({ persist, scripts: modules });
        try {
          const ours = await first(fresh.apiUrl);
          const reference = await timedFetch(`${fresh.refUrl}/ref/${user.id}`);
          record(`${label}|${build}`, ours / reference, ours);
        } finally {
          await fresh.mf.dispose();
        }
      }
    }
  }
  console.log(`First request of a fresh isolate, as a ratio to the reference Worker's first request (median of ${ROUNDS}):`);
  for (const label of Object.keys(kinds)) {
    for (const build of Object.keys(builds)) {
      const key = `${label}|${build}`;
      const name = baseline ? `${label} [${build === 'ours' ? 'this checkout' : `baseline ${BASELINE}`}]` : label;
      console.log(`  ${name.padEnd(baseline ? 70 : 44)} ${median(ratios.get(key)!).toFixed(2)} x   (${median(absolute.get(key)!).toFixed(0)} ms here)`);
    }
  }
} finally {
  rmSync(persist, { recursive: true, force: true });
}
