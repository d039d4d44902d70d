/**
 * No request of any shape makes an operation answer 5xx. For every operation of the served
 * `/openapi.json` (so operations added later are swept too), with the other parameters real ids of a
 * seeded organization: each path and query parameter takes hostile values (empty, 1 to 10,000
 * characters, LIKE and SQL metacharacters, quotes, emoji, NUL, malformed percent-encoding, forged page
 * cursors, repeated parameters); each JSON body is sent malformed or of the wrong type, and each of its
 * top-level properties takes hostile values of every type in an otherwise minimal body built from the
 * operation's schema. Every answer is below 500, and every error has the `{ error: { code, message } }` shape.
 *
 * The sweep is one file's worth of requests per shard (`test/platform/hostile-input-<n>.test.ts`): a
 * single file was the suite's longest by far and ran alone on one core at the end of a run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOutboundFetch } from '../../src/lib/outbound';
import { PNG_1x1, applyChanges, createSpace, merge, openChangeRequest } from './content';
import { ADMIN_TOKEN, BASE, api, expectStatus, seedOrg, type TestOrg } from './harness';
import { conversation, seedCluster, seedIssue } from './conversations';
import { seedEvent, seedInstallation, seedIntegration } from './integrations';
import { seedSpecVersion } from './openapi';
import { minimalValue, resolveSchema, type Schema } from './openapi-schema';
import { fetchWorker } from './worker';

const OPERATOR_OPERATIONS = new Set(['createUser', 'createUserToken']);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Hostile values of a path or query parameter, already percent-encoded as they go on the wire. */
const HOSTILE_TEXT = [
  '',
  ' ',
  'a',
  '0',
  '-1',
  '1.5',
  '1e400',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  ...[49, 50, 51, 512, 10_000].map((n) => 'x'.repeat(n)),
  'é'.repeat(300),
  '%',
  '_',
  '%%',
  '\\',
  "'",
  '"',
  "' OR '1'='1' --",
  '😀',
  '😀'.repeat(40),
  '\u0000',
  '..',
  '<script>',
].map(encodeURIComponent);
const HOSTILE_RAW = ['%', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%FF', '%2F', '..%2F..'];
/** Path parameters are ids (at most 128 characters): fewer values tell as much. */
const HOSTILE_ID = [
  ...['', ' ', '0', 'x'.repeat(128), 'x'.repeat(129), 'x'.repeat(10_000), "'", '"', '😀', '\u0000', '..'].map(encodeURIComponent),
  ...HOSTILE_RAW,
];

const base64url = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
/** Page cursors a client could forge: well-formed base64 of JSON that is not a cursor this API made. */
const FORGED_CURSORS = [
  '[1e400,"x"]',
  '[-1e400,"x"]',
  '[9007199254740993,"x"]',
  '["",""]',
  `["${'x'.repeat(5000)}","${'y'.repeat(5000)}"]`,
  '["\\u0000","\\u0000"]',
  '[0,"x",1]',
  '[null,"x"]',
  '[[],"x"]',
  '{"0":1,"1":"x"}',
  '"x"',
].map((json) => base64url(unescape(encodeURIComponent(json))));

/** Hostile values of a JSON body property, of every type. */
const HOSTILE_JSON: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  '',
  ' ',
  'x'.repeat(10_000),
  "%_\\'\"😀\u0000",
  [],
  [null],
  ['x'.repeat(10_000)],
  Array.from({ length: 1001 }, (_, i) => `id${i}`),
  {},
  { a: { b: { c: [] } } },
  JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`),
];

/** Whole bodies that are not what any operation takes. */
const HOSTILE_BODIES: Array<{ contentType: string; body: string }> = [
  ...['', 'null', '[]', '"x"', '1', 'true', '{', '{"a":', '\u0000', '{"__proto__":{"x":1}}', `${'['.repeat(5000)}${']'.repeat(5000)}`].map((body) => ({
    contentType: 'application/json',
    body,
  })),
  { contentType: 'text/plain', body: '{}' },
  { contentType: 'application/x-www-form-urlencoded', body: 'a=1' },
];

let components: Record<string, Schema> = {};

const resolve = (schema: Schema | undefined) => resolveSchema(components, schema);
/** A minimal value of a JSON schema: the required properties only, first enum values and first variants. */
const minimal = (schema: Schema | undefined, depth = 0) => minimalValue(components, schema, undefined, depth);

/** A path into a JSON body: property names, and `[]` for an array's item. */
type LeafPath = string[];

/**
 * Every string of a body schema that documents a maximum length, with its schema: top-level properties and
 * those nested in objects and arrays (first variant of a union), down to a few levels.
 */
function boundedStrings(input: Schema | undefined, path: LeafPath = [], depth = 0): Array<{ path: LeafPath; schema: Schema }> {
  const schema = resolve(input);
  if (!schema || depth > 6) return [];
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return boundedStrings(variants.find((v: Schema) => resolve(v)?.type !== 'null') ?? variants[0], path, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  if (type === 'string') return typeof schema.maxLength === 'number' ? [{ path, schema }] : [];
  if (type === 'array') return boundedStrings(schema.items, [...path, '[]'], depth + 1);
  const parts = [schema, ...(schema.allOf ?? []).map(resolve)];
  return parts.flatMap((part: Schema | undefined) =>
    Object.entries<Schema>(part?.properties ?? {}).flatMap(([key, property]) => boundedStrings(property, [...path, key], depth + 1)),
  );
}

/** The schema's minimal value with `value` at `path` (an array holds one minimal item that carries it). */
function withLeaf(input: Schema | undefined, path: LeafPath, value: unknown, depth = 0): unknown {
  if (path.length === 0) return value;
  const schema = resolve(input);
  const variants = schema?.anyOf ?? schema?.oneOf;
  if (variants) return withLeaf(variants.find((v: Schema) => resolve(v)?.type !== 'null') ?? variants[0], path, value, depth + 1);
  const [head, ...rest] = path;
  if (head === '[]') return [withLeaf(schema?.items, rest, value, depth + 1)];
  const property = [schema, ...(schema?.allOf ?? []).map(resolve)].map((part) => part?.properties?.[head]).find(Boolean);
  return { ...(minimal(schema, depth) as Record<string, unknown>), [head]: withLeaf(property, rest, value, depth + 1) };
}

/**
 * A string of exactly `length` characters that a schema of this format would take: words (titles, names),
 * an address or a URL. A pattern the text does not match is a 400, which the sweep accepts like any 4xx.
 */
function textOfLength(schema: Schema, length: number): string {
  if (schema.format === 'email') return `${'a'.repeat(Math.max(1, length - 13))}@example.test`.slice(-length);
  if (schema.format === 'uri' || schema.format === 'url') return `https://example.test/${'x'.repeat(Math.max(0, length - 21))}`;
  if (schema.pattern) return 'x'.repeat(length);
  return `${'word '.repeat(Math.ceil(length / 5)).slice(0, Math.max(0, length - 1))}s`.slice(-length);
}

