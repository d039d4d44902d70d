/**
 * Tree reads (a revision, the page list, the child pages of a page read; of the space and of a change
 * request) give every document page its body as Markdown, as GitBook's `RevisionPageDocument` requires:
 * the Markdown its document was stored with (migration 0015, computed once when it is stored), its
 * document converted when it was stored before (no Markdown), a generated page's generated document
 * converted, and an empty string for an empty page. No read costs a round trip more for it.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ComputedRevisionSource } from '../../src/services/openapi/computed-pages';
import type { SpecOutline } from '../../src/services/openapi/types';
import { documentToMarkdown, type JSONDocument } from '../../src/services/markdown';
import { documentText } from '../../src/services/content/packed-documents';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { seedSpec, seedSpecVersion } from '../helpers/openapi';
import { measureRoundTrips } from '../helpers/round-trips';

let org: TestOrg;
let owner: string;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
});

const get = async (path: string) => expectStatus(await api('GET', path, { token: owner }), 200).body;
const flatten = (pages: any[]): any[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);
const mainOf = (spaceId: string) => `/v1/spaces/${spaceId}/content`;
const crOf = (spaceId: string, cr: number) => `/v1/spaces/${spaceId}/change-requests/${cr}/content`;

/** The Markdown of each page of a tree read, by title. */
const markdownByTitle = (pages: any[]) => Object.fromEntries(flatten(pages).map((p) => [p.title, p.markdown]));

interface Fixture {
  spaceId: string;
  cr: number;
  ids: Record<'parent' | 'child' | 'empty' | 'sibling', string>;
}

/** Parent > Child > Empty, and Sibling, merged into main content; the change request stays open on the same content. */
async function fixture(): Promise<Fixture> {
  const space = await createSpace(org.id, owner, 'Bodies');
  const first = await openChangeRequest(space.id, owner, 'Pages');
  const result = await applyChanges(space.id, first.number, owner, [
    { operation: 'insert_page', ref: 'parent', title: 'Parent', document: { markdown: 'Parent **text**.\n' } },
    { operation: 'insert_page', ref: 'child', into: 'parent', title: 'Child', document: { markdown: 'Child text with a [link](https://example.com).\n\n- one\n- two\n' } },
    { operation: 'insert_page', ref: 'empty', into: 'child', title: 'Empty', document: {} },
    { operation: 'insert_page', ref: 'sibling', title: 'Sibling', document: { markdown: 'Sibling text.\n\n## Part\n\nMore.\n' } },
  ]);
  expectStatus(await merge(space.id, first.number, owner), 200);
  const [parent, child, empty, sibling] = result.changes.map((c: any) => c.page.id as string);
  const cr = (await openChangeRequest(space.id, owner, 'Later')).number as number;
  return { spaceId: space.id, cr, ids: { parent, child, empty, sibling } };
}

/** What a page's body is as Markdown: its document (read by id, as stored) converted; empty without one. */
async function expectedMarkdown(base: string, page: any): Promise<string> {
  const read = await get(`${base}/page/${page.id}`);
  return page.documentId ? documentToMarkdown(read.document as JSONDocument) : '';
}

/** Every page of the tree reads of `base` (revision, page list, child pages of a page read) carries `expected` by title. */
async function expectTreeMarkdown(base: string, parentId: string, expected: Record<string, string>) {
  const revision = await get(base);
  expect(markdownByTitle(revision.pages)).toEqual(expected);
  expect(markdownByTitle((await get(`${base}/pages`)).pages)).toEqual(expected);
  for (const format of ['document', 'markdown']) {
    const read = await get(`${base}/page/${parentId}?format=${format}`);
    const { Parent: _, Sibling: __, ...below } = expected;
    expect(markdownByTitle(read.pages), format).toEqual(below);
  }
}

const KNOWN = {
  Parent: 'Parent **text**.\n',
  Child: 'Child text with a [link](https://example.com).\n\n- one\n- two\n',
  Empty: '',
  Sibling: 'Sibling text.\n\n## Part\n\nMore.\n',
};

