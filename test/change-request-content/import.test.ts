/**
 * Website import into a change request (GitBook's importContentInChangeRequest):
 * POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import.
 * The website is a stand-in behind the outbound guard's fetch seam: nothing leaves the machine.
 * Every effect is read back through the API.
 */
import spec0137 from 'gitbook-api-0137/spec/openapi.json';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setOutboundFetch } from '../../src/lib/outbound';
import { importWebsite } from '../../src/services/import/website';
import { PNG_1x1, createSpace, openChangeRequest, pageMarkdown } from '../helpers/content';
import { gitbookErrors, gitbookValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

const SITE = 'https://docs.example.com';
const png = Uint8Array.from(atob(PNG_1x1), (c) => c.charCodeAt(0));

const layout = (title: string, main: string) => `<!doctype html>
<html><head><title>${title}</title><style>body { color: red }</style><script>window.secret = "script text"</script></head>
<body>
  <header><a href="/">Example home</a> Header banner</header>
  <nav>
    <a href="/docs/">Docs</a>
    <a href="/docs/guide">Guide</a>
    <a href="/docs/guide/install">Install</a>
    <a href="/docs/old-guide">Old guide</a>
    <a href="/docs/metadata">Metadata</a>
    <a href="/docs/manual.pdf">Manual (PDF)</a>
    <a href="/blog/">Blog</a>
    <a href="https://other.example.net/docs/">Elsewhere</a>
    <a href="mailto:docs@example.com">Mail</a>
  </nav>
  ${main}
  <footer>Footer copyright text</footer>
</body></html>`;

/** The stand-in website: path -> answer. */
const PAGES: Record<string, () => Response> = {
  '/docs/': () =>
    html(
      layout(
        'Welcome',
        `<main>
          <h1>Welcome</h1>
          <p>Start with the <a href="guide">guide</a>, or read <a href="https://example.org/elsewhere">elsewhere</a>.</p>
          <p><img src="img/logo.png" alt="Logo"></p>
          <p><img src="http://127.0.0.1/secret.png" alt="Internal"></p>
          <ul><li>One</li><li>Two</li></ul>
        </main>`,
      ),
    ),
  '/docs/guide': () =>
    html(
      layout(
        'Guide',
        `<div class="sidebar">Sidebar outside the article</div><article>
          <h2>Overview</h2>
          <p>Read <a href="/docs/guide/install#requirements">the install page</a>. Same picture: <img src="/docs/img/logo.png" alt="Logo again"></p>
          <table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr></tbody></table>
        </article>`,
      ),
    ),
  '/docs/guide/install': () =>
    html(
      layout(
        'Install',
        `<main><h2 id="requirements">Requirements</h2><p>Back to <a href="/docs/">the start</a>.</p><pre><code class="language-sh">npm install</code></pre></main>`,
      ),
    ),
  '/docs/old-guide': () => new Response(null, { status: 301, headers: { location: '/docs/guide' } }),
  '/docs/metadata': () => new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }),
  '/docs/img/logo.png': () => new Response(png, { headers: { 'content-type': 'image/png' } }),
  '/blog/': () => html(layout('Blog', '<main><p>Not under the prefix</p></main>')),
};

function html(body: string, status = 200) {
  return new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8' } });
}

/** Every URL the stand-in was asked for, in order. */
let requested: string[] = [];

function website(request: Request): Promise<Response> {
  requested.push(request.url);
  const url = new URL(request.url);
  if (url.origin !== SITE) return Promise.resolve(new Response('not found', { status: 404 }));
  const page = PAGES[url.pathname];
  return Promise.resolve(page ? page() : new Response('not found', { status: 404 }));
}

let org: TestOrg;
let owner: string;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
  setOutboundFetch(website);
});

afterAll(() => {
  setOutboundFetch();
});

beforeEach(() => {
  requested = [];
});

const importPath = (spaceId: string, cr: string | number) => `/v1/spaces/${spaceId}/change-requests/${cr}/content/import`;
const postImport = (spaceId: string, cr: string | number, body: unknown, token: string | null = owner) => api('POST', importPath(spaceId, cr), { token, body });

async function fresh() {
  const space = await createSpace(org.id, owner);
  const cr = await openChangeRequest(space.id, owner);
  return { spaceId: space.id as string, cr };
}

