/**
 * Content caps (src/services/limits/caps.ts, checked on every head move in src/services/content/head-moves.ts):
 * pages and files per space (403) and bytes per file (413). Each cap answers at the boundary and not before;
 * writes that do not add are never refused; a refusal writes nothing.
 *
 * Budgets: content batches, merges, updates, imports and templates are limited to 5 per user per 10 s in
 * this project, so each test has a user of its own and seeds through SQL or the space's writer what it
 * does not exercise through the route.
 */
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import { sha256Hex } from '../../src/lib/ids';
import { setOutboundFetch } from '../../src/lib/outbound';
import { fileKey } from '../../src/services/content/files';
import { templateChanges } from '../../src/templates';
import { PNG_1x1, createSpace, merge, openChangeRequest, pageTree, postChanges } from '../helpers/content';
import { api, createUser, expectError, expectStatus } from '../helpers/harness';
import { largeManifest, pageId, seedContent } from '../helpers/large-content';

// The caps of this project (TEST_CAPS in test/limits/vitest.config.ts).
const PAGES = 6;
const FILES = 3;
const FILE_BYTES = 2048;

const PAGES_CAP = /^Cap reached: at most 6 pages in a space \(MAX_PAGES_PER_SPACE\)$/;
const FILES_CAP = /^Cap reached: at most 3 files in a space \(MAX_FILES_PER_SPACE\)$/;

/** A user of its own (its own rate limit budgets), with an organization and one space. */
async function fresh() {
  const user = await createUser();
  const org = expectStatus(await api('POST', '/v1/orgs', { token: user.token, body: { title: 'Caps' } }), 201);
  const space = await createSpace(org.body.id, user.token);
  return { user, token: user.token, spaceId: space.id as string };
}

const insertPages = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ operation: 'insert_page', title: `Page ${from + i}`, document: {} }));

const file = (name: string, bytes: Uint8Array, contentType = 'application/octet-stream') => ({ name, contentType, base64: toBase64(bytes) });
const insertFiles = (...files: ReturnType<typeof file>[]) => ({ operation: 'insert_files', files });
const bytesOf = (n: number, fill = 65) => new Uint8Array(n).fill(fill);

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

const crHead = (crId: string) => env.DB.prepare('select revision_id from change_requests where id = ?').bind(crId).first<string>('revision_id');
const mainHead = (spaceId: string) => env.DB.prepare('select revision_id from spaces where id = ?').bind(spaceId).first<string>('revision_id');
const countsOf = (revision: string | null) =>
  env.DB.prepare('select page_count as pages, file_count as files from revisions where id = ?').bind(revision).first<{ pages: number; files: number }>();

/** A content batch applied through the space's writer (seeding: no request, no rate limit). */
async function seedBatch(spaceId: string, changeRequestId: string, userId: string, changes: unknown[]) {
  const result = await spaceWriter(env, spaceId).applyContent({ spaceId, changeRequestId, userId }, changes as never);
  expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
}

/** Main two pages below the cap, and two change requests that each add two pages: either merges, not both. */
async function twoChangeRequestsOfTwoPages() {
  const { user, token, spaceId } = await fresh();
  await seedContent(spaceId, largeManifest(0, PAGES - 2));
  const first = await openChangeRequest(spaceId, token, 'First');
  const second = await openChangeRequest(spaceId, token, 'Second');
  await seedBatch(spaceId, first.id, user.id, insertPages(2, 100));
  await seedBatch(spaceId, second.id, user.id, insertPages(2, 200));
  return { token, spaceId, first, second };
}

