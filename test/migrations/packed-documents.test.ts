import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, toStoredDocument } from '../../src/services/content/revisions';
import { documentText } from '../../src/services/content/packed-documents';
import { PNG_1x1, applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { publishedSite, visit } from '../site/helpers';
import { COMPOSED_BODY } from '../helpers/stored-documents';

/**
 * Migration 0052 (page documents stored packed): a page document written now is a BLOB of its compressed JSON with
 * `refs` beside it; a database made before keeps JSON bodies and no refs. Both forms read alike through every path
 * that looks into a document: page reads (document, Markdown, reusable contents dereferenced), comments (is the
 * commented block still there), the published site (its reusable contents and files), search.
 */

let org: TestOrg;
let token: string;

beforeAll(async () => {
  org = await seedOrg();
  token = org.owner.token;
});

interface DocumentRow {
  hash: string;
  kind: string;
  body: string | number[];
  refs: string | null;
}

const rowOf = async (hash: string) =>
  (await env.DB.prepare(`select hash, typeof(body) as kind, ${COMPOSED_BODY} as body, refs from documents where hash = ?`).bind(hash).first<DocumentRow>())!;

const paragraph = (text: string, key: string) => ({ object: 'block', type: 'paragraph', key, data: {}, nodes: [{ object: 'text', key: `${key}t`, leaves: [{ object: 'leaf', text, marks: [] }] }] });
const reusableBlock = (id: string) => ({ object: 'block', type: 'reusable-content', key: `rc-${id}`, isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: id } } });

/** Rewrites documents as the code before 0052 stored them: the JSON as text, no refs. */
async function storeAsBefore(hashes: string[]) {
  // Read first: a delta reads through its base, which may be among them.
  const texts = await Promise.all(hashes.map(async (hash) => documentText((await rowOf(hash)).body)));
  for (const [i, hash] of hashes.entries()) {
    await env.DB.prepare('update documents set body = ?, refs = null, base = null where hash = ?').bind(texts[i], hash).run();
  }
}

/**
 * A published space: a page with an image (a file), a reusable content included and a commented block, and a
 * comment on a block that is gone. Answers what the checks read.
 */
async function fixture(title: string) {
  const space = await createSpace(org.id, token, title);
  const cr = await openChangeRequest(space.id, token, 'Content');
  const applied = await applyChanges(space.id, cr.number, token, [
    { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG_1x1 }] },
    { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: 'The **ocelot** prowls at dusk.\n\n![Logo](./logo.png)\n' } },
    {
      operation: 'insert_page',
      ref: 'reuse',
      title: 'Reuse',
      document: { document: { object: 'document', data: {}, nodes: [paragraph('Before the margay.', 'b1'), reusableBlock('rcShared'), paragraph('After.', 'b2')] } },
    },
  ]);
  expectStatus(await merge(space.id, cr.number, token), 200);
  const [guide, reuse] = applied.changes.filter((c: any) => c.object === 'created_page').map((c: any) => c.page.id as string);
  // A reusable content, written as a content batch would store it, named by the head revision's meta.
  const shared = await toStoredDocument({ object: 'document', data: {}, nodes: [paragraph('Shared serval text.', 's1')] } as never);
  await env.DB.prepare('insert or ignore into documents (hash, body, refs, created_at) values (?, ?, ?, ?)').bind(shared.hash, shared.packed!, shared.refs!, new Date().toISOString()).run();
  const head = (await api('GET', `/v1/spaces/${space.id}/content`, { token })).body;
  await env.DB.prepare('update revisions set meta = ? where id = ?').bind(JSON.stringify({ variables: {}, reusableContents: [{ id: 'rcShared', title: 'Shared', document: shared.hash }] }), head.id).run();
  const hashes = [...head.pages.map((p: any) => p.documentId as string), shared.hash];

  // Comments of a change request say whether their block is still in its content (`outdated`).
  const edit = await openChangeRequest(space.id, token, 'Drop b2');
  const comments = `/v1/spaces/${space.id}/change-requests/${edit.number}/comments`;
  const onBlock = expectStatus(await api('POST', comments, { token, body: { page: reuse, node: 'b1', body: { markdown: 'here' } } }), 200).body;
  const onGone = expectStatus(await api('POST', comments, { token, body: { page: reuse, node: 'b2', body: { markdown: 'soon gone' } } }), 200).body;
  // The converter's keys (k1, k2...), stored as a run.
  const onRun = expectStatus(await api('POST', comments, { token, body: { page: guide, node: 'k2', body: { markdown: 'numbered' } } }), 200).body;
  await applyChanges(space.id, edit.number, token, [
    { operation: 'update_page', page: reuse, document: { document: { object: 'document', data: {}, nodes: [paragraph('Before the margay.', 'b1'), reusableBlock('rcShared')] } } },
  ]);
  expectStatus(await merge(space.id, edit.number, token), 200);
  const pages = (await api('GET', `/v1/spaces/${space.id}/content`, { token })).body.pages;
  hashes.push(...pages.map((p: any) => p.documentId as string));

  const site = await publishedSite(org, [space.id], 'public', title);
  return { spaceId: space.id as string, cr: edit.number as number, guide, reuse, hashes: [...new Set(hashes)], comments: { onBlock: onBlock.id as string, onGone: onGone.id as string, onRun: onRun.id as string }, site };
}

