/**
 * The content reads of issue 44, checked against GitBook 0.202.0's response schemas and for what they say:
 * revision pages, files and reusable contents by revision id, documents by id (and only the space's own),
 * semantic changes of a revision and of a change request, change request reads by path, meta links,
 * reusable contents, contributors, computed documents and revisions, and the space's PDF.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setOutboundFetch } from '../../src/lib/outbound';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { addMember, api, createUser, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { toStoredDocument } from '../../src/services/content/revisions';

let org: TestOrg;
let owner: string;

const OPERATIONS = gitbookOperations();
/**
 * GitBook's page_edited `attributes` is a oneOf of the document's, group's and link's attributes, which share `title`,
 * `emoji` and `slug` and allow more properties: an edit of a title alone matches all three, so no such edit can be valid
 * under oneOf. The semantic changes are checked with it read as anyOf (one of them at least), what GitBook means.
 */
const COMPONENTS = (() => {
  const components = structuredClone(GITBOOK_0202.components) as any;
  const attributes = components.schemas.RevisionSemanticChangePageEdited.properties.attributes;
  attributes.anyOf = attributes.oneOf;
  delete attributes.oneOf;
  return components;
})();
function expectGitbook(operationId: string, body: unknown) {
  const validator = schemaValidator(OPERATIONS.get(operationId)!.responses['200']!, COMPONENTS);
  expect(gitbookErrors(validator, body), `${operationId}: ${JSON.stringify(body)}`).toBe('valid');
}
const get = async (path: string, token = owner) => expectStatus(await api('GET', path, { token }), 200).body;

interface Fixture {
  spaceId: string;
  first: string;
  head: string;
  crNumber: number;
  ids: { guides: string; install: string; faq: string };
  shared: string;
}

/** A first merge (Guides > Install, FAQ), a second (Install renamed and edited, FAQ deleted), and an open change request. */
async function fixture(): Promise<Fixture> {
  const space = await createSpace(org.id, owner, 'Parity');
  const cr1 = await openChangeRequest(space.id, owner, 'First');
  const result = await applyChanges(space.id, cr1.number, owner, [
    { operation: 'insert_page', ref: 'guides', title: 'Guides', document: { markdown: 'Guides.\n' } },
    { operation: 'insert_page', ref: 'install', into: 'guides', title: 'Install', document: { markdown: 'Install one.\n' } },
    { operation: 'insert_page', ref: 'faq', title: 'FAQ', document: { markdown: 'Answers.\n' } },
  ]);
  expectStatus(await merge(space.id, cr1.number, owner), 200);
  const [guides, install, faq] = result.changes.map((c: any) => c.page.id as string);
  const first = (await get(`/v1/spaces/${space.id}/content`)).id as string;
  const cr2 = await openChangeRequest(space.id, owner, 'Second');
  await applyChanges(space.id, cr2.number, owner, [
    { operation: 'update_page', page: install, title: 'Installation', slug: 'installation', document: { markdown: 'Install two.\n' } },
    { operation: 'delete_page', page: faq },
  ]);
  expectStatus(await merge(space.id, cr2.number, owner), 200);
  const head = (await get(`/v1/spaces/${space.id}/content`)).id as string;
  // A reusable content in the head's meta (no operation writes one yet), its document referred to by the space.
  const shared = await toStoredDocument({ object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', key: 'p', data: {}, nodes: [{ object: 'text', key: 't', leaves: [{ object: 'leaf', text: 'Shared.', marks: [] }] }] }] } as never);
  await env.DB.prepare('insert or ignore into documents (hash, body, created_at) values (?, ?, ?)').bind(shared.hash, shared.body, new Date().toISOString()).run();
  await env.DB.prepare('insert or ignore into space_documents (space_id, hash) values (?, ?)').bind(space.id, shared.hash).run();
  const meta = { variables: { version: '2.0' }, reusableContents: [{ id: 'rcShared', title: 'Shared', document: shared.hash }] };
  await env.DB.prepare('update revisions set meta = ? where id = ?').bind(JSON.stringify(meta), head).run();
  const cr3 = await openChangeRequest(space.id, owner, 'Third');
  await applyChanges(space.id, cr3.number, owner, [{ operation: 'insert_page', title: 'New page', document: { markdown: 'New.\n' } }]);
  await applyChanges(space.id, cr3.number, owner, [{ operation: 'update_page', page: guides, title: 'All guides' }]);
  return { spaceId: space.id, first, head, crNumber: cr3.number, ids: { guides, install, faq }, shared: shared.hash };
}

let f: Fixture;
beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
  f = await fixture();
});

