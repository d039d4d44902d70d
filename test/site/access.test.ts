/**
 * Who opens a published site's HTML: each visibility with valid and invalid credentials (share keys and
 * visitor tokens in the URL and in the cookies they become, the fallback URL of visitor-auth sites),
 * conditions on sections, site spaces and pages evaluated on the visitor's claims, and the one 404 page
 * that unknown, unpublished and refused all read as.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { signVisitorToken } from '../../src/services/sites/visitor-token';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { cookieValue, publishedSite, setCookie, shareKeyOf, spaceWithPages, visit } from './helpers';

let org: TestOrg;
let space: { id: string; pages: Record<string, string> };
let notFoundBody: string;

const token = () => org.owner.token;

beforeAll(async () => {
  org = await seedOrg();
  space = await spaceWithPages(org, 'Handbook', [
    { operation: 'insert_page', title: 'Welcome', document: { markdown: 'Hello visitors.\n' } },
    { operation: 'insert_page', title: 'Pro tips', condition: 'visitor.claims.plan == "pro"', document: { markdown: 'For pros only.\n' } },
  ]);
  notFoundBody = (await visit('/s/unknown-site-id/')).text;
});

describe('the 404 page', () => {
  it('is the same for an unknown site, an unknown page, an unpublished site and a refused visitor', async () => {
    const unknown = await visit('/s/unknown-site-id/');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(unknown.text).toContain('<h1>Page not found</h1>');

    const pub = await publishedSite(org, [space.id], 'public', 'Public site');
    const missingPage = await visit(`/s/${pub.id}/no-such-page`);
    expect(missingPage.status).toBe(404);
    expect(missingPage.text).toBe(notFoundBody);

    const offline = await publishedSite(org, [space.id], 'public', 'Offline site');
    expectStatus(await api('POST', `${offline.path}/unpublish`, { token: token() }), 200);
    const unpublished = await visit(`/s/${offline.id}/`);
    expect(unpublished.status).toBe(404);
    expect(unpublished.text).toBe(notFoundBody);

    const shared = await publishedSite(org, [space.id], 'share-link', 'Shared site');
    const refused = await visit(`/s/${shared.id}/`);
    expect(refused.status).toBe(404);
    expect(refused.text).toBe(notFoundBody);
    for (const res of [unknown, missingPage, unpublished, refused]) {
      expect(res.headers.get('Cache-Control')).toBe('no-store');
      expect(res.headers.get('X-Robots-Tag')).toBe('noindex');
    }
  });
});

describe('public and unlisted sites', () => {
  it('open for anyone; unlisted ones say noindex in a meta tag and a header', async () => {
    const pub = await publishedSite(org, [space.id], 'public', 'Open site');
    const open = await visit(`/s/${pub.id}/`);
    expect(open.status).toBe(200);
    expect(open.text).toContain('Hello visitors.');
    expect(open.text).not.toContain('<meta name="robots" content="noindex">');
    expect(open.headers.get('X-Robots-Tag')).toBeNull();

    const unlisted = await publishedSite(org, [space.id], 'unlisted', 'Unlisted site');
    const res = await visit(`/s/${unlisted.id}/`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<meta name="robots" content="noindex">');
    expect(res.headers.get('X-Robots-Tag')).toBe('noindex');
  });
});

describe('share-link sites', () => {
  let site: { id: string; path: string };
  let key: string;

  beforeAll(async () => {
    site = await publishedSite(org, [space.id], 'share-link', 'Partners');
    const link = expectStatus(await api('POST', `${site.path}/share-links`, { token: token(), body: { name: 'Partners' } }), 201).body;
    key = shareKeyOf(link);
  });

  it('?share=<key> sets an HttpOnly, Secure, SameSite=Lax cookie scoped to the site and redirects without the key', async () => {
    for (const param of ['share', 'shareKey']) {
      const res = await visit(`/s/${site.id}/welcome?${param}=${encodeURIComponent(key)}&x=1`);
      expect(res.status).toBe(302);
      expect(res.headers.get('Location')).toBe(`/s/${site.id}/welcome?x=1`);
      const set = setCookie(res.headers, `site_share_${site.id}`)!;
      expect(set).toContain(`site_share_${site.id}=${encodeURIComponent(key)}`);
      expect(set).toContain('HttpOnly');
      expect(set).toContain('Secure');
      expect(set).toContain('SameSite=Lax');
      expect(set).toContain(`Path=/s/${site.id}/`);
    }
  });

  it('the cookie opens the site; private, never shared caches; noindex', async () => {
    const res = await visit(`/s/${site.id}/welcome`, { Cookie: `site_share_${site.id}=${encodeURIComponent(key)}` });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Hello visitors.');
    expect(res.headers.get('Cache-Control')).toBe('private, no-cache');
    expect(res.headers.get('Vary')).toContain('Cookie');
    expect(res.headers.get('X-Robots-Tag')).toBe('noindex');
  });

  it('a wrong key, a revoked one, or none: the 404 page, and no cookie', async () => {
    const wrong = await visit(`/s/${site.id}/?share=not-the-key`);
    expect(wrong.status).toBe(404);
    expect(wrong.text).toBe(notFoundBody);
    expect(setCookie(wrong.headers, `site_share_${site.id}`)).toBeUndefined();
    const badCookie = await visit(`/s/${site.id}/`, { Cookie: `site_share_${site.id}=not-the-key` });
    expect(badCookie.status).toBe(404);
    expect(badCookie.text).toBe(notFoundBody);

    const other = expectStatus(await api('POST', `${site.path}/share-links`, { token: token(), body: { name: 'Revoked' } }), 201).body;
    const otherKey = shareKeyOf(other);
    expect((await visit(`/s/${site.id}/`, { Cookie: `site_share_${site.id}=${otherKey}` })).status).toBe(200);
    expectStatus(await api('PATCH', `${site.path}/share-links/${other.id}`, { token: token(), body: { active: false } }), 200);
    expect((await visit(`/s/${site.id}/`, { Cookie: `site_share_${site.id}=${otherKey}` })).status).toBe(404);
  });

  it('another site’s cookie does not open this one', async () => {
    const second = await publishedSite(org, [space.id], 'share-link', 'Second');
    const res = await visit(`/s/${second.id}/`, { Cookie: `site_share_${site.id}=${encodeURIComponent(key)}` });
    expect(res.status).toBe(404);
  });
});

describe('visitor-auth sites', () => {
  let site: { id: string; path: string };
  let key: string;

  beforeAll(async () => {
    site = await publishedSite(org, [space.id], 'visitor-auth', 'Customers');
    key = expectStatus(await api('GET', `${site.path}/publishing/auth`, { token: token() }), 200).body.privateKey;
  });

  it('?jwt_token= with a valid token: a cookie until the token expires, and the URL without it', async () => {
    const jwt = await signVisitorToken({ plan: 'free' }, key, 600);
    const res = await visit(`/s/${site.id}/welcome?jwt_token=${jwt}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('Location')).toBe(`/s/${site.id}/welcome`);
    const set = setCookie(res.headers, `site_token_${site.id}`)!;
    expect(set).toContain('HttpOnly');
    expect(set).toContain('Secure');
    expect(set).toContain('SameSite=Lax');
    expect(set).toContain(`Path=/s/${site.id}/`);
    const maxAge = Number(/Max-Age=(\d+)/.exec(set)![1]);
    expect(maxAge).toBeGreaterThan(500);
    expect(maxAge).toBeLessThanOrEqual(600);
    const page = await visit(`/s/${site.id}/welcome`, { Cookie: cookieValue(set) });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Hello visitors.');
    expect(page.headers.get('Cache-Control')).toBe('private, no-cache');
    expect(page.headers.get('X-Robots-Tag')).toBe('noindex');
  });

  it('without a valid token: the 404 page while no fallback URL is set', async () => {
    const none = await visit(`/s/${site.id}/welcome`);
    expect(none.status).toBe(404);
    expect(none.text).toBe(notFoundBody);
    const forged = await signVisitorToken({ plan: 'pro' }, 'not-the-key', 600);
    expect((await visit(`/s/${site.id}/welcome?jwt_token=${forged}`)).status).toBe(404);
    const expired = await signVisitorToken({ plan: 'pro' }, key, -60);
    expect((await visit(`/s/${site.id}/welcome`, { Cookie: `site_token_${site.id}=${expired}` })).status).toBe(404);
  });

  it('without a valid token: redirected to the fallback URL with the location asked for; a stale cookie is dropped', async () => {
    expectStatus(await api('PATCH', `${site.path}/publishing/auth`, { token: token(), body: { backend: 'custom', fallbackURL: 'https://login.example.com/sso?from=docs' } }), 200);
    const none = await visit(`/s/${site.id}/welcome?tab=2`);
    expect(none.status).toBe(302);
    const location = new URL(none.headers.get('Location')!);
    expect(location.origin + location.pathname).toBe('https://login.example.com/sso');
    expect(location.searchParams.get('from')).toBe('docs');
    expect(location.searchParams.get('location')).toBe(`/s/${site.id}/welcome?tab=2`);

    const expired = await signVisitorToken({}, key, -60);
    const stale = await visit(`/s/${site.id}/welcome`, { Cookie: `site_token_${site.id}=${expired}` });
    expect(stale.status).toBe(302);
    expect(setCookie(stale.headers, `site_token_${site.id}`)).toContain('Max-Age=0');
    const bad = await visit(`/s/${site.id}/welcome?jwt_token=garbage`);
    expect(bad.status).toBe(302);
    expect(new URL(bad.headers.get('Location')!).searchParams.get('location')).toBe(`/s/${site.id}/welcome`);
  });

  it('an unpublished visitor-auth site is the 404 page, never the fallback', async () => {
    const offline = await publishedSite(org, [space.id], 'visitor-auth', 'Offline customers');
    expectStatus(await api('PATCH', `${offline.path}/publishing/auth`, { token: token(), body: { backend: 'custom', fallbackURL: 'https://login.example.com/' } }), 200);
    expectStatus(await api('POST', `${offline.path}/unpublish`, { token: token() }), 200);
    const res = await visit(`/s/${offline.id}/`);
    expect(res.status).toBe(404);
    expect(res.text).toBe(notFoundBody);
  });

  it('regenerating the key stops a kept token at once', async () => {
    const other = await publishedSite(org, [space.id], 'visitor-auth', 'Rotating');
    const otherKey = expectStatus(await api('GET', `${other.path}/publishing/auth`, { token: token() }), 200).body.privateKey;
    const jwt = await signVisitorToken({}, otherKey, 600);
    expect((await visit(`/s/${other.id}/`, { Cookie: `site_token_${other.id}=${jwt}` })).status).toBe(200);
    expectStatus(await api('POST', `${other.path}/publishing/auth/regenerate`, { token: token() }), 200);
    expect((await visit(`/s/${other.id}/`, { Cookie: `site_token_${other.id}=${jwt}` })).status).toBe(404);
  });
});

describe('conditions on the visitor’s claims', () => {
  let site: { id: string; path: string };
  let key: string;
  const as = async (claims: Record<string, unknown> | null, path = '/') => {
    const headers: Record<string, string> = claims ? { Cookie: `site_token_${site.id}=${await signVisitorToken(claims, key, 600)}` } : {};
    return visit(`/s/${site.id}${path}`, headers);
  };

  beforeAll(async () => {
    const beta = await spaceWithPages(org, 'Beta', [{ operation: 'insert_page', title: 'Beta feature', document: { markdown: 'Beta only.\n' } }]);
    const enterprise = await spaceWithPages(org, 'Enterprise', [{ operation: 'insert_page', title: 'SSO', document: { markdown: 'Enterprise SSO.\n' } }]);
    site = await publishedSite(org, [space.id], 'public', 'Adaptive');
    key = expectStatus(await api('GET', `${site.path}/publishing/auth`, { token: token() }), 200).body.privateKey;
    const betaSection = expectStatus(await api('POST', `${site.path}/sections`, { token: token(), body: { spaceId: beta.id, title: 'Beta' } }), 201).body;
    expectStatus(await api('PATCH', `${site.path}/sections/${betaSection.id}`, { token: token(), body: { path: 'beta', condition: 'visitor.claims.beta == true' } }), 200);
    const sections = expectStatus(await api('GET', `${site.path}/sections`, { token: token() }), 200).body.items;
    const main = sections.find((s: any) => s.id !== betaSection.id);
    const ent = expectStatus(await api('POST', `${site.path}/site-spaces`, { token: token(), body: { spaceId: enterprise.id, sectionId: main.id, title: 'Enterprise' } }), 201).body;
    expectStatus(await api('PATCH', `${site.path}/site-spaces/${ent.id}`, { token: token(), body: { path: 'enterprise', condition: 'visitor.claims.plan == "enterprise"' } }), 200);
  });

  it('a section whose condition fails is neither listed nor reachable', async () => {
    const anonymous = await as(null);
    expect(anonymous.text).not.toContain('>Beta</a>');
    expect((await as(null, '/beta/')).status).toBe(404);
    const betaUser = await as({ beta: true });
    expect(betaUser.text).toContain('>Beta</a>');
    const page = await as({ beta: true }, '/beta/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Beta only.');
  });

  it('a site space whose condition fails is neither in the switcher nor reachable', async () => {
    expect((await as(null, '/enterprise/')).status).toBe(404);
    expect((await as({ plan: 'free' })).text).not.toContain('Enterprise</a>');
    const ok = await as({ plan: 'enterprise' }, '/enterprise/');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('Enterprise SSO.');
    expect((await as({ plan: 'enterprise' })).text).toContain('Enterprise</a>');
  });

  it('a page whose condition fails is neither in the sidebar nor reachable', async () => {
    const anonymous = await as(null);
    expect(anonymous.text).not.toContain('Pro tips');
    expect((await as(null, '/pro-tips')).status).toBe(404);
    const pro = await as({ plan: 'pro' });
    expect(pro.text).toContain('Pro tips</a>');
    expect((await as({ plan: 'pro' }, '/pro-tips')).text).toContain('For pros only.');
  });

  it('a visitor with claims gets a private copy: never the shared cache', async () => {
    const res = await as({ beta: true });
    expect(res.headers.get('Cache-Control')).toBe('private, no-cache');
    expect(res.headers.get('X-Site-Cache')).toBeNull();
  });
});

describe('hidden site spaces', () => {
  it('are left out of the switcher and llms.txt but reachable by their URL', async () => {
    const other = await spaceWithPages(org, 'Legacy', [{ operation: 'insert_page', title: 'Old page', document: { markdown: 'Legacy content.\n' } }]);
    const site = await publishedSite(org, [space.id], 'public', 'With legacy');
    const legacy = expectStatus(await api('POST', `${site.path}/site-spaces`, { token: token(), body: { spaceId: other.id, title: 'Legacy' } }), 201).body;
    expectStatus(await api('PATCH', `${site.path}/site-spaces/${legacy.id}`, { token: token(), body: { path: 'legacy' } }), 200);
    expect((await visit(`/s/${site.id}/`)).text).toContain(`<a href="/s/${site.id}/legacy/">Legacy</a>`);
    expectStatus(await api('PATCH', `${site.path}/site-spaces/${legacy.id}`, { token: token(), body: { hidden: true } }), 200);
    const home = await visit(`/s/${site.id}/`);
    expect(home.text).not.toContain('Legacy</a>');
    expect((await visit(`/s/${site.id}/llms.txt`)).text).not.toContain('Old page');
    const direct = await visit(`/s/${site.id}/legacy/old-page`);
    expect(direct.status).toBe(200);
    expect(direct.text).toContain('Legacy content.');
  });
});

describe('a share key as the first path segment (GitBook’s form, what urls.published hands out)', () => {
  it('opens the site at /s/<id>/<key>/..., keeps the key in its links, and the published URL of a share link leads there', async () => {
    const site = await publishedSite(org, [space.id], 'share-link', 'Segment partners');
    const link = expectStatus(await api('POST', `${site.path}/share-links`, { token: token(), body: { name: 'Segment' } }), 201).body;
    const key = shareKeyOf(link);
    expect(new URL(link.urls.published).search).toBe('');
    const home = await visit(`/s/${site.id}/${key}/welcome`);
    expect(home.status).toBe(200);
    expect(home.text).toContain('Hello visitors.');
    expect(home.headers.get('Cache-Control')).toBe('private, no-cache');
    // Links between its pages keep the key segment.
    expect(home.text).toContain(`/s/${site.id}/${key}/`);
    // The share link's own published URL (/sites/<org>/<basename>/<key>/) redirects there and opens.
    const published = await visit(new URL(link.urls.published).pathname);
    expect(published.status).toBe(301);
    const target = published.headers.get('Location')!;
    expect(target).toBe(`/s/${site.id}/${key}/`);
    expect([200, 302]).toContain((await visit(target)).status);
    // A wrong key in that position is the 404 page; the key of another site opens nothing.
    expect((await visit(`/s/${site.id}/not-a-key-0123456789abcdef/welcome`)).status).toBe(404);
    expect((await visit(`/s/${site.id}/welcome`)).status).toBe(404);
  });
});
