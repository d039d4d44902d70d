import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { pagesResponseStream, revisionResponseStream } from '../../src/services/content/reads';
import { documentToMarkdown } from '../../src/services/markdown/to-markdown';
import type { JSONDocument } from '../../src/services/markdown/document';
import { answerSizesD1, incompressibleWords, readAllText } from '../helpers/d1-answer-sizes';
import { applyChanges, createSpace, merge, openChangeRequest, uniqueText } from '../helpers/content';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { fetchWorker } from '../helpers/worker';

/**
 * A large space's page list (and its revision read) holds a bounded amount of Markdown, whatever the space's size
 * (issue 40: Convai-Documentation's list, 717 pages, went over a 48 MB heap its import stayed under): the tree
 * statement answers the stored bodies of its documents within 256 KiB, and the rest is read as the list is written
 * (services/content/tree-markdown), a batch of about 256 KiB at a time, each document once. The bytes are those of every
 * page's Markdown as stored (and, for a document stored without Markdown, converted), as before.
 */

const PAGES = 42;
/** Characters of Markdown per page, in words that do not compress: 42 pages store about 2.3 MB of documents, over two budgets. */
const PAGE_CHARS = 70_000;

describe("a large space's page list, its Markdown read as it is written", () => {
  let org: TestOrg;
  let spaceId: string;
  /** Every document's Markdown (its document written as Markdown), by hash: what the list must carry. */
  const stored = new Map<string, string>();
  let total = 0;
  beforeAll(async () => {
    org = await seedOrg();
    spaceId = (await createSpace(org.id, org.owner.token, 'A large list')).id;
    const cr = await openChangeRequest(spaceId, org.owner.token, 'Many long pages');
    // Long paragraphs: what the list carries is their size; their parsing, done once here, is kept short.
    const body = (i: number) => `${uniqueText(`Page ${i}`)}\n\n${Array.from({ length: 6 }, (_, n) => `Part ${n} of page ${i}: ${incompressibleWords(i * 10 + n + 1, PAGE_CHARS / 6)}`).join('\n\n')}\n`;
    // A group holding most pages, some nested (Convai's shape), an empty page, a page after the group.
    let group = 'group';
    for (let from = 0; from < PAGES; from += 6) {
      const changes: unknown[] = [];
      if (from === 0) changes.push({ operation: 'insert_page', ref: 'group', type: 'group', title: 'Plugins' });
      for (let i = from; i < from + 6; i++) {
        changes.push({ operation: 'insert_page', ref: `p${i}`, into: i % 6 === 4 ? `p${i - 1}` : group, title: `Page ${i}`, document: { markdown: body(i) } });
      }
      if (from === 0) changes.push({ operation: 'insert_page', title: 'Empty', document: {} });
      await applyChanges(spaceId, cr.number, org.owner.token, changes);
      // Refs name pages within one batch: the next batches put their pages into the group by its id.
      const inRequest = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/pages`, { token: org.owner.token }), 200).body as { pages: ListedPage[] };
      group = inRequest.pages.find((p) => p.title === 'Plugins')!.id;
    }
    await applyChanges(spaceId, cr.number, org.owner.token, [{ operation: 'insert_page', title: 'After', document: { markdown: 'The last page.\n' } }]);
    expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
    const listed = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.owner.token }), 200).body as { pages: ListedPage[] };
    const documents = flat(listed.pages).filter((p) => p.documentId);
    expect(documents.length).toBe(PAGES + 1);
    const converted = async (page: ListedPage) => {
      const read = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${page.id}?format=document`, { token: org.owner.token }), 200).body as { document: JSONDocument };
      return documentToMarkdown(read.document);
    };
    // Documents are stored as their JSON only (migration 0051): each page's Markdown is its document written as Markdown.
    for (const page of documents) stored.set(page.documentId!, await converted(page));
    // What D1 stores of them (compressed bodies): what a read of them all answers.
    const hashes = [...stored.keys()];
    total = (await env.DB.prepare(`select sum(length(body)) as n from documents where hash in (select value from json_each(?))`).bind(JSON.stringify(hashes)).first<{ n: number }>())!.n;
    expect(total).toBeGreaterThan(2.1 * 1024 * 1024);
  }, 240_000);

  const request = (db: D1Database, path = `/v1/spaces/${spaceId}/content/pages`) => ({
    db: createDb(db),
    env: env as never,
    url: `${BASE}${path}`,
    userId: org.owner.id,
    source: { spaceId },
  });

  it('carries every page its Markdown, in the bytes of the revision read', async () => {
    const res = await fetchWorker(`${BASE}/v1/spaces/${spaceId}/content/pages`, { headers: { Authorization: `Bearer ${org.owner.token}` } });
    expect(res.status).toBe(200);
    const text = await readAllText(res.body!);
    const pages = flat((JSON.parse(text) as { pages: ListedPage[] }).pages);
    expect(pages.length).toBe(PAGES + 3);
    expect(pages.filter((p) => p.markdown && p.markdown.length > PAGE_CHARS).length).toBe(PAGES);
    for (const page of pages) {
      if (page.type === 'group') continue;
      expect(page.markdown, page.title).toBe(page.documentId ? stored.get(page.documentId) : '');
    }
    const revision = await fetchWorker(`${BASE}/v1/spaces/${spaceId}/content`, { headers: { Authorization: `Bearer ${org.owner.token}` } });
    expect(revision.headers.get('content-type')).toContain('application/json');
    const revisionText = await readAllText(revision.body!);
    expect(JSON.stringify({ pages: JSON.parse(revisionText).pages })).toBe(text);
    // The revision's other fields as before: its files, reusable contents, urls after the pages.
    expect(Object.keys(JSON.parse(revisionText))).toEqual(['object', 'id', 'parents', 'pages', 'files', 'tags', 'reusableContents', 'variables', 'createdAt', 'urls', 'type', 'mergedFrom']);
  }, 60_000);

  it('no answer of D1 carries much more than a budget of Markdown, and the first pages are written before the last are read', async () => {
    for (const stream of [pagesResponseStream, revisionResponseStream]) {
      const { client, answers } = answerSizesD1(env.DB);
      const list = await stream(request(client));
      const beforeFirstChunk: number[] = [];
      const text = await readAllText(list, () => {
        if (beforeFirstChunk.length === 0) beforeFirstChunk.push(answers.reduce((n, a) => n + a, 0));
      });
      expect(JSON.parse(text).pages.length).toBe(3);
      // Before: the tree statement answered all 2.2 MB of Markdown at once, before the list's first byte.
      expect(Math.max(...answers)).toBeLessThan(256 * 1024 + PAGE_CHARS + 64 * 1024);
      expect(beforeFirstChunk[0]).toBeLessThan(total * 0.6);
      // Each document read once: the answers are about the Markdown, not twice it.
      expect(answers.reduce((n, a) => n + a, 0)).toBeLessThan(total + 128 * 1024);
      expect(answers.length).toBeGreaterThanOrEqual(8);
    }
  }, 60_000);

  it("a small space's list reads its Markdown with its tree: no statement more", async () => {
    const small = (await createSpace(org.id, org.owner.token, 'A small list')).id;
    const cr = await openChangeRequest(small, org.owner.token, 'Two pages');
    await applyChanges(small, cr.number, org.owner.token, [
      { operation: 'insert_page', title: 'One', document: { markdown: 'One.\n' } },
      { operation: 'insert_page', title: 'Two', document: { markdown: 'Two.\n' } },
    ]);
    expectStatus(await merge(small, cr.number, org.owner.token), 200);
    const { client, answers } = answerSizesD1(env.DB);
    const text = await readAllText(await pagesResponseStream({ ...request(client), source: { spaceId: small } }));
    expect((JSON.parse(text).pages as ListedPage[]).map((p) => p.markdown?.trim())).toEqual(['One.', 'Two.']);
    expect(answers.length).toBe(1);
  });
});

interface ListedPage {
  id: string;
  title: string;
  type: string;
  documentId?: string;
  markdown?: string;
  pages?: ListedPage[];
}

const flat = (pages: ListedPage[]): ListedPage[] => pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);
