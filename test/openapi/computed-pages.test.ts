/**
 * Computed API reference pages (GitBook's `builtin:openapi`): a page whose `computed` source names an
 * OpenAPI spec of the organization is generated, when read with `computed=true`, from the outline of the
 * spec's latest version: one child page per tag with its `openapi-operation` blocks (or, grouped
 * `by-operation`, one page per operation), a Models page, ids stable across versions. `computed=false`
 * reads it as stored (GitBook's RevisionPageComputed). Specs that are missing, another organization's,
 * pending or failed make the page show a hint, never a 500.
 *
 * One documented deviation from GitBook's published schema (0.202.0), checked below: the last member of
 * `RevisionPageDocument` is a `oneOf` of `{computed, computedSeed}` (required) and `{documentId?}` (nothing
 * required, no other property forbidden), so every generated page, which has `computed` and
 * `computedSeed`, matches both branches and fails `oneOf`. GitBook's own generated pages cannot pass it
 * either. Responses with generated pages are validated against the components with that second branch
 * made to exclude `computed` (`withComputedPageMember`), and against the published ones only that
 * `oneOf` fails.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAFE_KEY } from '../../src/services/content/tree';
import { wholeTree } from '../../src/services/content/reads';
import { documentToMarkdown, markdownToDocument } from '../../src/services/markdown';
import {
  expandComputed,
  findGenerated,
  generatedDocument,
  generatedPageId,
  readOutline,
  type ComputedRevisionSource,
} from '../../src/services/openapi/computed-pages';
import type { SpecOutline } from '../../src/services/openapi/types';
import type { PageEntry } from '../../src/services/content/revisions';
import { applyChanges, createSpace, merge, openChangeRequest, pageTree, postChanges } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator, withComputedPageMember, withoutPageBodyMember } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { seedSpec, seedSpecVersion, specSlug } from '../helpers/openapi';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { largeManifest, pageId, seedContent } from '../helpers/large-content';
import { measureRoundTrips, requestWithBindings } from '../helpers/round-trips';

// ---------------------------------------------------------------------------------------------
// Fixtures

const OUTLINE_V1: SpecOutline = {
  title: 'Petstore',
  version: '1.0.0',
  description: '# Welcome\n\nThe **Petstore** API sells pets.',
  tags: [
    {
      name: 'pets',
      description: 'Everything about your pets',
      operations: [
        { path: '/pets', method: 'get', summary: 'List pets', operationId: 'listPets' },
        { path: '/pets', method: 'post', summary: 'Create a pet', operationId: 'createPet' },
        { path: '/pets/{petId}', method: 'get', summary: 'Info for a pet', deprecated: true },
      ],
    },
    { name: 'store', operations: [{ path: '/store/inventory', method: 'get' }] },
    { name: '', operations: [{ path: '/health', method: 'get', summary: 'Health' }] },
  ],
  schemas: ['Pet', 'Error'],
};

/** V1 plus an operation in `pets` and a new tag `users` (before the untagged operations). */
const OUTLINE_V2: SpecOutline = {
  ...OUTLINE_V1,
  version: '2.0.0',
  tags: [
    { ...OUTLINE_V1.tags[0], operations: [...OUTLINE_V1.tags[0].operations, { path: '/pets/{petId}', method: 'delete', summary: 'Delete a pet' }] },
    OUTLINE_V1.tags[1],
    { name: 'users', description: 'People', operations: [{ path: '/users', method: 'get', summary: 'List users' }] },
    OUTLINE_V1.tags[2],
  ],
  schemas: ['Pet', 'Error', 'User'],
};

const source = (spec: string, props: ComputedRevisionSource['props'] = { models: true }): ComputedRevisionSource => ({
  type: 'builtin:openapi',
  dependencies: { spec: { ref: { kind: 'openapi', spec } } },
  props,
});

let org: TestOrg;
let owner: string;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
});

/** A space whose main content has the pages the changes insert (through a change request, merged). */
async function spaceWith(changes: unknown[]): Promise<{ spaceId: string; result: any }> {
  const space = await createSpace(org.id, owner, 'API docs');
  const cr = await openChangeRequest(space.id, owner, 'Reference');
  const result = await applyChanges(space.id, cr.number, owner, changes);
  expectStatus(await merge(space.id, cr.number, owner), 200);
  return { spaceId: space.id, result };
}

const api_ = (path: string) => api('GET', path, { token: owner });
const get = async (path: string) => expectStatus(await api('GET', path, { token: owner }), 200).body;
const contentOf = (spaceId: string) => `/v1/spaces/${spaceId}/content`;
const flatten = (pages: any[]): any[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);
const textOf = (node: any): string =>
  node.object === 'leaf' ? node.text : [...(node.leaves ?? []), ...(node.nodes ?? [])].map(textOf).join('');

/** A spec of the organization with OUTLINE_V1 as its latest version. */
async function processedSpec(outline: SpecOutline = OUTLINE_V1) {
  const spec = await seedSpec(org.id);
  await seedSpecVersion(spec.id, outline);
  return spec;
}

async function failSpec(specId: string, code: string, message: string) {
  await env.DB.prepare(
    `update openapi_specs set processing_state = 'complete', processing_job = null, last_process_error_code = ?, last_processed_errors = ?,
       last_processed_error_count = 1 where id = ?`,
  )
    .bind(code, JSON.stringify([{ message, code }]), specId)
    .run();
}

// ---------------------------------------------------------------------------------------------
// GitBook's schema, with the one deviation documented above

const OPERATIONS = gitbookOperations();
const PUBLISHED = GITBOOK_0202.components;
const COMPUTED = withComputedPageMember();
const TREE_PUBLISHED = withoutPageBodyMember();
const TREE_COMPUTED = withComputedPageMember(withoutPageBodyMember());
const responseValidator = (operationId: string, components: unknown) => schemaValidator(OPERATIONS.get(operationId)!.responses['200']!, components);

// ---------------------------------------------------------------------------------------------

