/**
 * Organization-wide lists against the organization's size (`npm run bench -- lists`, or
 * `node --import tsx test/bench/lists.ts [--sizes=150,5000]`): the first page (100) of each of an organization's
 * lists (spaces, change requests, members, teams, sites, collections, integrations, installations, invite links),
 * read by its admin and by a member who is not one, in organizations holding 150 and 5,000 of each, as requests/s
 * ratios to the reference Worker in the same run, and the cost at the large size as a multiple of the cost at the
 * small one (1.0: independent of the organization's size; the goal is at most 1.3). The cost is workerd's CPU time
 * per request (the Worker and its local D1 run in it): on a machine shared with other work, rates swing with the
 * load while CPU per request does not.
 *
 * The spaces are read by three callers: the admin (every space), a reader (organization role `read`: every space
 * through the organization's role) and a guest member who sees about 120 spaces, whatever the organization's
 * size, only through grants: a team's grants on spaces, a grant on a collection holding spaces, a grant on a site
 * that publishes spaces, spread over the whole list. The same guest sees about 40 collections nested in the one
 * granted to them; the collections at the root (`nested=false`) are all but those. Lists that only admins may read
 * (installations, invite links) are read by the admin only. `--only=collections,installations` measures the lists
 * whose labels start so.
 *
 * Each list's rows past the first are copied in SQL from one made through the API (one INSERT ... SELECT from a
 * recursive CTE per table: the list reads rows; how they were made does not matter to it).
 */
import process from 'node:process';
import { client, getLoad, seedUser, start, type Call } from './routes';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const SIZES = (args.get('sizes') ?? '150,5000').split(',').map(Number);
const SECONDS = Number(args.get('seconds') ?? 2);
const ROUNDS = 3;
const ADMIN = 'bench-admin-token';
/** About this many spaces are shared with the guest through each of a team, a collection and a site. */
const SHARED_EACH = 40;

interface Sample {
  rps: number;
  /** CPU time of workerd (the Worker and its local D1) per request: steadier than rates on a shared machine. */
  cpuMs: number;
}

const load = (url: string, token: string): Promise<Sample> => getLoad(url, token, SECONDS);

type Json = Record<string, unknown>;

/**
 * Copies the row of `table` where `key` = `templateId` `times` times, in one statement. `replace` gives a column
 * an SQL expression of `n.i` (1..times) and `t.` (the template row): ids and creation times distinct and
 * ordered, as rows made one by one would be.
 */
