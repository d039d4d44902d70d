/**
 * What GitBook's site renderer reads with a site token besides the published view and the space: the six
 * revision reads (only the space's published revision: an older one is not found), searchSiteContent (only
 * the token's site, only the spaces it may open), getEmbedByUrlInSpace (only the token's spaces) and
 * getLatestOpenAPISpecVersionContent (only its organization's public specs). Another
 * site's space, another organization's, an unpublished site: not found.
 */
import { env } from 'cloudflare:workers';
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setOutboundFetch } from '../../src/lib/outbound';
import { toStoredDocument } from '../../src/services/content/revisions';
import { issueSiteToken } from '../../src/services/sites/site-token';
import { createSpace } from '../helpers/content';
import { seedSpec, seedSpecVersion } from '../helpers/openapi';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator, withFilesystemList } from '../helpers/gitbook-schema';
import { api, BASE, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { publishedSite, publishPages, spaceWithPages } from '../site/helpers';

let org: TestOrg;
let other: TestOrg;
let space: { id: string; pages: Record<string, string> };
/** The space's revision before its last merge, and its current (published) one. */
let older: string;
let head: string;
let site: { id: string; path: string };
let secondSpace: string;
let otherSite: { id: string; path: string };
let foreignSpace: { id: string; head: string; page: string };
let token: string;

const OPERATIONS = gitbookOperations();
/** GitBook 0.202's components with the documented filesystem divergence, copied once. */
const COMPONENTS = withFilesystemList();
function expectGitbook(operationId: string, body: unknown) {
  const validator = schemaValidator(OPERATIONS.get(operationId)!.responses['200']!, COMPONENTS);
  expect(gitbookErrors(validator, body), `${operationId}: ${JSON.stringify(body)}`).toBe('valid');
}

const tokenFor = async (url: string) => expectStatus(await api('POST', '/v1/urls/published', { body: { url } }), 200).body.apiToken as string;
const currentRevision = async (spaceId: string) => expectStatus(await api('GET', `/v1/spaces/${spaceId}/content`, { token: org.owner.token }), 200).body.id as string;
const paragraph = (text: string) => ({ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] });

/** Each revision read of `revision` of `spaceId` (a page id of that revision, the path of one). */
const reads = (spaceId: string, revision: string, pageId: string, pagePath: string) => {
  const base = `/v1/spaces/${spaceId}/revisions/${revision}`;
  return {
    getRevisionById: base,
    getPageInRevisionById: `${base}/page/${pageId}`,
    getPageDocumentInRevisionById: `${base}/page/${pageId}/document`,
    listRevisionPageMetaLinks: `${base}/page/${pageId}/meta-links`,
    getPageInRevisionByPath: `${base}/path/${encodeURIComponent(pagePath)}`,
    getReusableContentDocumentInRevisionById: `${base}/reusable-contents/rcShared/document`,
  };
};

beforeAll(async () => {
  org = await seedOrg();
  other = await seedOrg();
  space = await spaceWithPages(org, 'Docs', [{ operation: 'insert_page', title: 'Home', document: { markdown: 'The kumquat home.\n' } }]);
  older = await currentRevision(space.id);
  Object.assign(space.pages, await publishPages(space.id, org.owner.token, [{ operation: 'insert_page', title: 'Guide', document: { markdown: 'Kumquat guide.\n' } }]));
  head = await currentRevision(space.id);
  // A reusable content in the published revision (no operation writes one yet), as test/space-content/revisions does.
  const shared = await toStoredDocument({ object: 'document', data: {}, nodes: [paragraph('Shared kumquat.')] } as never);
  await env.DB.prepare('insert or ignore into documents (hash, body, created_at) values (?, ?, ?)').bind(shared.hash, shared.body, new Date().toISOString()).run();
  await env.DB.prepare('update revisions set meta = ? where id = ?').bind(JSON.stringify({ reusableContents: [{ id: 'rcShared', title: 'Shared', document: shared.hash }] }), head).run();
  site = await publishedSite(org, [space.id], 'public', 'Reads');

  // Another site of the organization, and another organization's site: both mention kumquats too.
  secondSpace = (await spaceWithPages(org, 'Second', [{ operation: 'insert_page', title: 'Other', document: { markdown: 'Kumquat elsewhere.\n' } }])).id;
  otherSite = await publishedSite(org, [secondSpace], 'public', 'Other');
  const foreign = await spaceWithPages(other, 'Foreign', [{ operation: 'insert_page', title: 'Foreign', document: { markdown: 'Foreign kumquat.\n' } }]);
  const foreignHead = expectStatus(await api('GET', `/v1/spaces/${foreign.id}/content`, { token: other.owner.token }), 200).body.id;
  foreignSpace = { id: foreign.id, head: foreignHead, page: foreign.pages.Foreign };
  await publishedSite(other, [foreign.id], 'public', 'Foreign');

  token = await tokenFor(`${BASE}/s/${site.id}/`);
});

