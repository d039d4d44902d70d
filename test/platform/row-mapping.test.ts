/**
 * Rows of a select of a known shape (db/client `mapRowsOnce`: decoders found once per shape) are the objects drizzle's
 * own mapping makes: JSON columns parsed, boolean columns booleans, nulls null, computed fields in place, alone and
 * in a batch, and a left join's missing side still null (those keep drizzle's mapping).
 */
import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb, runBatch, selectOfBuiltShape, selectOfShape } from '../../src/db/client';
import { spaces, users } from '../../src/db/schema';
import { api, createUsers, expectStatus } from '../helpers/harness';

const db = () => createDb(env.DB);

describe('rows of a select of a known shape', () => {
  it('are what drizzle maps, alone and in a batch', async () => {
    const [owner] = await createUsers(1);
    const org = expectStatus(await api('POST', '/v1/orgs', { token: owner.token, body: { title: 'Rows' } }), 201).body;
    const space = expectStatus(await api('POST', `/v1/orgs/${org.id}/spaces`, { token: owner.token, body: { title: 'Docs' } }), 201).body;
    const plain = () => db().select({ space: spaces, rank: sql<number>`2`.as('rank'), verified: users.emailVerified }).from(spaces).innerJoin(users, eq(users.id, owner.id)).where(eq(spaces.id, space.id));
    const expected = await plain().all();
    expect(typeof expected[0].space.mergeRules).toBe('object');
    expect(typeof expected[0].verified).toBe('boolean');
    const shape = `test-rows-${crypto.randomUUID()}`;
    const build = () => db().select({ space: spaces, rank: sql<number>`2`.as('rank'), verified: users.emailVerified }).from(spaces).innerJoin(users, eq(users.id, sql.placeholder('userId'))).where(eq(spaces.id, sql.placeholder('spaceId')));
    const values = { spaceId: space.id, userId: owner.id };
    for (let i = 0; i < 2; i++) expect(await selectOfBuiltShape(db(), shape, build, values).all()).toEqual(expected);
    const d = db();
    const [batched, again] = await runBatch(d, [selectOfBuiltShape(d, shape, build, values), selectOfShape(`${shape}-2`, build(), values)]);
    expect(batched).toEqual(expected);
    expect(again).toEqual(expected);
  });

  it("keep a left join's missing side null", async () => {
    const [owner] = await createUsers(1);
    const build = () => db().select({ user: users, space: spaces }).from(users).leftJoin(spaces, eq(spaces.id, 'no-such-space')).where(eq(users.id, sql.placeholder('userId')));
    const shape = `test-left-join-${crypto.randomUUID()}`;
    for (let i = 0; i < 2; i++) {
      const [row] = await selectOfBuiltShape(db(), shape, build, { userId: owner.id }).all();
      expect(row.user.id).toBe(owner.id);
      expect(row.space).toBeNull();
    }
  });
});
