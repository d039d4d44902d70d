/**
 * `npm run bench -- startup` (or `node --import tsx test/bench/startup.ts`): the Worker's startup CPU as
 * `wrangler check startup` measures it ("Active", the CPU of evaluating the bundle's top level), against the
 * reference Worker (reference-worker.ts: one zod-openapi route with drizzle over D1), interleaved in the same
 * run, median of `--runs N` each (3 by default). The ratio is the figure: the machine's speed and load cancel
 * out of it, absolute times do not.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const wrangler = path.join(root, 'node_modules/wrangler/bin/wrangler.js');
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;

/** "Active: 123.4 ms" and the bundle size of one `wrangler check startup`. */
function checkStartup(args: string[], scratch: string): { activeMs: number; bundle: string } {
  const run = spawnSync(process.execPath, [wrangler, 'check', 'startup', '--outfile', path.join(scratch, 'profile.cpuprofile'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1' },
  });
  const out = `${run.stdout}\n${run.stderr}`;
  const active = out.match(/Active:\s*([\d.]+)\s*ms/);
  if (run.status !== 0 || !active) throw new Error(`wrangler check startup failed:\n${out.slice(-3000)}`);
  return { activeMs: Number(active[1]), bundle: out.match(/Total Upload:\s*([^\n]+)/)?.[1]?.trim() ?? '?' };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const scratch = mkdtempSync(path.join(tmpdir(), 'dpa-startup-'));
try {
  const referenceConfig = path.join(scratch, 'wrangler.json');
  writeFileSync(
    referenceConfig,
    JSON.stringify({
      name: 'startup-reference',
      main: path.join(root, 'test/bench/reference-worker.ts'),
      compatibility_date: '2026-11-01',
      compatibility_flags: ['nodejs_compat'],
      d1_databases: [{ binding: 'DB', database_name: 'reference', database_id: '00000000-0000-0000-0000-000000000001' }],
    }),
  );
  const ours: number[] = [];
  const reference: number[] = [];
  let bundles = { ours: '?', reference: '?' };
  for (let i = 0; i < runs; i++) {
    const a = checkStartup([], scratch);
    const b = checkStartup(['--config', referenceConfig], scratch);
    ours.push(a.activeMs);
    reference.push(b.activeMs);
    bundles = { ours: a.bundle, reference: b.bundle };
    console.log(`run ${i + 1}: ours ${a.activeMs} ms, reference ${b.activeMs} ms`);
  }
  const ratio = median(ours) / median(reference);
  console.log(`\nstartup CPU ("Active", median of ${runs}): ours ${median(ours)} ms, reference ${median(reference)} ms: ${ratio.toFixed(2)}x`);
  console.log(`bundles: ours ${bundles.ours}; reference ${bundles.reference}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
