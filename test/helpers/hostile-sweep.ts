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
import { operationsOf, probesOf, type Operation, type Probe } from './hostile-probes';
import { servedDocument } from './served-document';
import { fetchWorker } from './worker';

const OPERATOR_OPERATIONS = new Set(['createUser', 'createUserToken']);
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

async function documentedOperations(): Promise<Operation[]> {
  return operationsOf(await servedDocument());
}

/** Sends one request; returns a description of what is wrong with the answer, or nothing. */
async function probe(op: Operation, { what, path, query, body }: Probe) {
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
      const probes = probesOf(op);
      const problems: string[] = [];
      for (const request of probes) {
        const problem = await probe(op, request);
        if (problem) problems.push(problem);
      }
      expect(problems, `${problems.length} of ${probes.length} requests`).toEqual([]);
    });
  });
}
