import { beforeAll, describe, expect, it } from 'vitest';
import { loadGroup } from '../../src/routes/group-app';
import { seedOrg, type TestOrg } from '../helpers/harness';
import { fetchWorker } from '../helpers/worker';
import { grab, publishedSite, spaceWithPages, visit } from './helpers';

/**
 * The published site's routes are served by the site module's handlers straight from the main app's match (app.ts
 * `serveSiteRoute`, site/routes `siteRouteHandler`): a page view makes no group app and no second route match, which
 * a cold isolate's first page paid for (issue 42 item 7). What each route answers is the site group's own.
 */
let org: TestOrg;
let site: { id: string };

beforeAll(async () => {
  org = await seedOrg();
  const space = await spaceWithPages(org, 'Dispatched', [{ operation: 'insert_page', title: 'Welcome', document: { markdown: 'Served from the first match.\n' } }]);
  site = await publishedSite(org, [space.id], 'public', 'Dispatch Docs');
});

const call = async (method: string, path: string) => {
  const res = await fetchWorker(new Request(`http://localhost${path}`, { method, redirect: 'manual' }));
  return { status: res.status, headers: res.headers, text: await res.text() };
};

describe("the published site's routes, served from the main app's match", () => {
  it("answer as the site group's routes do, without its app's router", async () => {
    const group = await loadGroup('site');
    const match = group.router.match;
    let groupMatches = 0;
    group.router.match = (...args) => (groupMatches++, match.apply(group.router, args));
    try {
      const page = await visit(`/s/${site.id}/`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Served from the first match.');
      // HEAD is a GET without its body; a site's path takes no other method but a machine's POST.
      const head = await call('HEAD', `/s/${site.id}/`);
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      for (const method of ['PUT', 'DELETE', 'POST']) {
        const refused = await call(method, `/s/${site.id}/`);
        expect(refused.status).toBe(405);
        expect(refused.headers.get('Allow')).toBe('GET, HEAD');
      }
      expect((await call('PUT', `/s/${site.id}`)).status).toBe(405);
      // The site's root without its slash, the bare prefix, an unknown site.
      const bare = await call('GET', `/s/${site.id}`);
      expect(bare.status).toBe(301);
      expect(bare.headers.get('Location')).toBe(`/s/${site.id}/`);
      expect((await call('GET', '/s/')).status).toBe(404);
      expect((await call('GET', '/s')).status).toBe(404);
      expect((await call('GET', '/s/no-such-site/')).status).toBe(404);
      // The stylesheet the page links to.
      const css = grab(page.text, /<link rel="stylesheet" href="([^"]+)"/)!;
      expect(css).toMatch(/^\/_site\/[0-9a-f]{16}\.css$/);
      const sheet = await call('GET', css);
      expect(sheet.status).toBe(200);
      expect(sheet.headers.get('Content-Type')).toBe('text/css; charset=utf-8');
      expect(groupMatches).toBe(0);
    } finally {
      group.router.match = match;
    }
  });
});
