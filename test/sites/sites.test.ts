/**
 * Docs sites (the site objects themselves): create, list, get, patch, publish/unpublish, delete and
 * the structure read. Success bodies are checked against our schemas and against GitBook's published
 * 0.202.0 schemas; the structure operations (sections, groups, site spaces) are in structure.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SiteSchema, SiteStructureSchema } from '../../src/schemas/site';
import { createSpace } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectSchema, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';

const GITBOOK_SITE = gitbookValidator('Site', GITBOOK_0202.components);
const GITBOOK_STRUCTURE = gitbookValidator('SiteStructure', GITBOOK_0202.components);

/** The body is a Site by our schema and by GitBook's. */
function expectSite(body: unknown) {
  expect(gitbookErrors(GITBOOK_SITE, body), JSON.stringify(body)).toBe('valid');
  return expectSchema(SiteSchema, body);
}

function expectStructure(body: unknown) {
  expect(gitbookErrors(GITBOOK_STRUCTURE, body), JSON.stringify(body)).toBe('valid');
  return expectSchema(SiteStructureSchema, body);
}

const sitesOf = (orgId: string) => `/v1/orgs/${orgId}/sites`;

async function createSite(orgId: string, token: string, body: Record<string, unknown> = {}): Promise<any> {
  return expectStatus(await api('POST', sitesOf(orgId), { token, body }), 201).body;
}

/** An organization the user creates (alone in it), with a space: "another organization's" fixtures. */
async function otherOrgWithSpace(token: string): Promise<{ orgId: string; spaceId: string }> {
  const org = expectStatus(await api('POST', '/v1/orgs', { token, body: { title: 'Elsewhere' } }), 201).body;
  const space = await createSpace(org.id, token, 'Foreign');
  return { orgId: org.id, spaceId: space.id };
}

// ---------------------------------------------------------------------------------------------

