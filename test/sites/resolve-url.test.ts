/**
 * resolvePublishedContentByUrl (POST /v1/urls/published): every URL form of a published site (the `/s/<site>`
 * form, an organization's label under SITES_DOMAIN, a verified custom hostname), its sections, site spaces and
 * page paths, the prefixes GitBook's renderer resolves in parallel (404 or `complete: false`), share-link and
 * visitor-auth sites, unpublished sites, bad input, and the site token it issues. Answers are validated
 * against GitBook 0.202's `PublishedSiteContentLookup`.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { setTxtResolver } from '../../src/services/organizations/hostnames';
import { signVisitorToken } from '../../src/services/sites/visitor-token';
import { GITBOOK_0202, gitbookErrors, schemaValidator } from '../helpers/gitbook-schema';
import { api, BASE, expectError, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';
import { publishedSite, shareKeyOf, spaceWithPages } from '../site/helpers';

const lookupSchema = schemaValidator({ $ref: '#/components/schemas/PublishedSiteContentLookup' }, GITBOOK_0202.components);
const tokenSchema = schemaValidator({ $ref: '#/components/schemas/SiteAPIToken' }, GITBOOK_0202.components);

function resolve(url: string, extra: Record<string, unknown> = {}, token?: string): Promise<ApiResponse> {
  return api('POST', '/v1/urls/published', { body: { url, ...extra }, token });
}

/** A 200 answer, checked against GitBook's schema. */
async function resolved(url: string, extra: Record<string, unknown> = {}) {
  const res = expectStatus(await resolve(url, extra), 200);
  expect(gitbookErrors(lookupSchema, res.body), JSON.stringify(res.body)).toBe('valid');
  return res.body;
}

let org: TestOrg;
let admin: string;
let guide: { id: string; pages: Record<string, string> };
let reference: { id: string; pages: Record<string, string> };
let cli: { id: string; pages: Record<string, string> };
/** A public site of two sections: Guide (guide) and Reference (reference, and cli as a second site space). */
let site: { id: string; path: string; guideSection: string; referenceSection: string; referenceSiteSpace: string; cliSiteSpace: string; guideSiteSpace: string };

beforeAll(async () => {
  org = await seedOrg();
  admin = org.owner.token;
  const page = (title: string) => ({ operation: 'insert_page', title, document: { markdown: `${title} text.\n` } });
  guide = await spaceWithPages(org, 'Guide', [page('Getting started')]);
  reference = await spaceWithPages(org, 'Reference', [page('Endpoints')]);
  cli = await spaceWithPages(org, 'CLI', [page('Commands')]);
  const created = await publishedSite(org, [guide.id], 'public', 'Resolved');
  const path = created.path;
  const section = expectStatus(await api('POST', `${path}/sections`, { token: admin, body: { spaceId: reference.id, title: 'Reference' } }), 201).body;
  const cliSiteSpace = expectStatus(await api('POST', `${path}/site-spaces`, { token: admin, body: { spaceId: cli.id, sectionId: section.id } }), 201).body;
  const sections = expectStatus(await api('GET', `${path}/sections`, { token: admin }), 200).body.items;
  const guideSection = sections.find((s: { id: string }) => s.id !== section.id);
  site = {
    id: created.id,
    path,
    guideSection: guideSection.id,
    guideSiteSpace: guideSection.siteSpaces[0].id,
    referenceSection: section.id,
    referenceSiteSpace: section.siteSpaces[0].id,
    cliSiteSpace: cliSiteSpace.id,
  };
  expect(section.path).toBe('reference');
  expect(cliSiteSpace.path).toBe('cli');
});

const base = () => `${BASE}/s/${site.id}`;

