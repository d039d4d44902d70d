/**
 * Content reads, for the space (`/v1/spaces/{id}/content`, after a merge) and for a change request
 * (`/v1/spaces/{id}/change-requests/{idOrNumber}/content`): revision, pages, page by id, files,
 * signed downloads, image dimensions, evaluated documents, permissions.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChangeRequestSchema } from '../../src/schemas/change-request';
import { RevisionFileSchema, RevisionPageLayoutSchema, RevisionPageWithContentSchema, RevisionSchema } from '../../src/schemas/revision';
import { downloadUrl } from '../../src/services/content/files';
import { UserSchema } from '../../src/schemas/user';
import { api, expectError, expectSchema, seedOrg, type TestOrg } from '../helpers/harness';
import { PNG_1x1, applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { gitbookErrors, gitbookValidator } from '../helpers/gitbook-schema';
import { fetchWorker } from '../helpers/worker';

let org: TestOrg;
let owner: string;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
});

const UNKNOWN_ID = 'zzzzzzzzzzzzzzzzzzzz';

// ---------------------------------------------------------------------------------------------
// Schemas

/** Our page schema as a tree gives it (with its Markdown body), strict at every level (a stored field leaking into the output fails). */
const StrictPageSchema: z.ZodType = RevisionPageWithContentSchema.omit({ document: true, pages: true })
  .extend({
    markdown: z.string(),
    layout: RevisionPageLayoutSchema.strict(),
    get pages() {
      return z.array(StrictPageSchema);
    },
  })
  .strict();
const StrictFileSchema = RevisionFileSchema.strict();
const StrictRevisionSchema = RevisionSchema.extend({ pages: z.array(StrictPageSchema), files: z.array(StrictFileSchema) }).strict();
const StrictChangeRequestSchema = ChangeRequestSchema.extend({ createdBy: UserSchema.strict() }).strict();

const gitbookRevision = gitbookValidator('Revision');
const gitbookFile = gitbookValidator('RevisionFile');
const gitbookPage = gitbookValidator('RevisionPageDocument');

// ---------------------------------------------------------------------------------------------
// Fixtures