describe('content batches with computed pages', () => {
  let spaceId: string;
  let crNumber: number;
  let computedId: string;
  let parentId: string;
  let leafId: string;

  beforeAll(async () => {
    const space = await createSpace(org.id, owner, 'Validation');
    spaceId = space.id;
    const cr = await openChangeRequest(spaceId, owner);
    crNumber = cr.number;
    const result = await applyChanges(spaceId, crNumber, owner, [
      { operation: 'insert_page', ref: 'api', title: 'API', computed: source('petstore') },
      { operation: 'insert_page', ref: 'parent', title: 'Parent', document: { markdown: 'Parent text' } },
      { operation: 'insert_page', ref: 'leaf', into: 'parent', title: 'Leaf', document: {} },
    ]);
    [computedId, parentId, leafId] = result.changes.map((c: any) => c.page.id);
  });

  const post = (changes: unknown[]) => postChanges(spaceId, crNumber, owner, changes);

  it('refuses sources that are not a builtin:openapi source naming a spec slug (400, naming the field)', async () => {
    const bad: Array<[unknown, string | RegExp]> = [
      [{ ...source('x'), type: 'builtin:translation' }, 'computed.type'],
      [{ type: 'builtin:openapi', dependencies: { spec: {} }, props: { models: true } }, 'computed.dependencies.spec.ref'],
      [{ type: 'builtin:openapi', dependencies: {}, props: { models: true } }, 'computed.dependencies.spec'],
      [source('not a slug!'), /computed\.dependencies\.spec\.ref\.spec: must be an OpenAPI specification slug/],
      [source('-leading'), 'openapi specification slug'],
      [source('a'.repeat(101)), 'computed.dependencies.spec.ref.spec'],
      [{ ...source('x'), dependencies: { spec: { ref: { kind: 'url', spec: 'x' } } } }, 'computed.dependencies.spec.ref.kind'],
      [{ type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'x' } } }, props: {} }, 'computed.props.models'],
      [source('x', { models: true, grouping: 'by-path' } as never), 'computed.props.grouping'],
      [source('x', { models: true, extra: 1 } as never), 'computed.props'],
      [{ ...source('x'), extra: true }, 'computed'],
      ['builtin:openapi', 'computed'],
    ];
    for (const [computed, message] of bad) {
      expectError(await post([{ operation: 'insert_page', title: 'Bad', computed }]), 400, message);
    }
    expectError(await post([{ operation: 'update_page', page: leafId, computed: source('bad slug') }]), 400, 'computed.dependencies.spec.ref.spec');
  });

  it('refuses a computed page with a document, a page inside a computed page, and a computed page with children', async () => {
    expectError(await post([{ operation: 'insert_page', title: 'Both', computed: source('x'), document: { markdown: 'text' } }]), 400, 'no document of its own');
    expectError(await post([{ operation: 'insert_page', title: 'Both', computed: source('x'), document: { document: { object: 'document', data: {}, nodes: [] } } }]), 400, 'no document of its own');
    expectError(await post([{ operation: 'insert_page', title: 'Nothing' }]), 400, 'document is required');
    expectError(await post([{ operation: 'insert_page', title: 'Inside', into: computedId, document: {} }]), 400, `page "${computedId}" is computed`);
    expectError(await post([{ operation: 'insert_page', ref: 'c2', title: 'C2', computed: source('x') }, { operation: 'insert_page', into: 'c2', title: 'In', document: {} }]), 400, 'cannot have child pages');
    expectError(await post([{ operation: 'update_page', page: leafId, into: computedId }]), 400, 'cannot have child pages');
    expectError(await post([{ operation: 'update_page', page: parentId, computed: source('x') }]), 400, 'has 1 child page(s)');
    expectError(await post([{ operation: 'update_page', page: leafId, computed: source('x'), document: { markdown: 'x' } }]), 400, 'no document of its own');
    expectError(await post([{ operation: 'update_page', page: computedId, document: { markdown: 'mine' } }]), 400, 'send computed: null');
    // Nothing of a refused batch was applied.
    expect(await pageTree(spaceId, owner, crNumber)).toEqual(['api: API', 'parent: Parent', 'parent/leaf: Leaf']);
    // An empty document with computed is no document: accepted.
    const ok = await applyChanges(spaceId, crNumber, owner, [{ operation: 'insert_page', title: 'Empty', computed: source('x'), document: {} }]);
    const created = ok.changes[0].page.id;
    expect((await api_(`/v1/spaces/${spaceId}/change-requests/${crNumber}/content/page/${created}?computed=false`)).body.type).toBe('computed');
    await applyChanges(spaceId, crNumber, owner, [{ operation: 'delete_page', page: created }]);
  });

  it('makes a page computed (dropping its document, seeded by its id), changes its source keeping the seed, and back', async () => {
    const base = `${contentOf(spaceId).replace('/content', '')}/change-requests/${crNumber}/content`;
    const before = await get(`${base}/page/${parentId}?computed=false`);
    expect(before.documentId).toEqual(expect.any(String));
    await applyChanges(spaceId, crNumber, owner, [
      { operation: 'insert_page', ref: 'doc', title: 'Was a document', document: { markdown: 'Some text' } },
    ]);
    const pages = (await get(`${base}/pages?computed=false`)).pages;
    const docPage = pages.find((p: any) => p.title === 'Was a document');
    await applyChanges(spaceId, crNumber, owner, [{ operation: 'update_page', page: docPage.id, computed: source('first', { models: false }) }]);
    const asStored = await get(`${base}/page/${docPage.id}?computed=false`);
    expect(asStored).toMatchObject({ id: docPage.id, type: 'computed', title: 'Was a document', computed: source('first', { models: false }) });
    expect(asStored).not.toHaveProperty('document');
    expect(asStored).not.toHaveProperty('documentId');
    expect((await get(`${base}/page/${docPage.id}`)).computedSeed).toBe(docPage.id);

    // Another source keeps the seed; a title change too.
    await applyChanges(spaceId, crNumber, owner, [{ operation: 'update_page', page: docPage.id, title: 'Renamed', computed: source('second', { models: true, grouping: 'by-operation' }) }]);
    const changed = await get(`${base}/page/${docPage.id}`);
    expect(changed).toMatchObject({ title: 'Renamed', computedSeed: docPage.id, computed: { dependencies: { spec: { ref: { spec: 'second' } } } } });

    // computed: null makes it an ordinary empty page, which can then take a document.
    await applyChanges(spaceId, crNumber, owner, [{ operation: 'update_page', page: docPage.id, computed: null }]);
    const plain = await get(`${base}/page/${docPage.id}`);
    expect(plain).toMatchObject({ type: 'document', title: 'Renamed' });
    expect(plain).not.toHaveProperty('computed');
    expect(plain).not.toHaveProperty('computedSeed');
    expect(plain).not.toHaveProperty('documentId');
    expect(plain.document.nodes).toEqual([]);
    await applyChanges(spaceId, crNumber, owner, [{ operation: 'update_page', page: docPage.id, document: { markdown: 'Own text again' } }]);
    expect(textOf((await get(`${base}/page/${docPage.id}`)).document)).toBe('Own text again');
    // computed: null and a document in one change.
    await applyChanges(spaceId, crNumber, owner, [{ operation: 'update_page', page: computedId, computed: null, document: { markdown: 'Not generated' } }]);
    expect(textOf((await get(`${base}/page/${computedId}`)).document)).toBe('Not generated');
  });
});

describe('merges and reverts of computed pages', () => {
  it('merges a page made computed into main, reverts it to its document, and refuses block reverts on it', async () => {
    const made = await spaceWith([{ operation: 'insert_page', ref: 'p', title: 'Page', document: { markdown: 'Original text' } }]);
    const pageId = made.result.changes[0].page.id;
    const main = await get(`${contentOf(made.spaceId)}/page/${pageId}`);
    const cr = await openChangeRequest(made.spaceId, owner, 'Make it computed');
    await applyChanges(made.spaceId, cr.number, owner, [{ operation: 'update_page', page: pageId, computed: source('later'), document: {} }]);
    expectError(await postChanges(made.spaceId, cr.number, owner, [{ operation: 'revert_page', page: pageId, block: [main.document.nodes[0].key] }]), 400, 'is computed on one side');
    expectStatus(await merge(made.spaceId, cr.number, owner), 200);
    expect(await get(`${contentOf(made.spaceId)}/page/${pageId}?computed=false`)).toMatchObject({ type: 'computed', computed: source('later') });

    const back = await openChangeRequest(made.spaceId, owner, 'Back');
    const base = `/v1/spaces/${made.spaceId}/change-requests/${back.number}/content`;
    const mergedRevision = (await get(contentOf(made.spaceId))).parents[0];
    await applyChanges(made.spaceId, back.number, owner, [{ operation: 'revert_page', page: pageId, revision: mergedRevision }]);
    const reverted = await get(`${base}/page/${pageId}`);
    expect(reverted).toMatchObject({ type: 'document', documentId: main.documentId });
    expect(reverted).not.toHaveProperty('computed');
    expect(textOf(reverted.document)).toBe('Original text');
  });
});

