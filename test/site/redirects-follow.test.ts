import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { publishedSite, shareKeyOf, spaceWithPages, visit } from './helpers';

/**
 * The site's own reader follows the site's live redirects on a path it has no page for (as GitBook's renderer asks
 * getSiteRedirectBySource on a 404): 301 or 302 by `permanent`, to a path of the same mount or an external URL, and
 * only for a reader the site admits.
 */

let org: TestOrg;
let space: { id: string; pages: Record<string, string> };
const token = () => org.owner.token;

beforeAll(async () => {
  org = await seedOrg();
  space = await spaceWithPages(org, 'Handbook', [
    { operation: 'insert_page', title: 'Welcome', document: { markdown: 'Hello visitors.\n' } },
    { operation: 'insert_page', title: 'Install', document: { markdown: 'Run it.\n' } },
  ]);
});

const redirectTo = (sitePath: string, source: string, destination: unknown, extra: Record<string, unknown> = {}) =>
  api('POST', `${sitePath}/redirects`, { token: token(), body: { source, destination, ...extra } });

describe("the site's reader follows its redirects", () => {
  it('a page destination: 301 to its path under the site; external: 302; a prefix with capture; a draft or a path with a page: not followed', async () => {
    const site = await publishedSite(org, [space.id], 'public', 'Redirecting');
    const siteSpace = expectStatus(await api('GET', `${site.path}/site-spaces`, { token: token() }), 200).body.items[0];
    expectStatus(await redirectTo(site.path, '/old/setup', { kind: 'site-page', siteSpaceId: siteSpace.id, pageId: space.pages.Install }, { permanent: true }), 201);
    expectStatus(await redirectTo(site.path, '/über'.replace('ü', '%C3%BC'), { kind: 'external', url: 'https://example.com/about' }), 201);
    expectStatus(await redirectTo(site.path, '/blog/*', { kind: 'external', url: 'https://blog.example.com/' }, { captureWildcard: true }), 201);
    expectStatus(await redirectTo(site.path, '/draft-only', { kind: 'external', url: 'https://example.com/draft' }, { draft: true }), 201);
    expectStatus(await redirectTo(site.path, '/welcome', { kind: 'external', url: 'https://example.com/shadowed' }), 201);

    const moved = await visit(`/s/${site.id}/old/setup`);
    expect(moved.status).toBe(301);
    expect(new URL(moved.headers.get('Location')!).pathname).toBe(`/s/${site.id}/install`);
    expect((await visit(new URL(moved.headers.get('Location')!).pathname)).text).toContain('Run it.');

    const external = await visit(`/s/${site.id}/%C3%BCber`);
    expect(external.status).toBe(302);
    expect(external.headers.get('Location')).toBe('https://example.com/about');

    const captured = await visit(`/s/${site.id}/blog/2024/hello`);
    expect(captured.status).toBe(302);
    expect(captured.headers.get('Location')).toBe('https://blog.example.com/2024/hello');

    expect((await visit(`/s/${site.id}/draft-only`)).status).toBe(404);
    // A page at the path is served, whatever a redirect says.
    const page = await visit(`/s/${site.id}/welcome`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Hello visitors.');
  });

  it("a share-link site: a visitor without the key learns nothing; with it, the redirect keeps the key's path", async () => {
    const site = await publishedSite(org, [space.id], 'share-link', 'Shared redirects');
    const siteSpace = expectStatus(await api('GET', `${site.path}/site-spaces`, { token: token() }), 200).body.items[0];
    expectStatus(await redirectTo(site.path, '/old', { kind: 'site-page', siteSpaceId: siteSpace.id, pageId: space.pages.Install }, { permanent: true }), 201);
    const refused = await visit(`/s/${site.id}/old`);
    expect(refused.status).toBe(404);
    expect(refused.headers.get('Location')).toBeNull();

    const link = expectStatus(await api('POST', `${site.path}/share-links`, { token: token(), body: { name: 'Partners' } }), 201).body;
    const key = shareKeyOf(link);
    const keyed = await visit(`/s/${site.id}/${encodeURIComponent(key)}/old`);
    expect(keyed.status).toBe(301);
    expect(new URL(keyed.headers.get('Location')!).pathname).toBe(`/s/${site.id}/${encodeURIComponent(key)}/install`);
  });
});