const space = (suffix: string) => `/v1/spaces/${f.spaceId}${suffix}`;

describe('reads of a revision by id', () => {
  it("listPagesInRevisionById, listFilesInRevisionById, getFileInRevisionById: that revision's, not the head's", async () => {
    const old = await get(space(`/revisions/${f.first}/pages`));
    expectGitbook('listPagesInRevisionById', old);
    expect(old.pages.map((p: any) => p.title)).toEqual(['Guides', 'FAQ']);
    const head = await get(space(`/revisions/${f.head}/pages`));
    expect(head.pages.map((p: any) => p.title)).toEqual(['Guides']);
    expect(head.pages[0].pages.map((p: any) => p.title)).toEqual(['Installation']);
    const files = await get(space(`/revisions/${f.first}/files`));
    expectGitbook('listFilesInRevisionById', files);
    expect(files).toMatchObject({ items: [], count: 0 });
    expectError(await api('GET', space(`/revisions/${f.first}/files/nope`), { token: owner }), 404);
    expectError(await api('GET', space(`/revisions/unknownRevision/pages`), { token: owner }), 404);
  });

  it('getReusableContentInRevisionById and getReusableContentById give the title and the document id getDocumentById reads', async () => {
    const inRevision = await get(space(`/revisions/${f.head}/reusable-contents/rcShared`));
    expectGitbook('getReusableContentInRevisionById', inRevision);
    expect(inRevision).toEqual({ id: 'rcShared', title: 'Shared', document: f.shared });
    const current = await get(space(`/content/reusable-contents/rcShared`));
    expectGitbook('getReusableContentById', current);
    expect(current).toEqual(inRevision);
    // The first revision has none.
    expectError(await api('GET', space(`/revisions/${f.first}/reusable-contents/rcShared`), { token: owner }), 404);
    const document = await get(space(`/documents/${current.document}`));
    expectGitbook('getDocumentById', document);
    expect(JSON.stringify(document)).toContain('Shared.');
  });

  it("getDocumentById reads a page's documentId, never a document of another space nor a tree node", async () => {
    const page = await get(space(`/content/page/${f.ids.guides}`));
    const document = await get(space(`/documents/${page.documentId}`));
    expectGitbook('getDocumentById', document);
    expect(JSON.stringify(document)).toContain('Guides.');
    // Another space with the same text has the same document: it is not this other space's to read by id.
    const other = await createSpace(org.id, owner, 'Other');
    expectError(await api('GET', `/v1/spaces/${other.id}/documents/${page.documentId}`, { token: owner }), 404);
    const root = (await env.DB.prepare('select pages_root from revisions where id = ?').bind(f.head).first<{ pages_root: string }>())!.pages_root;
    expectError(await api('GET', space(`/documents/${root}`), { token: owner }), 404);
  });

  it('getRevisionSemanticChanges: pages created, edited, deleted, variables and reusable contents; a merge names its change request', async () => {
    const firstChanges = await get(space(`/revisions/${f.first}/changes`));
    expectGitbook('getRevisionSemanticChanges', firstChanges);
    expect(firstChanges.changes.filter((c: any) => c.type === 'page_created').map((c: any) => c.page.title).sort()).toEqual(['FAQ', 'Guides', 'Install']);
    // A merge revision names the change request it merged, as getRevisionById does (a fast-forward names none).
    expect((await get(space(`/revisions/${f.head}/changes`))).mergedFrom).toEqual((await get(space(`/revisions/${f.head}`))).mergedFrom);
    const headChanges = await get(space(`/revisions/${f.head}/changes`));
    expectGitbook('getRevisionSemanticChanges', headChanges);
    const byType = (type: string) => headChanges.changes.filter((c: any) => c.type === type);
    expect(byType('page_deleted').map((c: any) => c.page.id)).toEqual([f.ids.faq]);
    const edited = byType('page_edited').find((c: any) => c.page.id === f.ids.install);
    expect(edited.attributes.title).toEqual({ before: 'Install', after: 'Installation' });
    expect(edited.attributes.slug).toEqual({ before: 'install', after: 'installation' });
    expect(edited.attributes.document.before).not.toEqual(edited.attributes.document.after);
    expect(byType('variables_edited')).toEqual([{ type: 'variables_edited', variables: { version: { after: '2.0' } } }]);
    expect(byType('reusable_content_created')).toEqual([{ type: 'reusable_content_created', reusableContent: { id: 'rcShared', title: 'Shared', document: f.shared } }]);
    const limited = await get(space(`/revisions/${f.first}/changes?limit=1`));
    expect(limited.changes).toHaveLength(1);
    expect(limited.more).toBe(2);
    expectError(await api('GET', space(`/revisions/${f.first}/changes?limit=0`), { token: owner }), 400);
  });
});

