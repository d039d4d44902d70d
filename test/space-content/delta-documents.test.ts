import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import { HISTORY_RETENTION_DAYS } from '../../src/services/content/history';
import { canonicalJson, documentHash } from '../../src/services/content/revisions';
import { DAY_MS } from '../../src/lib/time';
import { applyChanges, createSpace, merge, openChangeRequest, uniqueText as unique } from '../helpers/content';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { COMPOSED_BODY } from '../helpers/stored-documents';
import { documentText, packDocument } from '../../src/services/content/packed-documents';

/**
 * Delta documents (issue 42, storage; services/content/document-deltas): an edited page's new document is stored as a
 * delta against the whole document its previous version is stored against, a chain one delta long. Every version
 * reads back exactly (its hash is its canonical JSON's: a document that read back otherwise would not hash to its
 * name), through every path: page reads at each revision, documents by id, change request diffs and merges; and
 * history collection never sweeps a base that a kept delta reads through.
 */

let org: TestOrg;
let token: string;

beforeAll(async () => {
  org = await seedOrg();
  token = org.owner.token;
});

/** A page of ordinary documentation: paragraphs, a list, a code block, headings. */
const pageText = (label: string) =>
  [
    `# ${label}`,
    ...Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of ${label}: the gateway forwards each request to the service that owns its route, and retries once.`),
    '## Steps',
    '- install the agent\n- start it\n- check its logs',
    '```bash\nagent start --port 8080\n```',
  ].join('\n\n') + '\n';
const unlike = () => Array.from({ length: 200 }, () => Math.random().toString(36).slice(2, 9)).join(' ');
const update = (page: string, markdown: string) => ({ operation: 'update_page', page, document: { markdown } });

interface StoredForm {
  base: string | null;
  baseIsDelta: number;
}
const formOf = async (hash: string) =>
  (await env.DB.prepare('select base, (select count(*) from documents b where b.hash = d.base and b.base is not null) as baseIsDelta from documents d where hash = ?')
    .bind(hash)
    .first<StoredForm>())!;
const stored = async (hash: string) => (await env.DB.prepare('select count(*) as n from documents where hash = ?').bind(hash).first<number>('n')) === 1;

async function mergedEdit(spaceId: string, pageId: string, markdown: string) {
  const cr = await openChangeRequest(spaceId, token, 'Edit');
  await applyChanges(spaceId, cr.number, token, [update(pageId, markdown)]);
  return expectStatus(await merge(spaceId, cr.number, token), 200).body.revision as string;
}

/** The page as read at a revision: its document (checked against its name) and its Markdown. */
async function readAt(spaceId: string, revision: string, pageId: string) {
  const base = `/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}`;
  const page = expectStatus(await api('GET', base, { token }), 200).body;
  expect(await documentHash(canonicalJson(page.document)), `${revision}`).toBe(page.documentId);
  const markdown = expectStatus(await api('GET', `${base}?format=markdown`, { token }), 200).body.markdown as string;
  return { documentId: page.documentId as string, document: page.document, markdown };
}

describe('delta documents', () => {
  it('reads a page edited many times exactly at each revision, each chain one delta long', async () => {
    const space = await createSpace(org.id, token, 'Edited often');
    const first = await openChangeRequest(space.id, token, 'Page');
    let markdown = pageText(unique('Gateway'));
    const pageId = (await applyChanges(space.id, first.number, token, [{ operation: 'insert_page', title: 'Gateway', document: { markdown } }])).changes[0].page.id as string;
    const versions = [{ revision: expectStatus(await merge(space.id, first.number, token), 200).body.revision as string, text: markdown }];
    // Appends, a word changed in the middle, a block inserted at the top (every later node renumbered), one deleted,
    // a rewrite (stored whole: the next edits are deltas of it), and edits after it.
    const edits: Array<(md: string) => string> = [
      (md) => `${md}\nOne sentence added.\n`,
      (md) => md.replace('Paragraph 5', 'Paragraph five'),
      (md) => md.replace(/^# .*\n/, (heading) => `${heading}\n> A note placed first.\n`),
      (md) => md.replace(/Paragraph 3 of[^\n]*\n\n/, ''),
      (md) => `${md}\n## More\n\nAnother section, with [a link](https://example.com/more).\n`,
      () => pageText(unique('Rewritten')) + unlike() + '\n',
      (md) => md.replace('Paragraph 1 ', 'Paragraph one '),
      (md) => `${md}\nThe last sentence.\n`,
    ];
    for (const edit of edits) {
      markdown = edit(markdown);
      versions.push({ revision: await mergedEdit(space.id, pageId, markdown), text: markdown });
    }
    const read = [];
    for (const version of versions) read.push(await readAt(space.id, version.revision, pageId));
    // Each revision has its own document, and reads the text it was given.
    expect(new Set(read.map((r) => r.documentId)).size).toBe(versions.length);
    for (const [i, r] of read.entries()) {
      const lastLine = versions[i].text.trim().split('\n').at(-1)!;
      expect(r.markdown).toContain(lastLine);
    }
    const forms = await Promise.all(read.map((r) => formOf(r.documentId)));
    // The first version and the rewrite are whole; the other edits are deltas, of a whole document each.
    expect(forms[0].base).toBeNull();
    expect(forms[6].base).toBeNull();
    // (An edit whose delta from the base grew past half the whole document is stored whole: the next base.)
    expect(forms.filter((f) => f.base !== null).length).toBeGreaterThanOrEqual(5);
    for (const form of forms) expect(form.baseIsDelta).toBe(0);
    expect(forms[1].base).toBe(read[0].documentId);
    expect(forms[7].base).toBe(read[6].documentId);
    expect(forms[8].base).toBe(read[6].documentId);

    // The document by id, and the head page read within the round-trip budget.
    const latest = read.at(-1)!;
    const byId = expectStatus(await api('GET', `/v1/spaces/${space.id}/documents/${latest.documentId}`, { token }), 200).body;
    expect(byId).toEqual(latest.document);
    const counted = await measureRoundTrips('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, token);
    expect(counted.status).toBe(200);
    expect(counted.roundTrips).toBeLessThanOrEqual(2);
    expect((counted.body as { documentId: string }).documentId).toBe(latest.documentId);
  });

  it('reads deltas through change request diffs and a merge with a conflict', async () => {
    const space = await createSpace(org.id, token, 'Conflicting');
    const first = await openChangeRequest(space.id, token, 'Page');
    const text = pageText(unique('Broker'));
    const pageId = (await applyChanges(space.id, first.number, token, [{ operation: 'insert_page', title: 'Broker', document: { markdown: text } }])).changes[0].page.id as string;
    expectStatus(await merge(space.id, first.number, token), 200);
    const ours = await openChangeRequest(space.id, token, 'Ours');
    const theirs = await openChangeRequest(space.id, token, 'Theirs');
    await applyChanges(space.id, ours.number, token, [update(pageId, `${text}\nOur sentence.\n`)]);
    await applyChanges(space.id, theirs.number, token, [update(pageId, `${text}\nTheir sentence.\n`)]);
    const diff = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${theirs.number}/changes`, { token }), 200).body;
    expect(JSON.stringify(diff)).toContain(pageId);
    expectStatus(await merge(space.id, ours.number, token), 200);
    // Both edited the page: the second merge is refused, naming it, and both sides still read.
    const refused = await merge(space.id, theirs.number, token);
    expect(refused.status).toBe(409);
    const head = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}?format=markdown`, { token }), 200).body.markdown;
    expect(head).toContain('Our sentence.');
    const mine = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${theirs.number}/content/page/${pageId}?format=markdown`, { token }), 200).body.markdown;
    expect(mine).toContain('Their sentence.');
    expect(mine).not.toContain('Our sentence.');
    // Resolved on their side (the page as main has it: the same document, stored once), updated, then edited again (a
    // delta again) and merged.
    await applyChanges(space.id, theirs.number, token, [update(pageId, `${text}\nOur sentence.\n`)]);
    const updated = await api('POST', `/v1/spaces/${space.id}/change-requests/${theirs.number}/update`, { token });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    await applyChanges(space.id, theirs.number, token, [update(pageId, `${text}\nOur sentence.\n\nTheir sentence.\n`)]);
    expectStatus(await merge(space.id, theirs.number, token), 200);
    const merged = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body;
    expect(await documentHash(canonicalJson(merged.document))).toBe(merged.documentId);
    expect((await formOf(merged.documentId)).base).not.toBeNull();
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}?format=markdown`, { token }), 200).body.markdown).toContain('Their sentence.');
  });

  it('never collects a base a kept delta reads through, and collects it with its last delta', async () => {
    const space = await createSpace(org.id, token, 'Collected');
    const cr = await openChangeRequest(space.id, token, 'Autosaves');
    const text = pageText(unique('Scheduler'));
    const pageId = (await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Scheduler', document: { markdown: text } }])).changes[0].page.id as string;
    const documentOf = async () => expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pageId}`, { token }), 200).body.documentId as string;
    const saved = [await documentOf()];
    // Autosaves: a delta of the first version, a rewrite (whole), then two deltas of the rewrite.
    const rewrite = pageText(unique('Rewritten')) + unlike() + '\n';
    for (const markdown of [`${text}\nA sentence.\n`, rewrite, `${rewrite}\nFirst addition.\n`, `${rewrite}\nSecond addition.\n`]) {
      await applyChanges(space.id, cr.number, token, [update(pageId, markdown)]);
      saved.push(await documentOf());
    }
    const [firstWhole, firstDelta, secondWhole, keptDelta, headDelta] = saved;
    expect((await formOf(firstDelta)).base).toBe(firstWhole);
    expect((await formOf(secondWhole)).base).toBeNull();
    expect((await formOf(keptDelta)).base).toBe(secondWhole);
    expect((await formOf(headDelta)).base).toBe(secondWhole);
    const revision = expectStatus(await merge(space.id, cr.number, token), 200).body.revision as string;

    const later = Date.now() + (HISTORY_RETENTION_DAYS + 1) * DAY_MS;
    const result = await spaceWriter(env, space.id).collectHistory(space.id, later);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    // The first version and its delta only collected revisions named: both go. The rewrite no revision names any more
    // (its autosave was collected) stays: the head and its parent are deltas of it.
    expect(await stored(firstWhole)).toBe(false);
    expect(await stored(firstDelta)).toBe(false);
    expect(await stored(secondWhole)).toBe(true);
    expect(await stored(headDelta)).toBe(true);
    const head = await readAt(space.id, revision, pageId);
    expect(head.documentId).toBe(headDelta);
    expect(head.markdown).toContain('Second addition.');
    const references = await env.DB.prepare('select count(*) as n from space_documents where space_id = ? and hash = ?').bind(space.id, secondWhole).first<number>('n');
    expect(references).toBe(1);
    // A second collection keeps it too.
    expect((await spaceWriter(env, space.id).collectHistory(space.id, later)).ok).toBe(true);
    expect(await stored(secondWhole)).toBe(true);
    expect((await readAt(space.id, revision, pageId)).markdown).toContain('Second addition.');
  });

  it('stores a document whole when the base it was diffed against is no longer stored', async () => {
    const space = await createSpace(org.id, token, 'Base gone');
    const first = await openChangeRequest(space.id, token, 'Page');
    const text = pageText(unique('Cache'));
    const pageId = (await applyChanges(space.id, first.number, token, [{ operation: 'insert_page', title: 'Cache', document: { markdown: text } }])).changes[0].page.id as string;
    expectStatus(await merge(space.id, first.number, token), 200);
    const original = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body.documentId as string;
    await mergedEdit(space.id, pageId, `${text}\nA first addition.\n`);
    const edited = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body;
    expect((await formOf(edited.documentId)).base).toBe(original);
    // The delta rewritten whole and its base removed (the writer may still remember that base).
    const whole = (await env.DB.prepare(`select ${COMPOSED_BODY} as body from documents where hash = ?`).bind(edited.documentId).first<{ body: number[] }>())!.body;
    await env.DB.batch([
      env.DB.prepare('update documents set body = ?, base = null where hash = ?').bind(packDocument(documentText(Uint8Array.from(whole))), edited.documentId),
      env.DB.prepare('delete from documents where hash = ?').bind(original),
    ]);
    await mergedEdit(space.id, pageId, `${text}\nA first addition.\n\nA second one.\n`);
    const next = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}?format=markdown`, { token }), 200).body;
    expect(next.markdown).toContain('A second one.');
    const nextId = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body.documentId as string;
    expect([null, edited.documentId]).toContain((await formOf(nextId)).base);
  });

  it('gives a duplicate of a space the bases of the deltas it shares', async () => {
    const space = await createSpace(org.id, token, 'Duplicated');
    const first = await openChangeRequest(space.id, token, 'Page');
    const text = pageText(unique('Queue'));
    const pageId = (await applyChanges(space.id, first.number, token, [{ operation: 'insert_page', title: 'Queue', document: { markdown: text } }])).changes[0].page.id as string;
    expectStatus(await merge(space.id, first.number, token), 200);
    await mergedEdit(space.id, pageId, `${text}\nA sentence more.\n`);
    const documentId = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body.documentId as string;
    const base = (await formOf(documentId)).base;
    expect(base).not.toBeNull();
    const copy = expectStatus(await api('POST', `/v1/spaces/${space.id}/duplicate`, { token }), 201).body;
    const refers = async (spaceId: string, hash: string) =>
      (await env.DB.prepare('select count(*) as n from space_documents where space_id = ? and hash = ?').bind(spaceId, hash).first<number>('n')) === 1;
    expect(await refers(copy.id, documentId)).toBe(true);
    expect(await refers(copy.id, base!)).toBe(true);
  });

  it("never lets another organization's space reach a delta's base by storing the same document", async () => {
    // Space A's page, edited: its second version is stored as a delta of its first (A's earlier content).
    const space = await createSpace(org.id, token, 'Earlier content');
    const first = await openChangeRequest(space.id, token, 'Page');
    const text = pageText(unique('Ledger'));
    const pageId = (await applyChanges(space.id, first.number, token, [{ operation: 'insert_page', title: 'Ledger', document: { markdown: text } }])).changes[0].page.id as string;
    expectStatus(await merge(space.id, first.number, token), 200);
    const firstId = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body.documentId as string;
    const edited = `${text}\nA sentence more.\n`;
    await mergedEdit(space.id, pageId, edited);
    const editedId = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body.documentId as string;
    expect((await formOf(editedId)).base).toBe(firstId);

    // Another organization writes the same page (say, copied from A's published site): the same document.
    const other = await seedOrg();
    const theirs = await createSpace(other.id, other.owner.token, 'Copy');
    const cr = await openChangeRequest(theirs.id, other.owner.token, 'Copy');
    const theirPage = (await applyChanges(theirs.id, cr.number, other.owner.token, [{ operation: 'insert_page', title: 'Ledger', document: { markdown: edited } }])).changes[0].page.id as string;
    expectStatus(await merge(theirs.id, cr.number, other.owner.token), 200);
    const read = expectStatus(await api('GET', `/v1/spaces/${theirs.id}/content/page/${theirPage}`, { token: other.owner.token }), 200).body;
    expect(read.documentId).toBe(editedId);

    // It does not reach A's first version: no reference to it, and reading it by id is a 404.
    const refers = (await env.DB.prepare('select count(*) as n from space_documents where space_id = ? and hash = ?').bind(theirs.id, firstId).first<number>('n')) === 1;
    expect(refers).toBe(false);
    expectStatus(await api('GET', `/v1/spaces/${theirs.id}/documents/${firstId}`, { token: other.owner.token }), 404);
    // The shared document is whole now, and both spaces still read it, and A its first version.
    expect((await formOf(editedId)).base).toBeNull();
    expectStatus(await api('GET', `/v1/spaces/${theirs.id}/documents/${editedId}`, { token: other.owner.token }), 200);
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}/documents/${editedId}`, { token }), 200).body).toEqual(read.document);
    expectStatus(await api('GET', `/v1/spaces/${space.id}/documents/${firstId}`, { token }), 200);
  });
});