describe('reading a space page computed from a spec', () => {
  let spec: { id: string; slug: string };
  let spaceId: string;
  let apiId: string;
  let opsId: string;
  let introId: string;

  beforeAll(async () => {
    spec = await processedSpec();
    const made = await spaceWith([
      { operation: 'insert_page', ref: 'intro', title: 'Intro', document: { markdown: 'See the [API](./api).' } },
      { operation: 'insert_page', ref: 'api', title: 'API', emoji: '1f4da', computed: source(spec.slug) },
      { operation: 'insert_page', ref: 'ops', title: 'By operation', computed: source(spec.slug, { models: false, grouping: 'by-operation' }) },
    ]);
    spaceId = made.spaceId;
    [introId, apiId, opsId] = made.result.changes.map((c: any) => c.page.id);
  });

  it('lists one page per tag (untagged ones last), then Models, each generated with stable ids and GitBook sources', async () => {
    const { pages } = await get(`${contentOf(spaceId)}/pages`);
    const api = pages.find((p: any) => p.id === apiId);
    expect(api).toMatchObject({
      type: 'document',
      title: 'API',
      slug: 'api',
      path: 'api',
      emoji: '1f4da',
      computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: spec.slug } } }, props: { doc: 'info', page: 'Petstore' } },
      computedSeed: apiId,
    });
    expect(api).not.toHaveProperty('documentId');
    expect(api.pages.map((p: any) => [p.title, p.slug, p.path])).toEqual([
      ['pets', 'pets', 'api/pets'],
      ['store', 'store', 'api/store'],
      ['Other operations', 'other-operations', 'api/other-operations'],
      ['Models', 'models', 'api/models'],
    ]);
    for (const child of api.pages) {
      expect(child.id).toMatch(new RegExp(`^${apiId}-[A-Za-z0-9]{16}$`));
      expect(child.id).toMatch(SAFE_KEY);
      expect(child.type).toBe('document');
      expect(child.pages).toEqual([]);
      expect(child.urls.app).toMatch(new RegExp(`/${child.path}$`));
    }
    expect(new Set(api.pages.map((p: any) => p.id)).size).toBe(4);
    const ref = { kind: 'openapi', spec: spec.slug };
    expect(api.pages.map((p: any) => [p.computed, p.computedSeed])).toEqual([
      [{ type: 'builtin:openapi', dependencies: { spec: { ref } }, props: { doc: 'tag', page: 'pets' } }, `${apiId}/tag/pets`],
      [{ type: 'builtin:openapi', dependencies: { spec: { ref } }, props: { doc: 'tag', page: 'store' } }, `${apiId}/tag/store`],
      [{ type: 'builtin:openapi', dependencies: { spec: { ref } }, props: { doc: 'tag', page: 'Other operations' } }, `${apiId}/tag/`],
      [{ type: 'builtin:openapi', dependencies: { spec: { ref } }, props: { doc: 'models' } }, `${apiId}/models`],
    ]);
    // The same ids on every read, and from the pure function that makes them.
    expect((await get(`${contentOf(spaceId)}/pages`)).pages.find((p: any) => p.id === apiId).pages.map((p: any) => p.id)).toEqual(api.pages.map((p: any) => p.id));
    expect(api.pages[0].id).toBe(generatedPageId(apiId, `${apiId}/tag/pets`));
    // Ordinary pages are untouched.
    expect(pages.find((p: any) => p.id === introId)).not.toHaveProperty('computed');
  });

  it('reads the computed page with the spec description, and a tag page with its description and one openapi-operation block per operation', async () => {
    const apiPage = await get(`${contentOf(spaceId)}/page/${apiId}`);
    expect(apiPage).toMatchObject({ id: apiId, type: 'document', path: 'api', computedSeed: apiId });
    expect(apiPage.document.nodes.map((n: any) => [n.type, textOf(n)])).toEqual([
      ['heading-1', 'Welcome'],
      ['paragraph', 'The Petstore API sells pets.'],
    ]);
    expect(apiPage.pages.map((p: any) => p.title)).toEqual(['pets', 'store', 'Other operations', 'Models']);

    const petsId = apiPage.pages[0].id;
    const pets = await get(`${contentOf(spaceId)}/page/${petsId}`);
    expect(pets).toMatchObject({ id: petsId, title: 'pets', slug: 'pets', path: 'api/pets', computedSeed: `${apiId}/tag/pets` });
    const [description, ...blocks] = pets.document.nodes;
    expect(textOf(description)).toBe('Everything about your pets');
    const ref = { kind: 'openapi', spec: spec.slug };
    expect(blocks.map((b: any) => ({ object: b.object, type: b.type, isVoid: b.isVoid, data: b.data }))).toEqual([
      { object: 'block', type: 'openapi-operation', isVoid: true, data: { ref, path: '/pets', method: 'get' } },
      { object: 'block', type: 'openapi-operation', isVoid: true, data: { ref, path: '/pets', method: 'post' } },
      { object: 'block', type: 'openapi-operation', isVoid: true, data: { ref, path: '/pets/{petId}', method: 'get' } },
    ]);
    // Keys are unique and the same on every read.
    const keys = pets.document.nodes.map((n: any) => n.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect((await get(`${contentOf(spaceId)}/page/${petsId}`)).document).toEqual(pets.document);

    const other = await get(`${contentOf(spaceId)}/page/${apiPage.pages[2].id}`);
    expect(other.document.nodes.map((b: any) => b.data)).toEqual([{ ref, path: '/health', method: 'get' }]);

    const models = await get(`${contentOf(spaceId)}/page/${apiPage.pages[3].id}`);
    expect(models.document.nodes).toEqual([
      { object: 'block', type: 'openapi-schemas', key: expect.any(String), isVoid: true, data: { ref, schemas: ['Pet', 'Error'], grouped: true } },
    ]);
  });

  it('writes generated pages as GitBook Markdown: openapi-operation and openapi-schemas tags', async () => {
    const { pages } = await get(`${contentOf(spaceId)}/pages`);
    const api = pages.find((p: any) => p.id === apiId);
    const pets = await get(`${contentOf(spaceId)}/page/${api.pages[0].id}?format=markdown`);
    expect(pets.document).toBeUndefined();
    expect(pets.markdown).toBe(
      [
        '# pets',
        '',
        'Everything about your pets',
        '',
        `{% openapi-operation spec="${spec.slug}" path="/pets" method="get" %}`,
        `[OpenAPI ${spec.slug}](/openapi/${spec.slug})`,
        '{% endopenapi-operation %}',
        '',
        `{% openapi-operation spec="${spec.slug}" path="/pets" method="post" %}`,
        `[OpenAPI ${spec.slug}](/openapi/${spec.slug})`,
        '{% endopenapi-operation %}',
        '',
        `{% openapi-operation spec="${spec.slug}" path="/pets/{petId}" method="get" %}`,
        `[OpenAPI ${spec.slug}](/openapi/${spec.slug})`,
        '{% endopenapi-operation %}',
        '',
      ].join('\n'),
    );
    const models = await get(`${contentOf(spaceId)}/page/${api.pages[3].id}?format=markdown`);
    expect(models.markdown).toContain(`{% openapi-schemas spec="${spec.slug}" schemas="Pet,Error" grouped="true" %}`);
    expect(models.markdown).toContain('{% endopenapi-schemas %}');
    const root = await get(`${contentOf(spaceId)}/page/${apiId}?format=markdown&evaluated=true&dereferenced=true`);
    expect(root.markdown).toBe('# API\n\n## Welcome\n\nThe **Petstore** API sells pets.\n');
  });

  it('groups by operation: per tag a page with one child page per operation', async () => {
    const ops = await get(`${contentOf(spaceId)}/page/${opsId}`);
    expect(ops.pages.map((p: any) => p.title)).toEqual(['pets', 'store', 'Other operations']);
    const [pets, store] = ops.pages;
    expect(pets.pages.map((p: any) => [p.title, p.path, p.computed.props])).toEqual([
      ['List pets', 'by-operation/pets/list-pets', { doc: 'operation', page: '/pets', method: 'get' }],
      ['Create a pet', 'by-operation/pets/create-a-pet', { doc: 'operation', page: '/pets', method: 'post' }],
      ['Info for a pet', 'by-operation/pets/info-for-a-pet', { doc: 'operation', page: '/pets/{petId}', method: 'get', deprecated: true }],
    ]);
    expect(store.pages.map((p: any) => [p.title, p.slug])).toEqual([['GET /store/inventory', 'get-store-inventory']]);
    expect(pets.pages.map((p: any) => p.computedSeed)).toEqual([
      `${opsId}/tag/pets/operation/get /pets`,
      `${opsId}/tag/pets/operation/post /pets`,
      `${opsId}/tag/pets/operation/get /pets/{petId}`,
    ]);
    for (const page of flatten(ops.pages)) expect(page.id).toMatch(new RegExp(`^${opsId}-[A-Za-z0-9]{16}$`));

    // A tag page has its description only; an operation page its one block; both read by id.
    const petsPage = await get(`${contentOf(spaceId)}/page/${pets.id}`);
    expect(petsPage.document.nodes.map((n: any) => n.type)).toEqual(['paragraph']);
    expect(petsPage.pages.map((p: any) => p.id)).toEqual(pets.pages.map((p: any) => p.id));
    const create = await get(`${contentOf(spaceId)}/page/${pets.pages[1].id}`);
    expect(create).toMatchObject({ title: 'Create a pet', path: 'by-operation/pets/create-a-pet', pages: [] });
    expect(create.document.nodes.map((n: any) => [n.type, n.data])).toEqual([['openapi-operation', { ref: { kind: 'openapi', spec: spec.slug }, path: '/pets', method: 'post' }]]);
    const asMarkdown = await get(`${contentOf(spaceId)}/page/${pets.pages[1].id}?format=markdown`);
    expect(asMarkdown.markdown).toContain(`{% openapi-operation spec="${spec.slug}" path="/pets" method="post" %}`);
    // No Models page: props.models is false.
    expect(ops.pages.some((p: any) => p.title === 'Models')).toBe(false);
  });

  it('reads the same pages in the revision and in a change request’s content', async () => {
    const revision = await get(contentOf(spaceId));
    const listed = (await get(`${contentOf(spaceId)}/pages`)).pages;
    expect(revision.pages).toEqual(listed.map((p: any) => ({ ...p })));
    const cr = await openChangeRequest(spaceId, owner, 'Later');
    const crBase = `/v1/spaces/${spaceId}/change-requests/${cr.number}/content`;
    const crPages = (await get(`${crBase}/pages`)).pages;
    const ids = (list: any[]) => flatten(list).map((p: any) => [p.id, p.path]);
    expect(ids(crPages)).toEqual(ids(listed));
    const generated = listed.find((p: any) => p.id === apiId).pages[1];
    const crRead = await get(`${crBase}/page/${generated.id}`);
    expect(crRead).toMatchObject({ id: generated.id, title: 'store', path: 'api/store' });
    expect(crRead.document.nodes[0].data.path).toBe('/store/inventory');
    expect((await get(`${crBase}`)).pages.map((p: any) => p.id)).toEqual(listed.map((p: any) => p.id));
  });

  it('with computed=false reads the computed page as stored: type computed, its source, no document and no generated pages', async () => {
    const { pages } = await get(`${contentOf(spaceId)}/pages?computed=false`);
    const api = pages.find((p: any) => p.id === apiId);
    expect(api).toEqual({
      id: apiId,
      title: 'API',
      type: 'computed',
      computed: source(spec.slug),
      emoji: '1f4da',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      urls: { app: expect.stringMatching(/\/api$/) },
      slug: 'api',
      path: 'api',
      hidden: false,
      noIndex: false,
      noRobotsIndex: false,
    });
    const byId = await get(`${contentOf(spaceId)}/page/${apiId}?computed=false&format=markdown`);
    expect(byId).toEqual(api);
    expect((await get(`${contentOf(spaceId)}?computed=false`)).pages.find((p: any) => p.id === apiId)).toEqual(api);
    const generatedId = generatedPageId(apiId, `${apiId}/tag/pets`);
    expectError(await api_(`${contentOf(spaceId)}/page/${generatedId}?computed=false`), 404, 'Page not found');
    expect((await api_(`${contentOf(spaceId)}/page/${generatedId}`)).status).toBe(200);
    // Ids that are no generated page of it are 404s.
    for (const id of [`${apiId}-${'A'.repeat(16)}`, `${introId}-${generatedId.split('-')[1]}`, `zzzzzzzzzzzzzzzzzzzz-${generatedId.split('-')[1]}`, `${apiId}-`]) {
      expectError(await api_(`${contentOf(spaceId)}/page/${id}`), 404, 'Page not found');
    }
  });

  it('validates against GitBook 0.202: as published with computed=false, with the documented oneOf fix with computed=true', async () => {
    const listPages = await get(`${contentOf(spaceId)}/pages?computed=false`);
    expect(gitbookErrors(responseValidator('listPages', TREE_PUBLISHED), listPages)).toBe('valid');
    const computedPage = await get(`${contentOf(spaceId)}/page/${apiId}?computed=false`);
    expect(gitbookErrors(responseValidator('getPageById', PUBLISHED), computedPage)).toBe('valid');
    const revision = await get(`${contentOf(spaceId)}?computed=false`);
    expect(gitbookErrors(responseValidator('getCurrentRevision', TREE_PUBLISHED), revision)).toBe('valid');

    const expanded = await get(`${contentOf(spaceId)}/pages`);
    expect(gitbookErrors(responseValidator('listPages', TREE_COMPUTED), expanded)).toBe('valid');
    expect(gitbookErrors(responseValidator('getCurrentRevision', TREE_COMPUTED), await get(contentOf(spaceId)))).toBe('valid');
    const generated = flatten(expanded.pages).filter((p: any) => p.computedSeed);
    expect(generated.length).toBe(4 + 1 + 3 + 5 + 1);
    for (const page of [generated[0], generated[1], generated[generated.length - 1]]) {
      for (const format of ['document', 'markdown']) {
        const read = await get(`${contentOf(spaceId)}/page/${page.id}?format=${format}`);
        // A page with child pages: they carry no body (the tree-read deviation, see withoutPageBodyMember).
        const [fixed, published] = read.pages.length ? [TREE_COMPUTED, TREE_PUBLISHED] : [COMPUTED, PUBLISHED];
        expect(gitbookErrors(responseValidator('getPageById', fixed), read)).toBe('valid');
        // As published, only the computed/documentId oneOf fails (both of its branches match).
        const errors = gitbookErrors(responseValidator('getPageById', published), read);
        expect(errors).not.toBe('valid');
        expect((errors as string[]).some((e) => e.includes('(2 matches)'))).toBe(true);
        expect((errors as string[]).filter((e) => e.includes('does not match exactly one subschema') && !/\((?:0|2) matches\)/.test(e))).toEqual([]);
      }
    }
  });

  it('answers page, pages and content reads in the same round trips as a space without computed pages', async () => {
    const plain = await spaceWith([
      { operation: 'insert_page', ref: 'intro', title: 'Intro', document: { markdown: 'Text' } },
      { operation: 'insert_page', ref: 'api', title: 'API', document: { markdown: 'Not computed' } },
    ]);
    const plainIds = plain.result.changes.map((c: any) => c.page.id);
    await api('GET', '/v1/user', { token: owner });
    const generatedId = generatedPageId(apiId, `${apiId}/tag/pets`);
    const cases: Array<[string, string]> = [
      [`${contentOf(plain.spaceId)}/pages`, `${contentOf(spaceId)}/pages`],
      [`${contentOf(plain.spaceId)}`, `${contentOf(spaceId)}`],
      [`${contentOf(plain.spaceId)}/page/${plainIds[1]}`, `${contentOf(spaceId)}/page/${apiId}`],
      [`${contentOf(plain.spaceId)}/page/${plainIds[1]}`, `${contentOf(spaceId)}/page/${generatedId}`],
      [`${contentOf(plain.spaceId)}/page/${plainIds[1]}?format=markdown`, `${contentOf(spaceId)}/page/${generatedId}?format=markdown`],
      [`${contentOf(plain.spaceId)}/pages?computed=false`, `${contentOf(spaceId)}/pages?computed=false`],
    ];
    for (const [ordinary, computed] of cases) {
      const a = await measureRoundTrips('GET', ordinary, owner);
      const b = await measureRoundTrips('GET', computed, owner);
      expect([a.status, b.status], computed).toEqual([200, 200]);
      expect(b.roundTrips, computed).toBe(a.roundTrips);
      expect(b.roundTrips, computed).toBeLessThanOrEqual(2);
    }
  });
});