/** Everything the checks read of a fixture, through the API and the published site. */
async function readAll(f: Awaited<ReturnType<typeof fixture>>) {
  const base = `/v1/spaces/${f.spaceId}/content`;
  const get = async (path: string) => expectStatus(await api('GET', path, { token }), 200).body;
  const comments = (await get(`/v1/spaces/${f.spaceId}/change-requests/${f.cr}/comments`)).items as Array<{ id: string; target: { page: { outdated: boolean } } }>;
  const search = async (query: string) => (await get(`/v1/spaces/${f.spaceId}/search?query=${query}`)).items.map((p: { title: string }) => p.title);
  const guidePage = await visit(`/s/${f.site.id}/guide`);
  const reusePage = await visit(`/s/${f.site.id}/reuse`);
  return {
    guideDocument: (await get(`${base}/page/${f.guide}`)).document,
    guideMarkdown: await pageMarkdown(f.spaceId, f.guide, token),
    dereferenced: (await get(`${base}/page/${f.reuse}?dereferenced=true`)).document.nodes.map((n: any) => n.type),
    reuseMarkdown: (await get(`${base}/page/${f.reuse}?format=markdown&dereferenced=true`)).markdown as string,
    outdated: Object.fromEntries(comments.map((c) => [c.id, c.target.page.outdated])),
    search: [await search('ocelot'), await search('margay')],
    siteGuide: { status: guidePage.status, image: /<img[^>]+src="[^"]*logo|<img[^>]+src="[^"]*files/.test(guidePage.text) },
    siteReuse: { status: reusePage.status, shared: reusePage.text.includes('Shared serval text.') },
  };
}

