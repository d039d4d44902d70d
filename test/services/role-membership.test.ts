/**
 * A rank's grants count only under an active membership (services/access spaceRoleSql, collectionRoleSql: one probe
 * of the membership for all of them): every kind of grant (on the space, through a team on the space, on the
 * collection above it, through a team there, on a site that links the space, through a team on that site) gives its
 * role to an active guest, nothing to the same user once disabled, and again when re-enabled; an admin is an admin
 * whatever they are granted; an outsider holding grants has nothing. role-resolution.test.ts covers the order of the
 * roles and grants themselves.
 */
import { env } from 'cloudflare:workers';
import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { collections, spaces, users } from '../../src/db/schema';
import { RANK } from '../../src/lib/roles';
import { collectionRoleSql, spaceRoleSql } from '../../src/services/access/access';
import { addMembers, api, createUsers, expectStatus, seedOrg } from '../helpers/harness';
import { createCollection, createSpace, createTeam } from '../spaces/support';

type Kind = 'space' | 'space-team' | 'collection' | 'collection-team' | 'site' | 'site-team';
const KINDS: Kind[] = ['space', 'space-team', 'collection', 'collection-team', 'site', 'site-team'];

describe('grants count only under an active membership', () => {
  it('gives each kind of grant to an active member, nothing once disabled, again once enabled', async () => {
    const org = await seedOrg();
    const collection = await createCollection(org);
    const [inCollection, alone] = [await createSpace(org, { parent: collection.id }), await createSpace(org)];
    const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: 'Grants', spaces: [inCollection.id, alone.id] } }), 201).body;
    const people = await createUsers(KINDS.length + 2);
    const holders = KINDS.map((kind, i) => ({ kind, id: people[i].id }));
    const [admin, outsider] = [people[KINDS.length].id, people[KINDS.length + 1].id];
    await addMembers(org.id, [...holders.map((h) => [h.id, 'guest'] as [string, 'guest']), [admin, 'admin']]);
    const now = new Date().toISOString();
    const team = async () => (await createTeam(org, [])).id;
    const statements: D1PreparedStatement[] = [];
    const add = (sql: string, ...values: unknown[]) => statements.push(env.DB.prepare(sql).bind(...values));
    const everyone = [...holders.map((h) => h.id), admin, outsider];
    for (const holder of [...holders, ...KINDS.map((kind) => ({ kind, id: admin })), ...KINDS.map((kind) => ({ kind, id: outsider }))]) {
      const teamId = holder.kind.endsWith('-team') ? await team() : undefined;
      if (teamId) add('insert into team_members (team_id, user_id, added_at) values (?, ?, ?)', teamId, holder.id, now);
      for (const spaceId of [inCollection.id, alone.id]) {
        if (holder.kind === 'space') add('insert into space_user_grants (space_id, user_id, role, created_at) values (?, ?, ?, ?)', spaceId, holder.id, RANK.edit, now);
        if (holder.kind === 'space-team') add('insert into space_team_grants (space_id, team_id, role, created_at) values (?, ?, ?, ?)', spaceId, teamId, RANK.edit, now);
      }
      if (holder.kind === 'collection') add('insert into collection_user_grants (collection_id, user_id, role, created_at) values (?, ?, ?, ?)', collection.id, holder.id, RANK.edit, now);
      if (holder.kind === 'collection-team') add('insert into collection_team_grants (collection_id, team_id, role, created_at) values (?, ?, ?, ?)', collection.id, teamId, RANK.edit, now);
      if (holder.kind === 'site') add('insert into site_user_grants (site_id, user_id, role, created_at) values (?, ?, ?, ?)', site.id, holder.id, RANK.edit, now);
      if (holder.kind === 'site-team') add('insert into site_team_grants (site_id, team_id, role, created_at) values (?, ?, ?, ?)', site.id, teamId, RANK.edit, now);
    }
    await env.DB.batch(statements);

    const db = createDb(env.DB);
    const ranks = async () => {
      const out = new Map<string, number[]>();
      for (const spaceId of [inCollection.id, alone.id]) {
        for (const r of await db.select({ id: users.id, rank: spaceRoleSql(users.id) }).from(users).innerJoin(spaces, eq(spaces.id, spaceId)).where(inArray(users.id, everyone))) {
          out.set(r.id, [...(out.get(r.id) ?? []), r.rank]);
        }
      }
      for (const r of await db.select({ id: users.id, rank: collectionRoleSql(users.id) }).from(users).innerJoin(collections, eq(collections.id, collection.id)).where(inArray(users.id, everyone))) {
        out.set(r.id, [...(out.get(r.id) ?? []), r.rank]);
      }
      return out;
    };
    // On the space in the collection, on the space alone, on the collection.
    const active: Record<Kind, number[]> = {
      space: [RANK.edit, RANK.edit, 0],
      'space-team': [RANK.edit, RANK.edit, 0],
      collection: [RANK.edit, 0, RANK.edit],
      'collection-team': [RANK.edit, 0, RANK.edit],
      site: [RANK.edit, RANK.edit, 0],
      'site-team': [RANK.edit, RANK.edit, 0],
    };
    const check = async (disabled: boolean) => {
      const got = await ranks();
      for (const h of holders) expect([h.kind, got.get(h.id)]).toEqual([h.kind, disabled ? [0, 0, 0] : active[h.kind]]);
      expect(got.get(admin)).toEqual([RANK.admin, RANK.admin, RANK.admin]);
      expect(got.get(outsider)).toEqual([0, 0, 0]);
    };
    await check(false);
    const setDisabled = (value: number) => env.DB.prepare(`update org_members set disabled = ? where org_id = ? and user_id in (${holders.map(() => '?').join(', ')})`).bind(value, org.id, ...holders.map((h) => h.id)).run();
    await setDisabled(1);
    await check(true);
    await setDisabled(0);
    await check(false);
  });

  it("writes the sites' grants once in a space's rank, beside the collections' (each written subquery is compiled on every read)", () => {
    const text = createDb(env.DB).select({ rank: spaceRoleSql('user-1') }).from(spaces).toSQL().sql;
    // One join to site_spaces for the user's own site grants, one for their teams': not again inside the collections' union.
    expect(text.match(/join site_spaces/g)).toHaveLength(2);
  });
});