describe('ids across versions of the spec', () => {
  it('keeps the ids of pages that remain and adds pages for a new tag and operation', async () => {
    const spec = await processedSpec();
    const made = await spaceWith([
      { operation: 'insert_page', ref: 'api', title: 'API', computed: source(spec.slug) },
      { operation: 'insert_page', ref: 'ops', title: 'Ops', computed: source(spec.slug, { models: true, grouping: 'by-operation' }) },
    ]);
    const [apiId, opsId] = made.result.changes.map((c: any) => c.page.id);
    const read = async () => {
      const { pages } = await get(`${contentOf(made.spaceId)}/pages`);
      return Object.fromEntries(flatten(pages).map((p: any) => [p.path, p.id]));
    };
    const v1 = await read();
    const v1Pets = await get(`${contentOf(made.spaceId)}/page/${v1['api/pets']}`);
    expect(v1Pets.document.nodes.filter((n: any) => n.type === 'openapi-operation')).toHaveLength(3);

    await seedSpecVersion(spec.id, OUTLINE_V2, { createdAt: new Date(Date.now() + 1000).toISOString() });
    const v2 = await read();
    for (const [path, id] of Object.entries(v1)) expect(v2[path], path).toBe(id);
    const added = Object.keys(v2).filter((path) => !(path in v1));
    expect(added.sort()).toEqual(['api/users', 'ops/pets/delete-a-pet', 'ops/users', 'ops/users/list-users'].sort());
    expect(v2['api/users']).toMatch(new RegExp(`^${apiId}-`));
    expect(v2['ops/pets/delete-a-pet']).toMatch(new RegExp(`^${opsId}-`));

    const v2Pets = await get(`${contentOf(made.spaceId)}/page/${v1['api/pets']}`);
    expect(v2Pets.document.nodes.filter((n: any) => n.type === 'openapi-operation').map((n: any) => `${n.data.method} ${n.data.path}`)).toEqual([
      'get /pets',
      'post /pets',
      'get /pets/{petId}',
      'delete /pets/{petId}',
    ]);
    // Keys of the operations that were there are unchanged.
    expect(v2Pets.document.nodes.slice(0, 4).map((n: any) => n.key)).toEqual(v1Pets.document.nodes.map((n: any) => n.key));
    const models = await get(`${contentOf(made.spaceId)}/page/${v1['api/models']}`);
    expect(models.document.nodes[0].data.schemas).toEqual(['Pet', 'Error', 'User']);
    // The page shows the version's time as its last update.
    expect((await get(`${contentOf(made.spaceId)}/page/${apiId}`)).updatedAt > v1Pets.updatedAt).toBe(true);
  });
});

