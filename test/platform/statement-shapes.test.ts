/**
 * Statements built once per isolate (db/client `rawAllOfShape`, `selectOfShape`, `selectWithValues`; issue 42, point 6):
 * a shape's SQL text is made by its first statement, and every later one binds its own values. A statement that kept
 * the values of the one its text was built from would answer another caller's rows: each test reads two different
 * rows through one shape, alone and in a batch.
 */
import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb, rawAllOfShape, rowsOf, runBatch, selectOfBuiltShape, selectOfShape, selectWithValues } from '../../src/db/client';
import { apiTokens, users } from '../../src/db/schema';
import { api, createUsers, seedOrg } from '../helpers/harness';
import { PNG_1x1, applyChanges, createSpace, openChangeRequest } from '../helpers/content';

const db = () => createDb(env.DB);

async function twoUsers() {
  const [a, b] = await createUsers(2);
  return [a.id, b.id] as const;
}

describe('statements of a shape', () => {
  it('rawAllOfShape builds its text once and binds each statement its own values, alone and in a batch', async () => {
    const [a, b] = await twoUsers();
    let built = 0;
    const build = () => (built++, sql`select id, email from users where id = ${sql.placeholder('id')}`);
    const shape = `test-user-by-id-${crypto.randomUUID()}`;
    const first = await rawAllOfShape<{ id: string }>(db(), shape, build, { id: a });
    const second = await rawAllOfShape<{ id: string }>(db(), shape, build, { id: b });
    expect(first.map((r) => r.id)).toEqual([a]);
    expect(second.map((r) => r.id)).toEqual([b]);
    const d = db();
    const batched = await runBatch(d, [rawAllOfShape(d, shape, build, { id: b }), rawAllOfShape(d, shape, build, { id: a })]);
    expect(batched.map((result) => rowsOf<{ id: string }>(result).map((r) => r.id))).toEqual([[b], [a]]);
    expect(built).toBe(1);
  });

  it('selectOfShape and selectWithValues bind each statement its own values', async () => {
    const [a, b] = await twoUsers();
    const byId = (id: string, shape?: string) => {
      const select = db().select({ id: users.id }).from(users).where(eq(users.id, sql.placeholder('id')));
      return shape ? selectOfShape(shape, select, { id }) : selectWithValues(select, { id });
    };
    const shape = `test-select-by-id-${crypto.randomUUID()}`;
    expect(await byId(a, shape)).toEqual([{ id: a }]);
    expect(await byId(b, shape).get()).toEqual({ id: b });
    expect(await byId(b)).toEqual([{ id: b }]);
    const d = db();
    const select = (id: string) => selectOfShape(shape, d.select({ id: users.id }).from(users).where(eq(users.id, sql.placeholder('id'))), { id });
    expect(await runBatch(d, [select(b), select(a)])).toEqual([[{ id: b }], [{ id: a }]]);
  });

  it('selectOfBuiltShape builds its builder once, maps joined rows as drizzle does, and binds each statement its own values', async () => {
    const [a, b] = await createUsers(2);
    let built = 0;
    const shape = `test-built-select-${crypto.randomUUID()}`;
    // A join with a nested table selection and an aliased field: what drizzle's row mapping has to put back together.
    const byId = (d: ReturnType<typeof db>, id: string) =>
      selectOfBuiltShape(d, shape, () => (built++, d
        .select({ user: { id: users.id, email: users.email }, tokens: sql<number>`count(${apiTokens.id})`.as('token_count') })
        .from(users)
        .leftJoin(apiTokens, eq(apiTokens.userId, users.id))
        .where(eq(users.id, sql.placeholder('id')))
        .groupBy(users.id)), { id });
    const expected = (user: { id: string; email: string }) => ({ user: { id: user.id, email: user.email }, tokens: 1 });
    expect(await byId(db(), a.id)).toEqual([expected(a)]);
    expect(await byId(db(), b.id)).toEqual([expected(b)]);
    expect(await byId(db(), a.id).get()).toEqual(expected(a));
    expect(await byId(db(), b.id).all()).toEqual([expected(b)]);
    const d = db();
    expect(await runBatch(d, [byId(d, b.id), byId(d, a.id)])).toEqual([[expected(b)], [expected(a)]]);
    expect(await byId(db(), 'no-such-user').get()).toBeUndefined();
    expect(built).toBe(1);
  });

  it("two callers' reads of one shape answer each their own user, one after the other in one isolate", async () => {
    const [a, b] = await createUsers(2);
    const meA = await api<{ id: string }>('GET', '/v1/user', { token: a.token });
    const meB = await api<{ id: string }>('GET', '/v1/user', { token: b.token });
    expect([meA.body.id, meB.body.id]).toEqual([a.id, b.id]);
  });

  it("content reads of one shape (a file, a page of files, the whole tree) answer each space's own, in a change request and on main", async () => {
    const [one, two] = [await seedOrg(), await seedOrg()];
    const spaces = [];
    for (const [org, name] of [[one, 'one.png'], [two, 'two.png']] as const) {
      const space = await createSpace(org.id, org.owner.token);
      const cr = await openChangeRequest(space.id, org.owner.token);
      const batch = await applyChanges(space.id, cr.id, org.owner.token, [
        { operation: 'insert_files', files: [{ ref: name, name, contentType: 'image/png', base64: PNG_1x1 }] },
        { operation: 'insert_page', title: `Page of ${name}`, document: { markdown: `![a](./${name})` } },
      ]);
      spaces.push({ token: org.owner.token, space: space.id, cr: cr.number, file: batch.insertedFiles[0].id as string, name });
    }
    for (const { token, space, cr, file, name } of spaces) {
      const base = `/v1/spaces/${space}/change-requests/${cr}/content`;
      const read = await api('GET', `${base}/files/${file}`, { token });
      expect(read.status).toBe(200);
      expect(read.body.name).toBe(name);
      const list = await api('GET', `${base}/files`, { token });
      expect(list.body.items.map((f: { name: string }) => f.name)).toEqual([name]);
      const tree = await api('GET', base, { token });
      expect(tree.body.pages.map((p: { title: string }) => p.title)).toEqual([`Page of ${name}`]);
    }
    // Another space's file id, through a shape another space's read built, is not found.
    const crossed = await api('GET', `/v1/spaces/${spaces[0].space}/change-requests/${spaces[0].cr}/content/files/${spaces[1].file}`, { token: spaces[0].token });
    expect(crossed.status).toBe(404);
  });
});
