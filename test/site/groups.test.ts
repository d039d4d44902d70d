/**
 * Page groups (GitBook's RevisionPageGroup) as the published site and the other readers show them: a section heading
 * of the navigation over its pages, never a page of its own (no URL, no entry in llms.txt, llms-full.txt, the sitemap
 * or the PDF), its slug part of its pages' URLs. (Search never had one: a page without a body has no section indexed.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy } from 'unpdf';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { fetchWorker } from '../helpers/worker';
import { publishedSite, spaceWithPages, visit } from './helpers';

let org: TestOrg;
let site: { id: string };
let space: { id: string; pages: Record<string, string> };

beforeAll(async () => {
  org = await seedOrg();
  space = await spaceWithPages(org, 'Grouped', [
    { operation: 'insert_page', title: 'Welcome', document: { markdown: 'Hello there.\n' } },
    { operation: 'insert_page', ref: 'group', type: 'group', title: 'Zephyr guides' },
    { operation: 'insert_page', into: 'group', title: 'Install', document: { markdown: 'Run the installer.\n' } },
    { operation: 'insert_page', title: 'Changelog', document: { markdown: 'What changed.\n' } },
  ]);
  site = await publishedSite(org, [space.id], 'public', 'Grouped Docs');
});

describe('a group on the published site', () => {
  it('is a heading of the navigation, not a link, and its pages live under its slug', async () => {
    const home = await visit(`/s/${site.id}/`);
    expect(home.status).toBe(200);
    expect(home.text).toContain('<span class="group-title" role="heading" aria-level="2">Zephyr guides</span><ul class="group"><li><a href="/s/');
    expect(home.text).not.toMatch(/<a href="[^"]*\/zephyr-guides"/);
    const install = await visit(`/s/${site.id}/zephyr-guides/install`);
    expect(install.status).toBe(200);
    expect(install.text).toContain('Run the installer.');
    // Its breadcrumb names the group without leading to it.
    expect(install.text).toContain('<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol><li>Zephyr guides</li></ol></nav>');
    // Previous and next skip it: Welcome, then Install.
    expect(install.text).toMatch(/class="previous" rel="prev" href="[^"]*\/welcome"/);
    expect((await visit(`/s/${site.id}/zephyr-guides`)).status).toBe(404);
    expect((await visit(`/s/${site.id}/zephyr-guides.md`)).status).toBe(404);
  });

  it('is no page of llms.txt, llms-full.txt or the sitemap', async () => {
    const llms = (await visit(`/s/${site.id}/llms.txt`)).text;
    expect(llms).toContain(`- [Install](${BASE}/s/${site.id}/zephyr-guides/install.md)`);
    expect(llms).not.toContain('[Zephyr guides]');
    const full = (await visit(`/s/${site.id}/llms-full.txt`)).text;
    expect(full).toContain('Run the installer.');
    expect(full).not.toContain('# Zephyr guides');
    const sitemap = (await visit(`/s/${site.id}/sitemap.xml`)).text;
    expect(sitemap).toContain(`/s/${site.id}/zephyr-guides/install</loc>`);
    expect(sitemap).not.toContain(`/zephyr-guides</loc>`);
  });

  it('is no page of the PDF, whose outline lists its pages', async () => {
    const url = new URL(expectStatus(await api('GET', `/v1/spaces/${space.id}/pdf`, { token: org.owner.token }), 200).body.url);
    const res = await fetchWorker(`${BASE}${url.pathname}${url.search}`);
    expect(res.status).toBe(200);
    const pdf = await getDocumentProxy(new Uint8Array(await res.arrayBuffer()));
    const outline = ((await pdf.getOutline()) ?? []).map((item: any) => item.title);
    expect(outline).toEqual(['Welcome', 'Install', 'Changelog']);
    const { text } = await extractText(pdf, { mergePages: true });
    expect(text).not.toContain('Zephyr guides');
    // A PDF of the group alone: it has no content of its own.
    expect((await api('GET', `/v1/spaces/${space.id}/pdf?page=${space.pages['Zephyr guides']}&only=true`, { token: org.owner.token })).status).toBe(400);
  }, 180_000);
});
