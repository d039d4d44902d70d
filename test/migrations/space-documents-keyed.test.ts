import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { expectStatus, seedOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';

/**
 * Migration 0151 (space_documents keyed by its primary key, WITHOUT ROWID) on a database as the code before it left
 * it: the table put back in the form migration 0002 made (a row id table, its primary key a second index), filled by
 * today's writes, then the migration's statements run again. Only this file's own spaces are asserted on.
 */
const statementsOf = (prefix: string) => {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix));
  expect(migration, prefix).toBeDefined();
  return migration!.queries;
};

/** The table as migration 0002 created it, holding every row the keyed one holds. */
async function restoreRowidTable() {
  await env.DB.batch([
    env.DB.prepare(`CREATE TABLE space_documents_rowid (
      space_id text NOT NULL, hash text NOT NULL, PRIMARY KEY(space_id, hash),
      FOREIGN KEY (space_id) REFERENCES spaces(id) ON UPDATE no action ON DELETE cascade)`),
    env.DB.prepare('INSERT INTO space_documents_rowid (space_id, hash) SELECT space_id, hash FROM space_documents'),
    env.DB.prepare('DROP TABLE space_documents'),
    env.DB.prepare('ALTER TABLE space_documents_rowid RENAME TO space_documents'),
    env.DB.prepare('CREATE INDEX space_documents_hash ON space_documents (hash)'),
  ]);
}

const tableSql = async () => (await env.DB.prepare("select sql from sqlite_master where type = 'table' and name = 'space_documents'").first<{ sql: string }>())!.sql;
const indexNames = async () =>
  (await env.DB.prepare("select name from sqlite_master where type = 'index' and tbl_name = 'space_documents' order by name").all<{ name: string }>()).results.map((r) => r.name);
const hashesOf = async (spaceId: string) =>
  (await env.DB.prepare('select hash from space_documents where space_id = ? order by hash').bind(spaceId).all<{ hash: string }>()).results.map((r) => r.hash);

describe('migration 0151: space_documents without row ids', () => {
  it('carries a database made before it over: the same rows, one b-tree for them, lookups by space and by hash', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Keyed');
    const cr = await openChangeRequest(space.id, token, 'Content');
    const markdown = 'The **quokka** smiles.\n\n## Diet\n\nLeaves and grasses.\n';
    const applied = await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Quokkas', document: { markdown } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const pageId = applied.changes[0].page.id as string;
    const markdownBefore = await pageMarkdown(space.id, pageId, token);

    await restoreRowidTable();
    expect(await tableSql()).not.toMatch(/without rowid/i);
    expect(await indexNames()).toEqual(['space_documents_hash', 'sqlite_autoindex_space_documents_1']);
    const before = await hashesOf(space.id);
    // The page's document and the page map's nodes, at least.
    expect(before.length).toBeGreaterThanOrEqual(2);

    for (const query of statementsOf('0151_')) await env.DB.prepare(query).run();

    expect(await tableSql()).toMatch(/\)\s*WITHOUT ROWID$/);
    // No second copy of the key: the table is its primary key's b-tree.
    expect(await indexNames()).toEqual(['space_documents_hash']);
    expect(await hashesOf(space.id)).toEqual(before);
    const plan = async (query: string, ...values: string[]) =>
      (await env.DB.prepare(`explain query plan ${query}`).bind(...values).all<{ detail: string }>()).results.map((r) => r.detail).join('; ');
    expect(await plan('select 1 from space_documents where hash = ?', before[0])).toContain('USING COVERING INDEX space_documents_hash');
    expect(await plan('select hash from space_documents where space_id = ?', space.id)).toContain('USING PRIMARY KEY');

    // Reads that go through it answer as before; a new edit adds its references (insert ... on conflict do nothing).
    expect(await pageMarkdown(space.id, pageId, token)).toBe(markdownBefore);
    const next = await openChangeRequest(space.id, token, 'More');
    await applyChanges(space.id, next.number, token, [{ operation: 'update_page', page: pageId, document: { markdown: `${markdown}\nAnd fruit.\n` } }]);
    expectStatus(await merge(space.id, next.number, token), 200);
    expect(await pageMarkdown(space.id, pageId, token)).toContain('And fruit.');
    const after = await hashesOf(space.id);
    expect(after.length).toBeGreaterThan(before.length);
    expect(after).toEqual(expect.arrayContaining(before));

    // The foreign key to the space is kept: a purged space's references go with it.
    await env.DB.prepare('delete from spaces where id = ?').bind(space.id).run();
    expect(await hashesOf(space.id)).toEqual([]);
  });
});
