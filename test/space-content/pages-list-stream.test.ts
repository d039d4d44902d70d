import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { fetchWorker } from '../helpers/worker';
import { pagesJsonStream } from '../../src/services/content/pages-json';
import { toRevisionPage } from '../../src/services/content/presenter';
import type { ReadPage } from '../../src/services/content/revisions';

/**
 * listPages (and its change-request and revision twins) answer their JSON streamed a page at a time, at every level
 * (services/content/pages-json), so a 5,000-page list is never held whole as API objects and text at once: the bytes are
 * those of the same revision's `pages` as its revision read answers them (GitBook's Revision holds the same page objects),
 * made whole (nested pages, an empty space), and the body arrives in several chunks.
 */

async function body(path: string, token: string) {
  const res = await fetchWorker(`${BASE}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let chunks = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks++;
    text += decoder.decode(read.value, { stream: true });
  }
  return { text: text + decoder.decode(), chunks };
}

/** `{"pages":[…]}` of the revision `revisionPath` reads (`…/content`, a change request's `…/content`, `…/revisions/:id`), made whole. */
async function expected(revisionPath: string, token: string) {
  const revision = expectStatus(await api('GET', revisionPath, { token }), 200).body;
  return JSON.stringify({ pages: revision.pages });
}

describe('the page list, streamed', () => {
  let org: TestOrg;
  let spaceId: string;
  let cr: number;
  beforeAll(async () => {
    org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Streamed list');
    spaceId = space.id;
    const first = await openChangeRequest(spaceId, org.owner.token, 'Pages');
    await applyChanges(spaceId, first.number, org.owner.token, [
      { operation: 'insert_page', ref: 'parent', title: 'Parent "quoted" ü', document: { markdown: 'Parent **text**.\n' } },
      { operation: 'insert_page', ref: 'child', into: 'parent', title: 'Child', document: { markdown: 'Child text.\n' } },
      { operation: 'insert_page', into: 'child', title: 'Grandchild', document: {} },
      { operation: 'insert_page', title: 'Sibling', document: { markdown: 'Sibling text.\n\n## Part\n' } },
      { operation: 'insert_page', title: 'Third', document: { markdown: 'Third.\n' } },
    ]);
    expectStatus(await merge(spaceId, first.number, org.owner.token), 200);
    cr = (await openChangeRequest(spaceId, org.owner.token, 'Later')).number;
  });

  it("answers the bytes the whole response made, a top-level page at a time", async () => {
    const listed = await body(`/v1/spaces/${spaceId}/content/pages`, org.owner.token);
    expect(listed.text).toBe(await expected(`/v1/spaces/${spaceId}/content`, org.owner.token));
    expect(JSON.parse(listed.text).pages.length).toBe(3);
    expect(listed.chunks).toBeGreaterThanOrEqual(JSON.parse(listed.text).pages.length);
  });

  it("a change request's and a revision's list too", async () => {
    const inRequest = await body(`/v1/spaces/${spaceId}/change-requests/${cr}/content/pages`, org.owner.token);
    expect(inRequest.chunks).toBeGreaterThan(1);
    const titles = (text: string) => (JSON.parse(text).pages as Array<{ title: string }>).map((p) => p.title);
    expect(titles(inRequest.text)).toEqual(['Parent "quoted" ü', 'Sibling', 'Third']);
    expect(inRequest.text).toBe(await expected(`/v1/spaces/${spaceId}/change-requests/${cr}/content`, org.owner.token));
    const revision = (await env.DB.prepare('select revision_id as id from spaces where id = ?').bind(spaceId).first<{ id: string }>())!.id;
    const atRevision = await body(`/v1/spaces/${spaceId}/revisions/${revision}/pages`, org.owner.token);
    expect(atRevision.chunks).toBeGreaterThan(1);
    expect(atRevision.text).toBe(await expected(`/v1/spaces/${spaceId}/revisions/${revision}`, org.owner.token));
  });

  it('an empty space lists no page, in the same bytes', async () => {
    const empty = await createSpace(org.id, org.owner.token, 'Empty list');
    const listed = await body(`/v1/spaces/${empty.id}/content/pages`, org.owner.token);
    expect(listed.text).toBe(await expected(`/v1/spaces/${empty.id}/content`, org.owner.token));
  });

  it('another organization reads none of it (404), streamed or not', async () => {
    const other = await seedOrg();
    const res = await fetchWorker(`${BASE}/v1/spaces/${spaceId}/content/pages`, { headers: { Authorization: `Bearer ${other.owner.token}` } });
    expect([403, 404]).toContain(res.status);
    const parsed = JSON.parse(await res.text());
    expect(parsed.error.code).toBe(res.status);
  });
});

describe('the page list stream, page by page at every level', () => {
  const page = (id: string, type: 'document' | 'group', pages: ReadPage[] = []): ReadPage =>
    ({ id, type, title: `Title "${id}" ü`, slug: `slug-${id}`, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z', ...(type === 'document' ? { document: `doc-${id}` } : {}), pages }) as unknown as ReadPage;
  // Each document page's Markdown, as the list carries it (reads' markdownOf): 4 KB, distinct per page.
  const markdownOf = (p: ReadPage) => (p.document ? `# ${p.id}\n\n${`Words of ${p.id}. `.repeat(4096 / (12 + p.id.length))}\n` : undefined);
  const urls = { app: 'https://app.example/o/x/s/y' };

  async function chunksOf(pages: ReadPage[]) {
    const reader = pagesJsonStream(pages, urls, markdownOf).getReader();
    const decoder = new TextDecoder();
    const sizes: number[] = [];
    let text = '';
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      sizes.push(read.value.byteLength);
      text += decoder.decode(read.value, { stream: true });
    }
    return { text: text + decoder.decode(), sizes };
  }

  it('a top-level group holding most pages (as a GitBook space made of one large section): the same bytes, never that group whole in one chunk', async () => {
    // Convai-Documentation's shape: one group holding 632 of 717 pages, some nested three deep (synthetic here).
    const section = page('section', 'group', Array.from({ length: 60 }, (_, i) => page(`p${i}`, 'document', i % 10 === 0 ? [page(`p${i}-a`, 'document', [page(`p${i}-a-x`, 'document')]), page(`p${i}-b`, 'document')] : [])));
    const pages = [page('intro', 'document'), section, page('outro', 'document', [page('outro-child', 'document')])];
    const { text, sizes } = await chunksOf(pages);
    expect(text).toBe(JSON.stringify({ pages: pages.map((p) => toRevisionPage(p, urls, '', markdownOf)) }));
    const onePage = Math.max(...[...pages, ...section.pages].map((p) => new TextEncoder().encode(JSON.stringify(toRevisionPage({ ...p, pages: [] }, urls, '', markdownOf))).byteLength));
    // What the stream holds at once is about one page's JSON (its Markdown), not a subtree's: the group's 78 pages'
    // Markdown (some 310 KB) came as one chunk when the list was cut a top-level page at a time.
    const count = (list: ReadPage[]): number => list.reduce((n, p) => n + 1 + count(p.pages), 0);
    expect(count(pages)).toBe(82);
    expect(Math.max(...sizes)).toBeLessThan(onePage + 1024);
    expect(sizes.length).toBeGreaterThanOrEqual(count(pages));
    expect(JSON.parse(text).pages[1].pages[10].pages[0].pages[0].path).toBe('slug-section/slug-p10/slug-p10-a/slug-p10-a-x');
  });

  it('titles that spell JSON, a page without children, and an empty list: the same bytes as made whole', async () => {
    const tricky = page('t', 'document', [page('u', 'document')]);
    (tricky as { title: string }).title = '"pages":[] \u0000 ]}';
    for (const pages of [[], [page('solo', 'document')], [tricky, page('g', 'group', [page('v', 'document')])]]) {
      const { text } = await chunksOf(pages);
      expect(text).toBe(JSON.stringify({ pages: pages.map((p) => toRevisionPage(p, urls, '', markdownOf)) }));
    }
  });
});
