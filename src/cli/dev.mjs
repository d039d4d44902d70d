#!/usr/bin/env node
// `npm run dev`: everything needed to serve the API locally, offline, in one command.
//   1. .dev.vars gets a random ADMIN_TOKEN (the operator secret) unless it has one;
//   2. the D1 migrations are applied to the local database;
//   3. the demo user, organization and API token are seeded (see seed.mjs) and printed;
//   4. `wrangler dev` serves the Worker on http://127.0.0.1:8787 until stopped;
//   5. once it answers, the demo docs sites are published through the API (demo-site.mjs) and their URLs
//      printed: the public demo site's HTML (`/s/<siteId>/`), and the share-link site's with its key.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { ensureDemoSite } from './demo-site.mjs';
import { ROOT, applyMigrations, assertToolchain, describeSeed, seed } from './seed.mjs';

const DEV_VARS = join(ROOT, '.dev.vars');
const ADMIN_TOKEN_LINE = /^[ \t]*ADMIN_TOKEN[ \t]*=[ \t]*(\S.*)?$/m;

/** Keeps an existing non-empty ADMIN_TOKEN; otherwise adds (or fills in) a random one. */
function ensureDevVars() {
  const current = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, 'utf8') : '';
  const match = ADMIN_TOKEN_LINE.exec(current);
  if (match?.[1]?.trim()) return 'kept';
  const line = `ADMIN_TOKEN=${randomBytes(32).toString('base64url')}`;
  let next;
  if (match) next = current.replace(ADMIN_TOKEN_LINE, line);
  else if (current === '') next = `# Local secrets for wrangler dev (git-ignored). ADMIN_TOKEN is the operator token.\n${line}\n`;
  else next = `${current}${current.endsWith('\n') ? '' : '\n'}${line}\n`;
  writeFileSync(DEV_VARS, next, { mode: 0o600 });
  return 'created';
}

function startWrangler() {
  const args = ['dev', '--ip', '127.0.0.1', '--port', '8787'];
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js'), ...args], {
    cwd: ROOT,
    stdio: 'inherit',
  });
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
}

async function main() {
  assertToolchain();
  const vars = ensureDevVars();
  console.log(vars === 'created' ? 'dev: wrote a random ADMIN_TOKEN to .dev.vars' : 'dev: using the ADMIN_TOKEN in .dev.vars');

  console.log('dev: applying D1 migrations to the local database');
  await applyMigrations({ stdout: 'inherit' });

  console.log('dev: seeding the local database');
  const seeded = await seed();
  console.log(`\n${describeSeed(seeded)}`);
  console.log('\nOperator token (creates users and their tokens): ADMIN_TOKEN in .dev.vars');
  console.log('API reference: http://127.0.0.1:8787/docs (OpenAPI: /openapi.json)\n');

  console.log('dev: starting wrangler dev on http://127.0.0.1:8787 (Ctrl+C to stop)\n');
  startWrangler();
  await ensureDemoSite(seeded);
}

main().catch((error) => {
  console.error(`dev: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
