/**
 * A site's structure: sections, section groups and site spaces. The invariants (one default section,
 * one default site space per section or at the root, paths unique among siblings) are checked after
 * every step of a long sequence of creates, moves and deletes; then moves, paths, conditions, hidden,
 * lists, idempotent deletes and the per-site limits one by one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SiteSectionGroupSchema, SiteSectionSchema, SiteSpaceSchema, SiteStructureSchema } from '../../src/schemas/site';
import { SITE_LIMITS } from '../../src/services/sites/model';
import { createSpace } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectSchema, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';

const GITBOOK = {
  section: gitbookValidator('SiteSection', GITBOOK_0202.components),
  group: gitbookValidator('SiteSectionGroup', GITBOOK_0202.components),
  siteSpace: gitbookValidator('SiteSpace', GITBOOK_0202.components),
  structure: gitbookValidator('SiteStructure', GITBOOK_0202.components),
};

function conforms(validator: keyof typeof GITBOOK, body: unknown) {
  expect(gitbookErrors(GITBOOK[validator], body), JSON.stringify(body)).toBe('valid');
  const ours = { section: SiteSectionSchema, group: SiteSectionGroupSchema, siteSpace: SiteSpaceSchema, structure: SiteStructureSchema }[validator];
  return expectSchema(ours, body) as any;
}

let org: TestOrg;
let token: string;
/** Spaces of the organization, by title. */
const space: Record<string, any> = {};

beforeAll(async () => {
  org = await seedOrg();
  token = org.owner.token;
  for (const title of ['One', 'Two', 'Three', 'Four', 'Five', 'Six']) space[title] = await createSpace(org.id, token, title);
});

const sitesPath = () => `/v1/orgs/${org.id}/sites`;

async function newSite(title: string, spaces: string[] = []): Promise<string> {
  const res = await api('POST', sitesPath(), { token, body: { title, spaces: spaces.map((t) => space[t].id) } });
  return `${sitesPath()}/${expectStatus(res, 201).body.id}`;
}

const call = (method: string, path: string, body?: unknown): Promise<ApiResponse> => api(method, path, { token, body });
const ok = async (res: Promise<ApiResponse>, status = 200) => expectStatus(await res, status).body;

async function addSection(site: string, spaceTitle: string, title: string, extra: Record<string, unknown> = {}) {
  return conforms('section', await ok(call('POST', `${site}/sections`, { spaceId: space[spaceTitle].id, title, ...extra }), 201));
}

async function addGroup(site: string, title: string, extra: Record<string, unknown> = {}) {
  return conforms('group', await ok(call('POST', `${site}/section-groups`, { title, ...extra }), 201));
}

async function addSiteSpace(site: string, spaceTitle: string, extra: Record<string, unknown> = {}) {
  return conforms('siteSpace', await ok(call('POST', `${site}/site-spaces`, { spaceId: space[spaceTitle].id, ...extra }), 201));
}

const sameText = (a: string[]) => new Set(a.map((p) => p.toLowerCase())).size === a.length;

/**
 * Reads the structure and asserts the invariants: exactly one default section when there are sections,
 * exactly one default site space in every section (or at the root) that has site spaces, paths unique among
 * siblings (section paths across the whole site: groups are not part of published URLs), every item in
 * the group it says, and GitBook's schema. Returns the structure.
 */
async function checkedStructure(site: string): Promise<any> {
  const structure = conforms('structure', await ok(call('GET', `${site}/structure`)));
  const defaultsOf = (rows: any[]) => rows.filter((r) => r.default).length;
  if (structure.type === 'siteSpaces') {
    const rows = structure.structure;
    if (rows.length) expect(defaultsOf(rows), 'one default site space at the root').toBe(1);
    expect(sameText(rows.map((r: any) => r.path)), 'root site space paths unique').toBe(true);
    return structure;
  }
  const sections: any[] = [];
  const groupIds = new Set<string>();
  const walk = (items: any[], groupId: string | undefined) => {
    for (const item of items) {
      if (item.object === 'site-section') {
        expect(item.sectionGroup, `section ${item.title} in its group`).toBe(groupId);
        sections.push(item);
      } else {
        expect(item.object).toBe('site-section-group');
        expect(item.sectionGroup, `group ${item.title} in its parent`).toBe(groupId);
        expect(groupIds.has(item.id)).toBe(false);
        groupIds.add(item.id);
        expect(item.sections.map((s: any) => s.id)).toEqual(item.children.filter((c: any) => c.object === 'site-section').map((c: any) => c.id));
        walk(item.children, item.id);
      }
    }
  };
  walk(structure.structure, undefined);
  if (sections.length) expect(defaultsOf(sections), 'one default section').toBe(1);
  expect(sameText(sections.map((s) => s.path)), 'section paths unique').toBe(true);
  for (const section of sections) {
    if (section.siteSpaces.length) expect(defaultsOf(section.siteSpaces), `one default site space in ${section.title}`).toBe(1);
    expect(sameText(section.siteSpaces.map((s: any) => s.path)), `site space paths unique in ${section.title}`).toBe(true);
    for (const siteSpace of section.siteSpaces) expect(siteSpace.section).toBe(section.id);
  }
  return structure;
}

/**
 * The structure in short: `*` marks defaults, a section is `Title(site spaces)`, a group `[Title: children]`,
 * a site space the title of its space.
 */
function outline(structure: any): string[] {
  const siteSpace = (s: any) => `${s.default ? '*' : ''}${s.title}`;
  const item = (i: any): string =>
    i.object === 'site-section'
      ? `${i.default ? '*' : ''}${i.title}(${i.siteSpaces.map(siteSpace).join(',')})`
      : `[${i.title}: ${i.children.map(item).join(' ')}]`;
  return structure.type === 'siteSpaces' ? structure.structure.map(siteSpace) : structure.structure.map(item);
}

async function expectOutline(site: string, expected: string[]) {
  expect(outline(await checkedStructure(site))).toEqual(expected);
}

// ---------------------------------------------------------------------------------------------