describe('revision reads with a site token', () => {
  it("each of the six reads the space's published revision", async () => {
    for (const [operationId, path] of Object.entries(reads(space.id, head, space.pages.Guide, 'guide'))) {
      const res = await api('GET', path, { token });
      expect(res.status, `${operationId}: ${JSON.stringify(res.body)}`).toBe(200);
      expectGitbook(operationId, res.body);
    }
    const page = expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${head}/path/guide?format=markdown`, { token }), 200).body;
    expect(page).toMatchObject({ id: space.pages.Guide, title: 'Guide' });
    expect(page.markdown).toContain('Kumquat guide.');
    const revision = expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${head}`, { token }), 200).body;
    expect(revision.pages.map((p: any) => p.title)).toEqual(['Home', 'Guide']);
    const reusable = expectStatus(await api('GET', reads(space.id, head, '', '').getReusableContentDocumentInRevisionById, { token }), 200).body;
    expect(JSON.stringify(reusable)).toContain('Shared kumquat.');
  });

  it('an older revision of the space is not found, though a member reads it', async () => {
    for (const [operationId, path] of Object.entries(reads(space.id, older, space.pages.Home, 'home'))) {
      const res = await api('GET', path, { token });
      expect(res.status, `${operationId}: ${JSON.stringify(res.body)}`).toBe(404);
    }
    expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${older}/page/${space.pages.Home}`, { token: org.owner.token }), 200);
  });

  it("another site's space, another organization's space, a revision of another space: not found", async () => {
    const second = await currentRevision(secondSpace);
    for (const path of [
      ...Object.values(reads(secondSpace, second, space.pages.Home, 'other')),
      ...Object.values(reads(foreignSpace.id, foreignSpace.head, foreignSpace.page, 'foreign')),
      // The published revision of another space, asked under the token's space.
      ...Object.values(reads(space.id, second, space.pages.Home, 'other')),
    ]) {
      const res = await api('GET', path, { token });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(404);
    }
  });

  it('stops reading when the site no longer publishes the space', async () => {
    const shortLived = await publishedSite(org, [space.id], 'public', 'Short lived');
    const fresh = await tokenFor(`${BASE}/s/${shortLived.id}/`);
    const path = `/v1/spaces/${space.id}/revisions/${head}/page/${space.pages.Home}`;
    expectStatus(await api('GET', path, { token: fresh }), 200);
    expectStatus(await api('POST', `${shortLived.path}/unpublish`, { token: org.owner.token }), 200);
    expectError(await api('GET', path, { token: fresh }), 404, 'Space not found');
  });
});

describe('searchSiteContent with a site token', () => {
  const search = (siteId: string, orgId = org.id, bearer = token) =>
    api('POST', `/v1/orgs/${orgId}/sites/${siteId}/search`, { token: bearer, body: { query: 'kumquat', scope: { mode: 'all' } } });

  it("finds in its site's spaces only", async () => {
    const res = expectStatus(await search(site.id), 200).body;
    expect(gitbookErrors(schemaValidator(OPERATIONS.get('searchSiteContent')!.responses['200']!, GITBOOK_0202.components), res)).toBe('valid');
    expect(res.items.map((item: any) => item.id)).toEqual([space.id]);
    // A member sees the same site's results (unchanged for members).
    expect(expectStatus(await search(site.id, org.id, org.owner.token), 200).body.items.map((item: any) => item.id)).toEqual([space.id]);
  });

  it("another site of the organization, another organization's: not found", async () => {
    expectError(await search(otherSite.id), 404);
    expectError(await search(site.id, other.id), 404);
  });

  it('a space of the site the token may not open is not searched', async () => {
    // A token whose spaces leave one of the site's out (as a visitor's claims do) does not find it.
    const both = await publishedSite(org, [space.id, secondSpace], 'public', 'Both');
    const wide = await tokenFor(`${BASE}/s/${both.id}/`);
    expect(expectStatus(await search(both.id, org.id, wide), 200).body.items.map((item: any) => item.id).sort()).toEqual([space.id, secondSpace].sort());
    const { token: narrow } = await issueSiteToken({ SITE_TOKENS_KEY: 'test-site-tokens-key' }, { ...(decodeJwt(wide) as any), spaces: [space.id] });
    expect(expectStatus(await search(both.id, org.id, narrow), 200).body.items.map((item: any) => item.id)).toEqual([space.id]);
  });

  it('an unpublished site: not found', async () => {
    const soon = await publishedSite(org, [space.id], 'public', 'Soon');
    const fresh = await tokenFor(`${BASE}/s/${soon.id}/`);
    expectStatus(await search(soon.id, org.id, fresh), 200);
    expectStatus(await api('POST', `${soon.path}/unpublish`, { token: org.owner.token }), 200);
    expectError(await search(soon.id, org.id, fresh), 404);
  });
});

describe('getEmbedByUrlInSpace with a site token', () => {
  const requested: string[] = [];
  afterEach(() => {
    setOutboundFetch();
    requested.length = 0;
  });
  const embed = (spaceId: string) => api('GET', `/v1/spaces/${spaceId}/embed?url=${encodeURIComponent('https://plain.example.com/')}`, { token });

  it("embeds in its site's space; another site's or organization's space is not found, with no request made", async () => {
    setOutboundFetch(async (request) => {
      requested.push(request.url);
      return new Response('<html><head><title>Plain</title></head></html>', { headers: { 'content-type': 'text/html' } });
    });
    expect(expectStatus(await embed(space.id), 200).body).toMatchObject({ type: 'link', title: 'Plain' });
    expect(requested).toEqual(['https://plain.example.com/']);
    requested.length = 0;
    const unpublished = (await createSpace(org.id, org.owner.token, 'Draft')).id;
    for (const spaceId of [secondSpace, foreignSpace.id, unpublished]) expectError(await embed(spaceId), 404, 'Space not found');
    expect(requested).toEqual([]);
  });
});

describe('getLatestOpenAPISpecVersionContent with a site token', () => {
  // What GitBook's renderer fetches for an API reference block (`ref: {kind: 'openapi', spec}`): found by the
  // renderer run of issue 32, where this answered 403 and every computed API reference page was a 500.
  const outline = { title: 'Kumquat API', version: '1.0.0', tags: [], operations: [], schemas: [] } as never;
  const content = (slug: string, orgId = org.id, bearer = token) => api('GET', `/v1/orgs/${orgId}/openapi/${slug}/versions/latest/content`, { token: bearer });

  it("reads a public spec of its organization (GitBook's shape); a private one, another organization's: not found", async () => {
    const pub = await seedSpec(org.id, { visibility: 'public', state: 'complete', job: null });
    await seedSpecVersion(pub.id, outline);
    const priv = await seedSpec(org.id, { visibility: 'private', state: 'complete', job: null });
    await seedSpecVersion(priv.id, outline);
    const foreign = await seedSpec(other.id, { slug: pub.slug, visibility: 'public', state: 'complete', job: null });
    await seedSpecVersion(foreign.id, outline);

    const res = expectStatus(await content(pub.slug), 200).body;
    expectGitbook('getLatestOpenAPISpecVersionContent', res);
    expect(res.filesystem.map((file: { filename: string }) => file.filename)).toEqual(['openapi.json']);
    expect(res.urls.public).toContain(`/public/openapi/${org.id}/${pub.slug}`);
    // The renderer links its API reference blocks to `source`: for a visitor, the URL a visitor can open.
    expect(res.urls.source).toBe(res.urls.public);
    expect(res.url).toBe(res.urls.public);
    const served = await api('GET', new URL(res.urls.source).pathname);
    expect(served.status).toBe(200);
    // A member reads the version's content in this API as its source.
    const asMember = expectStatus(await content(pub.slug, org.id, org.owner.token), 200).body;
    expect(asMember.urls.source).toMatch(new RegExp(`/v1/orgs/${org.id}/openapi/${pub.slug}/versions/[^/]+/content$`));
    expect(asMember.urls.public).toBe(res.urls.public);
    // A member reads the private spec; the site token does not, nor another organization's (same slug).
    expectStatus(await content(priv.slug, org.id, org.owner.token), 200);
    expectError(await content(priv.slug), 404, 'No matching OpenAPI spec');
    expectError(await content(pub.slug, other.id), 404, 'Organization not found');
    expectError(await content('no-such-spec'), 404);
    // The other content reads of specs still refuse site tokens.
    expectError(await api('GET', `/v1/orgs/${org.id}/openapi/${pub.slug}/versions/latest/content/raw`, { token }), 403);
  });

  it('reads a private spec that a page of its site is computed from (an API reference), and no other private spec (issue 41)', async () => {
    const computedFrom = await seedSpec(org.id, { visibility: 'private', state: 'complete', job: null });
    await seedSpecVersion(computedFrom.id, outline);
    const unused = await seedSpec(org.id, { visibility: 'private', state: 'complete', job: null });
    await seedSpecVersion(unused.id, outline);
    const reference = await spaceWithPages(org, 'API docs', [
      { operation: 'insert_page', title: 'API', computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: computedFrom.slug } } }, props: { models: true } } },
    ]);
    const apiSite = await publishedSite(org, [reference.id], 'public', 'API site');
    const apiToken = await tokenFor(`${BASE}/s/${apiSite.id}/`);
    expectGitbook('getLatestOpenAPISpecVersionContent', expectStatus(await content(computedFrom.slug, org.id, apiToken), 200).body);
    expectError(await content(unused.slug, org.id, apiToken), 404, 'No matching OpenAPI spec');
    // A site that publishes no page computed from it does not read it.
    expectError(await content(computedFrom.slug), 404, 'No matching OpenAPI spec');
    // Once the site no longer publishes that space, its token reads the spec no more.
    const pages = expectStatus(await api('GET', `/v1/spaces/${reference.id}/content/pages`, { token: org.owner.token }), 200).body.pages;
    expect(pages[0].title).toBe('API');
    expectStatus(await api('DELETE', `/v1/spaces/${reference.id}`, { token: org.owner.token }), 204);
    expectError(await content(computedFrom.slug, org.id, apiToken), 404);
  });

  it('a public spec without a version yet, and an unpublished site: not found', async () => {
    const pending = await seedSpec(org.id, { visibility: 'public' });
    expectError(await content(pending.slug), 404, 'has no version yet');

    const pub = await seedSpec(org.id, { visibility: 'public', state: 'complete', job: null });
    await seedSpecVersion(pub.id, outline);
    const soon = await publishedSite(org, [space.id], 'public', 'Spec soon');
    const fresh = await tokenFor(`${BASE}/s/${soon.id}/`);
    expectStatus(await content(pub.slug, org.id, fresh), 200);
    expectStatus(await api('POST', `${soon.path}/unpublish`, { token: org.owner.token }), 200);
    expectError(await content(pub.slug, org.id, fresh), 404, 'No matching OpenAPI spec');
  });
});