describe('migration 0052: page documents stored packed', () => {
  it('stores a new page document as its compressed JSON, with its keys, files and reusable contents in refs', async () => {
    const f = await fixture('Packed');
    const guide = (await api('GET', `/v1/spaces/${f.spaceId}/content/page/${f.reuse}`, { token })).body;
    const row = await rowOf(guide.documentId);
    expect(row.kind).toBe('blob');
    // The hash is still the canonical JSON's: the same document stored again is the same row.
    expect(canonicalJson(JSON.parse(documentText(row.body)))).toBe(documentText(row.body));
    expect(JSON.parse(documentText(row.body))).toEqual(guide.document);
    expect(JSON.parse(row.refs!)).toEqual({ keys: ' b1t rc-rcShared b1 ', reusable: ['rcShared'] });
    // Numbered keys (the converter's) are stored as runs.
    const converted = await toStoredDocument({ object: 'document', data: {}, nodes: ['k1', 'k2', 'k3', 'k5', 'x'].map((key) => paragraph(key, key)) } as never);
    expect(JSON.parse(converted.refs!)).toEqual({ keys: ' k1t k2t k3t k5t x xt k5 ', runs: [['k', 1, 3]] });
    const image = await rowOf((await api('GET', `/v1/spaces/${f.spaceId}/content/page/${f.guide}`, { token })).body.documentId);
    expect(JSON.parse(image.refs!).files).toHaveLength(1);
    // Nodes of the page and file maps stay JSON text (statements walk them).
    const root = await env.DB.prepare('select typeof(body) as kind from documents where hash = (select pages_root from revisions where id = (select revision_id from spaces where id = ?))')
      .bind(f.spaceId)
      .first<string>('kind');
    expect(root).toBe('text');

    const long = `${'A paragraph of ordinary documentation, with a [link](https://example.com) and `code`.\n\n'.repeat(60)}`;
    const cr = await openChangeRequest(f.spaceId, token, 'Long');
    const applied = await applyChanges(f.spaceId, cr.number, token, [{ operation: 'insert_page', title: 'Long', document: { markdown: long } }]);
    const page = (await api('GET', `/v1/spaces/${f.spaceId}/change-requests/${cr.number}/content/page/${applied.changes[0].page.id}`, { token })).body;
    const stored = await env.DB.prepare('select length(body) as n from documents where hash = ?').bind(page.documentId).first<number>('n');
    // Far smaller than its JSON, and smaller than its Markdown.
    expect(stored!).toBeLessThan(canonicalJson(page.document).length / 8);
    expect(stored!).toBeLessThan(long.length / 4);
  });

  it('carries a database made before it over: documents stored as JSON text read as the packed ones do', async () => {
    const packed = await fixture('Packed docs');
    const before = await fixture('Docs from before');
    await storeAsBefore(before.hashes);
    for (const hash of before.hashes) expect((await rowOf(hash)).kind).toBe('text');

    const expected = {
      dereferenced: ['paragraph', 'paragraph'],
      outdated: { [packed.comments.onBlock]: false, [packed.comments.onGone]: true, [packed.comments.onRun]: false },
      search: [['Guide'], ['Reuse']],
      siteGuide: { status: 200, image: true },
      siteReuse: { status: 200, shared: true },
    };
    const fromPacked = await readAll(packed);
    expect(fromPacked).toMatchObject(expected);
    expect(fromPacked.reuseMarkdown).toContain('Shared serval text.');
    const fromBefore = await readAll(before);
    expect(fromBefore).toMatchObject({ ...expected, outdated: { [before.comments.onBlock]: false, [before.comments.onGone]: true, [before.comments.onRun]: false } });
    // The same document but for its file's id (each space uploaded its own file), in its ref and in the author's
    // spelling of the image that the document's source patch keeps (`![Logo](/files/<id>)`).
    const masked = (document: unknown) => JSON.stringify(document).replace(/"file":"\w+"/g, '"file":"*"').replace(/\/files\/\w+/g, '/files/*');
    expect(masked(fromBefore.guideDocument)).toBe(masked(fromPacked.guideDocument));
    const unfiled = (markdown: string) => markdown.replace(/\/files\/\w+/g, '/files/*');
    expect(unfiled(fromBefore.guideMarkdown)).toBe(unfiled(fromPacked.guideMarkdown));
    expect(fromBefore.reuseMarkdown).toBe(fromPacked.reuseMarkdown);

    // An edit of a space from before stores its new document packed, and reads on.
    const cr = await openChangeRequest(before.spaceId, token, 'Edit');
    await applyChanges(before.spaceId, cr.number, token, [{ operation: 'update_page', page: before.guide, document: { markdown: 'The **ocelot** sleeps at noon.\n' } }]);
    expectStatus(await merge(before.spaceId, cr.number, token), 200);
    const edited = (await api('GET', `/v1/spaces/${before.spaceId}/content/page/${before.guide}`, { token })).body;
    expect((await rowOf(edited.documentId)).kind).toBe('blob');
    expect(await pageMarkdown(before.spaceId, before.guide, token)).toContain('sleeps at noon');
  });
});

describe('migration 0053: the link index without its status index', () => {
  it('is gone, and a space lists its links, broken ones by status, as before', async () => {
    const index = await env.DB.prepare("select count(*) as n from sqlite_master where type = 'index' and name = 'space_links_status'").first<number>('n');
    expect(index).toBe(0);
    const space = await createSpace(org.id, token, 'Links');
    const cr = await openChangeRequest(space.id, token, 'Content');
    const applied = await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', ref: 'a', title: 'A', document: { markdown: 'See [B](./b.md) and [C](./c.md).\n' } },
      { operation: 'insert_page', ref: 'b', title: 'B', document: { markdown: 'Back to [A](./a.md).\n' } },
      { operation: 'insert_page', ref: 'c', title: 'C', document: { markdown: 'Soon gone.\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    // C deleted: A's link to it is broken.
    const drop = await openChangeRequest(space.id, token, 'Drop C');
    await applyChanges(space.id, drop.number, token, [{ operation: 'delete_page', page: applied.changes[2].page.id }]);
    expectStatus(await merge(space.id, drop.number, token), 200);
    const all = expectStatus(await api('GET', `/v1/spaces/${space.id}/links`, { token }), 200).body;
    const broken = expectStatus(await api('GET', `/v1/spaces/${space.id}/links?status=broken`, { token }), 200).body;
    expect(all.items.length).toBeGreaterThan(broken.items.length);
    expect(broken.items.length).toBeGreaterThan(0);
    expect(broken.items.every((link: { status: string }) => link.status === 'broken')).toBe(true);
  });
});
