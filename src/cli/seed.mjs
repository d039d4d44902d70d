#!/usr/bin/env node
// Seeds the LOCAL D1 database (the one `wrangler dev` serves) with a demo admin user, an
// organization they administer and an API token, idempotently.
//
//   npm run seed            human-readable token, ids and a curl line
//   npm run seed -- --json  {"token","userId","organizationId"} on the last line of stdout
//
// The SQL runs on the local D1 opened through wrangler (local-d1.mjs), exactly the database
// `wrangler dev` uses, after the migrations it lacks. Only the token's SHA-256 is stored, so the
// plaintext is kept in the git-ignored `.wrangler/dev-token.json` and reused on later runs while its
// hash is in the DB.
import { spawn } from 'node:child_process';
import { createHash, getRandomValues } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyLocalMigrations, withLocalD1 } from './local-d1.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TOKEN_FILE = join(ROOT, '.wrangler', 'dev-token.json');
/** Where `npm run dev` and `npm start` serve the Worker: 8787, or `DEV_PORT` (several checkouts on one machine). */
export const DEV_PORT = Number(process.env.DEV_PORT || 8787);
export const DEV_URL = `http://127.0.0.1:${DEV_PORT}`;

const WRANGLER_BIN = join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const DEMO = {
  displayName: 'Demo Admin',
  email: 'admin@demo.local',
  orgTitle: 'Demo Organization',
  tokenLabel: 'dev seed',
};
const ADMIN_ROLE = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_PATTERN = /^dpa_[0-9A-Za-z]{40}$/;

/** Same scheme as src/lib/ids.ts: uniform base62 through rejection sampling. */
function randomBase62(length) {
  let out = '';
  while (out.length < length) {
    for (const byte of getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

const newId = () => randomBase62(20);
const sha256Hex = (value) => createHash('sha256').update(value).digest('hex');

/** Checks the Node version and that `npm install` ran; exits with a clear message otherwise. */
export function assertToolchain() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 12)) {
    console.error(`Node ${process.versions.node} is too old: wrangler needs Node 22.12 or newer (see .nvmrc).`);
    process.exit(1);
  }
  if (!existsSync(WRANGLER_BIN)) {
    console.error('wrangler is not installed: run `npm install` first.');
    process.exit(1);
  }
}

/**
 * Runs the project's wrangler (the same one `npx wrangler` would run) with the current Node.
 * `stdout`: 'pipe' to capture, or an fd/'inherit' to pass it through. stdin is never a TTY, and
 * CI=true makes wrangler take the default answer of any confirmation instead of prompting.
 */
export function runWrangler(args, { stdout = 'pipe', stderr = 'pipe', env = {} } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [WRANGLER_BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, CI: 'true', ...env },
      stdio: ['ignore', stdout, stderr],
    });
    let out = '';
    let err = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code: code ?? 1, signal, stdout: out, stderr: err }));
  });
}

function readSavedToken(tokenFile) {
  if (!tokenFile || !existsSync(tokenFile)) return null;
  try {
    const saved = JSON.parse(readFileSync(tokenFile, 'utf8'));
    return typeof saved?.token === 'string' && TOKEN_PATTERN.test(saved.token) ? saved : null;
  } catch {
    return null;
  }
}

/**
 * Makes sure the demo user, their organization and a usable API token exist in the local D1 `db` (a D1
 * binding: see local-d1.mjs), creating only what is missing (one read batch, at most one write batch, which
 * D1 runs as one transaction: all of it lands or none of it).
 * Returns { token, userId, organizationId, created: { user, organization, token } }.
 * `tokenFile`: where the token's plaintext is kept for later runs (default `.wrangler/dev-token.json`; null:
 * neither read nor written).
 */
