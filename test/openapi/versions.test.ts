import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { versionFilesystemKey, versionListKey, versionRawKey } from '../../src/services/openapi/storage';
import type { SpecOutline } from '../../src/services/openapi/types';
import { GITBOOK_0146, GITBOOK_0202, gitbookErrors, gitbookValidator, withFilesystemList } from '../helpers/gitbook-schema';
import { BASE, CALLERS, api, byCaller, callerUser, expectError, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { seedSpec, seedSpecVersion, type SeededSpec } from '../helpers/openapi';
import { measureRoundTrips, requestWithBindings } from '../helpers/round-trips';

const VERSION_0202 = gitbookValidator('OpenAPISpecVersion', GITBOOK_0202.components);
const VERSION_0146 = gitbookValidator('OpenAPISpecVersion');
/** GitBook's content schemas, with the filesystem as the list its renderer reads (withFilesystemList). */
const CONTENT_0202 = gitbookValidator('OpenAPISpecContent', withFilesystemList(GITBOOK_0202.components));
/** The specification's content schema, `{filesystem, url}` (@gitbook/api 0.146.0). */
const CONTENT_0146 = gitbookValidator('OpenAPISpecContent', withFilesystemList(GITBOOK_0146.components));
const RAW_0202 = gitbookValidator('OpenAPISpecRawContent', GITBOOK_0202.components);

function expectVersion(body: unknown) {
  expect(gitbookErrors(VERSION_0202, body), JSON.stringify(body)).toBe('valid');
  expect(gitbookErrors(VERSION_0146, body), JSON.stringify(body)).toBe('valid');
}

function expectContent(body: unknown) {
  expect(gitbookErrors(CONTENT_0202, body), JSON.stringify(body).slice(0, 500)).toBe('valid');
  expect(gitbookErrors(CONTENT_0146, body), JSON.stringify(body).slice(0, 500)).toBe('valid');
}

const OUTLINE: SpecOutline = { title: 'Pets', version: '1.0.0', tags: [], schemas: [] };
const SOURCE_URL = 'https://specs.example.com/petstore.yaml';
const YAML = 'openapi: 3.1.0\ninfo:\n  title: Pets   # as written, comments and all\n  version: "1"\npaths: {}\n';
const FILESYSTEM = {
  'openapi.yaml': { openapi: '3.1.0', info: { title: 'Pets', version: '1' }, paths: { '/pets': { $ref: 'pets.yaml' } } },
  'pets.yaml': { get: { summary: 'List pets ✓', responses: { 200: { description: 'OK' } } } },
};

/** FILESYSTEM as served: GitBook's list, the entry first, each description with its HTML. */
const SERVED_FILESYSTEM = [
  { dir: './', isEntrypoint: true, references: [], filename: 'openapi.yaml', specification: FILESYSTEM['openapi.yaml'] },
  {
    dir: './',
    isEntrypoint: false,
    references: [],
    filename: 'pets.yaml',
    specification: { get: { summary: 'List pets ✓', responses: { 200: { description: 'OK', 'x-gitbook-description-html': '<p>OK</p>' } } } },
  },
];

const base = (orgId: string, slug: string) => `/v1/orgs/${orgId}/openapi/${slug}`;
const versionsPath = (orgId: string, slug: string) => `${base(orgId, slug)}/versions`;

/** Versions one second apart, oldest first, as the processing would have made them. */
async function seedVersions(specId: string, n: number, options: Parameters<typeof seedSpecVersion>[2] = {}) {
  const ids: string[] = [];
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  for (let i = 0; i < n; i++) ids.push(await seedSpecVersion(specId, OUTLINE, { ...options, createdAt: new Date(start + i * 1000).toISOString() }));
  return ids;
}

describe('listOpenAPISpecVersions', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('lists the versions of the spec, newest first, a page at a time', async () => {
    const spec = await seedSpec(org.id, { url: SOURCE_URL });
    const ids = await seedVersions(spec.id, 5, { url: SOURCE_URL });
    // Another spec's versions are not listed.
    const other = await seedSpec(org.id);
    await seedVersions(other.id, 2);
    const seen: string[] = [];
    let page: string | undefined;
    for (let round = 0; round < 5; round++) {
      const res = expectStatus(await api('GET', `${versionsPath(org.id, spec.slug)}?limit=2${page ? `&page=${page}` : ''}`, { token: org.members.read.token }), 200).body;
      expect(res.count).toBe(5);
      for (const item of res.items) expectVersion(item);
      seen.push(...res.items.map((v: any) => v.id));
      page = res.next?.page;
      if (!page) break;
    }
    expect(seen).toEqual([...ids].reverse());
    const all = expectStatus(await api('GET', versionsPath(org.id, spec.slug), { token: org.owner.token }), 200).body;
    expect(all.items[0]).toEqual({
      object: 'openapi-spec-version',
      id: ids[4],
      createdAt: '2026-01-01T00:00:04.000Z',
      url: SOURCE_URL,
      urls: { location: `${BASE}${versionsPath(org.id, spec.slug)}/${ids[4]}` },
    });
    expect(all.next).toBeUndefined();
  });

  it('orders versions made in the same millisecond by id, and pages through them without losing one', async () => {
    const spec = await seedSpec(org.id);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await seedSpecVersion(spec.id, OUTLINE, { createdAt: '2026-02-01T00:00:00.000Z' }));
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = expectStatus(await api('GET', `${versionsPath(org.id, spec.slug)}?limit=1${page ? `&page=${page}` : ''}`, { token: org.owner.token }), 200).body;
      seen.push(...res.items.map((v: any) => v.id));
      page = res.next?.page;
    } while (page);
    expect(seen).toEqual([...ids].sort().reverse());
  });

  it('answers an empty list for a spec not processed yet, and 404 for an unknown spec', async () => {
    const spec = await seedSpec(org.id);
    expect(expectStatus(await api('GET', versionsPath(org.id, spec.slug), { token: org.owner.token }), 200).body).toEqual({ items: [], count: 0 });
    expectError(await api('GET', versionsPath(org.id, 'no-such-spec'), { token: org.owner.token }), 404, 'OpenAPI spec');
  });

  it('refuses bad list parameters with 400', async () => {
    const spec = await seedSpec(org.id);
    for (const query of ['limit=0', 'limit=1001', 'limit=-1', 'page=%%%', 'page=bm90IGEgY3Vyc29y']) {
      expectError(await api('GET', `${versionsPath(org.id, spec.slug)}?${query}`, { token: org.owner.token }), 400);
    }
  });
});

