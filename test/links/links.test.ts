import { beforeAll, describe, expect, it } from 'vitest';
import { api, BASE, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { PNG_1x1, applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';

/**
 * Links and backlinks: statuses against main content and against a change request, in-app URLs,
 * backlinks of pages and files, stats and paging, and the access rules.
 */

let org: TestOrg;
let spaceId: string;
let guide: string;
let faq: string;
let target: string;
let fileId: string;
let staleCr: { id: string; number: number };

const get = (path: string, token = org.owner.token) => api('GET', path, { token });

beforeAll(async () => {
  org = await seedOrg();
  spaceId = (await createSpace(org.id, org.owner.token, 'Linked')).id;
  const cr = await openChangeRequest(spaceId, org.owner.token, 'Content');
  const applied = await applyChanges(spaceId, cr.number, org.owner.token, [
    { operation: 'insert_files', files: [{ ref: 'logo', name: 'logo.png', contentType: 'image/png', base64: PNG_1x1 }] },
    { operation: 'insert_page', ref: 'target', title: 'Target', document: { markdown: 'The target page.\n' } },
    {
      operation: 'insert_page',
      ref: 'guide',
      title: 'Guide',
      document: { markdown: `See [the target](/pages/target) and [an external site](https://example.com/docs).\n\n![logo](./logo)\n\nAlso [inside the app](${BASE}/o/x/s/y/page).\n` },
    },
    { operation: 'insert_page', ref: 'faq', title: 'FAQ', document: { markdown: 'Read [the target](/pages/target).\n\n![logo](./logo)\n' } },
  ]);
  const pages = applied.changes.filter((c: any) => c.page).map((c: any) => c.page.id);
  [target, guide, faq] = pages;
  fileId = applied.insertedFiles[0].id;
  expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
  // A change request opened now still has the target page after main deletes it.
  staleCr = await openChangeRequest(spaceId, org.owner.token, 'Still has the target');
  await applyChanges(spaceId, staleCr.number, org.owner.token, [{ operation: 'update_page', page: faq, document: { markdown: 'Read [the target](/pages/target) again.\n' } }]);
});

describe('links of main content', () => {
  it('lists every target with its status, the pages linking to it and the stats', async () => {
    const res = expectStatus(await get(`/v1/spaces/${spaceId}/links`), 200).body;
    expect(res.stats).toEqual({ total: 6, broken: { total: 0 } });
    expect(res.count).toBe(4);
    const byKind = Object.fromEntries(res.items.map((u: any) => [u.targetReference?.kind === 'url' ? u.targetReference.url : u.targetReference?.kind, u]));
    expect(byKind.page).toMatchObject({ status: 'ok', relation: 'reference', targetReference: { kind: 'page', page: { id: target, title: 'Target' } } });
    expect(byKind.page.locationReferences.map((l: any) => l.page.id).sort()).toEqual([guide, faq].sort());
    expect(byKind.page.locationReferences[0]).toMatchObject({ kind: 'page', organization: { id: org.id }, space: { id: spaceId } });
    expect(byKind.file).toMatchObject({ status: 'ok', targetReference: { kind: 'file', file: { id: fileId, name: 'logo.png' } } });
    expect(byKind['https://example.com/docs']).toMatchObject({ status: 'ok' });
    expect(byKind[`${BASE}/o/x/s/y/page`]).toMatchObject({ status: 'in-app' });
    const inApp = expectStatus(await get(`/v1/spaces/${spaceId}/links?status=in-app`), 200).body;
    expect(inApp.count).toBe(1);
    const paged = expectStatus(await get(`/v1/spaces/${spaceId}/links?limit=3`), 200).body;
    const rest = expectStatus(await get(`/v1/spaces/${spaceId}/links?limit=3&page=${paged.next.page}`), 200).body;
    expect(paged.items.length + rest.items.length).toBe(4);
    expect(rest).not.toHaveProperty('next');
  });

  it("lists one page's links, and 404 for a page that is not there", async () => {
    const res = expectStatus(await get(`/v1/spaces/${spaceId}/content/page/${faq}/links`), 200).body;
    expect(res.count).toBe(2);
    expect(res.items.every((u: any) => u.locationReferences.length === 1 && u.locationReferences[0].page.id === faq)).toBe(true);
    expectError(await get(`/v1/spaces/${spaceId}/content/page/nope/links`), 404);
    expectError(await get(`/v1/spaces/${spaceId}/links?status=dead`), 400);
  });

  it('backlinks of a page and of a file used by two pages', async () => {
    const pageBacklinks = expectStatus(await get(`/v1/spaces/${spaceId}/content/page/${target}/backlinks`), 200).body;
    expect(pageBacklinks.items.map((l: any) => l.page.id).sort()).toEqual([guide, faq].sort());
    expect(pageBacklinks.count).toBe(2);
    const fileBacklinks = expectStatus(await get(`/v1/spaces/${spaceId}/content/files/${fileId}/backlinks?limit=1`), 200).body;
    expect(fileBacklinks.count).toBe(2);
    const second = expectStatus(await get(`/v1/spaces/${spaceId}/content/files/${fileId}/backlinks?limit=1&page=${fileBacklinks.next.page}`), 200).body;
    expect([...fileBacklinks.items, ...second.items].map((l: any) => l.page.id).sort()).toEqual([guide, faq].sort());
    expectError(await get(`/v1/spaces/${spaceId}/content/files/nope/backlinks`), 404);
    expectError(await get(`/v1/spaces/${spaceId}/content/page/nope/backlinks`), 404);
  });

  it('a link becomes broken on main when its target page is deleted there, and stays ok in a change request that still has it', async () => {
    const del = await openChangeRequest(spaceId, org.owner.token, 'Delete the target');
    await applyChanges(spaceId, del.number, org.owner.token, [{ operation: 'delete_page', page: target }]);
    expectStatus(await merge(spaceId, del.number, org.owner.token), 200);
    const main = expectStatus(await get(`/v1/spaces/${spaceId}/links?status=broken`), 200).body;
    expect(main.stats.broken.total).toBe(2);
    expect(main.items).toHaveLength(1);
    expect(main.items[0]).not.toHaveProperty('targetReference');
    expect(main.items[0].locationReferences.map((l: any) => l.page.id).sort()).toEqual([guide, faq].sort());
    const inCr = expectStatus(await get(`/v1/spaces/${spaceId}/change-requests/${staleCr.number}/content/page/${faq}/links`), 200).body;
    expect(inCr.items.map((u: any) => u.status)).toEqual(['ok']);
    expect(inCr.items[0].targetReference).toMatchObject({ kind: 'page', page: { id: target } });
    expect(inCr.stats).toEqual({ total: 1, broken: { total: 0, changeRequest: 0 } });
  });

  it("a change request's file backlinks follow its own content", async () => {
    const cr = await openChangeRequest(spaceId, org.owner.token, 'Drop the logo from the guide');
    await applyChanges(spaceId, cr.number, org.owner.token, [{ operation: 'update_page', page: guide, document: { markdown: 'No more logo.\n' } }]);
    const res = expectStatus(await get(`/v1/spaces/${spaceId}/change-requests/${cr.number}/content/files/${fileId}/backlinks`), 200).body;
    expect(res.items.map((l: any) => l.page.id)).toEqual([faq]);
    expect(res.count).toBe(1);
    const onMain = expectStatus(await get(`/v1/spaces/${spaceId}/content/files/${fileId}/backlinks`), 200).body;
    expect(onMain.count).toBe(2);
  });

  it('needs read access: 401, 404 for guests, outsiders and other organizations', async () => {
    expectError(await api('GET', `/v1/spaces/${spaceId}/links`), 401);
    for (const token of [org.members.guest.token, org.outsider.token]) {
      expectError(await get(`/v1/spaces/${spaceId}/links`, token), 404);
      expectError(await get(`/v1/spaces/${spaceId}/content/page/${guide}/links`, token), 404);
      expectError(await get(`/v1/spaces/${spaceId}/content/files/${fileId}/backlinks`, token), 404);
      expectError(await get(`/v1/spaces/${spaceId}/change-requests/${staleCr.number}/content/page/${faq}/links`, token), 404);
      expectError(await get(`/v1/spaces/${spaceId}/change-requests/${staleCr.number}/content/files/${fileId}/backlinks`, token), 404);
    }
    expectStatus(await get(`/v1/spaces/${spaceId}/links`, org.members.read.token), 200);
    const other = await seedOrg();
    const theirs = (await createSpace(other.id, other.owner.token, 'Theirs')).id;
    expectError(await get(`/v1/spaces/${theirs}/links`), 404);
    expectError(await get(`/v1/spaces/${theirs}/content/page/${guide}/backlinks`), 404);
  });
});

describe("GitBook's schemas (@gitbook/api 0.146.0: the link operations are not in 0.202.0)", () => {
  it('every link and backlink operation answers with the published response schema (pages without their bodies, as tree reads)', async () => {
    const { default: spec } = await import('@gitbook/api/spec/openapi.json');
    const { gitbookErrors, gitbookOperations, schemaValidator, withoutPageBodyMember } = await import('../helpers/gitbook-schema');
    const operations = gitbookOperations(spec as never);
    const components = withoutPageBodyMember((spec as never as { components: never }).components);
    const cases: Array<[string, string]> = [
      ['listSpaceLinks', `/v1/spaces/${spaceId}/links`],
      ['listPageLinksInSpace', `/v1/spaces/${spaceId}/content/page/${guide}/links`],
      ['listPageLinksInChangeRequest', `/v1/spaces/${spaceId}/change-requests/${staleCr.number}/content/page/${faq}/links`],
      ['listSpacePageBacklinks', `/v1/spaces/${spaceId}/content/page/${faq}/backlinks`],
      ['listSpaceFileBacklinks', `/v1/spaces/${spaceId}/content/files/${fileId}/backlinks`],
      ['listChangeRequestFileBacklinks', `/v1/spaces/${spaceId}/change-requests/${staleCr.number}/content/files/${fileId}/backlinks`],
    ];
    for (const [operationId, path] of cases) {
      const res = expectStatus(await get(path), 200);
      const schema = operations.get(operationId)!.responses['200']!;
      expect(gitbookErrors(schemaValidator(schema, components), res.body), `${operationId}: ${JSON.stringify(res.body).slice(0, 500)}`).toBe('valid');
    }
  });
});

describe('found in review', () => {
  it('a link whose target id cannot be a key (a quote, a slash) reads as broken, never a 500', async () => {
    const sid = (await createSpace(org.id, org.owner.token, 'Odd links')).id;
    const link = (page: string) => ({ object: 'inline', type: 'link', data: { ref: { kind: 'page', page } }, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'odd', marks: [] }] }] });
    const document = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [link(`${guide}"`), link('a/b'), link("x'); drop table spaces; --")] }] };
    const cr = await openChangeRequest(sid, org.owner.token, 'Odd');
    const applied = await applyChanges(sid, cr.number, org.owner.token, [{ operation: 'insert_page', title: 'Odd', document: { document } }]);
    const page = applied.changes[0].page.id;
    const inCr = expectStatus(await get(`/v1/spaces/${sid}/change-requests/${cr.number}/content/page/${page}/links`), 200).body;
    expect(inCr.items.map((u: any) => u.status)).toEqual(['broken', 'broken', 'broken']);
    expectStatus(await merge(sid, cr.number, org.owner.token), 200);
    const main = expectStatus(await get(`/v1/spaces/${sid}/links`), 200).body;
    expect(main.stats).toEqual({ total: 3, broken: { total: 3 } });
    expectStatus(await get(`/v1/spaces/${sid}/content/page/${page}/links?status=broken`), 200);
  });
});

