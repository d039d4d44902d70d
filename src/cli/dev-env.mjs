// The shell variables of the examples of the README and the guides (src/templates/handbook): `npm run dev` writes them to `.wrangler/dev.env` (git-ignored) once
// the demo sites are published, so that `source .wrangler/dev.env` makes every example runnable as written.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { client } from './demo-site.mjs';
import { ROOT } from './seed.mjs';

export const DEV_ENV_FILE = join(ROOT, '.wrangler', 'dev.env');
const REVIEWER_FILE = join(ROOT, '.wrangler', 'dev-reviewer.json');
export const REVIEWER = { displayName: 'Demo Reviewer', email: 'reviewer@demo.local', role: 'review' };
export const TEAM_TITLE = 'Docs team';

/** `value` quoted for a POSIX shell. */
export const shellQuote = (value) => `'${String(value).replace(/'/g, `'\\''`)}'`;

/**
 * A second member of the demo organization, with the `review` role and a token of their own (kept in the
 * git-ignored `.wrangler/dev-reviewer.json`): made once through the operator API and an email invitation,
 * reused on later runs while their token still answers.
 */
async function ensureReviewer(baseUrl, adminToken, admin, organizationId, reviewerFile) {
  const saved = readSaved(reviewerFile);
  if (saved && (await fetch(`${baseUrl}/v1/user`, { headers: { Authorization: `Bearer ${saved.token}` } })).ok) return saved;
  const operator = client(baseUrl, adminToken);
  let id;
  try {
    id = (await operator.post('/v1/users', { displayName: REVIEWER.displayName, email: REVIEWER.email })).id;
  } catch (error) {
    if (!/answered 409/.test(String(error))) throw error;
    // The account exists but its token file was lost: find the account among the organization's members.
    const members = await admin.get(`/v1/orgs/${organizationId}/members?limit=1000`);
    id = members.items.find((m) => m.user.email === REVIEWER.email)?.user.id;
    if (!id) throw new Error(`${REVIEWER.email} exists but is not a member of the demo organization`);
  }
  const { token } = await operator.post(`/v1/users/${id}/tokens`, { label: 'npm run dev' });
  await admin.post(`/v1/orgs/${organizationId}/invites`, { emails: [REVIEWER.email], role: REVIEWER.role });
  const reviewer = { id, token };
  mkdirSync(dirname(reviewerFile), { recursive: true });
  writeFileSync(reviewerFile, `${JSON.stringify(reviewer, null, 2)}\n`, { mode: 0o600 });
  return reviewer;
}

/** The demo team (the reviewer in it), made once. */
async function ensureTeam(admin, organizationId, reviewerId) {
  const teams = await admin.get(`/v1/orgs/${organizationId}/teams?title=${encodeURIComponent(TEAM_TITLE)}`);
  const existing = teams.items.find((team) => team.title === TEAM_TITLE);
  if (existing) return existing.id;
  return (await admin.put(`/v1/orgs/${organizationId}/teams`, { title: TEAM_TITLE, members: [reviewerId] })).id;
}

function readSaved(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** The file's text: each variable exported, and `json`, which prints a field of the JSON on its input. */
export function devEnvText(vars) {
  const lines = Object.entries(vars).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  return [
    '# Written by `npm run dev` (src/cli/dev-env.mjs). `source .wrangler/dev.env`, then run the examples of the README',
    '# and the handbook as they are written.',
    ...lines,
    '# `json <field>` prints a field of the JSON read on its input (`a.b.0` for nested ones): CR=$(curl ... | json number)',
    `json() { node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{let v=JSON.parse(s);for(const k of process.argv[1].split("."))v=v==null?v:v[k];console.log(typeof v==="object"&&v!==null?JSON.stringify(v):v)})' "$1"; }`,
    '',
  ].join('\n');
}

/**
 * Makes the reviewer and the team if needed and writes `.wrangler/dev.env` (or `file`). `published` is what
 * publishDemoSites answered; `reviewerFile` keeps the reviewer's token between runs. Answers the variables.
 */
export async function writeDevEnv({ baseUrl, adminToken, seeded, published, file = DEV_ENV_FILE, reviewerFile = REVIEWER_FILE }) {
  const admin = client(baseUrl, seeded.token);
  const reviewer = await ensureReviewer(baseUrl, adminToken, admin, seeded.organizationId, reviewerFile);
  const team = await ensureTeam(admin, seeded.organizationId, reviewer.id);
  const vars = {
    API: baseUrl,
    TOKEN: seeded.token,
    ADMIN_TOKEN: adminToken,
    USER_ID: seeded.userId,
    ORG: seeded.organizationId,
    SPACE: published.site.spaceId,
    SITE: published.site.id,
    SHARE_SITE: published.shareSite.id,
    SHARE_KEY: published.shareSite.key,
    REVIEWER: reviewer.id,
    REVIEWER_TOKEN: reviewer.token,
    TEAM: team,
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, devEnvText(vars), { mode: 0o600 });
  return vars;
}
