/**
 * Space templates (src/templates): applyTemplateToSpace on main content and on a change request, and
 * createChangeRequest with `template`. The pages of every template are read back through the API;
 * the api-reference template's reference page is computed from the OpenAPI spec given (its generated
 * pages: test/openapi/computed-pages). Bad input, roles, other organizations and locked spaces are
 * refused before anything is written.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChangeRequestSchema } from '../../src/schemas/change-request';
import { TEMPLATES, type TemplatePage } from '../../src/templates';
import { createSpace, merge, openChangeRequest, pageMarkdown, pageTree } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, gitbookValidator, schemaValidator } from '../helpers/gitbook-schema';
import { api, CALLERS, callerUser, expectError, expectSchema, expectStatus, seedOrg, type Caller, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';

const templatePath = (spaceId: string) => `/v1/spaces/${spaceId}/content/template`;
const apply = (spaceId: string, token: string | null, body: unknown) => api('POST', templatePath(spaceId), { token, body });
const OPENAPI = { contentRefs: { spec: { kind: 'openapi', spec: 'petstore' } } };
const paramsFor = (id: string) => (id === 'api-reference' ? { params: OPENAPI } : {});

/** The titles of a template's pages, depth first, as `pageTree` lists them (`path: title`, path left out). */
function templateTitles(pages: TemplatePage[]): string[] {
  return pages.flatMap((page) => [/^(?:---[\s\S]*?---\s*)?# (.+)$/m.exec(page.markdown)![1], ...templateTitles(page.pages ?? [])]);
}
const titlesOf = (tree: string[]) => tree.map((line) => line.slice(line.indexOf(': ') + 2));

async function pages(spaceId: string, token: string, cr?: string | number): Promise<any[]> {
  const base = cr === undefined ? `/v1/spaces/${spaceId}/content` : `/v1/spaces/${spaceId}/change-requests/${cr}/content`;
  return expectStatus(await api('GET', `${base}/pages`, { token }), 200).body.pages;
}

/** Every page of a tree, depth first. */
const flatten = (list: any[]): any[] => list.flatMap((p) => [p, ...flatten(p.pages)]);

async function spaceRevision(spaceId: string, token: string): Promise<string> {
  return expectStatus(await api('GET', `/v1/spaces/${spaceId}`, { token }), 200).body.revision;
}

let org: TestOrg;
let owner: string;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
});

