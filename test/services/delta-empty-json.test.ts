import { describe, expect, it } from 'vitest';
import { deltaAgainst } from '../../src/services/content/document-deltas';
import { packDocument } from '../../src/services/content/packed-documents';
import { canonicalJson } from '../../src/services/content/revisions';

/**
 * A delta is only ever made of a document's JSON: empty text is no document. An import that let a document's JSON go
 * once packed, and then asked for a delta of that copy, stored one that read back as '' (found-gitprobe16a item 1, an
 * AdvancedTeleport-docs push: every read of the revision answered 500); the guard is here, whoever the caller.
 */
describe('deltaAgainst', () => {
  const document = (text: string) => canonicalJson({ object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', key: 'k1', nodes: [{ object: 'text', key: 'k2', leaves: [{ object: 'leaf', text, marks: [] }] }] }] });
  const base = { hash: 'base', packed: packDocument(document('A paragraph of the page as it was, long enough to make a delta worth it.'), 9) };

  it('makes no delta of empty text', () => {
    expect(deltaAgainst('', base, packDocument(document('anything'), 9))).toBeNull();
  });

  it('still makes one of a document close to its base', () => {
    const next = document('A paragraph of the page as it is, long enough to make a delta worth it.');
    expect(deltaAgainst(next, base, packDocument(next, 9))).toBeInstanceOf(Uint8Array);
  });
});
