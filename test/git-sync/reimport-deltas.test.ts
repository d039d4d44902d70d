import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { canonicalJson, documentHash } from '../../src/services/content/revisions';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { control, githubBody, importedSpace, runGitOperation, createRepository } from '../helpers/git-sync';
import { api, expectStatus, seedOrg } from '../helpers/harness';

/**
 * What a re-import stores (issue 42: a one-page edit at most the size of the edited page's Markdown): a page whose file
 * a push changed gets its new document stored as a delta of its previous version, as a content edit stores it
 * (services/content/document-deltas), not whole; with the same tenancy rule (a document another organization's import
 * stores by the same hash is made whole there, and never gives that space a reference to this one's base). A block
 * revert, which stores a document the same way as an edit, is stored as a delta too.
 */

const WORDS = ['gateway', 'request', 'service', 'route', 'retry', 'answer', 'token', 'cluster', 'region', 'replica', 'queue', 'worker', 'deploy', 'config', 'header', 'cache', 'bucket', 'schema', 'field', 'index'];
/** A sentence of words picked by a seeded sequence: text that varies as documentation does (it does not compress to nothing). */
function sentence(seed: number): string {
  let x = seed * 2654435761 + 1;
  const words = Array.from({ length: 18 }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return WORDS[x % WORDS.length];
  });
  return `${words.join(' ')} ${seed}.`;
}

/** A page of ordinary documentation, without links (so another repository can hold the very same document). */
const pageText = (n: number) =>
  [
    '---',
    `description: Page ${n} of a repository re-imported after a push`,
    '---',
    '',
    `# Page ${n}`,
    '',
    ...Array.from({ length: 14 }, (_, p) => `Paragraph ${p} of page ${n}: the gateway forwards each request. ${sentence(n * 100 + p)} ${sentence(n * 100 + p + 50)}\n`),
    '## Steps',
    '',
    '1. install the agent',
    '2. start it',
    '',
    '```bash',
    `agent start --port ${8000 + n}`,
    '```',
    '',
  ].join('\n');

const files = () => {
  const out: Record<string, string> = { 'README.md': '# Home\n\nThe first page.\n' };
  for (let n = 1; n <= 12; n++) out[`guide/page-${n}.md`] = pageText(n);
  return out;
};

interface StoredRow {
  base: string | null;
  bytes: number;
}
const rowOf = async (hash: string) =>
  (await env.DB.prepare('select base, length(body) + coalesce(length(refs), 0) as bytes from documents where hash = ?').bind(hash).first<StoredRow>())!;
const refersTo = async (spaceId: string, hash: string) => (await env.DB.prepare('select count(*) as n from space_documents where space_id = ? and hash = ?').bind(spaceId, hash).first<number>('n')) === 1;

async function pageRead(spaceId: string, pageId: string, token: string) {
  const page = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${pageId}`, { token }), 200).body;
  // A document that read back otherwise than it was stored would not hash to its name.
  expect(await documentHash(canonicalJson(page.document))).toBe(page.documentId);
  const markdown = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`, { token }), 200).body.markdown as string;
  return { documentId: page.documentId as string, markdown };
}

const childOf = (pages: any[], path: string) => pages.flatMap((p) => [p, ...(p.pages ?? [])]).find((p) => p.git?.path === path);

