/**
 * The integration lists of an organization, a space and a site (routes/integrations/enabled-integrations.ts):
 * listOrganizationIntegrations (public ones and the organization's own), listSpaceIntegrations and
 * listSiteIntegrations (those an installation of the content's organization covers and has not paused),
 * with GitBook 0.202.0's shapes, who may call them, and what they never show of another organization.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { api, byCaller, callerUser, CALLERS, expectError, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration, seedToken, type SeededIntegration } from '../helpers/integrations';
import { measureRoundTrips } from '../helpers/round-trips';

const GITBOOK = gitbookOperations();

function expectConforms(operationId: string, res: ApiResponse) {
  const schema = GITBOOK.get(operationId)!.responses[String(res.status)];
  expect(schema, `${operationId} documents ${res.status}`).toBeDefined();
  expect(gitbookErrors(schemaValidator(schema!, GITBOOK_0202.components), res.body), JSON.stringify(res.body)).toBe('valid');
}

const names = (res: ApiResponse) => (res.body.items as { name: string }[]).map((i) => i.name).sort();
const orgList = (orgId: string, query = '') => `/v1/orgs/${orgId}/integrations${query}`;
const spaceList = (spaceId: string, query = '') => `/v1/spaces/${spaceId}/integrations${query}`;
const siteList = (orgId: string, siteId: string, query = '') => `/v1/orgs/${orgId}/sites/${siteId}/integrations${query}`;

let org: TestOrg;
let other: TestOrg;
let space: any;
let otherSpace: any;
let site: any;
let otherSite: any;
/** Public, installed on `space` and `site` only. */
let onContent: SeededIntegration;
/** Private to `org`, installed on all of its spaces and sites. */
let ownPrivate: SeededIntegration;
/** Private to `other`: never listed for `org`. */
let foreignPrivate: SeededIntegration;
/** Public, installed on `org` but paused. */
let paused: SeededIntegration;
/** Public, installed on `otherSpace` (another organization) only. */
let elsewhere: SeededIntegration;

beforeAll(async () => {
  [org, other] = await Promise.all([seedOrg(), seedOrg()]);
  [space, otherSpace] = await Promise.all([createSpace(org.id, org.owner.token, 'Here'), createSpace(other.id, other.owner.token, 'There')]);
  [site, otherSite] = await Promise.all([
    api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: 'Here' } }).then((r) => expectStatus(r, 201).body),
    api('POST', `/v1/orgs/${other.id}/sites`, { token: other.owner.token, body: { title: 'There' } }).then((r) => expectStatus(r, 201).body),
  ]);
  [onContent, ownPrivate, foreignPrivate, paused, elsewhere] = await Promise.all([
    seedIntegration(other.id, { name: `zz-on-${Date.now().toString(36)}` }),
    seedIntegration(org.id, { visibility: 'private' }),
    seedIntegration(other.id, { visibility: 'private' }),
    seedIntegration(other.id),
    seedIntegration(other.id),
  ]);
  await Promise.all([
    seedInstallation(onContent, org.id, { spaces: [space.id], sites: [site.id] }),
    seedInstallation(ownPrivate, org.id, { spaces: 'all', sites: 'all' }),
    seedInstallation(paused, org.id, { spaces: 'all', sites: 'all', status: 'paused' }),
    seedInstallation(elsewhere, other.id, { spaces: [otherSpace.id], sites: [otherSite.id] }),
    seedInstallation(foreignPrivate, other.id, { spaces: 'all', sites: 'all' }),
  ]);
});

describe('listOrganizationIntegrations', () => {
  it("lists public integrations and the organization's own private ones, never another's private ones", async () => {
    const res = expectStatus(await api('GET', orgList(org.id, '?limit=1000'), { token: org.members.read.token }), 200);
    expectConforms('listOrganizationIntegrations', res);
    const listed = names(res);
    expect(listed).toEqual(expect.arrayContaining([onContent.name, ownPrivate.name, paused.name]));
    expect(listed).not.toContain(foreignPrivate.name);
    // The other organization sees its own private one, and not this one's.
    const theirs = names(expectStatus(await api('GET', orgList(other.id, '?limit=1000'), { token: other.owner.token }), 200));
    expect(theirs).toContain(foreignPrivate.name);
    expect(theirs).not.toContain(ownPrivate.name);
  });

  it("applies GitBook's filters (owner, search) and pages", async () => {
    const owned = expectStatus(await api('GET', orgList(org.id, `?owner=${org.id}`), { token: org.owner.token }), 200);
    expect(names(owned)).toEqual([ownPrivate.name]);
    const searched = expectStatus(await api('GET', orgList(org.id, `?search=${onContent.name}`), { token: org.owner.token }), 200);
    expect(names(searched)).toEqual([onContent.name]);
    const first = expectStatus(await api('GET', orgList(org.id, '?limit=1'), { token: org.owner.token }), 200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.next?.page).toEqual(expect.any(String));
    const second = expectStatus(await api('GET', orgList(org.id, `?limit=1&page=${first.body.next.page}`), { token: org.owner.token }), 200);
    expect(second.body.items[0].name).not.toBe(first.body.items[0].name);
  });

  it('answers every member (guests too), and 404 to outsiders', async () => {
    const expected = byCaller(200, 200, 200, 200, 200, 200, 200, 404);
    for (const caller of CALLERS) {
      const res = await api('GET', orgList(org.id), { token: callerUser(org, caller).token });
      expect(res.status, `${caller}: ${JSON.stringify(res.body)}`).toBe(expected[caller]);
    }
  });
});