describe('reads of a change request', () => {
  const cr = (suffix: string) => space(`/change-requests/${f.crNumber}${suffix}`);

  it('getChangeRequestChanges: what it changes from the main content it is based on', async () => {
    const changes = await get(cr('/changes'));
    expectGitbook('getChangeRequestChanges', changes);
    expect(changes.changes.map((c: any) => [c.type, c.page?.title]).sort()).toEqual([
      ['page_created', 'New page'],
      ['page_edited', 'All guides'],
    ]);
  });

  it('getPageInChangeRequestByPath, listChangeRequestPageMetaLinks, getReusableContentInChangeRequestById', async () => {
    const page = await get(cr('/content/path/new-page'));
    expectGitbook('getPageInChangeRequestByPath', page);
    expect(page).toMatchObject({ title: 'New page', path: 'new-page' });
    // Not on main yet.
    expectError(await api('GET', space('/content/path/new-page'), { token: owner }), 404);
    const links = await get(cr(`/content/page/${page.id}/meta-links`));
    expectGitbook('listChangeRequestPageMetaLinks', links);
    expectError(await api('GET', cr('/content/page/nope/meta-links'), { token: owner }), 404);
    const spaceLinks = await get(space(`/content/page/${f.ids.guides}/meta-links`));
    expectGitbook('listSpacePageMetaLinks', spaceLinks);
    const reusable = await get(cr('/content/reusable-contents/rcShared'));
    expectGitbook('getReusableContentInChangeRequestById', reusable);
    expect(reusable.title).toBe('Shared');
  });

  it('getContributorsByChangeRequestId: editors with their edit counts, then those who only commented', async () => {
    const commenter = await createUser();
    await addMember(org.id, commenter.id, 'comment');
    expectStatus(await api('POST', cr('/comments'), { token: commenter.token, body: { body: { markdown: 'Looks good' } } }), 200);
    const contributors = await get(cr('/contributors'));
    expectGitbook('getContributorsByChangeRequestId', contributors);
    expect(contributors.items.map((c: any) => [c.user.id, c.actionType, c.count])).toEqual([
      [org.owner.id, 'edit', 2],
      [commenter.id, 'comment', 1],
    ]);
    expectError(await api('GET', space('/change-requests/999/contributors'), { token: owner }), 404);
  });
});

describe('computed content and the PDF', () => {
  it('getComputedDocument and getComputedRevision of a spec that does not exist say so; other sources are a 400', async () => {
    const source = { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'missing' } } }, props: { doc: 'models' } };
    const document = expectStatus(await api('POST', space('/content/computed/document'), { token: owner, body: { source, seed: 's1' } }), 200).body;
    expectGitbook('getComputedDocument', document);
    expect(JSON.stringify(document)).toContain('does not exist');
    const revision = expectStatus(
      await api('POST', space('/content/computed/revision'), { token: owner, body: { source: { ...source, props: { models: true } }, seed: 's1' } }),
      200,
    ).body;
    expectGitbook('getComputedRevision', revision);
    expect(revision).toEqual({ pages: [], files: [], reusableContents: [] });
    expectError(await api('POST', space('/content/computed/document'), { token: owner, body: { source: { type: 'integration:x:y', props: {} }, seed: 's' } }), 400);
  });

  it("getComputedDocument needs membership of the organization: a guest with a grant on the space reads no spec through it", async () => {
    const guest = await createUser();
    await addMember(org.id, guest.id, 'guest');
    expectStatus(await api('POST', space('/permissions'), { token: owner, body: { role: 'read', users: [guest.id] } }), 204);
    await get(space('/content'), guest.token);
    const source = { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'missing' } } }, props: { doc: 'models' } };
    expectError(await api('POST', space('/content/computed/document'), { token: guest.token, body: { source, seed: 's' } }), 403);
  });

  it("getSpacePDF: a signed URL of the space's PDF; a page that is not the space's is a 400", async () => {
    const pdf = await get(space('/pdf'));
    expectGitbook('getSpacePDF', pdf);
    const bytes = await api('GET', new URL(pdf.url).pathname + new URL(pdf.url).search, {});
    expect(bytes.status).toBe(200);
    expectError(await api('GET', space('/pdf?only=true&page=nope'), { token: owner }), 400);
  });

  it('reads cost at most two D1 round trips', async () => {
    const page = await get(space(`/content/page/${f.ids.guides}`));
    for (const path of [
      space(`/revisions/${f.first}/pages`),
      space(`/revisions/${f.first}/files`),
      space(`/content/reusable-contents/rcShared`),
      space(`/documents/${page.documentId}`),
      space(`/change-requests/${f.crNumber}/contributors`),
      space(`/change-requests/${f.crNumber}/content/path/new-page`),
    ]) {
      const { status, roundTrips } = await measureRoundTrips('GET', path, owner);
      expect(status, path).toBe(200);
      expect(roundTrips, path).toBeLessThanOrEqual(2);
    }
  });
});

