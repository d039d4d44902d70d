/**
 * GitBook's duplicateSiteSpace (POST .../site-spaces/{siteSpaceId}/duplicate): the space is copied (a new private
 * space with the original's content, in the same collection) and published in the same site: as a variant right
 * after the original, or in a new section right after the original's when it was that section's only variant.
 * 201 with GitBook's SiteSpace and a Location; site admins who may create spaces; nothing written when refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { createSpace } from '../helpers/content';
import { measureRoundTrips } from '../helpers/round-trips';
import { spaceWithPages } from '../site/helpers';

const validator = schemaValidator(gitbookOperations().get('duplicateSiteSpace')!.responses['201']!, GITBOOK_0202.components);

let org: TestOrg;
let other: TestOrg;
let token: string;
let docs: { id: string; pages: Record<string, string> };
let extra: { id: string };

const sitesPath = () => `/v1/orgs/${org.id}/sites`;
const duplicate = (site: string, siteSpaceId: string, as = token, body: unknown = {}) => api('POST', `${site}/site-spaces/${siteSpaceId}/duplicate`, { token: as, body });
const siteSpaces = async (site: string) => expectStatus(await api('GET', `${site}/site-spaces`, { token }), 200).body.items as any[];
const spaceCount = async () => (await env.DB.prepare('select count(*) as n from spaces where org_id = ? and deleted_at is null').bind(org.id).first<{ n: number }>())!.n;

async function newSite(title: string, withSections: boolean) {
  const site = `${sitesPath()}/${expectStatus(await api('POST', sitesPath(), { token, body: { title, spaces: withSections ? [] : [docs.id] } }), 201).body.id}`;
  if (withSections) expectStatus(await api('POST', `${site}/sections`, { token, body: { spaceId: docs.id, title: 'Guides' } }), 201);
  return site;
}

beforeAll(async () => {
  org = await seedOrg();
  other = await seedOrg();
  token = org.owner.token;
  docs = await spaceWithPages(org, 'Docs', [
    { operation: 'insert_page', title: 'Home', document: { markdown: 'Home.\n' } },
    { operation: 'insert_page', title: 'Install', document: { markdown: 'Install it.\n' } },
  ]);
  extra = await createSpace(org.id, token, 'Extra');
});

describe('duplicateSiteSpace', () => {
  it("copies the space with its content; the only variant of a section gets a new section after it", async () => {
    const site = await newSite('Sectioned', true);
    const [original] = await siteSpaces(site);
    const res = await duplicate(site, original.id);
    const copy = expectStatus(res, 201).body;
    expect(gitbookErrors(validator, copy)).toBe('valid');
    expect(res.headers.get('Location')).toMatch(new RegExp(`/v1/orgs/${org.id}/sites/.+/site-spaces/${copy.id}$`));
    expect(copy.space.id).not.toBe(docs.id);
    expect(copy.space.title).toBe('Docs');
    expect(copy.space.visibility).toBe('private');
    expect(copy.section).not.toBe(original.section);
    const sections = expectStatus(await api('GET', `${site}/sections`, { token }), 200).body.items;
    expect(sections.map((s: any) => [s.title, s.siteSpaces.map((x: any) => x.space.id)])).toEqual([
      ['Guides', [docs.id]],
      ['Guides', [copy.space.id]],
    ]);
    expect(sections[0].path).not.toBe(sections[1].path);
    // The content came along: the copy reads the original's pages.
    const pages = expectStatus(await api('GET', `/v1/spaces/${copy.space.id}/content/pages`, { token }), 200).body.pages.map((p: any) => p.title);
    expect(pages).toEqual(['Home', 'Install']);
  });

  it('a site space with siblings (or at the root) gets its copy right after it, as a variant', async () => {
    const site = await newSite('Root', false);
    expectStatus(await api('POST', `${site}/site-spaces`, { token, body: { spaceId: extra.id } }), 201);
    const [first, second] = await siteSpaces(site);
    const copy = expectStatus(await duplicate(site, first.id), 201).body;
    expect(copy.section).toBeUndefined();
    expect(copy.default).toBe(false);
    expect((await siteSpaces(site)).map((s) => s.id)).toEqual([first.id, copy.id, second.id]);
    expect(new Set((await siteSpaces(site)).map((s) => s.path)).size).toBe(3);
    // The body is optional, as in GitBook's operation.
    const again = expectStatus(await api('POST', `${site}/site-spaces/${second.id}/duplicate`, { token }), 201).body;
    expect((await siteSpaces(site)).map((s) => s.id)).toEqual([first.id, copy.id, second.id, again.id]);
  });

  it('costs at most three round trips at the organization root', async () => {
    const site = await newSite('Trips', false);
    const [original] = await siteSpaces(site);
    const measured = await measureRoundTrips('POST', `${site}/site-spaces/${original.id}/duplicate`, token, {});
    expect(measured.status).toBe(201);
    expect(measured.roundTrips).toBeLessThanOrEqual(3);
  });

  it('refuses drafts, unknown site spaces and bad ids, writing nothing', async () => {
    const site = await newSite('Refusals', false);
    const [original] = await siteSpaces(site);
    const before = await spaceCount();
    expectError(await duplicate(site, original.id, token, { draft: true }), 400, 'draft');
    expectError(await duplicate(site, 'nope'), 404);
    expectError(await duplicate(site, 'x'.repeat(300)), 400);
    expectError(await duplicate(site, original.id, token, { draft: 'yes' }), 400, 'draft');
    expect(await spaceCount()).toBe(before);
    expect((await siteSpaces(site)).length).toBe(1);
  });

  it('site admins who may create spaces only: editors and readers 403; guests, outsiders, other organizations 404', async () => {
    const site = await newSite('Guarded', false);
    const [original] = await siteSpaces(site);
    const before = await spaceCount();
    expectError(await duplicate(site, original.id, org.members.edit.token), 403);
    expectError(await duplicate(site, original.id, org.members.read.token), 403);
    for (const t of [org.members.guest.token, org.outsider.token, other.owner.token]) expectError(await duplicate(site, original.id, t), 404);
    const siteId = site.split('/').pop();
    expectError(await duplicate(`/v1/orgs/${other.id}/sites/${siteId}`, original.id, other.owner.token), 404);
    // A site of another organization, with this site space's id: not found.
    const theirs = `/v1/orgs/${other.id}/sites/${expectStatus(await api('POST', `/v1/orgs/${other.id}/sites`, { token: other.owner.token, body: { title: 'Theirs' } }), 201).body.id}`;
    expectError(await duplicate(theirs, original.id, other.owner.token), 404);
    expect((await api('POST', `${site}/site-spaces/${original.id}/duplicate`, { body: {} })).status).toBe(401);
    expect(await spaceCount()).toBe(before);
  });
});