describe('role table of the link and search reads', () => {
  it('every role from read to admin reads them; a guest and an outsider get 404; no token 401', async () => {
    const { CALLERS, callerUser } = await import('../helpers/harness');
    const paths = [
      `/v1/spaces/${spaceId}/links`,
      `/v1/spaces/${spaceId}/content/page/${guide}/links`,
      `/v1/spaces/${spaceId}/content/page/${faq}/backlinks`,
      `/v1/spaces/${spaceId}/content/files/${fileId}/backlinks`,
      `/v1/spaces/${spaceId}/change-requests/${staleCr.number}/content/page/${faq}/links`,
      `/v1/spaces/${spaceId}/change-requests/${staleCr.number}/content/files/${fileId}/backlinks`,
      `/v1/spaces/${spaceId}/search?query=target`,
    ];
    for (const caller of CALLERS) {
      const token = callerUser(org, caller).token;
      const expected = caller === 'guest' || caller === 'outsider' ? 404 : 200;
      for (const path of paths) expect((await get(path, token)).status, `${caller} ${path}`).toBe(expected);
      expect((await get(`/v1/orgs/${org.id}/search?query=target`, token)).status, `${caller} org search`).toBe(caller === 'outsider' ? 404 : 200);
    }
    for (const path of paths) expectError(await api('GET', path), 401);
  });
});