describe('URLs', () => {
  afterEach(() => setOutboundFetch());

  it('getEmbedByUrl fetches through the guarded outbound fetch (a stand-in here) and refuses private addresses without a request', async () => {
    const requested: string[] = [];
    setOutboundFetch(async (request) => {
      requested.push(request.url);
      return new Response('<html><head><title>Kumquats</title></head></html>', { headers: { 'content-type': 'text/html' } });
    });
    const embed = expectStatus(await api('GET', `/v1/urls/embed?url=${encodeURIComponent('https://fruit.example.com/k')}`, { token: owner }), 200).body;
    expectGitbook('getEmbedByUrl', embed);
    expect(embed).toMatchObject({ type: 'link', title: 'Kumquats', site: 'fruit.example.com' });
    expectError(await api('GET', `/v1/urls/embed?url=${encodeURIComponent('http://127.0.0.1/admin')}`, { token: owner }), 400);
    expect(requested).toEqual(['https://fruit.example.com/k']);
    expectError(await api('GET', `/v1/urls/embed?url=${encodeURIComponent('https://fruit.example.com/k')}`), 401);
  });

  it("getContentByUrl resolves the app URLs of a space, a change request's page and a collection, for those who may read them", async () => {
    const s = await get(space(''));
    const bySpace = await get(`/v1/urls/content?url=${encodeURIComponent(s.urls.app)}`);
    expectGitbook('getContentByUrl', bySpace);
    expect(bySpace.space.id).toBe(f.spaceId);
    const crUrl = `${s.urls.app}/~/changes/${f.crNumber}/new-page`;
    const byPage = await get(`/v1/urls/content?url=${encodeURIComponent(crUrl)}`);
    expectGitbook('getContentByUrl', byPage);
    expect(byPage).toMatchObject({ space: { id: f.spaceId }, changeRequest: { number: f.crNumber }, page: { title: 'New page', path: 'new-page' } });
    const collection = expectStatus(await api('POST', `/v1/orgs/${org.id}/collections`, { token: owner, body: { title: 'Shelf' } }), 201).body;
    const byCollection = await get(`/v1/urls/content?url=${encodeURIComponent(collection.urls.app)}`);
    expectGitbook('getContentByUrl', byCollection);
    expect(byCollection.collection.id).toBe(collection.id);
    // Another organization's admin, an unknown page, another host: 404s.
    const other = await seedOrg();
    expectError(await api('GET', `/v1/urls/content?url=${encodeURIComponent(s.urls.app)}`, { token: other.owner.token }), 404);
    expectError(await api('GET', `/v1/urls/content?url=${encodeURIComponent(`${s.urls.app}/no-such-page`)}`, { token: owner }), 404);
    expectError(await api('GET', `/v1/urls/content?url=${encodeURIComponent(`https://elsewhere.example.com/o/${org.id}/s/${f.spaceId}`)}`, { token: owner }), 404);
  });

  it('getPublishedContentByUrl answers as resolvePublishedContentByUrl: an unknown URL is a 404', async () => {
    expectError(await api('GET', `/v1/urls/published?url=${encodeURIComponent('https://nowhere.example.com/docs')}`), 404);
    expectError(await api('GET', '/v1/urls/published?url=not-a-url'), 400);
  });
});
