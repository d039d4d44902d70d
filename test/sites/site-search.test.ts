/**
 * searchSiteContent (GitBook's POST /orgs/{o}/sites/{s}/search): full-text search of the spaces a site
 * publishes, in the scope asked for (all, the sections' defaults with or around the current site space,
 * specific site spaces; GitBook's deprecated body forms too), only spaces the caller can read, never a
 * space outside the site; another organization's site is a 404.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';

let org: TestOrg;
let owner: string;
const spaces: Record<'alpha' | 'beta' | 'gamma' | 'outside', string> = { alpha: '', beta: '', gamma: '', outside: '' };
/** Site space ids by the space they show. */
const siteSpaces: Record<'alpha' | 'beta' | 'gamma', string> = { alpha: '', beta: '', gamma: '' };
let siteId: string;

async function spaceWith(title: string, text: string) {
  const space = await createSpace(org.id, owner, title);
  const cr = await openChangeRequest(space.id, owner, 'Content');
  await applyChanges(space.id, cr.number, owner, [{ operation: 'insert_page', title: `${title} page`, document: { markdown: `${text}\n` } }]);
  expectStatus(await merge(space.id, cr.number, owner), 200);
  return space.id as string;
}

const path = () => `/v1/orgs/${org.id}/sites/${siteId}/search`;
const search = (body: unknown, token = owner, query = '') => api('POST', `${path()}${query}`, { token, body });
/** The spaces of the results, by name. */
async function spacesFound(body: unknown, token = owner): Promise<string[]> {
  const res = expectStatus(await search(body, token), 200).body;
  const byId = new Map(Object.entries(spaces).map(([name, id]) => [id, name]));
  return res.items.map((item: any) => byId.get(item.id)).sort();
}

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
  spaces.alpha = await spaceWith('Alpha', 'The kumquat harvest starts in May.');
  spaces.beta = await spaceWith('Beta', 'Kumquat jam recipes.');
  spaces.gamma = await spaceWith('Gamma', 'Secret kumquat plans.');
  spaces.outside = await spaceWith('Outside', 'A kumquat outside of the site.');
  // Gamma is readable by admins only.
  expectStatus(await api('PATCH', `/v1/spaces/${spaces.gamma}`, { token: owner, body: { defaultLevel: null } }), 200);

  const base = `/v1/orgs/${org.id}/sites`;
  siteId = expectStatus(await api('POST', base, { token: owner, body: { title: 'Fruit', spaces: [spaces.alpha] } }), 201).body.id;
  const site = `${base}/${siteId}`;
  expectStatus(await api('POST', `${site}/sections`, { token: owner, body: { spaceId: spaces.beta, title: 'Recipes' } }), 201);
  const sections = expectStatus(await api('GET', `${site}/sections`, { token: owner }), 200).body.items;
  const first = sections.find((s: any) => s.siteSpaces.some((ss: any) => ss.space.id === spaces.alpha));
  // Gamma joins Alpha's section, not as its default.
  expectStatus(await api('POST', `${site}/site-spaces`, { token: owner, body: { spaceId: spaces.gamma, sectionId: first.id } }), 201);
  const listed = expectStatus(await api('GET', `${site}/site-spaces`, { token: owner }), 200).body.items;
  for (const item of listed) {
    const name = (Object.entries(spaces).find(([, id]) => id === item.space.id) ?? [])[0] as keyof typeof siteSpaces;
    siteSpaces[name] = item.id;
  }
  expect(listed.find((item: any) => item.id === siteSpaces.gamma).default).toBe(false);
});

