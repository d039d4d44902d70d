import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, seedOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { largeManifest, pageId, seedContent, storedBytes } from '../helpers/large-content';
import { measureRoundTrips } from '../helpers/round-trips';

/**
 * Large spaces through the API: a read of one page, a content batch and a merge cost what they
 * touch, not the size of the space (the benchmark, `npm run bench`, measures the same at 20,000 pages).
 */
describe('content of large spaces', () => {
  async function largeSpace(sections: number, perSection: number) {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Large');
    await seedContent(space.id, largeManifest(sections, perSection));
    await api('GET', '/v1/user', { token }); // the token's hourly last-used stamp, out of the way
    return { org, token, space };
  }

  it('reads one page of a 3,030-page space with its path in at most 2 round trips, and the whole tree', async () => {
    const { token, space } = await largeSpace(30, 100);
    const id = pageId('p-7-42');
    const read = await measureRoundTrips('GET', `/v1/spaces/${space.id}/content/page/${id}?format=markdown`, token);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.roundTrips).toBeLessThanOrEqual(2);
    expect(read.body).toMatchObject({ id, title: 'Page 7-42', path: 'section-7/page-7-42', pages: [] });
    const section = await api('GET', `/v1/spaces/${space.id}/content/page/${pageId('s-7')}`, { token });
    expect(section.body.pages.map((p: any) => p.path).slice(0, 2)).toEqual(['section-7/page-7-0', 'section-7/page-7-1']);
    expect(section.body.pages).toHaveLength(100);
    const tree = await api('GET', `/v1/spaces/${space.id}/content/pages`, { token });
    expect(tree.body.pages).toHaveLength(30);
    expect(tree.body.pages[29].pages[99].path).toBe('section-29/page-29-99');
  });

  it('merges a one-page change into a 3,030-page space storing what changed, not the space', async () => {
    const { token, space } = await largeSpace(30, 100);
    const id = pageId('p-12-3');
    const before = await storedBytes();
    const cr = await openChangeRequest(space.id, token);
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: id, document: { markdown: 'Edited body' } }]);
    const afterBatch = await storedBytes();
    const main = await openChangeRequest(space.id, token, 'Main moves first');
    await applyChanges(space.id, main.number, token, [{ operation: 'update_page', page: pageId('p-20-1'), title: 'Renamed on main' }]);
    expect((await merge(space.id, main.number, token)).status).toBe(200);
    const beforeMerge = await storedBytes();
    const merged = await merge(space.id, cr.number, token); // a three-way merge: main moved since the base
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    const afterMerge = await storedBytes();
    // The whole tree is ~700 KB of nodes; a batch or a merge of one page adds a few KB.
    expect(afterBatch - before).toBeLessThan(30_000);
    expect(afterMerge - beforeMerge).toBeLessThan(30_000);
    const page = await api('GET', `/v1/spaces/${space.id}/content/page/${id}?format=markdown`, { token });
    expect(page.body.markdown).toContain('Edited body');
    const other = await api('GET', `/v1/spaces/${space.id}/content/page/${pageId('p-20-1')}`, { token });
    expect(other.body.title).toBe('Renamed on main');
    const revision = await env.DB.prepare('select page_count, type from revisions where id = (select revision_id from spaces where id = ?)').bind(space.id).first();
    expect(revision).toEqual({ page_count: 3030, type: 'merge' });
  });

  it('inserts into, moves within and deletes from a top-level list of 2,000 pages (a chunked list)', async () => {
    const { token, space } = await largeSpace(0, 2000);
    const cr = await openChangeRequest(space.id, token);
    const before = await storedBytes();
    const result = await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', at: 1000, title: 'Inserted', document: { markdown: 'New' } },
      { operation: 'update_page', page: pageId('p-0-1999'), at: 0 },
      { operation: 'delete_page', page: pageId('p-0-5') },
    ]);
    expect(await storedBytes()).toBeLessThan(before + 40_000);
    const inserted = result.changes[0].page.id;
    expect((await merge(space.id, cr.number, token)).status).toBe(200);
    const pages = (await api('GET', `/v1/spaces/${space.id}/content/pages`, { token })).body.pages;
    expect(pages).toHaveLength(2000);
    expect(pages[0].id).toBe(pageId('p-0-1999'));
    expect(pages.findIndex((p: any) => p.id === inserted)).toBe(1000);
    expect(pages.some((p: any) => p.id === pageId('p-0-5'))).toBe(false);
    // A slug among 2,000 siblings stays unique.
    const again = await openChangeRequest(space.id, token);
    const dup = await applyChanges(space.id, again.number, token, [{ operation: 'insert_page', title: 'Page 0-7', document: {} }]);
    const read = await api('GET', `/v1/spaces/${space.id}/change-requests/${again.number}/content/page/${dup.changes[0].page.id}`, { token });
    expect(read.body.slug).toBe('page-0-7-1');
  });

  it('answers ids that cannot be ours (quotes, JSON path syntax, the root key) with 404 or 400, never 500', async () => {
    const { token, space } = await largeSpace(2, 5);
    const cr = await openChangeRequest(space.id, token);
    for (const id of ['~', 'a"b', "a'b", '$.x', 'a\\b', '%22', 'é', 'x'.repeat(128)]) {
      const encoded = encodeURIComponent(id);
      for (const path of [`/v1/spaces/${space.id}/content/page/${encoded}`, `/v1/spaces/${space.id}/content/files/${encoded}`]) {
        const res = await api('GET', path, { token });
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(404);
      }
      const batch = await api('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/content`, {
        token,
        body: { changes: [{ operation: 'update_page', page: id, title: 'x' }] },
      });
      expect(batch.status, JSON.stringify(batch.body)).toBe(400);
      const into = await api('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/content`, {
        token,
        body: { changes: [{ operation: 'insert_page', into: id, title: 'x', document: { markdown: `[link](/pages/${id})` } }] },
      });
      expect(into.status, JSON.stringify(into.body)).toBe(400);
    }
  });
});
