import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { brotliCompressSync, deflateRawSync } from 'node:zlib';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { documentText, packDocument } from '../../src/services/content/packed-documents';
import { canonicalJson } from '../../src/services/content/revisions';

/** A document as the converter makes one: nodes keyed `k1`, `k2`... in the order its JSON writes them. */
function numberedDocument(paragraphs: number): string {
  let key = 0;
  const nodes = Array.from({ length: paragraphs }, (_, i) => ({
    object: 'block',
    type: 'paragraph',
    key: `k${++key}`,
    nodes: [{ object: 'text', key: `k${++key}`, leaves: [{ object: 'leaf', text: `Paragraph ${i} about sagas and event processors.`, marks: [] }] }],
  }));
  return canonicalJson({ object: 'document', data: {}, nodes });
}

/** Deflate of the whole JSON at level 9: the form 4 body `packDocument` would have stored. */
const wholeLength = (json: string) => 1 + deflateRawSync(json, { level: 9, memLevel: 9 }).length;

describe('packed documents with their numbered keys elided', () => {
  it('packs a numbered document without its keys, smaller, and reads it back byte for byte', () => {
    const json = numberedDocument(200);
    const packed = packDocument(json, 9);
    expect(packed[0]).toBe(5);
    expect(documentText(packed)).toBe(json);
    expect(packed.length).toBeLessThan(wholeLength(json) * 0.95);
  });

  it('reads back exactly what it was given when keys are not the converter\'s numbering', () => {
    const cases: Record<string, string> = {
      // Out of order: only k1 (the first key written that continues the count) is elided, k3 stays.
      outOfOrder: canonicalJson({ object: 'document', nodes: [{ key: 'k1', nodes: [{ key: 'k3' }, { key: 'k2' }] }] }),
      leadingZero: canonicalJson({ object: 'document', nodes: [{ key: 'k01' }, { key: 'k1' }] }),
      // A key 0 of its own: elision would not read back, so the document is stored whole.
      zeroKey: canonicalJson({ object: 'document', nodes: [{ key: 0 }, { key: 'k1' }] }),
      // The pattern inside text is escaped JSON, never a key.
      inText: canonicalJson({ object: 'document', nodes: [{ key: 'k1', text: '{"key":"k2"} and ,"key":0,' }, { key: 'k2' }] }),
      otherNames: canonicalJson({ object: 'document', nodes: [{ key: 'intro' }, { key: 'k1' }, { key: 'kx' }] }),
      none: canonicalJson({ object: 'document', nodes: [] }),
    };
    for (const [name, json] of Object.entries(cases)) expect(documentText(packDocument(json, 9)), name).toBe(json);
    expect(packDocument(cases.zeroKey)[0]).toBe(4);
    expect(packDocument(cases.none)[0]).toBe(4);
    expect(packDocument(cases.outOfOrder)[0]).toBe(5);
  });

  it('still reads a body packed with Brotli (formats 1 and 2), as documents were stored before', () => {
    const json = numberedDocument(3);
    const whole = brotliCompressSync(json);
    expect(documentText(Uint8Array.of(1, ...whole))).toBe(json);
    // Keys k1, k2... in order, elided as `packDocument` elided them.
    const elided = brotliCompressSync(json.replace(/"key":"k\d+"/g, '"key":0'));
    expect(documentText(Uint8Array.of(2, ...elided))).toBe(json);
    expect(() => documentText(Uint8Array.of(6, ...whole))).toThrow(/unknown format 6/);
    // Format 3 is a delta (migration 0162): read without its base, it says so rather than read as something else.
    expect(() => documentText(Uint8Array.of(3, 0, 1, 0))).toThrow(/without its base/);
  });

  it('stores a page written through the API with its keys elided, and reads it as written', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Elided keys');
    const cr = await openChangeRequest(space.id, token);
    const markdown = '# Sagas\n\nA saga **coordinates** events.\n\n## Managers\n\n- one\n- two\n\n```java\nclass A {"key":"k1"}\n```\n';
    const applied = await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Sagas', document: { markdown } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const pageId = applied.changes[0].page.id as string;
    const page = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body;
    const row = await env.DB.prepare('select body from documents where hash = ?').bind(page.documentId).first<{ body: ArrayBuffer }>();
    const stored = new Uint8Array(row!.body);
    expect(stored[0]).toBe(5);
    // The stored document is the one the page answers, keys included.
    expect(JSON.parse(documentText(stored)).nodes.map((n: { key: string }) => n.key)).toEqual(page.document.nodes.map((n: { key: string }) => n.key));
    expect(await pageMarkdown(space.id, pageId, token)).toContain('class A {"key":"k1"}');
  });
});