describe('specs that cannot be shown', () => {
  it('shows a hint naming the spec and what happened: missing, another organization’s, pending, failed; never a 500', async () => {
    const otherOrg = expectStatus(await api('POST', '/v1/orgs', { token: owner, body: { title: 'Other' } }), 201).body.id;
    const foreign = await seedSpec(otherOrg);
    await seedSpecVersion(foreign.id, OUTLINE_V1);
    const pending = await seedSpec(org.id, { state: 'pending' });
    const progress = await seedSpec(org.id, { state: 'progress' });
    const failed = await seedSpec(org.id);
    await failSpec(failed.id, 'PARSE_ERROR', 'bad indentation of a mapping entry (3:5)');
    const failedLater = await processedSpec();
    await failSpec(failedLater.id, 'FETCH_ERROR', 'HTTP 500');
    const missing = specSlug('missing');

    const made = await spaceWith([
      { operation: 'insert_page', ref: 'missing', title: 'Missing', computed: source(missing) },
      { operation: 'insert_page', ref: 'foreign', title: 'Foreign', computed: source(foreign.slug) },
      { operation: 'insert_page', ref: 'pending', title: 'Pending', computed: source(pending.slug) },
      { operation: 'insert_page', ref: 'progress', title: 'Progress', computed: source(progress.slug) },
      { operation: 'insert_page', ref: 'failed', title: 'Failed', computed: source(failed.slug) },
      { operation: 'insert_page', ref: 'later', title: 'Failed later', computed: source(failedLater.slug) },
    ]);
    const ids = made.result.changes.map((c: any) => c.page.id);
    const { pages } = await get(`${contentOf(made.spaceId)}/pages`);
    expect(pages.map((p: any) => [p.title, p.pages.length])).toEqual([
      ['Missing', 0],
      ['Foreign', 0],
      ['Pending', 0],
      ['Progress', 0],
      ['Failed', 0],
      ['Failed later', 4],
    ]);
    const hint = async (id: string) => {
      const page = await get(`${contentOf(made.spaceId)}/page/${id}`);
      expect(page.document.nodes).toHaveLength(1);
      const [node] = page.document.nodes;
      expect(node.type).toBe('hint');
      expect(gitbookErrors(responseValidator('getPageById', COMPUTED), page)).toBe('valid');
      return { style: node.data.style, text: textOf(node), markdown: (await get(`${contentOf(made.spaceId)}/page/${id}?format=markdown`)).markdown };
    };
    const missingHint = await hint(ids[0]);
    expect(missingHint).toMatchObject({ style: 'danger', text: expect.stringContaining(`"${missing}" does not exist in this organization`) });
    expect(missingHint.markdown).toContain('{% hint style="danger" %}');
    expect(await hint(ids[1])).toMatchObject({ style: 'danger', text: expect.stringContaining(`"${foreign.slug}" does not exist in this organization`) });
    expect(await hint(ids[2])).toMatchObject({ style: 'info', text: expect.stringContaining(`"${pending.slug}" is being processed`) });
    expect(await hint(ids[3])).toMatchObject({ style: 'info', text: expect.stringContaining('is being processed') });
    expect(await hint(ids[4])).toMatchObject({
      style: 'danger',
      text: `The OpenAPI specification "${failed.slug}" could not be processed (PARSE_ERROR): see the spec's lastProcessedErrors`,
    });
    // Failed after an earlier version: that version is shown.
    expect(pages[5].pages.map((p: any) => p.title)).toEqual(['pets', 'store', 'Other operations', 'Models']);
    expect((await get(`${contentOf(made.spaceId)}/page/${ids[5]}`)).document.nodes[0].type).toBe('heading-1');
    // Missing-spec pages validate as GitBook pages too.
    expect(gitbookErrors(responseValidator('listPages', TREE_COMPUTED), { pages })).toBe('valid');
  });

  it('shows a spec once it has a version, without any write to the space', async () => {
    const spec = await seedSpec(org.id, { state: 'pending' });
    const made = await spaceWith([{ operation: 'insert_page', ref: 'api', title: 'API', computed: source(spec.slug) }]);
    expect((await get(`${contentOf(made.spaceId)}/pages`)).pages[0].pages).toEqual([]);
    await seedSpecVersion(spec.id, OUTLINE_V1);
    expect((await get(`${contentOf(made.spaceId)}/pages`)).pages[0].pages.map((p: any) => p.title)).toEqual(['pets', 'store', 'Other operations', 'Models']);
  });
});

describe('the api-reference template', () => {
  it('writes its reference page as a computed page of the spec given, which lists the spec’s operations; links to it resolve', async () => {
    const spec = await processedSpec();
    const space = await createSpace(org.id, owner, 'From template');
    expectStatus(
      await api('POST', `/v1/spaces/${space.id}/content/template`, { token: owner, body: { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: spec.slug } } } } }),
      201,
    );
    const stored = (await get(`${contentOf(space.id)}/pages?computed=false`)).pages;
    const reference = stored.find((p: any) => p.title === 'Reference');
    expect(reference).toMatchObject({
      type: 'computed',
      emoji: '1f4da',
      description: 'Every operation of the API, generated from its OpenAPI specification.',
      computed: source(spec.slug, { models: true }),
    });
    const expanded = (await get(`${contentOf(space.id)}/pages`)).pages.find((p: any) => p.id === reference.id);
    expect(expanded.pages.map((p: any) => p.title)).toEqual(['pets', 'store', 'Other operations', 'Models']);
    const pets = await get(`${contentOf(space.id)}/page/${expanded.pages[0].id}`);
    expect(pets.document.nodes.filter((n: any) => n.type === 'openapi-operation').map((n: any) => n.data.path)).toEqual(['/pets', '/pets', '/pets/{petId}']);
    // The introduction links to the reference page by id.
    const intro = stored.find((p: any) => p.title === 'Introduction');
    const markdown = (await get(`${contentOf(space.id)}/page/${intro.id}?format=markdown`)).markdown;
    expect(markdown).toContain(`[Reference](/pages/${reference.id})`);
  });
});