describe('pages per space (MAX_PAGES_PER_SPACE)', () => {
  it('a change request batch reaching the cap passes, one page more is refused and writes nothing, edits and deletions pass, a deletion frees a slot', async () => {
    const { token, spaceId } = await fresh();
    const cr = await openChangeRequest(spaceId, token);
    const filled = expectStatus(await postChanges(spaceId, cr.id, token, insertPages(PAGES), false), 200);
    const pages = filled.body.changes.map((c: any) => c.page.id as string);
    const atCap = await crHead(cr.id);
    expect(await countsOf(atCap)).toMatchObject({ pages: PAGES });

    expectError(await postChanges(spaceId, cr.id, token, insertPages(1, PAGES)), 403, PAGES_CAP);
    expect(await crHead(cr.id)).toBe(atCap);

    // At the cap, a batch that edits, moves and deletes (and so adds nothing) passes.
    const edits = [
      { operation: 'update_page', page: pages[0], title: 'Renamed', document: { markdown: 'Edited' } },
      { operation: 'update_page', page: pages[1], into: pages[0] },
      { operation: 'delete_page', page: pages[2] },
    ];
    expectStatus(await postChanges(spaceId, cr.id, token, edits), 200);
    expect(await countsOf(await crHead(cr.id))).toMatchObject({ pages: PAGES - 1 });

    // The deleted page's slot is free again.
    expectStatus(await postChanges(spaceId, cr.id, token, insertPages(1, PAGES)), 200);
    expect(await pageTree(spaceId, token, cr.id)).toHaveLength(PAGES);
  });

  it('over the cap (as after the cap was lowered), edits and deletions pass and only growth is refused', async () => {
    const { token, spaceId } = await fresh();
    await seedContent(spaceId, largeManifest(0, PAGES + 2));
    const cr = await openChangeRequest(spaceId, token);
    const seeded = (i: number) => pageId(`p-0-${i}`);

    const shrink = [
      { operation: 'update_page', page: seeded(0), document: { markdown: 'Still over the cap' } },
      { operation: 'delete_page', page: seeded(1) },
    ];
    expectStatus(await postChanges(spaceId, cr.id, token, shrink), 200);
    const over = await crHead(cr.id);
    expect(await countsOf(over)).toMatchObject({ pages: PAGES + 1 });

    expectError(await postChanges(spaceId, cr.id, token, insertPages(1)), 403, PAGES_CAP);
    expect(await crHead(cr.id)).toBe(over);

    // A page in, a page out: no more pages than before.
    expectStatus(await postChanges(spaceId, cr.id, token, [...insertPages(1), { operation: 'delete_page', page: seeded(2) }]), 200);
    expect(await countsOf(await crHead(cr.id))).toMatchObject({ pages: PAGES + 1 });
  });

  it('a merge whose result would pass the cap is refused and leaves main and the change request unchanged', async () => {
    const { token, spaceId, first, second } = await twoChangeRequestsOfTwoPages();

    // Main reaches the cap exactly (a fast-forward: its merge revision).
    expectStatus(await merge(spaceId, first.id, token), 200);
    const main = await mainHead(spaceId);
    expect(await countsOf(main)).toMatchObject({ pages: PAGES });
    const merges = () => env.DB.prepare("select count(*) as n from revisions where space_id = ? and type = 'merge'").bind(spaceId).first<number>('n');
    expect(await merges()).toBe(1);

    // Each change request is within the cap; their three-way merge would not be.
    const secondHead = await crHead(second.id);
    expectError(await merge(spaceId, second.id, token), 403, PAGES_CAP);
    expect(await mainHead(spaceId)).toBe(main);
    expect(await crHead(second.id)).toBe(secondHead);
    const after = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${second.id}`, { token }), 200);
    expect(after.body.status).toBe('open');
    // No revision was written for the refused merge.
    expect(await merges()).toBe(1);
  });

  it('an update that would bring the change request past the cap is refused and leaves it unchanged', async () => {
    const { token, spaceId, first, second } = await twoChangeRequestsOfTwoPages();
    expectStatus(await merge(spaceId, first.id, token), 200);

    const secondHead = await crHead(second.id);
    expectError(await api('POST', `/v1/spaces/${spaceId}/change-requests/${second.id}/update`, { token }), 403, PAGES_CAP);
    expect(await crHead(second.id)).toBe(secondHead);
  });

  it('pulling main into a change request still at its base is a fast-forward, never refused, even with main over a lowered cap', async () => {
    const { token, spaceId } = await fresh();
    await seedContent(spaceId, largeManifest(0, PAGES - 1));
    const behind = await openChangeRequest(spaceId, token, 'Behind');
    // Main moves past the cap (as if the cap were lowered after it grew): the change request stays at its base.
    const { revision } = await seedContent(spaceId, largeManifest(0, PAGES + 2));
    expectStatus(await api('POST', `/v1/spaces/${spaceId}/change-requests/${behind.id}/update`, { token }), 200);
    expect(await crHead(behind.id)).toBe(revision);
  });

  it('on main content: a template that reaches the cap is applied, one past it is refused, and so is a change request opened with it', async () => {
    const { token, spaceId } = await fresh();
    const templatePages = (await templateChanges({ id: 'changelog' })).length;
    expect(templatePages).toBeLessThan(PAGES);
    await seedContent(spaceId, largeManifest(0, PAGES - templatePages));

    expectStatus(await api('POST', `/v1/spaces/${spaceId}/content/template`, { token, body: { id: 'changelog' } }), 201);
    const main = await mainHead(spaceId);
    expect(await countsOf(main)).toMatchObject({ pages: PAGES });

    expectError(await api('POST', `/v1/spaces/${spaceId}/content/template`, { token, body: { id: 'changelog' } }), 403, PAGES_CAP);
    expect(await mainHead(spaceId)).toBe(main);

    const opened = await api('POST', `/v1/spaces/${spaceId}/change-requests`, { token, body: { subject: 'Changelog', template: { id: 'changelog' } } });
    expectError(opened, 403, PAGES_CAP);
    expect(await env.DB.prepare('select count(*) as n from change_requests where space_id = ?').bind(spaceId).first<number>('n')).toBe(0);
  });
});

describe('files per space (MAX_FILES_PER_SPACE)', () => {
  it('files up to the cap pass, one more is refused and stores nothing, a batch without files still passes', async () => {
    const { token, spaceId } = await fresh();
    const cr = await openChangeRequest(spaceId, token);
    const three = insertFiles(...Array.from({ length: FILES }, (_, i) => file(`f${i}.bin`, bytesOf(10, 65 + i))));
    expectStatus(await postChanges(spaceId, cr.id, token, [...insertPages(1), three]), 200);
    const atCap = await crHead(cr.id);
    expect(await countsOf(atCap)).toMatchObject({ files: FILES });

    const extra = bytesOf(10, 90);
    expectError(await postChanges(spaceId, cr.id, token, [insertFiles(file('extra.bin', extra))]), 403, FILES_CAP);
    expect(await crHead(cr.id)).toBe(atCap);
    expect(await env.FILES.head(fileKey(await sha256Hex(extra)))).toBeNull();

    // Page edits and new pages do not add files.
    expectStatus(await postChanges(spaceId, cr.id, token, insertPages(1, 1)), 200);
    const files = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/files`, { token }), 200);
    expect(files.body.count).toBe(FILES);
  });

  it('a merge whose files would pass the cap is refused and leaves main unchanged', async () => {
    const { user, token, spaceId } = await fresh();
    const first = await openChangeRequest(spaceId, token, 'First');
    const second = await openChangeRequest(spaceId, token, 'Second');
    await seedBatch(spaceId, first.id, user.id, [insertFiles(file('a.bin', bytesOf(10, 65)), file('b.bin', bytesOf(10, 66)))]);
    await seedBatch(spaceId, second.id, user.id, [insertFiles(file('c.bin', bytesOf(10, 67)), file('d.bin', bytesOf(10, 68)))]);
    expectStatus(await merge(spaceId, first.id, token), 200);
    const main = await mainHead(spaceId);

    expectError(await merge(spaceId, second.id, token), 403, FILES_CAP);
    expect(await mainHead(spaceId)).toBe(main);
    expect(await countsOf(main)).toMatchObject({ files: 2 });
  });
});

