/**
 * Who may call what on docs sites, written out: every one of the 41 site operations (routes/sites/*.ts)
 * for every caller. The rules (services/sites/access.ts, DESIGN.md "Identity and access", issue 10):
 * - organization members with role read or higher read sites, their structure, customization,
 *   adaptive schema and template conditions (and the published view: members preview any site);
 * - only organization admins create, change, publish and delete sites and their structure, and only
 *   admins read or change share links and publishing auth (its privateKey is a secret);
 * - guests (organization role guest) and outsiders cannot see sites: 404 (listSites answers a guest the sites
 *   shared with them: none here); members below admin get
 *   403 on the admin operations;
 * - DELETE of an absent item, by an admin: 204;
 * - no token: 401, except the three visitor reads (getPublishedContentSite, listSiteSections,
 *   listSiteSpaces) which answer like a visitor: nothing of an unpublished site (404), a published
 *   public site (200);
 * - the operator token (ADMIN_TOKEN) is not a user: 403;
 * - another organization's site id under this organization's path, or a site id under another
 *   organization's path: 404.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SiteSchema } from '../../src/schemas/site';
import { createSpace } from '../helpers/content';
import {
  ADMIN_TOKEN,
  api,
  byCaller,
  callerUser,
  CALLERS,
  createUser,
  expectError,
  expectSchema,
  expectStatus,
  seedOrg,
  type ApiResponse,
  type Caller,
  type TestOrg,
} from '../helpers/harness';

const S = byCaller;
const READS = S(200, 200, 200, 200, 200, 200, 404, 404);
const admins = (status: number) => S(status, 403, 403, 403, 403, 403, 404, 404);

const EXPECTED = {
  // sites.ts
  // A guest lists the sites shared with them (test/sites/guest-sites.test.ts): none here, an empty list.
  listSites: S(200, 200, 200, 200, 200, 200, 200, 404),
  createSite: admins(201),
  getSiteById: READS,
  updateSiteById: admins(200),
  deleteSiteById: admins(204),
  publishSite: admins(200),
  unpublishSite: admins(200),
  getSiteStructure: READS,
  // sections.ts
  listSiteSections: READS,
  addSectionToSite: admins(201),
  deleteSiteSectionById: admins(204),
  updateSiteSectionById: admins(200),
  moveSiteSection: admins(200),
  // section-groups.ts
  listSiteSectionGroups: READS,
  addSectionGroupToSite: admins(201),
  deleteSiteSectionGroupById: admins(204),
  updateSiteSectionGroupById: admins(200),
  addSectionToGroup: admins(201),
  removeSectionFromGroup: admins(204),
  moveSiteSectionGroup: admins(200),
  // site-spaces.ts
  listSiteSpaces: READS,
  addSpaceToSite: admins(201),
  deleteSiteSpaceById: admins(204),
  updateSiteSpaceById: admins(200),
  moveSiteSpace: admins(200),
  // sharing.ts
  listSiteShareLinks: admins(200),
  createSiteShareLink: admins(201),
  updateSiteShareLinkById: admins(200),
  deleteSiteShareLinkById: admins(204),
  getSitePublishingAuthById: admins(200),
  updateSitePublishingAuthById: admins(200),
  regenerateSitePublishingAuthById: admins(200),
  // adaptive.ts
  getSiteAdaptiveSchema: READS,
  updateSiteAdaptiveSchema: admins(200),
  listSiteAdaptiveTemplateConditions: READS,
  // customization.ts
  getSiteCustomizationById: READS,
  updateSiteCustomizationById: admins(200),
  getSiteSpaceCustomizationById: READS,
  overrideSiteSpaceCustomizationById: admins(200),
  deleteSiteSpaceCustomizationById: admins(204),
  // published.ts
  getPublishedContentSite: READS,
} satisfies Record<string, Record<Caller, number>>;

type Operation = keyof typeof EXPECTED;
const OPERATIONS = Object.keys(EXPECTED) as Operation[];
const VISITOR_READS: Operation[] = ['getPublishedContentSite', 'listSiteSections', 'listSiteSpaces'];

/**
 * The order of the calls: reads, then changes, then what removes something, so that an admin's
 * successful call does not change the outcome of the next one.
 */
