/**
 * Organization-wide lists against the organization's size (`npm run bench -- lists`, or
 * `node --import tsx test/bench/lists.ts [--sizes=150,5000]`): the first page (100) of an organization's spaces
 * and of its change requests, read by its admin and by a reader, in organizations of 150 and 5,000 spaces, as
 * requests/s ratios to the reference Worker in the same run, and the cost at the large size as a multiple of the
 * cost at the small one (1.0: independent of the organization's size). The spaces past the first few are rows
 * copied in SQL from one made through the API (the list reads rows; how they were made does not matter to it).
 */
import process from 'node:process';
import { client, seedUser, start, type Call } from './routes';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const SIZES = (args.get('sizes') ?? '150,5000').split(',').map(Number);
const SECONDS = Number(args.get('seconds') ?? 2);
const ROUNDS = 3;
const ADMIN = 'bench-admin-token';

async function load(url: string, token: string): Promise<number> {
  const end = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (performance.now() < end) {
        const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
        done++;
      }
    }),
  );
  return done / SECONDS;
}

/** An organization of `size` spaces with a change request in each, and a reader member. */
async function seedOrganization(call: Call, db: D1Database, token: string, readerId: string, size: number) {
  const org = (await call('POST', '/v1/orgs', token, { title: `${size} spaces` })).body as { id: string };
  const template = (await call('POST', `/v1/orgs/${org.id}/spaces`, token, { title: 'Template' })).body as { id: string };
  await call('POST', `/v1/spaces/${template.id}/change-requests`, token, { subject: 'Template' });
  const columns = (await db.prepare(`select name from pragma_table_info('spaces')`).all<{ name: string }>()).results.map((c) => c.name);
  const crColumns = (await db.prepare(`select name from pragma_table_info('change_requests')`).all<{ name: string }>()).results.map((c) => c.name);
  const copy = (cols: string[], replace: Record<string, string>) => cols.map((c) => replace[c] ?? `t."${c}"`).join(', ');
  // Ids and creation times distinct and ordered, as rows made one by one would be.
  await db
    .prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
       insert into spaces (${columns.map((c) => `"${c}"`).join(', ')})
       select ${copy(columns, { id: `'${org.id.slice(0, 8)}s' || printf('%011d', i)`, created_at: `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || i || ' seconds')` })}
       from n, spaces t where t.id = ?`,
    )
    .bind(size - 1, template.id)
    .run();
  await db
    .prepare(
      `insert into change_requests (${crColumns.map((c) => `"${c}"`).join(', ')})
       select ${copy(crColumns, { id: `s.id || 'cr'`, space_id: 's.id' })}
       from spaces s, change_requests t where s.org_id = ? and s.id <> t.space_id and t.space_id = ?`,
    )
    .bind(org.id, template.id)
    .run();
  await db.prepare(`insert into org_members (org_id, user_id, role, joined_at) values (?, ?, 1, ?)`).bind(org.id, readerId, new Date().toISOString()).run();
  const spaces = (await db.prepare('select count(*) as n from spaces where org_id = ?').bind(org.id).first<number>('n'))!;
  return { id: org.id, spaces };
}

const { mf, db, apiUrl, refUrl } = await start();
try {
  const call = client(apiUrl);
  const { user, token } = await seedUser(call);
  const reader = (await call('POST', '/v1/users', ADMIN, { displayName: 'Reader', email: 'reader@example.test' })).body as { id: string };
  const readerToken = (await call('POST', `/v1/users/${reader.id}/tokens`, ADMIN, {})).body.token as string;
  const orgs = new Map<number, string>();
  for (const size of SIZES) {
    const org = await seedOrganization(call, db, token, reader.id, size);
    console.log(`  organization of ${org.spaces} spaces seeded`);
    orgs.set(size, org.id);
  }
  const targets = [{ label: 'ref d', url: `${refUrl}/ref/${user.id}`, token }];
  for (const [size, orgId] of orgs) {
    targets.push({ label: `spaces, admin|${size}`, url: `${apiUrl}/v1/orgs/${orgId}/spaces`, token });
    targets.push({ label: `spaces, reader|${size}`, url: `${apiUrl}/v1/orgs/${orgId}/spaces`, token: readerToken });
    targets.push({ label: `change requests, admin|${size}`, url: `${apiUrl}/v1/orgs/${orgId}/change-requests`, token });
    targets.push({ label: `members, admin|${size}`, url: `${apiUrl}/v1/orgs/${orgId}/members`, token });
  }
  const samples = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of targets) samples.set(target.label, [...(samples.get(target.label) ?? []), await load(target.url, target.token)]);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ref = median(samples.get('ref d')!);
  console.log(`\nOrganization-wide lists, first page (100), ${ROUNDS} rounds of ${SECONDS} s, medians; ref d = ${ref.toFixed(0)} req/s`);
  const [small, large] = [SIZES[0], SIZES[SIZES.length - 1]];
  console.log(`${'list'.padEnd(26)} ${SIZES.map((s) => `× ref @${s}`.padStart(12)).join(' ')} ${`cost @${large} / @${small}`.padStart(20)}`);
  for (const label of ['spaces, admin', 'spaces, reader', 'change requests, admin', 'members, admin']) {
    const rates = SIZES.map((s) => median(samples.get(`${label}|${s}`)!));
    const costRatio = median(samples.get(`${label}|${small}`)!) / median(samples.get(`${label}|${large}`)!);
    console.log(`${label.padEnd(26)} ${rates.map((r) => (r / ref).toFixed(2).padStart(12)).join(' ')} ${costRatio.toFixed(2).padStart(20)}`);
  }
} finally {
  await mf.dispose();
}