/** A 3x2 RGB PNG (complete: IHDR, IDAT, IEND, valid CRCs). */
const PNG_3x2 = 'iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAC0lEQVR4nGNgwAQAABQAAX3+Hu4AAAAASUVORK5CYII=';

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const u16be = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const u16le = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const u32le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** A baseline JPEG header: SOI, APP0 (JFIF), SOF0 with the size and 3 components, EOI. */
function jpeg(width: number, height: number): Uint8Array {
  const app0 = [0xff, 0xe0, ...u16be(16), ...ascii('JFIF'), 0, 1, 1, 0, ...u16be(1), ...u16be(1), 0, 0];
  const sof0 = [0xff, 0xc0, ...u16be(17), 8, ...u16be(height), ...u16be(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  return new Uint8Array([0xff, 0xd8, ...app0, ...sof0, 0xff, 0xd9]);
}

/** A GIF89a header: signature, logical screen width and height, no color table, trailer. */
function gif(width: number, height: number): Uint8Array {
  return new Uint8Array([...ascii('GIF89a'), ...u16le(width), ...u16le(height), 0, 0, 0, 0x3b]);
}

/** A lossy WebP header: RIFF, WEBP, a `VP8 ` chunk whose key frame header carries the size. */
function webp(width: number, height: number): Uint8Array {
  const frame = [0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a, ...u16le(width), ...u16le(height)];
  const chunk = [...ascii('VP8 '), ...u32le(frame.length), ...frame];
  return new Uint8Array([...ascii('RIFF'), ...u32le(4 + chunk.length), ...ascii('WEBP'), ...chunk]);
}

const TEXT = 'Hello, notes.\n';

const CONTENT = [
  {
    operation: 'insert_files',
    files: [
      { ref: 'one.png', name: 'one.png', contentType: 'image/png', base64: PNG_1x1 },
      { name: 'notes.txt', contentType: 'text/plain', base64: btoa(TEXT) },
      { name: 'three.png', contentType: 'image/png', base64: PNG_3x2 },
    ],
  },
  { operation: 'insert_page', ref: 'parent', title: 'Parent', emoji: '1f600', document: { markdown: 'Parent body.\n\n![img](./one.png)\n' } },
  { operation: 'insert_page', ref: 'child', into: 'parent', title: 'Child', document: { markdown: 'Child **body**.\n' } },
  { operation: 'insert_page', into: 'child', title: 'Grandchild', document: {} },
  { operation: 'insert_page', title: 'Sibling', description: 'About the sibling', document: { markdown: 'Sibling text.\n' } },
];

type Kind = 'space' | 'change request';

interface Content {
  spaceId: string;
  cr: any;
  /** The content base path (`.../content`). */
  base: string;
  /** The batch's answer: created pages and inserted files. */
  result: any;
}

/**
 * A space with content. For `space`, a change request with the changes is merged and the base is
 * the space's content; for `change request`, the change request stays open and is the base.
 */
async function buildContent(kind: Kind, changes: unknown[] = CONTENT): Promise<Content> {
  const space = await createSpace(org.id, owner);
  const cr = await openChangeRequest(space.id, owner);
  const result = await applyChanges(space.id, cr.id, owner, changes);
  if (kind === 'space') {
    const merged = await merge(space.id, cr.id, owner);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    return { spaceId: space.id, cr, base: `/v1/spaces/${space.id}/content`, result };
  }
  return { spaceId: space.id, cr, base: `/v1/spaces/${space.id}/change-requests/${cr.id}/content`, result };
}

async function get(path: string, token = owner) {
  const res = await api('GET', path, { token });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

function flattenPages(pages: any[]): any[] {
  return pages.flatMap((p) => [p, ...flattenPages(p.pages)]);
}

async function download(url: string) {
  const res = await fetchWorker(url);
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

async function downloadError(url: string) {
  const res = await fetchWorker(url);
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

function bytesOfBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

// ---------------------------------------------------------------------------------------------

describe('a fresh space', () => {
  it('has an empty `edits` revision, for the space and for a new change request, valid for both schemas', async () => {
    const space = await createSpace(org.id, owner);
    const revision = await get(`/v1/spaces/${space.id}/content`);
    expectSchema(StrictRevisionSchema, revision);
    expect(gitbookErrors(gitbookRevision, revision)).toBe('valid');
    expect(revision).toMatchObject({ object: 'revision', pages: [], files: [], reusableContents: [], variables: {}, type: 'edits' });
    expect(revision.mergedFrom).toBeUndefined();
    const spaceBody = await get(`/v1/spaces/${space.id}`);
    expect(revision.id).toBe(spaceBody.revision);

    const cr = await openChangeRequest(space.id, owner);
    const crRevision = await get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`);
    expectSchema(StrictRevisionSchema, crRevision);
    expect(gitbookErrors(gitbookRevision, crRevision)).toBe('valid');
    expect(crRevision.id).toBe(revision.id);
    expect(crRevision).toMatchObject({ pages: [], files: [], type: 'edits' });
    expect(await get(`/v1/spaces/${space.id}/content/pages`)).toEqual({ pages: [] });
    expect(await get(`/v1/spaces/${space.id}/content/files`)).toEqual({ items: [], count: 0 });
  });
});

describe('merges', () => {
  it('make a `merge` revision with two parents and `mergedFrom` the change request, whether main moved or not', async () => {
    const space = await createSpace(org.id, owner);
    const first = await openChangeRequest(space.id, owner, 'First');
    const second = await openChangeRequest(space.id, owner, 'Second');
    await applyChanges(space.id, first.id, owner, [{ operation: 'insert_page', title: 'From first', document: { markdown: 'One.\n' } }]);
    await applyChanges(space.id, second.id, owner, [{ operation: 'insert_page', title: 'From second', document: { markdown: 'Two.\n' } }]);
    const firstHead = (await get(`/v1/spaces/${space.id}/change-requests/${first.id}`)).revision;
    const secondHead = (await get(`/v1/spaces/${space.id}/change-requests/${second.id}`)).revision;

    // Main has not moved: the merge revision has the first change request's content.
    const mergedFirst = await merge(space.id, first.id, owner);
    expect(mergedFirst.status, JSON.stringify(mergedFirst.body)).toBe(200);
    const afterFirst = await get(`/v1/spaces/${space.id}/content`);
    expect(afterFirst.id).toBe(mergedFirst.body.revision);
    expect(afterFirst.id).not.toBe(firstHead);
    expect(afterFirst.type).toBe('merge');
    expect(afterFirst.parents).toEqual([space.revision, firstHead]);
    expect(afterFirst.pages.map((p: any) => p.title)).toEqual(['From first']);
    expect(afterFirst.mergedFrom).toMatchObject({ object: 'change-request', id: first.id, number: first.number, subject: 'First', revisionMerged: afterFirst.id });
    expect(gitbookErrors(gitbookRevision, afterFirst)).toBe('valid');

    const merged = await merge(space.id, second.id, owner);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    const revision = await get(`/v1/spaces/${space.id}/content`);
    expect(revision.id).toBe(merged.body.revision);
    expect(revision.type).toBe('merge');
    expect(revision.parents).toEqual([afterFirst.id, secondHead]);
    expect(revision.pages.map((p: any) => p.title).sort()).toEqual(['From first', 'From second']);
    expectSchema(StrictRevisionSchema, revision);
    expectSchema(StrictChangeRequestSchema, revision.mergedFrom);
    expect(revision.mergedFrom).toMatchObject({ object: 'change-request', id: second.id, number: second.number, status: 'merged', revisionMerged: revision.id });

    // GitBook's schema as published: every page carries its body (as Markdown).
    expect(revision.pages.length).toBeGreaterThan(0);
    expect(gitbookErrors(gitbookRevision, revision)).toBe('valid');
  });
});

describe.each<Kind>(['space', 'change request'])('content reads of the %s', (kind) => {
  it('returns the revision, valid for our strict schema and for GitBook’s', async () => {
    const content = await buildContent(kind);
    const revision = await get(content.base);
    expectSchema(StrictRevisionSchema, revision);
    expect(revision.object).toBe('revision');
    expect(revision.type).toBe(kind === 'space' ? 'merge' : 'edits');
    expect(revision.parents).toHaveLength(kind === 'space' ? 2 : 1);
    const crNow = await get(`/v1/spaces/${content.spaceId}/change-requests/${content.cr.id}`);
    expect(revision.id).toBe(kind === 'space' ? crNow.revisionMerged : crNow.revision);
    expect(flattenPages(revision.pages).map((p) => p.path)).toEqual(['parent', 'parent/child', 'parent/child/grandchild', 'sibling']);
    // Files are listed in id order (the order of the revision's file map).
    expect(revision.files.map((f: any) => f.id)).toEqual(sortedIds(revision.files));
    expect(revision.files.map((f: any) => f.name).sort()).toEqual(['notes.txt', 'one.png', 'three.png']);

    // GitBook's schema as published: every page carries its body (as Markdown).
    expect(gitbookErrors(gitbookRevision, revision)).toBe('valid');
    for (const page of flattenPages(revision.pages)) expect(gitbookErrors(gitbookPage, page)).toBe('valid');
    for (const file of revision.files) expect(gitbookErrors(gitbookFile, file)).toBe('valid');
  });

  it('lists the page tree with nested pages and paths, and reads a page by id', async () => {
    const content = await buildContent(kind);
    const { pages } = await get(`${content.base}/pages`);
    for (const page of pages) expectSchema(StrictPageSchema, page);
    const [parent, sibling] = pages;
    const child = parent.pages[0];
    const grandchild = child.pages[0];
    expect([parent.path, child.path, grandchild.path, sibling.path]).toEqual(['parent', 'parent/child', 'parent/child/grandchild', 'sibling']);
    expect([child.slug, grandchild.slug]).toEqual(['child', 'grandchild']);
    expect(parent).toMatchObject({ title: 'Parent', kind: 'sheet', type: 'document', emoji: '1f600', hidden: false, noIndex: false, noRobotsIndex: false });
    expect(sibling.description).toBe('About the sibling');
    expect(child.urls.app).toMatch(/\/parent\/child$/);
    expect(grandchild.documentId).toBeUndefined();
    expect(child.documentId).toEqual(expect.any(String));
    const createdIds = content.result.changes.map((c: any) => c.page.id);
    expect([parent.id, child.id, grandchild.id, sibling.id]).toEqual(createdIds);

    const byId = await get(`${content.base}/page/${child.id}`);
    expectSchema(RevisionPageWithContentSchema.strict(), byId);
    expect(byId).toMatchObject({ id: child.id, title: 'Child', path: 'parent/child', slug: 'child', documentId: child.documentId });
    expect(byId.markdown).toBeUndefined();
    expect(byId.document.object).toBe('document');
    expect(byId.document.nodes[0].type).toBe('paragraph');
    expect(byId.pages.map((p: any) => p.path)).toEqual(['parent/child/grandchild']);
    expect((await get(`${content.base}/page/${child.id}?format=document`)).document).toEqual(byId.document);

    const asMarkdown = await get(`${content.base}/page/${child.id}?format=markdown`);
    expect(asMarkdown.document).toBeUndefined();
    // The title as the leading heading 1, then the body.
    expect(asMarkdown.markdown).toBe('# Child\n\nChild **body**.\n');
    expect(asMarkdown.path).toBe('parent/child');
    const parentMarkdown = await get(`${content.base}/page/${parent.id}?format=markdown`);
    expect(parentMarkdown.markdown).toContain(`![img](/files/${content.result.insertedFiles[0].id})`);
    expect(parentMarkdown.markdown.startsWith('# Parent\n\nParent body.')).toBe(true);
    // A page with a description: YAML frontmatter first, as content batches read it back.
    const siblingMarkdown = await get(`${content.base}/page/${sibling.id}?format=markdown`);
    expect(siblingMarkdown.markdown).toBe('---\ndescription: About the sibling\n---\n\n# Sibling\n\nSibling text.\n');

    const empty = await get(`${content.base}/page/${grandchild.id}`);
    expect(empty.document).toEqual({ object: 'document', data: {}, nodes: [] });

    expectError(await api('GET', `${content.base}/page/${UNKNOWN_ID}`, { token: owner }), 404);
    const other = await buildContent(kind);
    const otherPage = other.result.changes[0].page.id;
    expect((await get(`${other.base}/page/${otherPage}`)).title).toBe('Parent');
    expectError(await api('GET', `${content.base}/page/${otherPage}`, { token: owner }), 404);
  });

  it('pages the files list and reads a file by id', async () => {
    const content = await buildContent(kind);
    const seen: any[] = [];
    let next: string | undefined;
    for (let i = 0; i < 3; i++) {
      const page = await get(`${content.base}/files?limit=1${next ? `&page=${encodeURIComponent(next)}` : ''}`);
      expect(page.count).toBe(3);
      expect(page.items).toHaveLength(1);
      seen.push(...page.items);
      next = page.next?.page;
      if (i < 2) expect(next).toEqual(expect.any(String));
    }
    expect(next).toBeUndefined();
    expect(seen.map((f) => f.name).sort()).toEqual(['notes.txt', 'one.png', 'three.png']);
    for (const file of seen) expectSchema(StrictFileSchema, file);
    expect(seen.map((f) => f.id)).toEqual(sortedIds(content.result.insertedFiles));

    const all = await get(`${content.base}/files`);
    expect(all.count).toBe(3);
    expect(all.next).toBeUndefined();

    const notes = seen.find((f) => f.name === 'notes.txt');
    const byId = await get(`${content.base}/files/${notes.id}`);
    expectSchema(StrictFileSchema, byId);
    expect(byId).toMatchObject({ id: notes.id, name: 'notes.txt', contentType: 'text/plain', size: TEXT.length });
    expect(byId.dimensions).toBeUndefined();
    expectError(await api('GET', `${content.base}/files/${UNKNOWN_ID}`, { token: owner }), 404);
    expectError(await api('GET', `${content.base}/files?page=not-a-cursor`, { token: owner }), 400);
  });

  it('serves files through signed download URLs, refusing tampered, expired or unsigned ones', async () => {
    const content = await buildContent(kind);
    const files = (await get(`${content.base}/files`)).items;
    const png = files.find((f: any) => f.name === 'three.png');
    const text = files.find((f: any) => f.name === 'notes.txt');

    const ok = await download(png.downloadURL);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/png');
    expect([...ok.bytes]).toEqual([...bytesOfBase64(PNG_3x2)]);
    const okText = await download(text.downloadURL);
    expect(okText.status).toBe(200);
    expect(okText.headers.get('content-type')).toBe('text/plain');
    expect(new TextDecoder().decode(okText.bytes)).toBe(TEXT);

    const url = new URL(png.downloadURL);
    const hash = url.pathname.split('/')[2];
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const signature = url.searchParams.get('signature')!;
    expect(signature).toMatch(/^[0-9a-f]{64}$/);

    const tampered = new URL(url);
    tampered.searchParams.set('signature', `${signature.slice(0, 10)}${signature[10] === '0' ? '1' : '0'}${signature.slice(11)}`);
    expectError(await downloadError(tampered.toString()), 403);

    const renamed = new URL(url);
    renamed.pathname = `/files/${hash}/other.png`;
    expectError(await downloadError(renamed.toString()), 403);

    const retyped = new URL(url);
    retyped.searchParams.set('type', 'text/html');
    expectError(await downloadError(retyped.toString()), 403);

    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 60));
    expectError(await downloadError(later.toString()), 403);

    // Correctly signed, but the expiry has passed.
    const entry = { id: png.id, name: png.name, contentType: png.contentType, size: png.size, hash };
    const fresh = await downloadUrl(env as never, url.origin, entry);
    expect((await download(fresh)).status).toBe(200);
    const expired = await downloadUrl(env as never, url.origin, entry, Date.now() - 3 * 60 * 60 * 1000);
    expect(Number(new URL(expired).searchParams.get('expires')) * 1000).toBeLessThan(Date.now());
    expectError(await downloadError(expired), 403, 'expired');

    expectError(await downloadError(`${url.origin}${url.pathname}`), 403);
    expectError(await downloadError(`${url.origin}/files/${hash}/three.png?type=image%2Fpng&expires=soon&signature=${signature}`), 403);
    const noSignature = new URL(url);
    noSignature.searchParams.delete('signature');
    expectError(await downloadError(noSignature.toString()), 403);
  });

  it('serves a file whose name needs encoding in the URL', async () => {
    const name = 'My file é #1?.txt';
    const content = await buildContent(kind, [{ operation: 'insert_files', files: [{ name, contentType: 'text/plain; charset=utf-8', base64: btoa('abc') }] }]);
    const [file] = (await get(`${content.base}/files`)).items;
    expect(file.name).toBe(name);
    const res = await download(file.downloadURL);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(new TextDecoder().decode(res.bytes)).toBe('abc');
  });

  it('gives images their dimensions (PNG, JPEG, GIF, WebP), and no dimensions to other files', async () => {
    const content = await buildContent(kind, [
      {
        operation: 'insert_files',
        files: [
          { name: 'a.png', contentType: 'image/png', base64: PNG_3x2 },
          { name: 'b.jpg', contentType: 'image/jpeg', base64: toBase64(jpeg(320, 200)) },
          { name: 'c.gif', contentType: 'image/gif', base64: toBase64(gif(17, 9)) },
          { name: 'd.webp', contentType: 'image/webp', base64: toBase64(webp(640, 480)) },
          { name: 'e.txt', contentType: 'text/plain', base64: btoa('just text') },
          { name: 'f.png', contentType: 'image/png', base64: btoa('not really a png') },
        ],
      },
    ]);
    expect(content.result.insertedFiles.map((f: any) => [f.name, f.dimensions])).toEqual([
      ['a.png', { width: 3, height: 2 }],
      ['b.jpg', { width: 320, height: 200 }],
      ['c.gif', { width: 17, height: 9 }],
      ['d.webp', { width: 640, height: 480 }],
      ['e.txt', undefined],
      ['f.png', undefined],
    ]);
    const listed = (await get(`${content.base}/files`)).items;
    const byId = new Map(content.result.insertedFiles.map((f: any) => [f.id, f.dimensions]));
    expect(listed.map((f: any) => f.dimensions)).toEqual(listed.map((f: any) => byId.get(f.id)));
    expect(listed).toHaveLength(6);
    for (const file of listed) {
      expectSchema(StrictFileSchema, file);
      expect('dimensions' in file).toBe(file.name === 'e.txt' || file.name === 'f.png' ? false : true);
    }
  });

  it('evaluates expressions with evaluated=true and leaves documents unchanged with dereferenced=true', async () => {
    const expression = { object: 'inline', type: 'expression', key: 'expr', isVoid: true, data: { expression: 'space.vars.name' } };
    const document = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          key: 'p',
          data: {},
          nodes: [
            { object: 'text', key: 't1', leaves: [{ object: 'leaf', text: 'Hello ', marks: [] }] },
            expression,
            { object: 'text', key: 't2', leaves: [{ object: 'leaf', text: '!', marks: [] }] },
          ],
        },
      ],
    };
    const content = await buildContent(kind, [{ operation: 'insert_page', title: 'Vars', document: { document } }]);
    const pageId = content.result.changes[0].page.id;
    const revision = await get(content.base);
    expect(revision.variables).toEqual({});

    const raw = await get(`${content.base}/page/${pageId}`);
    expect(raw.document).toEqual(document);
    expect((await get(`${content.base}/page/${pageId}?evaluated=false`)).document).toEqual(document);

    const evaluatedText = { object: 'text', key: 'expr', leaves: [{ object: 'leaf', text: '', marks: [] }] };
    for (const value of ['true', 'deterministic-only']) {
      const evaluated = await get(`${content.base}/page/${pageId}?evaluated=${value}`);
      expect(evaluated.document.nodes[0].nodes).toEqual([document.nodes[0].nodes[0], evaluatedText, document.nodes[0].nodes[2]]);
    }
    expect((await get(`${content.base}/page/${pageId}?format=markdown`)).markdown).toContain('<code class="expression">space.vars.name</code>');
    expect((await get(`${content.base}/page/${pageId}?format=markdown&evaluated=true`)).markdown).toBe('# Vars\n\nHello !\n');

    for (const value of ['true', 'reusable-contents', 'false']) {
      expect((await get(`${content.base}/page/${pageId}?dereferenced=${value}`)).document).toEqual(document);
    }
    expectError(await api('GET', `${content.base}/page/${pageId}?evaluated=yes`, { token: owner }), 400);
    expectError(await api('GET', `${content.base}/page/${pageId}?dereferenced=maybe`, { token: owner }), 400);
  });

  it('needs the read role: read and comment read, guest/outsider 404, no token 401; query flags are validated', async () => {
    const content = await buildContent(kind);
    const pageId = content.result.changes[0].page.id;
    const fileId = content.result.insertedFiles[0].id;
    const paths = [content.base, `${content.base}/pages`, `${content.base}/files`, `${content.base}/files/${fileId}`, `${content.base}/page/${pageId}`];
    for (const path of paths) {
      for (const role of ['read', 'comment', 'edit'] as const) await get(path, org.members[role].token);
      expectError(await api('GET', path, { token: org.members.guest.token }), 404);
      expectError(await api('GET', path, { token: org.outsider.token }), 404);
      expectError(await api('GET', path, {}), 401);
      const flags = await api('GET', `${path}?metadata=false&computed=false`, { token: org.members.read.token });
      expect(flags.status, JSON.stringify(flags.body)).toBe(200);
      expect((await api('GET', `${path}?metadata=true&computed=true`, { token: owner })).status).toBe(200);
      expectError(await api('GET', `${path}?metadata=nope`, { token: owner }), 400);
    }
    const withFlags = await get(`${content.base}/page/${pageId}?metadata=false&computed=false&format=markdown`);
    expect(withFlags.markdown).toContain('Parent body.');
    expectError(await api('GET', `${content.base}/page/${pageId}?format=html`, { token: owner }), 400);
    expectError(await api('GET', `${content.base}/page/${pageId}?format=`, { token: owner }), 400);
  });
});

describe('change request content addressed by number', () => {
  it('reads the same content by number as by id, and 404s an unknown change request', async () => {
    const content = await buildContent('change request');
    const byNumber = `/v1/spaces/${content.spaceId}/change-requests/${content.cr.number}/content`;
    const pageId = content.result.changes[1].page.id;
    const fileId = content.result.insertedFiles[2].id;
    expect(await get(byNumber)).toEqual(await get(content.base));
    expect(await get(`${byNumber}/pages`)).toEqual(await get(`${content.base}/pages`));
    const viaNumber = await get(`${byNumber}/page/${pageId}`);
    expect(viaNumber).toEqual(await get(`${content.base}/page/${pageId}`));
    expect(viaNumber.urls.app).toContain(`/~/changes/${content.cr.number}/`);
    expect((await get(`${byNumber}/files/${fileId}`)).name).toBe('three.png');
    expect((await get(`${byNumber}/files`)).count).toBe(3);
    expectError(await api('GET', `/v1/spaces/${content.spaceId}/change-requests/99/content`, { token: owner }), 404);
    expectError(await api('GET', `/v1/spaces/${content.spaceId}/change-requests/${UNKNOWN_ID}/content/pages`, { token: owner }), 404);
    // The space's own content is still empty: the change request is not merged.
    expect(await get(`/v1/spaces/${content.spaceId}/content/pages`)).toEqual({ pages: [] });
  });
});


describe("another organization's ids", () => {
  it('answers 404 for content of a space, change request, page or file of another organization', async () => {
    const content = await buildContent('change request');
    const pageId = content.result.changes[0].page.id;
    const fileId = content.result.insertedFiles[0].id;
    const other = await seedOrg();
    const otherSpace = await createSpace(other.id, other.owner.token);
    const otherCr = await openChangeRequest(otherSpace.id, other.owner.token);
    // The other organization's owner asks for this organization's content...
    const theirs = other.owner.token;
    for (const path of [content.base, `${content.base}/pages`, `${content.base}/files/${fileId}`, `${content.base}/page/${pageId}`]) {
      expectError(await api('GET', path, { token: theirs }), 404);
    }
    // ...and ids of this organization's pages and files under their own space and change request are unknown there.
    for (const base of [`/v1/spaces/${otherSpace.id}/content`, `/v1/spaces/${otherSpace.id}/change-requests/${otherCr.id}/content`]) {
      expectError(await api('GET', `${base}/page/${pageId}`, { token: theirs }), 404);
      expectError(await api('GET', `${base}/files/${fileId}`, { token: theirs }), 404);
    }
    // A change request of this organization addressed under their space is unknown too.
    expectError(await api('GET', `/v1/spaces/${otherSpace.id}/change-requests/${content.cr.id}/content`, { token: theirs }), 404);
  });
});

function sortedIds(files: Array<{ id: string }>): string[] {
  return files.map((f) => f.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