const ORDER: Operation[] = [
  'listSites',
  'getSiteById',
  'getSiteStructure',
  'listSiteSections',
  'listSiteSpaces',
  'listSiteSectionGroups',
  'getSiteCustomizationById',
  'getSiteSpaceCustomizationById',
  'getSiteAdaptiveSchema',
  'listSiteAdaptiveTemplateConditions',
  'getPublishedContentSite',
  'listSiteShareLinks',
  'getSitePublishingAuthById',
  'createSite',
  'updateSiteById',
  'publishSite',
  'unpublishSite',
  'addSectionToSite',
  'updateSiteSectionById',
  'moveSiteSection',
  'addSectionGroupToSite',
  'updateSiteSectionGroupById',
  'addSectionToGroup',
  'removeSectionFromGroup',
  'moveSiteSectionGroup',
  'addSpaceToSite',
  'updateSiteSpaceById',
  'moveSiteSpace',
  'createSiteShareLink',
  'updateSiteShareLinkById',
  'updateSitePublishingAuthById',
  'regenerateSitePublishingAuthById',
  'updateSiteCustomizationById',
  'overrideSiteSpaceCustomizationById',
  'updateSiteAdaptiveSchema',
  'deleteSiteSpaceCustomizationById',
  'deleteSiteShareLinkById',
  'deleteSiteSpaceById',
  'deleteSiteSectionGroupById',
  'deleteSiteSectionById',
  'deleteSiteById',
];

const ADAPTIVE_SCHEMA = { type: 'object', properties: { beta: { type: 'boolean', description: 'Beta user' } }, additionalProperties: false };
const CHANGED_ADAPTIVE_SCHEMA = {
  type: 'object',
  properties: { beta: { type: 'boolean', description: 'Beta user' }, staff: { type: 'boolean', description: 'Staff member' } },
  additionalProperties: false,
};

/** What the operations act on: a site of three sections (one in a group), three groups, site spaces, share links. */
interface Target {
  orgId: string;
  siteId: string;
  /** The site deleteSiteById removes (not the one the other operations act on). */
  disposableSiteId: string;
  spaceId: string;
  sectionA: string; // default section, holds siteSpaceA (default) and siteSpaceDel
  sectionB: string; // in groupA, holds siteSpaceB
  sectionDel: string;
  groupA: string;
  groupB: string;
  groupDel: string;
  siteSpaceA: string; // has a customization override
  siteSpaceB: string;
  siteSpaceDel: string;
  shareLink: string;
  shareLinkDel: string;
}

interface Fixture extends Target {
  /** A token of an admin of the organization. */
  admin: string;
  privateKey: string;
}

const sitePath = (t: Pick<Target, 'orgId' | 'siteId'>) => `/v1/orgs/${t.orgId}/sites/${t.siteId}`;

