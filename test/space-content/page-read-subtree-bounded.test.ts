import { beforeAll, describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { expectedRead, flat, jsonTextOf, type ListedPage } from '../helpers/page-reads';

/**
 * A page read carries its child pages, each document page with its Markdown (GitBook's RevisionPage: `pages` of
 * RevisionPageDocument, whose `Document` part is its Markdown here, as in the page list). A group of hundreds of pages
 * (an imported repository's, issue 40) was read whole: every subpage's stored body in the page statement's one answer,
 * converted to Markdown all at once, the whole answer built before its first byte. Now the subpages' bodies are read in
 * batches of about 256 KiB as the answer is written (services/content/tree-markdown), and the answer is streamed
 * (large-group-reads.test.ts holds a large group's read to that). The bytes are those of before: the page as the page
 * list shows it (the same child pages, paths and Markdown), its own body last.
 */

describe('a page read of a page with child pages answers the bytes of before', () => {
  let org: TestOrg;
  let spaceId: string;
  let revisionId: string;
  let crNumber: number;

  beforeAll(async () => {
    org = await seedOrg();
    spaceId = (await createSpace(org.id, org.owner.token, 'Nested groups')).id;
    const cr = await openChangeRequest(spaceId, org.owner.token, 'Nested');
    // Two groups, each of document pages with document pages below them (a group holds no group), a page with a
    // subtree of its own, empty pages, and Markdown that JSON escapes (quotes, backslashes, non-ASCII, newlines).
    await applyChanges(spaceId, cr.number, org.owner.token, [
      { operation: 'insert_page', ref: 'intro', title: 'Intro', document: { markdown: 'Intro "quoted" \\ text é ✓.\n' } },
      { operation: 'insert_page', ref: 'introChild', into: 'intro', title: 'Intro child', document: { markdown: '- one\n- two\n' } },
      { operation: 'insert_page', ref: 'deep', into: 'introChild', title: 'Deep', document: { markdown: '## Deep\n\nDeepest.\n' } },
      { operation: 'insert_page', ref: 'guides', type: 'group', title: 'Guides' },
      { operation: 'insert_page', ref: 'a', into: 'guides', title: 'Guide A', document: { markdown: 'A with a [link](https://example.com).\n' } },
      { operation: 'insert_page', ref: 'a1', into: 'a', title: 'Guide A one', document: { markdown: 'A1.\n' } },
      { operation: 'insert_page', ref: 'a2', into: 'a', title: 'Guide A two', document: {} },
      { operation: 'insert_page', ref: 'b', into: 'guides', title: 'Guide B', document: { markdown: '> Quote.\n' } },
      { operation: 'insert_page', ref: 'api', type: 'group', title: 'Reference' },
      { operation: 'insert_page', ref: 'c', into: 'api', title: 'Call', document: { markdown: '```js\nconst x = "y";\n```\n' } },
      { operation: 'insert_page', ref: 'c1', into: 'c', title: 'Call detail', document: { markdown: 'Detail.\n' } },
      { operation: 'insert_page', title: 'Last', document: {} },
    ]);
    expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
    revisionId = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content`, { token: org.owner.token }), 200).body.id;
    crNumber = (await openChangeRequest(spaceId, org.owner.token, 'Open on the same content')).number;
  }, 120_000);

  it('by id and by path, of the space, of a revision and of a change request, in both formats', async () => {
    const token = org.owner.token;
    const contents = [
      { list: `/v1/spaces/${spaceId}/content/pages`, page: `/v1/spaces/${spaceId}/content/page`, path: `/v1/spaces/${spaceId}/content/path` },
      { list: `/v1/spaces/${spaceId}/revisions/${revisionId}/pages`, page: `/v1/spaces/${spaceId}/revisions/${revisionId}/page`, path: `/v1/spaces/${spaceId}/revisions/${revisionId}/path` },
      {
        list: `/v1/spaces/${spaceId}/change-requests/${crNumber}/content/pages`,
        page: `/v1/spaces/${spaceId}/change-requests/${crNumber}/content/page`,
        path: `/v1/spaces/${spaceId}/change-requests/${crNumber}/content/path`,
      },
    ];
    let withChildren = 0;
    for (const content of contents) {
      const listed = flat((JSON.parse(await jsonTextOf(content.list, token)) as { pages: ListedPage[] }).pages);
      expect(listed.length).toBe(12);
      for (const page of listed) {
        if (page.pages?.length) withChildren++;
        for (const query of ['', '?format=markdown', '?format=document', '?format=markdown&evaluated=true']) {
          for (const url of [`${content.page}/${page.id}${query}`, `${content.path}/${encodeURIComponent(page.path)}${query}`]) {
            const read = await jsonTextOf(url, token);
            expect(read, url).toBe(expectedRead(page, read));
          }
        }
      }
    }
    // Intro, Intro child, Guides, Guide A, Reference, Call: in each of the three contents.
    expect(withChildren).toBe(18);
  }, 240_000);
});
