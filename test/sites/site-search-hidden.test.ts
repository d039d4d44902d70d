/**
 * Hidden pages (`hidden`: not in the site's navigation, reached by their link only) and pages left out of search
 * (`noIndex`) are not found by a published site's search: neither by searchSiteContent with a site token (what
 * GitBook's renderer calls) nor by the site's own HTML reader (issue 41). Members still find them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { publishedSite, spaceWithPages, visit } from '../site/helpers';

let org: TestOrg;
let site: { id: string; path: string };

beforeAll(async () => {
  org = await seedOrg();
  const space = await spaceWithPages(org, 'Search', [
    { operation: 'insert_page', title: 'Listed', document: { markdown: 'The kumquat guide.\n' } },
    { operation: 'insert_page', title: 'Secret', hidden: true, document: { markdown: 'The kumquat secret.\n' } },
    { operation: 'insert_page', title: 'Unindexed', noIndex: true, document: { markdown: 'The kumquat draft.\n' } },
  ]);
  site = await publishedSite(org, [space.id], 'public', 'Search');
});

const titles = (body: { items: Array<{ pages: Array<{ title: string }> }> }) => body.items.flatMap((s) => s.pages.map((p) => p.title)).sort();

describe('a site’s search leaves out hidden and noIndex pages', () => {
  it('searchSiteContent with a site token finds only the listed page', async () => {
    const token = expectStatus(await api('POST', '/v1/urls/published', { body: { url: `${BASE}/s/${site.id}/` } }), 200).body.apiToken;
    const res = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/search`, { token, body: { query: 'kumquat', scope: { mode: 'all' } } }), 200).body;
    expect(titles(res)).toEqual(['Listed']);
    expect(res.count).toBe(1);
  });

  it('a member’s search of the site still finds every page', async () => {
    const res = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/search`, { token: org.owner.token, body: { query: 'kumquat', scope: { mode: 'all' } } }), 200).body;
    expect(titles(res)).toEqual(['Listed', 'Secret', 'Unindexed']);
  });

  it('the HTML reader’s search finds only the listed page; the hidden page still opens by its link', async () => {
    const page = await visit(`/s/${site.id}/~search?q=kumquat`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Listed');
    expect(page.text).not.toContain('Secret');
    expect(page.text).not.toContain('Unindexed');
    expect((await visit(`/s/${site.id}/secret`)).status).toBe(200);
  });
});