describe('searchSiteContent', () => {
  it("answers with GitBook 0.202.0's schema: spaces with their pages, best first", async () => {
    const res = expectStatus(await search({ query: 'kumquat', scope: { mode: 'all' } }), 200).body;
    const validator = schemaValidator(gitbookOperations().get('searchSiteContent')!.responses['200']!, GITBOOK_0202.components);
    expect(gitbookErrors(validator, res), JSON.stringify(res)).toBe('valid');
    expect(res.count).toBe(3);
    expect(res.items[0]).toMatchObject({ type: 'space', pages: [expect.objectContaining({ rank: 1 })] });
    expect(res.items.flatMap((s: any) => s.pages.map((p: any) => p.title)).sort()).toEqual(['Alpha page', 'Beta page', 'Gamma page']);
  });

  it('reads the scope asked for, never a space outside the site', async () => {
    const kumquat = (scope: unknown) => spacesFound({ query: 'kumquat', scope });
    expect(await kumquat({ mode: 'all' })).toEqual(['alpha', 'beta', 'gamma']);
    expect(await kumquat({ mode: 'default' })).toEqual(['alpha', 'beta']);
    expect(await kumquat({ mode: 'default', currentSiteSpace: siteSpaces.gamma })).toEqual(['alpha', 'beta', 'gamma']);
    expect(await kumquat({ mode: 'default', currentSiteSpace: siteSpaces.gamma, restrictTo: 'currentSiteSpace' })).toEqual(['gamma']);
    expect(await kumquat({ mode: 'default', currentSiteSpace: siteSpaces.alpha, restrictTo: 'otherSiteSpaces' })).toEqual(['beta']);
    expect(await kumquat({ mode: 'specific', siteSpaceIds: [siteSpaces.beta, 'unknownSiteSpace'] })).toEqual(['beta']);
    // A space id is not a site space id: nothing.
    expect(await kumquat({ mode: 'specific', siteSpaceIds: [spaces.outside] })).toEqual([]);
    // GitBook's deprecated forms.
    expect(await spacesFound({ query: 'kumquat', siteSpaceIds: [siteSpaces.gamma] })).toEqual(['gamma']);
    expect(await spacesFound({ query: 'kumquat', mode: 'specific', siteSpaceIds: [siteSpaces.alpha] })).toEqual(['alpha']);
    expect(await spacesFound({ query: 'kumquat', mode: 'current', siteSpaceId: siteSpaces.gamma })).toEqual(['alpha', 'beta', 'gamma']);
    expect(await spacesFound({ query: 'kumquat', mode: 'all' })).toEqual(['alpha', 'beta', 'gamma']);
    expect(await spacesFound({ query: 'outside', scope: { mode: 'all' } })).toEqual([]);
  });

  it('only spaces the caller can read: a reader does not find the admins-only space', async () => {
    expect(await spacesFound({ query: 'kumquat', scope: { mode: 'all' } }, org.members.read.token)).toEqual(['alpha', 'beta']);
    expect(await spacesFound({ query: 'secret', scope: { mode: 'default', currentSiteSpace: siteSpaces.gamma, restrictTo: 'currentSiteSpace' } }, org.members.read.token)).toEqual([]);
  });

  it('pages through results', async () => {
    const first = expectStatus(await search({ query: 'kumquat', scope: { mode: 'all' } }, owner, '?limit=2'), 200).body;
    expect(first.items.flatMap((s: any) => s.pages)).toHaveLength(2);
    expect(first.next.page).toEqual(expect.any(String));
    const second = expectStatus(await search({ query: 'kumquat', scope: { mode: 'all' } }, owner, `?limit=2&page=${first.next.page}`), 200).body;
    expect(second.items.flatMap((s: any) => s.pages.map((p: any) => p.rank))).toEqual([3]);
    expect(second.next).toBeUndefined();
  });

  it("another organization's site, guests, outsiders and unknown sites are 404s; no token is a 401", async () => {
    const body = { query: 'kumquat', scope: { mode: 'all' } };
    const stranger = await seedOrg();
    for (const token of [stranger.owner.token, org.members.guest.token, org.outsider.token]) expectError(await search(body, token), 404, 'Site not found');
    expectError(await api('POST', path(), { body }), 401);
    expectError(await api('POST', `/v1/orgs/${org.id}/sites/unknownSite/search`, { token: owner, body }), 404);
    // The site through another organization's id, by that organization's admin.
    expectError(await api('POST', `/v1/orgs/${stranger.id}/sites/${siteId}/search`, { token: stranger.owner.token, body }), 404);
    // Their own site cannot reach this organization's site spaces either.
    const theirs = expectStatus(await api('POST', `/v1/orgs/${stranger.id}/sites`, { token: stranger.owner.token, body: { title: 'Theirs' } }), 201).body.id;
    const res = expectStatus(
      await api('POST', `/v1/orgs/${stranger.id}/sites/${theirs}/search`, { token: stranger.owner.token, body: { query: 'kumquat', scope: { mode: 'specific', siteSpaceIds: Object.values(siteSpaces) } } }),
      200,
    ).body;
    expect(res).toEqual({ items: [], count: 0 });
  });

  it('bad bodies and queries are 400s naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ scope: { mode: 'all' } }, 'query'],
      [{ query: 'kumquat' }, 'scope'],
      [{ query: 'x'.repeat(513), scope: { mode: 'all' } }, 'query'],
      [{ query: 'kumquat', scope: { mode: 'everything' } }, 'scope'],
      [{ query: 'kumquat', scope: { mode: 'default', restrictTo: 'currentSiteSpace' } }, 'restrictTo'],
      [{ query: 'kumquat', scope: { mode: 'specific', siteSpaceIds: [] } }, 'siteSpaceIds'],
      [{ query: 'kumquat', mode: 'current' }, 'siteSpaceId'],
      [{ query: 'kumquat', mode: 'specific' }, 'siteSpaceIds'],
    ];
    for (const [body, field] of cases) expectError(await search(body), 400, field);
    expectError(await search({ query: 'kumquat', scope: { mode: 'all' } }, owner, '?limit=0'), 400, 'limit');
    expectError(await search({ query: '   ', scope: { mode: 'all' } }), 400, 'query');
  });

  it('costs the round trips of an organization search', async () => {
    const site = await measureRoundTrips('POST', `/v1/orgs/${org.id}/sites/${siteId}/search`, owner, { query: 'kumquat', scope: { mode: 'all' } });
    const orgSearch = await measureRoundTrips('GET', `/v1/orgs/${org.id}/search?query=kumquat`, owner);
    expect(site.status).toBe(200);
    expect(orgSearch.status).toBe(200);
    expect(site.roundTrips).toBe(orgSearch.roundTrips);
    expect(site.roundTrips).toBeLessThanOrEqual(2);
  });
});