describe('the first section of a site with root site spaces', () => {
  it('moves the root site spaces into a first, default section titled after the site', async () => {
    const site = await newSite('Handbook', ['One', 'Two']);
    const [, second] = (await checkedStructure(site)).structure;
    expectStatus(await call('PATCH', site, { defaultSiteSpace: second.id }), 200);
    await expectOutline(site, ['One', '*Two']);

    const added = await addSection(site, 'Three', 'Guides');
    expect(added).toMatchObject({ title: 'Guides', default: false, path: 'guides' });
    const structure = await checkedStructure(site);
    expect(structure.type).toBe('sections');
    expect(outline(structure)).toEqual(['*Handbook(One,*Two)', 'Guides(*Three)']);
    const first = structure.structure[0];
    expect(first).toMatchObject({ title: 'Handbook', path: 'handbook', default: true });
    // The same site spaces (ids, paths), now in the section.
    expect(first.siteSpaces.map((s: any) => s.id)).toEqual((await ok(call('GET', `${site}/site-spaces`))).items.slice(0, 2).map((s: any) => s.id));
    expect(first.siteSpaces.map((s: any) => [s.path, s.section])).toEqual([
      ['one', first.id],
      ['two', first.id],
    ]);
    // The site still counts all three.
    expect((await ok(call('GET', site))).siteSpaces).toBe(3);
  });

  it('gives the new section another path when it takes the site title', async () => {
    const site = await newSite('Guides', ['One']);
    await addSection(site, 'Two', 'Guides');
    const structure = await checkedStructure(site);
    expect(structure.structure.map((s: any) => [s.title, s.path, s.default])).toEqual([
      ['Guides', 'guides', true],
      ['Guides', 'guides-2', false],
    ]);
  });

  it("is not done for a site without site spaces: the first section is the default; titles default to the space's", async () => {
    const site = await newSite('Bare');
    const first = await addSection(site, 'One', 'First');
    expect(first.default).toBe(true);
    const second = conforms('section', await ok(call('POST', `${site}/sections`, { spaceId: space.Four.id }), 201));
    expect(second).toMatchObject({ title: 'Four', path: 'four', default: false });
    await expectOutline(site, ['*First(*One)', 'Four(*Four)']);
  });

  it('refuses a space of another organization, an unknown group or a bad title', async () => {
    const site = await newSite('Refusals', ['One']);
    const outsiderOrg = await ok(api('POST', '/v1/orgs', { token: org.outsider.token, body: { title: 'Outside' } }), 201);
    const foreign = await createSpace(outsiderOrg.id, org.outsider.token, 'Foreign');
    expectError(await call('POST', `${site}/sections`, { spaceId: foreign.id, title: 'Nope' }), 400, foreign.id);
    expectError(await call('POST', `${site}/sections`, { spaceId: 'noSuchSpace0000000', title: 'Nope' }), 400, 'noSuchSpace0000000');
    expectError(await call('POST', `${site}/sections`, { spaceId: space.Two.id, title: 'Nope', siteSectionGroupId: 'noSuchGroup0000000' }), 400, 'noSuchGroup0000000');
    expectError(await call('POST', `${site}/sections`, { spaceId: space.Two.id, title: 'x' }), 400, 'title');
    // Nothing changed: still root site spaces.
    await expectOutline(site, ['*One']);
  });
});

// ---------------------------------------------------------------------------------------------

