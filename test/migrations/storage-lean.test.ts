import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';

/**
 * Migrations 0050 (the search index without prefix indexes) and 0051 (one stored form of a page) on a database
 * as the code before them left it: the FTS5 table with its prefix indexes and documents carrying a Markdown copy.
 * The test puts the database back in that state, runs the migrations' statements again, and reads through the API.
 */
const statementsOf = (prefix: string) => {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix));
  expect(migration, prefix).toBeDefined();
  return migration!.queries;
};

/** The FTS5 table and triggers of migration 0005, prefix indexes included: what databases had before 0050. */
async function restoreOldSearchIndex() {
  const old = statementsOf('0005_').filter((q) => /search_sections|search_section_rows_a[idu]/.test(q) && !/^\s*CREATE TABLE/i.test(q));
  await env.DB.batch([
    env.DB.prepare('DROP TRIGGER IF EXISTS search_section_rows_ai'),
    env.DB.prepare('DROP TRIGGER IF EXISTS search_section_rows_ad'),
    env.DB.prepare('DROP TRIGGER IF EXISTS search_section_rows_au'),
    env.DB.prepare('DROP TABLE IF EXISTS search_sections'),
  ]);
  for (const query of old) await env.DB.prepare(query).run();
  await env.DB.prepare("INSERT INTO search_sections(search_sections) VALUES ('rebuild')").run();
}

const ftsSql = async () => (await env.DB.prepare("select sql from sqlite_master where name = 'search_sections'").first<{ sql: string }>())!.sql;

describe('migrations 0050 and 0051: a leaner search index, one stored form of a page', () => {
  it('carries a database made before them over: search finds what it found, Markdown reads answer what they answered', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Before');
    const cr = await openChangeRequest(space.id, token, 'Content');
    const markdown = 'The **ocelot** prowls at dusk.\n\n## Habitat\n\nForests of the café country.\n';
    const applied = await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Ocelots', document: { markdown } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const pageId = applied.changes[0].page.id as string;
    const markdownBefore = await pageMarkdown(space.id, pageId, token);

    // The state the code before 0050 and 0051 left: prefix indexes, and a Markdown copy beside the document.
    await restoreOldSearchIndex();
    expect(await ftsSql()).toContain("prefix='2 3'");
    const page = await env.DB.prepare(
      `select json_extract(l.value, '$.document') as hash from revisions r, json_each((select body from documents where hash = r.pages_root)) g,
        json_each(case when g.key glob '~[0-7]' then (select body from documents where hash = g.value) else json_object(g.key, g.value) end) m,
        json_each((select body from documents where hash = m.value)) c, json_each((select body from documents where hash = c.value)) l
       where r.id = (select revision_id from spaces where id = ?) and l.key = ?`,
    )
      .bind(space.id, pageId)
      .first<{ hash: string }>();
    await env.DB.prepare('update documents set markdown = ? where hash = ?').bind(markdownBefore, page!.hash).run();

    for (const query of [...statementsOf('0050_'), ...statementsOf('0051_')]) await env.DB.prepare(query).run();

    expect(await ftsSql()).not.toContain('prefix=');
    expect(await env.DB.prepare('select count(*) as n from documents where markdown is not null').first('n')).toBe(0);
    const search = async (query: string) =>
      expectStatus(await api('GET', `/v1/spaces/${space.id}/search?query=${encodeURIComponent(query)}`, { token }), 200).body.items.map((p: { title: string }) => p.title);
    // Whole words, the last word as a prefix without a prefix index, folded diacritics.
    expect(await search('ocelot')).toEqual(['Ocelots']);
    expect(await search('prowls at du')).toEqual(['Ocelots']);
    expect(await search('cafe')).toEqual(['Ocelots']);
    expect(await search('jaguar')).toEqual([]);
    // The Markdown read is derived from the document now, and reads the same.
    expect(await pageMarkdown(space.id, pageId, token)).toBe(markdownBefore);

    // New content is indexed by the new table, and stored without a copy.
    const next = await openChangeRequest(space.id, token, 'More');
    await applyChanges(space.id, next.number, token, [{ operation: 'insert_page', title: 'Margays', document: { markdown: 'The margay climbs.\n' } }]);
    expectStatus(await merge(space.id, next.number, token), 200);
    expect(await search('marg')).toEqual(['Margays']);
    expect(await env.DB.prepare('select count(*) as n from documents where markdown is not null').first('n')).toBe(0);
  });
});