describe('createSite', () => {
  let org: TestOrg;
  let token: string;
  let one: any;
  let two: any;

  beforeAll(async () => {
    org = await seedOrg();
    token = org.owner.token;
    one = await createSpace(org.id, token, 'Getting started');
    two = await createSpace(org.id, token, 'API reference');
  });

  it('answers the new site’s API URL in Location, as GitBook does', async () => {
    const res = expectStatus(await api('POST', sitesOf(org.id), { token, body: { title: 'Located' } }), 201);
    expect(res.headers.get('Location')).toBe(res.body.urls.location);
    expect(res.body.urls.location).toMatch(new RegExp(`/v1/orgs/${org.id}/sites/${res.body.id}$`));
  });

  it('defaults to a basic, public, unpublished site whose basename comes from the title', async () => {
    const site = expectSite(await createSite(org.id, token, { title: 'Product Docs' }));
    expect(site).toMatchObject({
      object: 'site',
      type: 'basic',
      appliedType: 'basic',
      title: 'Product Docs',
      basename: 'product-docs',
      visibility: 'public',
      published: false,
      siteSpaces: 0,
      adaptiveContent: { enabled: false },
      agentsContext: 'included',
    });
    expect(site.permissions.admin).toBe(true);
    expect(site.proxy).toBeUndefined();
    expect(site.urls.published).toBeUndefined();
    expect(site.urls.location).toMatch(new RegExp(`/orgs/${org.id}/sites/${site.id}$`));
    // Stored as answered.
    const read = expectStatus(await api('GET', `${sitesOf(org.id)}/${site.id}`, { token }), 200).body;
    expect(read).toEqual(site);
  });

  it('numbers the basename when the organization already uses it', async () => {
    const taken = await createSite(org.id, token, { title: 'Numbered' });
    const second = await createSite(org.id, token, { title: 'Numbered' });
    const third = await createSite(org.id, token, { title: 'NUMBERED!' });
    expect([taken.basename, second.basename, third.basename]).toEqual(['numbered', 'numbered-2', 'numbered-3']);
    // Another organization may use the same basename.
    const elsewhere = await otherOrgWithSpace(org.outsider.token);
    expect((await createSite(elsewhere.orgId, org.outsider.token, { title: 'Numbered' })).basename).toBe('numbered');
  });

  it('takes a title of up to 128 characters, however long its basename (GitBook SiteTitle), and numbers it too', async () => {
    // A long title once made a LIKE pattern past D1's 50 bytes: a 500 from 49 characters on.
    const title = `${'word '.repeat(26).slice(0, 127)}s`;
    expect(title).toHaveLength(128);
    const first = expectSite(await createSite(org.id, token, { title }));
    const second = expectSite(await createSite(org.id, token, { title }));
    expect(first.title).toBe(title);
    expect(second.basename).toBe(`${first.basename}-2`);
    expect(first.basename.length).toBeGreaterThan(50);
    // A read member is refused for their role, not by a server error.
    expectError(await api('POST', sitesOf(org.id), { token: org.members.read.token, body: { title } }), 403);
    const message = expectError(await api('POST', sitesOf(org.id), { token, body: { title: `${title}x` } }), 400, 'title');
    expect(message).toContain('128');
  });

  it('does not hand out a basename another site holds in another letter case', async () => {
    // PATCH compares basenames without case (see updateSiteById), so creation must as well.
    const site = await createSite(org.id, token, { title: 'Case site' });
    expectStatus(await api('PATCH', `${sitesOf(org.id)}/${site.id}`, { token, body: { basename: 'Mixed-Case' } }), 200);
    const created = await createSite(org.id, token, { title: 'Mixed case' });
    expect(created.basename.toLowerCase()).not.toBe('mixed-case');
    expect(created.basename).toBe('mixed-case-2');
  });

  it('takes type and visibility from the body', async () => {
    const site = expectSite(await createSite(org.id, token, { title: 'Premium', type: 'premium', visibility: 'share-link' }));
    expect(site).toMatchObject({ type: 'premium', visibility: 'share-link' });
  });

  it('publishes the given spaces as root site spaces, the first one the default', async () => {
    const site = expectSite(await createSite(org.id, token, { title: 'With spaces', spaces: [one.id, two.id, one.id] }));
    expect(site.siteSpaces).toBe(2);
    const structure = expectStructure(expectStatus(await api('GET', `${sitesOf(org.id)}/${site.id}/structure`, { token }), 200).body);
    expect(structure.type).toBe('siteSpaces');
    const items = structure.structure as any[];
    expect(items.map((s) => s.space.id)).toEqual([one.id, two.id]);
    expect(items.map((s) => s.default)).toEqual([true, false]);
    expect(items.map((s) => s.path)).toEqual(['getting-started', 'api-reference']);
    expect(items.every((s) => s.section === undefined)).toBe(true);
  });

  it("refuses spaces of another organization, deleted spaces and unknown ids, naming each", async () => {
    const foreign = await otherOrgWithSpace(org.outsider.token);
    const deleted = await createSpace(org.id, token, 'Doomed');
    expectStatus(await api('DELETE', `/v1/spaces/${deleted.id}`, { token }), 204);
    const before = (await api('GET', sitesOf(org.id), { token })).body.count;

    for (const bad of [foreign.spaceId, deleted.id, 'noSuchSpace0000000']) {
      const message = expectError(await api('POST', sitesOf(org.id), { token, body: { title: 'Bad', spaces: [one.id, bad] } }), 400);
      expect(message).toContain(bad);
      expect(message).not.toContain(one.id);
    }
    const all = expectError(
      await api('POST', sitesOf(org.id), { token, body: { title: 'Bad', spaces: [foreign.spaceId, one.id, deleted.id, 'noSuchSpace0000000'] } }),
      400,
    );
    for (const bad of [foreign.spaceId, deleted.id, 'noSuchSpace0000000']) expect(all).toContain(bad);
    // Nothing was created.
    expect((await api('GET', sitesOf(org.id), { token })).body.count).toBe(before);
  });

  it('refuses bad input', async () => {
    expectError(await api('POST', sitesOf(org.id), { token, body: { title: 'x' } }), 400, 'title');
    expectError(await api('POST', sitesOf(org.id), { token, body: { title: 'Fine', type: 'gold' } }), 400, 'type');
    expectError(await api('POST', sitesOf(org.id), { token, body: { title: 'Fine', visibility: 'secret' } }), 400, 'visibility');
    expectError(await api('POST', sitesOf(org.id), { token, body: { title: 'Fine', spaces: 'abc' } }), 400, 'spaces');
  });

  it('needs a token, the admin role and the organization', async () => {
    expectError(await api('POST', sitesOf(org.id), { body: { title: 'Anon' } }), 401);
    expectError(await api('POST', sitesOf(org.id), { token: org.members.create.token, body: { title: 'Creator' } }), 403);
    expectError(await api('POST', sitesOf(org.id), { token: org.members.guest.token, body: { title: 'Guest' } }), 404);
    expectError(await api('POST', sitesOf(org.id), { token: org.outsider.token, body: { title: 'Outsider' } }), 404);
    expectError(await api('POST', sitesOf('noSuchOrg000000000'), { token, body: { title: 'Nowhere' } }), 404);
  });
});