describe('expansion (pure)', () => {
  const page = (computed: ComputedRevisionSource): PageEntry => ({
    id: 'Root0000000000000000',
    type: 'document',
    title: 'Ref',
    slug: 'ref',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    computed,
    computedSeed: 'Seed0000000000000000',
    pages: [],
  });
  const state = (outline: unknown) => ({ slug: 's', state: 'complete', errorCode: null, errors: [], outline: readOutline(outline), versionCreatedAt: null });

  it('derives ids from the seed (not the id), skips empty and repeated tags and unknown methods, and makes slugs unique', async () => {
    const outline = {
      title: 'T',
      tags: [
        { name: 'Same', operations: [{ path: '/a', method: 'GET' }, { path: '/a', method: 'get' }, { path: '/x', method: 'connect' }] },
        { name: 'same', operations: [{ path: '/b', method: 'get' }] },
        { name: 'Same', operations: [{ path: '/c', method: 'get' }] },
        { name: 'Empty', operations: [] },
        { name: 'Models', operations: [{ path: '/m', method: 'get' }] },
      ],
      schemas: ['A'],
    };
    const root = expandComputed(page({ type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 's' } } }, props: { models: true } }), state(outline));
    expect(root.pages.map((p) => [p.title, p.slug])).toEqual([
      ['Same', 'same'],
      ['same', 'same-2'],
      ['Models', 'models'],
      ['Models', 'models-2'],
    ]);
    expect(root.pages[0].id).toBe(generatedPageId('Root0000000000000000', 'Seed0000000000000000/tag/Same'));
    const doc = await generatedDocument(root.pages[0].generated!, root.pages[0].computedSeed!);
    expect(doc.nodes.map((n: any) => n.data.path)).toEqual(['/a']);
    expect(findGenerated(root, root.pages[3].id, 'docs')).toEqual({ page: root.pages[3], parentPath: 'docs/ref' });
    expect(findGenerated(root, 'Root0000000000000000-nope', '')).toBeUndefined();
    // Markdown of a document with a malformed block never throws.
    expect(() => documentToMarkdown({ object: 'document', data: {}, nodes: [{ object: 'block', type: 'openapi-operation' } as never, { object: 'block' } as never] })).not.toThrow();
  });

  it('reads a malformed outline as far as it is usable', () => {
    expect(readOutline(null)).toBeNull();
    expect(readOutline('x')).toBeNull();
    expect(readOutline({ tags: 'no', schemas: [1, 'A'] })).toEqual({ title: '', tags: [], schemas: ['A'] });
    const root = expandComputed(
      page({ type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 's' } } }, props: { models: false } }),
      state({ tags: [{ name: 'T', operations: [null, { path: 1 }, { path: '/ok', method: 'get' }] }] }),
    );
    expect(root.generated!.computed.props).toEqual({ doc: 'info', page: 's' });
    expect(root.pages.map((p) => p.title)).toEqual(['T']);
  });
});

describe('what else reads pages', () => {
  it('exports a PDF of, and indexes, a space with a computed page without failing; generated pages are in neither', async () => {
    const spec = await processedSpec({ ...OUTLINE_V1, tags: [{ name: 'quokkas', description: 'Marsupialia everywhere', operations: [{ path: '/q', method: 'get' }] }] });
    const made = await spaceWith([
      { operation: 'insert_page', ref: 'intro', title: 'Intro', document: { markdown: 'Hello' } },
      { operation: 'insert_page', ref: 'api', title: 'Zebracorn reference', computed: source(spec.slug) },
    ]);
    const apiId = made.result.changes[1].page.id;
    const cr = await openChangeRequest(made.spaceId, owner, 'PDF');
    const pdf = `/v1/spaces/${made.spaceId}/change-requests/${cr.number}/pdf`;
    expect((await get(pdf)).url).toEqual(expect.any(String));
    expect((await get(`${pdf}?only=true&page=${apiId}`)).url).toEqual(expect.any(String));

    const search = async (query: string) => (await get(`/v1/spaces/${made.spaceId}/search?query=${encodeURIComponent(query)}`)).items.map((p: any) => p.id);
    // The index follows the merge; a computed page, like an empty one, has no text to index (not even
    // its title: pages are indexed by their sections), and generated pages are not indexed (a known limitation).
    expect(await search('Hello')).toEqual([made.result.changes[0].page.id]);
    expect(await search('Zebracorn')).toEqual([]);
    expect(await search('Marsupialia')).toEqual([]);
  });
});

