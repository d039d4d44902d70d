import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';

/**
 * A page reindexed after an edit keeps the search rows of its unchanged sections (issue 42, storage): only the
 * sections edited are deleted and inserted, so the full-text index grows by them, not by the whole page; a section
 * inserted above others moves them (their position) without rewriting them. Search answers as if the page had been
 * indexed anew. Every assertion reads this file's own space (the database is shared with other files).
 */

interface Row {
  id: number;
  position: number;
  anchor: string;
  page_title: string;
  body: string;
}

const rowsOf = async (spaceId: string, pageId: string) =>
  (
    await env.DB.prepare('select id, position, anchor, page_title, body from search_section_rows where space_id = ? and page_id = ? order by position')
      .bind(spaceId, pageId)
      .all<Row>()
  ).results;

/** The rows' ids by anchor. */
const idsByAnchor = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.anchor, r.id]));

async function publish(org: TestOrg, spaceId: string, changes: unknown[]) {
  const cr = await openChangeRequest(spaceId, org.owner.token, 'Edit');
  const applied = await applyChanges(spaceId, cr.number, org.owner.token, changes);
  expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
  return applied;
}

const search = async (org: TestOrg, spaceId: string, query: string) =>
  expectStatus(await api('GET', `/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}`, { token: org.owner.token }), 200).body.items.map(
    (p: { title: string; sections: Array<{ path: string }> }) => `${p.title} ${p.sections.map((s) => s.path).join(' ')}`,
  );

/** The full-text index's rows that hold `word` among this space's rows: what it indexed, not what the rows say. */
const indexedRowsWith = async (spaceId: string, word: string) =>
  (
    await env.DB.prepare(`select rowid as id from search_sections where search_sections match ? order by rowid`)
      .bind(`{space_key} : "s${spaceId}" AND "${word}"`)
      .all<{ id: number }>()
  ).results.map((r) => r.id);

const page = (alpha: string, beta: string, gamma: string, above = '') =>
  `Intro of the menagerie.\n\n${above}## Alpha\n\n${alpha}\n\n## Beta\n\n${beta}\n\n## Gamma\n\n${gamma}\n`;

