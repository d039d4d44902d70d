/**
 * Issue 30, point 5: the Markdown view (`.md`) of API reference pages computed from an OpenAPI spec links
 * to the spec. Every link of that Markdown must lead somewhere: a public spec's published document, and
 * for a private spec (which has no public address) the page itself.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, seedOrg, type TestOrg } from '../helpers/harness';
import { seedSpec, seedSpecVersion } from '../helpers/openapi';
import { grab, publishedSite, spaceWithPages, visit } from './helpers';

let org: TestOrg;

const OUTLINE = {
  title: 'Petstore',
  version: '1.0.0',
  description: 'The **Petstore** API.',
  tags: [{ name: 'pets', description: 'Everything about pets', operations: [{ path: '/pets', method: 'get' as const, summary: 'List pets' }] }],
  schemas: ['Pet'],
};

/** A published site of one space: an overview page and a page computed from a spec of `visibility`. */
async function referenceSite(visibility: 'public' | 'private') {
  const spec = await seedSpec(org.id, { visibility });
  await seedSpecVersion(spec.id, OUTLINE);
  const space = await spaceWithPages(org, `Reference ${visibility}`, [
    { operation: 'insert_page', title: 'Overview', document: { markdown: 'Read on.\n' } },
    {
      operation: 'insert_page',
      title: 'API reference',
      computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: spec.slug } } }, props: { models: true } },
    },
  ]);
  const site = await publishedSite(org, [space.id], 'public', `Reference site ${visibility}`);
  return { spec, site };
}

/** The site's computed pages (the API reference and the pages it generates), from the sidebar. */
async function computedPages(siteId: string): Promise<string[]> {
  const overview = await visit(`/s/${siteId}/`);
  const sidebar = grab(overview.text, /<nav class="sidebar" aria-label="Pages">([\s\S]*?)<\/nav>/)!;
  const paths = [...sidebar.matchAll(/href="([^"]+)"/g)].map((m) => m[1]).filter((p) => p.includes('/api-reference'));
  expect(paths.length, sidebar).toBeGreaterThan(1);
  return paths;
}

/** The targets of a Markdown text's links and images. */
const markdownLinks = (text: string) => [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);

/** A link followed through the Worker: its status (a path is read against the page's address). */
async function follow(link: string, from: string): Promise<number> {
  const url = new URL(link, `${BASE}${from}`);
  expect(url.origin, link).toBe(BASE);
  return (await visit(`${url.pathname}${url.search}`)).status;
}

beforeAll(async () => {
  org = await seedOrg();
});

describe('the Markdown view of computed API reference pages', () => {
  for (const visibility of ['public', 'private'] as const) {
    it(`links only to addresses that answer (${visibility} spec)`, async () => {
      const { site } = await referenceSite(visibility);
      const pages = await computedPages(site.id);
      let specLinks = 0;
      for (const page of pages) {
        const md = await visit(`${page}.md`);
        expect(md.status, page).toBe(200);
        expect(md.headers.get('Content-Type')).toBe('text/markdown; charset=utf-8');
        const links = markdownLinks(md.text);
        expect(md.text).not.toContain('](/openapi/');
        for (const link of links) {
          if (link.startsWith('#')) continue;
          const status = await follow(link, page);
          expect(status, `${link} in ${page}.md`).toBeGreaterThanOrEqual(200);
          expect(status, `${link} in ${page}.md`).toBeLessThan(400);
          if (/^\[OpenAPI /m.test(md.text) || md.text.includes(`[OpenAPI `)) specLinks++;
        }
      }
      // The generated pages do link to their spec: the loop above followed those links.
      expect(specLinks).toBeGreaterThan(0);
    });
  }

  it('a public spec is linked at its published document, which serves the spec', async () => {
    const { spec, site } = await referenceSite('public');
    const [page] = (await computedPages(site.id)).filter((p) => /\/api-reference\/./.test(p));
    const md = await visit(`${page}.md`);
    const published = `${BASE}/public/openapi/${org.id}/${spec.slug}`;
    expect(markdownLinks(md.text)).toContain(published);
    const served = await visit(`/public/openapi/${org.id}/${spec.slug}`);
    expect(served.status).toBe(200);
    expect(JSON.parse(served.text).info.title).toBe('Petstore');
  });

  it('a private spec is never linked at its public address (which answers 404 to anyone)', async () => {
    const { spec, site } = await referenceSite('private');
    for (const page of await computedPages(site.id)) {
      const md = await visit(`${page}.md`);
      expect(md.text).not.toContain(`/public/openapi/${org.id}/${spec.slug}`);
    }
    expect((await visit(`/public/openapi/${org.id}/${spec.slug}`)).status).toBe(404);
  });
});
