#!/usr/bin/env node
// `npm run dev`: everything needed to serve the API locally, offline, in one command.
//   1. .dev.vars gets a random ADMIN_TOKEN (the operator secret), FILES_SIGNING_KEY (download URLs) and
//      INTEGRATIONS_KEY (integration secrets at rest), each unless it has one: none stands in for another;
//   2. the D1 migrations are applied to the local database;
//   3. the demo user, organization and API token are seeded (see seed.mjs) and printed;
//   4. `wrangler dev` serves the Worker on http://127.0.0.1:8787 until stopped;
//   5. once it answers, the demo docs sites are published through the API (demo-site.mjs) and their URLs
//      printed: the public demo site's HTML (`/s/<siteId>/`), and the share-link site's with its key.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { ensureDemoSite } from './demo-site.mjs';
import { DEV_SECRETS, withDevSecrets } from './dev-vars.mjs';
import { ROOT, applyMigrations, assertToolchain, describeSeed, seed } from './seed.mjs';

const DEV_VARS = join(ROOT, '.dev.vars');

/** Keeps the secrets .dev.vars has; writes a random value for each one it lacks. Answers the names written. */
function ensureDevVars() {
  const current = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, 'utf8') : '';
  const { text, created } = withDevSecrets(current);
  if (created.length > 0) writeFileSync(DEV_VARS, text, { mode: 0o600 });
  return created;
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
  const created = ensureDevVars();
  const kept = DEV_SECRETS.filter((name) => !created.includes(name));
  if (created.length > 0) console.log(`dev: wrote a random ${created.join(', ')} to .dev.vars`);
  if (kept.length > 0) console.log(`dev: using the ${kept.join(', ')} in .dev.vars`);

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
