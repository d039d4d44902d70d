// What `npm run dev` and `npm start` share: the secrets of .dev.vars, and `wrangler dev` started quietly and
// offline, its output passed through with the runtime's reports of expected outbound failures shortened.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { withDevSecrets } from './dev-vars.mjs';
import { OFFLINE_ENV } from './local-d1.mjs';
import { DEV_PORT } from './seed.mjs';
import { outboundNoiseFilter } from './runtime-noise.mjs';

/** Keeps the secrets `<root>/.dev.vars` has; writes a random value for each one it lacks. Answers the names written. */
export function ensureDevVars(root) {
  const path = join(root, '.dev.vars');
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const { text, created } = withDevSecrets(current);
  if (created.length > 0) writeFileSync(path, text, { mode: 0o600 });
  return created;
}

/** What wrangler.toml's `[build] watch_dir` leaves out on purpose: tooling and the guides, which the Worker never imports. */
const UNWATCHED = ['src/cli', 'src/templates/handbook'];

/**
 * Entries of src/ (and of src/templates/) that `[build] watch_dir` in wrangler.toml does not cover: `wrangler dev` would
 * not reload the Worker when they change. wrangler.toml lists the paths so that a saved guide does not reload it.
 */
export function unwatchedSources(root) {
  const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
  const list = /^watch_dir\s*=\s*\[([\s\S]*?)\]/m.exec(toml)?.[1];
  if (!list) return [];
  const watched = [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1].replace(/\/$/, ''));
  const covered = (path) => [...watched, ...UNWATCHED].some((w) => path === w || path.startsWith(`${w}/`) || w.startsWith(`${path}/`));
  const entries = (dir) => readdirSync(join(root, dir)).map((name) => `${dir}/${name}`);
  return [...entries('src').filter((p) => p !== 'src/templates'), ...entries('src/templates')].filter((path) => !covered(path));
}

/**
 * Starts `wrangler dev` on 127.0.0.1:8787 (until stopped; this process exits with it). Offline (OFFLINE_ENV) and
 * at log level `warn` (its warnings, errors and the Worker's own output still show); `WRANGLER_LOG=info` shows each
 * request as well.
 */
export function startWranglerDev(root, { extraArgs = [] } = {}) {
  // The Cron Trigger runs on `curl http://127.0.0.1:8787/cdn-cgi/handler/scheduled` (workerd's own route: wrangler's
  // --test-scheduled middleware needs wrangler's bundling, which wrangler.toml's no_bundle turns off).
  // SITE_EDGE_FRESH_SECONDS:0: locally a merge or an edited guide shows on the site at once; a deployment serves
  // published pages from the edge cache for wrangler.toml's 30 s (src/site/edge-cache.ts).
  // `DEV_PORT` moves the inspector too (to DEV_PORT + 1000), off wrangler's 9229 that another checkout's may hold.
  const inspector = process.env.DEV_PORT ? ['--inspector-port', String(DEV_PORT + 1000)] : [];
  const args = ['dev', '--ip', '127.0.0.1', '--port', String(DEV_PORT), ...inspector, '--show-interactive-dev-session=false', '--var', 'SITE_EDGE_FRESH_SECONDS:0', ...extraArgs];
  const child = spawn(process.execPath, [join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js'), ...args], {
    cwd: root,
    env: { ...process.env, ...OFFLINE_ENV, WRANGLER_LOG: process.env.WRANGLER_LOG ?? 'warn', FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stderr.isTTY ? '1' : '0') },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  const dim = process.stderr.isTTY ? undefined : (text) => text;
  const filter = outboundNoiseFilter((line) => process.stderr.write(`${line}\n`), Date.now, dim);
  createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', filter);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on('error', (error) => {
    console.error(`could not start wrangler dev: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
  });
  return child;
}
