/**
 * Docs sites as their visitors meet them: who opens a published site (each visibility against each kind
 * of credential, without an API token), what the published view shows to given claims (conditions,
 * hidden site spaces, the adaptive schema), the published view itself (GitBook's schema, customization
 * and its site-space overrides, ETag and Cache-Control), and the admin side of visitor access: the
 * adaptive schema, share links and the publishing-auth key.
 */
import { SignJWT, base64url, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signVisitorToken } from '../../src/services/sites/visitor-token';
import { createSpace } from '../helpers/content';
import { shareKeyOf } from '../site/helpers';
import { GITBOOK_0202, gitbookErrors, schemaValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';

// ---------------------------------------------------------------------------------------------
// Helpers

const READS = ['published', 'sections', 'site-spaces'] as const;
type Read = (typeof READS)[number];
type Visibility = 'public' | 'unlisted' | 'share-link' | 'visitor-auth';
const VISIBILITIES: Visibility[] = ['public', 'unlisted', 'share-link', 'visitor-auth'];

interface Credentials {
  shareKey?: string;
  jwt?: string;
  /** Where the JWT goes: the X-Visitor-Token header (default) or the jwt_token query parameter. */
  via?: 'header' | 'query';
  /** An API token: a member's read. */
  token?: string;
  headers?: Record<string, string>;
}

function visit(orgId: string, siteId: string, read: Read, credentials: Credentials = {}): Promise<ApiResponse> {
  const query = new URLSearchParams();
  const headers: Record<string, string> = { ...credentials.headers };
  if (credentials.shareKey !== undefined) query.set('shareKey', credentials.shareKey);
  if (credentials.jwt !== undefined) {
    if (credentials.via === 'query') query.set('jwt_token', credentials.jwt);
    else headers['X-Visitor-Token'] = credentials.jwt;
  }
  const qs = query.toString();
  return api('GET', `/v1/orgs/${orgId}/sites/${siteId}/${read}${qs ? `?${qs}` : ''}`, { token: credentials.token, headers });
}

const published = (orgId: string, siteId: string, credentials: Credentials = {}) => visit(orgId, siteId, 'published', credentials);

const now = () => Math.floor(Date.now() / 1000);
const encodePart = (value: unknown) => base64url.encode(JSON.stringify(value));

/** An unsecured JWT (`alg: none`): header, payload and an empty signature. */
const algNoneToken = (claims: Record<string, unknown>) =>
  `${encodePart({ alg: 'none', typ: 'JWT' })}.${encodePart({ ...claims, iat: now(), exp: now() + 3600 })}.`;

/** A JWT signed with `key` (a secret string, or a private key) and any algorithm jose knows. */
async function signWith(alg: string, key: string | CryptoKey, claims: Record<string, unknown>, times: { exp?: number; nbf?: number } = { exp: 3600 }) {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).setIssuedAt();
  if (times.exp !== undefined) jwt = jwt.setExpirationTime(now() + times.exp);
  if (times.nbf !== undefined) jwt = jwt.setNotBefore(now() + times.nbf);
  return jwt.sign(typeof key === 'string' ? new TextEncoder().encode(key) : key);
}

/** A signed token whose payload was replaced afterwards (its signature no longer matches). */
function tamper(token: string, claims: Record<string, unknown>): string {
  const [header, , signature] = token.split('.');
  return `${header}.${encodePart({ ...claims, exp: now() + 3600 })}.${signature}`;
}


/** Ids of every section of a published structure, depth first through groups. */
function sectionIds(items: any[]): string[] {
  return items.flatMap((item) => (item.object === 'site-section' ? [item.id] : item.object === 'site-section-group' ? sectionIds(item.children) : []));
}
function groupIds(items: any[]): string[] {
  return items.flatMap((item) => (item.object === 'site-section-group' ? [item.id, ...groupIds(item.children)] : []));
}
/** Ids of every site space of a published structure. */
function siteSpaceIds(structure: { type: string; structure: any[] }): string[] {
  if (structure.type === 'siteSpaces') return structure.structure.map((s) => s.id);
  const walk = (items: any[]): string[] =>
    items.flatMap((item) => (item.object === 'site-section' ? item.siteSpaces.map((s: any) => s.id) : item.object === 'site-section-group' ? walk(item.children) : []));
  return walk(structure.structure);
}
const sorted = (ids: string[]) => [...ids].sort();

const publishedContentSite = schemaValidator({ $ref: '#/components/schemas/PublishedContentSite' }, GITBOOK_0202.components);
const gitbook = (name: string) => schemaValidator({ $ref: `#/components/schemas/${name}` }, GITBOOK_0202.components);

/** A site made through the API: created with `visibility`, and a first section publishing `spaceId`. */
async function createSiteWithSection(orgId: string, token: string, visibility: Visibility, spaceId: string, title = `Site ${visibility}`) {
  const site = expectStatus(await api('POST', `/v1/orgs/${orgId}/sites`, { token, body: { title, visibility } }), 201).body;
  const section = expectStatus(await api('POST', `/v1/orgs/${orgId}/sites/${site.id}/sections`, { token, body: { spaceId, title: 'Guide' } }), 201).body;
  return { site, section, path: `/v1/orgs/${orgId}/sites/${site.id}` };
}

// ---------------------------------------------------------------------------------------------
// Who opens a site

interface AccessFixture {
  visibility: Visibility;
  id: string;
  path: string;
  sectionId: string;
  siteSpaceId: string;
  activeKey: string;
  revokedKey: string;
  deletedKey: string;
  /** The site's key now, and the one it had before POST .../publishing/auth/regenerate. */
  key: string;
  oldKey: string;
  tokens: Record<string, string>;
}