function call(op: Operation, t: Target, token: string | undefined, caller = 'caller'): Promise<ApiResponse> {
  const sites = `/v1/orgs/${t.orgId}/sites`;
  const site = sitePath(t);
  switch (op) {
    case 'listSites':
      return api('GET', sites, { token });
    case 'createSite':
      return api('POST', sites, { token, body: { title: `Created by ${caller}` } });
    case 'getSiteById':
      return api('GET', site, { token });
    case 'updateSiteById':
      return api('PATCH', site, { token, body: { title: `Renamed by ${caller}` } });
    case 'deleteSiteById':
      return api('DELETE', `${sites}/${t.disposableSiteId}`, { token });
    case 'publishSite':
      return api('POST', `${site}/publish`, { token });
    case 'unpublishSite':
      return api('POST', `${site}/unpublish`, { token });
    case 'getSiteStructure':
      return api('GET', `${site}/structure`, { token });
    case 'listSiteSections':
      return api('GET', `${site}/sections`, { token });
    case 'addSectionToSite':
      return api('POST', `${site}/sections`, { token, body: { spaceId: t.spaceId, title: `Section by ${caller}` } });
    case 'deleteSiteSectionById':
      return api('DELETE', `${site}/sections/${t.sectionDel}`, { token });
    case 'updateSiteSectionById':
      return api('PATCH', `${site}/sections/${t.sectionB}`, { token, body: { title: `Section renamed by ${caller}` } });
    case 'moveSiteSection':
      return api('POST', `${site}/sections/${t.sectionA}/move`, { token, body: {} });
    case 'listSiteSectionGroups':
      return api('GET', `${site}/section-groups`, { token });
    case 'addSectionGroupToSite':
      return api('POST', `${site}/section-groups`, { token, body: { title: `Group by ${caller}` } });
    case 'deleteSiteSectionGroupById':
      return api('DELETE', `${site}/section-groups/${t.groupDel}`, { token });
    case 'updateSiteSectionGroupById':
      return api('PATCH', `${site}/section-groups/${t.groupA}`, { token, body: { title: `Group renamed by ${caller}` } });
    case 'addSectionToGroup':
      return api('POST', `${site}/section-groups/${t.groupB}/sections`, { token, body: { sectionId: t.sectionA } });
    case 'removeSectionFromGroup':
      return api('DELETE', `${site}/section-groups/${t.groupA}/sections/${t.sectionB}`, { token });
    case 'moveSiteSectionGroup':
      return api('POST', `${site}/section-groups/${t.groupB}/move`, { token, body: {} });
    case 'listSiteSpaces':
      return api('GET', `${site}/site-spaces`, { token });
    case 'addSpaceToSite':
      return api('POST', `${site}/site-spaces`, { token, body: { spaceId: t.spaceId, sectionId: t.sectionB, title: `Variant by ${caller}` } });
    case 'deleteSiteSpaceById':
      return api('DELETE', `${site}/site-spaces/${t.siteSpaceDel}`, { token });
    case 'updateSiteSpaceById':
      return api('PATCH', `${site}/site-spaces/${t.siteSpaceB}`, { token, body: { title: `Variant renamed by ${caller}` } });
    case 'moveSiteSpace':
      return api('POST', `${site}/site-spaces/${t.siteSpaceA}/move`, { token, body: {} });
    case 'listSiteShareLinks':
      return api('GET', `${site}/share-links`, { token });
    case 'createSiteShareLink':
      return api('POST', `${site}/share-links`, { token, body: { name: `Link by ${caller}` } });
    case 'updateSiteShareLinkById':
      return api('PATCH', `${site}/share-links/${t.shareLink}`, { token, body: { name: `Renamed by ${caller}`.slice(0, 50) } });
    case 'deleteSiteShareLinkById':
      return api('DELETE', `${site}/share-links/${t.shareLinkDel}`, { token });
    case 'getSitePublishingAuthById':
      return api('GET', `${site}/publishing/auth`, { token });
    case 'updateSitePublishingAuthById':
      return api('PATCH', `${site}/publishing/auth`, { token, body: { backend: 'custom', logoutURL: 'https://example.com/logged-out' } });
    case 'regenerateSitePublishingAuthById':
      return api('POST', `${site}/publishing/auth/regenerate`, { token });
    case 'getSiteAdaptiveSchema':
      return api('GET', `${site}/adaptive-schema`, { token });
    case 'updateSiteAdaptiveSchema':
      return api('PUT', `${site}/adaptive-schema`, { token, body: { jsonSchema: CHANGED_ADAPTIVE_SCHEMA } });
    case 'listSiteAdaptiveTemplateConditions':
      return api('GET', `${site}/adaptive-schema/template-conditions`, { token });
    case 'getSiteCustomizationById':
      return api('GET', `${site}/customization`, { token });
    case 'updateSiteCustomizationById':
      return api('PUT', `${site}/customization`, { token, body: { title: `Look by ${caller}` } });
    case 'getSiteSpaceCustomizationById':
      return api('GET', `${site}/site-spaces/${t.siteSpaceA}/customization`, { token });
    case 'overrideSiteSpaceCustomizationById':
      return api('PATCH', `${site}/site-spaces/${t.siteSpaceB}/customization`, { token, body: { title: `Override by ${caller}` } });
    case 'deleteSiteSpaceCustomizationById':
      return api('DELETE', `${site}/site-spaces/${t.siteSpaceA}/customization`, { token });
    case 'getPublishedContentSite':
      return api('GET', `${site}/published`, { token });
  }
}

async function ok<T = any>(res: Promise<ApiResponse<T>>, status: number): Promise<T> {
  return expectStatus(await res, status).body;
}

/** An organization with an admin: either a seeded one (members of every role) or a bare one. */
async function bareOrg(): Promise<{ orgId: string; admin: string }> {
  const owner = await createUser();
  const org = await ok(api('POST', '/v1/orgs', { token: owner.token, body: { title: 'Elsewhere' } }), 201);
  return { orgId: org.id, admin: owner.token };
}