describe('/openapi.json', () => {
  it('documents computed pages: page trees and page reads as document or computed pages, and computed in content changes', async () => {
    const doc = expectStatus(await api('GET', '/openapi.json'), 200).body;
    const schemas = doc.components.schemas;
    const refs = (value: unknown) => [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    // Link pages (a SUMMARY.md entry leading to a URL) are the third kind, groups (a SUMMARY.md heading) the fourth.
    expect(refs(schemas.RevisionPage).sort()).toEqual(['RevisionPageComputed', 'RevisionPageDocument', 'RevisionPageGroup', 'RevisionPageLink']);
    expect(refs(schemas.RevisionPageComputed.properties.computed)).toEqual(['ComputedContentSourceRevisionOpenAPI']);
    expect(refs(schemas.RevisionPageDocument.properties.computed)).toEqual(['ComputedContentSourceDocumentOpenAPI']);
    expect(refs(schemas.RevisionPageDocument.properties.pages)).toEqual(['RevisionPage']);
    expect(schemas.ComputedContentSourceRevisionOpenAPI.properties.props.properties.grouping.enum).toEqual(['by-tag', 'by-operation']);
    const response = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema;
    expect(refs(response('/spaces/{spaceId}/content/pages'))).toEqual(['RevisionPage']);
    expect(refs(response('/spaces/{spaceId}/content/page/{pageId}')).sort()).toEqual(['RevisionPageComputed', 'RevisionPageGroup', 'RevisionPageLink', 'RevisionPageWithContent']);
    expect(refs(response('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}')).sort()).toEqual(['RevisionPageComputed', 'RevisionPageGroup', 'RevisionPageLink', 'RevisionPageWithContent']);
    const change = JSON.stringify(schemas.ChangeRequestContentChange);
    expect(change.match(/ComputedContentSourceRevisionOpenAPI/g)).toHaveLength(2);
  });
});

// ---------------------------------------------------------------------------------------------
// Review findings: expansion cost, who may point a page at a spec, generated ids, merges, Markdown

describe('expansion of large outlines (pure)', () => {
  const page = (props: ComputedRevisionSource['props'], stored: PageEntry[] = []): PageEntry => ({
    id: 'Root0000000000000000',
    type: 'document',
    title: 'Ref',
    slug: 'ref',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    computed: source('s', props),
    computedSeed: 'Root0000000000000000',
    pages: stored,
  });
  const state = (outline: unknown) => ({ slug: 's', state: 'complete', errorCode: null, errors: [], outline: readOutline(outline), versionCreatedAt: null });
  const expectUniqueSlugs = (pages: Array<{ slug: string }>) => expect(new Set(pages.map((p) => p.slug)).size).toBe(pages.length);

  // Slugs are claimed in a set per sibling group (linear); how fast is the bench's to measure, not a test's.
  it('expands 5,000 operations of one tag by operation, and 5,000 tags by tag, with unique slugs and ids', () => {
    // Half the operations share a summary, so most slugs are numbered.
    const operations = Array.from({ length: 5000 }, (_, i) => ({ path: `/items/${i}`, method: 'get', summary: i % 2 ? `Get item ${i}` : 'Get an item' }));
    const byOperation = expandComputed(page({ models: false, grouping: 'by-operation' }), state({ title: 'T', tags: [{ name: 'items', operations }], schemas: [] }));
    const children = byOperation.pages[0].pages;
    expect(children).toHaveLength(5000);
    expectUniqueSlugs(children);
    expect(children.slice(0, 4).map((p) => p.slug)).toEqual(['get-an-item', 'get-item-1', 'get-an-item-2', 'get-item-3']);

    // Half the tags have names that differ only in characters a slug drops (all \`tag\`).
    const tags = Array.from({ length: 5000 }, (_, i) => ({ name: i % 2 ? `Tag ${i}` : `Tag ${String.fromCharCode(0x4e00 + i)}`, operations: [{ path: `/t/${i}`, method: 'get' }] }));
    const byTag = expandComputed(page({ models: true }), state({ title: 'T', tags, schemas: ['A'] }));
    expect(byTag.pages).toHaveLength(5001);
    expectUniqueSlugs(byTag.pages);
    expect(byTag.pages.slice(0, 4).map((p) => p.slug)).toEqual(['tag', 'tag-1', 'tag-2', 'tag-3']);
    expect(new Set(flatten([byOperation]).map((p: any) => p.id)).size).toBe(1 + 1 + 5000);
    expect(new Set(flatten([byTag]).map((p: any) => p.id)).size).toBe(1 + 5001);
  });

  it('keeps the slugs of child pages a computed page has stored clear (so no two children share a path)', () => {
    const stored: PageEntry = { ...page({ models: true }), id: 'Kid00000000000000000', title: 'Pets', slug: 'pets', pages: [] };
    delete stored.computed;
    const outline = { title: 'T', tags: [{ name: 'pets', operations: [{ path: '/p', method: 'get' }] }], schemas: ['A'] };
    const root = expandComputed(page({ models: true }, [stored, { ...stored, id: 'Kid00000000000000001', slug: 'models' }]), state(outline));
    expect(root.pages.map((p) => p.slug)).toEqual(['pets-2', 'models-2']);
  });

  it('gives every generated page its own id, whatever the tag names (a tag named like an operation seed, slashes, percent signs)', () => {
    const op = (path: string, method = 'get') => ({ path, method });
    const outline = {
      title: 'T',
      tags: [
        { name: 'x', operations: [op('/p'), op('/q')] },
        { name: 'x/operation/get /p', operations: [op('/r')] },
        { name: 'x/operation/get /q', operations: [op('/s')] },
        { name: 'a/b', operations: [op('/t')] },
        { name: 'a%2Fb', operations: [op('/u')] },
        { name: 'models', operations: [op('/v')] },
        { name: '../models', operations: [op('/w')] },
      ],
      schemas: ['A'],
    };
    for (const grouping of ['by-tag', 'by-operation'] as const) {
      const root = expandComputed(page({ models: true, grouping }), state(outline));
      const ids = flatten([root]).map((p: any) => p.id);
      expect(ids.length).toBe(grouping === 'by-tag' ? 1 + 7 + 1 : 1 + 7 + 8 + 1);
      expect(new Set(ids).size, grouping).toBe(ids.length);
    }
    // Plain names keep their seeds (and so their ids).
    const plain = expandComputed(page({ models: false, grouping: 'by-operation' }), state(outline));
    expect(plain.pages[0].computedSeed).toBe('Root0000000000000000/tag/x');
    expect(plain.pages[0].pages[0].computedSeed).toBe('Root0000000000000000/tag/x/operation/get /p');
  });

  it('leaves out operations with an empty path or control characters, and schema names a list cannot carry', () => {
    const outline = {
      title: 'T',
      tags: [
        {
          name: 'bad',
          operations: [
            { path: '', method: 'get' },
            { path: '/a\n{% hint style="danger" %}\nInjected\n{% endhint %}\n', method: 'get' },
            { path: '/tab\there', method: 'post' },
            { path: '/ok', method: 'get' },
          ],
        },
        { name: 'worse', operations: [{ path: '', method: 'get' }, { path: '/b\r', method: 'get' }] },
      ],
      schemas: ['A,B', 'C', 'D\nE', 'F'],
    };
    for (const grouping of ['by-tag', 'by-operation'] as const) {
      const root = expandComputed(page({ models: true, grouping }), state(outline));
      expect(root.pages.map((p) => p.title)).toEqual(['bad', 'Models']);
      const operations = grouping === 'by-tag' ? (root.pages[0].generated!.body as any).operations : root.pages[0].pages.map((p) => p.generated!.body).map((b: any) => b.operation);
      expect(operations.map((o: any) => o.path)).toEqual(['/ok']);
      for (const generated of flatten([root]).map((p: any) => p.generated.computed.props)) {
        if (generated.doc === 'operation') expect(generated.page).not.toBe('');
      }
      expect((root.pages[1].generated!.body as any).schemas).toEqual(['C', 'F']);
    }
  });
});

describe('Markdown of generated blocks', () => {
  it('writes tag attributes on one line: a path with line breaks and tags, exported and imported back, makes no hint', async () => {
    const ref = { kind: 'openapi' as const, spec: 'petstore' };
    const path = '/a\n{% hint style="danger" %}\nInjected\n{% endhint %}\n';
    const document = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'openapi-operation', key: 'k1', isVoid: true, data: { ref, path, method: 'get' } },
        { object: 'block', type: 'openapi-operation', key: 'k2', isVoid: true, data: { ref, path: '/b\r\n{% endopenapi-operation %}\r\n%}{% hint %}', method: 'get' } },
        { object: 'block', type: 'openapi-schemas', key: 'k3', isVoid: true, data: { ref, schemas: ['A,{% hint %}', 'B'], grouped: true } },
      ],
    } as never;
    const markdown = documentToMarkdown(document, { title: 'Exported' });
    expect(markdown).toContain('path="/a&#10;{% hint style=&quot;danger&quot; %&#125;&#10;Injected&#10;{% endhint %&#125;&#10;"');
    expect(markdown.split('\n').filter((line) => line.includes('hint'))).toHaveLength(2);
    expect(markdown).toContain('schemas="B"');

    const space = await createSpace(org.id, owner, 'Round trip');
    const cr = await openChangeRequest(space.id, owner);
    const created = await applyChanges(space.id, cr.number, owner, [{ operation: 'insert_page', title: 'Imported', document: { markdown } }]);
    const read = await get(`/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${created.changes[0].page.id}`);
    const types = (nodes: any[]): string[] => nodes.flatMap((n) => [n.type, ...types(n.nodes ?? [])]);
    expect(types(read.document.nodes)).not.toContain('hint');
    expect(read.title).toBe('Exported');
  });

  it('reads encoded attribute values back as written (a code title with a line break and %})', () => {
    const title = 'a "b" %} c\nd\re';
    const code = { object: 'block', type: 'code', key: 'c', data: { syntax: 'js', title }, nodes: [{ object: 'block', type: 'code-line', key: 'l', nodes: [{ object: 'text', key: 't', leaves: [{ object: 'leaf', text: 'x()', marks: [] }] }] }] };
    const markdown = documentToMarkdown({ object: 'document', data: {}, nodes: [code] } as never);
    expect(markdown.split('\n')[0]).toBe('{% code title="a &quot;b&quot; %&#125; c&#10;d&#13;e" %}');
    const back = markdownToDocument(markdown).document.nodes[0] as any;
    expect(back).toMatchObject({ type: 'code', data: { title } });
  });
});