describe('bytes per file (MAX_FILE_BYTES)', () => {
  it('a file of exactly the cap passes; one byte more answers 413 naming MAX_FILE_BYTES and writes nothing', async () => {
    const { token, spaceId } = await fresh();
    const cr = await openChangeRequest(spaceId, token);
    const res = expectStatus(await postChanges(spaceId, cr.id, token, [insertFiles(file('fits.bin', bytesOf(FILE_BYTES)))], false), 200);
    expect(res.body.insertedFiles).toMatchObject([{ name: 'fits.bin', size: FILE_BYTES }]);
    const head = await crHead(cr.id);

    const over = bytesOf(FILE_BYTES + 1, 66);
    const refused = await postChanges(spaceId, cr.id, token, [...insertPages(1), insertFiles(file('small.bin', bytesOf(5, 67)), file('over.bin', over))]);
    expectError(refused, 413, /^changes\[1\] \(insert_files\): files\[1\] "over\.bin": the file is 2049 bytes; the limit is 2048 \(MAX_FILE_BYTES\)$/);
    expect(await crHead(cr.id)).toBe(head);
    expect(await env.FILES.head(fileKey(await sha256Hex(over)))).toBeNull();
  });

  describe('website import', () => {
    const SITE = 'https://caps.example.com';
    const png = Uint8Array.from(atob(PNG_1x1), (c) => c.charCodeAt(0));
    /** The 1x1 PNG padded with zeros to `size` bytes: still a PNG by its signature. */
    const paddedPng = (size: number) => {
      const bytes = new Uint8Array(size);
      bytes.set(png);
      return bytes;
    };
    const site = (request: Request): Promise<Response> => {
      const path = new URL(request.url).pathname;
      const image = (size: number) => new Response(paddedPng(size), { headers: { 'content-type': 'image/png' } });
      if (path === '/fits.png') return Promise.resolve(image(FILE_BYTES));
      if (path === '/over.png') return Promise.resolve(image(FILE_BYTES + 1));
      const body = '<html><body><main><h1>Home</h1><p><img src="/fits.png" alt="Fits"> <img src="/over.png" alt="Over"></p></main></body></html>';
      return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/html' } }));
    };
    beforeAll(() => {
      setOutboundFetch(site);
    });
    afterAll(() => {
      setOutboundFetch();
    });

    it('imports an image of exactly the cap and leaves out one byte more (its URL kept)', async () => {
      const { token, spaceId } = await fresh();
      const cr = await openChangeRequest(spaceId, token);
      const res = expectStatus(await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/import`, { token, body: { url: `${SITE}/`, source: 'website' } }), 201);
      expect(res.body.importedResources).toBe(2);
      const files = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/files`, { token }), 200);
      expect(files.body.items).toMatchObject([{ size: FILE_BYTES }]);
      const pages = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/pages`, { token }), 200);
      const markdown = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${pages.body.pages[0].id}?format=markdown`, { token }), 200);
      expect(markdown.body.markdown).toContain(`${SITE}/over.png`);
    });
  });
});