describe('the default invariants under a sequence of creates, moves and deletes', () => {
  it('hold after every step', async () => {
    const site = await newSite('Manual', ['One', 'Two']);
    const sectionPath = (id: string) => `${site}/sections/${id}`;
    const groupPath = (id: string) => `${site}/section-groups/${id}`;
    let steps = 0;
    const step = async (expected: string[]) => {
      steps++;
      await expectOutline(site, expected);
    };

    await step(['*One', 'Two']);
    // 1. The first section: the root site spaces move into "Manual".
    const guides = await addSection(site, 'Three', 'Guides');
    await step(['*Manual(*One,Two)', 'Guides(*Three)']);
    const manual = (await checkedStructure(site)).structure[0];
    // 2.
    const api_ = await addSection(site, 'Four', 'API');
    await step(['*Manual(*One,Two)', 'Guides(*Three)', 'API(*Four)']);
    // 3. A site space without a section goes to the default section.
    const five = await addSiteSpace(site, 'Five');
    expect(five.section).toBe(manual.id);
    await step(['*Manual(*One,Two,Five)', 'Guides(*Three)', 'API(*Four)']);
    // 4.
    const six = await addSiteSpace(site, 'Six', { sectionId: guides.id });
    await step(['*Manual(*One,Two,Five)', 'Guides(*Three,Six)', 'API(*Four)']);
    // 5. A group takes API.
    const developers = await addGroup(site, 'Developers', { sections: [api_.id] });
    await step(['*Manual(*One,Two,Five)', 'Guides(*Three,Six)', '[Developers: API(*Four)]']);
    // 6. A section after a group.
    await ok(call('POST', `${sectionPath(guides.id)}/move`, { position: { after: { type: 'site-section', siteSection: developers.id } } }));
    await step(['*Manual(*One,Two,Five)', '[Developers: API(*Four)]', 'Guides(*Three,Six)']);
    // 7. To the end without a position; the default stays where it is.
    await ok(call('POST', `${sectionPath(manual.id)}/move`, {}));
    await step(['[Developers: API(*Four)]', 'Guides(*Three,Six)', '*Manual(*One,Two,Five)']);
    // 8. Deleting the default section: the first section in reading order (inside the group) takes over.
    expectStatus(await call('DELETE', sectionPath(manual.id)), 204);
    await step(['[Developers: *API(*Four)]', 'Guides(*Three,Six)']);
    // 9. Deleting the default site space of Guides.
    const guidesNow = (await checkedStructure(site)).structure[1];
    expectStatus(await call('DELETE', `${site}/site-spaces/${guidesNow.siteSpaces[0].id}`), 204);
    await step(['[Developers: *API(*Four)]', 'Guides(*Six)']);
    expect(six.id).toBe((await checkedStructure(site)).structure[1].siteSpaces[0].id);
    // 10. A section created in a group.
    const tutorials = await addSection(site, 'One', 'Tutorials', { siteSectionGroupId: developers.id });
    expect(tutorials.sectionGroup).toBe(developers.id);
    await step(['[Developers: *API(*Four) Tutorials(*One)]', 'Guides(*Six)']);
    // 11. A nested group.
    const advanced = await addGroup(site, 'Advanced', { parent: developers.id });
    expect(advanced.sectionGroup).toBe(developers.id);
    await step(['[Developers: *API(*Four) Tutorials(*One) [Advanced: ]]', 'Guides(*Six)']);
    // 12. addSectionToGroup.
    const grouped = conforms('group', await ok(call('POST', `${groupPath(advanced.id)}/sections`, { sectionId: tutorials.id }), 201));
    expect(grouped.children.map((c: any) => c.id)).toEqual([tutorials.id]);
    await step(['[Developers: *API(*Four) [Advanced: Tutorials(*One)]]', 'Guides(*Six)']);
    // 13. updateSiteSectionById with siteSectionGroupId: to the end of the group.
    const moved = conforms('section', await ok(call('PATCH', sectionPath(guides.id), { siteSectionGroupId: advanced.id })));
    expect(moved.sectionGroup).toBe(advanced.id);
    await step(['[Developers: *API(*Four) [Advanced: Tutorials(*One) Guides(*Six)]]']);
    // 14. Before a sibling inside the group.
    await ok(call('POST', `${sectionPath(guides.id)}/move`, { position: { before: { type: 'site-section', siteSection: tutorials.id } } }));
    await step(['[Developers: *API(*Four) [Advanced: Guides(*Six) Tutorials(*One)]]']);
    // 15. updateSiteSectionGroupById with parentSectionGroupId null: to the root, at the end.
    const lifted = conforms('group', await ok(call('PATCH', groupPath(advanced.id), { parentSectionGroupId: null })));
    expect(lifted.sectionGroup).toBeUndefined();
    await step(['[Developers: *API(*Four)]', '[Advanced: Guides(*Six) Tutorials(*One)]']);
    // 16. A group before another group.
    await ok(call('POST', `${groupPath(advanced.id)}/move`, { position: { before: { type: 'site-section-group', id: developers.id } } }));
    await step(['[Advanced: Guides(*Six) Tutorials(*One)]', '[Developers: *API(*Four)]']);
    // 17. removeSectionFromGroup: the section goes to the group's parent (the root), at the end.
    expectStatus(await call('DELETE', `${groupPath(advanced.id)}/sections/${guides.id}`), 204);
    await step(['[Advanced: Tutorials(*One)]', '[Developers: *API(*Four)]', 'Guides(*Six)']);
    // 18. A section before a group.
    await ok(call('POST', `${sectionPath(guides.id)}/move`, { position: { before: { type: 'site-section', siteSection: developers.id } } }));
    await step(['[Advanced: Tutorials(*One)]', 'Guides(*Six)', '[Developers: *API(*Four)]']);
    // 19. Deleting a group in the middle: its sections move up, in its place.
    const second = await addSection(site, 'Two', 'Reference', { siteSectionGroupId: developers.id });
    await step(['[Advanced: Tutorials(*One)]', 'Guides(*Six)', '[Developers: *API(*Four) Reference(*Two)]']);
    await ok(call('POST', `${sectionPath(guides.id)}/move`, {}));
    await step(['[Advanced: Tutorials(*One)]', '[Developers: *API(*Four) Reference(*Two)]', 'Guides(*Six)']);
    expectStatus(await call('DELETE', groupPath(developers.id)), 204);
    await step(['[Advanced: Tutorials(*One)]', '*API(*Four)', 'Reference(*Two)', 'Guides(*Six)']);
    // 20. A group after a section.
    await ok(call('POST', `${groupPath(advanced.id)}/move`, { position: { after: { type: 'site-section', id: api_.id } } }));
    await step(['*API(*Four)', '[Advanced: Tutorials(*One)]', 'Reference(*Two)', 'Guides(*Six)']);
    // 21. Deleting the default section again: the first in reading order is inside a group.
    expectStatus(await call('DELETE', sectionPath(api_.id)), 204);
    await step(['[Advanced: *Tutorials(*One)]', 'Reference(*Two)', 'Guides(*Six)']);
    // 22. Another site space in Reference, made its default, then deleted.
    const extra = await addSiteSpace(site, 'Three', { sectionId: second.id });
    await step(['[Advanced: *Tutorials(*One)]', 'Reference(*Two,Three)', 'Guides(*Six)']);
    await ok(call('PATCH', sectionPath(second.id), { defaultSiteSpace: extra.id }));
    await step(['[Advanced: *Tutorials(*One)]', 'Reference(Two,*Three)', 'Guides(*Six)']);
    expectStatus(await call('DELETE', `${site}/site-spaces/${extra.id}`), 204);
    await step(['[Advanced: *Tutorials(*One)]', 'Reference(*Two)', 'Guides(*Six)']);
    // 23. The site's default section moves.
    await ok(call('PATCH', site, { defaultSiteSection: guides.id }));
    await step(['[Advanced: Tutorials(*One)]', 'Reference(*Two)', '*Guides(*Six)']);
    // 24. The last site space of a section goes; the section stays, empty.
    const guidesSpaces = (await checkedStructure(site)).structure[2].siteSpaces;
    expectStatus(await call('DELETE', `${site}/site-spaces/${guidesSpaces[0].id}`), 204);
    await step(['[Advanced: Tutorials(*One)]', 'Reference(*Two)', '*Guides()']);
    // 25. Deleting the default section, then the section of the nested group that took over.
    expectStatus(await call('DELETE', sectionPath(guides.id)), 204);
    await step(['[Advanced: *Tutorials(*One)]', 'Reference(*Two)']);
    expectStatus(await call('DELETE', sectionPath(tutorials.id)), 204);
    await step(['[Advanced: ]', '*Reference(*Two)']);
    expect(steps).toBeGreaterThanOrEqual(25);
  });
});

// ---------------------------------------------------------------------------------------------

describe('the last section', () => {
  it('takes the section groups with it: the site is flat again, and sections start over', async () => {
    const site = await newSite('Shrinking');
    const only = await addSection(site, 'One', 'Only');
    const holder = await addGroup(site, 'Holder', { sections: [only.id] });
    await addGroup(site, 'Nested', { parent: holder.id });
    await expectOutline(site, ['[Holder: *Only(*One) [Nested: ]]']);
    expectStatus(await call('DELETE', `${site}/sections/${only.id}`), 204);
    expect(await checkedStructure(site)).toEqual({ type: 'siteSpaces', structure: [] });
    expect((await ok(call('GET', `${site}/section-groups`))).count).toBe(0);
    expect((await ok(call('GET', `${site}/sections`))).count).toBe(0);
    // A site space goes to the root again; the next section takes it into a first section.
    await addSiteSpace(site, 'Two');
    await expectOutline(site, ['*Two']);
    await addSection(site, 'Three', 'Again');
    await expectOutline(site, ['*Shrinking(*Two)', 'Again(*Three)']);
  });
});