describe('getLatestOpenAPISpecVersion and getOpenAPISpecVersionById', () => {
  let org: TestOrg;
  let spec: SeededSpec;
  let ids: string[];
  beforeAll(async () => {
    org = await seedOrg();
    spec = await seedSpec(org.id);
    ids = await seedVersions(spec.id, 3);
  });

  it("answers the spec's last version for latest; a text version's url is its content in the API", async () => {
    const latest = expectStatus(await api('GET', `${versionsPath(org.id, spec.slug)}/latest`, { token: org.members.read.token }), 200).body;
    expectVersion(latest);
    const location = `${BASE}${versionsPath(org.id, spec.slug)}/${ids[2]}`;
    expect(latest).toEqual({ object: 'openapi-spec-version', id: ids[2], createdAt: '2026-01-01T00:00:02.000Z', url: `${location}/content`, urls: { location } });
    // The spec names it.
    expect(expectStatus(await api('GET', base(org.id, spec.slug), { token: org.owner.token }), 200).body.lastVersion).toBe(ids[2]);
    // Its url answers its content.
    expectStatus(await api('GET', new URL(latest.url).pathname, { token: org.owner.token }), 200);
  });

  it('latest follows the spec when a newer version is processed', async () => {
    const fresh = await seedSpec(org.id);
    const [first] = await seedVersions(fresh.id, 1);
    expect(expectStatus(await api('GET', `${versionsPath(org.id, fresh.slug)}/latest`, { token: org.owner.token }), 200).body.id).toBe(first);
    const second = await seedSpecVersion(fresh.id, OUTLINE);
    expect(expectStatus(await api('GET', `${versionsPath(org.id, fresh.slug)}/latest`, { token: org.owner.token }), 200).body.id).toBe(second);
  });

  it('answers each version by id', async () => {
    for (const id of ids) {
      const res = expectStatus(await api('GET', `${versionsPath(org.id, spec.slug)}/${id}`, { token: org.owner.token }), 200).body;
      expectVersion(res);
      expect(res.id).toBe(id);
    }
  });

  it('answers 404 for a spec without a version yet, saying so', async () => {
    const pending = await seedSpec(org.id);
    expectError(await api('GET', `${versionsPath(org.id, pending.slug)}/latest`, { token: org.owner.token }), 404, 'no version yet');
    expectError(await api('GET', `${versionsPath(org.id, pending.slug)}/latest/content`, { token: org.owner.token }), 404, 'no version yet');
    expectError(await api('GET', `${versionsPath(org.id, pending.slug)}/latest/content/raw`, { token: org.owner.token }), 404, 'no version yet');
  });

  it("answers 404 for an unknown version, another spec's version, and another organization's", async () => {
    const sibling = await seedSpec(org.id);
    const [siblingVersion] = await seedVersions(sibling.id, 1);
    expectError(await api('GET', `${versionsPath(org.id, spec.slug)}/${siblingVersion}`, { token: org.owner.token }), 404, 'version');
    expectError(await api('GET', `${versionsPath(org.id, spec.slug)}/${siblingVersion}/content`, { token: org.owner.token }), 404, 'version');
    expectError(await api('GET', `${versionsPath(org.id, spec.slug)}/unknown-version`, { token: org.owner.token }), 404, 'version');
    expectError(await api('GET', `${versionsPath(org.id, 'no-such-spec')}/${ids[0]}`, { token: org.owner.token }), 404, 'OpenAPI spec');
    const other = await seedOrg();
    const theirs = await seedSpec(other.id);
    const [theirVersion] = await seedVersions(theirs.id, 1);
    // Their spec's slug in our organization names nothing; their organization is not ours to read.
    expectError(await api('GET', `${versionsPath(org.id, theirs.slug)}/${theirVersion}`, { token: org.owner.token }), 404);
    expectError(await api('GET', `${versionsPath(other.id, theirs.slug)}/${theirVersion}`, { token: org.owner.token }), 404, 'Organization');
    expectError(await api('GET', `${versionsPath(other.id, theirs.slug)}/latest/content/raw`, { token: org.owner.token }), 404, 'Organization');
    expectError(await api('GET', `${versionsPath(org.id, spec.slug)}/${'x'.repeat(129)}`, { token: org.owner.token }), 400, 'versionId');
  });
});