/** Top-level properties of a body schema. */
function bodyProperties(input: Schema | undefined): string[] {
  const schema = resolve(input);
  if (!schema) return [];
  const parts = [schema, ...(schema.allOf ?? []).map(resolve)];
  return [...new Set(parts.flatMap((part: Schema | undefined) => Object.keys(part?.properties ?? {})))];
}

// ---------------------------------------------------------------------------------------------

let org: TestOrg;
/** Real values of every path parameter the document has, by name. */
const real: Record<string, string> = {};

/** Seeds an organization with one of everything, and records its ids in `real`. */
async function seedRealIds() {
  org = await seedOrg();
  const owner = org.owner.token;
  const space = await createSpace(org.id, owner);
  const first = await openChangeRequest(space.id, owner);
  const applied = await applyChanges(space.id, first.number, owner, [
    { operation: 'insert_files', files: [{ name: 'one.png', contentType: 'image/png', base64: PNG_1x1 }] },
    { operation: 'insert_page', ref: 'p', title: 'Page', document: { markdown: 'Text.\n' } },
    { operation: 'insert_page', into: 'p', title: 'Child', document: { markdown: 'Child.\n' } },
  ]);
  expectStatus(await merge(space.id, first.number, owner), 200);
  const open = await openChangeRequest(space.id, owner, 'Open');
  const team = expectStatus(await api('PUT', `/v1/orgs/${org.id}/teams`, { token: owner, body: { title: 'Team', members: [org.members.edit.id] } }), 201).body;
  const collection = expectStatus(await api('POST', `/v1/orgs/${org.id}/collections`, { token: owner, body: { title: 'Collection' } }), 201).body;
  const invite = expectStatus(await api('POST', `/v1/orgs/${org.id}/link-invites`, { token: owner, body: { role: 'read' } }), 201).body;
  const tokens = expectStatus(await api('GET', '/v1/user/tokens', { token: owner }), 200).body;
  const sites = `/v1/orgs/${org.id}/sites`;
  const site = expectStatus(await api('POST', sites, { token: owner, body: { title: 'Site', spaces: [space.id] } }), 201).body;
  const section = expectStatus(await api('POST', `${sites}/${site.id}/sections`, { token: owner, body: { spaceId: space.id, title: 'Section' } }), 201).body;
  const group = expectStatus(await api('POST', `${sites}/${site.id}/section-groups`, { token: owner, body: { title: 'Group', sections: [section.id] } }), 201).body;
  const shareLink = expectStatus(await api('POST', `${sites}/${site.id}/share-links`, { token: owner, body: { name: 'Link' } }), 201).body;
  expectStatus(await api('POST', `${sites}/${site.id}/publish`, { token: owner }), 200);
  const integration = await seedIntegration(org.id, { scopes: ['space:content:read', 'site:metadata:read'], script: 'export default { fetch: () => new Response("ok") };' });
  const installation = await seedInstallation(integration, org.id, { spaces: [space.id], sites: [site.id] });
  const eventId = await seedEvent(integration, installation.id, org.id);
  const spec = expectStatus(await api('POST', `/v1/orgs/${org.id}/openapi`, { token: owner, body: { slug: 'hostile-spec', source: { text: '{"openapi":"3.1.0"}' } } }), 201).body;
  const specVersionId = await seedSpecVersion(spec.id, { title: 'Hostile', tags: [], schemas: [] });
  // A conversation ingested through the API; its cluster and issue straight to D1 (what the analysis would write).
  expectStatus(await api('POST', `/v1/orgs/${org.id}/conversations`, { token: owner, body: conversation('hostile', 'The export fails') }), 204);
  const conversationId = expectStatus(await api('GET', `/v1/orgs/${org.id}/conversations`, { token: owner }), 200).body.items[0].id;
  const clusterId = await seedCluster(org.id, { label: 'Hostile' });
  const issueId = await seedIssue(org.id, conversationId, clusterId);
  const samlProvider = expectStatus(await api('POST', `/v1/orgs/${org.id}/saml`, { token: owner, body: { label: 'Hostile', defaultTeam: team.id } }), 201).body;
  const translation = expectStatus(
    await api('POST', `/v1/orgs/${org.id}/translations`, { token: owner, body: { language: 'fr', source: { space: space.id, language: 'en' } } }),
    201,
  ).body;
  const importRun = expectStatus(
    await api('POST', `/v1/org/${org.id}/imports`, { token: owner, body: { source: { type: 'website', url: 'https://docs.example.com/' }, target: { space: space.id } } }),
    201,
  ).body;
  Object.assign(real, {
    importRunId: importRun.id,
    samlProviderId: samlProvider.id,
    translationId: translation.id,
    integrationName: integration.name,
    specSlug: spec.slug,
    versionId: specVersionId,
    installationId: installation.id,
    eventId,
    siteId: site.id,
    siteSectionId: section.id,
    siteSectionGroupId: group.id,
    siteSpaceId: section.siteSpaces[0].id,
    shareLinkId: shareLink.id,
    organizationId: org.id,
    userId: org.members.read.id,
    spaceId: space.id,
    changeRequestId: String(open.number),
    pageId: expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: owner }), 200).body.pages[0].id,
    fileId: applied.insertedFiles[0].id,
    teamId: team.id,
    collectionId: collection.id,
    inviteId: invite.id,
    tokenId: tokens.items[0].id,
    emailDomain: org.owner.email.split('@')[1],
    conversationId,
    clusterId,
    issueId,
  });
}

