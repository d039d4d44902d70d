import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';

/**
 * Migration 0150 (the search index without word positions, FTS5 `detail=column`) on a database as the code before
 * it left it: the index of migrations 0050, 0120 and 0121, which stored every word's offsets. The test puts that
 * index back, indexes a page into it, runs the migration's statements, and searches through the API: what was found
 * is found with the same snippets, secure-delete is kept, and edits after the migration reach the index.
 */
const statementsOf = (prefix: string) => {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix));
  expect(migration, prefix).toBeDefined();
  return migration!.queries;
};

const ftsSql = async () => (await env.DB.prepare("select sql from sqlite_master where name = 'search_sections'").first<{ sql: string }>())!.sql;

interface Hit {
  title: string;
  sections: Array<{ title: string; body: string }>;
}

describe('migration 0150: the search index without word positions', () => {
  it('carries a database made before it over: the same results and snippets, edits indexed after it', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const search = async (spaceId: string, query: string): Promise<Hit[]> =>
      expectStatus(await api('GET', `/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}`, { token }), 200).body.items.map((p: Hit) => ({
        title: p.title,
        sections: p.sections.map((s) => ({ title: s.title, body: s.body })),
      }));

    // The index as migrations 0050, 0120 and 0121 left it: with word positions.
    await env.DB.batch(['search_section_rows_ai', 'search_section_rows_ad', 'search_section_rows_au'].map((t) => env.DB.prepare(`DROP TRIGGER IF EXISTS ${t}`)));
    await env.DB.prepare('DROP TABLE IF EXISTS search_sections').run();
    for (const query of [...statementsOf('0050_'), ...statementsOf('0120_'), ...statementsOf('0121_')]) await env.DB.prepare(query).run();
    expect(await ftsSql()).not.toContain('detail=');

    const space = await createSpace(org.id, token, 'Before 0150');
    const cr = await openChangeRequest(space.id, token, 'Content');
    const pages = [
      { title: 'Ocelots', markdown: 'The **ocelot** prowls at dusk through the forest.\n\n## Habitat\n\nForests of the café country, where the ocelot hunts.\n' },
      { title: 'Margays', markdown: 'The margay climbs. It hunts in trees, and the ocelot hunts on the ground.\n\n## Diet\n\nBirds and lizards.\n' },
    ];
    const applied = await applyChanges(space.id, cr.number, token, pages.map((p) => ({ operation: 'insert_page', title: p.title, document: { markdown: p.markdown } })));
    expectStatus(await merge(space.id, cr.number, token), 200);
    const queries = ['ocelot', 'ocelot hunts', 'cafe', 'hunts on the gro', 'margay', 'jaguar'];
    const before = await Promise.all(queries.map((q) => search(space.id, q)));
    expect(before[0].map((p) => p.title).sort()).toEqual(['Margays', 'Ocelots']);

    for (const query of statementsOf('0150_')) await env.DB.prepare(query).run();

    expect(await ftsSql()).toContain('detail=column');
    expect(await env.DB.prepare("select v from search_sections_config where k = 'secure-delete'").first('v')).toBe(1);
    // The rows indexed before are indexed again: the same pages, sections and snippets, in the same order.
    expect(await Promise.all(queries.map((q) => search(space.id, q)))).toEqual(before);

    // An edit after it: the index follows it (the old text no longer found, the new one found).
    const next = await openChangeRequest(space.id, token, 'Edit');
    const ocelots = applied.changes[0].page.id as string;
    await applyChanges(space.id, next.number, token, [{ operation: 'update_page', page: ocelots, document: { markdown: 'The **ocelot** prowls.\n\n## Habitat\n\nRivers of the tapir country.\n' } }]);
    expectStatus(await merge(space.id, next.number, token), 200);
    expect((await search(space.id, 'cafe')).map((p) => p.title)).toEqual([]);
    expect((await search(space.id, 'tapir')).map((p) => p.title)).toEqual(['Ocelots']);
    expect((await search(space.id, 'ocelot')).map((p) => p.title).sort()).toEqual(['Margays', 'Ocelots']);
  });
});
