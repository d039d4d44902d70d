#!/usr/bin/env node
// `npm start`: the Worker on http://127.0.0.1:8787 with the local database ready, and nothing else (no demo data:
// `npm run dev` seeds a demo user, token and sites besides). On a fresh clone:
//   1. .dev.vars gets a random value for each of the secrets it lacks, as `npm run dev` writes them;
//   2. the D1 migrations the local database lacks are applied (local-d1.mjs: one workerd, in this process), before
//      the server starts, so its first request finds the tables;
//   3. `wrangler dev` serves the Worker, offline and at log level `warn` (its `[build]` command, in wrangler.toml,
//      fills the static assets directory first), until stopped.
import { DEV_SECRETS } from './dev-vars.mjs';
import { applyLocalMigrations, withLocalD1 } from './local-d1.mjs';
import { DEV_URL, ROOT, assertToolchain } from './seed.mjs';
import { ensureDevVars, startWranglerDev } from './wrangler-dev.mjs';

async function main() {
  assertToolchain();
  const created = ensureDevVars(ROOT);
  if (created.length > 0) console.log(`start: wrote a random ${created.join(', ')} to .dev.vars`);
  else console.log(`start: using the ${DEV_SECRETS.join(', ')} in .dev.vars`);
  const applied = await withLocalD1(ROOT, (db, migrations) => applyLocalMigrations(db, migrations));
  console.log(applied.length > 0 ? `start: applied ${applied.length} D1 migrations to the local database` : 'start: the local database is up to date');
  console.log(`start: serving ${DEV_URL} (Ctrl+C to stop); ${DEV_URL}/ says where to go, ${DEV_URL}/docs is the API reference`);
  console.log('start: `npm run dev` also seeds a demo user, API token and docs sites; `npm run seed` seeds them without a server');
  startWranglerDev(ROOT);
}

main().catch((error) => {
  console.error(`start: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
