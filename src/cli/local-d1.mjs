// The local D1 database that `wrangler dev` serves, opened in this process for the dev tooling
// (migrations and the demo seed): one workerd started through wrangler's getPlatformProxy, where each
// `wrangler d1 migrations apply` / `wrangler d1 execute` call starts a wrangler process and a workerd of
// its own (about 25 s for the migrations of a fresh clone, against 2 s here).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** wrangler's default local state directory (`wrangler dev --persist-to`). */
export const DEFAULT_PERSIST_TO = '.wrangler/state';
/**
 * Local development works offline: wrangler sends no usage metrics, and Miniflare does not fetch
 * `Request.cf` from workers.cloudflare.com (it would warn at every start where there is no network).
 */
export const OFFLINE_ENV = { WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' };

/** The table wrangler records applied migrations in (its default `migrations_table`). */
const MIGRATIONS_TABLE = 'd1_migrations';

/**
 * A wrangler configuration holding only the D1 binding of `wrangler.toml`: the proxy then starts no
 * Durable Object, queue or service of the Worker (whose classes it could not load, and would say so).
 */
function d1OnlyConfig(root) {
  const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
  const block = toml.split('[[d1_databases]]')[1] ?? '';
  const value = (key) => block.match(new RegExp(`^${key}\\s*=\\s*"([^"]*)"`, 'm'))?.[1];
  const database = { binding: value('binding'), database_name: value('database_name'), database_id: value('database_id') };
  if (!database.binding || !database.database_id) throw new Error('wrangler.toml has no [[d1_databases]] binding with a database_id');
  const dir = join(root, '.wrangler', 'tmp');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'local-d1.wrangler.json');
  writeFileSync(path, JSON.stringify({ name: 'local-d1', compatibility_date: '2026-11-01', d1_databases: [database] }));
  return { path, binding: database.binding, migrationsDir: value('migrations_dir') ?? 'migrations' };
}

/**
 * Runs `fn(db)` with the local D1 (in `persistTo`, wrangler's `--persist-to`, default `.wrangler/state`),
 * then shuts the proxy down. wrangler's own logs are limited to errors unless WRANGLER_LOG says otherwise.
 */
export async function withLocalD1(root, fn, { persistTo = DEFAULT_PERSIST_TO } = {}) {
  process.env.WRANGLER_LOG ??= 'error';
  for (const [name, value] of Object.entries(OFFLINE_ENV)) process.env[name] ??= value;
  const { getPlatformProxy, unstable_splitSqlQuery } = await import('wrangler');
  const config = d1OnlyConfig(root);
  const proxy = await getPlatformProxy({ configPath: config.path, persist: { path: resolve(root, persistTo, 'v3') } });
  try {
    const migrations = { dir: join(root, config.migrationsDir), split: unstable_splitSqlQuery };
    return await fn(proxy.env[config.binding], migrations);
  } finally {
    await proxy.dispose();
  }
}

/**
 * Applies the migrations `db` lacks, the way `wrangler d1 migrations apply --local` does: each file in name
 * order, its statements and its row in `d1_migrations` in one batch (one transaction), so wrangler later finds
 * nothing left to apply. Answers the names applied.
 */
export async function applyLocalMigrations(db, { dir, split }) {
  await db
    .prepare(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE}(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
    )
    .run();
  const applied = new Set((await db.prepare(`SELECT name FROM ${MIGRATIONS_TABLE}`).all()).results.map((row) => row.name));
  const pending = readdirSync(dir)
    .filter((name) => name.endsWith('.sql') && !applied.has(name))
    .sort();
  for (const name of pending) {
    const statements = split(readFileSync(join(dir, name), 'utf8')).map((sql) => db.prepare(sql));
    await db.batch([...statements, db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (name) VALUES (?)`).bind(name)]);
  }
  return pending;
}