describe('concurrent changes', () => {
  it('apply one at a time or answer 409, and the invariants hold', async () => {
    const site = await newSite('Busy', ['One']);
    const titles = ['Two', 'Three', 'Four', 'Five', 'Six'];
    const results = await Promise.all(titles.map((t) => call('POST', `${site}/sections`, { spaceId: space[t].id, title: `Busy ${t}` })));
    const created = results.filter((r) => r.status === 201).map((r) => r.body);
    for (const res of results) if (res.status !== 201) expectError(res, 409, 'changed');
    expect(created.length).toBeGreaterThan(0);
    const structure = await checkedStructure(site);
    // The first section applied moved the root site space into a section titled after the site, once.
    expect(structure.structure[0]).toMatchObject({ title: 'Busy', default: true });
    expect(structure.structure.slice(1).map((s: any) => s.id).sort()).toEqual(created.map((s) => s.id).sort());
    expect((await ok(call('GET', site))).siteSpaces).toBe(1 + created.length);
  });
});

// ---------------------------------------------------------------------------------------------

describe('section groups: nesting', () => {
  let site: string;
  beforeAll(async () => {
    site = await newSite('Nesting');
    await addSection(site, 'One', 'Only');
  });

  it('refuses a group before the site has sections', async () => {
    const bare = await newSite('No sections');
    expectError(await call('POST', `${bare}/section-groups`, { title: 'Early' }), 400, 'section');
  });

  it(`nests at most ${SITE_LIMITS.groupDepth} deep and never in a cycle`, async () => {
    const chain: any[] = [];
    for (let depth = 1; depth <= SITE_LIMITS.groupDepth; depth++) {
      chain.push(await addGroup(site, `Level ${depth}`, depth > 1 ? { parent: chain[depth - 2].id } : {}));
      await checkedStructure(site);
    }
    expect(chain.map((g) => g.sectionGroup)).toEqual([undefined, ...chain.slice(0, -1).map((g) => g.id)]);
    expectError(await call('POST', `${site}/section-groups`, { title: 'Too deep', parent: chain[chain.length - 1].id }), 400, 'deep');
    expectError(await call('POST', `${site}/section-groups`, { title: 'Orphan', parent: 'noSuchGroup0000000' }), 400, 'noSuchGroup0000000');

    // Cycles: into itself or into one of its descendants.
    const groupPath = (id: string) => `${site}/section-groups/${id}`;
    expectError(await call('PATCH', groupPath(chain[0].id), { parentSectionGroupId: chain[0].id }), 400);
    expectError(await call('PATCH', groupPath(chain[0].id), { parentSectionGroupId: chain[3].id }), 400, 'itself');
    expectError(await call('PATCH', groupPath(chain[1].id), { parentSectionGroupId: chain[4].id }), 400, 'itself');
    expectError(await call('PATCH', groupPath(chain[0].id), { parentSectionGroupId: 'noSuchGroup0000000' }), 400, 'noSuchGroup0000000');
    // Moving a two-level subtree under a group of depth 4 would make 6 levels.
    const pair = await addGroup(site, 'Pair');
    await addGroup(site, 'Pair child', { parent: pair.id });
    expectError(await call('PATCH', groupPath(pair.id), { parentSectionGroupId: chain[3].id }), 400, 'deep');
    // Under depth 3 it fits (3 + 2 = 5).
    const fitted = conforms('group', await ok(call('PATCH', groupPath(pair.id), { parentSectionGroupId: chain[2].id, title: 'Pair moved' })));
    expect(fitted).toMatchObject({ title: 'Pair moved', sectionGroup: chain[2].id });
    const structure = await checkedStructure(site);
    // The chain is intact: Level 1 > 2 > 3 > (4 > 5, Pair moved > Pair child).
    let level = structure.structure.find((i: any) => i.id === chain[0].id);
    for (const expected of chain.slice(1, 3)) level = level.children.find((c: any) => c.id === expected.id);
    expect(level.children.map((c: any) => c.title)).toEqual(['Level 4', 'Pair moved']);
    expect(level.children[1].children.map((c: any) => c.title)).toEqual(['Pair child']);
  });

  it('changes title and icon; refuses bad values', async () => {
    const group = await addGroup(site, 'Iconic', { icon: 'gear' });
    expect(group).toMatchObject({ title: 'Iconic', icon: 'gear' });
    const at = `${site}/section-groups/${group.id}`;
    expect(conforms('group', await ok(call('PATCH', at, { title: 'Renamed', icon: null })))).toMatchObject({ title: 'Renamed' });
    expect((await ok(call('PATCH', at, {}))).icon).toBeUndefined();
    expectError(await call('PATCH', at, { title: '' }), 400, 'title');
    expectError(await call('PATCH', `${site}/section-groups/noSuchGroup0000000`, { title: 'Ghost' }), 404);
    expectError(await call('POST', `${site}/section-groups/${group.id}/sections`, { sectionId: 'noSuchSection00000' }), 400, 'noSuchSection00000');
    const only = (await checkedStructure(site)).structure.find((i: any) => i.object === 'site-section');
    expectError(await call('POST', `${site}/section-groups/noSuchGroup0000000/sections`, { sectionId: only.id }), 404);
  });
});

// ---------------------------------------------------------------------------------------------