describe('who opens a site: each visibility against each credential, without an API token', () => {
  let org: TestOrg;
  let admin: string;
  const live = {} as Record<Visibility, AccessFixture>;
  const offline = {} as Record<Visibility, AccessFixture>;
  const unknown = {} as Record<Read, ApiResponse>;
  let madeUpKeyToken: string;
  let rsaToken: string;

  async function fixture(visibility: Visibility, spaceId: string, keepPublished: boolean): Promise<AccessFixture> {
    const { site, section, path } = await createSiteWithSection(org.id, admin, visibility, spaceId);
    expectStatus(await api('POST', `${path}/publish`, { token: admin }), 200);
    const link = async (name: string) => expectStatus(await api('POST', `${path}/share-links`, { token: admin, body: { name } }), 201).body;
    const active = await link('active');
    const revoked = await link('revoked');
    const deleted = await link('deleted');
    expectStatus(await api('PATCH', `${path}/share-links/${revoked.id}`, { token: admin, body: { active: false } }), 200);
    expectStatus(await api('DELETE', `${path}/share-links/${deleted.id}`, { token: admin }), 204);
    const oldKey = expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body.privateKey;
    const key = expectStatus(await api('POST', `${path}/publishing/auth/regenerate`, { token: admin }), 200).body.privateKey;
    if (!keepPublished) expectStatus(await api('POST', `${path}/unpublish`, { token: admin }), 200);
    const valid = await signVisitorToken({ sub: 'visitor-1' }, key, '1h');
    return {
      visibility,
      id: site.id,
      path,
      sectionId: section.id,
      siteSpaceId: section.siteSpaces[0].id,
      activeKey: shareKeyOf(active),
      revokedKey: shareKeyOf(revoked),
      deletedKey: shareKeyOf(deleted),
      key,
      oldKey,
      tokens: {
        valid,
        old: await signVisitorToken({ sub: 'visitor-1' }, oldKey, '1h'),
        expired: await signVisitorToken({ sub: 'visitor-1' }, key, -120),
        noExp: await signWith('HS256', key, { sub: 'visitor-1' }, {}),
        notYet: await signWith('HS256', key, { sub: 'visitor-1' }, { exp: 7200, nbf: 3600 }),
        none: algNoneToken({ sub: 'visitor-1' }),
        hs512: await signWith('HS512', key, { sub: 'visitor-1' }),
        hs384: await signWith('HS384', key, { sub: 'visitor-1' }),
        tampered: tamper(valid, { sub: 'visitor-2', admin: true }),
      },
    };
  }

  beforeAll(async () => {
    org = await seedOrg();
    admin = org.owner.token;
    const space = await createSpace(org.id, admin, 'Handbook');
    for (const visibility of VISIBILITIES) {
      live[visibility] = await fixture(visibility, space.id, true);
      offline[visibility] = await fixture(visibility, space.id, false);
    }
    madeUpKeyToken = await signVisitorToken({ sub: 'visitor-1' }, 'a-key-that-is-not-the-site-key', '1h');
    const { privateKey } = await generateKeyPair('RS256');
    rsaToken = await signWith('RS256', privateKey, { sub: 'visitor-1' });
    for (const read of READS) unknown[read] = await visit(org.id, 'noSuchSiteId00000000', read);
  });

  /** The site whose credentials a "wrong site" case borrows. */
  const otherOf = (v: Visibility): AccessFixture => (v === 'share-link' ? live['visitor-auth'] : live['share-link']);

  const CASES: Array<{ name: string; credentials: (f: AccessFixture, other: AccessFixture) => Credentials; opens: Visibility[] }> = [
    { name: 'no credentials', credentials: () => ({}), opens: ['public', 'unlisted'] },
    { name: "an active share link's key", credentials: (f) => ({ shareKey: f.activeKey }), opens: ['public', 'unlisted', 'share-link'] },
    { name: 'a made-up share key', credentials: () => ({ shareKey: 'nOtAkEy0123456789abcdefABCDEF012' }), opens: ['public', 'unlisted'] },
    { name: 'the active share key of another site', credentials: (_, o) => ({ shareKey: o.activeKey }), opens: ['public', 'unlisted'] },
    { name: 'a revoked share key (active: false)', credentials: (f) => ({ shareKey: f.revokedKey }), opens: ['public', 'unlisted'] },
    { name: 'the key of a deleted share link', credentials: (f) => ({ shareKey: f.deletedKey }), opens: ['public', 'unlisted'] },
    { name: 'an empty share key', credentials: () => ({ shareKey: '' }), opens: ['public', 'unlisted'] },
    { name: 'a valid JWT in X-Visitor-Token', credentials: (f) => ({ jwt: f.tokens.valid }), opens: ['public', 'unlisted', 'visitor-auth'] },
    { name: 'a valid JWT as jwt_token', credentials: (f) => ({ jwt: f.tokens.valid, via: 'query' }), opens: ['public', 'unlisted', 'visitor-auth'] },
    { name: 'a JWT signed with a made-up key', credentials: () => ({ jwt: madeUpKeyToken }), opens: ['public', 'unlisted'] },
    { name: 'the valid JWT of another site', credentials: (_, o) => ({ jwt: o.tokens.valid }), opens: ['public', 'unlisted'] },
    { name: 'a JWT signed with the key before regenerate', credentials: (f) => ({ jwt: f.tokens.old }), opens: ['public', 'unlisted'] },
    { name: 'an expired JWT', credentials: (f) => ({ jwt: f.tokens.expired }), opens: ['public', 'unlisted'] },
    { name: 'an expired JWT as jwt_token', credentials: (f) => ({ jwt: f.tokens.expired, via: 'query' }), opens: ['public', 'unlisted'] },
    { name: 'a JWT without exp', credentials: (f) => ({ jwt: f.tokens.noExp }), opens: ['public', 'unlisted'] },
    { name: 'a JWT not valid before an hour from now', credentials: (f) => ({ jwt: f.tokens.notYet }), opens: ['public', 'unlisted'] },
    { name: 'a JWT with alg none', credentials: (f) => ({ jwt: f.tokens.none }), opens: ['public', 'unlisted'] },
    { name: "a JWT signed HS512 with the site's key", credentials: (f) => ({ jwt: f.tokens.hs512 }), opens: ['public', 'unlisted'] },
    { name: "a JWT signed HS384 with the site's key", credentials: (f) => ({ jwt: f.tokens.hs384 }), opens: ['public', 'unlisted'] },
    { name: 'a JWT signed RS256', credentials: () => ({ jwt: rsaToken }), opens: ['public', 'unlisted'] },
    { name: 'a valid JWT whose payload was changed', credentials: (f) => ({ jwt: f.tokens.tampered }), opens: ['public', 'unlisted'] },
    { name: 'a garbage token', credentials: () => ({ jwt: 'not.a.jwt' }), opens: ['public', 'unlisted'] },
    {
      name: 'an active share key with a bad JWT',
      credentials: (f) => ({ shareKey: f.activeKey, jwt: f.tokens.expired }),
      opens: ['public', 'unlisted', 'share-link'],
    },
    {
      name: 'a valid JWT with a revoked share key',
      credentials: (f) => ({ shareKey: f.revokedKey, jwt: f.tokens.valid }),
      opens: ['public', 'unlisted', 'visitor-auth'],
    },
  ];

  async function expectOpens(f: AccessFixture, credentials: Credentials) {
    const view = expectStatus(await visit(org.id, f.id, 'published', credentials), 200).body;
    expect(view.object).toBe('published-content-site');
    expect(view.site.id).toBe(f.id);
    expect(sectionIds(view.structure.structure)).toEqual([f.sectionId]);
    const sections = expectStatus(await visit(org.id, f.id, 'sections', credentials), 200).body;
    expect(sections.items.map((s: any) => s.id)).toEqual([f.sectionId]);
    const siteSpaces = expectStatus(await visit(org.id, f.id, 'site-spaces', credentials), 200).body;
    expect(siteSpaces.items.map((s: any) => s.id)).toEqual([f.siteSpaceId]);
  }

  async function expectLikeUnknown(f: AccessFixture, credentials: Credentials) {
    for (const read of READS) {
      const res = await visit(org.id, f.id, read, credentials);
      expect(res.status, `${read}: ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body, read).toEqual(unknown[read].body);
      expect(res.headers.get('content-type'), read).toBe(unknown[read].headers.get('content-type'));
    }
  }

  it('an unknown site, and a site under another organization id, answer the same 404', async () => {
    for (const read of READS) {
      expectError(unknown[read], 404);
      const elsewhere = await api('GET', `/v1/orgs/noSuchOrg000000000000/sites/${live.public.id}/${read}`);
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body).toEqual(unknown[read].body);
    }
  });

  for (const visibility of VISIBILITIES) {
    for (const c of CASES) {
      const opens = c.opens.includes(visibility);
      it(`${visibility}, ${c.name}: ${opens ? 'opens' : 'reads as an unknown site'}`, async () => {
        const f = live[visibility];
        const credentials = c.credentials(f, otherOf(visibility));
        if (opens) await expectOpens(f, credentials);
        else await expectLikeUnknown(f, credentials);
      });
    }
  }

  it('a restored share link opens its site again; the key of one site never opens another', async () => {
    const f = live['share-link'];
    const links = expectStatus(await api('GET', `${f.path}/share-links`, { token: admin }), 200).body.items;
    const revoked = links.find((l: any) => l.name === 'revoked');
    expectStatus(await api('PATCH', `${f.path}/share-links/${revoked.id}`, { token: admin, body: { active: true } }), 200);
    await expectOpens(f, { shareKey: f.revokedKey });
    expectStatus(await api('PATCH', `${f.path}/share-links/${revoked.id}`, { token: admin, body: { active: false } }), 200);
    await expectLikeUnknown(f, { shareKey: f.revokedKey });
    // The visitor-auth site's own active key is no share key of the share-link site, and conversely.
    await expectLikeUnknown(live['visitor-auth'], { shareKey: live['visitor-auth'].activeKey });
  });

  it('a share-link visitor gets published URLs carrying the key that opened the site', async () => {
    const f = live['share-link'];
    const view = expectStatus(await published(org.id, f.id, { shareKey: f.activeKey }), 200).body;
    expect(shareKeyOf(view.site)).toBe(f.activeKey);
    const spaces = expectStatus(await visit(org.id, f.id, 'site-spaces', { shareKey: f.activeKey }), 200).body;
    // GitBook's form: the key as the segment after the site's root (its renderer drops query strings).
    expect(new URL(spaces.items[0].urls.published).pathname.split('/')).toContain(f.activeKey);
    expect(new URL(spaces.items[0].urls.published).search).toBe('');
    // A visitor sees no permission on the site.
    expect(view.site.permissions.view).toBe(false);
    expect(view.site.permissions.admin).toBe(false);
  });

  for (const visibility of VISIBILITIES) {
    it(`an unpublished ${visibility} site reads as unknown to visitors whatever they bring, and as its preview to members`, async () => {
      const f = offline[visibility];
      const strongest: Credentials[] = [{}, { shareKey: f.activeKey }, { jwt: f.tokens.valid }, { jwt: f.tokens.valid, via: 'query' }, { shareKey: f.activeKey, jwt: f.tokens.valid }];
      for (const credentials of strongest) await expectLikeUnknown(f, credentials);
      for (const token of [admin, org.members.read.token]) await expectOpens(f, { token });
      const view = expectStatus(await published(org.id, f.id, { token: admin }), 200).body;
      expect(view.site.published).toBe(false);
      expect(view.site.urls.published).toBeUndefined();
      // The same site published opens to its visitors: the refusals above are about publication.
      if (visibility === 'share-link') await expectOpens(live[visibility], { shareKey: live[visibility].activeKey });
    });
  }

  it('an empty X-Visitor-Token header does not hide the jwt_token of the query', async () => {
    const f = live['visitor-auth'];
    await expectOpens(f, { jwt: f.tokens.valid, via: 'query', headers: { 'X-Visitor-Token': '' } });
    await expectLikeUnknown(f, { jwt: f.tokens.expired, via: 'query', headers: { 'X-Visitor-Token': '' } });
  });

  it("a signed-in user outside the organization (or a guest) reads like a visitor: the site's credentials, not their token, decide", async () => {
    for (const token of [org.outsider.token, org.members.guest.token]) {
      const view = expectStatus(await published(org.id, live.public.id, { token }), 200).body;
      expect(view.site.permissions.view).toBe(false);
      await expectOpens(live.unlisted, { token });
      await expectOpens(live['share-link'], { token, shareKey: live['share-link'].activeKey });
      await expectOpens(live['visitor-auth'], { token, jwt: live['visitor-auth'].tokens.valid });
      await expectLikeUnknown(live['share-link'], { token });
      await expectLikeUnknown(live['visitor-auth'], { token, jwt: live['visitor-auth'].tokens.old });
      await expectLikeUnknown(offline.public, { token });
      await expectLikeUnknown(offline['share-link'], { token, shareKey: offline['share-link'].activeKey });
    }
  });

  it('an API token that is not valid is a 401, not a visitor read; members with a token read what visitors cannot', async () => {
    const f = live['visitor-auth'];
    for (const read of READS) expectError(await visit(org.id, f.id, read, { token: 'not-a-token' }), 401);
    await expectOpens(f, { token: org.members.read.token });
    await expectOpens(live['share-link'], { token: org.members.read.token });
  });
});

// ---------------------------------------------------------------------------------------------
// Conditions and hidden site spaces

describe('what a visitor sees: conditions against claims, hidden site spaces', () => {
  let org: TestOrg;
  let admin: string;
  let key: string;
  let path: string;
  let siteId: string;
  /** Section ids by name. */
  const sec: Record<string, string> = {};
  /** Site space ids by name (each section's own first site space under the section's name). */
  const ss: Record<string, string> = {};
  const group: Record<string, string> = {};

  const SECTION_CONDITIONS: Record<string, string | null> = {
    base: null,
    x: 'visitor.claims.x == true',
    unsignedY: 'visitor.claims.unsigned.y',
    xAndY: 'visitor.claims.x && visitor.claims.unsigned.y',
    xOrZ: 'visitor.claims.x || visitor.claims.z',
    notX: '!visitor.claims.x',
    pro: 'visitor.claims.plan == "pro"',
    level3: 'visitor.claims.level >= 3',
    notFree: 'visitor.claims.plan != "free"',
    under3: 'visitor.claims.level < 3 && !(visitor.claims.plan === "free")',
  };

  beforeAll(async () => {
    org = await seedOrg();
    admin = org.owner.token;
    const space = await createSpace(org.id, admin, 'Handbook');
    const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: admin, body: { title: 'Adaptive', visibility: 'visitor-auth' } }), 201).body;
    siteId = site.id;
    path = `/v1/orgs/${org.id}/sites/${siteId}`;
    const addSection = async (name: string, condition: string | null) => {
      const section = expectStatus(await api('POST', `${path}/sections`, { token: admin, body: { spaceId: space.id, title: `Section ${name}` } }), 201).body;
      sec[name] = section.id;
      ss[name] = section.siteSpaces[0].id;
      if (condition) expectStatus(await api('PATCH', `${path}/sections/${section.id}`, { token: admin, body: { condition } }), 200);
    };
    for (const [name, condition] of Object.entries(SECTION_CONDITIONS)) await addSection(name, condition);
    // More site spaces in the base section: one per condition, one hidden.
    const addSiteSpace = async (name: string, body: Record<string, unknown>) => {
      const row = expectStatus(await api('POST', `${path}/site-spaces`, { token: admin, body: { spaceId: space.id, sectionId: sec.base, title: `Variant ${name}` } }), 201).body;
      ss[name] = row.id;
      expectStatus(await api('PATCH', `${path}/site-spaces/${row.id}`, { token: admin, body }), 200);
    };
    await addSiteSpace('ssX', { condition: 'visitor.claims.x' });
    await addSiteSpace('ssNotY', { condition: '!visitor.claims.unsigned.y' });
    await addSiteSpace('ssHidden', { hidden: true });
    // A group whose only section needs x, a group whose only section has only a hidden site space, and a
    // group nesting a group whose only section needs z.
    await addSection('groupedX', 'visitor.claims.x');
    await addSection('onlyHidden', null);
    expectStatus(await api('PATCH', `${path}/site-spaces/${ss.onlyHidden}`, { token: admin, body: { hidden: true } }), 200);
    await addSection('nestedZ', 'visitor.claims.z');
    const makeGroup = async (name: string, body: Record<string, unknown>) =>
      (group[name] = expectStatus(await api('POST', `${path}/section-groups`, { token: admin, body: { title: `Group ${name}`, ...body } }), 201).body.id);
    await makeGroup('ofX', { sections: [sec.groupedX] });
    await makeGroup('ofHidden', { sections: [sec.onlyHidden] });
    await makeGroup('outer', {});
    await makeGroup('inner', { sections: [sec.nestedZ], parent: group.outer });
    expectStatus(await api('POST', `${path}/publish`, { token: admin }), 200);
    key = expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body.privateKey;
  });

  /** What each claim set must reveal: the sections beside `base`, the extra site spaces of `base`, the groups. */
  const CLAIMS: Array<{ claims: Record<string, unknown>; sections: string[]; variants: string[]; groups: string[] }> = [
    { claims: {}, sections: ['notX', 'notFree'], variants: ['ssNotY'], groups: [] },
    { claims: { x: true }, sections: ['x', 'xOrZ', 'notFree', 'groupedX'], variants: ['ssX', 'ssNotY'], groups: ['ofX'] },
    { claims: { x: false }, sections: ['notX', 'notFree'], variants: ['ssNotY'], groups: [] },
    { claims: { unsigned: { y: true } }, sections: ['unsignedY', 'notX', 'notFree'], variants: [], groups: [] },
    { claims: { x: true, unsigned: { y: true } }, sections: ['x', 'unsignedY', 'xAndY', 'xOrZ', 'notFree', 'groupedX'], variants: ['ssX'], groups: ['ofX'] },
    { claims: { x: true, unsigned: { y: false } }, sections: ['x', 'xOrZ', 'notFree', 'groupedX'], variants: ['ssX', 'ssNotY'], groups: ['ofX'] },
    { claims: { z: true }, sections: ['xOrZ', 'notX', 'notFree', 'nestedZ'], variants: ['ssNotY'], groups: ['outer', 'inner'] },
    { claims: { plan: 'pro', level: 3 }, sections: ['notX', 'pro', 'level3', 'notFree'], variants: ['ssNotY'], groups: [] },
    { claims: { plan: 'free', level: 2 }, sections: ['notX'], variants: ['ssNotY'], groups: [] },
    { claims: { plan: 'team', level: 2 }, sections: ['notX', 'notFree', 'under3'], variants: ['ssNotY'], groups: [] },
    // No type coercion: the string "true" is not true, "3" is not a number; a truthy string is truthy.
    { claims: { x: 'true', level: '3' }, sections: ['xOrZ', 'notFree', 'groupedX'], variants: ['ssX', 'ssNotY'], groups: ['ofX'] },
    // A signed claim named like an unsigned one is not read as unsigned.
    { claims: { y: true }, sections: ['notX', 'notFree'], variants: ['ssNotY'], groups: [] },
  ];

  for (const { claims, sections, variants, groups } of CLAIMS) {
    it(`claims ${JSON.stringify(claims)} reveal ${[...sections, ...variants].join(', ') || 'only the unconditioned content'}`, async () => {
      const jwt = await signVisitorToken(claims, key, '1h');
      const expectedSections = ['base', ...sections];
      const expectedVariants = ['base', ...variants];
      const view = expectStatus(await published(org.id, siteId, { jwt }), 200).body;
      expect(sorted(sectionIds(view.structure.structure))).toEqual(sorted(expectedSections.filter((s) => s !== 'onlyHidden').map((n) => sec[n])));
      expect(sorted(groupIds(view.structure.structure))).toEqual(sorted(groups.map((n) => group[n])));
      const baseSection = view.structure.structure.find((item: any) => item.id === sec.base);
      expect(sorted(baseSection.siteSpaces.map((s: any) => s.id))).toEqual(sorted(expectedVariants.map((n) => ss[n])));
      const visibleSiteSpaces = [...expectedVariants, ...sections].map((n) => ss[n]);
      expect(sorted(siteSpaceIds(view.structure))).toEqual(sorted(visibleSiteSpaces));
      expect(sorted(Object.keys(view.customizations.siteSpaces))).toEqual(sorted(visibleSiteSpaces));
      expect(gitbookErrors(publishedContentSite, view)).toBe('valid');

      // The lists apply the same conditions; hidden only leaves the navigation.
      const listedSections = expectStatus(await visit(org.id, siteId, 'sections', { jwt }), 200).body.items;
      expect(sorted(listedSections.map((s: any) => s.id))).toEqual(sorted([...expectedSections, 'onlyHidden'].map((n) => sec[n])));
      const listedSiteSpaces = expectStatus(await visit(org.id, siteId, 'site-spaces', { jwt, via: 'query' }), 200).body.items;
      expect(sorted(listedSiteSpaces.map((s: any) => s.id))).toEqual(sorted([...visibleSiteSpaces, ss.ssHidden, ss.onlyHidden]));
    });
  }

  it('hidden site spaces are left out of the published structure, and listed for members with every condition', async () => {
    const view = expectStatus(await published(org.id, siteId, { token: admin }), 200).body;
    expect(siteSpaceIds(view.structure)).not.toContain(ss.ssHidden);
    expect(sectionIds(view.structure.structure)).not.toContain(sec.onlyHidden);
    expect(groupIds(view.structure.structure)).not.toContain(group.ofHidden);
    expect(Object.keys(view.customizations.siteSpaces)).not.toContain(ss.ssHidden);
    const all = expectStatus(await visit(org.id, siteId, 'site-spaces', { token: admin }), 200).body.items;
    expect(sorted(all.map((s: any) => s.id))).toEqual(sorted(Object.values(ss)));
    const hidden = all.find((s: any) => s.id === ss.ssHidden);
    expect(hidden.hidden).toBe(true);
    const sections = expectStatus(await visit(org.id, siteId, 'sections', { token: admin }), 200).body.items;
    expect(sorted(sections.map((s: any) => s.id))).toEqual(sorted(Object.values(sec)));
    // Members' section lists are whole too: the section needing x still lists its site space.
    expect(sections.find((s: any) => s.id === sec.x).siteSpaces.map((s: any) => s.id)).toEqual([ss.x]);
  });

  it('a section whose every site space is conditioned out is not listed to that visitor', async () => {
    // The section "level3" keeps its own condition; a second section whose only site space needs x.
    const space = await createSpace(org.id, admin, 'Extra');
    const section = expectStatus(await api('POST', `${path}/sections`, { token: admin, body: { spaceId: space.id, title: 'Empty for some' } }), 201).body;
    const siteSpaceId = section.siteSpaces[0].id;
    expectStatus(await api('PATCH', `${path}/site-spaces/${siteSpaceId}`, { token: admin, body: { condition: 'visitor.claims.x' } }), 200);
    const withX = await signVisitorToken({ x: true }, key, '1h');
    const without = await signVisitorToken({}, key, '1h');
    const shownTo = async (jwt: string) => ({
      published: sectionIds(expectStatus(await published(org.id, siteId, { jwt }), 200).body.structure.structure).includes(section.id),
      listed: expectStatus(await visit(org.id, siteId, 'sections', { jwt }), 200).body.items.some((s: any) => s.id === section.id),
    });
    expect(await shownTo(withX)).toEqual({ published: true, listed: true });
    // The published view leaves the empty section out; the list should agree with it.
    expect(await shownTo(without)).toEqual({ published: false, listed: false });
    expectStatus(await api('DELETE', `${path}/sections/${section.id}`, { token: admin }), 204);
  });

  it('a site of site spaces (no sections) filters them the same way', async () => {
    const space = await createSpace(org.id, admin, 'Flat');
    const flat = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: admin, body: { title: 'Flat', visibility: 'public', spaces: [space.id, space.id] } }), 201).body;
    const flatPath = `/v1/orgs/${org.id}/sites/${flat.id}`;
    const rows = expectStatus(await api('GET', `${flatPath}/site-spaces`, { token: admin }), 200).body.items;
    // `spaces` are deduplicated: add two more site spaces of the same space.
    const more = [];
    for (let i = rows.length; i < 3; i++) more.push(expectStatus(await api('POST', `${flatPath}/site-spaces`, { token: admin, body: { spaceId: space.id, title: `V${i}` } }), 201).body);
    const [first, conditioned, hidden] = [...rows, ...more];
    expectStatus(await api('PATCH', `${flatPath}/site-spaces/${conditioned.id}`, { token: admin, body: { condition: 'visitor.claims.beta == true' } }), 200);
    expectStatus(await api('PATCH', `${flatPath}/site-spaces/${hidden.id}`, { token: admin, body: { hidden: true } }), 200);
    expectStatus(await api('POST', `${flatPath}/publish`, { token: admin }), 200);
    const flatKey = expectStatus(await api('GET', `${flatPath}/publishing/auth`, { token: admin }), 200).body.privateKey;
    const anonymous = expectStatus(await published(org.id, flat.id), 200).body;
    expect(anonymous.structure.type).toBe('siteSpaces');
    expect(siteSpaceIds(anonymous.structure)).toEqual([first.id]);
    expect(Object.keys(anonymous.customizations.siteSpaces)).toEqual([first.id]);
    const beta = expectStatus(await published(org.id, flat.id, { jwt: await signVisitorToken({ beta: true }, flatKey, '1h') }), 200).body;
    expect(siteSpaceIds(beta.structure)).toEqual([first.id, conditioned.id]);
    expect(sorted(Object.keys(beta.customizations.siteSpaces))).toEqual(sorted([first.id, conditioned.id]));
    // A token signed with another key on a public site: no claims, but the site still opens.
    const forged = expectStatus(await published(org.id, flat.id, { jwt: await signVisitorToken({ beta: true }, 'forged-key', '1h') }), 200).body;
    expect(siteSpaceIds(forged.structure)).toEqual([first.id]);
  });

  it('claims that do not validate against the adaptive schema are dropped: conditions see none', async () => {
    const space = await createSpace(org.id, admin, 'Schema');
    const { site, section: base, path: schemaPath } = await createSiteWithSection(org.id, admin, 'visitor-auth', space.id, 'With schema');
    const ids: Record<string, string> = { base: base.id };
    for (const [name, condition] of Object.entries({ x: 'visitor.claims.x', y: 'visitor.claims.unsigned.y', z: 'visitor.claims.z == true', notX: '!visitor.claims.x' })) {
      const section = expectStatus(await api('POST', `${schemaPath}/sections`, { token: admin, body: { spaceId: space.id, title: `Section ${name}` } }), 201).body;
      expectStatus(await api('PATCH', `${schemaPath}/sections/${section.id}`, { token: admin, body: { condition } }), 200);
      ids[name] = section.id;
    }
    expectStatus(await api('POST', `${schemaPath}/publish`, { token: admin }), 200);
    const siteKey = expectStatus(await api('GET', `${schemaPath}/publishing/auth`, { token: admin }), 200).body.privateKey;
    const seen = async (claims: Record<string, unknown>) => {
      const jwt = await signVisitorToken(claims, siteKey, '1h');
      const view = expectStatus(await published(org.id, site.id, { jwt }), 200).body;
      const listed = expectStatus(await visit(org.id, site.id, 'sections', { jwt }), 200).body.items.map((s: any) => s.id);
      expect(sorted(listed)).toEqual(sorted(sectionIds(view.structure.structure)));
      return sorted(sectionIds(view.structure.structure));
    };
    const names = (...n: string[]) => sorted(n.map((name) => ids[name]));
    // Without a schema, every claim reaches the conditions.
    expect(await seen({ x: true, z: true, unsigned: { y: true } })).toEqual(names('base', 'x', 'y', 'z'));

    const schema = {
      type: 'object',
      properties: {
        x: { type: 'boolean', description: 'x' },
        unsigned: {
          type: 'object',
          description: 'Unsigned claims of the site visitor.',
          properties: { y: { type: 'boolean', description: 'y' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    };
    expectStatus(await api('PUT', `${schemaPath}/adaptive-schema`, { token: admin, body: { jsonSchema: schema } }), 200);
    // Declared claims of the right type pass; an undeclared claim (z) is dropped.
    expect(await seen({ x: true, z: true, unsigned: { y: true } })).toEqual(names('base', 'x', 'y'));
    expect(await seen({ x: true, email: 'someone@example.com' })).toEqual(names('base', 'x'));
    // A declared claim of the wrong type: the visitor has no claims at all (the site still opens).
    expect(await seen({ x: 'yes', unsigned: { y: true } })).toEqual(names('base', 'notX'));
    expect(await seen({ x: true, unsigned: { y: 'no' } })).toEqual(names('base', 'notX'));
    expect(await seen({ x: true, unsigned: 'y' })).toEqual(names('base', 'notX'));
    expect(await seen({ x: 1 })).toEqual(names('base', 'notX'));
    expect(await seen({})).toEqual(names('base', 'notX'));
  });
});

// ---------------------------------------------------------------------------------------------
// The published view: GitBook's schema, customization, caching

describe('the published view: its schema, customization and caching', () => {
  let org: TestOrg;
  let admin: string;
  let spaceA: any;
  let path: string;
  let siteId: string;
  let firstSection: any;
  let secondSection: any;
  let overridden: string;
  let plain: string;
  let hiddenId: string;

  const SITE_CUSTOMIZATION = () => ({
    title: 'Acme docs',
    styling: { primaryColor: { light: '#112233', dark: '#445566' }, corners: 'straight' },
    header: { links: [{ title: 'Guides', to: { kind: 'space', space: spaceA.id } }] },
    footer: { copyright: '© Acme' },
    pagination: { enabled: false },
    announcement: { enabled: true, message: 'Hello visitors', style: 'info' },
  });

  beforeAll(async () => {
    org = await seedOrg();
    admin = org.owner.token;
    spaceA = await createSpace(org.id, admin, 'Guides');
    const spaceB = await createSpace(org.id, admin, 'Reference');
    const built = await createSiteWithSection(org.id, admin, 'public', spaceA.id, 'Public docs');
    siteId = built.site.id;
    path = built.path;
    firstSection = built.section;
    secondSection = expectStatus(await api('POST', `${path}/sections`, { token: admin, body: { spaceId: spaceB.id, title: 'Reference' } }), 201).body;
    expectStatus(await api('POST', `${path}/section-groups`, { token: admin, body: { title: 'Developers', sections: [secondSection.id] } }), 201);
    const hidden = expectStatus(await api('POST', `${path}/site-spaces`, { token: admin, body: { spaceId: spaceB.id, sectionId: firstSection.id, title: 'Hidden' } }), 201).body;
    hiddenId = hidden.id;
    expectStatus(await api('PATCH', `${path}/site-spaces/${hiddenId}`, { token: admin, body: { hidden: true } }), 200);
    overridden = secondSection.siteSpaces[0].id;
    plain = firstSection.siteSpaces[0].id;
    expectStatus(await api('POST', `${path}/publish`, { token: admin }), 200);
  });

  it('validates against GitBook 0.202.0 PublishedContentSite, with exactly the visible site spaces customized', async () => {
    const view = expectStatus(await published(org.id, siteId), 200).body;
    expect(gitbookErrors(publishedContentSite, view)).toBe('valid');
    expect(view.structure.type).toBe('sections');
    expect(view.structure.structure.map((i: any) => i.object)).toEqual(['site-section', 'site-section-group']);
    expect(sorted(Object.keys(view.customizations.siteSpaces))).toEqual(sorted([plain, overridden]));
    expect(view.scripts).toEqual([]);
    const member = expectStatus(await published(org.id, siteId, { token: admin }), 200).body;
    expect(gitbookErrors(publishedContentSite, member)).toBe('valid');
    expect(member.site.permissions.admin).toBe(true);
  });

  it("refuses a header link to a space that does not exist (400 naming it), and keeps the site's settings", async () => {
    const before = expectStatus(await api('GET', `${path}/customization`, { token: admin }), 200).body;
    const body = { ...SITE_CUSTOMIZATION(), header: { links: [{ title: 'Nowhere', to: { kind: 'space', space: 'noSuchSpace000000000' } }] } };
    const message = expectError(await api('PUT', `${path}/customization`, { token: admin, body }), 400);
    expect(message).toContain('header.links[0].to');
    expect(message).toContain('noSuchSpace000000000');
    const override = { header: { links: [{ title: 'Nowhere', to: { kind: 'space', space: 'noSuchSpace000000000' } }] } };
    expect(expectError(await api('PATCH', `${path}/site-spaces/${overridden}/customization`, { token: admin, body: override }), 400)).toContain('noSuchSpace000000000');
    expect(expectStatus(await api('GET', `${path}/customization`, { token: admin }), 200).body).toEqual(before);
  });

  it("merges a site space's override over the site's customization, in its own read and in the published view; DELETE restores the site's", async () => {
    const site = expectStatus(await api('PUT', `${path}/customization`, { token: admin, body: SITE_CUSTOMIZATION() }), 200).body;
    expect(site.styling.primaryColor).toEqual({ light: '#112233', dark: '#445566' });
    expect(site.header.links[0].to).toEqual({ kind: 'space', space: spaceA.id });

    const override = {
      title: 'Reference docs',
      styling: { primaryColor: { light: '#aa0000', dark: '#550000' } },
      pagination: { enabled: true },
    };
    const patched = expectStatus(await api('PATCH', `${path}/site-spaces/${overridden}/customization`, { token: admin, body: override }), 200).body;
    const merged = expectStatus(await api('GET', `${path}/site-spaces/${overridden}/customization`, { token: admin }), 200).body;
    expect(merged).toEqual(patched);
    expect(merged.title).toBe('Reference docs');
    expect(merged.styling.primaryColor).toEqual({ light: '#aa0000', dark: '#550000' });
    // What the override leaves out comes from the site, inside groups too.
    expect(merged.styling.corners).toBe('straight');
    expect(merged.header.links).toEqual(site.header.links);
    expect(merged.footer.copyright).toBe('© Acme');
    expect(merged.announcement).toEqual(site.announcement);
    expect(merged.pagination).toEqual({ enabled: true });
    expect(gitbookErrors(gitbook('SiteCustomizationSettings'), merged)).toBe('valid');

    // The site's own settings are untouched by the override.
    const siteNow = expectStatus(await api('GET', `${path}/customization`, { token: admin }), 200).body;
    expect(siteNow.title).toBe('Acme docs');
    expect(siteNow.pagination).toEqual({ enabled: false });
    const other = expectStatus(await api('GET', `${path}/site-spaces/${plain}/customization`, { token: admin }), 200).body;
    expect(other).toEqual(siteNow);

    const view = expectStatus(await published(org.id, siteId), 200).body;
    expect(view.customizations.site).toEqual(siteNow);
    expect(view.customizations.siteSpaces[overridden]).toEqual(merged);
    expect(view.customizations.siteSpaces[plain]).toEqual(siteNow);
    expect(gitbookErrors(publishedContentSite, view)).toBe('valid');

    expectStatus(await api('DELETE', `${path}/site-spaces/${overridden}/customization`, { token: admin }), 204);
    const restored = expectStatus(await api('GET', `${path}/site-spaces/${overridden}/customization`, { token: admin }), 200).body;
    expect(restored).toEqual(siteNow);
    const after = expectStatus(await published(org.id, siteId), 200).body;
    expect(after.customizations.siteSpaces[overridden]).toEqual(siteNow);
    expect(after.customizations.siteSpaces[overridden].styling.primaryColor).toEqual({ light: '#112233', dark: '#445566' });
  });

  it("never shows the assistant's instructions on the published site, nor to members below admin", async () => {
    const secret = 'Internal: never mention the beta';
    const body = { ...SITE_CUSTOMIZATION(), ai: { mode: 'assistant', greeting: 'Ask me', instructions: secret } };
    expect(expectStatus(await api('PUT', `${path}/customization`, { token: admin, body }), 200).body.ai.instructions).toBe(secret);
    expect(expectStatus(await api('GET', `${path}/customization`, { token: admin }), 200).body.ai.instructions).toBe(secret);
    expect(expectStatus(await api('GET', `${path}/site-spaces/${plain}/customization`, { token: admin }), 200).body.ai.instructions).toBe(secret);
    const spaceSecret = 'Space-only internal prompt';
    const patched = await api('PATCH', `${path}/site-spaces/${overridden}/customization`, { token: admin, body: { ai: { instructions: spaceSecret } } });
    expect(expectStatus(patched, 200).body.ai.instructions).toBe(spaceSecret);

    const reader = org.members.read.token;
    const forReader = expectStatus(await api('GET', `${path}/customization`, { token: reader }), 200).body;
    expect(forReader.ai).toEqual({ mode: 'assistant', greeting: 'Ask me' });
    expect(JSON.stringify(expectStatus(await api('GET', `${path}/site-spaces/${overridden}/customization`, { token: reader }), 200).body)).not.toContain(spaceSecret);
    for (const credentials of [{}, { token: admin }]) {
      const view = expectStatus(await published(org.id, siteId, credentials), 200).body;
      expect(view.customizations.site.ai).toEqual({ mode: 'assistant', greeting: 'Ask me' });
      expect(view.customizations.siteSpaces[overridden].ai).toEqual({ mode: 'assistant', greeting: 'Ask me' });
      expect(JSON.stringify(view)).not.toContain(secret);
      expect(JSON.stringify(view)).not.toContain(spaceSecret);
      expect(gitbookErrors(publishedContentSite, view)).toBe('valid');
    }
    expectStatus(await api('DELETE', `${path}/site-spaces/${overridden}/customization`, { token: admin }), 204);
  });

  it('sends an ETag, answers If-None-Match with 304 and no body, and changes the ETag when the site changes', async () => {
    const first = expectStatus(await published(org.id, siteId), 200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = expectStatus(await published(org.id, siteId), 200);
    expect(again.headers.get('etag')).toBe(etag);

    const notModified = await published(org.id, siteId, { headers: { 'If-None-Match': etag! } });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeNull();
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await published(org.id, siteId, { headers: { 'If-None-Match': `"other", W/${etag}` } })).status).toBe(304);
    expectStatus(await published(org.id, siteId, { headers: { 'If-None-Match': '"not-the-etag"' } }), 200);

    expectStatus(await api('PATCH', path, { token: admin, body: { title: 'Public docs, renamed' } }), 200);
    const changed = expectStatus(await published(org.id, siteId, { headers: { 'If-None-Match': etag! } }), 200);
    expect(changed.body.site.title).toBe('Public docs, renamed');
    expect(changed.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(changed.headers.get('etag')).not.toBe(etag);
    // A customization change changes it too.
    expectStatus(await api('PUT', `${path}/customization`, { token: admin, body: { ...SITE_CUSTOMIZATION(), title: 'Acme docs 2' } }), 200);
    const customized = expectStatus(await published(org.id, siteId), 200);
    expect(customized.headers.get('etag')).not.toBe(changed.headers.get('etag'));
  });

  it('Cache-Control is public for a public or unlisted site read by a visitor, and not for members, share-link or visitor-auth', async () => {
    const isPublic = (res: ApiResponse) => /(^|,\s*)public\b/i.test(res.headers.get('cache-control') ?? '');
    const publicVisitor = expectStatus(await published(org.id, siteId), 200);
    expect(isPublic(publicVisitor)).toBe(true);
    expect(isPublic(expectStatus(await published(org.id, siteId, { token: admin }), 200))).toBe(false);
    expect(expectStatus(await published(org.id, siteId, { token: admin }), 200).headers.get('cache-control')).toMatch(/private|no-store/);

    // The same site as unlisted, then share-link, then visitor-auth.
    expectStatus(await api('PATCH', path, { token: admin, body: { visibility: 'unlisted' } }), 200);
    expect(isPublic(expectStatus(await published(org.id, siteId), 200))).toBe(true);

    expectStatus(await api('PATCH', path, { token: admin, body: { visibility: 'share-link' } }), 200);
    const link = expectStatus(await api('POST', `${path}/share-links`, { token: admin, body: { name: 'cache' } }), 201).body;
    const viaLink = expectStatus(await published(org.id, siteId, { shareKey: shareKeyOf(link) }), 200);
    expect(isPublic(viaLink)).toBe(false);
    expect(viaLink.headers.get('cache-control')).toMatch(/private|no-store/);
    // A stale ETag from the public days does not turn a refusal into a 304.
    const etag = viaLink.headers.get('etag')!;
    const refused = await published(org.id, siteId, { headers: { 'If-None-Match': etag } });
    expect(refused.status).toBe(404);

    expectStatus(await api('PATCH', path, { token: admin, body: { visibility: 'visitor-auth' } }), 200);
    const siteKey = expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body.privateKey;
    const viaJwt = expectStatus(await published(org.id, siteId, { jwt: await signVisitorToken({}, siteKey, '1h') }), 200);
    expect(isPublic(viaJwt)).toBe(false);
    expect(viaJwt.headers.get('cache-control')).toMatch(/private|no-store/);
    expectStatus(await api('PATCH', path, { token: admin, body: { visibility: 'public' } }), 200);
  });
});

// ---------------------------------------------------------------------------------------------
// The adaptive schema

describe('the adaptive schema', () => {
  let org: TestOrg;
  let admin: string;
  let path: string;
  let siteId: string;
  let sectionId: string;
  let spaceId: string;

  const claim = (description: string) => ({ type: 'boolean', description });
  const UNSIGNED = 'Unsigned claims of the site visitor.';
  const FULL = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      isBeta: claim('Visitor is in the beta program'),
      isAdmin: claim('Visitor administers their account'),
      unsigned: { type: 'object', description: UNSIGNED, properties: { prefersDark: claim('Visitor prefers the dark theme') }, additionalProperties: false },
    },
    additionalProperties: false,
  };

  beforeAll(async () => {
    org = await seedOrg();
    admin = org.owner.token;
    spaceId = (await createSpace(org.id, admin, 'Docs')).id;
    const built = await createSiteWithSection(org.id, admin, 'visitor-auth', spaceId, 'Adaptive');
    siteId = built.site.id;
    path = built.path;
    sectionId = built.section.id;
  });

  it('is a 404 before it is set, and suggests no conditions', async () => {
    expectError(await api('GET', `${path}/adaptive-schema`, { token: admin }), 404);
    expect(expectStatus(await api('GET', `${path}/adaptive-schema/template-conditions`, { token: admin }), 200).body).toEqual({ items: [] });
    expectError(await api('GET', `${path}/adaptive-schema`), 401);
  });

  const ACCEPTED: Array<[string, Record<string, unknown>]> = [
    ['no claims', { type: 'object', properties: {}, additionalProperties: false }],
    ['signed claims only', { type: 'object', properties: { isBeta: claim('beta') }, additionalProperties: false }],
    ['an empty unsigned object', { type: 'object', properties: { unsigned: { type: 'object', description: UNSIGNED, properties: {}, additionalProperties: false } }, additionalProperties: false }],
    ['signed and unsigned claims with $schema', FULL],
  ];
  for (const [name, jsonSchema] of ACCEPTED) {
    it(`accepts ${name}, and reads it back`, async () => {
      const saved = expectStatus(await api('PUT', `${path}/adaptive-schema`, { token: admin, body: { jsonSchema } }), 200).body;
      expect(saved).toEqual({ object: 'site-adaptive-schema', jsonSchema, updatedAt: expect.any(String) });
      expect(gitbookErrors(gitbook('SiteAdaptiveSchema'), saved)).toBe('valid');
      const read = expectStatus(await api('GET', `${path}/adaptive-schema`, { token: org.members.read.token }), 200).body;
      expect(read).toEqual(saved);
    });
  }

  const REFUSED: Array<[string, unknown, string[]]> = [
    ['a string claim', { type: 'object', properties: { plan: { type: 'string', description: 'plan' } }, additionalProperties: false }, ['properties.plan.type', 'boolean']],
    ['a claim without description', { type: 'object', properties: { isBeta: { type: 'boolean' } }, additionalProperties: false }, ['properties.isBeta', 'description']],
    ['no additionalProperties', { type: 'object', properties: {} }, ['additionalProperties']],
    ['additionalProperties: true', { type: 'object', properties: {}, additionalProperties: true }, ['additionalProperties', 'false']],
    ['type array', { type: 'array', properties: {}, additionalProperties: false }, ['type', 'object']],
    ['a claim name that is not an identifier', { type: 'object', properties: { 'is-beta': claim('beta') }, additionalProperties: false }, ['is-beta']],
    ['another $schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {}, additionalProperties: false }, ['$schema', 'draft-07']],
    ['a keyword outside the shape', { type: 'object', properties: {}, additionalProperties: false, required: ['isBeta'] }, ['required']],
    ['a claim with an unknown keyword', { type: 'object', properties: { isBeta: { ...claim('beta'), default: true } }, additionalProperties: false }, ['properties.isBeta.default']],
    [
      'an unsigned object with another description',
      { type: 'object', properties: { unsigned: { type: 'object', description: 'mine', properties: {}, additionalProperties: false } }, additionalProperties: false },
      ['properties.unsigned.description'],
    ],
    [
      'an unsigned number claim',
      { type: 'object', properties: { unsigned: { type: 'object', description: UNSIGNED, properties: { n: { type: 'number', description: 'n' } }, additionalProperties: false } }, additionalProperties: false },
      ['properties.unsigned.properties.n.type'],
    ],
    ['an invalid draft-07 schema', { type: 'object', properties: { isBeta: { type: 'bool', description: 'x' } }, additionalProperties: false }, ['properties.isBeta.type']],
    ['a schema that is an array', [], ['jsonSchema']],
    ['no schema at all', undefined, ['jsonSchema']],
  ];
  for (const [name, jsonSchema, mentions] of REFUSED) {
    it(`refuses ${name} with a 400 naming what is wrong, and keeps the schema it had`, async () => {
      const before = expectStatus(await api('PUT', `${path}/adaptive-schema`, { token: admin, body: { jsonSchema: FULL } }), 200).body;
      const message = expectError(await api('PUT', `${path}/adaptive-schema`, { token: admin, body: jsonSchema === undefined ? {} : { jsonSchema } }), 400);
      for (const mention of mentions) expect(message).toContain(mention);
      expect(expectStatus(await api('GET', `${path}/adaptive-schema`, { token: admin }), 200).body).toEqual(before);
    });
  }

  it('derives one template condition per claim; each is accepted on a section and holds for a visitor with that claim', async () => {
    expectStatus(await api('PUT', `${path}/adaptive-schema`, { token: admin, body: { jsonSchema: FULL } }), 200);
    const { items } = expectStatus(await api('GET', `${path}/adaptive-schema/template-conditions`, { token: admin }), 200).body;
    expect(items.map((i: any) => i.condition)).toEqual(['visitor.claims.isBeta', 'visitor.claims.isAdmin', 'visitor.claims.unsigned.prefersDark']);
    for (const item of items) expect(item.description).toEqual(expect.any(String));
    expect(items[0].description).toBe('Visitor is in the beta program');

    const other = expectStatus(await api('POST', `${path}/sections`, { token: admin, body: { spaceId, title: 'Guarded' } }), 201).body;
    expectStatus(await api('POST', `${path}/publish`, { token: admin }), 200);
    const key = expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body.privateKey;
    const claimsFor: Record<string, Record<string, unknown>> = {
      'visitor.claims.isBeta': { isBeta: true },
      'visitor.claims.isAdmin': { isAdmin: true },
      'visitor.claims.unsigned.prefersDark': { unsigned: { prefersDark: true } },
    };
    for (const { condition } of items) {
      const section = expectStatus(await api('PATCH', `${path}/sections/${other.id}`, { token: admin, body: { condition } }), 200).body;
      expect(section.condition).toBe(condition);
      const withClaim = expectStatus(await published(org.id, siteId, { jwt: await signVisitorToken(claimsFor[condition], key, '1h') }), 200).body;
      expect(sectionIds(withClaim.structure.structure), condition).toEqual([sectionId, other.id]);
      const without = expectStatus(await published(org.id, siteId, { jwt: await signVisitorToken({}, key, '1h') }), 200).body;
      expect(sectionIds(without.structure.structure), condition).toEqual([sectionId]);
    }
  });

  it('a section condition with a syntax error is a 400 naming the position', async () => {
    const message = expectError(await api('PATCH', `${path}/sections/${sectionId}`, { token: admin, body: { condition: 'visitor.claims.x &&' } }), 400);
    expect(message).toMatch(/position \d+/);
    expect(expectError(await api('PATCH', `${path}/sections/${sectionId}`, { token: admin, body: { condition: 'alert(1)' } }), 400)).toMatch(/position 0/);
  });
});

// ---------------------------------------------------------------------------------------------
// Share links

describe('share links', () => {
  let org: TestOrg;
  let admin: string;
  let path: string;
  let siteId: string;

  beforeAll(async () => {
    org = await seedOrg();
    admin = org.owner.token;
    const space = await createSpace(org.id, admin, 'Docs');
    const built = await createSiteWithSection(org.id, admin, 'share-link', space.id, 'Shared');
    path = built.path;
    siteId = built.site.id;
  });

  const list = async (query = '') => expectStatus(await api('GET', `${path}/share-links${query}`, { token: admin }), 200).body;

  it('are created, listed (with search), renamed, revoked and deleted; urls.published carries the key once the site is published', async () => {
    const created = expectStatus(await api('POST', `${path}/share-links`, { token: admin, body: { name: 'Partner portal' } }), 201).body;
    expect(created).toMatchObject({ object: 'share-link', name: 'Partner portal', active: true, urls: {} });
    expect(created.urls.published).toBeUndefined();
    expect(gitbookErrors(gitbook('ShareLink'), created)).toBe('valid');
    const press = expectStatus(await api('POST', `${path}/share-links`, { token: admin, body: { name: 'Press kit' } }), 201).body;
    const internal = expectStatus(await api('POST', `${path}/share-links`, { token: admin, body: { name: 'Internal' } }), 201).body;

    const all = await list();
    expect(all.items.map((l: any) => l.id).sort()).toEqual([created.id, press.id, internal.id].sort());
    expect(all.count).toBe(3);
    // Searches with a space or a dash, which no key has: only names can match them.
    expect((await list('?search=PARTNER%20P')).items.map((l: any) => l.id)).toEqual([created.id]);
    expect((await list('?search=%20')).items.map((l: any) => l.id).sort()).toEqual([created.id, press.id].sort());
    expect((await list('?search=no-such-name')).items).toEqual([]);
    expect(gitbookErrors(gitbook('ShareLink'), all.items[0])).toBe('valid');

    // Published: every link's URL carries its own key, and that key opens the site.
    expectStatus(await api('POST', `${path}/publish`, { token: admin }), 200);
    const links = (await list()).items;
    const keys = new Map<string, string>(links.map((l: any) => [l.id, shareKeyOf(l)]));
    expect(new Set(keys.values()).size).toBe(3);
    for (const key of keys.values()) expect(key).toMatch(/^[A-Za-z0-9]{20,}$/);
    expect(links.find((l: any) => l.id === created.id).urls.published).toMatch(new RegExp(`/${keys.get(created.id)}/$`));
    // GitBook searches share links by name or key: an admin holding a shared URL finds its link.
    expect((await list(`?search=${keys.get(press.id)}`)).items.map((l: any) => l.id)).toEqual([press.id]);
    for (const key of keys.values()) expectStatus(await published(org.id, siteId, { shareKey: key }), 200);

    const renamed = expectStatus(await api('PATCH', `${path}/share-links/${created.id}`, { token: admin, body: { name: 'Partners, 2025' } }), 200).body;
    expect(renamed).toMatchObject({ id: created.id, name: 'Partners, 2025', active: true });
    expect(shareKeyOf(renamed)).toBe(keys.get(created.id));
    expect((await list('?search=%2C%202025')).items.map((l: any) => l.id)).toEqual([created.id]);

    const revoked = expectStatus(await api('PATCH', `${path}/share-links/${press.id}`, { token: admin, body: { active: false } }), 200).body;
    expect(revoked).toMatchObject({ id: press.id, name: 'Press kit', active: false });
    expect((await list()).items.find((l: any) => l.id === press.id).active).toBe(false);
    expectError(await published(org.id, siteId, { shareKey: keys.get(press.id) }), 404);
    expectStatus(await published(org.id, siteId, { shareKey: keys.get(created.id) }), 200);

    expectStatus(await api('DELETE', `${path}/share-links/${internal.id}`, { token: admin }), 204);
    expect((await list()).items.map((l: any) => l.id).sort()).toEqual([created.id, press.id].sort());
    expectError(await published(org.id, siteId, { shareKey: keys.get(internal.id) }), 404);
    expectStatus(await api('DELETE', `${path}/share-links/${internal.id}`, { token: admin }), 204);
  });

  it('refuse bad input, unknown links, non-admins and callers without a token', async () => {
    const link = expectStatus(await api('POST', `${path}/share-links`, { token: admin, body: { name: 'Temp' } }), 201).body;
    expectError(await api('PATCH', `${path}/share-links/${link.id}`, { token: admin, body: {} }), 400);
    expectError(await api('PATCH', `${path}/share-links/${link.id}`, { token: admin, body: { active: 'no' } }), 400);
    expectError(await api('POST', `${path}/share-links`, { token: admin, body: { name: 'x'.repeat(51) } }), 400);
    expectError(await api('PATCH', `${path}/share-links/noSuchLink0000000000`, { token: admin, body: { active: false } }), 404);
    expectError(await api('GET', `${path}/share-links`, { token: org.members.read.token }), 403);
    expectError(await api('POST', `${path}/share-links`, { token: org.members.edit.token, body: { name: 'Mine' } }), 403);
    expectError(await api('GET', `${path}/share-links`), 401);
    expectError(await api('POST', `${path}/share-links`, { body: { name: 'Anon' } }), 401);
    expectError(await api('GET', `/v1/orgs/${org.id}/sites/noSuchSite0000000000/share-links`, { token: admin }), 404);
    expectStatus(await api('DELETE', `${path}/share-links/${link.id}`, { token: admin }), 204);
  });
});

// ---------------------------------------------------------------------------------------------
// Publishing auth

describe('publishing auth', () => {
  let org: TestOrg;
  let admin: string;
  let path: string;
  let siteId: string;

  beforeAll(async () => {
    org = await seedOrg();
    admin = org.owner.token;
    const space = await createSpace(org.id, admin, 'Docs');
    const built = await createSiteWithSection(org.id, admin, 'visitor-auth', space.id, 'Private');
    path = built.path;
    siteId = built.site.id;
    expectStatus(await api('POST', `${path}/publish`, { token: admin }), 200);
  });

  it('gives the private key, which signs tokens that open the site', async () => {
    const auth = expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body;
    expect(auth).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey: expect.any(String) });
    expect(auth.privateKey.length).toBeGreaterThanOrEqual(32);
    expect(gitbookErrors(gitbook('SitePublishingAuth'), auth)).toBe('valid');
    expectStatus(await published(org.id, siteId, { jwt: await signVisitorToken({}, auth.privateKey, '1h') }), 200);
    expectError(await api('GET', `${path}/publishing/auth`, { token: org.members.read.token }), 403);
    expectError(await api('GET', `${path}/publishing/auth`), 401);
  });

  it('sets fallbackURL and logoutURL (http URLs only), null unsets one, omitted leaves it', async () => {
    const set = expectStatus(
      await api('PATCH', `${path}/publishing/auth`, { token: admin, body: { backend: 'custom', fallbackURL: 'https://login.example.com/start', logoutURL: 'http://login.example.com/out' } }),
      200,
    ).body;
    expect(set).toMatchObject({ fallbackURL: 'https://login.example.com/start', logoutURL: 'http://login.example.com/out' });
    expect(gitbookErrors(gitbook('SitePublishingAuth'), set)).toBe('valid');
    expect(expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body).toEqual(set);

    for (const url of ['javascript:alert(1)', 'ftp://files.example.com/', 'not a url', '/relative/path', 'data:text/html,hi']) {
      const message = expectError(await api('PATCH', `${path}/publishing/auth`, { token: admin, body: { backend: 'custom', fallbackURL: url } }), 400);
      expect(message, url).toContain('fallbackURL');
      expectError(await api('PATCH', `${path}/publishing/auth`, { token: admin, body: { backend: 'custom', logoutURL: url } }), 400, 'logoutURL');
    }
    expect(expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body).toEqual(set);

    const unset = expectStatus(await api('PATCH', `${path}/publishing/auth`, { token: admin, body: { backend: 'custom', fallbackURL: null } }), 200).body;
    expect(unset.fallbackURL).toBeUndefined();
    expect('fallbackURL' in unset).toBe(false);
    expect(unset.logoutURL).toBe('http://login.example.com/out');
    const read = expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body;
    expect(read).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey: set.privateKey, logoutURL: 'http://login.example.com/out' });
    expectStatus(await api('PATCH', `${path}/publishing/auth`, { token: admin, body: { backend: 'custom', logoutURL: null } }), 200);
    expect(expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey: set.privateKey });
    expectError(await api('PATCH', `${path}/publishing/auth`, { token: org.members.edit.token, body: { backend: 'custom', fallbackURL: null } }), 403);
  });

  it('regenerate replaces the key: tokens of the old key stop opening the site, the new key opens it', async () => {
    const before = expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body.privateKey;
    const oldToken = await signVisitorToken({}, before, '1h');
    expectStatus(await published(org.id, siteId, { jwt: oldToken }), 200);
    const regenerated = expectStatus(await api('POST', `${path}/publishing/auth/regenerate`, { token: admin }), 200).body;
    expect(regenerated.privateKey).not.toBe(before);
    expect(gitbookErrors(gitbook('SitePublishingAuth'), regenerated)).toBe('valid');
    expect(expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body.privateKey).toBe(regenerated.privateKey);
    for (const read of READS) expectError(await visit(org.id, siteId, read, { jwt: oldToken }), 404);
    for (const read of READS) expectStatus(await visit(org.id, siteId, read, { jwt: await signVisitorToken({}, regenerated.privateKey, '1h') }), 200);
    expectError(await api('POST', `${path}/publishing/auth/regenerate`, { token: org.members.create.token }), 403);
    expect(expectStatus(await api('GET', `${path}/publishing/auth`, { token: admin }), 200).body.privateKey).toBe(regenerated.privateKey);
  });
});