describe('POST .../content/import (website)', () => {
  it('imports the pages under the prefix and their image as one new revision (201)', async () => {
    const { spaceId, cr } = await fresh();
    const res = expectStatus(await postImport(spaceId, cr.number, { url: `${SITE}/docs/`, source: 'website' }), 201);
    expect(res.body).toEqual({ revision: expect.any(String), importedResources: 4, totalResources: expect.any(Number) });
    expect(gitbookErrors(gitbookValidator('ImportContentResult', spec0137.components), res.body)).toBe('valid');
    // Pages found: /docs/, guide, install, old-guide (a redirect to guide), metadata (a redirect refused at
    // the hop: skipped, not fatal); images: logo and the internal one.
    expect(res.body.totalResources).toBe(7);
    expect(res.headers.get('location')).toBe(`http://api.test/v1/spaces/${spaceId}/change-requests/${cr.id}/content`);

    // Nothing outside the origin and prefix was fetched, nor the PDF, nor the internal address.
    const paths = requested.map((u) => new URL(u).href);
    expect(paths).not.toContain(`${SITE}/blog/`);
    expect(paths).not.toContain(`${SITE}/docs/manual.pdf`);
    expect(paths.some((u) => /127\.0\.0\.1|169\.254|other\.example|example\.org/.test(u))).toBe(false);
    expect(paths).toContain(`${SITE}/docs/metadata`);
    expect(paths.filter((u) => u === `${SITE}/docs/img/logo.png`)).toHaveLength(1);

    // The change request's head is the new revision.
    const changeRequest = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}`, { token: owner }), 200).body;
    expect(changeRequest.revision).toBe(res.body.revision);

    // Pages nest by URL path: the start page and the pages right below it at the top level.
    const tree = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/pages`, { token: owner }), 200).body.pages;
    expect(tree.map((p: any) => [p.title, p.path, p.pages.map((c: any) => [c.title, c.path])])).toEqual([
      ['Welcome', 'welcome', []],
      ['Guide', 'guide', [['Install', 'guide/install']]],
    ]);
    const [welcome, guide] = tree;
    const install = guide.pages[0];

    // The image is a file of the change request.
    const files = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/files`, { token: owner }), 200).body;
    expect(files.items).toHaveLength(1);
    const [logo] = files.items;
    expect(logo).toMatchObject({ name: 'logo.png', contentType: 'image/png', size: png.byteLength });

    // Main content only, as Markdown; links between imported pages point to the pages, the image to the file.
    const welcomeMd = await pageMarkdown(spaceId, welcome.id, owner, cr.number);
    expect(welcomeMd).toContain('Start with the');
    expect(welcomeMd).toContain(`/files/${logo.id}`);
    expect(welcomeMd).toContain('http://127.0.0.1/secret.png');
    expect(welcomeMd).toContain('https://example.org/elsewhere');
    expect(welcomeMd).toContain(`[guide](/pages/${guide.id})`);
    expect(welcomeMd).toContain('![Logo](/files/');
    expect(welcomeMd).toMatch(/- One\n- Two/);
    for (const dropped of ['Header banner', 'Footer copyright', 'script text', 'color: red', 'Blog', 'Elsewhere']) expect(welcomeMd).not.toContain(dropped);

    const guideMd = await pageMarkdown(spaceId, guide.id, owner, cr.number);
    expect(guideMd).toContain('## Overview');
    expect(guideMd).toContain(`/files/${logo.id}`);
    expect(guideMd).toMatch(/\| Name +\| Value +\|/);
    expect(guideMd).not.toContain('Sidebar outside the article');
    expect(guideMd).toContain(`[the install page](/pages/${install.id}#requirements)`);
    expect(guideMd).not.toContain(`${SITE}/docs/guide/install`);

    const installMd = await pageMarkdown(spaceId, install.id, owner, cr.number);
    expect(installMd).toContain('## Requirements');
    expect(installMd).toContain('npm install');
    expect(installMd).toContain(`[the start](/pages/${welcome.id})`);
    expect(installMd).toContain('```sh\nnpm install\n```');
  });

  it("accepts the source as an object ({source: {type: 'website', url}}) and adds the pages after the existing ones", async () => {
    const { spaceId, cr } = await fresh();
    await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content`, {
      token: owner,
      body: { changes: [{ operation: 'insert_page', title: 'Existing', document: { markdown: 'Hello' } }] },
    });
    const res = expectStatus(await postImport(spaceId, cr.id, { source: { type: 'website', url: `${SITE}/docs/guide/install` } }), 201);
    // The prefix of /docs/guide/install is /docs/guide/install/: that page alone.
    expect(res.body.importedResources).toBe(1);
    const tree = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/pages`, { token: owner }), 200).body.pages;
    expect(tree.map((p: any) => p.title)).toEqual(['Existing', 'Install']);
  });

  it('answers 400 for bad input, without fetching anything', async () => {
    const { spaceId, cr } = await fresh();
    expectError(await postImport(spaceId, cr.number, { source: 'website' }), 400, 'url');
    expectError(await postImport(spaceId, cr.number, { url: `${SITE}/docs/` }), 400, 'source');
    expectError(await postImport(spaceId, cr.number, { url: `${SITE}/docs/`, source: 'notion' }), 400, 'only "website"');
    expectError(await postImport(spaceId, cr.number, { url: `${SITE}/docs/`, source: 'pdf' }), 400, 'source');
    expectError(await postImport(spaceId, cr.number, { url: 42, source: 'website' }), 400, 'url');
    expectError(await api('POST', importPath(spaceId, cr.number), { token: owner, rawBody: '{"url":' }), 400);
    expectError(await postImport(spaceId, cr.number, { url: 'ftp://docs.example.com/docs/', source: 'website' }), 400, 'url: ftp://docs.example.com/docs/ is refused');
    expectError(await postImport(spaceId, cr.number, { url: 'not a url', source: 'website' }), 400, 'is refused');
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://127.1:8787/v1/users', 'http://[::ffff:10.0.0.1]/', 'http://localhost/', 'http://user:pw@docs.example.com/docs/']) {
      expectError(await postImport(spaceId, cr.number, { url, source: 'website' }), 400, `url: ${url} is refused`);
    }
    expect(requested).toEqual([]);
  });

  it('answers 400 when the start page cannot be imported', async () => {
    const { spaceId, cr } = await fresh();
    expectError(await postImport(spaceId, cr.number, { url: `${SITE}/missing/`, source: 'website' }), 400, 'answered 404');
    expectError(await postImport(spaceId, cr.number, { url: `${SITE}/docs/img/logo.png`, source: 'website' }), 400, 'is not an HTML page');
    const unchanged = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/pages`, { token: owner }), 200).body.pages;
    expect(unchanged).toEqual([]);
  });

  it('answers 400 naming the cause when the start page cannot be reached', async () => {
    const { spaceId, cr } = await fresh();
    const previous = setOutboundFetch(() => Promise.reject(new Error('Network connection lost.')));
    try {
      const url = 'https://down.example.com/docs/';
      expectError(await postImport(spaceId, cr.number, { url, source: 'website' }), 400, `url: ${url} could not be fetched: the connection to down.example.com:443 was refused or lost`);
    } finally {
      setOutboundFetch(previous);
    }
  });

  it('answers 400, not 500, for pages nested beyond what can be converted', async () => {
    const { spaceId, cr } = await fresh();
    const deep = (open: string, close: string, n: number) => `<html><body><main>${open.repeat(n)}deep${close.repeat(n)}</main></body></html>`;
    const pages: Record<string, string> = {
      '/quotes/': deep('<blockquote>', '</blockquote>', 300),
      '/lists/': deep('<ul><li>', '</li></ul>', 300),
      '/divs/': deep('<div>', '</div>', 20000),
    };
    const previous = setOutboundFetch((request) => Promise.resolve(html(pages[new URL(request.url).pathname] ?? '')));
    try {
      for (const path of Object.keys(pages)) {
        const res = await postImport(spaceId, cr.number, { url: `https://deep.example.com${path}`, source: 'website' });
        expect([201, 400], `${path}: ${JSON.stringify(res.body)}`).toContain(res.status);
        if (res.status === 400) expectError(res, 400, `https://deep.example.com${path}`);
      }
    } finally {
      setOutboundFetch(previous);
    }
  });

  it('answers 401 without a token', async () => {
    const { spaceId, cr } = await fresh();
    expectError(await postImport(spaceId, cr.number, { url: `${SITE}/docs/`, source: 'website' }, null), 401);
    expect(requested).toEqual([]);
  });

  it('answers 403 to members who may read but not edit the space, before fetching', async () => {
    const { spaceId, cr } = await fresh();
    for (const role of ['read', 'comment'] as const) {
      expectError(await postImport(spaceId, cr.number, { url: `${SITE}/docs/`, source: 'website' }, org.members[role].token), 403);
    }
    expect(requested).toEqual([]);
  });

  it("answers 404 for another organization's member, a guest, and unknown ids", async () => {
    const { spaceId, cr } = await fresh();
    const body = { url: `${SITE}/docs/`, source: 'website' };
    expectError(await postImport(spaceId, cr.number, body, org.outsider.token), 404);
    expectError(await postImport(spaceId, cr.number, body, org.members.guest.token), 404);
    expectError(await postImport(spaceId, 'zzzzzzzzzzzzzzzzzzzz', body), 404);
    expectError(await postImport('zzzzzzzzzzzzzzzzzzzz', cr.number, body), 404);
    expect(requested).toEqual([]);
  });

  it('lets an edit member import', async () => {
    const { spaceId, cr } = await fresh();
    expectStatus(await postImport(spaceId, cr.number, { url: `${SITE}/docs/guide`, source: 'website' }, org.members.edit.token), 201);
  });
});

