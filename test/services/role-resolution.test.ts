/**
 * The role resolution order (Handbook, Access model) as a table: every organization role × grant on the
 * collection above the space × grant on the space × membership of a team granted on the collection, and the
 * effective role on the space and on the collection that each combination gives, through the same SQL every
 * route authorizes with (services/access/access.ts spaceRoleSql and collectionRoleSql).
 *
 * The tree: outer collection (defaultLevel `comment`) > inner collection (inherit) > space (inherit); the
 * collection grant is on the OUTER collection, so each row also checks that a grant reaches down the chain.
 * The team is granted `review` on the outer collection.
 */
import { env } from 'cloudflare:workers';
import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { collections, spaces, users } from '../../src/db/schema';
import { RANK, rankToRole } from '../../src/lib/roles';
import { collectionRoleSql, spaceRoleSql } from '../../src/services/access/access';
import { addMembers, createUsers, seedOrg, type RoleName } from '../helpers/harness';
import { createCollection, createSpace, createTeam } from '../spaces/support';

type Org = RoleName | 'none';
type Grant = 'none' | 'read' | 'edit' | 'admin';
const ORG_ROLES: Org[] = ['admin', 'create', 'review', 'edit', 'comment', 'read', 'guest', 'none'];
const COLLECTION_GRANTS: Grant[] = ['none', 'read', 'edit', 'admin'];
const SPACE_GRANTS: Grant[] = ['none', 'read', 'edit', 'admin'];
const IN_TEAM = [false, true];

/**
 * The rule, written out independently of the SQL: nothing without an active membership; otherwise the highest
 * of the organization role capped at `comment` (admins uncapped), the collection grant, the space grant, and
 * `review` for the team's members.
 */
function expected(org: Org, collection: Grant, space: Grant | 'none', team: boolean): string | null {
  if (org === 'none') return null;
  const ranks = [org === 'admin' ? RANK.admin : Math.min(RANK[org], RANK.comment)];
  if (collection !== 'none') ranks.push(RANK[collection]);
  if (space !== 'none') ranks.push(RANK[space]);
  if (team) ranks.push(RANK.review);
  return rankToRole(Math.max(...ranks));
}

/** A few rows spelled out, so the table does not rest on `expected` alone. */
const SPELLED_OUT: [Org, Grant, Grant, boolean, string | null, string | null][] = [
  // org role, collection grant, space grant, in team -> on the space, on the collection
  ['read', 'none', 'none', false, 'read', 'read'],
  ['create', 'none', 'none', false, 'comment', 'comment'],
  ['create', 'edit', 'none', false, 'edit', 'edit'],
  ['guest', 'none', 'none', false, null, null],
  ['guest', 'read', 'none', false, 'read', 'read'],
  ['guest', 'none', 'edit', false, 'edit', null],
  ['guest', 'none', 'none', true, 'review', 'review'],
  ['edit', 'admin', 'read', true, 'admin', 'admin'],
  ['admin', 'read', 'read', false, 'admin', 'admin'],
  ['none', 'admin', 'admin', true, null, null],
];

describe('role resolution (org role × collection grant × space grant × team)', () => {
  it('gives every combination the effective role of the table', async () => {
    const org = await seedOrg();
    const outer = await createCollection(org, { defaultLevel: 'comment' });
    const inner = await createCollection(org, { parent: outer.id });
    const space = await createSpace(org, { parent: inner.id });
    const combos = ORG_ROLES.flatMap((o) => COLLECTION_GRANTS.flatMap((c) => SPACE_GRANTS.flatMap((s) => IN_TEAM.map((t) => ({ o, c, s, t })))));
    const people = await createUsers(combos.length);
    const rows = combos.map((combo, i) => ({ ...combo, user: people[i].id }));
    await addMembers(org.id, rows.filter((r) => r.o !== 'none').map((r) => [r.user, r.o as RoleName]));
    // Through SQL: the API adds only members to a team, and a team member who left the organization is a case too.
    const team = await createTeam(org, []);
    const now = new Date().toISOString();
    const statements = [
      ...rows.filter((r) => r.t).map((r) => env.DB.prepare('insert into team_members (team_id, user_id, added_at) values (?, ?, ?)').bind(team.id, r.user, now)),
      env.DB.prepare('insert into collection_team_grants (collection_id, team_id, role, created_at) values (?, ?, ?, ?)').bind(outer.id, team.id, RANK.review, now),
      ...rows.filter((r) => r.c !== 'none').map((r) => env.DB.prepare('insert into collection_user_grants (collection_id, user_id, role, created_at) values (?, ?, ?, ?)').bind(outer.id, r.user, RANK[r.c as 'read'], now)),
      ...rows.filter((r) => r.s !== 'none').map((r) => env.DB.prepare('insert into space_user_grants (space_id, user_id, role, created_at) values (?, ?, ?, ?)').bind(space.id, r.user, RANK[r.s as 'read'], now)),
    ];
    await env.DB.batch(statements);

    const db = createDb(env.DB);
    const ids = rows.map((r) => r.user);
    const onSpace = new Map<string, number>();
    const onCollection = new Map<string, number>();
    for (let i = 0; i < ids.length; i += 50) {
      const chunk = ids.slice(i, i + 50);
      for (const r of await db.select({ id: users.id, rank: spaceRoleSql(users.id) }).from(users).innerJoin(spaces, eq(spaces.id, space.id)).where(inArray(users.id, chunk))) onSpace.set(r.id, r.rank);
      for (const r of await db.select({ id: users.id, rank: collectionRoleSql(users.id) }).from(users).innerJoin(collections, eq(collections.id, inner.id)).where(inArray(users.id, chunk))) onCollection.set(r.id, r.rank);
    }
    const table = rows.map((r) => [r.o, r.c, r.s, r.t, rankToRole(onSpace.get(r.user)), rankToRole(onCollection.get(r.user))]);
    expect(table).toEqual(rows.map((r) => [r.o, r.c, r.s, r.t, expected(r.o, r.c, r.s, r.t), expected(r.o, r.c, 'none', r.t)]));
    for (const row of SPELLED_OUT) expect(table).toContainEqual(row);
  });
});