describe('moves', () => {
  let site: string;
  let other: string;
  const ids: Record<string, string> = {};
  const move = (kind: 'sections' | 'section-groups' | 'site-spaces', id: string, position?: unknown) =>
    call('POST', `${site}/${kind}/${id}/move`, position === undefined ? {} : { position });
  const order = async () => outline(await checkedStructure(site));

  beforeAll(async () => {
    site = await newSite('Moves');
    for (const [title, spaceTitle] of [['A', 'One'], ['B', 'Two'], ['C', 'Three'], ['D', 'Four']] as const) {
      ids[title] = (await addSection(site, spaceTitle, `Section ${title}`)).id;
    }
    ids.G = (await addGroup(site, 'G', { sections: [ids.D] })).id;
    ids.H = (await addGroup(site, 'H')).id;
    const a = await addSiteSpace(site, 'Five', { sectionId: ids.A });
    const a2 = await addSiteSpace(site, 'Six', { sectionId: ids.A });
    ids.a1 = (await checkedStructure(site)).structure[0].siteSpaces[0].id;
    ids.a2 = a.id;
    ids.a3 = a2.id;
    other = await newSite('Elsewhere');
    ids.otherSection = (await addSection(other, 'One', 'Foreign section')).id;
    ids.otherGroup = (await addGroup(other, 'Foreign group')).id;
    ids.otherSiteSpace = (await checkedStructure(other)).structure[0].siteSpaces[0].id;
  });

  it('moves sections before and after sections and groups, and to the end', async () => {
    expect(await order()).toEqual(['*Section A(*One,Five,Six)', 'Section B(*Two)', 'Section C(*Three)', '[G: Section D(*Four)]', '[H: ]']);
    const moved = conforms('section', await ok(move('sections', ids.A, { after: { type: 'site-section', siteSection: ids.C } })));
    expect(moved.id).toBe(ids.A);
    expect((await order()).map((s) => s.split('(')[0])).toEqual(['Section B', 'Section C', '*Section A', '[G: Section D', '[H: ]']);
    await ok(move('sections', ids.A, { before: { type: 'site-section', siteSection: ids.B } }));
    expect((await order())[0]).toBe('*Section A(*One,Five,Six)');
    await ok(move('sections', ids.B));
    expect((await order()).map((s) => s.split('(')[0])).toEqual(['*Section A', 'Section C', '[G: Section D', '[H: ]', 'Section B']);
    await ok(move('sections', ids.B, { after: { type: 'site-section', siteSection: ids.G } }));
    expect((await order()).map((s) => s.split('(')[0])).toEqual(['*Section A', 'Section C', '[G: Section D', 'Section B', '[H: ]']);
    await ok(move('sections', ids.C, { before: { type: 'site-section', siteSection: ids.H } }));
    expect((await order()).map((s) => s.split('(')[0])).toEqual(['*Section A', '[G: Section D', 'Section B', 'Section C', '[H: ]']);
    // The default does not follow the position.
    await ok(move('sections', ids.A));
    expect((await order()).map((s) => s.split('(')[0])).toEqual(['[G: Section D', 'Section B', 'Section C', '[H: ]', '*Section A']);
  });

  it('moves groups before and after sections and groups, and to the end', async () => {
    const moved = conforms('group', await ok(move('section-groups', ids.H, { before: { type: 'site-section-group', id: ids.G } })));
    expect(moved.id).toBe(ids.H);
    expect((await order()).map((s) => s.split('(')[0])).toEqual(['[H: ]', '[G: Section D', 'Section B', 'Section C', '*Section A']);
    await ok(move('section-groups', ids.G, { after: { type: 'site-section', id: ids.C } }));
    expect((await order()).map((s) => s.split('(')[0])).toEqual(['[H: ]', 'Section B', 'Section C', '[G: Section D', '*Section A']);
    await ok(move('section-groups', ids.H));
    expect((await order()).map((s) => s.split('(')[0])).toEqual(['Section B', 'Section C', '[G: Section D', '*Section A', '[H: ]']);
  });

  it('moves site spaces within their section', async () => {
    const spaces = async () => (await checkedStructure(site)).structure.find((s: any) => s.id === ids.A).siteSpaces.map((s: any) => s.id);
    expect(await spaces()).toEqual([ids.a1, ids.a2, ids.a3]);
    const moved = conforms('siteSpace', await ok(move('site-spaces', ids.a1, { after: { type: 'site-space', siteSpace: ids.a3 } })));
    expect(moved).toMatchObject({ id: ids.a1, default: true });
    expect(await spaces()).toEqual([ids.a2, ids.a3, ids.a1]);
    await ok(move('site-spaces', ids.a3, { before: { type: 'site-space', siteSpace: ids.a2 } }));
    expect(await spaces()).toEqual([ids.a3, ids.a2, ids.a1]);
    await ok(move('site-spaces', ids.a3));
    expect(await spaces()).toEqual([ids.a2, ids.a1, ids.a3]);
  });

  it('refuses invalid positions with "Invalid move position" and changes nothing', async () => {
    const before = await order();
    const bSiteSpace = (await checkedStructure(site)).structure.find((s: any) => s.id === ids.B).siteSpaces[0].id;
    const invalid: [Promise<ApiResponse>, string][] = [
      [move('sections', ids.B, { before: { type: 'site-section', siteSection: ids.B } }), 'itself'],
      [move('sections', ids.B, { after: { type: 'site-section', siteSection: ids.otherSection } }), 'another site'],
      [move('sections', ids.B, { before: { type: 'site-section', siteSection: 'noSuchSection00000' } }), 'missing'],
      [move('section-groups', ids.G, { after: { type: 'site-section-group', id: ids.G } }), 'itself'],
      [move('section-groups', ids.G, { before: { type: 'site-section-group', id: ids.otherGroup } }), 'another site'],
      [move('section-groups', ids.G, { before: { type: 'site-section', id: 'noSuchSection00000' } }), 'missing'],
      [move('site-spaces', ids.a1, { before: { type: 'site-space', siteSpace: ids.a1 } }), 'itself'],
      [move('site-spaces', ids.a1, { after: { type: 'site-space', siteSpace: ids.otherSiteSpace } }), 'another site'],
      [move('site-spaces', ids.a1, { after: { type: 'site-space', siteSpace: 'noSuchSiteSpace000' } }), 'missing'],
      // A site space of another section is not a place among this section's site spaces.
      [move('site-spaces', ids.a1, { after: { type: 'site-space', siteSpace: bSiteSpace } }), 'another section'],
    ];
    for (const [res, why] of invalid) {
      const r = await res;
      expect(r.status, `${why}: ${JSON.stringify(r.body)}`).toBe(400);
      expectError(r, 400, 'Invalid move position');
    }
    expect(await order()).toEqual(before);
  });

  it('refuses malformed positions (400) and unknown targets (404)', async () => {
    expectError(
      await move('sections', ids.B, { before: { type: 'site-section', siteSection: ids.C }, after: { type: 'site-section', siteSection: ids.C } }),
      400,
    );
    expectError(await move('sections', ids.B, { before: { type: 'site-space', siteSection: ids.C } }), 400);
    expectError(await move('sections', 'noSuchSection00000', { before: { type: 'site-section', siteSection: ids.C } }), 404);
    expectError(await move('section-groups', 'noSuchGroup0000000'), 404);
    expectError(await move('site-spaces', 'noSuchSiteSpace000'), 404);
    // A section of another site is unknown in this one.
    expectError(await move('sections', ids.otherSection), 404);
    expectError(await move('section-groups', ids.otherGroup), 404);
    expectError(await move('site-spaces', ids.otherSiteSpace), 404);
  });
});

// ---------------------------------------------------------------------------------------------

