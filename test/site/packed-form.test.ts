/**
 * The published site reads stored documents with services/content/packed-form (`documentTextNative`): a deflated body
 * (formats 4 and 5, and deltas whose operations and base are deflated) is inflated by the runtime's
 * DecompressionStream, so a cold isolate's first page imports no node:zlib (issue 42 item 7; test/build/site-builtins
 * shows the build); a Brotli body (formats 1 and 2, stored before) is still read, through packed-documents. Here: every
 * form reads back as the API's reader (`documentText`) reads it, reusable contents included, and a published page whose
 * document is stored in the old form, or as a delta after an edit, shows what it shows when stored whole.
 */
import { env } from 'cloudflare:workers';
import { brotliCompressSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { deltaOps } from '../../src/services/content/document-deltas';
import { deltaBytes, documentText, packDocument, packingText } from '../../src/services/content/packed-documents';
import { documentTextNative } from '../../src/services/content/packed-form';
import { clearDocumentCache } from '../../src/services/content/document-cache';
import { canonicalJson, type ReadPage } from '../../src/services/content/revisions';
import type { RevisionMeta } from '../../src/services/content/convert';
import { pageBodyOf } from '../../src/site/content';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { publishedSite, spaceWithPages, visit } from './helpers';

/** A converter's document: nodes keyed `k1`, `k2`... in the order its JSON writes them, one paragraph per line. */
function documentJson(lines: string[]): string {
  let key = 0;
  const nodes = lines.map((line) => ({
    object: 'block',
    type: 'paragraph',
    key: `k${++key}`,
    nodes: [{ object: 'text', key: `k${++key}`, leaves: [{ object: 'leaf', text: line, marks: [] }] }],
  }));
  return canonicalJson({ object: 'document', data: {}, nodes });
}

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** The form documents were stored in before: Brotli of the text `packDocument` packs (format 2 keys elided, 1 whole). */
function brotliPacked(json: string): Uint8Array {
  const { text, elided } = packingText(json);
  return concat(Uint8Array.of(elided ? 2 : 1), brotliCompressSync(text));
}

/** A delta of `json` against the packed `base`, as `storedBodySql` reads it (its base appended). */
function composedDelta(json: string, base: Uint8Array, brotliOps = false): Uint8Array {
  const from = packingText(documentText(base)).text;
  const to = packingText(json);
  const ops = deltaOps(from, to.text)!;
  const delta = deltaBytes(ops, to.elided);
  if (!brotliOps) return concat(delta, base);
  // The delta as written before: its operations Brotli, its flags byte without DELTA_OPS_DEFLATED.
  const compressed = brotliCompressSync(JSON.stringify(ops));
  expect(compressed.length).toBeLessThan(128); // its length in one byte of varint
  return concat(Uint8Array.of(3, to.elided ? 1 : 0, compressed.length), compressed, base);
}

const lines = Array.from({ length: 40 }, (_, i) => `Line ${i} about sagas, segments and "quoted" tokens, ünïcode ✓`);
const json = documentJson(lines);
const edited = documentJson([...lines.slice(0, 20), 'An inserted line.', ...lines.slice(20)]);
const unnumbered = canonicalJson({ object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', key: 'intro', nodes: [] }] });

describe('documentTextNative', () => {
  it('reads the forms written now (deflate, keys elided or not, deltas) as documentText does', async () => {
    expect(packDocument(json)[0]).toBe(5);
    expect(packDocument(unnumbered)[0]).toBe(4);
    const base = packDocument(json, 9);
    const delta = composedDelta(edited, base);
    expect(delta[0]).toBe(3);
    for (const [name, body, expected] of [
      ['keys elided', packDocument(json), json],
      ['whole', packDocument(unnumbered), unnumbered],
      ['delta', delta, edited],
    ] as const) {
      expect(documentText(body), name).toBe(expected);
      expect(await documentTextNative(body), name).toBe(expected);
      // As the D1 binding may hand a BLOB back: an ArrayBuffer or an array of bytes.
      expect(await documentTextNative(body.slice().buffer), name).toBe(expected);
      expect(await documentTextNative(Array.from(body)), name).toBe(expected);
    }
    expect(await documentTextNative(json)).toBe(json);
  });

  it('still reads the Brotli forms documents were stored in before, deltas with Brotli operations or base included', async () => {
    const old = brotliPacked(json);
    expect(old[0]).toBe(2);
    expect(brotliPacked(unnumbered)[0]).toBe(1);
    for (const [name, body, expected] of [
      ['Brotli, keys elided', old, json],
      ['Brotli, whole', brotliPacked(unnumbered), unnumbered],
      ['Brotli delta on a Brotli base', composedDelta(edited, old, true), edited],
      ['deflated delta on a Brotli base', composedDelta(edited, old), edited],
      ['Brotli delta on a deflated base', composedDelta(edited, packDocument(json), true), edited],
    ] as const) {
      expect(documentText(body), name).toBe(expected);
      expect(await documentTextNative(body), name).toBe(expected);
    }
  });

  it('refuses what is no stored document, as documentText does', async () => {
    await expect(documentTextNative(Uint8Array.of(6, 1, 2))).rejects.toThrow(/unknown format 6/);
    await expect(documentTextNative(Uint8Array.of(3, 2, 1, 0))).rejects.toThrow(/without its base/);
    await expect(documentTextNative(Uint8Array.of(4, 0xff, 0xff))).rejects.toThrow();
  });
});

describe("a published page's body (site/content pageBodyOf)", () => {
  const page = { id: 'p', variables: {} } as unknown as ReadPage;
  const meta = { variables: {} } as unknown as RevisionMeta;
  const reusableBlock = { object: 'block', type: 'reusable-content', isVoid: true, key: 'k1', data: { ref: { kind: 'reusable-content', reusableContent: 'rc1' } } };
  const including = canonicalJson({ object: 'document', data: {}, nodes: [reusableBlock] });
  const texts = (document: { nodes: unknown[] }) => JSON.stringify(document.nodes).match(/Line \d+/g);

  it('includes a reusable content stored in either form, with the document in either form', async () => {
    const expected = lines.map((_, i) => `Line ${i}`);
    for (const [documentBody, reusableBody] of [
      [packDocument(including), packDocument(json)],
      [brotliPacked(including), composedDelta(edited, packDocument(json))],
      [packDocument(including), brotliPacked(json)],
    ]) {
      const rows = [
        { kind: 'document', key: null, value: documentBody },
        { kind: 'reusable', key: 'rc1', value: reusableBody },
      ];
      const { document } = await pageBodyOf(page, meta, { results: rows });
      expect(texts(document)).toEqual(expected);
    }
  });
});

describe('a published page stored in each form', () => {
  let org: TestOrg;
  let space: { id: string; pages: Record<string, string> };
  let site: { id: string };
  const markdown = (extra: string) => `${lines.slice(0, 10).join('\n\n')}\n\n${extra}\n`;
  const documentIdOf = async (pageId: string) =>
    expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token: org.owner.token }), 200).body.documentId as string;
  const storedBody = async (hash: string) => new Uint8Array((await env.DB.prepare('select body from documents where hash = ?').bind(hash).first<{ body: ArrayBuffer }>())!.body);

  beforeAll(async () => {
    org = await seedOrg();
    space = await spaceWithPages(org, 'Forms', [
      { operation: 'insert_page', title: 'Deflated', document: { markdown: markdown('Deflated page.') } },
      { operation: 'insert_page', title: 'Brotli', document: { markdown: markdown('Brotli page.') } },
    ]);
    site = await publishedSite(org, [space.id], 'public', 'Forms Docs');
  });

  it('shows a page stored deflated (as written now) and one stored with Brotli (as before) alike', async () => {
    const hash = await documentIdOf(space.pages.Brotli);
    const now = await storedBody(hash);
    expect(now[0]).toBe(5);
    // The row rewritten as it was stored before this form (same JSON, same hash), before the page's first view.
    await env.DB.prepare('update documents set body = ? where hash = ?').bind(brotliPacked(documentText(now)), hash).run();
    expect((await storedBody(hash))[0]).toBe(2);
    const brotli = await visit(`/s/${site.id}/brotli`);
    const deflated = await visit(`/s/${site.id}/deflated`);
    expect([brotli.status, deflated.status]).toEqual([200, 200]);
    expect(brotli.text).toContain('Brotli page.');
    expect(deflated.text).toContain('Deflated page.');
    for (let i = 0; i < 10; i++) {
      expect(brotli.text).toContain(`Line ${i} about sagas`);
      expect(deflated.text).toContain(`Line ${i} about sagas`);
    }
    expect(brotli.text).toContain('ünïcode ✓');
  });

  it("answers an API page read of a page stored with Brotli (as before), as JSON and as Markdown, as of one stored deflated", async () => {
    // The API's page read inflates with the runtime too (document-cache, packed-form), and loads packed-documents for a
    // Brotli body only (test/build/site-builtins: its first request imports no node:zlib).
    const hash = await documentIdOf(space.pages.Brotli);
    const stored = await storedBody(hash);
    if (stored[0] !== 2) await env.DB.prepare('update documents set body = ? where hash = ?').bind(brotliPacked(documentText(stored)), hash).run();
    expect((await storedBody(hash))[0]).toBe(2);
    clearDocumentCache();
    const read = async (pageId: string, query = '') =>
      expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}${query}`, { token: org.owner.token }), 200).body;
    const brotli = JSON.stringify((await read(space.pages.Brotli)).document);
    const deflated = JSON.stringify((await read(space.pages.Deflated)).document);
    expect(brotli).toContain('Brotli page.');
    expect(brotli).toContain('ünïcode ✓');
    expect(brotli.replace('Brotli page.', 'Deflated page.')).toBe(deflated);
    expect((await read(space.pages.Brotli, '?format=markdown')).markdown).toContain('Brotli page.');
  });

  it('shows an edited page stored as a delta (deflated operations) with its edit', async () => {
    const cr = await openChangeRequest(space.id, org.owner.token);
    await applyChanges(space.id, cr.number, org.owner.token, [{ operation: 'update_page', page: space.pages.Deflated, document: { markdown: markdown('Deflated page, edited.') } }]);
    expectStatus(await merge(space.id, cr.number, org.owner.token), 200);
    const row = await env.DB.prepare('select body, base from documents where hash = ?').bind(await documentIdOf(space.pages.Deflated)).first<{ body: ArrayBuffer; base: string | null }>();
    expect(row!.base).not.toBeNull();
    expect(new Uint8Array(row!.body).slice(0, 2)).toEqual(Uint8Array.of(3, 3));
    const page = await visit(`/s/${site.id}/deflated`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Deflated page, edited.');
  });
});
