import { extractText, getDocumentProxy } from 'unpdf';
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, api, expectStatus, seedOrg } from '../helpers/harness';
import { applyChanges, createSpace, openChangeRequest } from '../helpers/content';
import { fetchWorker } from '../helpers/worker';

/**
 * A mention holds no label of its own unless its author wrote one (GitBook's mention is `{ref}` only): the PDF shows
 * the target page's title as it is now, as the site does, never the page's id.
 */

let owner: string;
let spaceId: string;
let cr: { number: number };
let targetId: string;
let mentioningId: string;

async function pdfText(): Promise<string> {
  const res = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/pdf`, { token: owner }), 200);
  const url = new URL(res.body.url);
  const file = await fetchWorker(`${BASE}${url.pathname}${url.search}`);
  expect(file.status).toBe(200);
  const pdf = await getDocumentProxy(new Uint8Array(await file.arrayBuffer()));
  const { text } = await extractText(pdf, { mergePages: true });
  return text as string;
}

beforeAll(async () => {
  const org = await seedOrg();
  owner = org.owner.token;
  spaceId = (await createSpace(org.id, owner, 'Handbook')).id;
  cr = await openChangeRequest(spaceId, owner, 'Mentions');
  const created = await applyChanges(spaceId, cr.number, owner, [
    { operation: 'insert_page', ref: 'mentioning', title: 'Overview', document: { markdown: 'Placeholder.\n' } },
    { operation: 'insert_page', ref: 'target', title: 'Setup', document: { markdown: 'How to set up.\n' } },
  ]);
  [mentioningId, targetId] = created.changes.map((c: any) => c.page.id);
  await applyChanges(spaceId, cr.number, owner, [
    {
      operation: 'update_page',
      page: mentioningId,
      document: { markdown: `Start with [/pages/${targetId}](/pages/${targetId} "mention") first.\n\nOr read [the steps](/pages/${targetId} "mention") again.\n` },
    },
  ]);
});

describe('getChangeRequestPDF: a mention without a label of its own', () => {
  it("shows the target page's current title, and an author's label as written", async () => {
    const mention = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/page/${mentioningId}`, { token: owner }), 200)
      .body.document.nodes[0].nodes.find((n: any) => n.type === 'mention');
    // The document holds GitBook's shape: the reference, no label.
    expect(mention.data.ref).toEqual({ kind: 'page', page: targetId });
    expect(JSON.stringify(mention.nodes ?? [])).not.toContain(targetId);

    const before = await pdfText();
    expect(before).toContain('Start with Setup first.');
    expect(before).toContain('Or read the steps again.');
    expect(before).not.toContain(targetId);

    await applyChanges(spaceId, cr.number, owner, [{ operation: 'update_page', page: targetId, title: 'Installation' }]);
    const after = await pdfText();
    expect(after).toContain('Start with Installation first.');
    expect(after).toContain('Or read the steps again.');
    expect(after).not.toContain(targetId);
  });
});