// ---------------------------------------------------------------------------------------------

describe('listSites', () => {
  let org: TestOrg;
  let token: string;
  let spaceA: any;
  let spaceB: any;
  /** In creation order: alpha (basic, A, published), beta (premium), gamma (ultimate, B), delta (basic, A+B, published). */
  let alpha: any, beta: any, gamma: any, delta: any;

  const list = (query: string, as = token) => api('GET', `${sitesOf(org.id)}${query}`, { token: as });
  const ids = (res: ApiResponse) => expectStatus(res, 200).body.items.map((s: any) => s.id);

  beforeAll(async () => {
    org = await seedOrg();
    token = org.owner.token;
    spaceA = await createSpace(org.id, token, 'Space A');
    spaceB = await createSpace(org.id, token, 'Space B');
    alpha = await createSite(org.id, token, { title: 'Alpha guide', spaces: [spaceA.id] });
    beta = await createSite(org.id, token, { title: 'Beta reference', type: 'premium' });
    gamma = await createSite(org.id, token, { title: 'Gamma ALPHA', type: 'ultimate', spaces: [spaceB.id] });
    delta = await createSite(org.id, token, { title: 'Delta', spaces: [spaceA.id, spaceB.id] });
    for (const site of [alpha, delta]) expectStatus(await api('POST', `${sitesOf(org.id)}/${site.id}/publish`, { token }), 200);
  });

  it('lists every site of the organization, oldest first, with counts', async () => {
    const body = expectStatus(await list(''), 200).body;
    expect(body.count).toBe(4);
    expect(body.next).toBeUndefined();
    expect(body.items.map((s: any) => s.id)).toEqual([alpha.id, beta.id, gamma.id, delta.id]);
    expect(body.items.map((s: any) => s.siteSpaces)).toEqual([1, 0, 1, 2]);
    expect(body.items.map((s: any) => s.published)).toEqual([true, false, false, true]);
    for (const site of body.items) expectSite(site);
  });

  it('filters by space, title, published and type', async () => {
    expect(ids(await list(`?space=${spaceA.id}`))).toEqual([alpha.id, delta.id]);
    expect(ids(await list(`?space=${spaceB.id}`))).toEqual([gamma.id, delta.id]);
    expect(ids(await list('?space=noSuchSpace0000000'))).toEqual([]);
    expect(ids(await list('?title=alpha'))).toEqual([alpha.id, gamma.id]);
    expect(ids(await list('?title=REFERENCE'))).toEqual([beta.id]);
    expect(ids(await list('?published=true'))).toEqual([alpha.id, delta.id]);
    expect(ids(await list('?published=false'))).toEqual([beta.id, gamma.id]);
    expect(ids(await list('?type=basic'))).toEqual([alpha.id, delta.id]);
    expect(ids(await list('?type=premium&type=ultimate'))).toEqual([beta.id, gamma.id]);
    expect(ids(await list('?type=sponsored'))).toEqual([]);
    // Filters combine, and count follows them.
    const combined = expectStatus(await list(`?type=basic&published=true&space=${spaceB.id}`), 200).body;
    expect(combined.items.map((s: any) => s.id)).toEqual([delta.id]);
    expect(combined.count).toBe(1);
    expect(expectStatus(await list('?title=alpha'), 200).body.count).toBe(2);
  });

  it('refuses bad filters', async () => {
    expectError(await list('?type=gold'), 400);
    expectError(await list('?published=yes'), 400);
  });

  it('pages with limit and next.page', async () => {
    const first = expectStatus(await list('?limit=3'), 200).body;
    expect(first.items.map((s: any) => s.id)).toEqual([alpha.id, beta.id, gamma.id]);
    expect(first.count).toBe(4);
    expect(first.next?.page).toEqual(expect.any(String));
    const second = expectStatus(await list(`?limit=3&page=${first.next.page}`), 200).body;
    expect(second.items.map((s: any) => s.id)).toEqual([delta.id]);
    expect(second.count).toBe(4);
    expect(second.next).toBeUndefined();
    // Paging through a filter.
    const p1 = expectStatus(await list('?limit=1&type=basic'), 200).body;
    expect(p1.items.map((s: any) => s.id)).toEqual([alpha.id]);
    const p2 = expectStatus(await list(`?limit=1&type=basic&page=${p1.next.page}`), 200).body;
    expect(p2.items.map((s: any) => s.id)).toEqual([delta.id]);
    expect(p2.next).toBeUndefined();
  });

  it('refuses a bad cursor or limit', async () => {
    expectError(await list('?page=not-a-cursor'), 400, 'page');
    expectError(await list('?limit=0'), 400);
    expectError(await list('?limit=abc'), 400);
  });

  it('answers readers with their permissions, and nobody else', async () => {
    const body = expectStatus(await list('', org.members.read.token), 200).body;
    expect(body.count).toBe(4);
    expect(body.items[0].permissions).toMatchObject({ view: true, admin: false, edit: false });
    expectError(await list('', null as never), 401);
    // A guest lists only the sites shared with them (guest-sites.test.ts): none here.
    expect(expectStatus(await list('', org.members.guest.token), 200).body).toMatchObject({ items: [], count: 0 });
    expectError(await list('', org.outsider.token), 404);
  });
});

