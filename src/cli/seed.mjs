#!/usr/bin/env node
// Seeds the LOCAL D1 database (the one `wrangler dev` serves) with a demo admin user, an
// organization they administer and an API token, idempotently.
//
//   npm run seed            human-readable token, ids and a curl line
//   npm run seed -- --json  {"token","userId","organizationId"} on the last line of stdout
//
// All SQL goes through `wrangler d1 execute DB --local`, so it hits exactly the database
// `wrangler dev` uses. Only the token's SHA-256 is stored, so the plaintext is kept in the
// git-ignored `.wrangler/dev-token.json` and reused on later runs while its hash is in the DB.
import { spawn } from 'node:child_process';
import { createHash, getRandomValues } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TOKEN_FILE = join(ROOT, '.wrangler', 'dev-token.json');
export const DEV_URL = 'http://127.0.0.1:8787';

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
const sqlString = (value) => `'${String(value).replaceAll("'", "''")}'`;

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

/** `wrangler d1 migrations apply DB --local`, non-interactive. `stdout` as in runWrangler. */
export async function applyMigrations({ stdout = 'inherit' } = {}) {
  const result = await runWrangler(['d1', 'migrations', 'apply', 'DB', '--local'], { stdout, stderr: 'inherit' });
  if (result.code !== 0) throw new Error(`wrangler d1 migrations apply DB --local failed (exit ${result.code})`);
}

/** `--persist-to <dir>` when a directory other than wrangler's default (`.wrangler/state`) holds the local state. */
const persistArgs = (persistTo) => (persistTo ? ['--persist-to', persistTo] : []);

/** Runs SQL on the local D1 (in `persistTo`, else `.wrangler/state`) through wrangler and returns the result sets, one per statement. */
async function d1(sql, { file = false, persistTo } = {}) {
  let dir;
  let args;
  if (file) {
    dir = mkdtempSync(join(tmpdir(), 'dpa-seed-'));
    const path = join(dir, 'seed.sql');
    writeFileSync(path, sql);
    args = ['--file', path];
  } else {
    args = ['--command', sql];
  }
  try {
    const result = await runWrangler(['d1', 'execute', 'DB', '--local', '--json', ...persistArgs(persistTo), ...args]);
    let parsed;
    try {
      parsed = JSON.parse(result.stdout);
    } catch {
      parsed = undefined;
    }
    if (result.code !== 0 || !Array.isArray(parsed)) {
      const reason = parsed?.error?.text ?? (result.stderr.trim() || result.stdout.trim() || `exit ${result.code}`);
      const hint = /no such table/i.test(reason) ? '\n(the local database has no tables: run `npx wrangler d1 migrations apply DB --local`)' : '';
      throw new Error(`wrangler d1 execute DB --local failed: ${reason}${hint}`);
    }
    return parsed.map((set) => set.results ?? []);
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
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
 * Makes sure the demo user, their organization and a usable API token exist in the local D1,
 * creating only what is missing (one read, at most one transactional write).
 * Returns { token, userId, organizationId, created: { user, organization, token } }.
 * `persistTo`: the local state directory (default `.wrangler/state`); `tokenFile`: where the token's
 * plaintext is kept for later runs (default `.wrangler/dev-token.json`; null: neither read nor written).
 */
export async function seed({ persistTo, tokenFile = TOKEN_FILE } = {}) {
  const saved = readSavedToken(tokenFile);
  const savedHash = saved ? sha256Hex(saved.token) : null;
  const email = sqlString(DEMO.email);

  const reads = [
    `select id from users where email = ${email}`,
    `select o.id as id from organizations o
       join org_members m on m.org_id = o.id
       join users u on u.id = m.user_id
      where u.email = ${email} and m.role = ${ADMIN_ROLE} and m.disabled = 0 and o.title = ${sqlString(DEMO.orgTitle)}
      order by o.created_at, o.id limit 1`,
    `select user_id from api_tokens where hash = ${sqlString(savedHash ?? '')}`,
  ];
  const [userRows, orgRows, tokenRows] = await d1(reads.join(';\n'), { persistTo });

  const now = new Date().toISOString();
  const writes = [];
  const created = { user: false, organization: false, token: false };

  let userId = userRows[0]?.id;
  if (!userId) {
    userId = newId();
    created.user = true;
    writes.push(
      `insert into users (id, display_name, email, email_verified, photo_url, created_at)
       values (${sqlString(userId)}, ${sqlString(DEMO.displayName)}, ${email}, 1, null, ${sqlString(now)});`,
    );
  }

  let organizationId = orgRows[0]?.id;
  if (!organizationId) {
    organizationId = newId();
    created.organization = true;
    writes.push(
      `insert into organizations (id, title, created_at, email_domains, type, default_role, sso, ai, invite_links, merge_rules)
       values (${sqlString(organizationId)}, ${sqlString(DEMO.orgTitle)}, ${sqlString(now)}, '[]', 'business', 1, 0, 0, 1, '{"type":"none"}');`,
      `insert into org_members (org_id, user_id, role, joined_at, disabled, sso)
       values (${sqlString(organizationId)}, ${sqlString(userId)}, ${ADMIN_ROLE}, ${sqlString(now)}, 0, 0);`,
    );
  }

  let token = saved?.token;
  if (!token || created.user || tokenRows[0]?.user_id !== userId) {
    token = `dpa_${randomBase62(40)}`;
    created.token = true;
    writes.push(
      `insert into api_tokens (id, user_id, label, hash, prefix, created_at, last_used_at)
       values (${sqlString(newId())}, ${sqlString(userId)}, ${sqlString(DEMO.tokenLabel)}, ${sqlString(sha256Hex(token))}, ${sqlString(token.slice(0, 10))}, ${sqlString(now)}, null);`,
    );
  }

  // A --file runs as one transaction on the local D1: all of it lands or none of it.
  if (writes.length > 0) await d1(writes.join('\n'), { file: true, persistTo });

  const result = { token, userId, organizationId };
  if (tokenFile) {
    mkdirSync(dirname(tokenFile), { recursive: true });
    writeFileSync(tokenFile, `${JSON.stringify(result, null, 2)}\n`, { mode: 0o600 });
  }
  return { ...result, created };
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
  // Tables must exist before seeding; already-applied migrations are skipped. Wrangler's
  // output goes to stderr so that stdout stays machine-readable with --json.
  await applyMigrations({ stdout: 2 });
  const result = await seed();
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