/** Builds the site every table acts on, through the API, as the organization's admin. */
async function buildSite(orgId: string, admin: string): Promise<Fixture> {
  const token = admin;
  const [alpha, beta, gamma] = [await createSpace(orgId, token, 'Alpha'), await createSpace(orgId, token, 'Beta'), await createSpace(orgId, token, 'Gamma')];
  const sites = `/v1/orgs/${orgId}/sites`;
  const site = await ok(api('POST', sites, { token, body: { title: 'Handbook', visibility: 'public' } }), 201);
  const disposable = await ok(api('POST', sites, { token, body: { title: 'Disposable', spaces: [gamma.id] } }), 201);
  const base = `${sites}/${site.id}`;
  const sectionA = await ok(api('POST', `${base}/sections`, { token, body: { spaceId: alpha.id, title: 'Alpha' } }), 201);
  const sectionB = await ok(api('POST', `${base}/sections`, { token, body: { spaceId: beta.id, title: 'Beta' } }), 201);
  const sectionDel = await ok(api('POST', `${base}/sections`, { token, body: { spaceId: gamma.id, title: 'Gamma' } }), 201);
  const siteSpaceDel = await ok(api('POST', `${base}/site-spaces`, { token, body: { spaceId: gamma.id, sectionId: sectionA.id, title: 'Gamma variant' } }), 201);
  const groupA = await ok(api('POST', `${base}/section-groups`, { token, body: { title: 'Group A', sections: [sectionB.id] } }), 201);
  const groupB = await ok(api('POST', `${base}/section-groups`, { token, body: { title: 'Group B' } }), 201);
  const groupDel = await ok(api('POST', `${base}/section-groups`, { token, body: { title: 'Group to delete' } }), 201);
  const shareLink = await ok(api('POST', `${base}/share-links`, { token, body: { name: 'Partners' } }), 201);
  const shareLinkDel = await ok(api('POST', `${base}/share-links`, { token, body: { name: 'Old partners' } }), 201);
  await ok(api('PUT', `${base}/adaptive-schema`, { token, body: { jsonSchema: ADAPTIVE_SCHEMA } }), 200);
  await ok(api('PUT', `${base}/customization`, { token, body: { title: 'Handbook look' } }), 200);
  const siteSpaceA = sectionA.siteSpaces[0].id;
  await ok(api('PATCH', `${base}/site-spaces/${siteSpaceA}/customization`, { token, body: { title: 'Alpha look' } }), 200);
  const auth = await ok(api('PATCH', `${base}/publishing/auth`, { token, body: { backend: 'custom', fallbackURL: 'https://example.com/login' } }), 200);
  expect(sectionA.default).toBe(true);
  expect(sectionA.siteSpaces[0].default).toBe(true);
  expect(groupA.children.map((c: any) => c.id)).toEqual([sectionB.id]);
  return {
    orgId,
    admin,
    siteId: site.id,
    disposableSiteId: disposable.id,
    spaceId: beta.id,
    sectionA: sectionA.id,
    sectionB: sectionB.id,
    sectionDel: sectionDel.id,
    groupA: groupA.id,
    groupB: groupB.id,
    groupDel: groupDel.id,
    siteSpaceA,
    siteSpaceB: sectionB.siteSpaces[0].id,
    siteSpaceDel: siteSpaceDel.id,
    shareLink: shareLink.id,
    shareLinkDel: shareLinkDel.id,
    privateKey: auth.privateKey,
  };
}

/** Everything an operation could change, read back by the organization's admin. */
async function snapshot(f: Fixture) {
  const base = sitePath(f);
  const read = async (path: string) => {
    const res = await api('GET', path, { token: f.admin });
    return { status: res.status, body: res.body };
  };
  const [site, disposable, sites, structure, groups, shareLinks, auth, adaptive, customization, siteSpaceA, siteSpaceB] = await Promise.all([
    read(base),
    read(`/v1/orgs/${f.orgId}/sites/${f.disposableSiteId}`),
    read(`/v1/orgs/${f.orgId}/sites?limit=100`),
    read(`${base}/structure`),
    read(`${base}/section-groups`),
    read(`${base}/share-links`),
    read(`${base}/publishing/auth`),
    read(`${base}/adaptive-schema`),
    read(`${base}/customization`),
    read(`${base}/site-spaces/${f.siteSpaceA}/customization`),
    read(`${base}/site-spaces/${f.siteSpaceB}/customization`),
  ]);
  return { site, disposable, sites, structure, groups, shareLinks, auth, adaptive, customization, siteSpaceA, siteSpaceB };
}