describe('the served OpenAPI document', () => {
  it("documents importContentInChangeRequest with GitBook's body and a 201", async () => {
    const { body: doc } = await api('GET', '/openapi.json');
    const operation = doc.paths['/spaces/{spaceId}/change-requests/{changeRequestId}/content/import'].post;
    expect(operation.operationId).toBe('importContentInChangeRequest');
    expect(operation.tags).toEqual(['Change request content']);
    expect(Object.keys(operation.responses)).toContain('201');
    expect(operation.responses['201'].headers.Location).toBeDefined();
    expect(doc.components.schemas.ImportContent.properties).toHaveProperty('url');
    expect(doc.components.schemas.ImportContent.properties).toHaveProperty('source');
  });
});

describe('importWebsite (the crawler)', () => {
  it('stops at the page limit and keeps the batch within the content batch limits', async () => {
    const many = (request: Request) => {
      const url = new URL(request.url);
      const n = Number(url.pathname.split('/').pop()) || 0;
      const links = Array.from({ length: 30 }, (_, i) => `<a href="/site/${n * 30 + i + 1}">p${n * 30 + i + 1}</a>`).join(' ');
      const images = Array.from({ length: 3 }, (_, i) => `<img src="/img/${n}-${i}.png">`).join('');
      if (url.pathname.startsWith('/img/')) return Promise.resolve(new Response(png, { headers: { 'content-type': 'image/png' } }));
      return Promise.resolve(html(`<html><head><title>Page ${n}</title></head><body><p>Page ${n}</p>${links}${images}</body></html>`));
    };
    const result = await importWebsite({}, 'https://big.example.com/site/', { fetch: many });
    const pages = result.changes.filter((c) => c.operation === 'insert_page');
    const files = result.changes.flatMap((c) => (c.operation === 'insert_files' ? c.files : []));
    expect(pages).toHaveLength(20);
    expect(files.length).toBeLessThanOrEqual(40);
    expect(result.changes.length).toBeLessThanOrEqual(50);
    expect(result.changes.filter((c) => c.operation === 'insert_files').every((c) => c.operation === 'insert_files' && c.files.length <= 20)).toBe(true);
    expect(result.importedResources).toBe(20 + files.length);
    expect(result.totalResources).toBeGreaterThan(result.importedResources);
  });

  it('skips pages whose Markdown would pass the batch limit, and images over 1 MiB or of other types', async () => {
    const big = 'x'.repeat(100 * 1024);
    const site = (request: Request) => {
      const path = new URL(request.url).pathname;
      if (path === '/huge.png') return Promise.resolve(new Response(new Uint8Array(2 * 1024 * 1024), { headers: { 'content-type': 'image/png' } }));
      if (path === '/pic.svg') return Promise.resolve(new Response('<svg xmlns="http://www.w3.org/2000/svg"/>', { headers: { 'content-type': 'image/svg+xml' } }));
      const n = Number(path.slice(1)) || 0;
      return Promise.resolve(html(`<html><body><p>${big}</p><a href="/${n + 1}">next</a><img src="/huge.png"><img src="/pic.svg"></body></html>`));
    };
    const result = await importWebsite({}, 'https://long.example.com/', { fetch: site });
    const pages = result.changes.filter((c) => c.operation === 'insert_page');
    const total = pages.reduce((n, c) => n + (c.operation === 'insert_page' && c.document && 'markdown' in c.document ? c.document.markdown.length : 0), 0);
    expect(total).toBeLessThanOrEqual(512 * 1024);
    expect(pages.length).toBe(5);
    expect(result.changes.some((c) => c.operation === 'insert_files')).toBe(false);
  });
});
