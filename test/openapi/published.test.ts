import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { versionRawKey } from '../../src/services/openapi/storage';
import type { SpecOutline } from '../../src/services/openapi/types';
import { BASE, api, expectError, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';
import { seedSpec, seedSpecVersion, type SeededSpec } from '../helpers/openapi';
import { measureRoundTrips } from '../helpers/round-trips';
import { fetchWorker } from '../helpers/worker';

const OUTLINE: SpecOutline = { title: 'Pets', tags: [], schemas: [] };
const JSON_TEXT = '{\n  "openapi": "3.1.0",\n  "info": { "title": "Pets ✓", "version": "1" },\n  "paths": {}\n}\n';
const YAML_TEXT = 'openapi: 3.1.0\ninfo:\n  title: Pets # a comment\n  version: "1"\npaths: {}\n';

const publicPath = (orgId: string, slug: string) => `/public/openapi/${orgId}/${slug}`;

/** The 404 every unreadable address answers, whatever the reason. */
function expectNotPublished(res: ApiResponse) {
  expectError(res, 404);
  expect(res.body).toEqual({ error: { code: 404, message: 'No public OpenAPI spec at this address' } });
  expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
}

describe('GET /public/openapi/{organizationId}/{specSlug}', () => {
  let org: TestOrg;
  let spec: SeededSpec;
  let versionId: string;
  beforeAll(async () => {
    org = await seedOrg();
    spec = await seedSpec(org.id, { text: JSON_TEXT, visibility: 'public' });
    versionId = await seedSpecVersion(spec.id, OUTLINE, { raw: JSON_TEXT, format: 'json' });
  });

  it("serves a public spec's latest document as submitted, without a token, cacheable and readable from any origin", async () => {
    const res = await api('GET', publicPath(org.id, spec.slug));
    expect(res.status).toBe(200);
    // The text exactly (the helper parses JSON; compare what was served as text too).
    expect(res.body).toEqual(JSON.parse(JSON_TEXT));
    const raw = await textOf(await fetchRaw(publicPath(org.id, spec.slug)));
    expect(raw).toBe(JSON_TEXT);
    expect(res.headers.get('Content-Type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('ETag')).toBe(`"${versionId}"`);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=300');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('Content-Length')).toBe(String(new TextEncoder().encode(JSON_TEXT).byteLength));
  });

  it('serves YAML as application/yaml', async () => {
    const yaml = await seedSpec(org.id, { text: YAML_TEXT, visibility: 'public' });
    await seedSpecVersion(yaml.id, OUTLINE, { raw: YAML_TEXT, format: 'yaml' });
    const res = await fetchRaw(publicPath(org.id, yaml.slug));
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/yaml; charset=utf-8');
    expect(await textOf(res)).toBe(YAML_TEXT);
  });

  it('answers 304 without a body when If-None-Match names the version, and the document when it names another', async () => {
    const path = publicPath(org.id, spec.slug);
    for (const tag of [`"${versionId}"`, `W/"${versionId}"`, `"old", "${versionId}"`, '*']) {
      const res = await fetchRaw(path, { headers: { 'If-None-Match': tag } });
      expect(res.status, tag).toBe(304);
      expect(await textOf(res)).toBe('');
      expect(res.headers.get('ETag')).toBe(`"${versionId}"`);
      expect(res.headers.get('Cache-Control')).toBe('public, max-age=300');
    }
    const stale = await fetchRaw(path, { headers: { 'If-None-Match': '"some-older-version"' } });
    expect(stale.status).toBe(200);
    expect(await textOf(stale)).toBe(JSON_TEXT);
  });

  it('changes its ETag when a new version is processed', async () => {
    const changing = await seedSpec(org.id, { visibility: 'public' });
    const first = await seedSpecVersion(changing.id, OUTLINE, { raw: '{"v":1}' });
    const a = await fetchRaw(publicPath(org.id, changing.slug));
    expect(a.headers.get('ETag')).toBe(`"${first}"`);
    expect(await textOf(a)).toBe('{"v":1}');
    const second = await seedSpecVersion(changing.id, OUTLINE, { raw: '{"v":2}' });
    const b = await fetchRaw(publicPath(org.id, changing.slug), { headers: { 'If-None-Match': `"${first}"` } });
    expect(b.status).toBe(200);
    expect(b.headers.get('ETag')).toBe(`"${second}"`);
    expect(await textOf(b)).toBe('{"v":2}');
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await fetchRaw(publicPath(org.id, spec.slug), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('ETag')).toBe(`"${versionId}"`);
    expect(res.headers.get('Content-Type')).toBe('application/json; charset=utf-8');
    expect(await textOf(res)).toBe('');
    expect((await fetchRaw(publicPath(org.id, 'no-such-spec'), { method: 'HEAD' })).status).toBe(404);
  });

  it('answers the same 404 for a private spec, an unknown one, one without a version, and another organization', async () => {
    const privateSpec = await seedSpec(org.id, { visibility: 'private' });
    await seedSpecVersion(privateSpec.id, OUTLINE);
    const pending = await seedSpec(org.id, { visibility: 'public' });
    const other = await seedOrg();
    const theirs = await seedSpec(other.id, { visibility: 'public' });
    await seedSpecVersion(theirs.id, OUTLINE);
    expectStatus(await api('GET', publicPath(other.id, theirs.slug)), 200);
    for (const path of [
      publicPath(org.id, privateSpec.slug),
      publicPath(org.id, 'no-such-spec'),
      publicPath(org.id, pending.slug),
      publicPath(org.id, theirs.slug),
      publicPath(other.id, spec.slug),
      publicPath('no-such-org', spec.slug),
      publicPath(org.id, 'a--b'),
      publicPath(org.id, 'x'.repeat(10_000)),
      publicPath(org.id, encodeURIComponent("' or 1=1 --")),
      publicPath(encodeURIComponent('😀'), spec.slug),
    ]) {
      expectNotPublished(await api('GET', path));
    }
    // Even a member's token changes nothing: the address is for anyone, and it serves public specs only.
    expectNotPublished(await api('GET', publicPath(org.id, privateSpec.slug), { token: org.owner.token }));
  });

  it('stops serving a spec made private, and serves one made public', async () => {
    const toggled = await seedSpec(org.id, { visibility: 'private' });
    await seedSpecVersion(toggled.id, OUTLINE, { raw: '{"toggled":true}' });
    const path = publicPath(org.id, toggled.slug);
    expectNotPublished(await api('GET', path));
    const made = expectStatus(await api('PATCH', `/v1/orgs/${org.id}/openapi/${toggled.slug}`, { token: org.owner.token, body: { visibility: 'public' } }), 200).body;
    expect(new URL(made.urls.published).pathname).toBe(path);
    expect(expectStatus(await api('GET', path), 200).body).toEqual({ toggled: true });
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}/openapi/${toggled.slug}`, { token: org.owner.token, body: { visibility: 'private' } }), 200);
    expectNotPublished(await api('GET', path));
  });

  it('answers 404, not 500, when the stored document is missing', async () => {
    const broken = await seedSpec(org.id, { visibility: 'public' });
    const id = await seedSpecVersion(broken.id, OUTLINE);
    await env.FILES.delete(versionRawKey(broken.id, id));
    expectNotPublished(await api('GET', publicPath(org.id, broken.slug)));
  });

  it('costs one D1 round trip', async () => {
    const r = await measureRoundTrips('GET', publicPath(org.id, spec.slug), null);
    expect(r.status).toBe(200);
    expect(r.roundTrips).toBe(1);
    const missing = await measureRoundTrips('GET', publicPath(org.id, 'no-such-spec'), null);
    expect(missing.status).toBe(404);
    expect(missing.roundTrips).toBe(1);
  });

  it('is not part of the API document (it is outside /v1)', async () => {
    const { body: doc } = await api('GET', '/openapi.json');
    expect(Object.keys(doc.paths).filter((p) => p.includes('public'))).toEqual([]);
  });

  it('refuses other methods', async () => {
    const res = await api('POST', publicPath(org.id, spec.slug), { body: {} });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});

/** A request through the Worker, answered as the Response (the body unread). */
/** The body as UTF-8 text, whatever its type says. */
async function textOf(res: Response) {
  return new TextDecoder().decode(await res.arrayBuffer());
}

function fetchRaw(path: string, init: RequestInit = {}) {
  return fetchWorker(`${BASE}${path}`, init);
}
