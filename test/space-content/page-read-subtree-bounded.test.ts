import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { clearHeldPageRows } from '../../src/services/content/page-rows-cache';
import { pageResponseJson } from '../../src/services/content/reads';
import { applyChanges, createSpace, merge, openChangeRequest, uniqueText } from '../helpers/content';
import { answerSizesD1, incompressibleWords, readAllText } from '../helpers/d1-answer-sizes';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { fetchWorker } from '../helpers/worker';

/**
 * A page read carries its child pages, each document page with its Markdown (GitBook's RevisionPage: `pages` of
 * RevisionPageDocument, whose `Document` part is its Markdown here, as in the page list). A group of hundreds of pages
 * (an imported repository's, issue 40) was read whole: every subpage's stored body in the page statement's one answer,
 * converted to Markdown all at once, the whole answer built before its first byte. Now the subpages' bodies are read in
 * batches of about 256 KiB as the answer is written (services/content/tree-markdown), and the answer is streamed. The
 * bytes are those of before: the page as the page list shows it (the same child pages, paths and Markdown), its own
 * body last.
 */

const PAGES = 42;
/** Characters of Markdown per page, in words that do not compress: 42 pages store about 2.3 MB of documents, over two budgets. */
const PAGE_CHARS = 70_000;

interface ListedPage {
  id: string;
  title: string;
  type: string;
  path: string;
  documentId?: string;
  markdown?: string;
  pages?: ListedPage[];
}

const flat = (pages: ListedPage[]): ListedPage[] => pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);