describe('tree reads carry each page body as Markdown', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it('the revision, the page list and a page read give every page the Markdown of its document, of the space and of a change request', async () => {
    for (const base of [mainOf(f.spaceId), crOf(f.spaceId, f.cr)]) {
      const pages = flatten((await get(base)).pages);
      expect(pages).toHaveLength(4);
      const expected: Record<string, string> = {};
      for (const page of pages) expected[page.title] = await expectedMarkdown(base, page);
      expect(expected).toEqual(KNOWN);
      await expectTreeMarkdown(base, f.ids.parent, KNOWN);
    }
  });

  it('a page read carries its own body in the format asked for, not the tree Markdown beside it', async () => {
    const asDocument = await get(`${mainOf(f.spaceId)}/page/${f.ids.child}`);
    expect(asDocument.markdown).toBeUndefined();
    expect(asDocument.document).toBeDefined();
    expect(asDocument.pages[0]).toMatchObject({ title: 'Empty', markdown: '' });
    const asMarkdown = await get(`${mainOf(f.spaceId)}/page/${f.ids.child}?format=markdown`);
    expect(asMarkdown.markdown).toBe(`# Child\n\n${KNOWN.Child}`);
    expect(asMarkdown.pages[0].markdown).toBe('');
  });

  it('stores the document in one form: no Markdown copy beside it; tree reads derive the Markdown from it', async () => {
    const pages = flatten((await get(mainOf(f.spaceId))).pages).filter((p) => p.documentId);
    expect(pages).toHaveLength(3);
    for (const page of pages) {
      const row = await env.DB.prepare('select body, markdown from documents where hash = ?').bind(page.documentId).first<{ body: number[]; markdown: string | null }>();
      expect(row!.markdown, page.title).toBeNull();
      expect(page.markdown).toBe(documentToMarkdown(JSON.parse(documentText(row!.body))));
    }
  });

  it("an edited page's Markdown changes in the change request, and in main content once merged", async () => {
    const space = await fixture();
    await applyChanges(space.spaceId, space.cr, owner, [{ operation: 'update_page', page: space.ids.child, document: { markdown: 'Edited *child*.\n' } }]);
    const edited = { ...KNOWN, Child: 'Edited *child*.\n' };
    await expectTreeMarkdown(crOf(space.spaceId, space.cr), space.ids.parent, edited);
    await expectTreeMarkdown(mainOf(space.spaceId), space.ids.parent, KNOWN);
    expectStatus(await merge(space.spaceId, space.cr, owner), 200);
    await expectTreeMarkdown(mainOf(space.spaceId), space.ids.parent, edited);
  });
});

describe('documents stored without Markdown (before migration 0015, and every one since 0051)', () => {
  it('tree reads convert their body, and storing the same document again stores no copy', async () => {
    const f = await fixture();
    const pages = flatten((await get(mainOf(f.spaceId))).pages).filter((p) => p.documentId);
    const hashes = pages.map((p) => p.documentId as string);
    const stored = await env.DB.prepare(`select count(*) as n from documents where markdown is null and hash in (${hashes.map(() => '?').join(', ')})`)
      .bind(...hashes)
      .first<number>('n');
    expect(stored).toBe(3);
    await expectTreeMarkdown(mainOf(f.spaceId), f.ids.parent, KNOWN);
    await expectTreeMarkdown(crOf(f.spaceId, f.cr), f.ids.parent, KNOWN);

    // A page whose document is the Sibling's, sent as a document: the same hash, stored again.
    const sibling = await get(`${mainOf(f.spaceId)}/page/${f.ids.sibling}`);
    await applyChanges(f.spaceId, f.cr, owner, [{ operation: 'insert_page', title: 'Copy', document: { document: sibling.document } }]);
    const copy = flatten((await get(crOf(f.spaceId, f.cr))).pages).find((p) => p.title === 'Copy');
    expect(copy.documentId).toBe(sibling.documentId);
    expect(copy.markdown).toBe(KNOWN.Sibling);
    const row = await env.DB.prepare('select markdown from documents where hash = ?').bind(sibling.documentId).first<string | null>('markdown');
    expect(row).toBeNull();
  });

  it('a document row inserted without Markdown (as before the migration) reads as its converted body', async () => {
    const f = await fixture();
    const document = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Legacy body', marks: [{ object: 'mark', type: 'bold' }] }] }] }] };
    const created = await applyChanges(f.spaceId, f.cr, owner, [{ operation: 'insert_page', title: 'Legacy', document: { document } }]);
    const id = created.changes[0].page.id;
    const hash = flatten((await get(crOf(f.spaceId, f.cr))).pages).find((p) => p.id === id).documentId as string;
    // Rewritten as an old row: no markdown column value, its JSON as text (before migration 0052), no refs.
    const row = await env.DB.prepare('select body, created_at from documents where hash = ?').bind(hash).first<{ body: number[]; created_at: string }>();
    const json = documentText(row!.body);
    await env.DB.batch([
      env.DB.prepare('delete from documents where hash = ?').bind(hash),
      env.DB.prepare('insert into documents (hash, body, created_at) values (?, ?, ?)').bind(hash, json, row!.created_at),
    ]);
    const legacy = flatten((await get(crOf(f.spaceId, f.cr))).pages).find((p) => p.id === id);
    expect(legacy.markdown).toBe('**Legacy body**\n');
    expect(legacy.markdown).toBe(documentToMarkdown(JSON.parse(json)));
  });
});

