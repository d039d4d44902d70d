/**
 * The four items of issue 41 that GitBook's renderer showed on new content, each checked the way that renderer
 * reads our API (its calls, query parameters and URL forms, from `packages/gitbook/src/lib/data/api.ts`), against
 * GitBook 0.202.0's schemas. The renderer itself cannot run in CI; guide 20 records the manual run.
 *
 * Its sequence for a page: `resolvePublishedContentByUrl` on `<host>/<path>` (the host without its port, the query
 * string dropped), then with the site token it returns: `getSpaceById` (the revision), `getPageInRevisionByPath`,
 * `getPageDocumentInRevisionById` (`evaluated=deterministic-only&dereferenced=reusable-contents`), and for each
 * API reference block, `getLatestOpenAPISpecVersionContent` of the block's `ref.spec`; site search is
 * `searchSiteContent`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { seedSpec, seedSpecVersion } from '../helpers/openapi';
import { gitbookErrors, gitbookOperations, schemaValidator, withComputedPageMember, withFilesystemList } from '../helpers/gitbook-schema';
import { api, BASE, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { publishedSite, spaceWithPages } from '../site/helpers';

const OPERATIONS = gitbookOperations();
/**
 * GitBook 0.202's components with the two documented divergences: the OpenAPI filesystem as the renderer's list
 * (guide 20), and generated API reference pages' `computed` (test/openapi/computed-pages).
 */
const COMPONENTS = withComputedPageMember(withFilesystemList());
function expectGitbook(operationId: string, body: unknown) {
  const validator = schemaValidator(OPERATIONS.get(operationId)!.responses['200']!, COMPONENTS);
  expect(gitbookErrors(validator, body), `${operationId}: ${JSON.stringify(body).slice(0, 400)}`).toBe('valid');
}

