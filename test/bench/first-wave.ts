/**
 * The first requests of a route group, many at once (`npm run bench -- first-wave`, or
 * `node --import tsx test/bench/first-wave.ts [--trials=6] [--wave=12] [--warm=10] [--checkout=<dir>]`): the bundled
 * Worker served by Miniflare as the route benchmark serves it (routes.ts `start`), a fresh workerd per trial, seeded
 * through the API, its published site read by visitors for `--warm` seconds (as the route benchmark's targets before
 * a failing one left the isolate), then a wave of `--wave` concurrent requests on each of four routes whose group no
 * request has loaded yet. Every answer of a wave must be the route's own, never a 500; exits 1 otherwise, naming the
 * route and the answers. `--checkout=<dir>`: the Worker of another checkout (a copy of main's) in the same harness.
 *
 * What it guards: a request must never go on from a promise another request created. The route groups were loaded
 * once per isolate through a promise kept for it (app.ts `serveWithGroup`, group-app `loadGroup`): the first request
 * of a wave made it, the others awaited it, and in about one trial of two every one of those answered with a Response
 * workerd refused to send (`Cannot perform I/O on behalf of a different request ... (I/O type: ReadableStreamSource)`:
 * a plain-text 500, "Uncaught exception" in workerd's log): the intermittent 500 of `npm run bench` on search and
 * published pages, which came when a target's first wave found its group unloaded. In the test pool (SELF.fetch)
 * dynamic imports go through the runner's module loader and the failure does not show: it is checked here, on the
 * deployed build. Not a timing: it counts wrong answers.
 */
import path from 'node:path';
import process from 'node:process';
import { bundleWorkers, client, seedSpace, seedUser, start } from './routes';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const TRIALS = Number(args.get('trials') ?? 6);
const WAVE = Number(args.get('wave') ?? 12);
const WARM_SECONDS = Number(args.get('warm') ?? 10);
/** `--checkout=<dir>`: the Worker of another checkout of this repository (main's, to see the failure without the fix). */
const CHECKOUT = args.get('checkout');
const OPERATOR = 'bench-admin-token';

/** Routes of distinct groups, each with the answer every request of its wave must get. */
const waves = (seeded: Seeded): Array<{ label: string; path: string; token: string; status: number }> => [
  { label: 'GET /v1/user (identity/users)', path: '/v1/user', token: seeded.token, status: 200 },
  { label: 'GET /v1/spaces/<id> (spaces/spaces)', path: `/v1/spaces/${seeded.spaceId}`, token: seeded.token, status: 200 },
  { label: 'GET /v1/ as the operator (system/api-information)', path: '/v1/', token: OPERATOR, status: 200 },
  { label: 'GET /s/<site>/ (site)', path: `/s/${seeded.siteId}/`, token: '', status: 200 },
];

interface Seeded {
  token: string;
  spaceId: string;
  siteId: string;
}

/** A user, a ten-page space and its published site, through the API (the isolate's first requests, as in the route benchmark). */
async function seed(apiUrl: string): Promise<Seeded> {
  const call = client(apiUrl);
  const { token, org } = await seedUser(call);
  const space = await seedSpace(call, token, org.id, 10);
  const site = (await call('POST', `/v1/orgs/${org.id}/sites`, token, { title: 'First wave', spaces: [space.id] })).body as { id: string };
  await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/publish`, token);
  return { token, spaceId: space.id, siteId: site.id };
}

/**
 * Visitors reading the site, ten at a time, for WARM_SECONDS: how the route benchmark's targets before a failing
 * one left the isolate (the waves after a fresh start alone did not show the failure). Answers must be 200s.
 */
async function visitorLoad(url: string): Promise<number> {
  const end = performance.now() + WARM_SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (performance.now() < end) {
        const res = await fetch(url);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
        done++;
      }
    }),
  );
  return done;
}

async function main() {
  const scripts = await bundleWorkers(CHECKOUT ? path.resolve(CHECKOUT) : undefined);
  const failures: string[] = [];
  let count = 0;
  for (let trial = 0; trial < TRIALS; trial++) {
    // A fresh workerd and database each trial: every group is unloaded again.
    const { mf, apiUrl } = await start({ scripts });
    try {
      const seeded = await seed(apiUrl);
      const line: string[] = [];
      if (WARM_SECONDS > 0) line.push(`${await visitorLoad(`${apiUrl}/s/${seeded.siteId}/llms-full.txt`)} visitor reads, then`);
      for (const wave of waves(seeded)) {
        count++;
        const answers = await Promise.all(
          Array.from({ length: WAVE }, async () => {
            const res = await fetch(`${apiUrl}${wave.path}`, { headers: wave.token ? { Authorization: `Bearer ${wave.token}` } : {} });
            return { status: res.status, body: (await res.text()).slice(0, 120) };
          }),
        );
        const wrong = answers.filter((a) => a.status !== wave.status);
        line.push(`${wrong.length}/${WAVE}`);
        if (wrong.length > 0) failures.push(`trial ${trial}, ${wave.label}: ${wrong.length} of ${WAVE} answered ${[...new Set(wrong.map((a) => `${a.status} ${a.body}`))].join(' | ')}`);
      }
      console.log(`trial ${trial}: wrong answers per wave ${line.join(' ')}`);
    } finally {
      await mf.dispose();
    }
  }
  if (failures.length > 0) {
    console.error(`\nFirst waves with wrong answers:\n${failures.join('\n')}`);
    process.exit(1);
  }
  console.log(`\n${TRIALS} fresh isolates, ${count} first waves of ${WAVE}: every answer the route's own`);
}

await main();
