/**
 * A site token reads what its visitor may see: pages whose condition fails for the visitor's claims (and their
 * subpages) are not in the revision's tree, not found by id or path, and not found by the site's search, as the
 * site's HTML reader leaves them out (test/site/access.test.ts). The same visitor with other claims reads them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { signVisitorToken } from '../../src/services/sites/visitor-token';
import { PNG_1x1 } from '../helpers/content';
import { api, BASE, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { publishedSite, spaceWithPages } from '../site/helpers';

let org: TestOrg;
let space: { id: string; pages: Record<string, string> };
let site: { id: string; path: string };
let head: string;
let key: string;

async function siteToken(claims: Record<string, unknown>): Promise<string> {
  const jwtToken = await signVisitorToken({ sub: 'visitor', ...claims }, key, 600);
  return expectStatus(await api('POST', '/v1/urls/published', { body: { url: `${BASE}/s/${site.id}/`, visitor: { jwtToken } } }), 200).body.apiToken;
}

const titles = (pages: Array<{ title: string; pages?: unknown[] }>): unknown[] =>
  pages.map((p) => (p.pages && p.pages.length ? { [p.title]: titles(p.pages as never) } : p.title));

beforeAll(async () => {
  org = await seedOrg();
  const png = (name: string) => ({ ref: name, name, contentType: 'image/png', base64: PNG_1x1 });
  space = await spaceWithPages(org, 'Adaptive', [
    { operation: 'insert_files', files: [png('open.png'), png('shared.png'), png('plan.png'), png('unused.png')] },
    { operation: 'insert_page', ref: 'open', title: 'Open', document: { markdown: 'Everyone reads this.\n\n![Open](./open.png)\n\n![Shared](./shared.png)\n' } },
    { operation: 'insert_page', ref: 'pro', title: 'Pro', condition: 'visitor.claims.pro == true', document: { markdown: 'The loquat plan.\n\n![Plan](./plan.png)\n\n![Shared](./shared.png)\n' } },
    { operation: 'insert_page', into: 'pro', title: 'Pro child', document: { markdown: 'The loquat detail.\n' } },
    { operation: 'insert_page', into: 'open', title: 'Beta', condition: 'visitor.claims.beta', document: { markdown: 'Beta loquat.\n' } },
  ]);
  site = await publishedSite(org, [space.id], 'visitor-auth', 'Adaptive');
  key = expectStatus(await api('GET', `${site.path}/publishing/auth`, { token: org.owner.token }), 200).body.privateKey;
  const schema = { type: 'object', properties: { pro: { type: 'boolean', description: 'Pro' }, beta: { type: 'boolean', description: 'Beta' } }, additionalProperties: false };
  expectStatus(await api('PUT', `${site.path}/adaptive-schema`, { token: org.owner.token, body: { jsonSchema: schema } }), 200);
  head = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token: org.owner.token }), 200).body.id;
});

describe("revision reads with a site token follow the pages' conditions", () => {
  it("the tree holds only the pages the visitor's claims open", async () => {
    const tree = async (claims: Record<string, unknown>) =>
      titles(expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${head}`, { token: await siteToken(claims) }), 200).body.pages);
    expect(await tree({})).toEqual(['Open']);
    expect(await tree({ pro: true })).toEqual(['Open', { Pro: ['Pro child'] }]);
    expect(await tree({ pro: true, beta: true })).toEqual([{ Open: ['Beta'] }, { Pro: ['Pro child'] }]);
    // A member reads every page, whatever the conditions.
    expect(titles(expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${head}`, { token: org.owner.token }), 200).body.pages)).toEqual([
      { Open: ['Beta'] },
      { Pro: ['Pro child'] },
    ]);
  });

  it('a page whose condition fails, or whose ancestor’s does, is not found by id, by path or as a document', async () => {
    const basic = await siteToken({ pro: false });
    const pro = await siteToken({ pro: true });
    const base = `/v1/spaces/${space.id}/revisions/${head}`;
    for (const path of [
      `${base}/page/${space.pages.Pro}`,
      `${base}/page/${space.pages['Pro child']}`,
      `${base}/page/${space.pages['Pro child']}/document`,
      `${base}/page/${space.pages.Pro}/meta-links`,
      `${base}/path/pro`,
      `${base}/path/${encodeURIComponent('pro/pro-child')}`,
      `${base}/page/${space.pages.Beta}`,
    ]) {
      expectError(await api('GET', path, { token: basic }), 404);
    }
    const page = expectStatus(await api('GET', `${base}/page/${space.pages.Pro}?format=markdown`, { token: pro }), 200).body;
    expect(page.markdown).toContain('The loquat plan.');
    expect(page.pages.map((p: { title: string }) => p.title)).toEqual(['Pro child']);
    expectStatus(await api('GET', `${base}/path/${encodeURIComponent('pro/pro-child')}`, { token: pro }), 200);
    // The open page lists only the subpages the visitor may open.
    const open = expectStatus(await api('GET', `${base}/page/${space.pages.Open}`, { token: basic }), 200).body;
    expect(open.pages).toEqual([]);
  });

  it("the site's search finds only pages the visitor may open", async () => {
    const found = async (claims: Record<string, unknown>) => {
      const res = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/search`, { token: await siteToken(claims), body: { query: 'loquat', scope: { mode: 'all' } } }), 200).body;
      return res.items.flatMap((s: { pages: Array<{ title: string }> }) => s.pages.map((p) => p.title)).sort();
    };
    expect(await found({})).toEqual([]);
    expect(await found({ pro: true })).toEqual(['Pro', 'Pro child']);
    expect(await found({ pro: true, beta: true })).toEqual(['Beta', 'Pro', 'Pro child']);
  });

  it("the search's count and pages are those of what the visitor sees", async () => {
    const token = await siteToken({ pro: true });
    const search = async (page?: string) =>
      expectStatus(await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/search?limit=1${page ? `&page=${page}` : ''}`, { token, body: { query: 'loquat', scope: { mode: 'all' } } }), 200).body;
    const first = await search();
    expect(first.count).toBe(2);
    expect(first.items.flatMap((s: { pages: unknown[] }) => s.pages)).toHaveLength(1);
    expect(first.next).toBeDefined();
    const second = await search(first.next.page);
    expect(second.count).toBe(2);
    expect(second.items.flatMap((s: { pages: unknown[] }) => s.pages)).toHaveLength(1);
    expect(second.next).toBeUndefined();
    const seen = [first, second].flatMap((r) => r.items.flatMap((s: { pages: Array<{ title: string }> }) => s.pages.map((p) => p.title)));
    expect(seen.sort()).toEqual(['Pro', 'Pro child']);
  });
});

describe('files with a site token (issue 38)', () => {
  const fileNames = async (claims: Record<string, unknown>) =>
    expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${head}`, { token: await siteToken(claims) }), 200).body.files.map((f: { name: string }) => f.name).sort();

  it('a revision read lists no file that only pages hidden from the visitor use', async () => {
    // plan.png is used by the Pro page only; shared.png by Pro and Open; unused.png by no page (readable by anyone).
    expect(await fileNames({})).toEqual(['open.png', 'shared.png', 'unused.png']);
    expect(await fileNames({ pro: true })).toEqual(['open.png', 'plan.png', 'shared.png', 'unused.png']);
    // A member reads every file.
    const member = expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${head}`, { token: org.owner.token }), 200).body;
    expect(member.files.map((f: { name: string }) => f.name).sort()).toEqual(['open.png', 'plan.png', 'shared.png', 'unused.png']);
  });
});