// ---------------------------------------------------------------------------------------------

describe('getSiteById', () => {
  let org: TestOrg;
  let site: any;
  let foreign: { orgId: string; siteId: string };

  beforeAll(async () => {
    org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Guide');
    site = await createSite(org.id, org.owner.token, { title: 'Readable', spaces: [space.id] });
    const other = await otherOrgWithSpace(org.outsider.token);
    foreign = { orgId: other.orgId, siteId: (await createSite(other.orgId, org.outsider.token, { title: 'Foreign site' })).id };
  });

  it('answers members with read, with the site', async () => {
    const read = expectSite(expectStatus(await api('GET', `${sitesOf(org.id)}/${site.id}`, { token: org.members.read.token }), 200).body);
    expect(read).toMatchObject({ id: site.id, title: 'Readable', siteSpaces: 1, published: false });
    expect(read.permissions).toEqual({
      view: true,
      access: true,
      edit: false,
      create: false,
      admin: false,
      installIntegration: false,
      viewAdaptiveSchema: true,
      editAdaptiveSchema: false,
    });
  });

  it("is 404 for another organization's site, an unknown id, a guest or an outsider; 401 without a token", async () => {
    expectError(await api('GET', `${sitesOf(org.id)}/${foreign.siteId}`, { token: org.owner.token }), 404);
    expectError(await api('GET', `${sitesOf(foreign.orgId)}/${site.id}`, { token: org.outsider.token }), 404);
    expectError(await api('GET', `${sitesOf(org.id)}/noSuchSite00000000`, { token: org.owner.token }), 404);
    expectError(await api('GET', `${sitesOf(org.id)}/${site.id}`, { token: org.members.guest.token }), 404);
    expectError(await api('GET', `${sitesOf(org.id)}/${site.id}`, { token: org.outsider.token }), 404);
    expectError(await api('GET', `${sitesOf(org.id)}/${site.id}`), 401);
  });
});

// ---------------------------------------------------------------------------------------------