/** Runs `ops` against `t` and lists every answer that is not the expected one (error bodies checked too). */
async function tableFailures(ops: Operation[], t: Target, token: string | undefined, expected: (op: Operation) => number, label: string): Promise<string[]> {
  const failures: string[] = [];
  for (const op of ops) {
    const res = await call(op, t, token);
    const status = expected(op);
    if (res.status !== status) failures.push(`${op} ${label}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
    else if (status >= 400) expectError(res, status);
  }
  return failures;
}

/** The permissions booleans of a Site, by organization role, as the rules give them. */
const READER = { view: true, access: true, edit: false, create: false, admin: false, installIntegration: false, viewAdaptiveSchema: true, editAdaptiveSchema: false };
const ADMIN = { view: true, access: true, edit: true, create: true, admin: true, installIntegration: true, viewAdaptiveSchema: true, editAdaptiveSchema: true };

describe('docs sites authorization table', () => {
  let org: TestOrg;
  let f: Fixture;

  beforeAll(async () => {
    org = await seedOrg();
    f = await buildSite(org.id, org.owner.token);
  });

  it('lists all 41 operations, each once in the order of the calls', () => {
    expect(OPERATIONS).toHaveLength(41);
    expect([...ORDER].sort()).toEqual([...OPERATIONS].sort());
  });

  it('answers every caller as written in the table; refused calls change nothing', async () => {
    const before = await snapshot(f);
    expect(before.site.status).toBe(200);
    expect(before.disposable.status).toBe(200);
    expect(before.adaptive.status).toBe(200);
    expect(before.siteSpaceA.body.title).toBe('Alpha look');
    expect(before.auth.body.fallbackURL).toBe('https://example.com/login');
    const failures: string[] = [];
    // The admin last: only its calls change anything, and nothing has to be re-created for the others.
    const callers: Caller[] = [...CALLERS.filter((c) => c !== 'admin'), 'admin'];
    expect([...callers].sort()).toEqual([...CALLERS].sort());
    for (const caller of callers) {
      const user = callerUser(org, caller);
      for (const op of ORDER) {
        const res = await call(op, f, user.token, caller);
        const expected = EXPECTED[op][caller];
        const label = `${op} as ${caller}`;
        if (res.status !== expected) {
          failures.push(`${label}: expected ${expected}, got ${res.status} ${JSON.stringify(res.body)}`);
          continue;
        }
        if (expected >= 400) {
          expectError(res, expected);
          continue;
        }
        const b = res.body;
        switch (op) {
          case 'listSites':
            if (caller === 'guest') expect(b.items, label).toEqual([]);
            else expect(b.items.map((s: any) => s.id), label).toEqual(expect.arrayContaining([f.siteId, f.disposableSiteId]));
            break;
          case 'getSiteById':
            expectSchema(SiteSchema, b);
            expect(b.id, label).toBe(f.siteId);
            break;
          case 'getSiteStructure':
            expect(b.type, label).toBe('sections');
            break;
          case 'listSiteSections':
            expect(b.items.map((s: any) => s.id), label).toEqual(expect.arrayContaining([f.sectionA, f.sectionB, f.sectionDel]));
            break;
          case 'listSiteSpaces':
            expect(b.items.map((s: any) => s.id), label).toEqual(expect.arrayContaining([f.siteSpaceA, f.siteSpaceB, f.siteSpaceDel]));
            break;
          case 'listSiteSectionGroups':
            expect(b.items.map((g: any) => g.id), label).toEqual(expect.arrayContaining([f.groupA, f.groupB, f.groupDel]));
            break;
          case 'getSiteCustomizationById':
            expect(b.title, label).toBe('Handbook look');
            break;
          case 'getSiteSpaceCustomizationById':
            expect(b.title, label).toBe('Alpha look');
            break;
          case 'getSiteAdaptiveSchema':
            expect(b, label).toMatchObject({ object: 'site-adaptive-schema', jsonSchema: ADAPTIVE_SCHEMA });
            break;
          case 'listSiteAdaptiveTemplateConditions':
            expect(b.items.length, label).toBeGreaterThan(0);
            expect(JSON.stringify(b.items), label).toContain('beta');
            break;
          case 'getPublishedContentSite':
            expect(b.object, label).toBe('published-content-site');
            expect(b.site.id, label).toBe(f.siteId);
            break;
          case 'listSiteShareLinks':
            expect(b.items.map((l: any) => l.id).sort(), label).toEqual([f.shareLink, f.shareLinkDel].sort());
            break;
          case 'getSitePublishingAuthById':
            expect(b, label).toMatchObject({ object: 'publishing-auth', privateKey: f.privateKey });
            break;
          case 'createSite':
            expect(b, label).toMatchObject({ object: 'site', title: `Created by ${caller}`, permissions: ADMIN });
            break;
          case 'updateSiteById':
            expect(b.title, label).toBe(`Renamed by ${caller}`);
            break;
          case 'publishSite':
            expect(b.published, label).toBe(true);
            break;
          case 'unpublishSite':
            expect(b.published, label).toBe(false);
            break;
          case 'addSectionToSite':
            expect(b, label).toMatchObject({ object: 'site-section', title: `Section by ${caller}`, default: false });
            break;
          case 'updateSiteSectionById':
            expect(b, label).toMatchObject({ id: f.sectionB, title: `Section renamed by ${caller}` });
            break;
          case 'moveSiteSection':
            expect(b.id, label).toBe(f.sectionA);
            break;
          case 'addSectionGroupToSite':
            expect(b, label).toMatchObject({ object: 'site-section-group', title: `Group by ${caller}` });
            break;
          case 'updateSiteSectionGroupById':
            expect(b, label).toMatchObject({ id: f.groupA, title: `Group renamed by ${caller}` });
            break;
          case 'addSectionToGroup':
            expect(b.id, label).toBe(f.groupB);
            expect(b.children.map((c: any) => c.id), label).toEqual([f.sectionA]);
            break;
          case 'moveSiteSectionGroup':
            expect(b.id, label).toBe(f.groupB);
            break;
          case 'addSpaceToSite':
            expect(b, label).toMatchObject({ object: 'site-space', section: f.sectionB, title: `Variant by ${caller}`, default: false });
            break;
          case 'updateSiteSpaceById':
            expect(b, label).toMatchObject({ id: f.siteSpaceB, title: `Variant renamed by ${caller}` });
            break;
          case 'moveSiteSpace':
            expect(b.id, label).toBe(f.siteSpaceA);
            break;
          case 'createSiteShareLink':
            expect(b, label).toMatchObject({ object: 'share-link', name: `Link by ${caller}`, active: true });
            break;
          case 'updateSiteShareLinkById':
            expect(b, label).toMatchObject({ id: f.shareLink, name: `Renamed by ${caller}` });
            break;
          case 'updateSitePublishingAuthById':
            expect(b, label).toMatchObject({ privateKey: f.privateKey, fallbackURL: 'https://example.com/login', logoutURL: 'https://example.com/logged-out' });
            break;
          case 'regenerateSitePublishingAuthById':
            expect(typeof b.privateKey, label).toBe('string');
            expect(b.privateKey, label).not.toBe(f.privateKey);
            break;
          case 'updateSiteCustomizationById':
            expect(b.title, label).toBe(`Look by ${caller}`);
            break;
          case 'overrideSiteSpaceCustomizationById':
            expect(b.title, label).toBe(`Override by ${caller}`);
            break;
          case 'updateSiteAdaptiveSchema':
            expect(b.jsonSchema, label).toEqual(CHANGED_ADAPTIVE_SCHEMA);
            break;
          default:
            // The 204s.
            expect(b, label).toBeNull();
        }
      }
      if (caller === 'admin') continue;
      // Refused calls changed nothing: everything reads back as before.
      const after = await snapshot(f);
      for (const key of Object.keys(before) as (keyof typeof before)[]) {
        if (JSON.stringify(after[key]) !== JSON.stringify(before[key])) {
          failures.push(`after the calls as ${caller}, ${key} changed: ${JSON.stringify(before[key])} -> ${JSON.stringify(after[key])}`);
        }
      }
    }
    expect(failures).toEqual([]);

    // The admin's calls did change things: what the deletes removed is gone.
    const after = await snapshot(f);
    expect(after.disposable.status).toBe(404);
    expect(after.site.body).toMatchObject({ title: 'Renamed by admin', published: false });
    const sections = await ok(api('GET', `${sitePath(f)}/sections`, { token: f.admin }), 200);
    expect(sections.items.map((s: any) => s.id)).not.toContain(f.sectionDel);
    expect(after.groups.body.items.map((g: any) => g.id)).not.toContain(f.groupDel);
    const siteSpaces = await ok(api('GET', `${sitePath(f)}/site-spaces`, { token: f.admin }), 200);
    expect(siteSpaces.items.map((s: any) => s.id)).not.toContain(f.siteSpaceDel);
    expect(after.shareLinks.body.items.map((l: any) => l.id)).not.toContain(f.shareLinkDel);
    expect(after.siteSpaceA.body.title).toBe('Look by admin'); // the override gone: the site's title again
    expect(after.sites.body.items.map((s: any) => s.title)).toContain('Created by admin');
    expect(after.sites.body.items.filter((s: any) => String(s.title).startsWith('Created by')).map((s: any) => s.title)).toEqual(['Created by admin']);
  });

  it('tells an admin and a read member what they may do in the permissions of a site', async () => {
    const site = `/v1/orgs/${org.id}/sites/${f.siteId}`;
    for (const [caller, expected] of [
      ['admin', ADMIN],
      ['read', READER],
    ] as const) {
      const token = callerUser(org, caller).token;
      const got = await ok(api('GET', site, { token }), 200);
      expect(got.permissions, caller).toEqual(expected);
      const listed = await ok(api('GET', `/v1/orgs/${org.id}/sites`, { token }), 200);
      expect(listed.items.find((s: any) => s.id === f.siteId)?.permissions, caller).toEqual(expected);
      const preview = await ok(api('GET', `${site}/published`, { token }), 200);
      expect(preview.site.permissions, caller).toEqual(expected);
    }
  });

  it('gives the members between read and admin, who may change nothing, the permissions of a reader', async () => {
    const failures: string[] = [];
    for (const caller of ['create', 'review', 'edit', 'comment'] as const) {
      const got = await ok(api('GET', `/v1/orgs/${org.id}/sites/${f.siteId}`, { token: callerUser(org, caller).token }), 200);
      if (JSON.stringify(got.permissions) !== JSON.stringify(READER)) failures.push(`${caller}: expected ${JSON.stringify(READER)}, got ${JSON.stringify(got.permissions)}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 204 to an admin deleting what does not exist, and deletes nothing', async () => {
    const before = await snapshot(f);
    const absent = 'absentabsentabsent01';
    const base = sitePath(f);
    for (const path of [
      `/v1/orgs/${org.id}/sites/${absent}`,
      `${base}/sections/${absent}`,
      `${base}/section-groups/${absent}`,
      `${base}/section-groups/${f.groupA}/sections/${absent}`,
      `${base}/site-spaces/${absent}`,
      `${base}/share-links/${absent}`,
      `${base}/site-spaces/${absent}/customization`,
    ]) {
      const res = await api('DELETE', path, { token: f.admin });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(204);
    }
    expect(await snapshot(f)).toEqual(before);
  });
});

