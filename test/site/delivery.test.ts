/**
 * How the site is delivered: ETag and 304, Cache-Control, the Content-Security-Policy (the theme's inline
 * stylesheet allowed by its hash), the Cache API for sites anyone may read (a hit, and a miss once the
 * site or a space's head changes), the D1 round trips per view, the size of a typical page, the static
 * assets, hostile paths, and the site of an organization's hostname at that host's root.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cspHash } from '../../src/site/assets';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { grab, publishPages, publishedSite, shareKeyOf, spaceWithPages, visit, visitCounting } from './helpers';
import { fetchWorker } from '../helpers/worker';

let org: TestOrg;
let handbook: { id: string; pages: Record<string, string> };
let site: { id: string; path: string };

const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} of a typical page, with **bold** text, \`code\` and a [link](https://example.com/${i}).`).join('\n\n');

beforeAll(async () => {
  org = await seedOrg();
  handbook = await spaceWithPages(org, 'Handbook', [
    { operation: 'insert_page', title: 'Welcome', document: { markdown: `Welcome text.\n\n## Part one\n\n${paragraphs}\n\n## Part two\n\n\`\`\`js\nconsole.log("hi");\n\`\`\`\n` } },
    ...Array.from({ length: 40 }, (_, i) => ({ operation: 'insert_page', title: `Topic ${i}`, document: { markdown: `Topic ${i}.\n` } })),
  ]);
  site = await publishedSite(org, [handbook.id], 'public', 'Delivery Docs');
});

describe('headers', () => {
  it('a strict Content-Security-Policy whose only inline source is the theme stylesheet, by its hash', async () => {
    const res = await visit(`/s/${site.id}/`);
    const csp = res.headers.get('Content-Security-Policy')!;
    const style = grab(res.text, /<style>([\s\S]*?)<\/style>/)!;
    expect(csp).toBe(
      `default-src 'none'; style-src 'self' ${await cspHash(style)}; script-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; connect-src 'self'`,
    );
    // No inline script, no inline event handler, no style attribute.
    expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(res.text).not.toMatch(/\son[a-z]+=/);
    expect(res.text).not.toMatch(/\sstyle=/);
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
  });

  it('an ETag answered with 304 by If-None-Match; public, max-age=60 for a public site', async () => {
    const res = await visit(`/s/${site.id}/welcome`);
    const etag = res.headers.get('ETag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=60');
    const again = await visit(`/s/${site.id}/welcome`, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('ETag')).toBe(etag);
    expect((await visit(`/s/${site.id}/welcome`, { 'If-None-Match': '"other"' })).status).toBe(200);
  });

  it('the ETag changes when the content does', async () => {
    const space = await spaceWithPages(org, 'Changing', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'One.\n' } }]);
    const changing = await publishedSite(org, [space.id], 'public', 'Changing site');
    const before = (await visit(`/s/${changing.id}/page`)).headers.get('ETag')!;
    await publishPages(space.id, org.owner.token, [{ operation: 'update_page', page: space.pages.Page, document: { markdown: 'Two.\n' } }]);
    const after = await visit(`/s/${changing.id}/page`, { 'If-None-Match': before });
    expect(after.status).toBe(200);
    expect(after.text).toContain('Two.');
    expect(after.headers.get('ETag')).not.toBe(before);
  });

  it('HEAD answers the headers; other methods 405', async () => {
    const { exports } = await import('cloudflare:workers');
    const head = await fetchWorker(new Request(`http://api.test/s/${site.id}/`, { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.headers.get('ETag')).toMatch(/^"/);
    const post = await fetchWorker(new Request(`http://api.test/s/${site.id}/`, { method: 'POST' }));
    expect(post.status).toBe(405);
    expect(post.headers.get('Allow')).toBe('GET, HEAD');
  });
});

describe('the Cache API and D1 round trips', () => {
  it('a page view costs at most 3 round trips; a 304 and a cache hit cost 1', async () => {
    const space = await spaceWithPages(org, 'Counted', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Counted.\n' } }]);
    const counted = await publishedSite(org, [space.id], 'public', 'Counted site');
    const first = await visitCounting(`/s/${counted.id}/page`);
    expect(first.status).toBe(200);
    expect(first.headers.get('X-Site-Cache')).toBe('miss');
    expect(first.roundTrips).toBeLessThanOrEqual(3);
    expect(first.roundTrips).toBe(3); // the site, the space's tree, the page's document

    const hit = await visitCounting(`/s/${counted.id}/page`);
    expect(hit.status).toBe(200);
    expect(hit.headers.get('X-Site-Cache')).toBe('hit');
    expect(hit.text).toBe(first.text);
    expect(hit.roundTrips).toBe(1);

    const notModified = await visitCounting(`/s/${counted.id}/page`, { 'If-None-Match': first.headers.get('ETag')! });
    expect(notModified.status).toBe(304);
    expect(notModified.roundTrips).toBe(1);
  });

  it('a changed head misses the cache: the new content is served', async () => {
    const space = await spaceWithPages(org, 'Cached', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Old text.\n' } }]);
    const cached = await publishedSite(org, [space.id], 'public', 'Cached site');
    expect((await visitCounting(`/s/${cached.id}/page`)).text).toContain('Old text.');
    expect((await visitCounting(`/s/${cached.id}/page`)).headers.get('X-Site-Cache')).toBe('hit');
    await publishPages(space.id, org.owner.token, [{ operation: 'update_page', page: space.pages.Page, document: { markdown: 'New text.\n' } }]);
    const after = await visitCounting(`/s/${cached.id}/page`);
    expect(after.headers.get('X-Site-Cache')).toBe('miss');
    expect(after.text).toContain('New text.');
  });

  it('a changed site misses the cache: its new customization is served', async () => {
    const space = await spaceWithPages(org, 'Styled', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Styled.\n' } }]);
    const styled = await publishedSite(org, [space.id], 'public', 'Styled site');
    await visitCounting(`/s/${styled.id}/page`);
    expect((await visitCounting(`/s/${styled.id}/page`)).headers.get('X-Site-Cache')).toBe('hit');
    expectStatus(await api('PUT', `${styled.path}/customization`, { token: org.owner.token, body: { title: 'Restyled site' } }), 200);
    const after = await visitCounting(`/s/${styled.id}/page`);
    expect(after.headers.get('X-Site-Cache')).toBe('miss');
    expect(after.text).toContain('<title>Page | Restyled site</title>');
    // Unpublishing is a change too: nothing cached is served any more.
    expectStatus(await api('POST', `${styled.path}/unpublish`, { token: org.owner.token }), 200);
    expect((await visitCounting(`/s/${styled.id}/page`)).status).toBe(404);
  });

  it('share-link pages never enter the shared cache', async () => {
    const shared = await publishedSite(org, [handbook.id], 'share-link', 'Private cache');
    const link = expectStatus(await api('POST', `${shared.path}/share-links`, { token: org.owner.token, body: { name: 'x' } }), 201).body;
    const cookie = { Cookie: `site_share_${shared.id}=${shareKeyOf(link)}` };
    await visitCounting(`/s/${shared.id}/welcome`, cookie);
    const second = await visitCounting(`/s/${shared.id}/welcome`, cookie);
    expect(second.headers.get('X-Site-Cache')).toBeNull();
    expect(second.roundTrips).toBe(3);
  });

  it('llms.txt costs 2 round trips, search at most 3', async () => {
    expect((await visitCounting(`/s/${site.id}/llms.txt`)).roundTrips).toBeLessThanOrEqual(2);
    const search = await visitCounting(`/s/${site.id}/~search?q=topic`);
    expect(search.status).toBe(200);
    expect(search.roundTrips).toBeLessThanOrEqual(3);
  });

  it('a typical page is well under 100 KB', async () => {
    const res = await visit(`/s/${site.id}/welcome`);
    expect(res.status).toBe(200);
    expect(new TextEncoder().encode(res.text).byteLength).toBeLessThan(100 * 1024);
  });
});

describe('assets', () => {
  it('the stylesheet and the script: immutable, a year of cache, their types', async () => {
    const page = await visit(`/s/${site.id}/`);
    const css = grab(page.text, /<link rel="stylesheet" href="([^"]+)">/)!;
    const js = grab(page.text, /<script src="([^"]+)"><\/script>/)!;
    const style = await visit(css);
    expect(style.status).toBe(200);
    expect(style.headers.get('Content-Type')).toBe('text/css; charset=utf-8');
    expect(style.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
    // The theme's custom properties are what the block styles use.
    expect(style.text).toContain('var(--color-primary)');
    expect(style.text).toContain(':focus-visible');
    const script = await visit(js);
    expect(script.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain('theme-toggle');
    expect((await visit('/_site/0000000000000000.css')).status).toBe(404);
  });
});

describe('hostile paths', () => {
  it('never a 500: 404 or 400 HTML', async () => {
    const paths = [
      `/s/${site.id}/a/%2e%2e/b`,
      `/s/${site.id}/%2e%2e`,
      `/s/${site.id}/a%2Fb`,
      `/s/${site.id}/a%00b`,
      `/s/${site.id}/%E0%A4%A`,
      `/s/${site.id}/%ZZ`,
      `/s/${site.id}/${'a'.repeat(10_000)}`,
      `/s/${site.id}/${'a/'.repeat(3000)}`,
      `/s/${site.id}/~unknown`,
      `/s/${site.id}/~page/x/y`,
      `/s/${site.id}/~page/${handbook.id}/nope`,
      `/s/${'x'.repeat(300)}/`,
      `/s/%00/`,
      `/s/${site.id}/.md`,
      `/s/${site.id}/llms.txt/extra`,
      `/sites/${org.id}/${'b'.repeat(500)}/x`,
    ];
    for (const path of paths) {
      const res = await visit(path);
      expect([400, 404], `${path.slice(0, 80)}: ${res.status}`).toContain(res.status);
      expect(res.headers.get('Content-Type'), path.slice(0, 80)).toBe('text/html; charset=utf-8');
    }
  });

  it('a page link to another site space redirects to its page', async () => {
    const res = await visit(`/s/${site.id}/~page/${handbook.id}/${handbook.pages['Topic 3']}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('Location')).toBe(`/s/${site.id}/topic-3`);
  });
});

describe('an organization’s hostname', () => {
  it('serves its default content site at the root of <hostname>.<SITES_DOMAIN>, and nothing of the API there', async () => {
    const hostOrg = await seedOrg();
    const space = await spaceWithPages(hostOrg, 'Host docs', [
      { operation: 'insert_page', title: 'Home', document: { markdown: 'At the root of the host.\n' } },
      { operation: 'insert_page', title: 'Second', document: { markdown: 'Second page.\n' } },
    ]);
    const hosted = await publishedSite(hostOrg, [space.id], 'public', 'Hosted');
    const hostname = `docs${Date.now().toString(36)}`.slice(0, 30);
    expectStatus(await api('PATCH', `/v1/orgs/${hostOrg.id}`, { token: hostOrg.owner.token, body: { hostname, defaultContent: { type: 'site', site: hosted.id } } }), 200);
    const base = `http://${hostname}.sites.test`;
    const root = await visit('/', {}, base);
    expect(root.status).toBe(200);
    expect(root.text).toContain('At the root of the host.');
    expect(root.text).toContain('<a href="/second">Second</a>');
    const second = await visit('/second', {}, base);
    expect(second.text).toContain('Second page.');
    expect((await visit('/llms.txt', {}, base)).text).toContain(`- [Home](${base}/home.md)`);
    expect((await visit('/robots.txt', {}, base)).text).toContain(`Sitemap: ${base}/sitemap.xml`);
    // Nothing of the API there: its paths are the site's (here, its 404 page); an unknown host is none of the site's business.
    const document = await visit('/openapi.json', {}, base);
    expect(document.status).toBe(404);
    expect(document.headers.get('Content-Type')).toContain('text/html');
    const elsewhere = await visit('/second', {}, 'http://unknown-host-name');
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get('Content-Type')).toContain('application/json');
  });
});