describe('updateSiteById', () => {
  let org: TestOrg;
  let token: string;
  let spaces: any[];
  let site: any;
  let path: string;

  const patch = (body: unknown, as = token, at = path) => api('PATCH', at, { token: as, body });
  const structure = async (at = path) => expectStructure(expectStatus(await api('GET', `${at}/structure`, { token }), 200).body) as any;

  beforeAll(async () => {
    org = await seedOrg();
    token = org.owner.token;
    spaces = [await createSpace(org.id, token, 'One'), await createSpace(org.id, token, 'Two'), await createSpace(org.id, token, 'Three')];
    site = await createSite(org.id, token, { title: 'Editable', spaces: [spaces[0].id, spaces[1].id] });
    path = `${sitesOf(org.id)}/${site.id}`;
  });

  it('changes title, visibility, adaptiveContent and agentsContext, and keeps them', async () => {
    const body = expectSite(
      expectStatus(
        await patch({ title: 'Renamed site', visibility: 'unlisted', adaptiveContent: { enabled: true }, agentsContext: 'excluded' }),
        200,
      ).body,
    );
    expect(body).toMatchObject({ title: 'Renamed site', visibility: 'unlisted', adaptiveContent: { enabled: true }, agentsContext: 'excluded' });
    // The basename does not follow the title.
    expect(body.basename).toBe('editable');
    const read = expectStatus(await api('GET', path, { token }), 200).body;
    expect(read).toMatchObject({ title: 'Renamed site', visibility: 'unlisted', adaptiveContent: { enabled: true }, agentsContext: 'excluded' });
    // One field at a time leaves the others alone.
    expect(expectStatus(await patch({ visibility: 'visitor-auth' }), 200).body).toMatchObject({
      title: 'Renamed site',
      visibility: 'visitor-auth',
      adaptiveContent: { enabled: true },
    });
    expect(expectStatus(await patch({ adaptiveContent: { enabled: false }, agentsContext: 'included' }), 200).body).toMatchObject({
      adaptiveContent: { enabled: false },
      agentsContext: 'included',
      visibility: 'visitor-auth',
    });
  });

  it('refuses bad values of each field', async () => {
    expectError(await patch({ title: 'x' }), 400, 'title');
    expectError(await patch({ visibility: 'private' }), 400, 'visibility');
    expectError(await patch({ adaptiveContent: true }), 400, 'adaptiveContent');
    expectError(await patch({ agentsContext: 'maybe' }), 400, 'agentsContext');
    expect(expectStatus(await api('GET', path, { token }), 200).body.title).toBe('Renamed site');
  });

  it('changes the basename to a valid, free URL segment', async () => {
    const other = await createSite(org.id, token, { title: 'Other site' });
    expect(expectSite(expectStatus(await patch({ basename: 'handbook_v2.1' }), 200).body).basename).toBe('handbook_v2.1');
    expect(expectStatus(await api('GET', path, { token }), 200).body.basename).toBe('handbook_v2.1');
    // Its own basename again (any case) is not "taken".
    expect(expectStatus(await patch({ basename: 'Handbook_v2.1' }), 200).body.basename).toBe('Handbook_v2.1');

    for (const bad of ['two words', 'a/b', '-lead', 'trail.', '', 'é']) expectError(await patch({ basename: bad }), 400, 'basename');
    expectError(await patch({ basename: 'other-site' }), 409, 'basename');
    expectError(await patch({ basename: 'OTHER-SITE' }), 409, 'basename');
    expect(expectStatus(await api('GET', path, { token }), 200).body.basename).toBe('Handbook_v2.1');
    // Freed when the other site takes another one.
    expectStatus(await patch({ basename: 'elsewhere' }, token, `${sitesOf(org.id)}/${other.id}`), 200);
    expect(expectStatus(await patch({ basename: 'other-site' }), 200).body.basename).toBe('other-site');
  });

  it('sets, refuses and removes a proxy', async () => {
    const set = expectSite(expectStatus(await patch({ proxy: 'example.com/docs' }), 200).body);
    expect(set.proxy?.origin).toBe('example.com/docs');
    expect(set.proxy?.target).toEqual(expect.stringContaining(`/${org.id}/${set.basename}`));
    expect(expectStatus(await patch({ proxy: 'docs.example.co.uk/help/v2' }), 200).body.proxy.origin).toBe('docs.example.co.uk/help/v2');
    for (const bad of ['example.com', 'https://example.com/docs', 'not a domain/docs', 'example/docs', 'example.com/']) {
      expectError(await patch({ proxy: bad }), 400, 'proxy');
    }
    expect(expectStatus(await api('GET', path, { token }), 200).body.proxy.origin).toBe('docs.example.co.uk/help/v2');
    // Another field leaves it alone; null removes it.
    expect(expectStatus(await patch({ title: 'Still proxied' }), 200).body.proxy.origin).toBe('docs.example.co.uk/help/v2');
    const removed = expectSite(expectStatus(await patch({ proxy: null }), 200).body);
    expect(removed.proxy).toBeUndefined();
    expect('proxy' in expectStatus(await api('GET', path, { token }), 200).body).toBe(false);
  });

  it('moves the default site space of a site without sections, leaving exactly one', async () => {
    const before = (await structure()).structure;
    expect(before.map((s: any) => s.default)).toEqual([true, false]);
    expectStatus(await patch({ defaultSiteSpace: before[1].id }), 200);
    const after = (await structure()).structure;
    expect(after.map((s: any) => [s.id, s.default])).toEqual([
      [before[0].id, false],
      [before[1].id, true],
    ]);
    const message = expectError(await patch({ defaultSiteSpace: 'noSuchSiteSpace000' }), 400, 'defaultSiteSpace');
    expect(message).toContain('noSuchSiteSpace000');
    // A failed PATCH changes nothing, not even its valid fields.
    expectError(await patch({ title: 'Half applied', defaultSiteSpace: 'noSuchSiteSpace000' }), 400);
    expect(expectStatus(await api('GET', path, { token }), 200).body.title).not.toBe('Half applied');
    expect((await structure()).structure.map((s: any) => s.default)).toEqual([false, true]);
  });

  it('moves the default section and the default site space of a site with sections', async () => {
    const sectioned = await createSite(org.id, token, { title: 'Sectioned' });
    const at = `${sitesOf(org.id)}/${sectioned.id}`;
    const first = expectStatus(await api('POST', `${at}/sections`, { token, body: { spaceId: spaces[0].id, title: 'First' } }), 201).body;
    const second = expectStatus(await api('POST', `${at}/sections`, { token, body: { spaceId: spaces[1].id, title: 'Second' } }), 201).body;
    const extra = expectStatus(await api('POST', `${at}/site-spaces`, { token, body: { spaceId: spaces[2].id, sectionId: second.id } }), 201).body;
    const defaults = async () =>
      ((await structure(at)).structure as any[]).map((s) => [s.id, s.default, s.siteSpaces.map((ss: any) => [ss.id, ss.default])]);

    expect(await defaults()).toEqual([
      [first.id, true, [[first.siteSpaces[0].id, true]]],
      [second.id, false, [[second.siteSpaces[0].id, true], [extra.id, false]]],
    ]);
    expectStatus(await patch({ defaultSiteSection: second.id }, token, at), 200);
    expect(await defaults()).toEqual([
      [first.id, false, [[first.siteSpaces[0].id, true]]],
      [second.id, true, [[second.siteSpaces[0].id, true], [extra.id, false]]],
    ]);
    // The site's default site space is the one of its default section.
    expectStatus(await patch({ defaultSiteSpace: extra.id }, token, at), 200);
    expect(await defaults()).toEqual([
      [first.id, false, [[first.siteSpaces[0].id, true]]],
      [second.id, true, [[second.siteSpaces[0].id, false], [extra.id, true]]],
    ]);
    // Both at once: the section first, then its site space.
    expectStatus(await patch({ defaultSiteSection: first.id, defaultSiteSpace: first.siteSpaces[0].id }, token, at), 200);
    expect((await defaults()).map(([id, isDefault]) => [id, isDefault])).toEqual([
      [first.id, true],
      [second.id, false],
    ]);
    // A site space outside the default section cannot be the site's default.
    expectError(await patch({ defaultSiteSpace: extra.id }, token, at), 400, 'defaultSiteSpace');
    expectError(await patch({ defaultSiteSection: 'noSuchSection00000' }, token, at), 400, 'defaultSiteSection');
    expectError(await patch({ defaultSiteSection: second.id, defaultSiteSpace: 'noSuchSiteSpace000' }, token, at), 400, 'defaultSiteSpace');
    // Nothing of the failed PATCH stuck.
    expect((await defaults()).map(([id, isDefault]) => [id, isDefault])).toEqual([
      [first.id, true],
      [second.id, false],
    ]);
  });

  it('is for admins of the organization only', async () => {
    expectError(await patch({ title: 'By creator' }, org.members.create.token), 403);
    expectError(await patch({ title: 'By reader' }, org.members.read.token), 403);
    expectError(await patch({ title: 'By guest' }, org.members.guest.token), 404);
    expectError(await patch({ title: 'By outsider' }, org.outsider.token), 404);
    expectError(await patch({ title: 'Anonymous' }, null as never), 401);
    expectError(await patch({ title: 'Unknown' }, token, `${sitesOf(org.id)}/noSuchSite00000000`), 404);
    expect(expectStatus(await api('GET', path, { token }), 200).body.title).toBe('Still proxied');
  });
});