describe('the /s/<site> form, its sections, site spaces and page paths', () => {
  it("the site's root: the default section and site space, not complete (a section may follow)", async () => {
    const body = await resolved(`${base()}/`);
    expect(body).toMatchObject({
      site: site.id,
      siteSection: site.guideSection,
      siteSpace: site.guideSiteSpace,
      space: guide.id,
      organization: org.id,
      pathname: '',
      basePath: `/s/${site.id}/`,
      siteBasePath: `/s/${site.id}/`,
      canonicalUrl: `${base()}/`,
      complete: false,
    });
    expect(body.shareKey).toBeUndefined();
  });

  it('a page path of the default section: complete, the page path as pathname', async () => {
    const body = await resolved(`${base()}/getting-started/more`);
    expect(body).toMatchObject({ siteSection: site.guideSection, space: guide.id, pathname: 'getting-started/more', basePath: `/s/${site.id}/`, complete: true });
    expect(body.canonicalUrl).toBe(`${base()}/getting-started/more`);
  });

  it("a section (compared without case): its default site space, not complete while another of its site spaces may follow", async () => {
    const body = await resolved(`${base()}/Reference`);
    expect(body).toMatchObject({ siteSection: site.referenceSection, siteSpace: site.referenceSiteSpace, space: reference.id, pathname: '', basePath: `/s/${site.id}/reference/`, complete: false });
    const page = await resolved(`${base()}/reference/endpoints`);
    expect(page).toMatchObject({ siteSpace: site.referenceSiteSpace, pathname: 'endpoints', complete: true });
  });

  it('a site space of a section, and a page of it', async () => {
    const body = await resolved(`${base()}/reference/cli`);
    expect(body).toMatchObject({ siteSection: site.referenceSection, siteSpace: site.cliSiteSpace, space: cli.id, pathname: '', basePath: `/s/${site.id}/reference/cli/`, complete: true });
    const page = await resolved(`${base()}/reference/cli/commands`);
    expect(page).toMatchObject({ siteSpace: site.cliSiteSpace, pathname: 'commands', canonicalUrl: `${base()}/reference/cli/commands`, complete: true });
  });

  it("GitBook's renderer's prefixes of a URL: each answers 404 or an answer whose completion is truthful", async () => {
    // The renderer tries the host alone and the first segments, and keeps the full URL or a complete prefix.
    const answers = await Promise.all([`${BASE}/`, `${BASE}/s`, `${base()}`, `${base()}/reference`, `${base()}/reference/cli`, `${base()}/reference/cli/commands`].map((u) => resolve(u)));
    expect(answers.map((a) => a.status)).toEqual([404, 404, 200, 200, 200, 200]);
    expect(answers.slice(2).map((a) => a.body.complete)).toEqual([false, false, true, true]);
    // Every complete answer joined with the rest of the URL names the same site space.
    expect(new Set(answers.slice(4).map((a) => a.body.siteSpace))).toEqual(new Set([site.cliSiteSpace]));
    // The apiToken is a site token (GitBook's SiteAPIToken) of this site space.
    const payload = decodeJwt(answers[5].body.apiToken);
    expect(gitbookErrors(tokenSchema, payload)).toBe('valid');
    expect(payload).toMatchObject({ kind: 'site', organization: org.id, site: site.id, siteSection: site.referenceSection, siteSpace: site.cliSiteSpace, space: cli.id, claims: {} });
    expect((payload.spaces as string[]).sort()).toEqual([guide.id, reference.id, cli.id].sort());
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('a site of site spaces only (no sections): its root is complete when it has one site space', async () => {
    const flat = await publishedSite(org, [guide.id], 'public', 'Flat');
    const body = await resolved(`${BASE}/s/${flat.id}`);
    expect(body).toMatchObject({ site: flat.id, siteSpace: expect.any(String), space: guide.id, complete: true, basePath: `/s/${flat.id}/` });
    expect(body.siteSection).toBeUndefined();
  });

  it('unknown, unpublished and malformed site ids are 404; the answer is never cached', async () => {
    expectError(await resolve(`${BASE}/s/noSuchSite0000000000/page`), 404);
    expectError(await resolve(`${BASE}/s/${encodeURIComponent('a b')}/page`), 404);
    const offline = await publishedSite(org, [guide.id], 'public', 'Offline');
    expectStatus(await api('POST', `${offline.path}/unpublish`, { token: admin }), 200);
    expectError(await resolve(`${BASE}/s/${offline.id}/`), 404);
    // Not even a member's API token resolves an unpublished site: resolving is what visitors see.
    expectError(await resolve(`${BASE}/s/${offline.id}/`, {}, admin), 404);
    const res = await resolve(`${base()}/`);
    expect(res.headers.get('Cache-Control')).toBe('private, no-store');
  });

  it('another organization’s site resolves the same for anyone: what is published is public', async () => {
    const other = await seedOrg();
    const body = await resolved(`${base()}/reference`);
    const asStranger = expectStatus(await resolve(`${base()}/reference`, {}, other.owner.token), 200).body;
    expect(asStranger.siteSpace).toBe(body.siteSpace);
  });
});

describe('bad input', () => {
  it('refuses a missing, relative, non-http or undecodable URL (400 naming url)', async () => {
    expectError(await api('POST', '/v1/urls/published', { body: {} }), 400, 'url');
    expectError(await resolve('/s/abc/page'), 400, 'url');
    expectError(await resolve('ftp://docs.example.com/page'), 400, 'url');
    expectError(await resolve(`${base()}/%E0%A4%A`), 400, 'url');
    expectError(await resolve(`${base()}/${'x'.repeat(2100)}`), 400, 'url');
    expectError(await api('POST', '/v1/urls/published', { body: { url: `${base()}/`, visitor: { type: 'robot' } } }), 400, 'visitor.type');
  });

  it('answers 503 naming SITE_TOKENS_KEY when the deployment has none, never a token signed with another secret', async () => {
    const ctx = createExecutionContext();
    const res = await createApp().request(
      `${BASE}/v1/urls/published`,
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ url: `${base()}/` }) },
      { ...env, SITE_TOKENS_KEY: undefined },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('SITE_TOKENS_KEY');
  });
});

