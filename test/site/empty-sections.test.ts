/**
 * Issue 30, point 5: a site section (or a variant) whose space has no pages gets no link in the
 * published site's navigation, its URL answers the 404 page, and a site whose default section is empty
 * sends its root to the first section with pages. The published JSON view keeps GitBook's shape (every
 * section listed).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { grab, publishedSite, spaceWithPages, visit } from './helpers';

let org: TestOrg;
let site: { id: string; basename: string; path: string };
let emptySpace: { id: string };

const token = () => org.owner.token;

async function addSection(sitePath: string, spaceId: string, title: string, path: string) {
  const section = expectStatus(await api('POST', `${sitePath}/sections`, { token: token(), body: { spaceId, title } }), 201).body;
  expectStatus(await api('PATCH', `${sitePath}/sections/${section.id}`, { token: token(), body: { path } }), 200);
  return section as { id: string };
}

/** Every `href` of a fragment of HTML that stays on this origin. */
const hrefs = (fragment: string) => [...fragment.matchAll(/href="([^"]+)"/g)].map((m) => m[1].replaceAll('&amp;', '&')).filter((h) => h.startsWith('/'));

beforeAll(async () => {
  org = await seedOrg();
  const guide = await spaceWithPages(org, 'Guide', [{ operation: 'insert_page', title: 'Introduction', document: { markdown: 'Welcome.\n' } }]);
  const reference = await spaceWithPages(org, 'Reference', [{ operation: 'insert_page', title: 'Endpoints', document: { markdown: 'Version two.\n' } }]);
  emptySpace = await createSpace(org.id, token(), 'Nothing yet');
  site = await publishedSite(org, [guide.id]);
  const ref = await addSection(site.path, reference.id, 'Reference', 'reference');
  await addSection(site.path, emptySpace.id, 'Coming soon', 'soon');
  // An empty variant beside the reference's default one.
  const variant = expectStatus(await api('POST', `${site.path}/site-spaces`, { token: token(), body: { spaceId: emptySpace.id, sectionId: ref.id, title: 'Draft version' } }), 201).body;
  expectStatus(await api('PATCH', `${site.path}/site-spaces/${variant.id}`, { token: token(), body: { path: 'draft' } }), 200);
});

describe('sections and variants whose space has no pages', () => {
  it('get no tab and no variant link; every link of the tabs and of the switcher answers 200', async () => {
    const res = await visit(`/s/${site.id}/reference/`);
    expect(res.status).toBe(200);
    const tabs = grab(res.text, /<nav aria-label="Sections">([\s\S]*?)<\/nav>/)!;
    expect(tabs).toContain('Reference');
    expect(tabs).not.toContain('Coming soon');
    expect(tabs).not.toContain('/soon');
    expect(res.text).not.toContain('Draft version');
    expect(res.text).not.toContain('/reference/draft');
    const links = hrefs(tabs);
    expect(links.length).toBe(2);
    for (const href of links) expect((await visit(href)).status, href).toBe(200);
  });

  it('their URLs answer the 404 page, the same as an unknown path', async () => {
    for (const path of ['soon', 'soon/', 'reference/draft', 'soon.md']) {
      const res = await visit(`/s/${site.id}/${path}`);
      expect(res.status, path).toBe(404);
    }
  });

  it('are left out of llms.txt', async () => {
    const llms = await visit(`/s/${site.id}/llms.txt`);
    expect(llms.status).toBe(200);
    expect(llms.text).not.toContain('Coming soon');
    expect(llms.text).not.toContain('Draft version');
  });

  it('a site whose default section is empty sends its root to the first section with pages', async () => {
    const reference = await spaceWithPages(org, 'Ref only', [{ operation: 'insert_page', title: 'Only page', document: { markdown: 'Here.\n' } }]);
    const other = await publishedSite(org, [emptySpace.id], 'public', 'Empty first');
    await addSection(other.path, reference.id, 'Reference', 'reference');
    const root = await visit(`/s/${other.id}/`);
    expect(root.status).toBe(302);
    expect(root.headers.get('Location')).toBe(`/s/${other.id}/reference/`);
    const landed = await visit(root.headers.get('Location')!);
    expect(landed.status).toBe(200);
    expect(landed.text).toContain('Here.');
    // One section with pages: no tabs at all (a lone tab leads nowhere new).
    expect(landed.text).not.toContain('aria-label="Sections"');
  });

  it('a site with no pages at all answers its root with the 404 page, not a redirect loop', async () => {
    const other = await publishedSite(org, [emptySpace.id], 'public', 'All empty');
    expect((await visit(`/s/${other.id}/`)).status).toBe(404);
  });

  it("the API's published view keeps every section, as GitBook's does", async () => {
    const res = expectStatus(await api('GET', `${site.path}/published`, { token: token() }), 200);
    const titles = (res.body.structure.structure as Array<{ title: string }>).map((s) => s.title);
    expect(titles).toEqual(expect.arrayContaining(['Reference', 'Coming soon']));
  });
});