interface Operation {
  method: string;
  path: string;
  operationId: string;
  params: Array<{ name: string; in: 'path' | 'query'; schema?: Schema }>;
  body?: Schema;
}

async function documentedOperations(): Promise<Operation[]> {
  const { body: doc } = await api('GET', '/openapi.json');
  components = doc.components.schemas;
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      method,
      path: `/v1${path}`,
      operationId: item[method].operationId,
      params: (item[method].parameters ?? []).filter((p: any) => p.in === 'path' || p.in === 'query'),
      body: item[method].requestBody?.content?.['application/json']?.schema,
    })),
  );
}

/** Sends one request; returns a description of what is wrong with the answer, or nothing. */
async function probe(op: Operation, what: string, path: Record<string, string>, query: string, body?: { contentType: string; body: string }) {
  const url = `${BASE}${op.path.replace(/\{([^}]+)\}/g, (_, name) => path[name] ?? real[name] ?? 'unknown')}${query ? `?${query}` : ''}`;
  const token = OPERATOR_OPERATIONS.has(op.operationId) ? ADMIN_TOKEN : org.owner.token;
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (body) headers['Content-Type'] = body.contentType;
  const res = await fetchWorker(url, { method: op.method.toUpperCase(), headers, body: body?.body });
  const text = new TextDecoder().decode(await res.arrayBuffer());
  if (res.status >= 500) return `${op.method} ${op.path} ${what}: ${res.status} ${text.slice(0, 200)}`;
  if (res.status >= 400) {
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    const ok = parsed?.error?.code === res.status && typeof parsed.error.message === 'string' && Object.keys(parsed).length === 1;
    if (!ok) return `${op.method} ${op.path} ${what}: ${res.status} without the error shape: ${text.slice(0, 200)}`;
  }
  return undefined;
}