describe("an organization's hosts", () => {
  it('its label under SITES_DOMAIN: its default content site at the root', async () => {
    const label = `rs${Math.random().toString(36).slice(2, 8)}`;
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: admin, body: { hostname: label, defaultContent: { type: 'site', site: site.id } } }), 200);
    const body = await resolved(`https://${label}.sites.test/reference/cli/commands`);
    expect(body).toMatchObject({ site: site.id, siteSpace: site.cliSiteSpace, siteBasePath: '/', basePath: '/reference/cli/', pathname: 'commands', complete: true });
    expect(body.canonicalUrl).toBe(`https://${label}.sites.test/reference/cli/commands`);
    // The host alone (the renderer's first alternative): the site's root, not complete.
    expect((await resolved(`https://${label}.sites.test`)).complete).toBe(false);
    // A label nobody has, and the /s/ form on a label host (only the organization's site is served there).
    expectError(await resolve(`https://nobody-${label}.sites.test/`), 404);
    expect((await resolved(`https://${label}.sites.test/s/${site.id}/x`)).pathname).toBe('s/' + site.id + '/x');
  });

  it('its custom hostname once verified; before, the host is not the organization’s (its /s/ form still resolves)', async () => {
    const other = await seedOrg();
    const space = await spaceWithPages(other, 'Custom', [{ operation: 'insert_page', title: 'Home', document: { markdown: 'Home.\n' } }]);
    const hosted = await publishedSite(other, [space.id], 'public', 'Custom');
    const host = `docs.rs${Math.random().toString(36).slice(2, 8)}.example`;
    expectStatus(await api('PATCH', `/v1/orgs/${other.id}`, { token: other.owner.token, body: { customHostname: host, defaultContent: { type: 'site', site: hosted.id } } }), 200);
    expectError(await resolve(`https://${host}/home`), 404);
    expect((await resolved(`https://${host}/s/${hosted.id}/home`)).site).toBe(hosted.id);
    const { record } = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: other.owner.token }), 200).body.verification;
    setTxtResolver({ resolveTxt: async (name) => (name === record.name ? [record.value] : []) });
    expectStatus(await api('PATCH', `/v1/custom-hostnames/${host}`, { token: other.owner.token }), 204);
    const body = await resolved(`https://${host}/home`);
    expect(body).toMatchObject({ site: hosted.id, organization: other.id, siteBasePath: '/', pathname: 'home', canonicalUrl: `https://${host}/home`, complete: true });
  });
});