describe('paths', () => {
  let site: string;
  let first: any;
  let second: any;
  beforeAll(async () => {
    site = await newSite('Paths');
    first = await addSection(site, 'One', 'First');
    second = await addSection(site, 'Two', 'Second');
    await addSiteSpace(site, 'Three', { sectionId: first.id });
  });

  it('sets a section path that is a free URL segment', async () => {
    const at = `${site}/sections/${second.id}`;
    expect(conforms('section', await ok(call('PATCH', at, { path: 'v2.0_beta~x' }))).path).toBe('v2.0_beta~x');
    for (const bad of ['two words', 'a/b', '-a', 'a.', '', 'ü']) expectError(await call('PATCH', at, { path: bad }), 400, 'path');
    expectError(await call('PATCH', at, { path: 'first' }), 400, 'path');
    expectError(await call('PATCH', at, { path: 'FIRST' }), 400, 'path');
    // Its own path again is fine.
    expect((await ok(call('PATCH', at, { path: 'V2.0_beta~x' }))).path).toBe('V2.0_beta~x');
    // Section paths are unique across groups too: groups are not part of published URLs.
    const group = await addGroup(site, 'Grouped', { sections: [second.id] });
    expect(group.children[0].id).toBe(second.id);
    expectError(await call('PATCH', at, { path: 'first' }), 400, 'path');
    await checkedStructure(site);
  });

  it('keeps site space paths unique within a section only', async () => {
    const structure = await checkedStructure(site);
    const sections = structure.structure.flatMap((i: any) => (i.object === 'site-section' ? [i] : i.children));
    const [one, three] = sections.find((s: any) => s.id === first.id).siteSpaces;
    const two = sections.find((s: any) => s.id === second.id).siteSpaces[0];
    const patch = (id: string, body: unknown) => call('PATCH', `${site}/site-spaces/${id}`, body);
    expect(conforms('siteSpace', await ok(patch(one.id, { path: 'latest' }))).path).toBe('latest');
    expectError(await patch(three.id, { path: 'latest' }), 400, 'path');
    expectError(await patch(three.id, { path: 'Latest' }), 400, 'path');
    // The same path in another section is allowed.
    expect((await ok(patch(two.id, { path: 'latest' }))).path).toBe('latest');
    for (const bad of ['has space', 'x/y', '.hidden', '']) expectError(await patch(three.id, { path: bad }), 400, 'path');
    const after = await checkedStructure(site);
    const paths = after.structure
      .flatMap((i: any) => (i.object === 'site-section' ? [i] : i.children))
      .flatMap((s: any) => s.siteSpaces.map((ss: any) => ss.path));
    expect(paths.filter((p: string) => p === 'latest')).toHaveLength(2);
  });
});

// ---------------------------------------------------------------------------------------------

describe('section and site space fields', () => {
  let site: string;
  let section: any;
  let siteSpace: any;
  beforeAll(async () => {
    site = await newSite('Fields');
    section = await addSection(site, 'One', 'Conditional');
    await addSection(site, 'Two', 'Plain');
    siteSpace = section.siteSpaces[0];
  });

  const sectionAt = () => `${site}/sections/${section.id}`;
  const siteSpaceAt = () => `${site}/site-spaces/${siteSpace.id}`;
  const readSection = async () => (await checkedStructure(site)).structure.find((s: any) => s.id === section.id);

  it('stores a valid condition on a section, refuses a syntax error naming the position, and removes it with null', async () => {
    const condition = 'visitor.claims.plan == "pro" && !visitor.claims.unsigned.trial';
    expect(conforms('section', await ok(call('PATCH', sectionAt(), { condition: `  ${condition} ` }))).condition).toBe(condition);
    expect((await readSection()).condition).toBe(condition);
    expectError(await call('PATCH', sectionAt(), { condition: 'visitor.claims.plan ==' }), 400, 'position');
    expectError(await call('PATCH', sectionAt(), { condition: 'visitor.claims.a && (visitor.claims.b' }), 400, 'position');
    expectError(await call('PATCH', sectionAt(), { condition: 'alert(1)' }), 400, 'position');
    expect((await readSection()).condition).toBe(condition);
    // Another field leaves it alone.
    expect((await ok(call('PATCH', sectionAt(), { title: 'Conditional section' }))).condition).toBe(condition);
    const removed = conforms('section', await ok(call('PATCH', sectionAt(), { condition: null })));
    expect(removed.condition).toBeUndefined();
    expect((await readSection()).condition).toBeUndefined();
  });

  it('changes title, icon and description of a section', async () => {
    const body = conforms('section', await ok(call('PATCH', sectionAt(), { title: 'Renamed', icon: 'book', description: 'About it' })));
    expect(body).toMatchObject({ title: 'Renamed', icon: 'book', description: 'About it' });
    const cleared = await ok(call('PATCH', sectionAt(), { icon: null, description: null }));
    expect(cleared.icon).toBeUndefined();
    expect(cleared.description).toBeUndefined();
    expect(cleared.title).toBe('Renamed');
    expectError(await call('PATCH', sectionAt(), { title: 'x' }), 400, 'title');
    expectError(await call('PATCH', sectionAt(), { siteSectionGroupId: 'noSuchGroup0000000' }), 400, 'noSuchGroup0000000');
    expectError(await call('PATCH', sectionAt(), { defaultSiteSpace: 'noSuchSiteSpace000' }), 400, 'noSuchSiteSpace000');
    expectError(await call('PATCH', `${site}/sections/noSuchSection00000`, { title: 'Ghost' }), 404);
  });

  it("refuses a section's defaultSiteSpace from another section", async () => {
    const plain = (await checkedStructure(site)).structure.find((s: any) => s.id !== section.id);
    expectError(await call('PATCH', sectionAt(), { defaultSiteSpace: plain.siteSpaces[0].id }), 400, 'defaultSiteSpace');
    await checkedStructure(site);
  });

  it('stores, refuses and removes a condition on a site space', async () => {
    const condition = 'visitor.claims.level >= 3 || visitor.claims.role == "admin"';
    expect(conforms('siteSpace', await ok(call('PATCH', siteSpaceAt(), { condition }))).condition).toBe(condition);
    expect((await readSection()).siteSpaces[0].condition).toBe(condition);
    expectError(await call('PATCH', siteSpaceAt(), { condition: 'visitor.claims.level >= ' }), 400, 'position');
    expect((await readSection()).siteSpaces[0].condition).toBe(condition);
    expect((await ok(call('PATCH', siteSpaceAt(), { condition: null }))).condition).toBeUndefined();
    expect((await readSection()).siteSpaces[0].condition).toBeUndefined();
    // A blank condition is no condition.
    await ok(call('PATCH', siteSpaceAt(), { condition: 'visitor.claims.x' }));
    expect((await ok(call('PATCH', siteSpaceAt(), { condition: '   ' }))).condition).toBeUndefined();
  });

  it('hides and shows a site space (members still see it)', async () => {
    expect(conforms('siteSpace', await ok(call('PATCH', siteSpaceAt(), { hidden: true }))).hidden).toBe(true);
    expect((await readSection()).siteSpaces[0].hidden).toBe(true);
    expect((await ok(call('GET', `${site}/site-spaces`))).items.find((s: any) => s.id === siteSpace.id).hidden).toBe(true);
    expect((await ok(call('PATCH', siteSpaceAt(), { hidden: false }))).hidden).toBe(false);
    expect((await readSection()).siteSpaces[0].hidden).toBe(false);
    expectError(await call('PATCH', siteSpaceAt(), { hidden: 'yes' }), 400, 'hidden');
  });

  it("changes a site space's space and title, keeping its path; refuses other organizations' and deleted spaces", async () => {
    const changed = conforms('siteSpace', await ok(call('PATCH', siteSpaceAt(), { spaceId: space.Three.id })));
    expect(changed.space.id).toBe(space.Three.id);
    expect(changed.title).toBe('Three');
    expect(changed.path).toBe(siteSpace.path);
    expect((await readSection()).siteSpaces[0].space.id).toBe(space.Three.id);
    expect((await ok(call('GET', `${sitesPath()}?space=${space.Three.id}`))).items.map((s: any) => s.title)).toContain('Fields');

    expect((await ok(call('PATCH', siteSpaceAt(), { title: 'Own title' }))).title).toBe('Own title');
    expect((await ok(call('PATCH', siteSpaceAt(), { title: null }))).title).toBe('Three');

    const outsiderOrg = await ok(api('POST', '/v1/orgs', { token: org.outsider.token, body: { title: 'Outside again' } }), 201);
    const foreign = await createSpace(outsiderOrg.id, org.outsider.token, 'Foreign');
    const deleted = await createSpace(org.id, token, 'Deleted');
    expectStatus(await call('DELETE', `/v1/spaces/${deleted.id}`), 204);
    for (const bad of [foreign.id, deleted.id, 'noSuchSpace0000000']) {
      expectError(await call('PATCH', siteSpaceAt(), { spaceId: bad }), 400, bad);
    }
    expect((await readSection()).siteSpaces[0].space.id).toBe(space.Three.id);
    expectError(await call('PATCH', `${site}/site-spaces/noSuchSiteSpace000`, { hidden: true }), 404);
  });

  it('refuses a site space for a section of another site or an unknown section', async () => {
    const other = await newSite('Other fields');
    const foreignSection = await addSection(other, 'One', 'Foreign');
    expectError(await call('POST', `${site}/site-spaces`, { spaceId: space.Four.id, sectionId: foreignSection.id }), 400, foreignSection.id);
    expectError(await call('POST', `${site}/site-spaces`, { spaceId: space.Four.id, sectionId: 'noSuchSection00000' }), 400, 'noSuchSection00000');
    expectError(await call('POST', `${site}/site-spaces`, { spaceId: 'noSuchSpace0000000' }), 400, 'noSuchSpace0000000');
    const titled = await addSiteSpace(site, 'Four', { title: 'Fourth' });
    expect(titled).toMatchObject({ title: 'Fourth', space: { id: space.Four.id } });
  });
});

