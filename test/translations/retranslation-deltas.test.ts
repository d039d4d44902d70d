import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueText } from '../helpers/content';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { editSpace, postRun, postTranslation, runToEnd, seedSpace, uppercaseAI } from '../helpers/translations';

/**
 * A re-translated page's document is stored as a delta of the document its last translation stored (issue 40, as content
 * edits and Git Sync re-imports store theirs: services/content/document-deltas): a page whose source changed by one
 * paragraph adds about that paragraph to D1, not the whole page; it reads back whole, and the delta's base is one the
 * result space refers to (the tenancy rule of delta documents: a space reads only what it stored itself).
 */

let org: TestOrg;
beforeAll(async () => {
  org = await seedOrg();
});

/** Words that do not compress into each other (a page of real prose packs to kilobytes, not to a repeated line's bytes). */
const words = Array.from({ length: 24 }, () => Array.from({ length: 30 }, () => Math.random().toString(36).slice(2, 8)).join(' '));
const pageText = (label: string, changed?: number) =>
  words.map((line, i) => (i === changed ? `Paragraph ${i} was rewritten in the source: ${label}.` : `Paragraph ${i} of ${label}: ${line}.`)).join('\n\n') + '\n';

interface StoredRow {
  bytes: number;
  base: string | null;
}
const storedRow = async (hash: string) => (await env.DB.prepare('select length(body) as bytes, base from documents where hash = ?').bind(hash).first<StoredRow>())!;

async function resultPage(spaceId: string, pageId: string) {
  return expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${pageId}?computed=false`, { token: org.owner.token }), 200).body;
}

describe('a re-translated page', () => {
  it('is stored as a delta of its last translation: one paragraph changed adds a fraction of the page', async () => {
    const token = org.owner.token;
    const label = uniqueText('re-translated');
    const seeded = await seedSpace(org.id, token, 'Re-translated', [{ operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: pageText(label) } }]);
    const guide = seeded.pages.guide;
    const created = await postTranslation(org.id, token, { language: 'de', source: { space: seeded.space.id, language: 'en' } });
    const ai = uppercaseAI();
    await runToEnd(created.sent, ai);
    const translation = expectStatus(await api('GET', `/v1/orgs/${org.id}/translations/${created.body.id}`, { token }), 200).body;
    const resultSpace = translation.result.space as string;
    const first = await resultPage(resultSpace, guide);
    const whole = await storedRow(first.documentId);
    expect(whole.base).toBeNull();

    await editSpace(seeded.space.id, token, [{ operation: 'update_page', page: guide, document: { markdown: pageText(label, 7) } }]);
    await runToEnd((await postRun(org.id, created.body.id, token)).sent, ai);
    const second = await resultPage(resultSpace, guide);
    expect(second.documentId).not.toBe(first.documentId);
    const delta = await storedRow(second.documentId);
    console.log(`re-translation of one paragraph: the new document stored in ${delta.bytes} bytes (whole: ${whole.bytes} bytes)`);
    expect(delta.base).toBe(first.documentId);
    expect(delta.bytes).toBeLessThan(whole.bytes / 2);
    // It reads back whole: the rewritten paragraph translated, the others as they were.
    const text = JSON.stringify(second.document);
    expect(text).toContain(`PARAGRAPH 7 WAS REWRITTEN IN THE SOURCE: ${label.toUpperCase()}.`);
    expect(text).toContain(`PARAGRAPH 23 OF ${label.toUpperCase()}`);
    // Its base is the result space's own: the space refers to both.
    const refs = await env.DB.prepare('select count(*) as n from space_documents where space_id = ? and hash in (?, ?)').bind(resultSpace, first.documentId, second.documentId).first<number>('n');
    expect(refs).toBe(2);
  }, 120_000);
});
