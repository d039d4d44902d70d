import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';

/**
 * Migration 0162 (delta documents: `documents.base`) on a database as the code before it left it. Its statement runs on
 * a copy of the documents table in its former shape, filled with rows today's code wrote (the shared table cannot lose
 * the column while other files write deltas to it): every row stays as it was, whole (`base` null). Then a page written
 * whole before deltas existed is edited: its new document is a delta of the old one, which is not rewritten, and both
 * versions read back.
 */
const statementsOf = (prefix: string) => {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix));
  expect(migration, prefix).toBeDefined();
  return migration!.queries;
};

const SCRATCH = 'documents_before_0162';

describe('migration 0162: delta documents', () => {
  it('adds the base column to a table made before it, every row kept as it was', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Before deltas');
    const cr = await openChangeRequest(space.id, token, 'Pages');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', title: 'One', document: { markdown: 'The **first** page.\n' } },
      { operation: 'insert_page', title: 'Two', document: { markdown: 'The second page, with `code`.\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await env.DB.batch([
      env.DB.prepare(`DROP TABLE IF EXISTS ${SCRATCH}`),
      // The table as migrations before 0162 left it.
      env.DB.prepare(`CREATE TABLE ${SCRATCH} (hash text PRIMARY KEY NOT NULL, body text NOT NULL, markdown text, created_at text NOT NULL, refs text)`),
      env.DB.prepare(
        `INSERT INTO ${SCRATCH} SELECT d.hash, d.body, d.markdown, d.created_at, d.refs FROM space_documents sd JOIN documents d ON d.hash = sd.hash WHERE sd.space_id = ?`,
      ).bind(space.id),
    ]);
    const rows = `SELECT hash, hex(body) AS body, refs FROM ${SCRATCH} ORDER BY hash`;
    const before = (await env.DB.prepare(rows).all()).results;
    expect(before.length).toBeGreaterThanOrEqual(3);

    for (const query of statementsOf('0162_')) await env.DB.prepare(query.replaceAll('`documents`', SCRATCH)).run();

    expect((await env.DB.prepare(rows).all()).results).toEqual(before);
    const columns = (await env.DB.prepare(`SELECT name FROM pragma_table_info('${SCRATCH}')`).all<{ name: string }>()).results.map((c) => c.name);
    expect(columns).toContain('base');
    expect(await env.DB.prepare(`SELECT count(*) AS n FROM ${SCRATCH} WHERE base IS NOT NULL`).first('n')).toBe(0);
    await env.DB.prepare(`DROP TABLE ${SCRATCH}`).run();
  });

  it('stores the first edit of a page written whole as a delta of it, rewriting nothing, and reads both', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Edited after 0162');
    const cr = await openChangeRequest(space.id, token, 'Page');
    // Paragraphs of their own (a page Brotli packs to almost nothing is stored whole: its delta would not be smaller).
    const words = () => Array.from({ length: 12 }, () => Math.random().toString(36).slice(2, 8)).join(' ');
    const markdown = Array.from({ length: 10 }, (_, i) => `Paragraph ${i}: the broker keeps ${words()} until a consumer acknowledges it.`).join('\n\n') + '\n';
    const pageId = (await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Broker', document: { markdown } }])).changes[0].page.id as string;
    const firstRevision = expectStatus(await merge(space.id, cr.number, token), 200).body.revision as string;
    const old = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body;
    const rowOf = (hash: string) => env.DB.prepare('SELECT hex(body) AS body, base FROM documents WHERE hash = ?').bind(hash).first<{ body: string; base: string | null }>();
    const oldRow = await rowOf(old.documentId);
    expect(oldRow!.base).toBeNull();

    const edit = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, edit.number, token, [{ operation: 'update_page', page: pageId, document: { markdown: `${markdown}\nOne more paragraph.\n` } }]);
    expectStatus(await merge(space.id, edit.number, token), 200);
    const edited = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}?format=markdown`, { token }), 200).body;
    expect(edited.markdown).toContain('One more paragraph.');
    const newId = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body.documentId as string;
    expect((await rowOf(newId))!.base).toBe(old.documentId);
    expect(await rowOf(old.documentId)).toEqual(oldRow);
    const then = expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${firstRevision}/page/${pageId}`, { token }), 200).body;
    expect(then.document).toEqual(old.document);
  });
});
