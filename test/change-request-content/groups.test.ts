/**
 * Page groups (GitBook's RevisionPageGroup): inserted by a content batch with `type: 'group'`, read in GitBook's shape
 * on every read of pages (tree, page by id, page by path, change request and space), holding pages whose paths start
 * with the group's slug; refused with a 400 where GitBook has no group (under a page, with a body or description).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest, postChanges } from '../helpers/content';

let org: TestOrg;
let owner: string;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
});

const GROUPED = [
  { operation: 'insert_page', ref: 'intro', title: 'Welcome', document: { markdown: 'Hello.\n' } },
  { operation: 'insert_page', ref: 'guides', type: 'group', title: 'Guides', emoji: '1f4da' },
  { operation: 'insert_page', ref: 'install', into: 'guides', title: 'Install', document: { markdown: 'Run it.\n' } },
  { operation: 'insert_page', ref: 'deeper', into: 'install', title: 'Deeper', document: {} },
];

async function groupedSpace() {
  const space = await createSpace(org.id, owner);
  const cr = await openChangeRequest(space.id, owner, 'Groups');
  const applied = await applyChanges(space.id, cr.number, owner, GROUPED);
  const idOf = Object.fromEntries(applied.changes.filter((c: any) => c.ref).map((c: any) => [c.ref, c.page.id]));
  return { spaceId: space.id, cr, idOf };
}

describe('a group in the page tree', () => {
  it('reads as GitBook writes a group, its slug in its pages paths, on every read of pages', async () => {
    const { spaceId, cr, idOf } = await groupedSpace();
    for (const base of [`/v1/spaces/${spaceId}/change-requests/${cr.number}/content`, `/v1/spaces/${spaceId}/content`]) {
      if (base.endsWith('/v1/spaces/' + spaceId + '/content')) expectStatus(await merge(spaceId, cr.number, owner), 200);
      const pages = expectStatus(await api('GET', `${base}/pages`, { token: owner }), 200).body.pages;
      expect(pages.map((p: any) => [p.type, p.path])).toEqual([
        ['document', 'welcome'],
        ['group', 'guides'],
      ]);
      const group = pages[1];
      expect(group).toMatchObject({ id: idOf.guides, title: 'Guides', kind: 'group', type: 'group', emoji: '1f4da', slug: 'guides', path: 'guides', hidden: false, noIndex: false, noRobotsIndex: false });
      // No document, URL of its own, layout or body: GitBook's group has none.
      for (const key of ['documentId', 'markdown', 'layout', 'urls', 'description', 'document']) expect(group).not.toHaveProperty(key);
      expect(group.pages.map((p: any) => [p.type, p.path])).toEqual([['document', 'guides/install']]);
      expect(group.pages[0].pages[0].path).toBe('guides/install/deeper');

      const byId = expectStatus(await api('GET', `${base}/page/${idOf.guides}`, { token: owner }), 200).body;
      expect(byId).toMatchObject({ type: 'group', path: 'guides', pages: [{ id: idOf.install }] });
      expect(byId).not.toHaveProperty('document');
      expect(expectStatus(await api('GET', `${base}/page/${idOf.guides}?format=markdown`, { token: owner }), 200).body).not.toHaveProperty('markdown');
      if (!base.includes('/change-requests/')) {
        // By path (the space's content has that read): the group by its slug, its pages under it.
        expect(expectStatus(await api('GET', `${base}/path/guides`, { token: owner }), 200).body).toMatchObject({ id: idOf.guides, type: 'group' });
        expect(expectStatus(await api('GET', `${base}/path/guides/install`, { token: owner }), 200).body).toMatchObject({ id: idOf.install, type: 'document' });
      }

      const revision = expectStatus(await api('GET', base, { token: owner }), 200).body;
      expect(revision.pages[1]).toMatchObject({ type: 'group', path: 'guides' });
    }
  });

  it('takes moves of pages into and out of a group, and moves of the group along the top level', async () => {
    const { spaceId, cr, idOf } = await groupedSpace();
    await applyChanges(spaceId, cr.number, owner, [
      { operation: 'update_page', page: idOf.intro, into: idOf.guides, at: 0 },
      { operation: 'update_page', page: idOf.guides, into: null, at: 0 },
      { operation: 'update_page', page: idOf.guides, title: 'Handbook', slug: 'handbook', emoji: '' },
    ]);
    const pages = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/pages`, { token: owner }), 200).body.pages;
    expect(pages).toHaveLength(1);
    expect(pages[0]).toMatchObject({ type: 'group', title: 'Handbook', slug: 'handbook' });
    expect(pages[0]).not.toHaveProperty('emoji');
    expect(pages[0].pages.map((p: any) => p.path)).toEqual(['handbook/welcome', 'handbook/install']);
    // Deleting a group deletes its pages, as deleting any page deletes its subtree.
    const deleted = await applyChanges(spaceId, cr.number, owner, [{ operation: 'delete_page', page: idOf.guides }]);
    expect(deleted.changes.map((c: any) => c.object)).toEqual(['deleted_page', 'deleted_page', 'deleted_page', 'deleted_page']);
    expect(expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/pages`, { token: owner }), 200).body.pages).toEqual([]);
  });

  it('refuses a group where GitBook has none, with a 400 naming the change', async () => {
    const { spaceId, cr, idOf } = await groupedSpace();
    const refused: Array<[unknown, string]> = [
      [{ operation: 'insert_page', type: 'group', title: 'Nested', into: idOf.intro }, 'top level'],
      [{ operation: 'insert_page', type: 'group', title: 'In a group', into: idOf.guides }, 'top level'],
      [{ operation: 'insert_page', type: 'group', title: 'Body', document: { markdown: 'Text.\n' } }, 'no document'],
      [{ operation: 'insert_page', type: 'group', title: 'Described', description: 'About' }, 'no description'],
      [{ operation: 'insert_page', type: 'group', title: 'Computed', computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'petstore' } } }, props: { models: false } } }, 'cannot be computed'],
      [{ operation: 'update_page', page: idOf.guides, into: idOf.intro }, 'top level'],
      [{ operation: 'update_page', page: idOf.guides, document: { markdown: 'Text.\n' } }, 'no document'],
      [{ operation: 'update_page', page: idOf.guides, description: 'About' }, 'no description'],
      [{ operation: 'insert_page', type: 'chapter', title: 'Unknown' }, 'type'],
    ];
    for (const [change, message] of refused) {
      const message400 = expectError(await postChanges(spaceId, cr.number, owner, [change]), 400, message);
      expect(message400).toContain('changes');
    }
    // Nothing of the refused batches was written.
    const pages = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/pages`, { token: owner }), 200).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Welcome', 'Guides']);
  });

  it('lets no one without the right write a group: a reader is refused, another organization sees nothing', async () => {
    const { spaceId, cr } = await groupedSpace();
    const change = [{ operation: 'insert_page', type: 'group', title: 'Intruders' }];
    expectError(await postChanges(spaceId, cr.number, org.members.read.token, change), 403);
    expectError(await postChanges(spaceId, cr.number, org.outsider.token, change), 404);
    const pages = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/pages`, { token: owner }), 200).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Welcome', 'Guides']);
  });
});