describe('who may point a page at a spec', () => {
  let spec: { id: string; slug: string };
  let spaceId: string;
  let guest: string;

  beforeAll(async () => {
    spec = await processedSpec();
    const space = await createSpace(org.id, owner, 'Shared with a guest');
    spaceId = space.id;
    guest = org.members.guest.token;
    // A guest of the organization, and a reader, who may edit this one space.
    expectStatus(await api('POST', `/v1/spaces/${spaceId}/permissions`, { token: owner, body: { role: 'edit', users: [org.members.guest.id, org.members.read.id] } }), 204);
  });

  it("refuses (403) a guest's batch or template that sets a computed source; anything else, and members, pass", async () => {
    const cr = await openChangeRequest(spaceId, guest, 'Guest edits');
    const mine = await applyChanges(spaceId, cr.number, guest, [{ operation: 'insert_page', title: 'Plain', document: { markdown: 'Text' } }]);
    const plainId = mine.changes[0].page.id;
    expectError(
      await postChanges(spaceId, cr.number, guest, [{ operation: 'insert_page', title: 'Ok', document: {} }, { operation: 'insert_page', title: 'Peek', computed: source(spec.slug) }]),
      403,
      "changes[1] (insert_page): making a page computed from an OpenAPI spec needs read access to the organization's OpenAPI specs",
    );
    expectError(await postChanges(spaceId, cr.number, guest, [{ operation: 'update_page', page: plainId, computed: source(spec.slug) }]), 403, 'changes[0] (update_page)');
    const template = { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: spec.slug } } } };
    expectError(await api('POST', `/v1/spaces/${spaceId}/content/template`, { token: guest, body: template }), 403, 'template "api-reference"');
    expectError(await api('POST', `/v1/spaces/${spaceId}/content/template`, { token: guest, body: { ...template, changeRequestId: String(cr.number) } }), 403, 'template "api-reference"');
    expectError(await api('POST', `/v1/spaces/${spaceId}/change-requests`, { token: guest, body: { subject: 'T', template } }), 403, 'template "api-reference"');
    // Nothing was written: the guest's change request has its one page.
    expect(await pageTree(spaceId, owner, cr.number)).toEqual(['plain: Plain']);
    // Templates without a computed page, and removing a source, need no access to specs.
    expectStatus(await api('POST', `/v1/spaces/${spaceId}/content/template`, { token: guest, body: { id: 'changelog', changeRequestId: String(cr.number) } }), 201);
    await applyChanges(spaceId, cr.number, guest, [{ operation: 'update_page', page: plainId, computed: null }]);

    // A reader of the organization with the same grant may.
    const reader = org.members.read.token;
    const readerCr = await openChangeRequest(spaceId, reader, 'Reader edits');
    await applyChanges(spaceId, readerCr.number, reader, [{ operation: 'insert_page', title: 'Ref', computed: source(spec.slug) }]);
    expectStatus(await api('POST', `/v1/spaces/${spaceId}/content/template`, { token: reader, body: { ...template, changeRequestId: String(readerCr.number) } }), 201);
  });

  it('checks the role in the round trips a batch already makes', async () => {
    const cr = await openChangeRequest(spaceId, owner, 'Counted');
    const path = `/v1/spaces/${spaceId}/change-requests/${cr.number}/content`;
    const plain = await measureRoundTrips('POST', path, owner, { changes: [{ operation: 'insert_page', title: 'A', document: {} }] });
    const computed = await measureRoundTrips('POST', path, owner, { changes: [{ operation: 'insert_page', title: 'B', computed: source(spec.slug) }] });
    expect([plain.status, computed.status]).toEqual([200, 200]);
    expect(computed.roundTrips).toBe(plain.roundTrips);
    const refused = await measureRoundTrips('POST', path, guest, { changes: [{ operation: 'insert_page', title: 'C', computed: source(spec.slug) }] });
    expect(refused.status).toBe(403);
  });

  it('lets an installation token set a source only with the openapi:read scope', async () => {
    const publisher = await seedOrg();
    const tokenWith = async (scopes: string[]) => {
      const integration = await seedIntegration(publisher.id, { scopes });
      const installation = await seedInstallation(integration, org.id, { spaces: [spaceId] });
      return seedToken(integration.id, installation.id);
    };
    const writer = await tokenWith(['space:content:read', 'space:content:write']);
    const reader = await tokenWith(['space:content:read', 'space:content:write', 'openapi:read']);
    const cr = await openChangeRequest(spaceId, owner, 'Installations');
    const batch = (token: string) => postChanges(spaceId, cr.number, token, [{ operation: 'insert_page', title: 'Ref', computed: source(spec.slug) }]);
    expectError(await batch(writer), 403, 'openapi:read');
    expectStatus(await batch(reader), 200);
    expectStatus(await postChanges(spaceId, cr.number, writer, [{ operation: 'insert_page', title: 'Plain', document: {} }]), 200);
  });

  it("shows a failed spec's error code in its page, never the message (which may quote the source URL and its token)", async () => {
    const failed = await seedSpec(org.id);
    await failSpec(failed.id, 'FETCH_ERROR', 'GET https://specs.example.test/api.yaml?token=sEcReT123 answered 401');
    const made = await spaceWith([{ operation: 'insert_page', ref: 'api', title: 'API', computed: source(failed.slug) }]);
    const id = made.result.changes[0].page.id;
    const page = await get(`${contentOf(made.spaceId)}/page/${id}`);
    expect(textOf(page.document.nodes[0])).toBe(`The OpenAPI specification "${failed.slug}" could not be processed (FETCH_ERROR): see the spec's lastProcessedErrors`);
    expect(JSON.stringify(await get(`${contentOf(made.spaceId)}/page/${id}?format=markdown`))).not.toContain('sEcReT123');
  });
});

describe('merges that would leave child pages under a computed page', () => {
  it('answer 409 whichever of the two change requests is merged first', async () => {
    for (const order of [['computed', 'child'], ['child', 'computed']] as const) {
      const made = await spaceWith([{ operation: 'insert_page', ref: 'p', title: 'Page', document: { markdown: 'Text' } }]);
      const pageId = made.result.changes[0].page.id;
      const makeComputed = await openChangeRequest(made.spaceId, owner, 'Computed');
      const addChild = await openChangeRequest(made.spaceId, owner, 'Child');
      await applyChanges(made.spaceId, makeComputed.number, owner, [{ operation: 'update_page', page: pageId, computed: source('later') }]);
      await applyChanges(made.spaceId, addChild.number, owner, [{ operation: 'insert_page', into: pageId, title: 'Child', document: {} }]);
      const [first, second] = order[0] === 'computed' ? [makeComputed, addChild] : [addChild, makeComputed];
      expectStatus(await merge(made.spaceId, first.number, owner), 200);
      const error = expectError(await merge(made.spaceId, second.number, owner), 409, `"Page" (${pageId}): it is computed`);
      expect(error).toContain('has 1 child page(s)');
      // Main is as the first merge left it.
      const stored = await get(`${contentOf(made.spaceId)}/pages?computed=false`);
      expect(stored.pages.map((p: any) => [p.type, p.pages?.length ?? 0])).toEqual([order[0] === 'computed' ? ['computed', 0] : ['document', 1]]);
    }
  });
});

describe('reads by an id that only looks generated', () => {
  /** D1 with the rows its batches read counted. */
  function rowsReadingD1() {
    let rows = 0;
    // The binding and the session each request runs on (middleware/context) count alike.
    const counting = <T extends D1Database | D1DatabaseSession>(client: T): T =>
      new Proxy(client, {
        get(target, prop) {
          if (prop === 'batch') {
            return async (statements: D1PreparedStatement[]) => {
              const results = await target.batch(statements);
              for (const result of results) rows += result.meta?.rows_read ?? 0;
              return results;
            };
          }
          if (prop === 'withSession') return (start?: string) => counting((target as D1Database).withSession(start));
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    return { db: counting(env.DB), rows: () => rows };
  }

  it('does not read the whole tree for `~-x` (the part before "-" is the top level, not a computed page)', async () => {
    const space = await createSpace(org.id, owner, 'Large');
    await seedContent(space.id, largeManifest(10, 40));
    const rowsFor = async (id: string) => {
      const counter = rowsReadingD1();
      const res = await requestWithBindings('GET', `${contentOf(space.id)}/page/${id}`, owner, undefined, { DB: counter.db });
      expect(res.status, id).toBe(404);
      return counter.rows();
    };
    const unknown = await rowsFor(`${'z'.repeat(20)}-x`);
    const root = await rowsFor('~-x');
    // A page's own prefix that is no computed page is not expanded either.
    const ordinary = await rowsFor(`${pageId('s-0')}-x`);
    expect(root).toBeLessThan(unknown + 20);
    expect(ordinary).toBeLessThan(unknown + 20);
  });
});

describe('tree reads without computed pages', () => {
  it('know from the records whether there is anything to expand', () => {
    const record = (id: string, extra: object = {}) => ({ id, type: 'document', title: id, slug: id, createdAt: 'x', updatedAt: 'x', parent: null, ...extra });
    const rows = (records: object[]) => [
      { kind: 'leaf', key: null, value: JSON.stringify(Object.fromEntries([['~', { id: '~', children: records.map((r: any) => [r.id, r.slug]) }], ...records.map((r: any) => [r.id, r])])) },
    ];
    const plain = wholeTree(rows([record('a'), record('b')]));
    expect(plain).toMatchObject({ computed: false });
    expect(plain.pages.map((p) => p.id)).toEqual(['a', 'b']);
    expect(wholeTree(rows([record('a'), record('b', { computed: source('s') })])).computed).toBe(true);
  });
});
