/**
 * A page read's statement walks the page map once (services/content/reads.ts `pageTreeWalkSql`): the page, its
 * ancestors and its subtree are rows of one recursive walk whose one step looks every row up, where the ancestors and
 * the subtree were two walks with six lookups (SQLite compiles each written lookup, a four-table join: most of what
 * local D1 spent on a page read). Reads answer as before: ancestors in order, a child list cut into chunks (more
 * than INLINE_CHILDREN children) read whole and in order, grandchildren under a chunked child, Markdown of the subtree.
 */
import { describe, expect, it } from 'vitest';
import { pageStatement } from '../../src/services/content/page-statement';
import { INLINE_CHILDREN } from '../../src/services/content/pages';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';

const CHILDREN = INLINE_CHILDREN + 44;

describe("a page read's one walk of the page map", () => {
  it('writes the page map lookup once in a read by id, for a member and a visitor, with or without Markdown', () => {
    for (const published of [false, true]) {
      for (const markdown of [false, true]) {
        const { text } = pageStatement({ revision: 'main', published, byPath: false, computed: false, markdown, reusable: false });
        // Each lookup joins the root as `lk_r` (services/content/tree `lookupSql`).
        expect(text.match(/documents lk_r\b/g), JSON.stringify({ published, markdown })).toHaveLength(1);
      }
    }
  });

  it('reads ancestors, a chunked child list in order and what is below a chunked child, as Markdown too', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Walk');
    const cr = await openChangeRequest(space.id, token, 'Many');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', ref: 'top', title: 'Top', document: { markdown: 'Top.\n' } },
      { operation: 'insert_page', ref: 'folder', into: 'top', title: 'Folder', document: { markdown: 'Folder.\n' } },
    ]);
    const tree = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content`, { token }), 200).body;
    const folder = tree.pages[0].pages[0].id as string;
    for (let from = 0; from < CHILDREN; from += 50) {
      const batch = Array.from({ length: Math.min(50, CHILDREN - from) }, (_, i) => ({
        operation: 'insert_page', into: folder, title: `Child ${from + i}`, document: { markdown: `Child ${from + i}.\n` },
      }));
      await applyChanges(space.id, cr.number, token, batch);
    }
    const filled = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content`, { token }), 200).body;
    const late = filled.pages[0].pages[0].pages[CHILDREN - 3];
    expect(late.title).toBe(`Child ${CHILDREN - 3}`);
    const added = await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', ref: 'grand', into: late.id, title: 'Grandchild', document: { markdown: 'Grandchild.\n' } },
    ]);
    const grand = added.changes[0].page.id as string;
    expect((await merge(space.id, cr.number, token)).status).toBe(200);

    const read = async (id: string, query = '') => expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${id}${query}`, { token }), 200).body;
    const folderRead = await read(folder);
    const titles = folderRead.pages.map((p: { title: string }) => p.title);
    expect(titles).toEqual(Array.from({ length: CHILDREN }, (_, i) => `Child ${i}`));
    expect(folderRead.pages[CHILDREN - 3].pages.map((p: { id: string }) => p.id)).toEqual([grand]);
    expect(folderRead.path).toBe('top/folder');

    const grandRead = await read(grand);
    expect([grandRead.title, grandRead.path]).toEqual(['Grandchild', `top/folder/${late.slug}/grandchild`]);
    expect(grandRead.document.nodes.length).toBeGreaterThan(0);

    const markdown = await read(folder, '?format=markdown');
    expect(markdown.markdown).toContain('Folder.');
    expect(markdown.pages[CHILDREN - 1].title).toBe(`Child ${CHILDREN - 1}`);
  });
});