describe('docs sites without a user token', () => {
  let f: Fixture;

  beforeAll(async () => {
    const org = await bareOrg();
    f = await buildSite(org.orgId, org.admin);
  });

  it('answers 401 without a token, except the visitor reads: 404 while unpublished, 200 once published and public', async () => {
    const before = await snapshot(f);
    expect(before.site.body).toMatchObject({ published: false, visibility: 'public' });
    const others = OPERATIONS.filter((op) => !VISITOR_READS.includes(op));
    expect(others).toHaveLength(38);
    const failures = [
      ...(await tableFailures(VISITOR_READS, f, undefined, () => 404, 'without a token on an unpublished site')),
      ...(await tableFailures(others, f, undefined, () => 401, 'without a token on an unpublished site')),
    ];
    expect(failures).toEqual([]);
    expect(await snapshot(f)).toEqual(before);

    await ok(api('POST', `${sitePath(f)}/publish`, { token: f.admin }), 200);
    const published = await snapshot(f);
    failures.push(...(await tableFailures(others, f, undefined, () => 401, 'without a token on a published public site')));
    for (const op of VISITOR_READS) {
      const res = await call(op, f, undefined);
      if (res.status !== 200) {
        failures.push(`${op} without a token on a published public site: expected 200, got ${res.status} ${JSON.stringify(res.body)}`);
        continue;
      }
      if (op === 'getPublishedContentSite') {
        expect(res.body).toMatchObject({ object: 'published-content-site', site: { id: f.siteId, permissions: { view: false, admin: false } } });
      } else if (op === 'listSiteSections') {
        expect(res.body.items.map((s: any) => s.id)).toEqual(expect.arrayContaining([f.sectionA, f.sectionB]));
      } else {
        expect(res.body.items.map((s: any) => s.id)).toEqual(expect.arrayContaining([f.siteSpaceA, f.siteSpaceB]));
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshot(f)).toEqual(published);
  });

  it('answers 403 to the operator token for every operation, changing nothing', async () => {
    const before = await snapshot(f);
    const failures = await tableFailures(OPERATIONS, f, ADMIN_TOKEN, () => 403, 'with the operator token');
    expect(failures).toEqual([]);
    expect(await snapshot(f)).toEqual(before);
  });
});

describe("another organization's docs sites", () => {
  let ours: Fixture;
  let theirs: Fixture;

  beforeAll(async () => {
    const a = await bareOrg();
    const b = await bareOrg();
    ours = await buildSite(a.orgId, a.admin);
    theirs = await buildSite(b.orgId, b.admin);
    // Theirs is published and public: even so, it is not readable through our organization's path.
    await ok(api('POST', `${sitePath(theirs)}/publish`, { token: theirs.admin }), 200);
  });

  it("answers 404 to their site id under our organization's path (a DELETE: 204, as for an absent site), changing nothing", async () => {
    const [oursBefore, theirsBefore] = [await snapshot(ours), await snapshot(theirs)];
    const mixed: Target = { ...theirs, orgId: ours.orgId };
    const siteOps = OPERATIONS.filter((op) => op !== 'listSites' && op !== 'createSite');
    expect(siteOps).toHaveLength(39);
    const failures = await tableFailures(siteOps, mixed, ours.admin, (op) => (op === 'deleteSiteById' ? 204 : 404), "with their site id under our organization's path, as our admin");
    // A visitor reads their published public site only under their organization's path.
    failures.push(...(await tableFailures(VISITOR_READS, mixed, undefined, () => 404, "with their site id under our organization's path, without a token")));
    expect(failures).toEqual([]);
    expect(await snapshot(theirs)).toEqual(theirsBefore);
    expect(await snapshot(ours)).toEqual(oursBefore);
    expect((await call('getPublishedContentSite', theirs, undefined)).status).toBe(200);
  });

  it("answers 404 to our site id under their organization's path, changing nothing", async () => {
    const [oursBefore, theirsBefore] = [await snapshot(ours), await snapshot(theirs)];
    const mixed: Target = { ...ours, orgId: theirs.orgId };
    const failures = await tableFailures(OPERATIONS, mixed, ours.admin, () => 404, "with our site id under their organization's path, as our admin");
    expect(failures).toEqual([]);
    expect(await snapshot(theirs)).toEqual(theirsBefore);
    expect(await snapshot(ours)).toEqual(oursBefore);
  });

  it("answers 404 to their sections, groups, site spaces and share links under our site (a DELETE: 204), changing nothing", async () => {
    const [oursBefore, theirsBefore] = [await snapshot(ours), await snapshot(theirs)];
    const mixed: Target = {
      ...theirs,
      orgId: ours.orgId,
      siteId: ours.siteId,
      disposableSiteId: ours.disposableSiteId,
      spaceId: ours.spaceId,
    };
    const subOps: Partial<Record<Operation, number>> = {
      updateSiteSectionById: 404,
      moveSiteSection: 404,
      deleteSiteSectionById: 204,
      updateSiteSectionGroupById: 404,
      moveSiteSectionGroup: 404,
      addSectionToGroup: 404,
      removeSectionFromGroup: 204,
      deleteSiteSectionGroupById: 204,
      updateSiteSpaceById: 404,
      moveSiteSpace: 404,
      deleteSiteSpaceById: 204,
      getSiteSpaceCustomizationById: 404,
      overrideSiteSpaceCustomizationById: 404,
      deleteSiteSpaceCustomizationById: 204,
      updateSiteShareLinkById: 404,
      deleteSiteShareLinkById: 204,
    };
    const failures = await tableFailures(Object.keys(subOps) as Operation[], mixed, ours.admin, (op) => subOps[op]!, 'with their ids under our site, as our admin');
    expect(failures).toEqual([]);
    expect(await snapshot(theirs)).toEqual(theirsBefore);
    expect(await snapshot(ours)).toEqual(oursBefore);
  });
});