// ---------------------------------------------------------------------------------------------

describe('lists', () => {
  let site: string;
  /** Sections in reading order; groups in reading order. */
  let sectionIds: string[];
  let groupIds: string[];

  beforeAll(async () => {
    site = await newSite('Lists');
    const a = await addSection(site, 'One', 'L-A');
    const b = await addSection(site, 'Two', 'L-B');
    const c = await addSection(site, 'Three', 'L-C');
    const d = await addSection(site, 'Four', 'L-D');
    const e = await addSection(site, 'Five', 'L-E');
    await addSiteSpace(site, 'Six', { sectionId: a.id });
    await addSiteSpace(site, 'Six', { sectionId: c.id });
    // Root: A, [G1: B, [G2: C]], D, E  => reading order A B C D E; groups G1, G2, then G3 (empty, at the end).
    const g1 = await addGroup(site, 'G1', { sections: [b.id] });
    const g2 = await addGroup(site, 'G2', { parent: g1.id, sections: [c.id] });
    await ok(call('POST', `${site}/section-groups/${g1.id}/move`, { position: { before: { type: 'site-section', id: d.id } } }));
    const g3 = await addGroup(site, 'G3');
    sectionIds = [a.id, b.id, c.id, d.id, e.id];
    groupIds = [g1.id, g2.id, g3.id];
    await checkedStructure(site);
  });

  /** Every page of a list with `limit`, checking count and next on each. */
  async function allPages(path: string, limit: number, query = ''): Promise<{ pages: any[][]; count: number }> {
    const pages: any[][] = [];
    let page: string | undefined;
    let count = -1;
    do {
      const body = await ok(call('GET', `${path}?limit=${limit}${query}${page ? `&page=${page}` : ''}`));
      if (count >= 0) expect(body.count).toBe(count);
      count = body.count;
      pages.push(body.items);
      page = body.next?.page;
      expect(pages.length).toBeLessThan(20);
    } while (page);
    return { pages, count };
  }

  it('lists sections in reading order, page by page', async () => {
    const { pages, count } = await allPages(`${site}/sections`, 2);
    expect(count).toBe(5);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((s) => s.id)).toEqual(sectionIds);
    for (const s of pages.flat()) conforms('section', s);
    const whole = await ok(call('GET', `${site}/sections`));
    expect(whole.next).toBeUndefined();
    expect(whole.items.map((s: any) => s.id)).toEqual(sectionIds);
    expectError(await call('GET', `${site}/sections?page=garbage`), 400, 'page');
    expectError(await call('GET', `${site}/sections?limit=0`), 400);
  });

  it('lists site spaces, all, default only or the others', async () => {
    const all = (await ok(call('GET', `${site}/site-spaces`))).items;
    expect(all.map((s: any) => s.space.title)).toEqual(['One', 'Six', 'Two', 'Three', 'Six', 'Four', 'Five']);
    for (const s of all) conforms('siteSpace', s);
    const defaults = await ok(call('GET', `${site}/site-spaces?default=true`));
    expect(defaults.count).toBe(5);
    expect(defaults.items.every((s: any) => s.default)).toBe(true);
    expect(defaults.items.map((s: any) => s.section)).toEqual(sectionIds);
    const others = await ok(call('GET', `${site}/site-spaces?default=false`));
    expect(others.count).toBe(2);
    expect(others.items.map((s: any) => [s.space.title, s.default])).toEqual([
      ['Six', false],
      ['Six', false],
    ]);
    const { pages, count } = await allPages(`${site}/site-spaces`, 3);
    expect(count).toBe(7);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat().map((s) => s.id)).toEqual(all.map((s: any) => s.id));
    const defaultPages = await allPages(`${site}/site-spaces`, 2, '&default=true');
    expect(defaultPages.count).toBe(5);
    expect(defaultPages.pages.flat().map((s) => s.id)).toEqual(defaults.items.map((s: any) => s.id));
    expectError(await call('GET', `${site}/site-spaces?default=maybe`), 400);
  });

  it('lists section groups depth first, page by page', async () => {
    const { pages, count } = await allPages(`${site}/section-groups`, 2);
    expect(count).toBe(3);
    expect(pages.map((p) => p.length)).toEqual([2, 1]);
    const groups = pages.flat();
    expect(groups.map((g) => g.id)).toEqual(groupIds);
    for (const g of groups) conforms('group', g);
    expect(groups[0].children.map((c: any) => c.title)).toEqual(['L-B', 'G2']);
    expect(groups[1]).toMatchObject({ sectionGroup: groupIds[0] });
    expectError(await call('GET', `${site}/section-groups?page=garbage`), 400, 'page');
  });

  it('answers readers; not guests, outsiders or anonymous callers of an unpublished site', async () => {
    for (const list of ['sections', 'site-spaces', 'section-groups']) {
      expect((await ok(api('GET', `${site}/${list}`, { token: org.members.read.token }))).count).toBeGreaterThan(0);
      expectError(await api('GET', `${site}/${list}`, { token: org.members.guest.token }), 404);
      expectError(await api('GET', `${site}/${list}`, { token: org.outsider.token }), 404);
      expectError(await api('GET', `${sitesPath()}/noSuchSite00000000/${list}`, { token }), 404);
    }
    // Sections and site spaces are visitor reads: an unpublished site is unknown to visitors.
    expectError(await api('GET', `${site}/sections`), 404);
    expectError(await api('GET', `${site}/site-spaces`), 404);
    expectError(await api('GET', `${site}/section-groups`), 401);
  });
});