describe('reindexing an edited page', () => {
  it('rewrites the sections edited, moves the others, and search follows', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Menagerie');
    const applied = await publish(org, space.id, [
      { operation: 'insert_page', title: 'Animals', document: { markdown: page('The aardvark digs.', 'The badger sleeps.', 'The capybara swims.') } },
    ]);
    const pageId = applied.changes[0].page.id as string;
    const first = await rowsOf(space.id, pageId);
    expect(first.map((r) => [r.position, r.anchor])).toEqual([
      [0, ''],
      [1, 'alpha'],
      [2, 'beta'],
      [3, 'gamma'],
    ]);

    // One section's text edited: its row alone is replaced.
    await publish(org, space.id, [{ operation: 'update_page', page: pageId, document: { markdown: page('The aardvark digs.', 'The bison grazes.', 'The capybara swims.') } }]);
    const second = await rowsOf(space.id, pageId);
    const before = idsByAnchor(first);
    const after = idsByAnchor(second);
    expect(second.map((r) => [r.position, r.anchor])).toEqual(first.map((r) => [r.position, r.anchor]));
    expect([after[''], after.alpha, after.gamma]).toEqual([before[''], before.alpha, before.gamma]);
    expect(after.beta).not.toBe(before.beta);
    expect(await search(org, space.id, 'badger')).toEqual([]);
    expect(await search(org, space.id, 'bison')).toEqual(['Animals animals#beta']);
    expect(await indexedRowsWith(space.id, 'badger')).toEqual([]);
    expect(await indexedRowsWith(space.id, 'bison')).toEqual([after.beta]);
    expect(await indexedRowsWith(space.id, 'capybara')).toEqual([after.gamma]);

    // A section inserted above the others: they keep their rows and take their new positions.
    await publish(org, space.id, [
      { operation: 'update_page', page: pageId, document: { markdown: page('The aardvark digs.', 'The bison grazes.', 'The capybara swims.', '## Aleph\n\nThe axolotl waits.\n\n') } },
    ]);
    const third = await rowsOf(space.id, pageId);
    expect(third.map((r) => [r.position, r.anchor])).toEqual([
      [0, ''],
      [1, 'aleph'],
      [2, 'alpha'],
      [3, 'beta'],
      [4, 'gamma'],
    ]);
    const moved = idsByAnchor(third);
    expect([moved[''], moved.alpha, moved.beta, moved.gamma]).toEqual([after[''], after.alpha, after.beta, after.gamma]);
    expect(await search(org, space.id, 'axolotl')).toEqual(['Animals animals#aleph']);
    expect(await search(org, space.id, 'capybara')).toEqual(['Animals animals#gamma']);
    expect(await indexedRowsWith(space.id, 'capybara')).toEqual([after.gamma]);

    // A section removed: its row goes, the others move up.
    await publish(org, space.id, [{ operation: 'update_page', page: pageId, document: { markdown: 'Intro of the menagerie.\n\n## Aleph\n\nThe axolotl waits.\n\n## Gamma\n\nThe capybara swims.\n' } }]);
    const fourth = await rowsOf(space.id, pageId);
    expect(fourth.map((r) => [r.id, r.position, r.anchor])).toEqual([
      [moved[''], 0, ''],
      [moved.aleph, 1, 'aleph'],
      [moved.gamma, 2, 'gamma'],
    ]);
    expect(await search(org, space.id, 'aardvark')).toEqual([]);
    expect(await indexedRowsWith(space.id, 'aardvark')).toEqual([]);

    // The page's title is in every row: a new title rewrites them all, and search finds the page by it.
    await publish(org, space.id, [{ operation: 'update_page', page: pageId, title: 'Beasts' }]);
    const renamed = await rowsOf(space.id, pageId);
    expect(renamed.map((r) => r.page_title)).toEqual(['Beasts', 'Beasts', 'Beasts']);
    expect(renamed.map((r) => r.id).some((id) => fourth.some((r) => r.id === id))).toBe(false);
    expect(await search(org, space.id, 'beasts')).toHaveLength(1);
    expect(await search(org, space.id, 'animals')).toEqual([]);

    // The page deleted: no row of it is left, and the index forgets it.
    await publish(org, space.id, [{ operation: 'delete_page', page: pageId }]);
    expect(await rowsOf(space.id, pageId)).toEqual([]);
    expect(await indexedRowsWith(space.id, 'capybara')).toEqual([]);
  });

  it('a page whose every section is gone keeps no row, and one edited in a batch of many pages keeps the others', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Many');
    const applied = await publish(
      org,
      space.id,
      Array.from({ length: 12 }, (_, i) => ({ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `Text of page ${i} with the word okapi${i}.\n\n## Part\n\nShared part.\n` } })),
    );
    const ids = applied.changes.map((c: { page: { id: string } }) => c.page.id as string);
    const rowsBefore = await Promise.all(ids.map((id: string) => rowsOf(space.id, id)));
    await publish(org, space.id, [
      { operation: 'update_page', page: ids[0], document: { markdown: '' } },
      { operation: 'update_page', page: ids[1], document: { markdown: 'Text of page 1 with the word okapi1.\n\n## Part\n\nAnother part.\n' } },
    ]);
    expect(await rowsOf(space.id, ids[0])).toEqual([]);
    const second = await rowsOf(space.id, ids[1]);
    expect(second[0].id).toBe(rowsBefore[1][0].id);
    expect(second[1].id).not.toBe(rowsBefore[1][1].id);
    for (let i = 2; i < 12; i++) expect(await rowsOf(space.id, ids[i])).toEqual(rowsBefore[i]);
    expect(await search(org, space.id, 'okapi0')).toEqual([]);
    expect(await search(org, space.id, 'another part')).toEqual(['Page 1 page-1#part']);
  });
});