describe('listSpaceIntegrations and listSiteIntegrations', () => {
  it('list exactly the integrations enabled there: installed on it or on all, not paused, of its own organization', async () => {
    const onSpace = expectStatus(await api('GET', spaceList(space.id), { token: org.members.read.token }), 200);
    expectConforms('listSpaceIntegrations', onSpace);
    expect(names(onSpace)).toEqual([onContent.name, ownPrivate.name].sort());
    const onSite = expectStatus(await api('GET', siteList(org.id, site.id), { token: org.members.read.token }), 200);
    expectConforms('listSiteIntegrations', onSite);
    expect(names(onSite)).toEqual([onContent.name, ownPrivate.name].sort());
    // Another space of the organization: only the installation covering all of them.
    const second = await createSpace(org.id, org.owner.token, 'Second');
    expect(names(expectStatus(await api('GET', spaceList(second.id), { token: org.owner.token }), 200))).toEqual([ownPrivate.name]);
    // The other organization's space: its own installations only.
    expect(names(expectStatus(await api('GET', spaceList(otherSpace.id), { token: other.owner.token }), 200))).toEqual(
      [elsewhere.name, foreignPrivate.name].sort(),
    );
  });

  it('filter by search', async () => {
    const res = expectStatus(await api('GET', spaceList(space.id, `?search=${ownPrivate.name}`), { token: org.owner.token }), 200);
    expect(names(res)).toEqual([ownPrivate.name]);
  });

  it("a space installation's own paused status hides it there", async () => {
    const spaceB = await createSpace(org.id, org.owner.token, 'Paused here');
    const own = await seedIntegration(other.id);
    const inst = await seedInstallation(own, org.id, { spaces: [spaceB.id] });
    expect(names(expectStatus(await api('GET', spaceList(spaceB.id), { token: org.owner.token }), 200))).toContain(own.name);
    await env.DB.prepare("update integration_space_installations set status = 'paused' where installation_id = ?").bind(inst.id).run();
    expect(names(expectStatus(await api('GET', spaceList(spaceB.id), { token: org.owner.token }), 200))).not.toContain(own.name);
  });

  it("answer the space's and the site's readers; 404 to outsiders and guests", async () => {
    const expected = byCaller(200, 200, 200, 200, 200, 200, 404, 404);
    for (const caller of CALLERS) {
      const token = callerUser(org, caller).token;
      const onSpace = await api('GET', spaceList(space.id), { token });
      expect(onSpace.status, `space, ${caller}: ${JSON.stringify(onSpace.body)}`).toBe(expected[caller]);
      const onSite = await api('GET', siteList(org.id, site.id), { token });
      expect(onSite.status, `site, ${caller}: ${JSON.stringify(onSite.body)}`).toBe(expected[caller]);
    }
  });

  it("never open another organization's space or site, whatever the path claims", async () => {
    const token = org.owner.token;
    expectError(await api('GET', spaceList(otherSpace.id), { token }), 404);
    // Own organization in the path, the other's site id: no such site here.
    expectError(await api('GET', siteList(org.id, otherSite.id), { token }), 404);
    expectError(await api('GET', siteList(other.id, otherSite.id), { token }), 404);
    expectError(await api('GET', orgList(other.id), { token }), 404);
  });

  it('refuse visitors and integration tokens', async () => {
    expectError(await api('GET', spaceList(space.id), { token: null }), 401);
    expectError(await api('GET', orgList(org.id), { token: null }), 401);
    const integrationToken = await seedToken(onContent.id, null);
    const res = await api('GET', siteList(org.id, site.id), { token: integrationToken });
    expect([401, 403]).toContain(res.status);
    expect(res.body.error.code).toBe(res.status);
  });

  it('answer hostile ids and queries with 4xx, never 500', async () => {
    const token = org.owner.token;
    for (const path of [
      spaceList('x'.repeat(5000)),
      spaceList("'; drop table spaces; --"),
      siteList(org.id, '%00'),
      siteList('nope', site.id),
      orgList(org.id, `?search=${'a'.repeat(10_000)}`),
      orgList(org.id, '?limit=-1'),
      orgList(org.id, '?limit=abc'),
      orgList(org.id, '?page=garbage'),
      orgList(org.id, '?blocks=maybe'),
      spaceList(space.id, `?search=${'%'.repeat(300)}`),
    ]) {
      const res = await api('GET', path, { token });
      expect(res.status, `${path.slice(0, 80)}: ${JSON.stringify(res.body).slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, path.slice(0, 80)).toBeLessThan(500);
      expect(res.body.error).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    }
  });

  it('each read costs at most 2 round trips (token and one batch)', async () => {
    for (const path of [orgList(org.id), spaceList(space.id), siteList(org.id, site.id)]) {
      const measured = await measureRoundTrips('GET', path, org.owner.token);
      expect(measured.status, path).toBe(200);
      expect(measured.roundTrips, path).toBeLessThanOrEqual(2);
    }
  });
});
