import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { createDb } from '../../src/db/client';
import { clearHeldPageRows } from '../../src/services/content/page-rows-cache';
import { pageResponseJson, pagesResponseStream, revisionResponseStream } from '../../src/services/content/reads';
import { documentToMarkdown } from '../../src/services/markdown/to-markdown';
import type { JSONDocument } from '../../src/services/markdown/document';
import { applyChanges, createSpace, merge, openChangeRequest, uniqueText } from '../helpers/content';
import { answerSizesD1, incompressibleWords, readAllText } from '../helpers/d1-answer-sizes';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { expectedRead, flat, jsonTextOf, type ListedPage } from '../helpers/page-reads';
import { fetchWorker } from '../helpers/worker';

/**
 * Reads of a large group (issue 40: an imported repository's group of hundreds of pages; Convai-Documentation's list,
 * 717 pages, went over a 48 MB heap its import stayed under) hold a bounded amount of Markdown, whatever the group's
 * size: the statement that reads the tree or the page answers the stored bodies of its documents within 256 KiB, and
 * the rest is read as the answer is written (services/content/tree-markdown), a batch of about 256 KiB at a time, each
 * document once, the answer streamed. The bytes are those of every page's Markdown as stored (and, for a document
 * stored without Markdown, converted), as before. Three reads of one space, seeded once for all (it is most of this
 * file's time): the page list (and the revision), a page read of the group, and getContentByUrl of the group's URL.
 */

const PAGES = 42;
/** Characters of Markdown per page, in words that do not compress: 42 pages store about 2.3 MB of documents, over two budgets. */
const PAGE_CHARS = 70_000;

let org: TestOrg;
let spaceId: string;
let groupId: string;
/** What D1 stores of every document of the space (compressed bodies): what a read of them all answers. */
let total = 0;
/** The same of the group's documents alone. */
let groupTotal = 0;

/** The bytes D1 stores of these documents. */
async function storedBytes(hashes: string[]): Promise<number> {
  return (await env.DB.prepare(`select sum(length(body)) as n from documents where hash in (select value from json_each(?))`).bind(JSON.stringify(hashes)).first<{ n: number }>())!.n;
}

beforeAll(async () => {
  org = await seedOrg();
  spaceId = (await createSpace(org.id, org.owner.token, 'A large group')).id;
  const cr = await openChangeRequest(spaceId, org.owner.token, 'Many long pages');
  // Long paragraphs: what the reads carry is their size; their parsing, done once here, is kept short.
  const body = (i: number) => `${uniqueText(`Page ${i}`)}\n\n${Array.from({ length: 6 }, (_, n) => `Part ${n} of page ${i}: ${incompressibleWords(i * 10 + n + 1, PAGE_CHARS / 6)}`).join('\n\n')}\n`;
  // One group holding every page, some below others (an imported repository's shape, Convai's), an empty page, and a
  // page after the group.
  let group = 'group';
  for (let from = 0; from < PAGES; from += 6) {
    const changes: unknown[] = [];
    if (from === 0) changes.push({ operation: 'insert_page', ref: 'group', type: 'group', title: 'Plugins' });
    for (let i = from; i < from + 6; i++) {
      changes.push({ operation: 'insert_page', ref: `p${i}`, into: i % 6 === 4 ? `p${i - 1}` : group, title: `Page ${i}`, document: { markdown: body(i) } });
    }
    if (from === 0) changes.push({ operation: 'insert_page', title: 'Empty', document: {} });
    const result = await applyChanges(spaceId, cr.number, org.owner.token, changes);
    // Refs name pages within one batch: the next batches put their pages into the group by its id.
    if (from === 0) group = result.changes[0].page.id;
  }
  groupId = group;
  await applyChanges(spaceId, cr.number, org.owner.token, [{ operation: 'insert_page', title: 'After', document: { markdown: 'The last page.\n' } }]);
  expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
  const listed = flat((expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.owner.token }), 200).body as { pages: ListedPage[] }).pages);
  const documents = listed.filter((p) => p.documentId);
  expect(documents.length).toBe(PAGES + 1);
  const groupDocuments = documents.filter((p) => p.title !== 'After');
  expect(groupDocuments.length).toBe(PAGES);
  total = await storedBytes(documents.map((p) => p.documentId!));
  groupTotal = await storedBytes(groupDocuments.map((p) => p.documentId!));
  expect(total).toBeGreaterThan(2.1 * 1024 * 1024);
  expect(groupTotal).toBeGreaterThan(2.1 * 1024 * 1024);
}, 240_000);

