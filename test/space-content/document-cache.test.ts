/**
 * The per-isolate cache of unpacked page documents (services/content/document-cache, issue 42 item 6): a warm page
 * read neither moves its document out of D1 nor unpacks it again, yet answers the page's current document after
 * every edit, and gives nobody a document they may not read.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  cachedDocumentText,
  clearDocumentCache,
  documentTextOf,
  knownDocumentHint,
  MAX_CACHED_CHARS,
  rememberDocumentText,
} from '../../src/services/content/document-cache';
import { packDocument } from '../../src/services/content/packed-documents';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

describe('document cache', () => {
  it('unpacks a body once, then answers its hash from memory', async () => {
    clearDocumentCache();
    const text = JSON.stringify({ object: 'document', nodes: [{ object: 'block', type: 'paragraph' }] });
    expect(await documentTextOf('h1', packDocument(text))).toBe(text);
    expect(cachedDocumentText('h1')).toBe(text);
    // A body that is not a packed document: the cached text is what answers, so it is never unpacked again.
    expect(await documentTextOf('h1', Uint8Array.of(1, 255, 255))).toBe(text);
    expect(await documentTextOf(null, null)).toBeNull();
  });

  it('drops the documents used longest ago once it holds more than its bound', () => {
    clearDocumentCache();
    // Ten of them fill the cache exactly.
    const big = (n: number) => `"${n}${'x'.repeat(MAX_CACHED_CHARS / 10 - 2 - String(n).length)}"`;
    for (let i = 0; i < 10; i++) rememberDocumentText(`d${i}`, big(i));
    // d0 used again: d1 is now the oldest.
    expect(cachedDocumentText('d0')).toBe(big(0));
    rememberDocumentText('d10', big(10));
    expect(cachedDocumentText('d1')).toBeUndefined();
    expect(cachedDocumentText('d0')).toBe(big(0));
    expect(cachedDocumentText('d10')).toBe(big(10));
  });

  it('hints only a hash it holds, and keeps the text of a hint for the request even if evicted meanwhile', async () => {
    clearDocumentCache();
    expect(knownDocumentHint('p')).toEqual({ place: 'p', hash: '', text: undefined });
    const text = '{"object":"document","nodes":[]}';
    await documentTextOf('h', packDocument(text), knownDocumentHint('p'));
    const hint = knownDocumentHint('p');
    expect(hint).toEqual({ place: 'p', hash: 'h', text });
    clearDocumentCache();
    // The statement answered no body, for the hinted hash: the text held by the hint answers.
    expect(await documentTextOf('h', null, hint)).toBe(text);
    // Another hash without a body: a document missing from the table, read as none (as before the cache).
    expect(await documentTextOf('other', null, hint)).toBeNull();
  });
});

describe('warm page reads', () => {
  let org: TestOrg;
  let owner: string;
  let spaceId: string;
  let pageId: string;
  const pagePath = () => `/v1/spaces/${spaceId}/content/page/${pageId}`;
  const text = (page: any) => JSON.stringify(page.document);

  beforeAll(async () => {
    org = await seedOrg();
    owner = org.owner.token;
    spaceId = (await createSpace(org.id, owner, 'Warm')).id;
    const cr = await openChangeRequest(spaceId, owner);
    const result = await applyChanges(spaceId, cr.number, owner, [{ operation: 'insert_page', title: 'One', document: { markdown: 'First words.\n' } }]);
    pageId = result.changes[0].page.id;
    expectStatus(await merge(spaceId, cr.number, owner), 200);
  });

  it('answers a page read again without reading its document from D1', async () => {
    const first = expectStatus(await api('GET', pagePath(), { token: owner }), 200).body;
    expect(text(first)).toContain('First words.');
    // The space's packed documents (its one page's) are made unreadable (no Brotli stream): only a read that skips
    // the stored body still answers.
    const hashes = await packedDocumentsOf(spaceId);
    expect(hashes.length).toBeGreaterThan(0);
    const saved = await env.DB.prepare(`select hash, body from documents where hash in (${hashes.map(() => '?').join(',')})`).bind(...hashes).all<{ hash: string; body: ArrayBuffer }>();
    await env.DB.batch(hashes.map((hash) => env.DB.prepare(`update documents set body = x'01ffff' where hash = ?`).bind(hash)));
    try {
      const again = expectStatus(await api('GET', pagePath(), { token: owner }), 200).body;
      expect(text(again)).toBe(text(first));
    } finally {
      await env.DB.batch(saved.results.map((row) => env.DB.prepare('update documents set body = ? where hash = ?').bind(row.body, row.hash)));
    }
  });

  it("answers the page's new document after an edit is merged, and the old one for the old revision", async () => {
    const before = expectStatus(await api('GET', pagePath(), { token: owner }), 200).body;
    const oldRevision = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content`, { token: owner }), 200).body.id;
    const cr = await openChangeRequest(spaceId, owner);
    await applyChanges(spaceId, cr.number, owner, [{ operation: 'update_page', page: pageId, document: { markdown: 'Second words.\n' } }]);
    // The change request's content has the edit before main does.
    expect(text(expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/page/${pageId}`, { token: owner }), 200).body)).toContain('Second words.');
    expect(text(expectStatus(await api('GET', pagePath(), { token: owner }), 200).body)).toBe(text(before));
    expectStatus(await merge(spaceId, cr.number, owner), 200);
    const after = expectStatus(await api('GET', pagePath(), { token: owner }), 200).body;
    expect(text(after)).toContain('Second words.');
    expect(text(after)).not.toContain('First words.');
    const markdown = expectStatus(await api('GET', `${pagePath()}?format=markdown`, { token: owner }), 200).body;
    expect(markdown.markdown).toContain('Second words.');
    const old = expectStatus(await api('GET', `/v1/spaces/${spaceId}/revisions/${oldRevision}/page/${pageId}`, { token: owner }), 200).body;
    expect(text(old)).toBe(text(before));
  });

  it('writes the Markdown of a warm page again when its title or front matter changes, its document the same', async () => {
    const read = async () => expectStatus(await api('GET', `${pagePath()}?format=markdown`, { token: owner }), 200).body.markdown as string;
    expect(await read()).toMatch(/^# One\n/);
    const cr = await openChangeRequest(spaceId, owner);
    await applyChanges(spaceId, cr.number, owner, [{ operation: 'update_page', page: pageId, title: 'Renamed', description: 'Said once.' }]);
    expectStatus(await merge(spaceId, cr.number, owner), 200);
    const markdown = await read();
    expect(markdown).toContain('# Renamed\n');
    expect(markdown).toContain('description: Said once.');
    expect(markdown).toContain('Second words.');
  });

  it('answers the same page, cold and warm, as the reads that build it as objects (its stored text spliced in)', async () => {
    const cr = await openChangeRequest(spaceId, owner);
    const markdown = '# Title kept\n\nA **bold** word, a [link](https://example.com "t") and `code`.\n\n| a | b |\n| - | - |\n| 1 | é ü \\| |\n\n```js\nconst x = "\\u0000";\n```\n';
    const result = await applyChanges(spaceId, cr.number, owner, [{ operation: 'insert_page', title: 'Spliced', document: { markdown } }]);
    const spliced = result.changes[0].page.id;
    expectStatus(await merge(spaceId, cr.number, owner), 200);
    const tree = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content`, { token: owner }), 200).body;
    clearDocumentCache();
    const path = `/v1/spaces/${spaceId}/content/page/${spliced}`;
    const cold = await api('GET', path, { token: owner });
    const warm = await api('GET', path, { token: owner });
    // The revision's page read and an evaluated read make their answers as objects (c.json).
    const asObjects = expectStatus(await api('GET', `/v1/spaces/${spaceId}/revisions/${tree.id}/page/${spliced}`, { token: owner }), 200).body;
    const evaluated = expectStatus(await api('GET', `${path}?evaluated=true`, { token: owner }), 200).body;
    for (const answer of [cold, warm]) {
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(expectStatus(answer, 200).body).toEqual(asObjects);
      expect(answer.body).toEqual(evaluated);
    }
    expect(JSON.stringify(asObjects.document)).toContain('bold');
  });

  it("gives a warm page to nobody who may not read it, and a removed member's next read is refused", async () => {
    expectStatus(await api('GET', pagePath(), { token: org.members.read.token }), 200);
    expectError(await api('GET', pagePath(), { token: org.outsider.token }), 404);
    expectError(await api('GET', pagePath(), { token: org.members.guest.token }), 404);
    expectStatus(await api('DELETE', `/v1/orgs/${org.id}/members/${org.members.read.id}`, { token: owner }), 204);
    expectError(await api('GET', pagePath(), { token: org.members.read.token }), 404);
  });
});

/** The hashes of the packed documents of a space (tree nodes are JSON text). */
async function packedDocumentsOf(spaceId: string): Promise<string[]> {
  const { results } = await env.DB.prepare(
    `select d.hash from space_documents sd join documents d on d.hash = sd.hash where sd.space_id = ? and typeof(d.body) = 'blob'`,
  )
    .bind(spaceId)
    .all<{ hash: string }>();
  return results.map((r) => r.hash);
}