describe('share-link sites', () => {
  let shared: { id: string; path: string };
  let key: string;
  beforeAll(async () => {
    shared = await publishedSite(org, [guide.id], 'share-link', 'Shared');
    const link = expectStatus(await api('POST', `${shared.path}/share-links`, { token: admin, body: { name: 'Partners' } }), 201).body;
    key = shareKeyOf(link);
  });

  it("the key as the first path segment (GitBook's form): the site's base includes it, and the answer names it", async () => {
    const body = await resolved(`${BASE}/s/${shared.id}/${key}/getting-started`);
    expect(body).toMatchObject({ site: shared.id, shareKey: key, siteBasePath: `/s/${shared.id}/${key}/`, basePath: `/s/${shared.id}/${key}/`, pathname: 'getting-started', complete: true });
  });

  it("the key in the URL's query (the HTML site's form): no segment is taken for it", async () => {
    const body = await resolved(`${BASE}/s/${shared.id}/getting-started?share=${key}`);
    expect(body).toMatchObject({ shareKey: key, siteBasePath: `/s/${shared.id}/`, pathname: 'getting-started' });
  });

  it('without the key, with a wrong or revoked one: 404 (the prefix without the key included)', async () => {
    expectError(await resolve(`${BASE}/s/${shared.id}`), 404);
    expectError(await resolve(`${BASE}/s/${shared.id}/getting-started`), 404);
    expectError(await resolve(`${BASE}/s/${shared.id}/nOtAkEy0123456789abcdef/getting-started`), 404);
    const other = expectStatus(await api('POST', `${shared.path}/share-links`, { token: admin, body: { name: 'Revoked' } }), 201).body;
    const revokedKey = shareKeyOf(other);
    expectStatus(await api('PATCH', `${shared.path}/share-links/${other.id}`, { token: admin, body: { active: false } }), 200);
    expectError(await resolve(`${BASE}/s/${shared.id}/${revokedKey}/`), 404);
  });
});

describe('visitor-auth sites', () => {
  let va: { id: string; path: string };
  let key: string;
  beforeAll(async () => {
    va = await publishedSite(org, [guide.id], 'visitor-auth', 'Members only');
    key = expectStatus(await api('GET', `${va.path}/publishing/auth`, { token: admin }), 200).body.privateKey;
    expectStatus(await api('PATCH', `${va.path}/publishing/auth`, { token: admin, body: { backend: 'custom', fallbackURL: 'https://login.example.com/start' } }), 200);
    expectStatus(await api('PUT', `${va.path}/adaptive-schema`, { token: admin, body: { jsonSchema: { type: 'object', properties: { beta: { type: 'boolean', description: 'Beta' } }, additionalProperties: false } } }), 200);
  });

  it("without a visitor token: GitBook's redirect to the fallback URL, with the path asked for as location", async () => {
    const body = await resolved(`${BASE}/s/${va.id}/getting-started`);
    expect(body).toEqual({ target: 'external', site: va.id, redirect: `https://login.example.com/start?location=${encodeURIComponent(`/s/${va.id}/getting-started`)}` });
  });

  it("with a valid one: resolved, its claims in the site token, which expires no later than the visitor's", async () => {
    const jwtToken = await signVisitorToken({ sub: 'v1', beta: true, email: 'dropped@example.com' }, key, 600);
    const body = await resolved(`${BASE}/s/${va.id}/getting-started`, { visitor: { jwtToken, type: 'agent' } });
    expect(body).toMatchObject({ site: va.id, pathname: 'getting-started', complete: true });
    const payload = decodeJwt(body.apiToken);
    // Only what the adaptive schema declares, as the published view reads the claims.
    expect(payload.claims).toEqual({ beta: true });
    expect(payload.visitorType).toBe('agent');
    expect(payload.exp).toBe(decodeJwt(jwtToken).exp);
    // `jwt_token` in the URL works too (the HTML site's parameter).
    expect((await resolved(`${BASE}/s/${va.id}/?jwt_token=${jwtToken}`)).site).toBe(va.id);
  });

  it('with an invalid one: 401, or the redirect with redirectOnError', async () => {
    const wrong = await signVisitorToken({ sub: 'v1' }, 'not-the-site-key', 600);
    expectError(await resolve(`${BASE}/s/${va.id}/`, { visitor: { jwtToken: wrong } }), 401, 'visitor.jwtToken');
    const expired = await signVisitorToken({ sub: 'v1' }, key, -60);
    expectError(await resolve(`${BASE}/s/${va.id}/`, { visitor: { jwtToken: expired } }), 401, 'visitor.jwtToken');
    const body = await resolved(`${BASE}/s/${va.id}/`, { visitor: { jwtToken: expired }, redirectOnError: true });
    expect(body).toMatchObject({ target: 'external', site: va.id });
  });

  it('a visitor-auth site without a fallback URL: 404 without a valid token', async () => {
    const bare = await publishedSite(org, [guide.id], 'visitor-auth', 'No fallback');
    expectError(await resolve(`${BASE}/s/${bare.id}/`), 404);
  });
});

