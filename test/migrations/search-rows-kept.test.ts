import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';

/**
 * Migration 0120 (the search index's update trigger fires on a change of its indexed columns only) on a database as
 * the code before it left it: the trigger of migration 0050, which rewrote a row's every word into the index when
 * only its position changed. The test puts that trigger back, runs the migration's statements again, and checks that
 * the index follows text updates still, and that pages indexed before it are edited section by section after it.
 */
const statementsOf = (prefix: string) => {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix));
  expect(migration, prefix).toBeDefined();
  return migration!.queries;
};

const triggerSql = async () => (await env.DB.prepare("select sql from sqlite_master where type = 'trigger' and name = 'search_section_rows_au'").first<{ sql: string }>())!.sql;

describe('migrations 0120 and 0121: search rows moved without being reindexed, deletes taken out of the index', () => {
  it('carries a database made before it over', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Before 0120');
    const cr = await openChangeRequest(space.id, token, 'Content');
    const markdown = 'The **ocelot** prowls.\n\n## Habitat\n\nForests of the café country.\n';
    const applied = await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Ocelots', document: { markdown } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const pageId = applied.changes[0].page.id as string;

    // The trigger as migration 0050 left it: on any update of a row.
    const old = statementsOf('0050_').find((q) => /CREATE TRIGGER `search_section_rows_au`/.test(q))!;
    await env.DB.batch([env.DB.prepare('DROP TRIGGER IF EXISTS search_section_rows_au'), env.DB.prepare(old)]);
    expect(await triggerSql()).not.toMatch(/UPDATE OF/i);

    for (const query of statementsOf('0120_')) await env.DB.prepare(query).run();
    expect(await triggerSql()).toMatch(/AFTER UPDATE OF `page_title`, `section_title`, `body`, `space_key`/);
    // 0121: deletes taken out of the index's segments (secure-delete), a setting the index keeps; running it again changes nothing.
    for (const query of statementsOf('0121_')) await env.DB.prepare(query).run();
    expect(await env.DB.prepare("select v from search_sections_config where k = 'secure-delete'").first('v')).toBe(1);

    const search = async (query: string) =>
      expectStatus(await api('GET', `/v1/spaces/${space.id}/search?query=${encodeURIComponent(query)}`, { token }), 200).body.items.map((p: { title: string }) => p.title);
    expect(await search('cafe')).toEqual(['Ocelots']);

    // A text update still reaches the index; a change of position alone leaves what it finds as it was.
    const habitat = await env.DB.prepare("select id from search_section_rows where space_id = ? and page_id = ? and anchor = 'habitat'").bind(space.id, pageId).first<{ id: number }>();
    await env.DB.prepare("update search_section_rows set body = 'Savannas of the tapir country.' where id = ?").bind(habitat!.id).run();
    expect(await search('cafe')).toEqual([]);
    expect(await search('tapir')).toEqual(['Ocelots']);
    await env.DB.prepare('update search_section_rows set position = position + 10 where id = ?').bind(habitat!.id).run();
    expect(await search('tapir')).toEqual(['Ocelots']);

    // The page indexed before the migration, edited after it: the unchanged section keeps its row.
    const intro = await env.DB.prepare("select id from search_section_rows where space_id = ? and page_id = ? and anchor = ''").bind(space.id, pageId).first<{ id: number }>();
    const next = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, next.number, token, [{ operation: 'update_page', page: pageId, document: { markdown: 'The **ocelot** prowls.\n\n## Habitat\n\nRivers of the margay country.\n' } }]);
    expectStatus(await merge(space.id, next.number, token), 200);
    const rows = (await env.DB.prepare('select id, position, anchor from search_section_rows where space_id = ? and page_id = ? order by position').bind(space.id, pageId).all<{ id: number; position: number; anchor: string }>()).results;
    expect(rows.map((r) => [r.position, r.anchor])).toEqual([
      [0, ''],
      [1, 'habitat'],
    ]);
    expect(rows[0].id).toBe(intro!.id);
    expect(await search('tapir')).toEqual([]);
    expect(await search('margay')).toEqual(['Ocelots']);
  });
});
