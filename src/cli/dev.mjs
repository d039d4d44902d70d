#!/usr/bin/env node
// `npm run dev`: everything needed to serve the API locally, offline, in one command.
//   1. .dev.vars gets a random ADMIN_TOKEN (the operator secret), FILES_SIGNING_KEY (download URLs) and
//      INTEGRATIONS_KEY (integration secrets at rest), each unless it has one: none stands in for another;
//   2. `wrangler dev` starts serving the Worker on http://127.0.0.1:8787 (until stopped) while, in this
//      process, the D1 migrations are applied to the local database and the demo user, organization and
//      API token are seeded (seed.mjs, local-d1.mjs): they share `.wrangler/state` as two wrangler commands do;
//   3. once the Worker answers, the token, ids and curl lines are printed;
//   4. the demo docs sites are published through the API (demo-site.mjs) and their URLs printed: the public
//      demo site's HTML (`/s/<siteId>/`), and the share-link site's with its key; the demo site gets a week of
//      insights events (demo-insights.mjs);
//   5. src/templates/handbook is watched: a saved guide is published to the Handbook site again, and the log says so.
// The log is kept to what a newcomer needs: wrangler runs at log level `warn` (its warnings, errors and the
// Worker's own console output still show; the runtime's reports of expected outbound failures are one dim line,
// wrangler-dev.mjs); `WRANGLER_LOG=info npm run dev` shows each request as well.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seedDemoInsights } from './demo-insights.mjs';
import { client, ensureDemoSite, serverUp, watchHandbook } from './demo-site.mjs';
import { DEV_ENV_FILE, writeDevEnv } from './dev-env.mjs';
import { DEV_SECRETS, devSecretValue } from './dev-vars.mjs';
import { prepareDocsAssets } from './docs-assets.mjs';
import { DEV_URL, ROOT, assertToolchain, describeSeed, migrateAndSeed } from './seed.mjs';
import { ensureDevVars, startWranglerDev, unwatchedSources } from './wrangler-dev.mjs';

const DEV_VARS = join(ROOT, '.dev.vars');

async function main() {
  const started = Date.now();
  assertToolchain();
  const created = ensureDevVars(ROOT);
  const kept = DEV_SECRETS.filter((name) => !created.includes(name));
  if (created.length > 0) console.log(`dev: wrote a random ${created.join(', ')} to .dev.vars`);
  if (kept.length > 0) console.log(`dev: using the ${kept.join(', ')} in .dev.vars`);

  const unwatched = unwatchedSources(ROOT);
  if (unwatched.length > 0) console.log(`dev: wrangler.toml's [build] watch_dir misses ${unwatched.join(', ')}: the Worker will not reload when they change (add them there)`);
  // The API reference's script, a static asset of the Worker (wrangler dev refuses a missing assets directory).
  prepareDocsAssets();
  console.log(`dev: starting wrangler dev on ${DEV_URL} and preparing the local database (Ctrl+C to stop)`);
  startWranglerDev(ROOT);
  const seeded = await migrateAndSeed();
  if (seeded.migrationsApplied.length > 0) console.log(`dev: applied ${seeded.migrationsApplied.length} D1 migrations to the local database`);
  if (!(await serverUp())) throw new Error(`wrangler dev did not answer on ${DEV_URL}`);

  console.log(`\ndev: ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n\n${describeSeed(seeded)}`);
  console.log('\nOperator token (creates users and their tokens): ADMIN_TOKEN in .dev.vars');
  console.log(`API reference: ${DEV_URL}/docs (OpenAPI: /openapi.json)`);
  console.log('\ndev: publishing the demo sites');
  const published = await ensureDemoSite(seeded);
  if (!published) return;
  await seedDemoInsights(client(DEV_URL, seeded.token), published, seeded.token);
  watchHandbook(seeded);
  console.log('dev: watching src/templates/handbook: a saved guide is published to the Handbook again (reload its page)');
  try {
    const vars = await writeDevEnv({ baseUrl: DEV_URL, adminToken: devVar('ADMIN_TOKEN'), seeded, published });
    console.log(`Shell variables of the examples of the README and the guides (${Object.keys(vars).join(', ')}, and \`json\`):`);
    console.log(`  source ${DEV_ENV_FILE.slice(ROOT.length + 1)}\n`);
  } catch (error) {
    console.error(`dev: could not write ${DEV_ENV_FILE}: ${error instanceof Error ? error.message : error}`);
  }
}

/** A value of .dev.vars (its secrets are written there first: ensureDevVars). */
function devVar(name) {
  const value = devSecretValue(readFileSync(DEV_VARS, 'utf8'), name);
  if (!value) throw new Error(`${name} is missing from .dev.vars`);
  return value;
}

main().catch((error) => {
  console.error(`dev: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