describe('version content', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it("answers the filesystem with GitBook 0.202's urls and the specification's url; private: no public URL", async () => {
    const spec = await seedSpec(org.id, { url: SOURCE_URL });
    const versionId = await seedSpecVersion(spec.id, OUTLINE, { filesystem: FILESYSTEM, raw: YAML, format: 'yaml', url: SOURCE_URL });
    for (const path of ['latest/content', `${versionId}/content`]) {
      const res = expectStatus(await api('GET', `${versionsPath(org.id, spec.slug)}/${path}`, { token: org.members.read.token }), 200);
      expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
      expectContent(res.body);
      expect(res.body).toEqual({ filesystem: SERVED_FILESYSTEM, url: SOURCE_URL, urls: { source: SOURCE_URL, public: null } });
    }
  });

  it('of a public spec gives a public URL: the source URL, or the published URL for a text source', async () => {
    const fromUrl = await seedSpec(org.id, { url: SOURCE_URL, visibility: 'public' });
    await seedSpecVersion(fromUrl.id, OUTLINE, { url: SOURCE_URL });
    const a = expectStatus(await api('GET', `${versionsPath(org.id, fromUrl.slug)}/latest/content`, { token: org.owner.token }), 200).body;
    expectContent(a);
    expect(a.urls).toEqual({ source: SOURCE_URL, public: SOURCE_URL });

    const fromText = await seedSpec(org.id, { text: YAML, visibility: 'public' });
    const textVersion = await seedSpecVersion(fromText.id, OUTLINE, { filesystem: FILESYSTEM, raw: YAML, format: 'yaml' });
    const b = expectStatus(await api('GET', `${versionsPath(org.id, fromText.slug)}/latest/content`, { token: org.owner.token }), 200).body;
    expectContent(b);
    const contentUrl = `${BASE}${versionsPath(org.id, fromText.slug)}/${textVersion}/content`;
    const published = `${BASE}/public/openapi/${org.id}/${fromText.slug}`;
    expect(b).toEqual({ filesystem: SERVED_FILESYSTEM, url: contentUrl, urls: { source: contentUrl, public: published } });
    // The public URL serves the document, without a token.
    const served = await api('GET', new URL(published).pathname);
    expect(served.status).toBe(200);
    expect(served.body).toBe(YAML);
  });

  it('answers the raw text of the latest version exactly as submitted, with its format', async () => {
    const spec = await seedSpec(org.id, { text: YAML });
    await seedSpecVersion(spec.id, OUTLINE, { filesystem: FILESYSTEM, raw: YAML, format: 'yaml' });
    const res = expectStatus(await api('GET', `${versionsPath(org.id, spec.slug)}/latest/content/raw`, { token: org.members.read.token }), 200).body;
    expect(gitbookErrors(RAW_0202, res), JSON.stringify(res)).toBe('valid');
    expect(res).toEqual({ text: YAML, format: 'yaml' });

    const json = '{\n  "openapi" : "3.0.0",\n  "info": {"title": "Spaced  out", "version": "1"}, "paths": {}\n}\n';
    const jsonSpec = await seedSpec(org.id, { text: json });
    await seedSpecVersion(jsonSpec.id, OUTLINE, { raw: json, format: 'json' });
    expect(expectStatus(await api('GET', `${versionsPath(org.id, jsonSpec.slug)}/latest/content/raw`, { token: org.owner.token }), 200).body).toEqual({ text: json, format: 'json' });
  });

  it("renders descriptions as sanitized HTML for GitBook's renderer, which injects them as they are", async () => {
    const spec = await seedSpec(org.id, { visibility: 'public' });
    const bundle = {
      'openapi.json': {
        openapi: '3.1.0',
        info: { title: 'Pets', version: '1', description: '# Pets\n\nA **store** <script>alert(1)</script><img src="x" onerror="alert(2)">' },
        'x-gitbook-description-html': '<script>alert(3)</script>',
        paths: {
          '/pets': {
            get: {
              description: '   ',
              'x-gitbook-description-html': '<img src=x onerror=alert(4)>',
              responses: { 200: { description: '[Home](javascript:alert(5))\n\n| a |\n| - |\n| b |', content: { 'application/json': { example: { description: '*as is*' } } } } },
            },
          },
        },
      },
    };
    await seedSpecVersion(spec.id, OUTLINE, { filesystem: bundle });
    const res = expectStatus(await api('GET', `${versionsPath(org.id, spec.slug)}/latest/content`, { token: org.members.read.token }), 200).body;
    expectContent(res);
    const document = res.filesystem[0].specification;
    expect(document.info['x-gitbook-description-html']).toBe('<h1>Pets</h1>\n<p>A <strong>store</strong> <img src="x"></p>');
    // An author's own HTML is never served as if it were rendered: replaced, or dropped with an empty description.
    expect(document['x-gitbook-description-html']).toBeUndefined();
    expect(document.paths['/pets'].get).not.toHaveProperty('x-gitbook-description-html');
    const ok = document.paths['/pets'].get.responses['200'];
    expect(ok['x-gitbook-description-html']).toContain('<table>');
    expect(ok['x-gitbook-description-html']).not.toContain('javascript:');
    expect(ok['x-gitbook-description-html']).toContain('<a>Home</a>');
    // An example is data: as written.
    expect(ok.content['application/json'].example).toEqual({ description: '*as is*' });
  });

  it('makes the list of a version stored as a bundle alone (before the list), its descriptions as escaped text', async () => {
    const spec = await seedSpec(org.id);
    const bundle = { ...FILESYSTEM, 'pets.yaml': { get: { responses: { 200: { description: 'OK <b>now</b>' } } } } };
    const versionId = await seedSpecVersion(spec.id, OUTLINE, { filesystem: bundle, raw: YAML, format: 'yaml', storedAsBundle: true });
    const res = await requestWithBindings('GET', `${versionsPath(org.id, spec.slug)}/${versionId}/content`, org.owner.token, undefined, {});
    expect(res.status).toBe(200);
    expectContent(res.body);
    const files = (res.body as { filesystem: Array<{ filename: string; specification: any }> }).filesystem;
    expect(files.map((f) => f.filename)).toEqual(['openapi.yaml', 'pets.yaml']);
    expect(files[0].specification).toEqual(FILESYSTEM['openapi.yaml']);
    expect(files[1].specification.get.responses['200']).toEqual({ description: 'OK <b>now</b>', 'x-gitbook-description-html': '<p>OK &lt;b&gt;now&lt;/b&gt;</p>' });
    // Nothing is written by a read: the bundle stays what a release reading bundles only still reads.
    expect(await env.FILES.head(versionListKey(spec.id, versionId))).toBeNull();
    expect(await (await env.FILES.get(versionFilesystemKey(spec.id, versionId)))!.json()).toEqual(bundle);
  });

  it('answers 404 with a clear message, never a 500, when a stored object is missing', async () => {
    const spec = await seedSpec(org.id);
    const versionId = await seedSpecVersion(spec.id, OUTLINE);
    // A list that is not one is read from the bundle; a bundle without the version's entry, or not JSON, is as
    // good as missing.
    await env.FILES.put(versionListKey(spec.id, versionId), '{"not": "a list"}');
    expectStatus(await api('GET', `${versionsPath(org.id, spec.slug)}/${versionId}/content`, { token: org.owner.token }), 200);
    for (const stored of ['{"other.json": {}}', '{"openapi.json": ', 'null', '{"constructor": {}}']) {
      await env.FILES.put(versionFilesystemKey(spec.id, versionId), stored);
      expectError(await api('GET', `${versionsPath(org.id, spec.slug)}/${versionId}/content`, { token: org.owner.token }), 404, 'missing');
    }
    await env.FILES.delete(versionFilesystemKey(spec.id, versionId));
    await env.FILES.delete(versionListKey(spec.id, versionId));
    expectError(await api('GET', `${versionsPath(org.id, spec.slug)}/latest/content`, { token: org.owner.token }), 404, 'missing');
    expectError(await api('GET', `${versionsPath(org.id, spec.slug)}/${versionId}/content`, { token: org.owner.token }), 404, 'missing');
    // The version itself is still there.
    expectStatus(await api('GET', `${versionsPath(org.id, spec.slug)}/${versionId}`, { token: org.owner.token }), 200);
    await env.FILES.delete(versionRawKey(spec.id, versionId));
    expectError(await api('GET', `${versionsPath(org.id, spec.slug)}/latest/content/raw`, { token: org.owner.token }), 404, 'missing');
  });
});

