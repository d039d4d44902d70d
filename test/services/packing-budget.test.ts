import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, openChangeRequest } from '../helpers/content';
import { api, seedOrg } from '../helpers/harness';
import { documentText, packDocument, PackingBudget } from '../../src/services/content/packed-documents';
import { canonicalJson } from '../../src/services/content/revisions';

/** A GitBook document of `paragraphs` paragraphs of varied text (what a page of prose converts to). */
function documentJson(paragraphs: number): string {
  const words = ['event', 'processor', 'segment', 'token', 'store', 'aggregate', 'command', 'query', 'saga', 'deadline', 'snapshot', 'handler'];
  const nodes = Array.from({ length: paragraphs }, (_, i) => ({
    object: 'block',
    type: 'paragraph',
    key: `k${i + 1}`,
    nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: Array.from({ length: 40 }, (_, w) => words[(i * 7 + w * w) % words.length]).join(' '), marks: [] }] }],
  }));
  return canonicalJson({ object: 'document', data: {}, nodes });
}

describe('packing documents within a budget', () => {
  it("gives a request's first 128 KB of JSON the dense level and the rest the fast one", () => {
    const budget = new PackingBudget();
    expect(budget.qualityFor(100 * 1024)).toBe(9);
    expect(budget.qualityFor(20 * 1024)).toBe(9);
    // 8 KB left: a larger document goes fast, a smaller one still fits.
    expect(budget.qualityFor(9 * 1024)).toBe(6);
    expect(budget.qualityFor(8 * 1024)).toBe(9);
    expect(budget.qualityFor(1)).toBe(6);
    // A new request starts with the whole budget again.
    expect(new PackingBudget().qualityFor(128 * 1024)).toBe(9);
  });

  it('packs smaller at the dense level, and both read back as the same JSON', () => {
    const json = documentJson(120);
    const [fast, dense] = [packDocument(json), packDocument(json, 9)];
    expect(dense.length).toBeLessThan(fast.length);
    expect(documentText(dense)).toBe(json);
    expect(documentText(fast)).toBe(json);
    // The same format byte: a reader does not know (nor need to) which quality packed it.
    expect(fast[0]).toBe(dense[0]);
  });

  it("stores an editor's page packed at the dense level", async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Dense');
    const cr = await openChangeRequest(space.id, org.owner.token);
    const markdown = Array.from({ length: 60 }, (_, i) => `Paragraph ${i} about event processors, segments and tokens number ${i * 7}.`).join('\n\n');
    const applied = await applyChanges(space.id, cr.number, org.owner.token, [{ operation: 'insert_page', title: 'Dense', document: { markdown } }]);
    const page = await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${applied.changes[0].page.id}`, { token: org.owner.token });
    const row = await env.DB.prepare('select body from documents where hash = ?').bind(page.body.documentId).first<{ body: ArrayBuffer }>();
    const stored = new Uint8Array(row!.body);
    const json = documentText(stored);
    expect(Array.from(stored)).toEqual(Array.from(packDocument(json, 9)));
    expect(stored.length).toBeLessThan(packDocument(json).length);
  });
});
