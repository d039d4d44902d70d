/**
 * Site tokens (the `apiToken` of resolvePublishedContentByUrl): the operations that admit them (defineRoute
 * `siteToken: true`: getPublishedContentSite, getSpaceById) read their site's published content as the visitor
 * they were issued to; on another site, space or organization they read as not found; every other operation
 * refuses them (403); forged, tampered, expired and foreign tokens are 401; unpublishing takes effect at once.
 */
import { SignJWT, base64url, decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueSiteToken } from '../../src/services/sites/site-token';
import { signVisitorToken } from '../../src/services/sites/visitor-token';
import { GITBOOK_0202, gitbookErrors, schemaValidator } from '../helpers/gitbook-schema';
import { createSpace } from '../helpers/content';
import { api, BASE, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { publishedSite, spaceWithPages } from '../site/helpers';

const publishedContentSite = schemaValidator({ $ref: '#/components/schemas/PublishedContentSite' }, GITBOOK_0202.components);
const TEST_KEY = { SITE_TOKENS_KEY: 'test-site-tokens-key' };

async function tokenFor(url: string, visitor?: Record<string, unknown>): Promise<string> {
  return expectStatus(await api('POST', '/v1/urls/published', { body: { url, ...(visitor && { visitor }) } }), 200).body.apiToken;
}

let org: TestOrg;
let other: TestOrg;
let space: { id: string; pages: Record<string, string> };
let unpublishedSpace: string;
let site: { id: string; path: string };
let otherSite: { id: string; path: string };
let otherSpace: string;
let token: string;

beforeAll(async () => {
  org = await seedOrg();
  other = await seedOrg();
  space = await spaceWithPages(org, 'Docs', [{ operation: 'insert_page', title: 'Home', document: { markdown: 'Home.\n' } }]);
  unpublishedSpace = (await createSpace(org.id, org.owner.token, 'Private')).id;
  site = await publishedSite(org, [space.id], 'public', 'Tokens');
  // Another published site of the same organization, and one of another organization.
  const second = await createSpace(org.id, org.owner.token, 'Second');
  otherSite = await publishedSite(org, [second.id], 'public', 'Other');
  otherSpace = (await createSpace(other.id, other.owner.token, 'Foreign')).id;
  await publishedSite(other, [otherSpace], 'public', 'Foreign');
  token = await tokenFor(`${BASE}/s/${site.id}/home`);
});

const get = (path: string, bearer = token) => api('GET', path, { token: bearer });

describe('what a site token reads', () => {
  it("its site's published view (GitBook's schema) and its space", async () => {
    const view = expectStatus(await get(`/v1/orgs/${org.id}/sites/${site.id}/published`), 200).body;
    expect(gitbookErrors(publishedContentSite, view)).toBe('valid');
    expect(view.site.id).toBe(site.id);
    const read = expectStatus(await get(`/v1/spaces/${space.id}`), 200).body;
    expect(read.id).toBe(space.id);
    expect(read.urls.published).toBeDefined();
  });

  it("another site's view, another organization's, a space outside its site: not found", async () => {
    expectError(await get(`/v1/orgs/${org.id}/sites/${otherSite.id}/published`), 404);
    expectError(await get(`/v1/orgs/${other.id}/sites/${site.id}/published`), 404);
    expectError(await get(`/v1/spaces/${unpublishedSpace}`), 404);
    expectError(await get(`/v1/spaces/${otherSpace}`), 404);
  });

  it('every other operation refuses it (403), reads and writes alike, resolving included', async () => {
    const refused: Array<[string, string, unknown?]> = [
      ['GET', '/v1/user'],
      ['GET', `/v1/orgs/${org.id}`],
      ['GET', `/v1/orgs/${org.id}/sites/${site.id}`],
      ['GET', `/v1/orgs/${org.id}/sites/${site.id}/site-spaces`],
      ['GET', `/v1/orgs/${org.id}/sites/${site.id}/share-links`],
      ['GET', `/v1/spaces/${space.id}/content`],
      ['GET', `/v1/orgs/${org.id}/spaces`],
      ['PATCH', `/v1/orgs/${org.id}/sites/${site.id}`, { title: 'Taken over' }],
      ['PATCH', `/v1/spaces/${space.id}`, { title: 'Taken over' }],
      ['POST', `/v1/orgs/${org.id}/sites/${site.id}/unpublish`],
      ['POST', '/v1/urls/published', { url: `${BASE}/s/${site.id}/` }],
      ['GET', `/v1/users/${org.owner.id}`],
    ];
    for (const [method, path, body] of refused) {
      const res = await api(method, path, { token, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(403);
      expect(res.body.error.message).toContain('Site tokens');
    }
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}/sites/${site.id}`, { token: org.owner.token }), 200).body.title).toBe('Tokens');
  });

  it('documents the operations that admit it with the siteToken security scheme, and only reads', async () => {
    const { body: doc } = await api('GET', '/openapi.json');
    const admitted: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!(op.security ?? []).some((s: Record<string, unknown>) => 'siteToken' in s)) continue;
        admitted.push(op.operationId);
        expect(['get', 'post'], `${method} ${path}`).toContain(method);
        expect(path).toMatch(/\{(organizationId|siteId|spaceId)\}/);
      }
    }
    expect(admitted).toEqual(expect.arrayContaining(['getPublishedContentSite', 'getSpaceById']));
    expect(admitted).not.toContain('resolvePublishedContentByUrl');
    expect(doc.components.securitySchemes.siteToken).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('forged and stale tokens', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const payloadOf = () => decodeJwt(token) as Record<string, unknown>;
  const sign = (payload: Record<string, unknown>, key: string, header: Record<string, unknown> = { alg: 'HS256', typ: 'site+jwt' }) =>
    new SignJWT(payload).setProtectedHeader(header as never).sign(new TextEncoder().encode(key));

  it('refuses (401) a token whose payload was changed, one signed with another key, alg none, an expired one, another kind', async () => {
    const published = `/v1/orgs/${org.id}/sites/${otherSite.id}/published`;
    const [header, , signature] = token.split('.');
    const tampered = `${header}.${base64url.encode(JSON.stringify({ ...payloadOf(), site: otherSite.id }))}.${signature}`;
    const otherKey = await sign({ ...payloadOf(), site: otherSite.id }, 'not-the-site-tokens-key');
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'site+jwt' }))}.${base64url.encode(JSON.stringify({ ...payloadOf(), site: otherSite.id }))}.`;
    const expired = await sign({ ...payloadOf(), iat: now() - 7200, exp: now() - 3600 }, TEST_KEY.SITE_TOKENS_KEY);
    const spaceKind = await sign({ ...payloadOf(), kind: 'space' }, TEST_KEY.SITE_TOKENS_KEY);
    const plainJwt = await sign({ ...payloadOf() }, TEST_KEY.SITE_TOKENS_KEY, { alg: 'HS256', typ: 'JWT' });
    // A visitor-auth token of the site is no site token either.
    const visitorJwt = await signVisitorToken({ sub: 'v' }, TEST_KEY.SITE_TOKENS_KEY, 600);
    // The root its published URLs are built on is an http(s) URL, or the token is not ours.
    const scriptRoot = await sign({ ...payloadOf(), siteUrl: 'javascript:alert(1)//' }, TEST_KEY.SITE_TOKENS_KEY);
    const hugeRoot = await sign({ ...payloadOf(), siteUrl: `https://x.test/${'a'.repeat(3000)}` }, TEST_KEY.SITE_TOKENS_KEY);
    const objectRoot = await sign({ ...payloadOf(), siteUrl: { href: 'https://x.test' } }, TEST_KEY.SITE_TOKENS_KEY);
    for (const [name, bad] of Object.entries({ tampered, otherKey, none, expired, spaceKind, plainJwt, visitorJwt, scriptRoot, hugeRoot, objectRoot })) {
      const res = await get(published, bad);
      expect(res.status, name).toBe(401);
      // alg none has no signature part: it is not even shaped like a site token, and fails as an unknown API token.
      if (name !== 'none') expect(res.body.error.message, name).toContain('site token');
    }
  });

  it('a token this deployment signed for another site reads that site only', async () => {
    const { token: forOther } = await issueSiteToken(TEST_KEY, { ...(payloadOf() as any), site: otherSite.id });
    expectError(await get(`/v1/orgs/${org.id}/sites/${site.id}/published`, forOther), 404);
  });

  it('stops reading at once when the site is unpublished (verified on every use)', async () => {
    const site2 = await publishedSite(org, [space.id], 'public', 'Soon offline');
    const fresh = await tokenFor(`${BASE}/s/${site2.id}/`);
    expectStatus(await get(`/v1/orgs/${org.id}/sites/${site2.id}/published`, fresh), 200);
    expectStatus(await api('POST', `${site2.path}/unpublish`, { token: org.owner.token }), 200);
    expectError(await get(`/v1/orgs/${org.id}/sites/${site2.id}/published`, fresh), 404);
    // The space is still published by the first site, but not through this token's site.
    expectError(await get(`/v1/spaces/${space.id}`, fresh), 404);
  });
});

describe("a visitor's claims travel in the token", () => {
  it('the published view of a visitor-auth site reads as the visitor: conditions see their claims', async () => {
    const va = await publishedSite(org, [space.id], 'visitor-auth', 'Adaptive');
    const key = expectStatus(await api('GET', `${va.path}/publishing/auth`, { token: org.owner.token }), 200).body.privateKey;
    expectStatus(await api('PUT', `${va.path}/adaptive-schema`, { token: org.owner.token, body: { jsonSchema: { type: 'object', properties: { beta: { type: 'boolean', description: 'Beta' } }, additionalProperties: false } } }), 200);
    const beta = await createSpace(org.id, org.owner.token, 'Beta');
    const added = expectStatus(await api('POST', `${va.path}/site-spaces`, { token: org.owner.token, body: { spaceId: beta.id } }), 201).body;
    expectStatus(await api('PATCH', `${va.path}/site-spaces/${added.id}`, { token: org.owner.token, body: { condition: 'visitor.claims.beta' } }), 200);
    const ids = async (claims: Record<string, unknown>) => {
      const jwtToken = await signVisitorToken({ sub: 'v', ...claims }, key, 600);
      const siteToken = await tokenFor(`${BASE}/s/${va.id}/`, { jwtToken });
      const view = expectStatus(await get(`/v1/orgs/${org.id}/sites/${va.id}/published`, siteToken), 200).body;
      return { view: view.structure.structure.map((s: { id: string }) => s.id), spaces: decodeJwt(siteToken).spaces as string[] };
    };
    const withBeta = await ids({ beta: true });
    const without = await ids({ beta: false });
    expect(withBeta.view).toContain(added.id);
    expect(without.view).not.toContain(added.id);
    // A space the visitor may not open is not among the token's spaces either.
    expect(withBeta.spaces).toContain(beta.id);
    expect(without.spaces).not.toContain(beta.id);
  });
});
