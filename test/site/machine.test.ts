/**
 * The site for machines and its search: llms.txt, each page as Markdown (`.md`), sitemap.xml (public
 * sites only), robots.txt (noindex for unlisted and protected sites), and the search page over the
 * index of the spaces the visitor may see.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { grab, publishedSite, shareKeyOf, spaceWithPages, visit, visitCounting } from './helpers';

let org: TestOrg;
let site: { id: string; path: string };
let handbook: { id: string; pages: Record<string, string> };

beforeAll(async () => {
  org = await seedOrg();
  handbook = await spaceWithPages(org, 'Handbook', [
    { operation: 'insert_page', ref: 'a', title: 'Getting started', description: 'The first steps', document: { markdown: 'Install the **quasar** tool.\n\n## Nebula setup\n\nConfigure the nebula cluster.\n' } },
    { operation: 'insert_page', into: 'a', title: 'Deep [dive]', document: { markdown: 'Quasar internals.\n' } },
    { operation: 'insert_page', title: 'Hidden page', hidden: true, document: { markdown: 'Quasar secrets.\n' } },
    { operation: 'insert_page', title: 'Only pros', condition: 'visitor.claims.pro == true', document: { markdown: 'Quasar for pros.\n' } },
    { operation: 'insert_page', title: 'Not indexed', noIndex: true, document: { markdown: 'Plain.\n' } },
  ]);
  site = await publishedSite(org, [handbook.id], 'public', 'Machine Docs');
});

describe('llms.txt', () => {
  it('lists the site’s visible pages with absolute links to their Markdown and their descriptions', async () => {
    const res = await visit(`/s/${site.id}/llms.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
    const lines = res.text.split('\n');
    expect(lines[0]).toBe('# Machine Docs');
    expect(res.text).toContain('## Handbook');
    expect(res.text).toContain(`- [Getting started](${BASE}/s/${site.id}/getting-started.md): The first steps`);
    expect(res.text).toContain(`- [Deep \\[dive\\]](${BASE}/s/${site.id}/getting-started/deep-dive.md)`);
    expect(res.text).not.toContain('Hidden page');
    expect(res.text).not.toContain('Only pros');
  });
});

describe('llms.txt headings', () => {
  it('a site named like its only space: the section is "Pages", not the title twice', async () => {
    const only = await spaceWithPages(org, 'Same Name', [{ operation: 'insert_page', title: 'Intro', document: { markdown: 'Hello.\n' } }]);
    const same = await publishedSite(org, [only.id], 'public', 'Same Name');
    const text = (await visit(`/s/${same.id}/llms.txt`)).text;
    expect(text.split('\n').slice(0, 5)).toEqual(['# Same Name', '', '## Pages', '', `- [Intro](${BASE}/s/${same.id}/intro.md)`]);
  });
});

describe('llms-full.txt', () => {
  /** A page's `.md` as served, without its front matter. */
  const markdownOf = async (path: string) => (await visit(`/s/${site.id}/${path}.md`)).text.replace(/^---\n[\s\S]*?\n---\n\n?/, '').trimEnd();

  it('every page llms.txt lists, in its order, as its .md serves it (the same converter), without front matter', async () => {
    const res = await visitCounting(`/s/${site.id}/llms-full.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
    const expected = [await markdownOf('getting-started'), await markdownOf('getting-started/deep-dive'), await markdownOf('not-indexed')];
    expect(expected[0]).toContain('Install the **quasar** tool.');
    expect(res.text).toBe(`${expected.join('\n\n')}\n`);
    expect(res.text).not.toContain('description: The first steps');
    // The site's model, the trees, then the pages' documents in one batch.
    expect(res.roundTrips).toBeLessThanOrEqual(3);
  });

  it('leaves out hidden pages and pages the visitor’s claims do not open; a share-link site needs its key', async () => {
    const res = await visit(`/s/${site.id}/llms-full.txt`);
    expect(res.text).not.toContain('Quasar secrets.');
    expect(res.text).not.toContain('Quasar for pros.');
    const shared = await publishedSite(org, [handbook.id], 'share-link', 'Shared full docs');
    const link = expectStatus(await api('POST', `${shared.path}/share-links`, { token: org.owner.token, body: { name: 'Bots' } }), 201).body;
    expect((await visit(`/s/${shared.id}/llms-full.txt`)).status).toBe(404);
    const keyed = await visit(`/s/${shared.id}/llms-full.txt`, { Cookie: `site_share_${shared.id}=${shareKeyOf(link)}` });
    expect(keyed.status).toBe(200);
    expect(keyed.text).toContain('Install the **quasar** tool.');
  });
});

describe('pages as Markdown', () => {
  it('at the page’s URL with .md: the title, the description as frontmatter, the body', async () => {
    const res = await visit(`/s/${site.id}/getting-started.md`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/markdown; charset=utf-8');
    expect(res.text).toContain('description: The first steps');
    expect(res.text).toContain('# Getting started');
    expect(res.text).toContain('Install the **quasar** tool.');
    expect(res.text).toContain('## Nebula setup');
    expect((await visit(`/s/${site.id}/getting-started/deep-dive.md`)).text).toContain('Quasar internals.');
  });

  it('the same visibility as the HTML: a page hidden by its condition is not there', async () => {
    expect((await visit(`/s/${site.id}/only-pros.md`)).status).toBe(404);
    expect((await visit(`/s/${site.id}/no-such-page.md`)).status).toBe(404);
  });
});

describe('sitemap.xml and robots.txt', () => {
  it('the sitemap of a public site: every listed, indexable page, absolute', async () => {
    const res = await visit(`/s/${site.id}/sitemap.xml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/xml; charset=utf-8');
    expect(res.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    expect(res.text).toContain(`<loc>${BASE}/s/${site.id}/getting-started</loc>`);
    expect(res.text).toContain(`<loc>${BASE}/s/${site.id}/getting-started/deep-dive</loc>`);
    expect(res.text).not.toContain('hidden-page');
    expect(res.text).not.toContain('only-pros');
    expect(res.text).not.toContain('not-indexed');
  });

  it('robots.txt of a public site allows and names the sitemap', async () => {
    const res = await visit(`/s/${site.id}/robots.txt`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(`User-agent: *\nAllow: /\n\nSitemap: ${BASE}/s/${site.id}/sitemap.xml\n`);
  });

  it('unlisted sites: no sitemap, robots.txt disallows everything', async () => {
    const unlisted = await publishedSite(org, [handbook.id], 'unlisted', 'Unlisted docs');
    expect((await visit(`/s/${unlisted.id}/sitemap.xml`)).status).toBe(404);
    const robots = await visit(`/s/${unlisted.id}/robots.txt`);
    expect(robots.status).toBe(200);
    expect(robots.text).toBe('User-agent: *\nDisallow: /\n');
    expect(robots.headers.get('X-Robots-Tag')).toBe('noindex');
  });

  it('share-link sites: the machine views need the key like the pages', async () => {
    const shared = await publishedSite(org, [handbook.id], 'share-link', 'Shared docs');
    const link = expectStatus(await api('POST', `${shared.path}/share-links`, { token: org.owner.token, body: { name: 'Bots' } }), 201).body;
    const key = shareKeyOf(link);
    expect((await visit(`/s/${shared.id}/llms.txt`)).status).toBe(404);
    const cookie = { Cookie: `site_share_${shared.id}=${key}` };
    expect((await visit(`/s/${shared.id}/robots.txt`, cookie)).text).toBe('User-agent: *\nDisallow: /\n');
    expect((await visit(`/s/${shared.id}/llms.txt`, cookie)).text).toContain('Getting started');
    expect((await visit(`/s/${shared.id}/sitemap.xml`, cookie)).status).toBe(404);
  });
});

describe('search', () => {
  it('finds pages through the index, with links to their sections and escaped snippets', async () => {
    const res = await visit(`/s/${site.id}/~search?q=nebula`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Results for “nebula”</h1>');
    const results = grab(res.text, /<ol class="results">([\s\S]*?)<\/ol>/)!;
    expect(results).toContain(`<h2><a href="/s/${site.id}/getting-started">Getting started</a></h2>`);
    expect(results).toContain(`<a href="/s/${site.id}/getting-started#nebula-setup">Nebula setup</a>`);
    expect(results).toContain('Configure the nebula cluster.');
    expect(res.headers.get('X-Robots-Tag')).toBeNull();
    expect(res.text).toContain('<meta name="robots" content="noindex">');
  });

  it('leaves out hidden pages and pages the visitor’s claims do not open', async () => {
    const res = await visit(`/s/${site.id}/~search?q=quasar`);
    expect(res.text).toContain('Getting started</a>');
    expect(res.text).toContain('Deep [dive]</a>');
    expect(res.text).not.toContain('Hidden page');
    expect(res.text).not.toContain('Only pros');
  });

  it('the query is escaped, and the API’s limits apply', async () => {
    const res = await visit(`/s/${site.id}/~search?q=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<img src=x');
    expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const long = await visit(`/s/${site.id}/~search?q=${'a'.repeat(600)}`);
    expect(long.status).toBe(400);
    expect(long.text).toContain('at most 512 characters');
    const empty = await visit(`/s/${site.id}/~search?q=`);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('<h1>Search</h1>');
  });
});
