/**
 * GitBook's sortSiteStructure (PATCH /orgs/{organizationId}/sites/{siteId}/structure/sort): a site space, section
 * or section group moved before or after a sibling of its level, or to the end; the item answered as GitBook's
 * SiteStructureItem (or 204 with `Prefer: return=minimal`). Unknown items 404, anchors that are not siblings 400,
 * nothing written either way; admins only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

const validator = schemaValidator(gitbookOperations().get('sortSiteStructure')!.responses['200']!, GITBOOK_0202.components);

let org: TestOrg;
let other: TestOrg;
let token: string;
const space: Record<string, string> = {};
let site: string;
let sections: Record<string, string>;
let group: string;
let variants: string[];

const sort = (body: unknown, as = token, path = site, headers?: Record<string, string>) => api('PATCH', `${path}/structure/sort`, { token: as, body, headers });
const ok = async (body: unknown) => {
  const moved = expectStatus(await sort(body), 200).body;
  expect(gitbookErrors(validator, moved)).toBe('valid');
  return moved;
};
const sectionOrder = async () => expectStatus(await api('GET', `${site}/sections`, { token }), 200).body.items.map((s: any) => s.title);
/** The ids at the root of the site's structure, in order (sections and groups). */
const rootOrder = async () => expectStatus(await api('GET', `${site}/structure`, { token }), 200).body.structure.map((item: any) => item.id);
const variantOrder = async () =>
  expectStatus(await api('GET', `${site}/site-spaces`, { token }), 200).body.items.filter((s: any) => s.section === sections.A).map((s: any) => s.id);

beforeAll(async () => {
  org = await seedOrg();
  other = await seedOrg();
  token = org.owner.token;
  for (const title of ['One', 'Two', 'Three', 'Four', 'Five']) space[title] = (await createSpace(org.id, token, title)).id;
  site = `/v1/orgs/${org.id}/sites/${expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'Sorted' } }), 201).body.id}`;
  sections = {};
  for (const [title, s] of [['A', 'One'], ['B', 'Two'], ['C', 'Three']]) {
    sections[title] = expectStatus(await api('POST', `${site}/sections`, { token, body: { spaceId: space[s], title: `Section ${title}` } }), 201).body.id;
  }
  group = expectStatus(await api('POST', `${site}/section-groups`, { token, body: { title: 'Group G' } }), 201).body.id;
  for (const s of ['Four', 'Five']) expectStatus(await api('POST', `${site}/site-spaces`, { token, body: { spaceId: space[s], sectionId: sections.A } }), 201);
  variants = await variantOrder();
});