/** The URL as the renderer hands it to resolvePublishedContentByUrl: `/url/<host>/<path>` read back, no query. */
const asRendererUrl = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.hostname}${parsed.pathname}`;
};

interface Resolved {
  apiToken: string;
  space: string;
  site: string;
  pathname: string;
  complete: boolean;
}
async function resolve(url: string): Promise<Resolved> {
  const body = expectStatus(await api('POST', '/v1/urls/published', { body: { url: asRendererUrl(url) } }), 200).body;
  expectGitbook('resolvePublishedContentByUrl', body);
  return body;
}

type TreePage = { id: string; path: string; title: string; hidden?: boolean; pages?: TreePage[] };
const flatten = (pages: TreePage[]): TreePage[] => pages.flatMap((page) => [page, ...flatten(page.pages ?? [])]);

/**
 * What the renderer reads for the page at `url`: the revision (its page tree, where it looks the path up:
 * `getPageInRevisionByPath` is only its fallback for redirects) and the page's document.
 */
async function readPage(url: string) {
  const resolved = await resolve(url);
  const token = resolved.apiToken;
  const space = expectStatus(await api('GET', `/v1/spaces/${resolved.space}`, { token }), 200).body;
  expectGitbook('getSpaceById', space);
  const base = `/v1/spaces/${resolved.space}/revisions/${space.revision}`;
  const revision = expectStatus(await api('GET', base, { token }), 200).body;
  expectGitbook('getRevisionById', revision);
  const page = flatten(revision.pages).find((candidate) => candidate.path === resolved.pathname);
  expect(page, `${resolved.pathname} in ${JSON.stringify(flatten(revision.pages).map((p) => p.path))}`).toBeDefined();
  const document = expectStatus(
    await api('GET', `${base}/page/${page!.id}/document?evaluated=deterministic-only&dereferenced=reusable-contents`, { token }),
    200,
  ).body;
  expectGitbook('getPageDocumentInRevisionById', document);
  return { resolved, token, revision, page: page!, document };
}

type Block = { object: string; type: string; meta?: { id?: string }; data?: any; nodes?: Block[] };
/** Every block of a document, depth first. */
function blocks(node: { nodes?: Block[] }): Block[] {
  return (node.nodes ?? []).flatMap((child) => (child.object === 'block' ? [child, ...blocks(child)] : []));
}
/** Every inline reference (`ref`) of a document: links, mentions. */
function refs(node: unknown): Array<Record<string, string>> {
  if (!node || typeof node !== 'object') return [];
  const own = (node as any).data?.ref ? [(node as any).data.ref] : [];
  return [...own, ...Object.values(node as object).flatMap(refs)];
}

let org: TestOrg;
beforeAll(async () => {
  org = await seedOrg();
});

describe('headings carry ids: the renderer’s anchors and “On this page” (issue 41)', () => {
  it('every heading has meta.id, an own id is kept, ids are unique, and an anchor link names one of them', async () => {
    const space = await spaceWithPages(org, 'Headings', [
      {
        operation: 'insert_page',
        title: 'Guide',
        document: {
          markdown: [
            'Intro, see [the setup](#setup).',
            '',
            '## Getting started',
            '',
            '### Install <a href="#setup" id="setup"></a>',
            '',
            '#### Deeper',
            '',
            '## Getting started',
            '',
            'Again.',
            '',
          ].join('\n'),
        },
      },
    ]);
    const site = await publishedSite(org, [space.id], 'public', 'Headings');
    const { document } = await readPage(`${BASE}/s/${site.id}/guide`);
    const headings = blocks(document).filter((block) => /^heading-[123]$/.test(block.type));
    expect(headings.map((heading) => heading.type)).toEqual(['heading-1', 'heading-2', 'heading-3', 'heading-1']);
    const ids = headings.map((heading) => heading.meta?.id);
    // The renderer's sections ("On this page") and its anchors are built from meta.id alone.
    for (const id of ids) expect(id).toMatch(/^[a-z0-9-]+$/);
    expect(ids[1]).toBe('setup');
    expect(new Set(ids).size).toBe(ids.length);
    // The anchor link the page carries resolves to a heading of that page.
    const anchor = refs(document).find((ref) => ref.kind === 'anchor');
    expect(anchor).toMatchObject({ kind: 'anchor', anchor: 'setup' });
    expect(ids).toContain(anchor!.anchor);
  });
});

describe('API reference pages computed from a private spec render (issue 41)', () => {
  const outline = {
    title: 'Private API',
    version: '1.0.0',
    tags: [{ name: 'widgets', operations: [{ path: '/widgets', method: 'get', summary: 'List widgets' }] }],
    schemas: [],
  };
  const filesystem = {
    'openapi.json': {
      openapi: '3.1.0',
      info: { title: 'Private API', version: '1.0.0' },
      paths: { '/widgets': { get: { tags: ['widgets'], summary: 'List widgets', responses: { 200: { description: 'The widgets' } } } } },
    },
  };

  it('each spec the published pages’ blocks name is read with the site token; a private spec no page uses is not', async () => {
    const used = await seedSpec(org.id, { visibility: 'private', state: 'complete', job: null });
    await seedSpecVersion(used.id, outline as never, { filesystem });
    const unused = await seedSpec(org.id, { visibility: 'private', state: 'complete', job: null });
    await seedSpecVersion(unused.id, outline as never, { filesystem });
    const computed = { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: used.slug } } }, props: { models: false } };
    const space = await spaceWithPages(org, 'Reference', [{ operation: 'insert_page', title: 'API', computed }]);
    const site = await publishedSite(org, [space.id], 'public', 'Reference');

    // The computed tag page, as the renderer reads it: its blocks name the spec by slug.
    const { token, document } = await readPage(`${BASE}/s/${site.id}/api/widgets`);
    const operations = blocks(document).filter((block) => block.type === 'openapi-operation');
    expect(operations.map((block) => block.data)).toEqual([{ ref: { kind: 'openapi', spec: used.slug }, path: '/widgets', method: 'get' }]);

    // What it then fetches for each block: the spec's latest content, with the site token.
    const content = (slug: string) => api('GET', `/v1/orgs/${org.id}/openapi/${slug}/versions/latest/content`, { token });
    for (const block of operations) {
      const spec = expectStatus(await content(block.data.ref.spec), 200).body;
      expectGitbook('getLatestOpenAPISpecVersionContent', spec);
      // The renderer's parser reads the entry of the filesystem list and finds the block's operation there.
      const entry = spec.filesystem.find((file: { isEntrypoint: boolean }) => file.isEntrypoint);
      expect(entry.specification.paths[block.data.path][block.data.method]).toMatchObject({ summary: 'List widgets' });
    }
    // Nothing more: another private spec of the organization stays unread.
    expectError(await content(unused.slug), 404, 'No matching OpenAPI spec');
  });
});

describe('share links in the form the renderer resolves (issue 41)', () => {
  it('urls.published carries the key as a path segment; the renderer’s URL (no query) opens the site, its pages and its search links', async () => {
    const space = await spaceWithPages(org, 'Partners', [
      { operation: 'insert_page', title: 'Welcome', document: { markdown: 'The partner rambutan page.\n' } },
      { operation: 'insert_page', title: 'Second', document: { markdown: 'Another rambutan page.\n' } },
    ]);
    const site = await publishedSite(org, [space.id], 'share-link', 'Partners');
    const link = expectStatus(await api('POST', `${site.path}/share-links`, { token: org.owner.token, body: { name: 'Renderer' } }), 201).body;
    expectGitbook('createSiteShareLink', link);
    const published = new URL(link.urls.published);
    // Nothing in the query string: the renderer drops it before it resolves a URL.
    expect(published.search).toBe('');
    const key = published.pathname.split('/').filter(Boolean).at(-1)!;
    expect(key).toBe(link.key ?? key);

    // The link as handed out, and a page under it, resolve complete with a site token.
    const root = await resolve(link.urls.published);
    expect(root).toMatchObject({ site: site.id, complete: true });
    const { resolved, token } = await readPage(`${link.urls.published.replace(/\/$/, '')}/second`);
    expect(resolved.pathname).toBe('second');

    // The published URLs it reads with that token (its links, its search results) stay under the key.
    const view = expectStatus(await api('GET', `${site.path}/published`, { token }), 200).body;
    expectGitbook('getPublishedContentSite', view);
    expect(view.site.urls.published).toBe(link.urls.published);
    const search = expectStatus(await api('POST', `${site.path}/search`, { token, body: { query: 'rambutan', scope: { mode: 'all' } } }), 200).body;
    expectGitbook('searchSiteContent', search);
    expect(search.items.flatMap((item: any) => item.pages.map((page: any) => page.title)).sort()).toEqual(['Second', 'Welcome']);
    // The renderer links each result on its site space's urls.published (from the published view): under the key.
    const siteSpaces = view.structure.type === 'siteSpaces' ? view.structure.structure : view.structure.structure.flatMap((s: any) => s.siteSpaces ?? []);
    for (const siteSpace of siteSpaces) expect(new URL(siteSpace.urls.published).pathname).toContain(`/${key}/`);

    // The site without the key, or with a wrong one, is not found.
    expectStatus(await api('POST', '/v1/urls/published', { body: { url: asRendererUrl(`${BASE}/s/${site.id}/`) } }), 404);
    expectStatus(await api('POST', '/v1/urls/published', { body: { url: asRendererUrl(`${BASE}/s/${site.id}/not-the-key/`) } }), 404);
  });
});

describe('a hidden page and site search (issue 41)', () => {
  it('the renderer’s search does not find it, its navigation leaves it out, and its link still opens it', async () => {
    const space = await spaceWithPages(org, 'Hidden', [
      { operation: 'insert_page', title: 'Listed', document: { markdown: 'The mangosteen guide.\n' } },
      { operation: 'insert_page', title: 'Secret', hidden: true, document: { markdown: 'The mangosteen secret.\n' } },
    ]);
    const site = await publishedSite(org, [space.id], 'public', 'Hidden');
    const token = (await resolve(`${BASE}/s/${site.id}/`)).apiToken;
    const search = expectStatus(await api('POST', `${site.path}/search`, { token, body: { query: 'mangosteen', scope: { mode: 'all' } } }), 200).body;
    expectGitbook('searchSiteContent', search);
    expect(search.items.flatMap((item: any) => item.pages.map((page: any) => page.title))).toEqual(['Listed']);

    // Opened by its link, it renders; the revision the renderer builds its table of contents from marks it
    // hidden (the renderer leaves it out of the navigation).
    const { revision, document } = await readPage(`${BASE}/s/${site.id}/secret`);
    expect(JSON.stringify(document)).toContain('The mangosteen secret.');
    expect(revision.pages.map((page: any) => [page.title, page.hidden ?? false])).toEqual([
      ['Listed', false],
      ['Secret', true],
    ]);
  });
});