// ---------------------------------------------------------------------------------------------

describe('publishSite and unpublishSite', () => {
  let org: TestOrg;
  let token: string;
  let space: any;

  beforeAll(async () => {
    org = await seedOrg();
    token = org.owner.token;
    space = await createSpace(org.id, token, 'Published space');
  });

  it('publishes and unpublishes, with urls.published only while published', async () => {
    const site = await createSite(org.id, token, { title: 'Going live', spaces: [space.id] });
    const at = `${sitesOf(org.id)}/${site.id}`;
    const published = expectSite(expectStatus(await api('POST', `${at}/publish`, { token }), 200).body);
    expect(published.published).toBe(true);
    expect(published.urls.published).toMatch(new RegExp(`/${org.id}/going-live/$`));
    expect(expectStatus(await api('GET', at, { token }), 200).body).toMatchObject({ published: true, urls: { published: published.urls.published } });
    // The structure's site spaces have published URLs too.
    const structure = expectStructure(expectStatus(await api('GET', `${at}/structure`, { token }), 200).body) as any;
    expect(structure.structure[0].urls.published).toEqual(expect.stringContaining(`/${org.id}/going-live/`));
    // Publishing again is harmless.
    expect(expectStatus(await api('POST', `${at}/publish`, { token }), 200).body.published).toBe(true);

    const unpublished = expectSite(expectStatus(await api('POST', `${at}/unpublish`, { token }), 200).body);
    expect(unpublished.published).toBe(false);
    expect(unpublished.urls.published).toBeUndefined();
    const read = expectStatus(await api('GET', at, { token }), 200).body;
    expect(read.published).toBe(false);
    expect(read.urls.published).toBeUndefined();
    const after = (await api('GET', `${at}/structure`, { token })).body;
    expect(after.structure[0].urls.published).toBeUndefined();
    expect(expectStatus(await api('POST', `${at}/unpublish`, { token }), 200).body.published).toBe(false);
  });

  it('refuses to publish a site without site spaces', async () => {
    const empty = await createSite(org.id, token, { title: 'Empty' });
    const at = `${sitesOf(org.id)}/${empty.id}`;
    const message = expectError(await api('POST', `${at}/publish`, { token }), 400, 'no content to publish');
    expect(expectStatus(await api('GET', at, { token }), 200).body.published).toBe(false);
    // The message names the call that gives the site content; made as it says, publishing then works.
    const call = /POST (\/v1\/orgs\/\S+\/site-spaces)/.exec(message);
    expect(call?.[1]).toBe(`${at}/site-spaces`);
    expect(message).toContain('{"spaceId":"<space id>"}');
    expectStatus(await api('POST', call![1], { token, body: { spaceId: space.id } }), 201);
    expect(expectStatus(await api('POST', `${at}/publish`, { token }), 200).body.published).toBe(true);
  });

  it('is for admins of the organization only', async () => {
    const site = await createSite(org.id, token, { title: 'Guarded', spaces: [space.id] });
    const at = `${sitesOf(org.id)}/${site.id}`;
    for (const action of ['publish', 'unpublish']) {
      expectError(await api('POST', `${at}/${action}`, { token: org.members.create.token }), 403);
      expectError(await api('POST', `${at}/${action}`, { token: org.members.guest.token }), 404);
      expectError(await api('POST', `${at}/${action}`, { token: org.outsider.token }), 404);
      expectError(await api('POST', `${at}/${action}`), 401);
      expectError(await api('POST', `${sitesOf(org.id)}/noSuchSite00000000/${action}`, { token }), 404);
    }
    expect(expectStatus(await api('GET', at, { token }), 200).body.published).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------

describe('deleteSiteById', () => {
  let org: TestOrg;
  let token: string;
  let space: any;

  beforeAll(async () => {
    org = await seedOrg();
    token = org.owner.token;
    space = await createSpace(org.id, token, 'Kept space');
  });

  it('deletes the site and its structure; deleting again is 204; the spaces stay', async () => {
    const site = await createSite(org.id, token, { title: 'Short lived', spaces: [space.id] });
    const at = `${sitesOf(org.id)}/${site.id}`;
    expectStatus(await api('POST', `${at}/sections`, { token, body: { spaceId: space.id, title: 'A section' } }), 201);
    expectStatus(await api('DELETE', at, { token }), 204);
    expectStatus(await api('DELETE', at, { token }), 204);
    expectError(await api('GET', at, { token }), 404);
    expectError(await api('GET', `${at}/structure`, { token }), 404);
    expectError(await api('GET', `${at}/sections`, { token }), 404);
    expect((await api('GET', `${sitesOf(org.id)}?space=${space.id}`, { token })).body.items.map((s: any) => s.id)).not.toContain(site.id);
    expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200);
    // Its basename is free again.
    expect((await createSite(org.id, token, { title: 'Short lived' })).basename).toBe('short-lived');
  });

  it("clears the organization's default content when it pointed at the deleted site", async () => {
    const site = await createSite(org.id, token, { title: 'Default content', spaces: [space.id] });
    const kept = await createSite(org.id, token, { title: 'Unrelated', spaces: [space.id] });
    const set = await api('PATCH', `/v1/orgs/${org.id}`, { token, body: { defaultContent: { type: 'site', site: site.id } } });
    expectStatus(set, 200);
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token }), 200).body.defaultContent).toEqual({ type: 'site', site: site.id });
    // Deleting another site leaves it alone.
    expectStatus(await api('DELETE', `${sitesOf(org.id)}/${kept.id}`, { token }), 204);
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token }), 200).body.defaultContent).toEqual({ type: 'site', site: site.id });
    expectStatus(await api('DELETE', `${sitesOf(org.id)}/${site.id}`, { token }), 204);
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token }), 200).body.defaultContent).toBeUndefined();
  });

  it('is for admins of the organization only', async () => {
    const site = await createSite(org.id, token, { title: 'Protected' });
    const at = `${sitesOf(org.id)}/${site.id}`;
    expectError(await api('DELETE', at, { token: org.members.create.token }), 403);
    expectError(await api('DELETE', at, { token: org.members.read.token }), 403);
    expectError(await api('DELETE', at, { token: org.members.guest.token }), 404);
    expectError(await api('DELETE', at, { token: org.outsider.token }), 404);
    expectError(await api('DELETE', at), 401);
    // The role is checked before the site is looked up: a non-admin's delete never "succeeds".
    expectError(await api('DELETE', `${sitesOf(org.id)}/noSuchSite00000000`, { token: org.members.create.token }), 403);
    expectError(await api('DELETE', `${sitesOf(org.id)}/noSuchSite00000000`, { token: org.members.read.token }), 403);
    expectError(await api('DELETE', `${sitesOf(org.id)}/noSuchSite00000000`, { token: org.outsider.token }), 404);
    expectStatus(await api('DELETE', `${sitesOf(org.id)}/noSuchSite00000000`, { token }), 204);
    // Another organization's id: the outsider's organization does not hold this site.
    const other = await otherOrgWithSpace(org.outsider.token);
    expectStatus(await api('DELETE', `${sitesOf(other.orgId)}/${site.id}`, { token: org.outsider.token }), 204);
    expectStatus(await api('GET', at, { token }), 200);
  });
});

