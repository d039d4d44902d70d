/**
 * The published site as HTML: URL scheme (sections, variants, pages), the layout's navigation (section
 * tabs, group menus, variant switcher, sidebar with hidden pages left out, aria-current, previous/next,
 * outline), the customization applied, and the `/sites/<org>/<basename>` redirect.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { grab, publishedSite, spaceWithPages, visit } from './helpers';

let org: TestOrg;
let guide: { id: string; pages: Record<string, string> };
let api2: { id: string; pages: Record<string, string> };
let apiV1: { id: string; pages: Record<string, string> };
let site: { id: string; basename: string; path: string };

const token = () => org.owner.token;

beforeAll(async () => {
  org = await seedOrg();
  guide = await spaceWithPages(org, 'Guide', [
    { operation: 'insert_page', ref: 'intro', title: 'Introduction', description: 'Start here', document: { markdown: 'Welcome to **Acme**.\n\n## Install\n\nRun it.\n\n## Configure\n\nSet it.\n' } },
    { operation: 'insert_page', ref: 'setup', title: 'Setup', document: { markdown: 'Setup text.\n' } },
    { operation: 'insert_page', into: 'setup', title: 'Advanced', document: { markdown: 'Deep `<script>alert(1)</script>` text & "quotes".\n' } },
    { operation: 'insert_page', title: 'Secret notes', hidden: true, document: { markdown: 'Hidden but reachable.\n' } },
    { operation: 'insert_page', title: 'Last', document: { markdown: 'The end. See [setup](/pages/SETUP).\n' } },
  ]);
  api2 = await spaceWithPages(org, 'API v2', [{ operation: 'insert_page', title: 'Endpoints', document: { markdown: 'Version two.\n' } }]);
  apiV1 = await spaceWithPages(org, 'API v1', [{ operation: 'insert_page', title: 'Endpoints', document: { markdown: 'Version one.\n' } }]);
  site = await publishedSite(org, [guide.id]);
  // The first section takes the root site spaces; then an API section with two variants, in a group.
  const apiSection = expectStatus(await api('POST', `${site.path}/sections`, { token: token(), body: { spaceId: api2.id, title: 'API reference' } }), 201).body;
  expectStatus(await api('PATCH', `${site.path}/sections/${apiSection.id}`, { token: token(), body: { path: 'api' } }), 200);
  const v1 = expectStatus(await api('POST', `${site.path}/site-spaces`, { token: token(), body: { spaceId: apiV1.id, sectionId: apiSection.id, title: 'Version 1' } }), 201).body;
  expectStatus(await api('PATCH', `${site.path}/site-spaces/${v1.id}`, { token: token(), body: { path: 'v1' } }), 200);
  expectStatus(await api('POST', `${site.path}/section-groups`, { token: token(), body: { title: 'Developers', sections: [apiSection.id] } }), 201);
  expectStatus(
    await api('PUT', `${site.path}/customization`, {
      token: token(),
      body: {
        title: 'Acme <Docs>',
        styling: { primaryColor: { light: '#ff00aa', dark: '#00ffaa' } },
        header: { links: [{ title: 'Status "page"', to: { kind: 'url', url: 'https://status.example.com' } }] },
        footer: { groups: [{ title: 'Company', links: [{ title: 'About us', to: { kind: 'url', url: 'https://example.com/about' } }] }], copyright: '© Acme' },
        announcement: { enabled: true, message: 'New <b>release</b>!', style: 'info' },
      },
    }),
    200,
  );
});

describe('URLs and navigation', () => {
  it('the site root is the default section’s default site space’s first page', async () => {
    const res = await visit(`/s/${site.id}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(res.text).toMatch(/^<!doctype html>/);
    expect(res.text).toContain('<html lang="en"');
    expect(grab(res.text, /<h1>([^<]*)<\/h1>/)).toBe('Introduction');
    expect(res.text).toContain('<p class="description">Start here</p>');
    expect(res.text).toContain('<strong>Acme</strong>');
  });

  it('`/s/<id>` redirects to `/s/<id>/`', async () => {
    const res = await visit(`/s/${site.id}?x=1`);
    expect(res.status).toBe(301);
    expect(res.headers.get('Location')).toBe(`/s/${site.id}/?x=1`);
  });

  it('pages by their path, nested ones by their parents’ slugs', async () => {
    const setup = await visit(`/s/${site.id}/setup`);
    expect(grab(setup.text, /<h1>([^<]*)<\/h1>/)).toBe('Setup');
    const advanced = await visit(`/s/${site.id}/setup/advanced`);
    expect(advanced.status).toBe(200);
    expect(grab(advanced.text, /<h1>([^<]*)<\/h1>/)).toBe('Advanced');
    // Document text is text: markup typed into a page is shown, never run.
    expect(advanced.text).not.toContain('<script>alert(1)');
    expect(advanced.text).toMatch(/<code>(&lt;|&#x3C;)script(&gt;|>)alert\(1\)/);
    // Breadcrumbs to the parent.
    expect(advanced.text).toMatch(/<nav class="breadcrumbs"[^>]*><ol><li><a href="\/s\/[^/]+\/setup">Setup<\/a>/);
  });

  it('sections and variants by their paths; the default variant has no segment', async () => {
    const v2 = await visit(`/s/${site.id}/api/`);
    expect(v2.status).toBe(200);
    expect(v2.text).toContain('Version two.');
    const v1 = await visit(`/s/${site.id}/api/v1/endpoints`);
    expect(v1.status).toBe(200);
    expect(v1.text).toContain('Version one.');
    // Compared without case, like the API's paths.
    expect((await visit(`/s/${site.id}/API/V1/endpoints`)).text).toContain('Version one.');
  });

  it('section tabs, the group as a menu, the variant switcher, aria-current', async () => {
    const res = await visit(`/s/${site.id}/api/v1/endpoints`);
    const tabs = grab(res.text, /<nav aria-label="Sections">([\s\S]*?)<\/nav>/)!;
    expect(tabs).toContain(`<a href="/s/${site.id}/">`);
    expect(tabs).toMatch(/<details class="menu"><summary>Developers<\/summary><ul><li><a href="\/s\/[^/]+\/api\/" aria-current="page">API reference<\/a>/);
    const switcher = grab(res.text, /<details class="menu variants">([\s\S]*?)<\/details>/)!;
    expect(switcher).toContain(`<a href="/s/${site.id}/api/">API v2</a>`);
    expect(switcher).toContain(`<a href="/s/${site.id}/api/v1/" aria-current="true">Version 1</a>`);
    const sidebar = grab(res.text, /<nav class="sidebar" aria-label="Pages">([\s\S]*?)<\/nav>/)!;
    expect(sidebar).toContain(`<a href="/s/${site.id}/api/v1/endpoints" aria-current="page">Endpoints</a>`);
  });

  it('the sidebar nests the page tree and leaves hidden pages out; hidden pages stay reachable', async () => {
    const res = await visit(`/s/${site.id}/setup`);
    const sidebar = grab(res.text, /<nav class="sidebar" aria-label="Pages">([\s\S]*?)<\/nav>/)!;
    expect(sidebar).toContain(`<li><a href="/s/${site.id}/setup" aria-current="page">Setup</a><ul><li><a href="/s/${site.id}/setup/advanced">Advanced</a></li></ul></li>`);
    expect(sidebar).not.toContain('Secret notes');
    const hidden = await visit(`/s/${site.id}/secret-notes`);
    expect(hidden.status).toBe(200);
    expect(hidden.text).toContain('Hidden but reachable.');
  });

  it('previous and next follow the listed pages in reading order', async () => {
    const setup = await visit(`/s/${site.id}/setup`);
    const nav = grab(setup.text, /<nav class="pagination"[^>]*>([\s\S]*?)<\/nav>/)!;
    expect(nav).toContain(`<a class="previous" rel="prev" href="/s/${site.id}/introduction"><small>Previous</small>Introduction</a>`);
    expect(nav).toContain(`<a class="next" rel="next" href="/s/${site.id}/setup/advanced"><small>Next</small>Advanced</a>`);
    // The hidden page is skipped.
    const advanced = await visit(`/s/${site.id}/setup/advanced`);
    expect(grab(advanced.text, /<nav class="pagination"[^>]*>([\s\S]*?)<\/nav>/)).toContain(`href="/s/${site.id}/last"`);
    const first = await visit(`/s/${site.id}/`);
    expect(first.text).not.toContain('rel="prev"');
  });

  it('the outline lists the page’s headings with their anchors', async () => {
    const res = await visit(`/s/${site.id}/introduction`);
    const outline = grab(res.text, /<aside class="outline"[^>]*>([\s\S]*?)<\/aside>/)!;
    expect(outline).toContain('<a href="#install">Install</a>');
    expect(outline).toContain('<a href="#configure">Configure</a>');
    // `## Install` is a heading 1 (GitBook's levels: `#` is the page title), rendered as h2.
    expect(res.text).toMatch(/<h2 id="install"/);
  });

  it('links to the Markdown of the page', async () => {
    const res = await visit(`/s/${site.id}/setup/advanced`);
    expect(res.text).toContain(`<link rel="alternate" type="text/markdown" href="/s/${site.id}/setup/advanced.md">`);
  });

  it('landmarks, a skip link and a search form that works without script', async () => {
    const res = await visit(`/s/${site.id}/`);
    for (const landmark of ['<header class="site-header">', '<main id="main"', '<footer class="site-footer">', '<nav class="sidebar" aria-label="Pages">']) {
      expect(res.text).toContain(landmark);
    }
    expect(res.text).toContain('<a class="skip" href="#main">Skip to content</a>');
    expect(res.text).toContain(`<form class="search" role="search" action="/s/${site.id}/~search" method="get">`);
    expect(res.text).toMatch(/<script src="\/_site\/[0-9a-f]{16}\.js"><\/script>/);
    expect(res.text).toMatch(/<link rel="stylesheet" href="\/_site\/[0-9a-f]{16}\.css">/);
  });
});

describe('customization', () => {
  it('title, colors as CSS custom properties for both themes, header and footer links, announcement: all escaped', async () => {
    const res = await visit(`/s/${site.id}/`);
    expect(res.text).toContain('<title>Introduction | Acme &lt;Docs&gt;</title>');
    expect(res.text).toContain('<span>Acme &lt;Docs&gt;</span>'.replace('<span>', '').replace('</span>', '')); // brand text
    const style = grab(res.text, /<style>([\s\S]*?)<\/style>/)!;
    expect(style).toContain('--color-primary:#ff00aa');
    expect(style).toContain('--color-primary:#00ffaa');
    expect(style).toContain('prefers-color-scheme: dark');
    expect(style).toContain(':root[data-theme=dark]');
    // White on a pink primary fails contrast less than black does: the text on it is readable either way.
    expect(style).toMatch(/--color-on-primary:#(ffffff|111111)/);
    expect(res.text).toContain('<a href="https://status.example.com/">Status &quot;page&quot;</a>');
    expect(res.text).toContain('<h2 id="footer-0">Company</h2>');
    expect(res.text).toContain('<a href="https://example.com/about">About us</a>');
    expect(res.text).toContain('<p class="copyright">© Acme</p>');
    expect(res.text).toContain('New &lt;b&gt;release&lt;/b&gt;!');
    expect(res.text).not.toContain('<b>release</b>');
  });

  it('the link color reaches 4.5:1 against the background even for a light primary color', async () => {
    const { contrast } = await import('../../src/site/theme');
    const res = await visit(`/s/${site.id}/`);
    const style = grab(res.text, /<style>([\s\S]*?)<\/style>/)!;
    const light = grab(style, /^:root\{([^}]*)\}/)!;
    const link = grab(light, /--color-link:(#[0-9a-f]{6})/)!;
    const bg = grab(light, /--color-bg:(#[0-9a-f]{6})/)!;
    expect(contrast(link, bg)).toBeGreaterThanOrEqual(4.5);
  });
});

describe('the published URLs of the API', () => {
  it('`/sites/<org>/<basename>/...` redirects to `/s/<siteId>/...` with its query', async () => {
    const res = await visit(`/sites/${org.id}/${site.basename}/api/v1?shareKey=abc`);
    expect(res.status).toBe(301);
    expect(res.headers.get('Location')).toBe(`/s/${site.id}/api/v1?shareKey=abc`);
    const root = await visit(`/sites/${org.id}/${site.basename}`);
    expect(root.headers.get('Location')).toBe(`/s/${site.id}/`);
    const published = expectStatus(await api('GET', site.path, { token: token() }), 200).body;
    expect(new URL(published.urls.published).pathname).toBe(`/sites/${org.id}/${site.basename}/`);
  });

  it('an unknown basename is the 404 page', async () => {
    const res = await visit(`/sites/${org.id}/nope`);
    expect(res.status).toBe(404);
    expect(res.text).toContain('<h1>Page not found</h1>');
  });
});

describe('API reference pages computed from an OpenAPI spec', () => {
  it('are expanded in the sidebar and rendered from the spec’s latest version', async () => {
    const { seedSpec, seedSpecVersion } = await import('../helpers/openapi');
    const spec = await seedSpec(org.id);
    await seedSpecVersion(spec.id, {
      title: 'Petstore',
      version: '1.0.0',
      description: 'The **Petstore** API.',
      tags: [{ name: 'pets', description: 'Everything about pets', operations: [{ path: '/pets', method: 'get', summary: 'List pets' }] }],
      schemas: ['Pet'],
    });
    const space = await spaceWithPages(org, 'Reference', [
      { operation: 'insert_page', title: 'Overview', document: { markdown: 'Read on.\n' } },
      {
        operation: 'insert_page',
        title: 'API reference',
        computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: spec.slug } } }, props: { models: true } },
      },
    ]);
    const ref = await publishedSite(org, [space.id], 'public', 'Reference site');
    const overview = await visit(`/s/${ref.id}/`);
    expect(overview.status).toBe(200);
    const sidebar = grab(overview.text, /<nav class="sidebar" aria-label="Pages">([\s\S]*?)<\/nav>/)!;
    expect(sidebar).toContain(`<a href="/s/${ref.id}/api-reference">API reference</a>`);
    const pets = /<a href="(\/s\/[^"]+\/api-reference\/[^"]+)">pets<\/a>/i.exec(sidebar);
    expect(pets, sidebar).not.toBeNull();
    const tag = await visit(pets![1]);
    expect(tag.status).toBe(200);
    expect(tag.text).toContain('/pets');
    expect((await visit(`/s/${ref.id}/api-reference`)).text).toContain('Petstore');
  });
});

describe('files and links in pages', () => {
  it('images get signed URLs of the Worker; links to pages of the space become site URLs', async () => {
    const { applyChanges, createSpace, merge, openChangeRequest, PNG_1x1 } = await import('../helpers/content');
    const space = await createSpace(org.id, token(), 'Pictures');
    const cr = await openChangeRequest(space.id, token(), 'Files');
    const added = await applyChanges(space.id, cr.number, token(), [{ operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_1x1 }] }]);
    const fileId = added.insertedFiles[0].id;
    const target = await applyChanges(space.id, cr.number, token(), [{ operation: 'insert_page', title: 'Target', document: { markdown: 'Target page.\n' } }]);
    const targetId = target.changes[0].page.id;
    await applyChanges(space.id, cr.number, token(), [
      { operation: 'insert_page', title: 'Gallery', document: { markdown: `![A dot](/files/${fileId})\n\nSee [the target](/pages/${targetId}).\n` } },
    ]);
    expectStatus(await merge(space.id, cr.number, token()), 200);
    const pictures = await publishedSite(org, [space.id], 'public', 'Pictures site');
    const res = await visit(`/s/${pictures.id}/gallery`);
    expect(res.status).toBe(200);
    const src = grab(res.text, /<img[^>]*src="([^"]+)"/)!;
    expect(src).toMatch(/^http:\/\/api\.test\/files\/[0-9a-f]{64}\/dot\.png\?/);
    expect(res.text).toMatch(/<img[^>]*alt="A dot"/);
    expect(res.text).toContain(`href="/s/${pictures.id}/target"`);
    const image = await visit(src.replace('http://api.test', '').replace(/&amp;|&#x26;/g, '&'));
    expect(image.status).toBe(200);
    expect(image.headers.get('Content-Type')).toBe('image/png');
  });
});

describe('canonical URLs', () => {
  it('the site root names its first page’s own URL as canonical', async () => {
    const res = await visit(`/s/${site.id}/`);
    expect(res.text).toContain(`<link rel="canonical" href="http://api.test/s/${site.id}/introduction">`);
  });
});
