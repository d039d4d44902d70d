/**
 * Findings of the site's review, each with the test that failed before its fix: colors injected into the
 * theme's stylesheet, protocol-relative links through a backslash, an open redirect on an organization's
 * hostname, llms.txt lines made by titles, an emoji favicon that failed every page, customization links
 * to pages on the search page, highlighted code in the dark theme chosen with the toggle, the toggle's
 * label, and the favicon every page (the 404 one included) links.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultCustomization } from '../../src/services/sites/customization';
import { safeHref } from '../../src/site/html';
import { DARK_TOKENS, LIGHT_TOKENS, RENDER_CSS } from '../../src/site/render/styles';
import { contrast, themeCss } from '../../src/site/theme';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { grab, publishedSite, spaceWithPages, visit } from './helpers';

describe('the theme stylesheet', () => {
  it('a stored color that is not a hex color cannot leave its declaration', () => {
    const settings = structuredClone(defaultCustomization());
    (settings.styling.primaryColor as { light: string; dark: string }) = { light: 'red;}body{display:none', dark: '</style><script>alert(1)</script>' };
    const css = themeCss(settings);
    expect(css).not.toContain('body{');
    expect(css).not.toContain('</style');
    expect(css).not.toContain('<');
    for (const [, value] of css.matchAll(/--color-primary:([^;]*);/g)) expect(value).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('highlighted code and fixed colors follow the theme, the toggle’s included, and contrast with the code background', () => {
    // No fixed color in the rules of tokens, hints and color marks: custom properties only.
    for (const rule of RENDER_CSS.split('\n').filter((line) => /^\.doc.*(hljs-|doc-hint-(success|warning|danger)|\.doc-color-)/.test(line))) {
      expect(rule, rule).not.toMatch(/#[0-9a-f]{3,6}\b/i);
    }
    // Dark tokens for the system's dark preference (unless light was chosen) and for dark chosen with the toggle.
    const dark = Object.entries(DARK_TOKENS)
      .map(([name, value]) => `${name}: ${value};`)
      .join(' ');
    expect(RENDER_CSS).toContain(`@media (prefers-color-scheme: dark) { :root:not([data-theme=light]) { ${dark} } }`);
    expect(RENDER_CSS).toContain(`:root[data-theme=dark] { ${dark} }`);
    for (const [name, value] of Object.entries(LIGHT_TOKENS)) {
      if (name.startsWith('--hljs-')) expect(contrast(value, '#f4f6f8'), `${name} light`).toBeGreaterThanOrEqual(4.5);
    }
    for (const [name, value] of Object.entries(DARK_TOKENS)) {
      if (name.startsWith('--hljs-')) expect(contrast(value, '#1b2027'), `${name} dark`).toBeGreaterThanOrEqual(4.5);
    }
    // The theme's code backgrounds are the ones measured.
    const css = themeCss(defaultCustomization());
    expect(css).toContain('--color-code-bg:#f4f6f8');
    expect(css).toContain('--color-code-bg:#1b2027');
  });
});

describe('safeHref', () => {
  it('refuses relative URLs a browser reads as another host', () => {
    expect(safeHref('/\\evil.example/')).toBeNull();
    expect(safeHref('/\t/evil.example/')).toBeNull();
    expect(safeHref('//evil.example/')).toBeNull();
    expect(safeHref('/docs/page?x=1#a')).toBe('/docs/page?x=1#a');
  });
});

describe('a site with hostile customization', () => {
  let org: TestOrg;
  let space: { id: string; pages: Record<string, string> };
  let site: { id: string; basename: string; path: string };

  beforeAll(async () => {
    org = await seedOrg();
    space = await spaceWithPages(org, 'Guide', [
      { operation: 'insert_page', title: 'Welcome', document: { markdown: 'Hello.\n' } },
      { operation: 'insert_page', title: 'Pricing', document: { markdown: 'Plans.\n' } },
    ]);
    site = await publishedSite(org, [space.id]);
  });

  const customize = async (body: unknown) => expectStatus(await api('PUT', `${site.path}/customization`, { token: org.owner.token, body }), 200);

  it('customization links to pages lead to them from the search page too', async () => {
    const pricing = space.pages.Pricing;
    await customize({
      header: { links: [{ title: 'Prices', to: { kind: 'page', page: pricing, space: space.id } }] },
      footer: { groups: [{ title: 'More', links: [{ title: 'Plans', to: { kind: 'anchor', page: pricing, space: space.id, anchor: 'top' } }] }] },
      announcement: { enabled: true, message: 'New plans', style: 'info', link: { title: 'See them', to: { kind: 'page', page: pricing, space: space.id } } },
    });
    const link = `/s/${site.id}/~page/${space.id}/${pricing}`;
    const searchPage = await visit(`/s/${site.id}/~search?q=plans`);
    expect(searchPage.status).toBe(200);
    expect(searchPage.text).toContain(`<a href="${link}">Prices</a>`);
    expect(searchPage.text).toContain(`<a href="${link}#top">Plans</a>`);
    expect(searchPage.text).toContain(`<a href="${link}">See them</a>`);
    expect(searchPage.text).not.toContain('<span>Prices</span>');
    const followed = await visit(link);
    expect(followed.status).toBe(302);
    expect(followed.headers.get('Location')).toBe(`/s/${site.id}/pricing`);
    // On a page, the same links lead to the page directly.
    expect((await visit(`/s/${site.id}/welcome`)).text).toContain(`<a href="/s/${site.id}/pricing">Prices</a>`);
  });

  it('llms.txt: a title cannot add lines or links of its own', async () => {
    await customize({ title: 'Acme\n- [Click](javascript:alert(1))\r\n# Owned' });
    const res = await visit(`/s/${site.id}/llms.txt`);
    expect(res.status).toBe(200);
    const lines = res.text.split(/\r?\n|\r/);
    expect(lines[0]).toBe('# Acme - [Click](javascript:alert(1)) # Owned');
    expect(lines.filter((line) => line.startsWith('- ')).every((line) => line.includes(`/s/${site.id}/`))).toBe(true);
    expect(lines.filter((line) => line.startsWith('# '))).toHaveLength(1);
  });

  it('an emoji favicon beyond Unicode is the built-in icon, not a failed page', async () => {
    await customize({ title: 'Acme Docs', favicon: { emoji: 'ffffff' } });
    const res = await visit(`/s/${site.id}/welcome`);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/<link rel="icon" href="\/_site\/[0-9a-f]{16}\.svg" type="image\/svg\+xml">/);
    await customize({ favicon: { emoji: '1f4d8' } });
    expect((await visit(`/s/${site.id}/welcome`)).text).toContain('<link rel="icon" href="data:image/svg+xml,');
  });

  it('every page links a favicon that exists: pages without one of their own and the 404 page', async () => {
    await customize({ favicon: {} });
    const page = await visit(`/s/${site.id}/welcome`);
    const icon = grab(page.text, /<link rel="icon" href="([^"]+)"/);
    expect(icon).toMatch(/^\/_site\/[0-9a-f]{16}\.svg$/);
    const served = await visit(icon!);
    expect(served.status).toBe(200);
    expect(served.headers.get('Content-Type')).toBe('image/svg+xml');
    expect(served.headers.get('Cache-Control')).toContain('immutable');
    expect(served.text).toMatch(/^<svg /);
    const missing = await visit(`/s/${site.id}/no-such-page`);
    expect(missing.status).toBe(404);
    expect(grab(missing.text, /<link rel="icon" href="([^"]+)"/)).toBe(icon);
    expect(missing.headers.get('Content-Security-Policy')).toContain("img-src 'self'");
    const unknown = await visit('/s/no-such-site/');
    expect(grab(unknown.text, /<link rel="icon" href="([^"]+)"/)).toBe(icon);
    const search = await visit(`/s/${site.id}/~search`);
    expect(grab(search.text, /<link rel="icon" href="([^"]+)"/)).toBe(icon);
  });

  it('the theme toggle’s label and aria-pressed follow the theme showing', async () => {
    await customize({ themes: { toggeable: true, default: 'dark' } });
    const darkPage = await visit(`/s/${site.id}/welcome`);
    expect(darkPage.text).toContain('<button id="theme-toggle" type="button" hidden aria-pressed="true">Dark mode</button>');
    await customize({ themes: { toggeable: true, default: 'light' } });
    const lightPage = await visit(`/s/${site.id}/welcome`);
    expect(lightPage.text).toContain('<button id="theme-toggle" type="button" hidden aria-pressed="false">Light mode</button>');
    const script = await visit(grab(lightPage.text, /<script src="([^"]+)"/)!);
    expect(script.text).toContain('"Dark mode":"Light mode"');
    expect(script.text).toContain('"aria-pressed"');
    expect(script.text).toContain('addEventListener("change"');
  });
});

describe('an organization’s hostname', () => {
  it('moving credentials from the URL to cookies never redirects to another host', async () => {
    const hostOrg = await seedOrg();
    const space = await spaceWithPages(hostOrg, 'Host docs', [{ operation: 'insert_page', title: 'Home', document: { markdown: 'Root.\n' } }]);
    const hosted = await publishedSite(hostOrg, [space.id], 'public', 'Hosted');
    const hostname = `rv${Date.now().toString(36)}`.slice(0, 30);
    expectStatus(await api('PATCH', `/v1/orgs/${hostOrg.id}`, { token: hostOrg.owner.token, body: { hostname, defaultContent: { type: 'site', site: hosted.id } } }), 200);
    const base = `http://${hostname}.sites.test`;
    for (const path of ['//evil.example/?jwt_token=x', '//evil.example?share=abc&a=1']) {
      const res = await visit(path, {}, base);
      expect(res.status, path).toBe(302);
      const location = res.headers.get('Location')!;
      expect(location, path).toMatch(/^\/(?![/\\])/);
      expect(new URL(location, base).host, path).toBe(`${hostname}.sites.test`);
    }
  });
});