const request = (db: D1Database, path = `/v1/spaces/${spaceId}/content/pages`) => ({
  db: createDb(db),
  env: env as never,
  url: `${BASE}${path}`,
  userId: org.owner.id,
  source: { spaceId },
});

/** A small group (two short pages) in a space of its own: its id and the space's. */
async function smallGroup(title: string): Promise<{ space: string; group: string }> {
  const space = (await createSpace(org.id, org.owner.token, title)).id;
  const cr = await openChangeRequest(space, org.owner.token, 'Two pages');
  const result = await applyChanges(space, cr.number, org.owner.token, [
    { operation: 'insert_page', ref: 'group', type: 'group', title: 'Group' },
    { operation: 'insert_page', into: 'group', title: 'One', document: { markdown: 'One.\n' } },
    { operation: 'insert_page', into: 'group', title: 'Two', document: { markdown: 'Two.\n' } },
  ]);
  expectStatus(await merge(space, cr.number, org.owner.token), 200);
  return { space, group: result.changes[0].page.id as string };
}

describe("a large space's page list, its Markdown read as it is written", () => {
  /** Every document's Markdown (its document written as Markdown), by hash: what the list must carry. */
  const stored = new Map<string, string>();
  beforeAll(async () => {
    const listed = flat((expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.owner.token }), 200).body as { pages: ListedPage[] }).pages);
    const converted = async (page: ListedPage) => {
      const read = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${page.id}?format=document`, { token: org.owner.token }), 200).body as { document: JSONDocument };
      return documentToMarkdown(read.document);
    };
    // Documents are stored as their JSON only (migration 0051): each page's Markdown is its document written as Markdown.
    for (const page of listed.filter((p) => p.documentId)) stored.set(page.documentId!, await converted(page));
  }, 120_000);

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

describe("a page read of a large group: its subpages' Markdown read as the answer is written", () => {
  it('no answer of D1 carries much more than a budget of Markdown, and the first subpages are written before the last are read', async () => {
    for (const format of ['markdown', 'document'] as const) {
      // A first read in this isolate: its page statement in full, not rows held by an earlier read (page-rows-cache).
      clearHeldPageRows();
      const { client, answers } = answerSizesD1(env.DB);
      const answer = await pageResponseJson(request(client, `/v1/spaces/${spaceId}/content/page/${groupId}`), groupId, { format, evaluated: false, dereferenced: false });
      const beforeFirstChunk: number[] = [];
      const read = typeof answer === 'string' ? answer : await readAllText(answer, () => {
        if (beforeFirstChunk.length === 0) beforeFirstChunk.push(answers.reduce((n, a) => n + a, 0));
      });
      const group = JSON.parse(read) as ListedPage;
      expect(flat(group.pages!).filter((p) => (p.markdown?.length ?? 0) > PAGE_CHARS).length).toBe(PAGES);
      // Before: the page statement answered all 2.3 MB of the group's documents at once, before the answer's first byte.
      expect(Math.max(...answers), format).toBeLessThan(256 * 1024 + PAGE_CHARS + 64 * 1024);
      expect(beforeFirstChunk[0] ?? Infinity, format).toBeLessThan(groupTotal * 0.6);
      // Each document read once: the answers are about the documents, not twice them.
      expect(answers.reduce((n, a) => n + a, 0)).toBeLessThan(groupTotal + 128 * 1024);
      expect(answers.length).toBeGreaterThanOrEqual(8);
    }
  }, 120_000);

  it('answers the group as the page list shows it, through the route', async () => {
    const listed = flat((JSON.parse(await jsonTextOf(`/v1/spaces/${spaceId}/content/pages`, org.owner.token)) as { pages: ListedPage[] }).pages);
    for (const page of [listed.find((p) => p.id === groupId)!, listed.find((p) => p.pages?.length && p.type === 'document')!]) {
      for (const query of ['', '?format=markdown']) {
        const read = await jsonTextOf(`/v1/spaces/${spaceId}/content/page/${page.id}${query}`, org.owner.token);
        expect(read, page.title).toBe(expectedRead(page, read));
      }
    }
  }, 120_000);

  it('a page with a few small subpages costs no D1 statement more than a page without', async () => {
    const { space, group } = await smallGroup('A small group');
    for (const query of ['?format=markdown', '?format=document']) {
      clearHeldPageRows();
      const cold = await measureRoundTrips('GET', `/v1/spaces/${space}/content/page/${group}${query}`, org.owner.token);
      expect(cold.status).toBe(200);
      expect(((cold.body as ListedPage).pages ?? []).map((p) => p.markdown?.trim())).toEqual(['One.', 'Two.']);
      // The token, then the page statement (DESIGN.md: an authenticated read in at most 2).
      expect(cold.roundTrips).toBeLessThanOrEqual(2);
      const warm = await measureRoundTrips('GET', `/v1/spaces/${space}/content/page/${group}${query}`, org.owner.token);
      expect(warm.body).toEqual(cold.body);
      expect(warm.roundTrips).toBeLessThanOrEqual(2);
    }
  }, 120_000);
});

describe("getContentByUrl of a large group's URL: its subpages' Markdown read as the answer is written", () => {
  const app = createApp();
  const appUrlOf = async (space: string) => (expectStatus(await api('GET', `/v1/spaces/${space}`, { token: org.owner.token }), 200).body as { urls: { app: string } }).urls.app;
  /** The answer of GET /v1/urls/content for this app URL, served with this D1 binding (answerSizesD1's). */
  const byUrl = (db: D1Database, url: string) =>
    app.request(`${BASE}/v1/urls/content?url=${encodeURIComponent(url)}`, { headers: { Authorization: `Bearer ${org.owner.token}` } }, { ...env, DB: db }, createExecutionContext());

  it('answers the space and the page as a page read writes it (as Markdown), the answer streamed with no answer of D1 much over a budget', async () => {
    const listed = flat((JSON.parse(await jsonTextOf(`/v1/spaces/${spaceId}/content/pages`, org.owner.token)) as { pages: ListedPage[] }).pages);
    const appUrl = await appUrlOf(spaceId);
    // The group, and a document page with a child page (it has a body of its own, after its child pages).
    for (const page of [listed.find((p) => p.id === groupId)!, listed.find((p) => p.pages?.length && p.type === 'document')!]) {
      const pageRead = await jsonTextOf(`/v1/spaces/${spaceId}/content/page/${page.id}?format=markdown`, org.owner.token);
      clearHeldPageRows();
      const { client, answers } = answerSizesD1(env.DB);
      const res = await byUrl(client, `${appUrl}/${page.path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      const beforeFirstChunk: number[] = [];
      const answer = await readAllText(res.body!, () => {
        if (beforeFirstChunk.length === 0) beforeFirstChunk.push(answers.reduce((n, a) => n + a, 0));
      });
      // The bytes of before: `{ space, page }`, the page the bytes its page read answers.
      const parsed = JSON.parse(answer) as { space: { id: string }; page: ListedPage };
      expect(parsed.space.id).toBe(spaceId);
      expect(Object.keys(parsed)).toEqual(['space', 'page']);
      expect(answer.endsWith(`,"page":${pageRead}}`), page.title).toBe(true);
      expect(answer).toBe(JSON.stringify({ space: parsed.space, page: JSON.parse(pageRead) }));
      if (page.id !== groupId) continue;
      expect(flat(parsed.page.pages!).filter((p) => (p.markdown?.length ?? 0) > PAGE_CHARS).length).toBe(PAGES);
      // Before: the whole group's Markdown was read, and its answer made, before the answer's first byte.
      expect(beforeFirstChunk[0] ?? Infinity).toBeLessThan(groupTotal * 0.6);
      expect(Math.max(...answers)).toBeLessThan(256 * 1024 + PAGE_CHARS + 64 * 1024);
      expect(answers.reduce((n, a) => n + a, 0)).toBeLessThan(groupTotal + 128 * 1024);
      expect(answers.length).toBeGreaterThanOrEqual(8);
    }
  }, 120_000);

  it('a page with a few small subpages costs no D1 statement more than a page without', async () => {
    const { space, group } = await smallGroup('A small group by URL');
    const path = `/v1/urls/content?url=${encodeURIComponent(`${await appUrlOf(space)}/group`)}`;
    clearHeldPageRows();
    const cold = await measureRoundTrips('GET', path, org.owner.token);
    expect(cold.status).toBe(200);
    const page = (cold.body as { page: ListedPage }).page;
    expect(page.id).toBe(group);
    expect((page.pages ?? []).map((p) => p.markdown?.trim())).toEqual(['One.', 'Two.']);
    // The token, then the page statement (DESIGN.md: an authenticated read in at most 2).
    expect(cold.roundTrips).toBeLessThanOrEqual(2);
    const warm = await measureRoundTrips('GET', path, org.owner.token);
    expect(warm.body).toEqual(cold.body);
    expect(warm.roundTrips).toBeLessThanOrEqual(2);
  }, 120_000);
});