// ---------------------------------------------------------------------------------------------

describe('getSiteStructure', () => {
  let org: TestOrg;
  let token: string;
  let spaces: any[];

  beforeAll(async () => {
    org = await seedOrg();
    token = org.owner.token;
    spaces = [await createSpace(org.id, token, 'Alpha'), await createSpace(org.id, token, 'Beta')];
  });

  it('is an empty list of site spaces for a new site', async () => {
    const site = await createSite(org.id, token, { title: 'Blank' });
    const body = expectStructure(expectStatus(await api('GET', `${sitesOf(org.id)}/${site.id}/structure`, { token }), 200).body);
    expect(body).toEqual({ type: 'siteSpaces', structure: [] });
  });

  it('lists the site spaces of a site without sections', async () => {
    const site = await createSite(org.id, token, { title: 'Flat', spaces: spaces.map((s) => s.id) });
    const body = expectStructure(
      expectStatus(await api('GET', `${sitesOf(org.id)}/${site.id}/structure`, { token: org.members.read.token }), 200).body,
    ) as any;
    expect(body.type).toBe('siteSpaces');
    expect(body.structure.map((s: any) => [s.object, s.title, s.space.id])).toEqual([
      ['site-space', 'Alpha', spaces[0].id],
      ['site-space', 'Beta', spaces[1].id],
    ]);
  });

  it('lists the sections and section groups of a site with sections', async () => {
    const site = await createSite(org.id, token, { title: 'Sectioned' });
    const at = `${sitesOf(org.id)}/${site.id}`;
    const a = expectStatus(await api('POST', `${at}/sections`, { token, body: { spaceId: spaces[0].id, title: 'Section A' } }), 201).body;
    const b = expectStatus(await api('POST', `${at}/sections`, { token, body: { spaceId: spaces[1].id, title: 'Section B' } }), 201).body;
    const group = expectStatus(await api('POST', `${at}/section-groups`, { token, body: { title: 'Group', sections: [b.id] } }), 201).body;
    const body = expectStructure(expectStatus(await api('GET', `${at}/structure`, { token }), 200).body) as any;
    expect(body.type).toBe('sections');
    expect(body.structure.map((i: any) => [i.object, i.id])).toEqual([
      ['site-section', a.id],
      ['site-section-group', group.id],
    ]);
    expect(body.structure[1].children.map((c: any) => c.id)).toEqual([b.id]);
    expect(body.structure[1].children[0].sectionGroup).toBe(group.id);
    expect(body.structure[0].siteSpaces.map((s: any) => s.space.id)).toEqual([spaces[0].id]);
  });

  it('answers readers; 404 for guests, outsiders and unknown sites; 401 without a token', async () => {
    const site = await createSite(org.id, token, { title: 'Guarded structure' });
    const at = `${sitesOf(org.id)}/${site.id}/structure`;
    expectError(await api('GET', at, { token: org.members.guest.token }), 404);
    expectError(await api('GET', at, { token: org.outsider.token }), 404);
    expectError(await api('GET', `${sitesOf(org.id)}/noSuchSite00000000/structure`, { token }), 404);
    expectError(await api('GET', at), 401);
  });
});