describe('D1 round trips', () => {
  it('tree reads and page reads answer with their Markdown in one round trip, as before, with stored Markdown and without', async () => {
    const f = await fixture();
    const paths = (base: string) => [base, `${base}/pages`, `${base}/page/${f.ids.parent}`, `${base}/page/${f.ids.parent}?format=markdown`];
    const measure = async () => {
      for (const path of [...paths(mainOf(f.spaceId)), ...paths(crOf(f.spaceId, f.cr))]) {
        const r = await measureRoundTrips('GET', path, owner);
        expect(r.status, path).toBe(200);
        // One: the token, the caller's access and the content are read in one batch (as before pages carried Markdown).
        expect(r.roundTrips, path).toBe(1);
        const pages = flatten((r.body as { pages: unknown[] }).pages);
        expect(pages.length, path).toBeGreaterThan(0);
        for (const page of pages) expect(page.markdown, `${path}: ${page.title}`).toBe(KNOWN[page.title as keyof typeof KNOWN]);
      }
    };
    await measure();
    const hashes = flatten((await get(mainOf(f.spaceId))).pages).flatMap((p) => (p.documentId ? [p.documentId as string] : []));
    expect(hashes).toHaveLength(3);
    await env.DB.prepare(`update documents set markdown = null where hash in (${hashes.map(() => '?').join(', ')})`)
      .bind(...hashes)
      .run();
    await measure();
  });
});

describe('computed pages', () => {
  const OUTLINE: SpecOutline = {
    title: 'Shop',
    version: '1.0.0',
    description: 'The **Shop** API.',
    tags: [
      { name: 'items', description: 'Items for sale', operations: [{ path: '/items', method: 'get', summary: 'List items' }, { path: '/items', method: 'post', summary: 'Add an item' }] },
      { name: 'orders', operations: [{ path: '/orders', method: 'get', summary: 'List orders' }] },
    ],
    schemas: ['Item'],
  };

  it('a generated page carries the Markdown of its generated document; a computed page read as stored carries none', async () => {
    const spec = await seedSpec(org.id);
    await seedSpecVersion(spec.id, OUTLINE);
    const source: ComputedRevisionSource = { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: spec.slug } } }, props: { models: true } };
    const space = await createSpace(org.id, owner, 'Reference');
    const cr = await openChangeRequest(space.id, owner, 'API');
    await applyChanges(space.id, cr.number, owner, [{ operation: 'insert_page', title: 'API', computed: source }]);
    expectStatus(await merge(space.id, cr.number, owner), 200);
    const base = mainOf(space.id);
    const pages = flatten((await get(`${base}/pages`)).pages);
    expect(pages.length).toBe(1 + 2 + 1);
    for (const page of pages) {
      expect(page.markdown, page.title).toBe(await expectedMarkdown(base, { ...page, documentId: 'generated' }));
      expect(page.markdown.length, page.title).toBeGreaterThan(0);
    }
    expect(pages.find((p) => p.title === 'items').markdown).toContain('Items for sale');
    const top = await get(`${base}/page/${pages[0].id}`);
    expect(markdownByTitle(top.pages)).toEqual(Object.fromEntries(pages.slice(1).map((p) => [p.title, p.markdown])));

    const stored = (await get(`${base}/pages?computed=false`)).pages;
    expect(stored).toHaveLength(1);
    expect(stored[0].type).toBe('computed');
    expect(stored[0].markdown).toBeUndefined();
  });
});

describe('/openapi.json', () => {
  it('documents the Markdown of a tree page', async () => {
    const doc = await get('/openapi.json');
    const page = doc.components.schemas.RevisionPageDocument;
    expect(page.properties.markdown).toMatchObject({ type: 'string' });
    expect(page.properties.markdown.description).toContain('tree read');
  });
});