async function clone(db: D1Database, table: string, key: string, templateId: string, times: number, replace: Record<string, string>) {
  const columns = (await db.prepare(`select name from pragma_table_info(?)`).bind(table).all<{ name: string }>()).results.map((c) => c.name);
  await db
    .prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
       insert into ${table} (${columns.map((c) => `"${c}"`).join(', ')})
       select ${columns.map((c) => replace[c] ?? `t."${c}"`).join(', ')} from n, ${table} t where t."${key}" = ?`,
    )
    .bind(times, templateId)
    .run();
}

/** A 20-character id, distinct per organization, table and row number. */
const idOf = (orgId: string, tag: string) => `'${orgId.slice(0, 8)}${tag}' || printf('%011d', n.i)`;
const later = (column: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', t.${column}, '+' || n.i || ' seconds')`;

/** An organization with `size` of each listed thing, a reader member and a guest member who sees spaces through grants. */
async function seedOrganization(call: Call, db: D1Database, token: string, members: { reader: string; guest: string }, size: number) {
  const org = (await call('POST', '/v1/orgs', token, { title: `${size} of each` })).body as { id: string };
  const o = org.id;
  const post = async (path: string, body: Json, method = 'POST') => (await call(method, path, token, body)).body as { id: string };
  const space = await post(`/v1/orgs/${o}/spaces`, { title: 'Template' });
  await post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Template' });
  const collection = await post(`/v1/orgs/${o}/collections`, { title: 'Template' });
  const team = await post(`/v1/orgs/${o}/teams`, { title: 'Template' }, 'PUT');
  const site = await post(`/v1/orgs/${o}/sites`, { title: 'Template' });
  await post(`/v1/orgs/${o}/link-invites`, { role: 'read' });
  const now = new Date().toISOString();

  const n = size - 1;
  await clone(db, 'spaces', 'id', space.id, n, { id: idOf(o, 's'), created_at: later('created_at') });
  const crColumns = (await db.prepare(`select name from pragma_table_info('change_requests')`).all<{ name: string }>()).results.map((c) => c.name);
  await db
    .prepare(
      `insert into change_requests (${crColumns.map((c) => `"${c}"`).join(', ')})
       select ${crColumns.map((c) => ({ id: `s.id || 'cr'`, space_id: 's.id' })[c] ?? `t."${c}"`).join(', ')}
       from spaces s, change_requests t where s.org_id = ? and s.id <> t.space_id and t.space_id = ?`,
    )
    .bind(o, space.id)
    .run();
  await clone(db, 'collections', 'id', collection.id, n, { id: idOf(o, 'c'), created_at: later('created_at') });
  await clone(db, 'teams', 'id', team.id, n, { id: idOf(o, 't'), created_at: later('created_at') });
  await clone(db, 'sites', 'id', site.id, n, { id: idOf(o, 'w'), basename: `t.basename || '-' || n.i`, created_at: later('created_at') });
  const invite = (await db.prepare('select id from org_link_invites where org_id = ?').bind(o).first<string>('id'))!;
  await clone(db, 'org_link_invites', 'id', invite, n, { id: idOf(o, 'l'), created_at: later('created_at') });

  // Members: users copied from the reader, joined to the organization as readers.
  await clone(db, 'users', 'id', members.reader, n, { id: idOf(o, 'u'), email: `'m' || n.i || '-${o}@example.test'` });
  await db
    .prepare(
      `insert into org_members (org_id, user_id, role, joined_at) select ?, id, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || substr(id, 10) || ' seconds')
       from users where id like ? and length(id) = 20`,
    )
    .bind(o, `${o.slice(0, 8)}u%`)
    .run();

  // Integrations owned by the organization, each installed on it (an installation's bot user is a user of its own).
  await db.batch([
    db.prepare('insert into users (id, display_name, email, email_verified, created_at) values (?, ?, ?, 1, ?)').bind(`${o.slice(0, 8)}b00000000000`, 'Bot', `bot-${o}@integrations.invalid`, now),
    db
      .prepare(
        `insert into integrations (id, name, owner_org_id, bot_user_id, version, runtime, title, description, visibility, target, scopes, categories, blocks,
           content_sources, external_links, configurations, preview_keys, script_key, secrets, created_at, updated_at)
         values (?, ?, ?, ?, 1, 'v1', 'Bench integration', 'A bench integration', 'private', 'all', '["space:content:read"]', '[]', '[]', '[]', '[]', '{}', '[]', null, null, ?, ?)`,
      )
      .bind(`${o.slice(0, 8)}i00000000000`, `bench-${o.toLowerCase()}-0`, o, `${o.slice(0, 8)}b00000000000`, now, now),
  ]);
  await clone(db, 'users', 'id', `${o.slice(0, 8)}b00000000000`, 2 * size, { id: idOf(o, 'b'), email: `'bot' || n.i || '-${o}@integrations.invalid'` });
  await clone(db, 'integrations', 'id', `${o.slice(0, 8)}i00000000000`, size, {
    id: idOf(o, 'i'),
    name: `'bench-${o.toLowerCase()}-' || n.i`,
    bot_user_id: `'${o.slice(0, 8)}b' || printf('%011d', n.i)`,
    created_at: later('created_at'),
  });
  await db.prepare('delete from integrations where id = ?').bind(`${o.slice(0, 8)}i00000000000`).run();
  await db
    .prepare(
      `insert into integration_installations (id, bot_user_id, integration_id, org_id, status, space_selection, site_selection, space_role, approved_scopes,
         configuration, external_ids, signing_secret, created_at, updated_at)
       select '${o.slice(0, 8)}n' || substr(i.id, 10), '${o.slice(0, 8)}b' || printf('%011d', ${size} + cast(substr(i.id, 10) as integer)), i.id, ?, 'active',
         'selected', 'selected', 1, i.scopes, '{}', '[]', 'unused', i.created_at, i.created_at
       from integrations i where i.owner_org_id = ?`,
    )
    .bind(o, o)
    .run();

  // Members who are not admins: a reader, and a guest who sees spaces only through a team, a collection and a site.
  const every = Math.max(4, Math.floor(size / SHARED_EACH));
  const spaceNumber = `cast(substr(id, 10) as integer)`; // the row number of a copied space or collection
  await db.batch([
    db.prepare(`insert into org_members (org_id, user_id, role, joined_at) values (?, ?, 1, ?)`).bind(o, members.reader, now),
    db.prepare(`insert into org_members (org_id, user_id, role, joined_at) values (?, ?, 0, ?)`).bind(o, members.guest, now),
    db.prepare(`insert into team_members (team_id, user_id, is_owner, added_at) values (?, ?, 0, ?)`).bind(team.id, members.guest, now),
    db
      .prepare(`insert into space_team_grants (space_id, team_id, role, created_at) select id, ?, 1, ? from spaces where org_id = ? and id like ? and ${spaceNumber} % ? = 1`)
      .bind(team.id, now, o, `${o.slice(0, 8)}s%`, every),
    db.prepare(`update spaces set parent_id = ? where org_id = ? and id like ? and ${spaceNumber} % ? = 2`).bind(collection.id, o, `${o.slice(0, 8)}s%`, every),
    db.prepare(`insert into collection_user_grants (collection_id, user_id, role, created_at) values (?, ?, 1, ?)`).bind(collection.id, members.guest, now),
    // About as many collections nested in the granted one: the guest reads them through its grant, `nested=false` passes them by.
    db.prepare(`update collections set parent_id = ? where org_id = ? and id like ? and ${spaceNumber} % ? = 2`).bind(collection.id, o, `${o.slice(0, 8)}c%`, every),
    db
      .prepare(`insert into site_spaces (id, site_id, space_id, path, position, created_at) select 'p' || substr(id, 2), ?, id, 'p' || substr(id, 10), ${spaceNumber}, ? from spaces where org_id = ? and id like ? and ${spaceNumber} % ? = 3`)
      .bind(site.id, now, o, `${o.slice(0, 8)}s%`, every),
    db.prepare(`insert into site_user_grants (site_id, user_id, role, created_at) values (?, ?, 1, ?)`).bind(site.id, members.guest, now),
  ]);
  const counts = await db
    .prepare(
      `select (select count(*) from spaces where org_id = ?1) as spaces, (select count(*) from org_members where org_id = ?1) as members,
        (select count(*) from integration_installations where org_id = ?1) as installations`,
    )
    .bind(o)
    .first<Json>();
  return { id: o, counts };
}

const { mf, db, apiUrl, refUrl } = await start();
try {
  const call = client(apiUrl);
  const { user, token } = await seedUser(call);
  const newMember = async (name: string) => {
    const member = (await call('POST', '/v1/users', ADMIN, { displayName: name, email: `${name.toLowerCase()}@example.test` })).body as { id: string };
    return { id: member.id, token: (await call('POST', `/v1/users/${member.id}/tokens`, ADMIN, {})).body.token as string };
  };
  const reader = await newMember('Reader');
  const guest = await newMember('Guest');
  const orgs = new Map<number, string>();
  for (const size of SIZES) {
    const org = await seedOrganization(call, db, token, { reader: reader.id, guest: guest.id }, size);
    console.log(`  organization of ${size} seeded: ${JSON.stringify(org.counts)}`);
    orgs.set(size, org.id);
  }
  const lists: { label: string; path: string; token: string }[] = [
    { label: 'spaces, admin', path: 'spaces', token },
    { label: 'spaces, reader', path: 'spaces', token: reader.token },
    { label: 'spaces, guest via grants', path: 'spaces', token: guest.token },
    { label: 'change requests, admin', path: 'change-requests', token },
    { label: 'change requests, reader', path: 'change-requests', token: reader.token },
    { label: 'members, admin', path: 'members', token },
    { label: 'members, reader', path: 'members', token: reader.token },
    { label: 'teams, admin', path: 'teams', token },
    { label: 'teams, reader', path: 'teams', token: reader.token },
    { label: 'sites, admin', path: 'sites', token },
    { label: 'sites, reader', path: 'sites', token: reader.token },
    { label: 'collections, admin', path: 'collections?nested=true', token },
    { label: 'collections, reader', path: 'collections?nested=true', token: reader.token },
    { label: 'collections, guest via grants', path: 'collections?nested=true', token: guest.token },
    { label: 'collections at root, reader', path: 'collections?nested=false', token: reader.token },
    { label: 'integrations, admin', path: 'integrations', token },
    { label: 'integrations, reader', path: 'integrations', token: reader.token },
    { label: 'installations, admin', path: 'installations', token },
    { label: 'invite links, admin', path: 'link-invites', token },
  ];
  const chosen = args.get('only');
  const measured = chosen ? lists.filter((l) => chosen.split(',').some((prefix) => l.label.startsWith(prefix))) : lists;
  const targets = [{ label: 'ref d', url: `${refUrl}/ref/${user.id}`, token }];
  for (const [size, orgId] of orgs) {
    for (const list of measured) targets.push({ label: `${list.label}|${size}`, url: `${apiUrl}/v1/orgs/${orgId}/${list.path}`, token: list.token });
  }
  // What each caller sees, checked once: a page of 100 with a next page and a count (every list holds more than a page).
  for (const target of targets.slice(1)) {
    const res = await fetch(target.url, { headers: { Authorization: `Bearer ${target.token}` } });
    const body = (await res.json()) as { items?: unknown[]; count?: number; next?: unknown };
    if (res.status !== 200) throw new Error(`${target.label}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    console.log(`  ${target.label.padEnd(34)} items ${String(body.items?.length).padStart(4)}, count ${String(body.count).padStart(5)}, next ${body.next ? 'yes' : 'no'}`);
  }
  const samples = new Map<string, Sample[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of targets) samples.set(target.label, [...(samples.get(target.label) ?? []), await load(target.url, target.token)]);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rps = (label: string) => median(samples.get(label)!.map((s) => s.rps));
  const cpu = (label: string) => median(samples.get(label)!.map((s) => s.cpuMs));
  const ref = rps('ref d');
  console.log(`\nOrganization-wide lists, first page (100), ${ROUNDS} rounds of ${SECONDS} s, medians; ref d = ${ref.toFixed(0)} req/s, ${cpu('ref d').toFixed(2)} ms CPU/request`);
  console.log('cost @large / @small: CPU per request of workerd (Worker and local D1) at the large size over the small one; 1.0 is independent of size');
  const [small, large] = [SIZES[0], SIZES[SIZES.length - 1]];
  console.log(
    `${'list'.padEnd(28)} ${SIZES.map((s) => `× ref @${s}`.padStart(12)).join(' ')} ${SIZES.map((s) => `ms CPU @${s}`.padStart(13)).join(' ')} ${`cost @${large} / @${small}`.padStart(20)}`,
  );
  for (const { label } of measured) {
    const rates = SIZES.map((s) => rps(`${label}|${s}`) / ref);
    const cpus = SIZES.map((s) => cpu(`${label}|${s}`));
    const costRatio = cpu(`${label}|${large}`) / cpu(`${label}|${small}`);
    console.log(
      `${label.padEnd(28)} ${rates.map((r) => r.toFixed(2).padStart(12)).join(' ')} ${cpus.map((c) => c.toFixed(2).padStart(13)).join(' ')} ${costRatio.toFixed(2).padStart(20)}${costRatio > 1.3 ? '  over 1.3' : ''}`,
    );
  }
} finally {
  await mf.dispose();
}