// ---------------------------------------------------------------------------------------------

describe('deleting what is not there', () => {
  it('answers 204 and changes nothing; an unknown site is 404', async () => {
    const site = await newSite('Absent', ['One']);
    await addSection(site, 'Two', 'Second');
    await addGroup(site, 'Group');
    const before = outline(await checkedStructure(site));
    for (const kind of ['sections', 'site-spaces', 'section-groups']) {
      expectStatus(await call('DELETE', `${site}/${kind}/noSuchThing0000000`), 204);
    }
    const section = (await checkedStructure(site)).structure[0];
    expectStatus(await call('DELETE', `${site}/section-groups/noSuchGroup0000000/sections/${section.id}`), 204);
    // A section that is not in the group is left where it is.
    const group = (await checkedStructure(site)).structure.find((i: any) => i.object === 'site-section-group');
    expectStatus(await call('DELETE', `${site}/section-groups/${group.id}/sections/${section.id}`), 204);
    expect(outline(await checkedStructure(site))).toEqual(before);
    // Deleting twice.
    expectStatus(await call('DELETE', `${site}/section-groups/${group.id}`), 204);
    expectStatus(await call('DELETE', `${site}/section-groups/${group.id}`), 204);
    expect(outline(await checkedStructure(site))).toEqual(before.filter((i) => !i.startsWith('[Group')));
    for (const kind of ['sections', 'site-spaces', 'section-groups']) {
      expectError(await call('DELETE', `${sitesPath()}/noSuchSite00000000/${kind}/noSuchThing0000000`), 404);
    }
  });

  it('is for admins only', async () => {
    const site = await newSite('Admins only', ['One']);
    const section = await addSection(site, 'Two', 'Second');
    for (const [as, status] of [
      [org.members.create.token, 403],
      [org.members.read.token, 403],
      [org.members.guest.token, 404],
      [org.outsider.token, 404],
      [null, 401],
    ] as const) {
      expectError(await api('DELETE', `${site}/sections/${section.id}`, { token: as }), status);
      expectError(await api('POST', `${site}/sections`, { token: as, body: { spaceId: space.Three.id, title: 'Not yours' } }), status);
      expectError(await api('PATCH', `${site}/sections/${section.id}`, { token: as, body: { title: 'Not yours' } }), status);
      expectError(await api('POST', `${site}/section-groups`, { token: as, body: { title: 'Not yours' } }), status);
      expectError(await api('POST', `${site}/site-spaces`, { token: as, body: { spaceId: space.Three.id } }), status);
    }
    expect(outline(await checkedStructure(site))).toEqual(['*Admins only(*One)', 'Second(*Two)']);
  });
});

// ---------------------------------------------------------------------------------------------

describe('limits', () => {
  it(`refuses more than ${SITE_LIMITS.groups} section groups`, async () => {
    const site = await newSite('Many groups');
    await addSection(site, 'One', 'Only');
    for (let i = 1; i <= SITE_LIMITS.groups; i++) expectStatus(await call('POST', `${site}/section-groups`, { title: `G${i}` }), 201);
    expectError(await call('POST', `${site}/section-groups`, { title: 'One too many' }), 400, `at most ${SITE_LIMITS.groups}`);
    const listed = await ok(call('GET', `${site}/section-groups`));
    expect(listed.count).toBe(SITE_LIMITS.groups);
    // Room again after a delete.
    expectStatus(await call('DELETE', `${site}/section-groups/${listed.items[0].id}`), 204);
    expectStatus(await call('POST', `${site}/section-groups`, { title: 'Fits again' }), 201);
  });

  it(`refuses more than ${SITE_LIMITS.sections} sections`, async () => {
    const site = await newSite('Many sections');
    for (let i = 1; i <= SITE_LIMITS.sections; i++) expectStatus(await call('POST', `${site}/sections`, { spaceId: space.One.id, title: `Section ${i}` }), 201);
    expectError(await call('POST', `${site}/sections`, { spaceId: space.One.id, title: 'One too many' }), 400, `at most ${SITE_LIMITS.sections}`);
    expect((await ok(call('GET', `${site}/sections?limit=1`))).count).toBe(SITE_LIMITS.sections);
    const structure = await checkedStructure(site);
    expect(structure.structure).toHaveLength(SITE_LIMITS.sections);
  });
});