describe("the sites' urls.published resolve, and published URLs read with a site token lead where it was resolved", () => {
  /** What a member reads of the site: its and its site spaces' `urls.published`. */
  async function publishedUrls(path: string, token: string, shareKey?: string) {
    const res = expectStatus(await api('GET', `${path}/published${shareKey ? `?shareKey=${shareKey}` : ''}`, { token }), 200);
    const view = res.body;
    const siteSpaces = view.structure.structure.flatMap((item: any) => (item.object === 'site-section' ? item.siteSpaces : [item]));
    return {
      site: view.site.urls.published as string,
      siteSpaces: new Map<string, string>(siteSpaces.map((s: any) => [s.id, s.urls.published])),
      cacheControl: res.headers.get('Cache-Control'),
    };
  }

  it('each site space of a published site resolves at its urls.published (/sites/<org>/<basename>/...), a page below it too', async () => {
    const urls = await publishedUrls(site.path, admin);
    expect(new URL(urls.site).pathname).toMatch(new RegExp(`^/sites/${org.id}/[^/]+/$`));
    const root = await resolved(urls.site);
    expect(root).toMatchObject({ site: site.id, siteSpace: site.guideSiteSpace, siteBasePath: new URL(urls.site).pathname, complete: false });
    for (const [id, url] of urls.siteSpaces) expect((await resolved(url)).siteSpace, url).toBe(id);
    const page = await resolved(`${urls.siteSpaces.get(site.cliSiteSpace)}/commands`);
    expect(page).toMatchObject({ siteSpace: site.cliSiteSpace, pathname: 'commands', basePath: `${new URL(urls.site).pathname}reference/cli/`, complete: true });
    expect(page.canonicalUrl).toBe(`${urls.siteSpaces.get(site.cliSiteSpace)}/commands`);
  });

  it('another basename, another organization, an unpublished site or a malformed segment: 404', async () => {
    const basename = new URL((await publishedUrls(site.path, admin)).site).pathname.split('/')[3];
    const other = await seedOrg();
    expectError(await resolve(`${BASE}/sites/${org.id}/not-${basename}/`), 404);
    expectError(await resolve(`${BASE}/sites/${other.id}/${basename}/`), 404);
    expectError(await resolve(`${BASE}/sites/${org.id}/%E0%A4%A/`), 404);
    expectError(await resolve(`${BASE}/sites/${org.id}`), 404);
    const draft = await publishedSite(org, [guide.id], 'public', 'Draft');
    const draftBasename = new URL((await publishedUrls(draft.path, admin)).site).pathname.split('/')[3];
    expectStatus(await api('POST', `${draft.path}/unpublish`, { token: admin }), 200);
    expectError(await resolve(`${BASE}/sites/${org.id}/${draftBasename}/`), 404);
  });

  it('with SITES_URL set, on its host and under its path only', async () => {
    const basename = new URL((await publishedUrls(site.path, admin)).site).pathname.split('/')[3];
    const ask = async (url: string) => {
      const ctx = createExecutionContext();
      const res = await createApp().request(
        `${BASE}/v1/urls/published`,
        { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ url }) },
        { ...env, SITES_URL: 'https://docs.example.test/published' },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return { status: res.status, body: (await res.json()) as any };
    };
    const found = await ask(`https://docs.example.test/published/${org.id}/${basename}/reference/cli/commands`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ siteSpace: site.cliSiteSpace, siteBasePath: `/published/${org.id}/${basename}/`, pathname: 'commands' });
    expect((await ask(`https://elsewhere.example.test/published/${org.id}/${basename}/`)).status).toBe(404);
    expect((await ask(`https://docs.example.test/sites/${org.id}/${basename}/`)).status).toBe(404);
  });

  it("a site token's reads give its site's published URLs on the root it was resolved at: the renderer's own links", async () => {
    for (const root of [`https://127.0.0.1/s/${site.id}`, `${BASE}/s/${site.id}`]) {
      const { apiToken } = await resolved(`${root}/reference`);
      expect(decodeJwt(apiToken).siteUrl).toBe(root);
      const urls = await publishedUrls(site.path, apiToken);
      expect(urls.site).toBe(`${root}/`);
      expect(urls.siteSpaces.get(site.guideSiteSpace)).toBe(`${root}/`);
      expect(urls.siteSpaces.get(site.referenceSiteSpace)).toBe(`${root}/reference`);
      expect(urls.siteSpaces.get(site.cliSiteSpace)).toBe(`${root}/reference/cli`);
      const space = expectStatus(await api('GET', `/v1/spaces/${cli.id}`, { token: apiToken }), 200).body;
      expect(space.urls.published).toBe(`${root}/reference/cli`);
    }
    // A member's reads keep the site's own published URLs.
    expect((await publishedUrls(site.path, admin)).site).toMatch(new RegExp(`/sites/${org.id}/`));
  });

  it("a site token's answer is never shared: its URLs are on the root its caller chose (any host resolves /s/<site>)", async () => {
    const { apiToken } = await resolved(`https://attacker.example/s/${site.id}/`);
    const urls = await publishedUrls(site.path, apiToken);
    expect(urls.site).toBe(`https://attacker.example/s/${site.id}/`);
    expect(urls.cacheControl).toBe('private, no-cache');
    // The same public site read by an anonymous visitor is shared, on the site's own URLs.
    const res = await api('GET', `${site.path}/published`);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=60');
    expect(res.body.site.urls.published).toMatch(new RegExp(`/sites/${org.id}/`));
  });

  it('a root longer than a token carries (an international host grows in punycode) is left out of the token', async () => {
    const host = `${'ü'.repeat(20)}.`.repeat(90) + 'example';
    const url = `https://${host}/s/${site.id}/`;
    expect(url.length).toBeLessThanOrEqual(2048);
    expect(new URL(url).origin.length).toBeGreaterThan(2048);
    const { apiToken } = await resolved(url);
    expect(decodeJwt(apiToken).siteUrl).toBeUndefined();
    // The token works; published URLs are the site's own.
    expect((await publishedUrls(site.path, apiToken)).site).toMatch(new RegExp(`/sites/${org.id}/`));
  });

  it("a share-link site's token: its root carries the key as a segment (however it was given), never repeated as a query", async () => {
    const shared = await publishedSite(org, [guide.id], 'share-link', 'Shared links');
    const link = expectStatus(await api('POST', `${shared.path}/share-links`, { token: admin, body: { name: 'Renderer' } }), 201).body;
    const key = shareKeyOf(link);
    const inPath = (await resolved(`https://127.0.0.1/s/${shared.id}/${key}/getting-started`)).apiToken;
    expect((await publishedUrls(shared.path, inPath, key)).site).toBe(`https://127.0.0.1/s/${shared.id}/${key}/`);
    const inQuery = (await resolved(`https://127.0.0.1/s/${shared.id}/getting-started?share=${key}`)).apiToken;
    expect(decodeJwt(inQuery).siteUrl).toBe(`https://127.0.0.1/s/${shared.id}/${key}`);
    expect((await publishedUrls(shared.path, inQuery, key)).site).toBe(`https://127.0.0.1/s/${shared.id}/${key}/`);
  });
});