describe('authorization', () => {
  const READS = byCaller(200, 200, 200, 200, 200, 200, 404, 404);
  let org: TestOrg;
  let spec: SeededSpec;
  let versionId: string;
  beforeAll(async () => {
    org = await seedOrg();
    spec = await seedSpec(org.id);
    versionId = await seedSpecVersion(spec.id, OUTLINE, { filesystem: FILESYSTEM, raw: YAML, format: 'yaml' });
  });

  const paths = () => ({
    listOpenAPISpecVersions: versionsPath(org.id, spec.slug),
    getLatestOpenAPISpecVersion: `${versionsPath(org.id, spec.slug)}/latest`,
    getLatestOpenAPISpecVersionContent: `${versionsPath(org.id, spec.slug)}/latest/content`,
    getLatestOpenAPISpecVersionContentRaw: `${versionsPath(org.id, spec.slug)}/latest/content/raw`,
    getOpenAPISpecVersionById: `${versionsPath(org.id, spec.slug)}/${versionId}`,
    getOpenAPISpecVersionContentById: `${versionsPath(org.id, spec.slug)}/${versionId}/content`,
  });
  const OPERATIONS = [
    'listOpenAPISpecVersions',
    'getLatestOpenAPISpecVersion',
    'getLatestOpenAPISpecVersionContent',
    'getLatestOpenAPISpecVersionContentRaw',
    'getOpenAPISpecVersionById',
    'getOpenAPISpecVersionContentById',
  ] as const;

  it.each(OPERATIONS)('%s: members read, guests and outsiders get 404', async (op) => {
    const actual: Record<string, number> = {};
    for (const caller of CALLERS) {
      const res: ApiResponse = await api('GET', paths()[op], { token: callerUser(org, caller).token });
      actual[caller] = res.status;
      if (res.status >= 400) expectError(res, res.status);
    }
    expect(actual).toEqual(READS);
  });

  it.each(OPERATIONS)('%s: 401 without a token', async (op) => {
    expectError(await api('GET', paths()[op]), 401);
  });

  it.each(OPERATIONS)('%s: an installation token needs openapi:read', async (op) => {
    const publisher = await seedOrg();
    const reader = await seedIntegration(publisher.id, { scopes: ['openapi:read'] });
    const readerToken = await seedToken(reader.id, (await seedInstallation(reader, org.id)).id);
    expectStatus(await api('GET', paths()[op], { token: readerToken }), 200);
    const other = await seedIntegration(publisher.id, { scopes: ['space:content:read'] });
    const otherToken = await seedToken(other.id, (await seedInstallation(other, org.id)).id);
    expectError(await api('GET', paths()[op], { token: otherToken }), 403, 'openapi:read');
  });

  it("reads no version's outline (up to 512 KiB each): only the columns the answers need", async () => {
    const statements: string[] = [];
    // The binding and the session each request runs on (middleware/context) record alike.
    const recording = <T extends D1Database | D1DatabaseSession>(client: T): T =>
      new Proxy(client, {
        get(target, prop) {
          if (prop === 'prepare') return (query: string) => (statements.push(query), target.prepare(query));
          if (prop === 'withSession') return (start?: string) => recording((target as D1Database).withSession(start));
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const db = recording(env.DB);
    for (const [op, path] of Object.entries(paths())) {
      statements.length = 0;
      const r = await requestWithBindings('GET', path, org.owner.token, undefined, { DB: db });
      expect(r.status, `${op} ${JSON.stringify(r.body)}`).toBe(200);
      expect(statements.filter((q) => q.includes('openapi_spec_versions')).length, op).toBeGreaterThan(0);
      expect(statements.filter((q) => q.includes('outline')), op).toEqual([]);
    }
  });

  it('each read answers in at most 2 D1 round trips', async () => {
    await api('GET', '/v1/user', { token: org.owner.token });
    for (let i = 0; i < 3; i++) await seedSpecVersion(spec.id, OUTLINE, { filesystem: FILESYSTEM, raw: YAML, format: 'yaml' });
    for (const [op, path] of Object.entries(paths())) {
      const r = await measureRoundTrips('GET', path, org.owner.token);
      expect(r.status, `${op} ${JSON.stringify(r.body)}`).toBe(200);
      expect(r.roundTrips, op).toBeLessThanOrEqual(2);
    }
  });
});