describe('the templates shipped', () => {
  it('are product-docs, api-reference, changelog and knowledge-base, each a small page tree with unique keys and resolvable links', () => {
    expect(TEMPLATES.map((t) => t.id)).toEqual(['product-docs', 'api-reference', 'changelog', 'knowledge-base']);
    for (const template of TEMPLATES) {
      expect(template.title.length, template.id).toBeGreaterThan(0);
      expect(template.subtitle.length, template.id).toBeGreaterThan(0);
      expect(template.emoji, template.id).toMatch(/^[0-9a-f]{4,5}$/);
      const all: TemplatePage[] = [];
      const walk = (list: TemplatePage[]) => list.forEach((p) => (all.push(p), walk(p.pages ?? [])));
      walk(template.pages);
      expect(all.length, template.id).toBeGreaterThanOrEqual(3);
      expect(all.length, template.id).toBeLessThanOrEqual(6);
      expect(all.some((p) => p.pages?.length), `${template.id} nests pages`).toBe(true);
      const keys = new Set(all.map((p) => p.key));
      expect(keys.size, template.id).toBe(all.length);
      for (const page of all) {
        for (const [, key] of page.markdown.matchAll(/\]\(page:([^)#\s]+)/g)) expect(keys.has(key), `${template.id}/${page.key} links to ${key}`).toBe(true);
        // The page converted apart from the batch (it refers to the OpenAPI spec) cannot link to batch refs.
        if (page.openapi) expect(page.markdown, page.key).not.toContain('](page:');
        expect(page.markdown, page.key).toMatch(/^---\ndescription: .+\n---\n\n# .+\n/);
      }
    }
  });
});

describe('applyTemplateToSpace on main content', () => {
  it.each(TEMPLATES.map((t) => [t.id] as const))('adds the pages of %s to an empty space (201, no body), linked to each other', async (id) => {
    const space = await createSpace(org.id, owner);
    const before = await spaceRevision(space.id, owner);
    const res = await apply(space.id, owner, { id, ...paramsFor(id) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toBeNull();

    const template = TEMPLATES.find((t) => t.id === id)!;
    const tree = await pageTree(space.id, owner);
    expect(titlesOf(tree)).toEqual(templateTitles(template.pages));
    // Nested as in the template.
    const top = await pages(space.id, owner);
    expect(top.map((p) => p.pages.length)).toEqual(template.pages.map((p) => p.pages?.length ?? 0));
    expect(top[0].emoji).toBe(template.pages[0].emoji);

    // Main moved to a new revision whose parent is the previous head.
    const after = await spaceRevision(space.id, owner);
    expect(after).not.toBe(before);
    const revision = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token: owner }), 200).body;
    expect(revision.id).toBe(after);
    expect(revision.parents).toEqual([before]);

    // Every link between template pages points at a page of the space; no placeholder is left.
    const ids = new Set(flatten(top).map((p) => p.id));
    for (const page of flatten(top)) {
      const markdown = await pageMarkdown(space.id, page.id, owner);
      expect(markdown, page.title).not.toMatch(/\]\((?:page:|\.\/template-)/);
      for (const [, target] of markdown.matchAll(/\]\(\/pages\/([^)#]+)/g)) expect(ids.has(target), `${page.title} -> ${target}`).toBe(true);
      expect(page.description, page.title).toBeTruthy();
    }
  });

  it('api-reference writes its reference page as a page computed from the OpenAPI spec as given, not checked when written', async () => {
    const space = await createSpace(org.id, owner);
    expectStatus(await apply(space.id, owner, { id: 'api-reference', params: { contentRefs: { api: { kind: 'openapi', spec: 'billing-api-v2' } } } }), 201);
    const stored = (await pages(space.id, owner)).find((p) => p.title === 'Reference');
    expect(stored).toBeDefined();
    // As stored (computed=false): GitBook's RevisionPageComputed, naming the spec as given, with no document.
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${stored.id}?computed=false`, { token: owner }), 200).body;
    expect(read).toMatchObject({
      id: stored.id,
      type: 'computed',
      title: 'Reference',
      computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'billing-api-v2' } } }, props: { models: true } },
    });
    expect(read.description).toBe('Every operation of the API, generated from its OpenAPI specification.');
    expect(read).not.toHaveProperty('document');
    const getPage = schemaValidator(gitbookOperations().get('getPageById')!.responses['200']!, GITBOOK_0202.components);
    expect(gitbookErrors(getPage, read), JSON.stringify(read)).toBe('valid');
    // Read computed (the default): no such spec in the organization yet, so the page says so.
    const markdown = await pageMarkdown(space.id, stored.id, owner);
    expect(markdown).toContain('{% hint style="danger" %}');
    expect(markdown).toContain('The OpenAPI specification "billing-api-v2" does not exist in this organization');
    expect(stored.pages).toEqual([]);
  });

  it('appends to a space that has pages, and can be applied twice (slugs made unique)', async () => {
    const space = await createSpace(org.id, owner);
    expectStatus(await apply(space.id, owner, { id: 'changelog' }), 201);
    expectStatus(await apply(space.id, owner, { id: 'changelog' }), 201);
    const tree = await pageTree(space.id, owner);
    expect(tree).toEqual([
      'changelog: Changelog',
      'changelog/1-1-0: 1.1.0',
      'changelog/1-0-0: 1.0.0',
      'release-policy: Release policy',
      'changelog-1: Changelog',
      'changelog-1/1-1-0: 1.1.0',
      'changelog-1/1-0-0: 1.0.0',
      'release-policy-1: Release policy',
    ]);
    // The second copy links to its own pages.
    const second = (await pages(space.id, owner))[2];
    const markdown = await pageMarkdown(space.id, second.id, owner);
    expect(markdown).toContain(`](/pages/${second.pages[0].id})`);
  });

  it('applies concurrent requests one after the other: every page lands, in a linear history', async () => {
    const space = await createSpace(org.id, owner);
    const head = await spaceRevision(space.id, owner);
    const results = await Promise.all(['changelog', 'knowledge-base', 'changelog'].map((id) => apply(space.id, owner, { id })));
    for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(201);
    const tree = await pageTree(space.id, owner);
    expect(tree).toHaveLength(4 + 5 + 4);
    expect(tree.filter((line) => line.endsWith(': Changelog'))).toEqual(['changelog: Changelog', 'changelog-1: Changelog']);
    // Three revisions, each the child of the one before.
    let revision = await spaceRevision(space.id, owner);
    const chain: string[] = [];
    while (revision !== head && chain.length < 5) {
      chain.push(revision);
      const parents = (await env.DB.prepare('select parents from revisions where id = ?').bind(revision).first<{ parents: string }>())!.parents;
      [revision] = JSON.parse(parents);
    }
    expect(chain).toHaveLength(3);
  });

  it('refuses bad input with 400 naming the field, and writes nothing', async () => {
    const space = await createSpace(org.id, owner);
    const before = await spaceRevision(space.id, owner);
    const cases: Array<[unknown, string]> = [
      [{ id: 'no-such-template' }, 'id'],
      [{ id: '' }, 'id'],
      [{ id: 42 }, 'id'],
      [{}, 'id'],
      [{ id: 'api-reference' }, 'params.contentRefs'],
      [{ id: 'api-reference', params: {} }, 'params.contentRefs'],
      [{ id: 'api-reference', params: { contentRefs: {} } }, 'params.contentRefs'],
      [{ id: 'api-reference', params: { contentRefs: { site: { kind: 'url', url: 'https://example.com' } } } }, 'params.contentRefs'],
      [{ id: 'api-reference', params: { contentRefs: { a: { kind: 'openapi', spec: 'one' }, b: { kind: 'openapi', spec: 'two' } } } }, 'params.contentRefs'],
      [{ id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: 'not a slug!' } } } }, 'params.contentRefs.spec.spec'],
      [{ id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi' } } } }, 'params.contentRefs'],
      [{ id: 'api-reference', params: { contentRefs: { spec: { kind: 'nope', spec: 'x' } } } }, 'params.contentRefs'],
      [{ id: 'product-docs', params: 'x' }, 'params'],
      [{ id: 'product-docs', params: { contentRefs: [] } }, 'params.contentRefs'],
      [{ id: 'product-docs', changeRequestId: 5 }, 'changeRequestId'],
      [{ id: 'product-docs', changeRequestId: '' }, 'changeRequestId'],
      [{ id: 'x'.repeat(101) }, 'id'],
    ];
    for (const [body, field] of cases) expectError(await apply(space.id, owner, body), 400, field);
    expectError(await api('POST', templatePath(space.id), { token: owner, rawBody: '{"id":' }), 400);
    expectError(await api('POST', templatePath(space.id), { token: owner, rawBody: '[]' }), 400);
    expectError(await api('POST', templatePath(space.id), { token: owner }), 400);
    expect(await spaceRevision(space.id, owner)).toBe(before);
    expect(await pageTree(space.id, owner)).toEqual([]);
  });

  it('ignores content references a template does not use', async () => {
    const space = await createSpace(org.id, owner);
    expectStatus(await apply(space.id, owner, { id: 'knowledge-base', params: OPENAPI }), 201);
    expect((await pageTree(space.id, owner))[0]).toBe('welcome: Welcome');
  });

  it('answers 401 without a token', async () => {
    const space = await createSpace(org.id, owner);
    expectError(await apply(space.id, null, { id: 'product-docs' }), 401);
    expectError(await apply(space.id, 'not-a-token', { id: 'product-docs' }), 401);
  });

  it('needs edit: read and comment 403, guests and outsiders 404', async () => {
    const space = await createSpace(org.id, owner);
    const expected: Record<Caller, number> = { admin: 201, create: 201, review: 201, edit: 201, comment: 403, read: 403, guest: 404, outsider: 404 };
    for (const caller of CALLERS) {
      const res = await apply(space.id, callerUser(org, caller).token, { id: 'changelog' });
      if (expected[caller] === 201) expect(res.status, `${caller}: ${JSON.stringify(res.body)}`).toBe(201);
      else expectError(res, expected[caller]);
    }
    // Four applications, by the four callers allowed.
    expect((await pages(space.id, owner)).filter((p) => p.title === 'Changelog')).toHaveLength(4);
  });

  it("answers 404 for another organization's space and an unknown one", async () => {
    const other = await seedOrg();
    const theirs = await createSpace(other.id, other.owner.token);
    expectError(await apply(theirs.id, owner, { id: 'product-docs' }), 404);
    expectError(await apply('zzzzzzzzzzzzzzzzzzzz', owner, { id: 'product-docs' }), 404);
    expect(await pageTree(theirs.id, other.owner.token)).toEqual([]);
  });

  it('is refused on a locked space (403), which stays as it was', async () => {
    const space = await createSpace(org.id, owner);
    expectStatus(await api('PATCH', `/v1/spaces/${space.id}`, { token: owner, body: { editMode: 'locked' } }), 200);
    const before = await spaceRevision(space.id, owner);
    expectError(await apply(space.id, owner, { id: 'product-docs' }), 403, 'locked');
    expect(await spaceRevision(space.id, owner)).toBe(before);
    // Unlocked, it applies.
    expectStatus(await api('PATCH', `/v1/spaces/${space.id}`, { token: owner, body: { editMode: 'live' } }), 200);
    expectStatus(await apply(space.id, owner, { id: 'product-docs' }), 201);
  });

  it('is refused on a deleted space (400)', async () => {
    const space = await createSpace(org.id, owner);
    expectStatus(await api('DELETE', `/v1/spaces/${space.id}`, { token: owner }), 204);
    expectError(await apply(space.id, owner, { id: 'product-docs' }), 400, 'deleted');
  });

  it('marks open change requests outdated: main moved under them', async () => {
    const space = await createSpace(org.id, owner);
    const cr = await openChangeRequest(space.id, owner);
    expect(cr.outdated).toBe(false);
    expectStatus(await apply(space.id, owner, { id: 'changelog' }), 201);
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}`, { token: owner }), 200).body;
    expect(read.outdated).toBe(true);
  });

  it('costs the route at most 3 D1 round trips (the writer does its own)', async () => {
    const space = await createSpace(org.id, owner);
    const r = await measureRoundTrips('POST', templatePath(space.id), owner, { id: 'changelog' });
    expect(r.status).toBe(201);
    expect(r.roundTrips).toBeLessThanOrEqual(3);
  });
});

describe('applyTemplateToSpace on a change request', () => {
  it('adds the pages to the change request (by id or number), not to main; merged, they reach main', async () => {
    const space = await createSpace(org.id, owner);
    const cr = await openChangeRequest(space.id, owner);
    const before = await spaceRevision(space.id, owner);
    expectStatus(await apply(space.id, owner, { id: 'api-reference', params: OPENAPI, changeRequestId: cr.id }), 201);
    expectStatus(await apply(space.id, owner, { id: 'changelog', changeRequestId: String(cr.number) }), 201);
    expect(titlesOf(await pageTree(space.id, owner, cr.number))).toEqual([
      ...templateTitles(TEMPLATES.find((t) => t.id === 'api-reference')!.pages),
      ...templateTitles(TEMPLATES.find((t) => t.id === 'changelog')!.pages),
    ]);
    expect(await pageTree(space.id, owner)).toEqual([]);
    expect(await spaceRevision(space.id, owner)).toBe(before);
    const reference = (await pages(space.id, owner, cr.number)).find((p) => p.title === 'Reference');
    expect(await pageMarkdown(space.id, reference.id, owner, cr.number)).toContain('The OpenAPI specification "petstore" does not exist');
    const asStored = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${reference.id}?computed=false`, { token: owner }), 200).body;
    expect(asStored.computed.dependencies.spec.ref).toEqual({ kind: 'openapi', spec: 'petstore' });

    expectStatus(await merge(space.id, cr.number, owner), 200);
    expect(await pageTree(space.id, owner)).toEqual(await pageTree(space.id, owner, cr.number));
  });

  it('needs edit on the space: read and comment 403, guests and outsiders 404', async () => {
    const space = await createSpace(org.id, owner);
    const cr = await openChangeRequest(space.id, owner);
    const expected: Record<Caller, number> = { admin: 201, create: 201, review: 201, edit: 201, comment: 403, read: 403, guest: 404, outsider: 404 };
    for (const caller of CALLERS) {
      const res = await apply(space.id, callerUser(org, caller).token, { id: 'changelog', changeRequestId: cr.id });
      if (expected[caller] === 201) expect(res.status, `${caller}: ${JSON.stringify(res.body)}`).toBe(201);
      else expectError(res, expected[caller]);
    }
    expect((await pages(space.id, owner, cr.number)).filter((p) => p.title === 'Changelog')).toHaveLength(4);
  });

  it("answers 404 for an unknown change request or another space's, and 400 for a merged one", async () => {
    const space = await createSpace(org.id, owner);
    const otherSpace = await createSpace(org.id, owner);
    const elsewhere = await openChangeRequest(otherSpace.id, owner);
    expectError(await apply(space.id, owner, { id: 'changelog', changeRequestId: 'zzzzzzzzzzzzzzzzzzzz' }), 404, 'change request');
    expectError(await apply(space.id, owner, { id: 'changelog', changeRequestId: '99' }), 404, 'change request');
    expectError(await apply(space.id, owner, { id: 'changelog', changeRequestId: elsewhere.id }), 404, 'change request');
    const other = await seedOrg();
    const theirSpace = await createSpace(other.id, other.owner.token);
    const theirs = await openChangeRequest(theirSpace.id, other.owner.token);
    expectError(await apply(theirSpace.id, owner, { id: 'changelog', changeRequestId: theirs.id }), 404);
    expect(await pageTree(otherSpace.id, owner, elsewhere.number)).toEqual([]);

    const merged = await openChangeRequest(space.id, owner);
    expectStatus(await apply(space.id, owner, { id: 'changelog', changeRequestId: merged.id }), 201);
    expectStatus(await merge(space.id, merged.number, owner), 200);
    expectError(await apply(space.id, owner, { id: 'changelog', changeRequestId: merged.id }), 400, 'merged');
  });

  it('is refused on a locked space (403)', async () => {
    const space = await createSpace(org.id, owner);
    const cr = await openChangeRequest(space.id, owner);
    expectStatus(await api('PATCH', `/v1/spaces/${space.id}`, { token: owner, body: { editMode: 'locked' } }), 200);
    expectError(await apply(space.id, owner, { id: 'changelog', changeRequestId: cr.id }), 403, 'locked');
    expect(await pageTree(space.id, owner, cr.number)).toEqual([]);
  });
});

describe('createChangeRequest with a template', () => {
  const StrictChangeRequestSchema = ChangeRequestSchema.strict();
  const gitbookChangeRequest = gitbookValidator('ChangeRequest');
  const crs = (spaceId: string) => `/v1/spaces/${spaceId}/change-requests`;

  it("creates the change request with the template's pages (201, the change request)", async () => {
    const space = await createSpace(org.id, owner);
    const head = await spaceRevision(space.id, owner);
    const res = await api('POST', crs(space.id), { token: org.members.edit.token, body: { subject: 'Start the API docs', template: { id: 'api-reference', params: OPENAPI } } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const created = expectSchema(StrictChangeRequestSchema, res.body);
    const theirs = gitbookChangeRequest.validate(res.body);
    expect(theirs.valid ? 'valid' : theirs.errors.slice(-5)).toBe('valid');
    expect(created).toMatchObject({ number: 1, status: 'open', subject: 'Start the API docs', revisionInitial: head, outdated: false, space: space.id });
    expect(created.createdBy.id).toBe(org.members.edit.id);
    expect(created.revision).not.toBe(head);
    expect(res.headers.get('Location')).toBe(created.urls.location);

    // The response is the change request as it is now.
    const read = expectStatus(await api('GET', `${crs(space.id)}/${created.id}`, { token: owner }), 200).body;
    expect(read).toEqual(created);
    const revision = expectStatus(await api('GET', `${crs(space.id)}/1/content`, { token: owner }), 200).body;
    expect(revision.parents).toEqual([head]);
    expect(titlesOf(await pageTree(space.id, owner, 1))).toEqual(templateTitles(TEMPLATES.find((t) => t.id === 'api-reference')!.pages));
    // Main did not move.
    expect(await spaceRevision(space.id, owner)).toBe(head);
    expect(await pageTree(space.id, owner)).toEqual([]);
    const counters = expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token: owner }), 200).body;
    expect(counters).toMatchObject({ changeRequests: 1, changeRequestsOpen: 1 });

    // Numbers keep counting, with or without a template.
    expect((await openChangeRequest(space.id, owner)).number).toBe(2);
    const third = expectStatus(await api('POST', crs(space.id), { token: owner, body: { template: { id: 'changelog' } } }), 201).body;
    expect(third).toMatchObject({ number: 3, subject: '' });
    expectStatus(await merge(space.id, 3, owner), 200);
    expect(titlesOf(await pageTree(space.id, owner))).toEqual(['Changelog', '1.1.0', '1.0.0', 'Release policy']);
  });

  it('refuses a bad template with 400 naming it, and creates nothing', async () => {
    const space = await createSpace(org.id, owner);
    const bodies: Array<[unknown, string]> = [
      [{ template: { id: 'nope' } }, 'template.id'],
      [{ template: { id: 'api-reference' } }, 'template.params.contentRefs'],
      [{ template: { id: 'api-reference', params: { contentRefs: { s: { kind: 'openapi', spec: '-bad-' } } } } }, 'template.params.contentRefs.s.spec'],
      [{ template: { id: 7 } }, 'template.id'],
      [{ template: {} }, 'template.id'],
      [{ template: 'product-docs' }, 'template'],
    ];
    for (const [body, field] of bodies) expectError(await api('POST', crs(space.id), { token: owner, body }), 400, field);
    expect(expectStatus(await api('GET', crs(space.id), { token: owner }), 200).body.count).toBe(0);
  });

  it('needs edit (read 403, outsider 404) and an unlocked space (403), creating nothing otherwise', async () => {
    const space = await createSpace(org.id, owner);
    const body = { template: { id: 'product-docs' } };
    expectError(await api('POST', crs(space.id), { token: org.members.read.token, body }), 403);
    expectError(await api('POST', crs(space.id), { token: org.members.comment.token, body }), 403);
    expectError(await api('POST', crs(space.id), { token: org.members.guest.token, body }), 404);
    expectError(await api('POST', crs(space.id), { token: org.outsider.token, body }), 404);
    expectError(await api('POST', crs(space.id), { token: null, body }), 401);
    expectStatus(await api('PATCH', `/v1/spaces/${space.id}`, { token: owner, body: { editMode: 'locked' } }), 200);
    expectError(await api('POST', crs(space.id), { token: owner, body }), 403, 'locked');
    expect(expectStatus(await api('GET', crs(space.id), { token: owner }), 200).body.count).toBe(0);
  });

  it('costs the route at most 3 D1 round trips', async () => {
    const space = await createSpace(org.id, owner);
    const r = await measureRoundTrips('POST', crs(space.id), owner, { subject: 'T', template: { id: 'changelog' } });
    expect(r.status).toBe(201);
    expect(r.roundTrips).toBeLessThanOrEqual(3);
  });
});

describe("GitBook's 0.202.0 document", () => {
  const operations = gitbookOperations();

  it('has applyTemplateToSpace answer 201 without a body, as this route does; it has no operation listing space templates', async () => {
    expect(operations.get('applyTemplateToSpace')).toEqual({ method: 'post', path: '/spaces/{spaceId}/content/template', responses: { '201': null } });
    expect([...operations.keys()].filter((id) => /template/i.test(id)).sort()).toEqual([
      'applyTemplateToSite',
      'applyTemplateToSpace',
      'listSiteAdaptiveTemplateConditions',
      'listStyleguideTemplates',
    ]);
    const space = await createSpace(org.id, owner);
    const cr = await openChangeRequest(space.id, owner);
    for (const body of [{ id: 'api-reference', params: OPENAPI }, { id: 'product-docs', changeRequestId: cr.id }]) {
      const res = await apply(space.id, owner, body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toBeNull();
    }
  });

  it('describes the body as ours does: ApplySpaceTemplate (id, params.contentRefs) and changeRequestId', async () => {
    const { body: doc } = await api('GET', '/openapi.json');
    const operation = doc.paths['/spaces/{spaceId}/content/template'].post;
    expect(operation.operationId).toBe('applyTemplateToSpace');
    expect(operation.tags).toEqual(['Space content']);
    expect(Object.keys(operation.responses)).toContain('201');
    expect(operation.responses['201'].content).toBeUndefined();
    // Like GitBook's: ApplySpaceTemplate (a component) with changeRequestId beside it.
    const resolve = (schema: any) => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
    const root = operation.requestBody.content['application/json'].schema;
    const parts = [root, ...(root.allOf ?? [])].map(resolve);
    expect(Object.keys(Object.assign({}, ...parts.map((part: any) => part.properties ?? {}))).sort()).toEqual(['changeRequestId', 'id', 'params']);
    expect(parts.flatMap((part: any) => part.required ?? [])).toEqual(['id']);
    expect(Object.keys(doc.components.schemas.ApplySpaceTemplate.properties).sort()).toEqual(['id', 'params']);
  });
});