export async function seed(db, { tokenFile = TOKEN_FILE } = {}) {
  const saved = readSavedToken(tokenFile);
  const savedHash = saved ? sha256Hex(saved.token) : null;

  const [userRows, orgRows, tokenRows] = (
    await db.batch([
      db.prepare('select id from users where email = ?').bind(DEMO.email),
      db
        .prepare(
          `select o.id as id from organizations o
             join org_members m on m.org_id = o.id
             join users u on u.id = m.user_id
            where u.email = ? and m.role = ? and m.disabled = 0 and o.title = ?
            order by o.created_at, o.id limit 1`,
        )
        .bind(DEMO.email, ADMIN_ROLE, DEMO.orgTitle),
      db.prepare('select user_id from api_tokens where hash = ?').bind(savedHash ?? ''),
    ])
  ).map((set) => set.results);

  const now = new Date().toISOString();
  const writes = [];
  const created = { user: false, organization: false, token: false };

  let userId = userRows[0]?.id;
  if (!userId) {
    userId = newId();
    created.user = true;
    writes.push(
      db
        .prepare('insert into users (id, display_name, email, email_verified, photo_url, created_at) values (?, ?, ?, 1, null, ?)')
        .bind(userId, DEMO.displayName, DEMO.email, now),
    );
  }

  let organizationId = orgRows[0]?.id;
  if (!organizationId) {
    organizationId = newId();
    created.organization = true;
    writes.push(
      db
        .prepare(
          `insert into organizations (id, title, created_at, email_domains, type, default_role, sso, ai, invite_links, merge_rules)
           values (?, ?, ?, '[]', 'business', 1, 0, 0, 1, '{"type":"none"}')`,
        )
        .bind(organizationId, DEMO.orgTitle, now),
      db
        .prepare('insert into org_members (org_id, user_id, role, joined_at, disabled, sso) values (?, ?, ?, ?, 0, 0)')
        .bind(organizationId, userId, ADMIN_ROLE, now),
    );
  }

  let token = saved?.token;
  if (!token || created.user || tokenRows[0]?.user_id !== userId) {
    token = `dpa_${randomBase62(40)}`;
    created.token = true;
    writes.push(
      db
        .prepare('insert into api_tokens (id, user_id, label, hash, prefix, created_at, last_used_at) values (?, ?, ?, ?, ?, ?, null)')
        .bind(newId(), userId, DEMO.tokenLabel, sha256Hex(token), token.slice(0, 10), now),
    );
  }
  if (writes.length > 0) await db.batch(writes);

  const result = { token, userId, organizationId };
  if (tokenFile) {
    mkdirSync(dirname(tokenFile), { recursive: true });
    writeFileSync(tokenFile, `${JSON.stringify(result, null, 2)}\n`, { mode: 0o600 });
  }
  return { ...result, created };
}

/** Migrates the local D1 (in `persistTo`, default `.wrangler/state`) and seeds it. Answers seed's result and the migrations applied. */
export async function migrateAndSeed({ persistTo, tokenFile } = {}) {
  return withLocalD1(
    ROOT,
    async (db, migrations) => {
      const applied = await applyLocalMigrations(db, migrations);
      return { ...(await seed(db, { tokenFile })), migrationsApplied: applied };
    },
    { persistTo },
  );
}

export function curlLine(token, path = '/v1/orgs') {
  return `curl -H "Authorization: Bearer ${token}" ${DEV_URL}${path}`;
}

/** The human-readable summary printed by `npm run seed` and `npm run dev`. */
export function describeSeed({ token, userId, organizationId, created }) {
  const state = (isNew) => (isNew ? 'created' : 'reused');
  return [
    `Local demo data (${TOKEN_FILE.slice(ROOT.length + 1)}):`,
    `  user          ${userId}  ${DEMO.displayName} <${DEMO.email}> (${state(created.user)})`,
    `  organization  ${organizationId}  ${DEMO.orgTitle}, user is admin (${state(created.organization)})`,
    `  API token     ${token} (${state(created.token)})`,
    '',
    'Try it:',
    `  ${curlLine(token, '/v1/orgs')}`,
    `  ${curlLine(token, '/v1/user')}`,
  ].join('\n');
}

async function main() {
  const json = process.argv.slice(2).includes('--json');
  assertToolchain();
  // Tables must exist before seeding; already-applied migrations are skipped.
  const result = await migrateAndSeed();
  if (json) {
    process.stdout.write(`${JSON.stringify({ token: result.token, userId: result.userId, organizationId: result.organizationId })}\n`);
  } else {
    console.log(`\n${describeSeed(result)}`);
    console.log('\n(The server must be running for curl to answer: `npm run dev`.)');
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