async function text(path: string, token: string): Promise<string> {
  const res = await fetchWorker(`${BASE}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  const body = await res.text();
  expect(res.status, `${path}: ${body.slice(0, 300)}`).toBe(200);
  expect(res.headers.get('content-type'), path).toContain('application/json');
  return body;
}

/**
 * The text a page read answers, from the page list of the same content: the page as listed (its child pages with their
 * Markdown), without its own Markdown there, and the body the read answered (`markdown` or `document`) last.
 */
function expectedRead(listed: ListedPage, read: string): string {
  const { markdown: _listedMarkdown, ...page } = listed;
  const answered = JSON.parse(read) as Record<string, unknown>;
  const body = 'markdown' in answered ? { markdown: answered.markdown } : 'document' in answered ? { document: answered.document } : {};
  return JSON.stringify({ ...page, ...body });
}

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
      const listed = flat((JSON.parse(await text(content.list, token)) as { pages: ListedPage[] }).pages);
      expect(listed.length).toBe(12);
      for (const page of listed) {
        if (page.pages?.length) withChildren++;
        for (const query of ['', '?format=markdown', '?format=document', '?format=markdown&evaluated=true']) {
          for (const url of [`${content.page}/${page.id}${query}`, `${content.path}/${encodeURIComponent(page.path)}${query}`]) {
            const read = await text(url, token);
            expect(read, url).toBe(expectedRead(page, read));
          }
        }
      }
    }
    // Intro, Intro child, Guides, Guide A, Reference, Call: in each of the three contents.
    expect(withChildren).toBe(18);
  }, 240_000);
});

describe("a page read of a large group: its subpages' Markdown read as the answer is written", () => {
  let org: TestOrg;
  let spaceId: string;
  let groupId: string;
  let total = 0;

  beforeAll(async () => {
    org = await seedOrg();
    spaceId = (await createSpace(org.id, org.owner.token, 'A large group')).id;
    const cr = await openChangeRequest(spaceId, org.owner.token, 'Many long pages');
    const body = (i: number) => `${uniqueText(`Page ${i}`)}\n\n${Array.from({ length: 6 }, (_, n) => `Part ${n} of page ${i}: ${incompressibleWords(i * 10 + n + 1, PAGE_CHARS / 6)}`).join('\n\n')}\n`;
    // One group holding every page, some below others (an imported repository's shape), and a page after it.
    let group = 'group';
    for (let from = 0; from < PAGES; from += 6) {
      const changes: unknown[] = [];
      if (from === 0) changes.push({ operation: 'insert_page', ref: 'group', type: 'group', title: 'Plugins' });
      for (let i = from; i < from + 6; i++) {
        changes.push({ operation: 'insert_page', ref: `p${i}`, into: i % 6 === 4 ? `p${i - 1}` : group, title: `Page ${i}`, document: { markdown: body(i) } });
      }
      const result = await applyChanges(spaceId, cr.number, org.owner.token, changes);
      // Refs name pages within one batch: the next batches put their pages into the group by its id.
      if (from === 0) group = result.changes[0].page.id;
    }
    groupId = group;
    await applyChanges(spaceId, cr.number, org.owner.token, [{ operation: 'insert_page', title: 'After', document: { markdown: 'The last page.\n' } }]);
    expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
    const listed = flat((expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.owner.token }), 200).body as { pages: ListedPage[] }).pages);
    const documents = listed.filter((p) => p.documentId && p.title !== 'After').map((p) => p.documentId!);
    expect(documents.length).toBe(PAGES);
    // What D1 stores of the group's documents (compressed bodies): what a read of them all answers.
    total = (await env.DB.prepare(`select sum(length(body)) as n from documents where hash in (select value from json_each(?))`).bind(JSON.stringify(documents)).first<{ n: number }>())!.n;
    expect(total).toBeGreaterThan(2.1 * 1024 * 1024);
  }, 240_000);

  const request = (db: D1Database) => ({
    db: createDb(db),
    env: env as never,
    url: `${BASE}/v1/spaces/${spaceId}/content/page/${groupId}`,
    userId: org.owner.id,
    source: { spaceId },
  });

  it('no answer of D1 carries much more than a budget of Markdown, and the first subpages are written before the last are read', async () => {
    for (const format of ['markdown', 'document'] as const) {
      // A first read in this isolate: its page statement in full, not rows held by an earlier read (page-rows-cache).
      clearHeldPageRows();
      const { client, answers } = answerSizesD1(env.DB);
      const answer = await pageResponseJson(request(client), groupId, { format, evaluated: false, dereferenced: false });
      const beforeFirstChunk: number[] = [];
      const read = typeof answer === 'string' ? answer : await readAllText(answer, () => {
        if (beforeFirstChunk.length === 0) beforeFirstChunk.push(answers.reduce((n, a) => n + a, 0));
      });
      const group = JSON.parse(read) as ListedPage;
      expect(flat(group.pages!).filter((p) => (p.markdown?.length ?? 0) > PAGE_CHARS).length).toBe(PAGES);
      // Before: the page statement answered all 2.3 MB of the group's documents at once, before the answer's first byte.
      expect(Math.max(...answers), format).toBeLessThan(256 * 1024 + PAGE_CHARS + 64 * 1024);
      expect(beforeFirstChunk[0] ?? Infinity, format).toBeLessThan(total * 0.6);
      // Each document read once: the answers are about the documents, not twice them.
      expect(answers.reduce((n, a) => n + a, 0)).toBeLessThan(total + 128 * 1024);
      expect(answers.length).toBeGreaterThanOrEqual(8);
    }
  }, 120_000);

  it('answers the group as the page list shows it, through the route', async () => {
    const listed = flat((JSON.parse(await text(`/v1/spaces/${spaceId}/content/pages`, org.owner.token)) as { pages: ListedPage[] }).pages);
    for (const page of [listed.find((p) => p.id === groupId)!, listed.find((p) => p.pages?.length && p.type === 'document')!]) {
      for (const query of ['', '?format=markdown']) {
        const read = await text(`/v1/spaces/${spaceId}/content/page/${page.id}${query}`, org.owner.token);
        expect(read, page.title).toBe(expectedRead(page, read));
      }
    }
  }, 120_000);

  it('a page with a few small subpages costs no D1 statement more than a page without', async () => {
    const small = (await createSpace(org.id, org.owner.token, 'A small group')).id;
    const cr = await openChangeRequest(small, org.owner.token, 'Two pages');
    const result = await applyChanges(small, cr.number, org.owner.token, [
      { operation: 'insert_page', ref: 'group', type: 'group', title: 'Group' },
      { operation: 'insert_page', into: 'group', title: 'One', document: { markdown: 'One.\n' } },
      { operation: 'insert_page', into: 'group', title: 'Two', document: { markdown: 'Two.\n' } },
    ]);
    expectStatus(await merge(small, cr.number, org.owner.token), 200);
    const id = result.changes[0].page.id as string;
    for (const query of ['?format=markdown', '?format=document']) {
      clearHeldPageRows();
      const cold = await measureRoundTrips('GET', `/v1/spaces/${small}/content/page/${id}${query}`, org.owner.token);
      expect(cold.status).toBe(200);
      expect(((cold.body as ListedPage).pages ?? []).map((p) => p.markdown?.trim())).toEqual(['One.', 'Two.']);
      // The token, then the page statement (DESIGN.md: an authenticated read in at most 2).
      expect(cold.roundTrips).toBeLessThanOrEqual(2);
      const warm = await measureRoundTrips('GET', `/v1/spaces/${small}/content/page/${id}${query}`, org.owner.token);
      expect(warm.body).toEqual(cold.body);
      expect(warm.roundTrips).toBeLessThanOrEqual(2);
    }
  }, 120_000);
});