describe('a re-import after a one-page push', () => {
  it("stores the changed page's document as a delta of its previous version, a fraction of the page's Markdown", async () => {
    const name = `reimport-delta-${Date.now().toString(36)}`;
    const { token, space } = await importedSpace(name, files());
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const target = childOf(pages, 'guide/page-5.md');
    const before = await pageRead(space.id, target.id, token);
    expect((await rowOf(before.documentId)).base).toBeNull();
    const other = childOf(pages, 'guide/page-6.md');
    const otherBefore = await pageRead(space.id, other.id, token);

    const edited = pageText(5).replace('Paragraph 7 of page 5: the gateway', 'Paragraph 7 of page 5: the edge gateway') + '\nOne sentence added by a push.\n';
    await control('commit', { name, files: { 'guide/page-5.md': edited }, message: 'Edit one page' });
    const references = async () => (await env.DB.prepare('select count(*) as n from space_documents where space_id = ?').bind(space.id).first<number>('n'))!;
    const referencedBefore = await references();
    await runGitOperation(space.id, token, 'import', githubBody(name));
    // What it stored: the page's document and the nodes on its record's path in the page map (root, chunk, middle node,
    // leaf), not every page's record again (the other pages, moved into the place they had, were left as they were).
    expect(await references()).toBeLessThanOrEqual(referencedBefore + 5);

    const after = await pageRead(space.id, target.id, token);
    expect(after.documentId).not.toBe(before.documentId);
    expect(after.markdown).toContain('One sentence added by a push.');
    expect(after.markdown).toContain('the edge gateway');
    const row = await rowOf(after.documentId);
    expect(row.base).toBe(before.documentId);
    // The delta is what changed (two places of one page), not the page: well under a quarter of its Markdown.
    expect(row.bytes).toBeLessThan(new TextEncoder().encode(edited).byteLength / 4);
    expect(row.bytes).toBeLessThan((await rowOf(before.documentId)).bytes / 2);
    expect(await refersTo(space.id, before.documentId)).toBe(true);
    // The other pages kept their documents.
    expect((await pageRead(space.id, other.id, token)).documentId).toBe(otherBefore.documentId);

    // A second push edits it again: a delta of the same whole document (a chain one delta long).
    await control('commit', { name, files: { 'guide/page-5.md': `${edited}\nA second sentence.\n` }, message: 'Edit it again' });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    const again = await pageRead(space.id, target.id, token);
    expect(again.markdown).toContain('A second sentence.');
    expect((await rowOf(again.documentId)).base).toBe(before.documentId);
  }, 120_000);

  it("never gives another organization's space a reference to the base of a document it imports by the same hash", async () => {
    const name = `reimport-delta-tenant-${Date.now().toString(36)}`;
    const { token, space } = await importedSpace(name, files());
    const target = childOf(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages, 'guide/page-3.md');
    const original = await pageRead(space.id, target.id, token);
    const edited = `${pageText(3)}\nA sentence only the first organization wrote.\n`;
    await control('commit', { name, files: { 'guide/page-3.md': edited }, message: 'Edit one page' });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    const delta = await pageRead(space.id, target.id, token);
    expect((await rowOf(delta.documentId)).base).toBe(original.documentId);

    // Another organization imports a repository holding the edited file alone: the same document, by hash.
    const other = await seedOrg();
    const otherSpace = await createSpace(other.id, other.owner.token);
    const otherName = `${name}-other`;
    await createRepository(otherName, { files: { 'README.md': '# Elsewhere\n', 'guide/page-3.md': edited } });
    await runGitOperation(otherSpace.id, other.owner.token, 'import', { ...githubBody(otherName), force: true });
    const theirs = childOf(expectStatus(await api('GET', `/v1/spaces/${otherSpace.id}/content/pages`, { token: other.owner.token }), 200).body.pages, 'guide/page-3.md');
    const read = await pageRead(otherSpace.id, theirs.id, other.owner.token);
    expect(read.documentId).toBe(delta.documentId);
    expect(read.markdown).toContain('A sentence only the first organization wrote.');
    // Their space refers to the document, never to the first organization's earlier version; the row is whole now.
    expect(await refersTo(otherSpace.id, delta.documentId)).toBe(true);
    expect(await refersTo(otherSpace.id, original.documentId)).toBe(false);
    expect((await rowOf(delta.documentId)).base).toBeNull();
    expectStatus(await api('GET', `/v1/spaces/${otherSpace.id}/documents/${original.documentId}`, { token: other.owner.token }), 404);
    // The first organization reads both versions as before.
    expect((await pageRead(space.id, target.id, token)).markdown).toContain('A sentence only the first organization wrote.');
    expectStatus(await api('GET', `/v1/spaces/${space.id}/documents/${original.documentId}`, { token }), 200);
  }, 120_000);
});

describe('a block revert', () => {
  it('stores the reverted document as a delta of the one the page had', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const text = pageText(40);
    const first = await openChangeRequest(space.id, token, 'Page');
    const pageId = (await applyChanges(space.id, first.number, token, [{ operation: 'insert_page', title: 'Page 40', document: { markdown: text } }])).changes[0].page.id as string;
    expectStatus(await merge(space.id, first.number, token), 200);
    const cr = await openChangeRequest(space.id, token, 'Edits');
    const edited = text.replace('Paragraph 2 of page 40', 'Paragraph two of page 40').replace('Paragraph 9 of page 40', 'Paragraph nine of page 40');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pageId, document: { markdown: edited } }]);
    const read = async () => expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pageId}`, { token }), 200).body;
    const edit = await read();
    const block = (edit.document.nodes as Array<{ key: string; nodes?: Array<{ leaves?: Array<{ text: string }> }> }>).find((n) => JSON.stringify(n).includes('Paragraph two'))!;
    await applyChanges(space.id, cr.number, token, [{ operation: 'revert_page', page: pageId, block: [block.key] }]);
    const reverted = await read();
    expect(JSON.stringify(reverted.document)).toContain('Paragraph 2 of page 40');
    expect(JSON.stringify(reverted.document)).toContain('Paragraph nine of page 40');
    expect(await documentHash(canonicalJson(reverted.document))).toBe(reverted.documentId);
    const row = await rowOf(reverted.documentId);
    expect(row.base).not.toBeNull();
    expect(row.bytes).toBeLessThan(new TextEncoder().encode(text).byteLength / 4);
  }, 60_000);
});