/** Number of shard files; each sweeps the operations whose index in the document is its number modulo this. */
export const HOSTILE_SHARDS = 4;

/** Declares the sweep of shard `shard` (1-based) of the served document's operations. */
export async function sweepHostileInput(shard: number) {
  const all = await documentedOperations();
  const OPERATIONS = all.filter((_, index) => index % HOSTILE_SHARDS === shard - 1);
  defineSweep(shard, all.length, OPERATIONS);
}

function defineSweep(shard: number, total: number, OPERATIONS: Operation[]) {
  describe(`hostile input never answers 5xx (shard ${shard} of ${HOSTILE_SHARDS})`, () => {
    beforeAll(seedRealIds);
    // Nothing leaves the machine (DESIGN.md, Tests): a URL a body names (a website import, an OpenAPI source) is
    // answered by a stand-in that has nothing, as an unreachable site would be.
    let previousFetch: ReturnType<typeof setOutboundFetch>;
    beforeAll(() => {
      previousFetch = setOutboundFetch(() => Promise.resolve(new Response('not found', { status: 404 })));
    });
    afterAll(() => {
      setOutboundFetch(previousFetch);
    });

    it('sweeps every operation of the served document', () => {
      expect(total).toBeGreaterThanOrEqual(74);
      expect(OPERATIONS.length).toBeGreaterThan(0);
    });

    it.each(OPERATIONS.map((op) => [`${op.operationId}: ${op.method} ${op.path}`, op] as const))('%s', { timeout: 120_000 }, async (_name, op) => {
      const problems: string[] = [];
      let requests = 0;
      const check = async (...args: Parameters<typeof probe>) => {
        requests++;
        const problem = await probe(...args);
        if (problem) problems.push(problem);
      };
      const minimalBody = op.body ? (minimal(op.body) as Record<string, unknown>) : undefined;
      const jsonBody = op.body ? { contentType: 'application/json', body: JSON.stringify(minimalBody ?? {}) } : undefined;
      // Path parameters.
      for (const param of op.params.filter((p) => p.in === 'path')) {
        for (const value of HOSTILE_ID) await check(op, `path ${param.name}=${value.slice(0, 30)}`, { [param.name]: value }, '', jsonBody);
      }
      // Query parameters, one at a time, and repeated.
      for (const param of op.params.filter((p) => p.in === 'query')) {
        const values = [...HOSTILE_TEXT, ...HOSTILE_RAW, ...(param.name === 'page' ? FORGED_CURSORS : [])];
        for (const value of values) await check(op, `query ${param.name}=${value.slice(0, 30)}`, {}, `${param.name}=${value}`, jsonBody);
        await check(op, `query ${param.name} without a value`, {}, param.name, jsonBody);
        await check(op, `query ${param.name} twice`, {}, `${param.name}=1&${param.name}=2`, jsonBody);
      }
      if (op.body) {
        // Whole bodies.
        for (const body of HOSTILE_BODIES) await check(op, `body ${body.contentType} ${body.body.slice(0, 20)}`, {}, '', body);
        // Each top-level property of an otherwise minimal body.
        for (const property of bodyProperties(op.body)) {
          for (const value of HOSTILE_JSON) {
            const body = JSON.stringify({ ...minimalBody, [property]: value });
            await check(op, `body.${property}=${JSON.stringify(value).slice(0, 30)}`, {}, '', { contentType: 'application/json', body });
          }
        }
      }
      // Valid bodies whose bounded strings sit at their maximum length and one past it: a long title must be
      // taken (or refused with a 400 naming the limit), never break a query built from it.
      if (op.body) {
        for (const { path, schema } of boundedStrings(op.body)) {
          for (const length of [schema.maxLength, schema.maxLength + 1]) {
            const body = JSON.stringify(withLeaf(op.body, path, textOfLength(schema, length)));
            await check(op, `body.${path.join('.')} of ${length} characters`, {}, '', { contentType: 'application/json', body });
          }
        }
      }
      // Query parameters at their maximum length and one past it, as text of words.
      for (const param of op.params.filter((p) => p.in === 'query' && typeof p.schema?.maxLength === 'number')) {
        for (const length of [param.schema!.maxLength, param.schema!.maxLength + 1]) {
          await check(op, `query ${param.name} of ${length} characters`, {}, `${param.name}=${encodeURIComponent(textOfLength(param.schema!, length))}`, jsonBody);
        }
      }
      // An operation that takes no input at all: hostile only by its token, which is real here.
      if (requests === 0) await check(op, 'as it is', {}, '');
      expect(problems, `${problems.length} of ${requests} requests`).toEqual([]);
    });
  });
}