describe('sortSiteStructure', () => {
  it('moves a section before or after a sibling, or to the end', async () => {
    expect(await sectionOrder()).toEqual(['Section A', 'Section B', 'Section C']);
    const moved = await ok({ item: { type: 'site-section', id: sections.C }, position: { before: { type: 'site-section', id: sections.A } } });
    expect(moved).toMatchObject({ object: 'site-section', id: sections.C });
    expect(await sectionOrder()).toEqual(['Section C', 'Section A', 'Section B']);
    await ok({ item: { type: 'site-section', id: sections.C }, position: { after: { type: 'site-section', id: sections.A } } });
    expect(await sectionOrder()).toEqual(['Section A', 'Section C', 'Section B']);
    await ok({ item: { type: 'site-section', id: sections.A }, position: {} });
    expect(await sectionOrder()).toEqual(['Section C', 'Section B', 'Section A']);
  });

  it('moves a section group among the sections of its level, and a site space among its variants', async () => {
    const moved = await ok({ item: { type: 'site-section-group', id: group }, position: { before: { type: 'site-section', id: sections.C } } });
    expect(moved).toMatchObject({ object: 'site-section-group', id: group });
    const root = await rootOrder();
    expect(root.indexOf(group)).toBe(root.indexOf(sections.C) - 1);
    const [first, second, third] = variants;
    const space3 = await ok({ item: { type: 'site-space', id: third }, position: { before: { type: 'site-space', id: first } } });
    expect(space3).toMatchObject({ object: 'site-space', id: third });
    expect(await variantOrder()).toEqual([third, first, second]);
    // A section may be placed relative to the group, its sibling.
    await ok({ item: { type: 'site-section', id: sections.B }, position: { before: { type: 'site-section-group', id: group } } });
    const after = await rootOrder();
    expect(after.indexOf(sections.B)).toBe(after.indexOf(group) - 1);
  });

  it('Prefer: return=minimal answers 204 with Preference-Applied', async () => {
    const res = await sort({ item: { type: 'site-section', id: sections.B }, position: {} }, token, site, { Prefer: 'return=minimal' });
    expect(res.status).toBe(204);
    expect(res.headers.get('Preference-Applied')).toBe('return=minimal');
    expect((await sectionOrder()).at(-1)).toBe('Section B');
  });

  it('unknown items 404, anchors that are not siblings or of another kind 400, and nothing moves', async () => {
    const before = await sectionOrder();
    const before2 = await variantOrder();
    expectError(await sort({ item: { type: 'site-section', id: 'nope' }, position: {} }), 404);
    expectError(await sort({ item: { type: 'site-space', id: 'nope' }, position: {} }), 404);
    expectError(await sort({ item: { type: 'site-section-group', id: sections.A }, position: {} }), 404);
    expectError(await sort({ item: { type: 'site-external-link', id: 'x' }, position: {} }), 404);
    expectError(await sort({ item: { type: 'site-section', id: sections.A }, position: { before: { type: 'site-section', id: 'nope' } } }), 400, 'Invalid move position');
    expectError(await sort({ item: { type: 'site-section', id: sections.A }, position: { before: { type: 'site-section', id: sections.A } } }), 400, 'itself');
    // A site space is not a sibling of a section; the section's id named as a group is not one either.
    expectError(await sort({ item: { type: 'site-section', id: sections.A }, position: { after: { type: 'site-space', id: variants[0] } } }), 400);
    expectError(await sort({ item: { type: 'site-section', id: sections.A }, position: { after: { type: 'site-section-group', id: sections.B } } }), 400);
    // A site space of another section is not a sibling.
    const otherSectionSpace = expectStatus(await api('GET', `${site}/site-spaces`, { token }), 200).body.items.find((s: any) => s.section === sections.B).id;
    expectError(await sort({ item: { type: 'site-space', id: variants[0] }, position: { before: { type: 'site-space', id: otherSectionSpace } } }), 400);
    // Malformed bodies.
    for (const body of [
      {},
      { item: { type: 'site-section', id: sections.A } },
      { item: { type: 'page', id: sections.A }, position: {} },
      { item: { type: 'site-section', id: 'x'.repeat(5000) }, position: {} },
      { item: { type: 'site-section', id: sections.A }, position: { before: { type: 'site-section', id: sections.B }, after: { type: 'site-section', id: sections.C } } },
      { item: [[[[[[[[]]]]]]]], position: {} },
    ]) {
      expect((await sort(body)).status).toBe(400);
    }
    expect(await sectionOrder()).toEqual(before);
    expect(await variantOrder()).toEqual(before2);
  });

  it('admins only: editors and readers 403; guests, outsiders and other organizations 404', async () => {
    const body = { item: { type: 'site-section', id: sections.A }, position: {} };
    const before = await sectionOrder();
    expectError(await sort(body, org.members.edit.token), 403);
    expectError(await sort(body, org.members.read.token), 403);
    for (const t of [org.members.guest.token, org.outsider.token, other.owner.token]) expectError(await sort(body, t), 404);
    const siteId = site.split('/').pop();
    expectError(await sort(body, other.owner.token, `/v1/orgs/${other.id}/sites/${siteId}`), 404);
    expect((await api('PATCH', `${site}/structure/sort`, { body })).status).toBe(401);
    // Their own site cannot anchor on this site's sections.
    const theirs = `/v1/orgs/${other.id}/sites/${expectStatus(await api('POST', `/v1/orgs/${other.id}/sites`, { token: other.owner.token, body: { title: 'Theirs' } }), 201).body.id}`;
    const theirSection = expectStatus(await api('POST', `${theirs}/sections`, { token: other.owner.token, body: { spaceId: (await createSpace(other.id, other.owner.token, 'T')).id, title: 'Theirs' } }), 201).body.id;
    expectError(await sort({ item: { type: 'site-section', id: theirSection }, position: { before: { type: 'site-section', id: sections.A } } }, other.owner.token, theirs), 400);
    expectError(await sort({ item: { type: 'site-section', id: sections.A }, position: {} }, other.owner.token, theirs), 404);
    expect(await sectionOrder()).toEqual(before);
  });
});
