/**
 * Content batches of a change request (GitBook's updateChangeRequestContent):
 * POST /v1/spaces/{spaceId}/change-requests/{idOrNumber}/content.
 * Every effect is checked by reading the change request's content back through the API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, seedOrg, type TestOrg } from '../helpers/harness';
import { PNG_1x1, applyChanges, createSpace, merge, openChangeRequest, pageMarkdown, pageTree, postChanges } from '../helpers/content';

const UNKNOWN_ID = 'zzzzzzzzzzzzzzzzzzzz';

let org: TestOrg;
let owner: string;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
});

const contentPath = (spaceId: string, cr: string | number) => `/v1/spaces/${spaceId}/change-requests/${cr}/content`;

/** A new space and an open change request on it, by the owner. */
async function fresh(): Promise<{ spaceId: string; cr: any }> {
  const space = await createSpace(org.id, owner);
  const cr = await openChangeRequest(space.id, owner);
  return { spaceId: space.id, cr };
}

/** A space whose main content holds the pages the changes create (merged), and a new change request on it. */
async function withBase(changes: unknown[]): Promise<{ spaceId: string; cr: any; base: any }> {
  const space = await createSpace(org.id, owner);
  const first = await openChangeRequest(space.id, owner, 'Base');
  const base = await applyChanges(space.id, first.id, owner, changes);
  const merged = await merge(space.id, first.id, owner);
  expect(merged.status, JSON.stringify(merged.body)).toBe(200);
  const cr = await openChangeRequest(space.id, owner);
  return { spaceId: space.id, cr, base };
}

async function readPage(spaceId: string, cr: string | number, pageId: string, query = ''): Promise<any> {
  const res = await api('GET', `${contentPath(spaceId, cr)}/page/${pageId}${query}`, { token: owner });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function listPages(spaceId: string, cr: string | number): Promise<any[]> {
  const res = await api('GET', `${contentPath(spaceId, cr)}/pages`, { token: owner });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.pages;
}

async function getChangeRequest(spaceId: string, cr: string | number, token = owner): Promise<any> {
  const res = await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const pageIds = (result: any): string[] => result.changes.map((c: any) => c.page.id);

/** Concatenated text of a document (all leaves, depth first). */
function textOf(node: any): string {
  if (!node || typeof node !== 'object') return '';
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (node.object === 'leaf') return node.text;
  return [...(node.leaves ?? []), ...(node.nodes ?? [])].map(textOf).join('');
}

/** `data.ref` of every inline link of a document, in order. */
function linkRefs(node: any): any[] {
  if (!node || typeof node !== 'object') return [];
  if (Array.isArray(node)) return node.flatMap(linkRefs);
  const own = node.object === 'inline' && node.type === 'link' ? [node.data.ref] : [];
  return [...own, ...linkRefs(node.nodes ?? []), ...linkRefs(node.fragments ?? [])];
}

// ---------------------------------------------------------------------------------------------

describe('insert_page', () => {
  it('inserts at the root and into a parent, placed by `at`', async () => {
    const { spaceId, cr } = await fresh();
    const first = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Alpha', document: {} },
      { operation: 'insert_page', title: 'Beta', document: {} },
    ]);
    const [alpha] = pageIds(first);
    const second = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Zero', at: 0, document: {} },
      { operation: 'insert_page', title: 'Child B', into: alpha, document: {} },
      { operation: 'insert_page', title: 'Child A', into: alpha, at: 0, document: {} },
      { operation: 'insert_page', title: 'Middle', at: 2, document: {} },
      { operation: 'insert_page', ref: 'parent', title: 'Parent', document: {} },
      { operation: 'insert_page', title: 'Under ref', into: 'parent', document: {} },
    ]);
    expect(second.changes.map((c: any) => c.object)).toEqual(Array(6).fill('created_page'));
    expect(second.changes[4].ref).toBe('parent');
    expect(await pageTree(spaceId, owner, cr.id)).toEqual([
      'zero: Zero',
      'alpha: Alpha',
      'alpha/child-a: Child A',
      'alpha/child-b: Child B',
      'middle: Middle',
      'beta: Beta',
      'parent: Parent',
      'parent/under-ref: Under ref',
    ]);
  });

  it('refuses `at` past the end of the siblings', async () => {
    const { spaceId, cr } = await fresh();
    await applyChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', title: 'One', document: {} }]);
    // at == length appends
    await applyChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', title: 'Two', at: 1, document: {} }]);
    const res = await postChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', title: 'Three', at: 3, document: {} }], false);
    expectError(res, 400, /^changes\[0\] \(insert_page\): at 3 is past the end/);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['one: One', 'two: Two']);
  });

  it('takes the title from frontmatter or a leading heading before `title`, else "Untitled"', async () => {
    const { spaceId, cr } = await fresh();
    const result = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Given', document: { markdown: '---\ntitle: Front Title\n---\n\nBody text.\n' } },
      { operation: 'insert_page', title: 'Given', document: { markdown: '# Heading Title\n\nBody text.\n' } },
      { operation: 'insert_page', title: 'Plain', document: { markdown: 'Only a paragraph.\n' } },
      { operation: 'insert_page', document: {} },
      { operation: 'insert_page', document: { markdown: 'No title anywhere.\n' } },
    ]);
    const [front, heading, plain] = pageIds(result);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual([
      'front-title: Front Title',
      'heading-title: Heading Title',
      'plain: Plain',
      'untitled: Untitled',
      'untitled-1: Untitled',
    ]);
    // The leading heading became the title and left the body (it is read back once, as the title
    // heading, not twice); a frontmatter title leaves the body alone. Markdown reads start with the
    // page's title as a heading 1.
    expect(await pageMarkdown(spaceId, heading, owner, cr.id)).toBe('# Heading Title\n\nBody text.\n');
    expect(await pageMarkdown(spaceId, front, owner, cr.id)).toBe('# Front Title\n\nBody text.\n');
    expect(await pageMarkdown(spaceId, plain, owner, cr.id)).toBe('# Plain\n\nOnly a paragraph.\n');
    for (const id of [heading, front, plain]) expect((await readPage(spaceId, cr.id, id)).document.nodes.map((n: any) => n.type)).toEqual(['paragraph']);
  });

  it('derives slugs from titles, de-duplicated among siblings only, and refuses an explicit colliding slug', async () => {
    const { spaceId, cr } = await fresh();
    const result = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Guide', document: {} },
      { operation: 'insert_page', title: 'Guide', document: {} },
      { operation: 'insert_page', title: 'Getting Started!', document: {} },
      { operation: 'insert_page', title: 'Custom', slug: 'my-slug', document: {} },
    ]);
    const [guide] = pageIds(result);
    await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Guide', into: guide, document: {} },
      { operation: 'insert_page', title: 'Guide', document: {} },
    ]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual([
      'guide: Guide',
      'guide/guide: Guide',
      'guide-1: Guide',
      'getting-started: Getting Started!',
      'my-slug: Custom',
      'guide-2: Guide',
    ]);
    const before = (await getChangeRequest(spaceId, cr.id)).revision;
    const collision = await postChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', title: 'Other', slug: 'guide-1', document: {} }], false);
    expectError(collision, 400, /^changes\[0\] \(insert_page\): slug "guide-1" is already used/);
    expect((await getChangeRequest(spaceId, cr.id)).revision).toBe(before);
  });

  it('stores a valid JSON document as given and refuses an invalid one naming the path', async () => {
    const { spaceId, cr } = await fresh();
    const document = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'heading-2', key: 'h', data: {}, nodes: [{ object: 'text', key: 'ht', leaves: [{ object: 'leaf', text: 'Section', marks: [] }] }] },
        {
          object: 'block',
          type: 'paragraph',
          key: 'p',
          data: {},
          nodes: [{ object: 'text', key: 'pt', leaves: [{ object: 'leaf', text: 'Hello JSON', marks: [{ object: 'mark', type: 'bold' }] }] }],
        },
      ],
    };
    const result = await applyChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', title: 'From JSON', document: { document } }]);
    const [id] = pageIds(result);
    const read = await readPage(spaceId, cr.id, id);
    expect(read.title).toBe('From JSON');
    expect(read.documentId).toEqual(expect.any(String));
    expect(read.document).toEqual(document);
    expect(await pageMarkdown(spaceId, id, owner, cr.id)).toBe('# From JSON\n\n### Section\n\n**Hello JSON**\n');

    const invalid = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'paragraph', data: {}, nodes: [] },
        { object: 'block', type: 'no-such-block', data: {}, nodes: [] },
      ],
    };
    const res = await postChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Fine', document: {} },
      { operation: 'insert_page', title: 'Broken', document: { document: invalid } },
    ], false);
    const message = expectError(res, 400, /^changes\[1\] \(insert_page\): Invalid document: /);
    expect(message).toContain('document.nodes[1]');
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['from-json: From JSON']);
  });

  it('gives an empty page for `{}`', async () => {
    const { spaceId, cr } = await fresh();
    const result = await applyChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', title: 'Empty', document: {} }]);
    const read = await readPage(spaceId, cr.id, pageIds(result)[0]);
    expect(read.documentId).toBeUndefined();
    expect(read.document).toEqual({ object: 'document', data: {}, nodes: [] });
    // Nothing but the title heading.
    expect(await pageMarkdown(spaceId, read.id, owner, cr.id)).toBe('# Empty\n');
  });

  it('resolves refs to pages inserted later in the batch, /pages/<id>, /pages/<slug path> and relative .md links; others stay URLs', async () => {
    const { spaceId, cr } = await fresh();
    const setup = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Other', document: {} },
      { operation: 'insert_page', ref: 'parent-ref', title: 'Parent', document: {} },
      { operation: 'insert_page', title: 'Child', into: 'parent-ref', document: {} },
    ]);
    const [otherId, parentId, childId] = pageIds(setup);
    const markdown = [
      '[later](./later.md)',
      `[byid](/pages/${otherId})`,
      '[bypath](/pages/parent/child)',
      '[relative](../other.md)',
      '[web](https://example.com/x)',
      '[missing](./nowhere.md)',
      '[unknownpath](/pages/no/such/page)',
    ].join(' ');
    const result = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Links', into: parentId, document: { markdown } },
      { operation: 'insert_page', ref: 'later', title: 'Later', document: { markdown: 'Inserted after.\n' } },
    ]);
    const [linksId, laterId] = pageIds(result);
    expect(result.changes[1]).toMatchObject({ object: 'created_page', ref: 'later' });

    const read = await readPage(spaceId, cr.id, linksId);
    expect(read.path).toBe('parent/links');
    expect(linkRefs(read.document)).toEqual([
      { kind: 'page', page: laterId },
      { kind: 'page', page: otherId },
      { kind: 'page', page: childId },
      { kind: 'page', page: otherId },
      { kind: 'url', url: 'https://example.com/x' },
      { kind: 'url', url: './nowhere.md' },
      { kind: 'url', url: '/pages/no/such/page' },
    ]);
    const back = await pageMarkdown(spaceId, linksId, owner, cr.id);
    expect(back).toContain(`[later](/pages/${laterId})`);
    expect(back).toContain(`[byid](/pages/${otherId})`);
    expect(back).toContain(`[bypath](/pages/${childId})`);
    expect(back).toContain(`[relative](/pages/${otherId})`);
    expect(back).toContain('[web](https://example.com/x)');
    expect(back).toContain('[missing](./nowhere.md)');
  });

  it('leaves code as written: a link-like text naming a ref of the batch in a code block or span is not a link', async () => {
    const { spaceId, cr } = await fresh();
    const markdown = 'See [the guide](deploy).\n\n```md\nSee [the guide](deploy) and src="deploy".\n```\n\nInline `[x](./deploy.md)` too.\n';
    const result = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', ref: 'deploy', title: 'Deploy', document: { markdown: 'D.\n' } },
      { operation: 'insert_page', title: 'Code', document: { markdown } },
    ]);
    const [deployId, codeId] = pageIds(result);
    const back = await pageMarkdown(spaceId, codeId, owner, cr.id);
    expect(back).toContain(`See [the guide](/pages/${deployId}).`);
    expect(back).toContain('```md\nSee [the guide](deploy) and src="deploy".\n```');
    expect(back).toContain('Inline `[x](./deploy.md)` too.');
  });
});

// ---------------------------------------------------------------------------------------------

describe('update_page', () => {
  it('changes the title without touching the slug, changes the slug, and replaces the document', async () => {
    const { spaceId, cr } = await fresh();
    const created = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Alpha', document: { markdown: 'First body.\n' } },
      { operation: 'insert_page', title: 'Child', into: undefined, document: {} },
    ]);
    const [alpha] = pageIds(created);
    const before = await readPage(spaceId, cr.id, alpha);

    const titled = await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: alpha, title: 'Renamed' }]);
    expect(titled.changes).toEqual([{ object: 'updated_page', page: expect.objectContaining({ id: alpha }) }]);
    let read = await readPage(spaceId, cr.id, alpha);
    expect([read.title, read.slug, read.path]).toEqual(['Renamed', 'alpha', 'alpha']);
    expect(read.documentId).toBe(before.documentId);
    expect(read.createdAt).toBe(before.createdAt);

    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: alpha, slug: 'renamed' }]);
    read = await readPage(spaceId, cr.id, alpha);
    expect([read.title, read.slug, read.path]).toEqual(['Renamed', 'renamed', 'renamed']);

    const taken = await postChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: alpha, slug: 'child' }], false);
    expectError(taken, 400, /^changes\[0\] \(update_page\): slug "child" is already used/);

    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: alpha, document: { markdown: 'Second body.\n' } }]);
    read = await readPage(spaceId, cr.id, alpha);
    expect(read.title).toBe('Renamed');
    expect(read.documentId).not.toBe(before.documentId);
    expect(await pageMarkdown(spaceId, alpha, owner, cr.id)).toBe('# Renamed\n\nSecond body.\n');

    // A document with a leading heading retitles the page.
    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: alpha, document: { markdown: '# From Heading\n\nThird.\n' } }]);
    read = await readPage(spaceId, cr.id, alpha);
    expect([read.title, read.slug]).toEqual(['From Heading', 'renamed']);
    expect(await pageMarkdown(spaceId, alpha, owner, cr.id)).toBe('# From Heading\n\nThird.\n');

    // `{}` empties the page.
    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: alpha, document: {} }]);
    read = await readPage(spaceId, cr.id, alpha);
    expect(read.documentId).toBeUndefined();
    expect(read.document.nodes).toEqual([]);
  });

  it('moves a page with into/at, and to the root with `into: null`', async () => {
    const { spaceId, cr } = await fresh();
    const created = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'P', document: {} },
      { operation: 'insert_page', title: 'Q', document: {} },
      { operation: 'insert_page', title: 'R', document: {} },
      { operation: 'insert_page', title: 'P1', into: undefined, document: {} },
    ]);
    const [p, q, r, p1] = pageIds(created);
    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: p1, into: p }]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['p: P', 'p/p1: P1', 'q: Q', 'r: R']);

    const moved = await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: r, into: p, at: 0 }]);
    expect(moved.changes).toEqual([{ object: 'updated_page', page: expect.objectContaining({ id: r }) }]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['p: P', 'p/r: R', 'p/p1: P1', 'q: Q']);

    // Reorder among the same siblings.
    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: q, at: 0 }]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['q: Q', 'p: P', 'p/r: R', 'p/p1: P1']);

    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: r, into: null }]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['q: Q', 'p: P', 'p/p1: P1', 'r: R']);

    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: p1, into: null, at: 0 }]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['p1: P1', 'q: Q', 'p: P', 'r: R']);
  });

  it('refuses to move a page under itself or one of its descendants', async () => {
    const { spaceId, cr } = await fresh();
    const created = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', ref: 'top', title: 'Top', document: {} },
      { operation: 'insert_page', ref: 'mid', title: 'Mid', into: 'top', document: {} },
      { operation: 'insert_page', title: 'Leaf', into: 'mid', document: {} },
    ]);
    const [top, mid, leaf] = pageIds(created);
    const tree = await pageTree(spaceId, owner, cr.id);
    expect(tree).toEqual(['top: Top', 'top/mid: Mid', 'top/mid/leaf: Leaf']);
    for (const into of [top, mid, leaf]) {
      const res = await postChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: top, into }], false);
      expectError(res, 400, /^changes\[0\] \(update_page\): .*cannot move under itself or one of its descendants/);
    }
    const midIntoLeaf = await postChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: mid, into: leaf }], false);
    expectError(midIntoLeaf, 400, 'cannot move under itself');
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(tree);
  });

  it('refuses a move under a parent that already has a page with the same slug, and `at` past the end', async () => {
    const { spaceId, cr } = await fresh();
    const created = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', ref: 'a', title: 'A', document: {} },
      { operation: 'insert_page', title: 'Notes', into: 'a', document: {} },
      { operation: 'insert_page', title: 'Notes', document: {} },
      { operation: 'insert_page', title: 'Other', document: {} },
    ]);
    const [a, , notes, other] = pageIds(created);
    const tree = await pageTree(spaceId, owner, cr.id);
    expect(tree).toEqual(['a: A', 'a/notes: Notes', 'notes: Notes', 'other: Other']);
    expectError(await postChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: notes, into: a }], false), 400, /^changes\[0\] \(update_page\): slug "notes" is already used/);
    expectError(await postChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: other, into: a, at: 2 }], false), 400, /^changes\[0\] \(update_page\): at 2 is past the end/);
    expectError(await postChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: other, at: 3 }], false), 400, 'past the end');
    expectError(await postChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: other, into: UNKNOWN_ID }], false), 400, /^changes\[0\] \(update_page\): page "z+" does not exist/);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(tree);
    // A move into a page inserted earlier in the same batch, by its ref.
    await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', ref: 'box', title: 'Box', document: {} },
      { operation: 'update_page', page: other, into: 'box' },
    ]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['a: A', 'a/notes: Notes', 'notes: Notes', 'box: Box', 'box/other: Other']);
  });

  it('refuses an unknown page, naming the change', async () => {
    const { spaceId, cr } = await fresh();
    const res = await postChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Fine', document: {} },
      { operation: 'update_page', page: UNKNOWN_ID, title: 'Nope' },
    ], false);
    expectError(res, 400, new RegExp(`^changes\\[1\\] \\(update_page\\): page "${UNKNOWN_ID}" does not exist`));
    expect(await pageTree(spaceId, owner, cr.id)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('delete_page and revert_page', () => {
  it('delete_page removes the page with its subpages, listing each deleted page', async () => {
    const { spaceId, cr } = await fresh();
    const created = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', ref: 'parent', title: 'Parent', document: {} },
      { operation: 'insert_page', title: 'C1', into: 'parent', document: {} },
      { operation: 'insert_page', ref: 'c2', title: 'C2', into: 'parent', document: {} },
      { operation: 'insert_page', title: 'G', into: 'c2', document: {} },
      { operation: 'insert_page', title: 'Keep', document: {} },
    ]);
    const [parent, c1, c2, g] = pageIds(created);
    const deleted = await applyChanges(spaceId, cr.id, owner, [{ operation: 'delete_page', page: parent }]);
    expect(deleted.changes).toEqual([
      { object: 'deleted_page', page: parent },
      { object: 'deleted_page', page: c1 },
      { object: 'deleted_page', page: c2 },
      { object: 'deleted_page', page: g },
    ]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['keep: Keep']);
    const gone = await api('GET', `${contentPath(spaceId, cr.id)}/page/${g}`, { token: owner });
    expectError(gone, 404);
  });

  it('revert_page without revision removes an added page, restores a modified one and brings back a deleted one', async () => {
    const { spaceId, cr, base } = await withBase([
      { operation: 'insert_page', title: 'Modified', document: { markdown: 'Original body.\n' } },
      { operation: 'insert_page', title: 'Deleted', document: { markdown: 'Deleted body.\n' } },
      { operation: 'insert_page', title: 'Untouched', document: {} },
    ]);
    const [modified, deleted] = pageIds(base);
    const baseModified = await readPage(spaceId, cr.id, modified);
    const added = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Added', document: { markdown: 'New.\n' } },
      { operation: 'update_page', page: modified, title: 'Changed title', document: { markdown: 'Changed body.\n' } },
      { operation: 'delete_page', page: deleted },
    ]);
    const [addedId] = pageIds(added);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['modified: Changed title', 'untouched: Untouched', 'added: Added']);

    const reverted = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'revert_page', page: addedId },
      { operation: 'revert_page', page: modified },
      { operation: 'revert_page', page: deleted },
    ]);
    expect(reverted.changes).toEqual([
      { object: 'deleted_page', page: addedId },
      { object: 'updated_page', page: expect.objectContaining({ id: modified }) },
      { object: 'created_page', page: expect.objectContaining({ id: deleted }) },
    ]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['modified: Modified', 'deleted: Deleted', 'untouched: Untouched']);
    const restored = await readPage(spaceId, cr.id, modified);
    expect(restored.title).toBe('Modified');
    expect(restored.documentId).toBe(baseModified.documentId);
    expect(restored.document).toEqual(baseModified.document);
    expect(await pageMarkdown(spaceId, deleted, owner, cr.id)).toBe('# Deleted\n\nDeleted body.\n');
  });

  it('lists each affected page once, by its final state, when one batch touches a page several times', async () => {
    const { spaceId, cr, base } = await withBase([
      { operation: 'insert_page', title: 'Kept', document: { markdown: 'Kept.\n' } },
      { operation: 'insert_page', title: 'Gone', document: {} },
    ]);
    const [kept, gone] = pageIds(base);
    const result = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', ref: 'temp', title: 'Temp', document: {} },
      { operation: 'update_page', page: kept, title: 'Kept renamed' },
      { operation: 'insert_page', ref: 'new', title: 'New', document: {} },
      { operation: 'update_page', page: 'new', title: 'New renamed' },
      { operation: 'delete_page', page: 'temp' },
      { operation: 'update_page', page: gone, title: 'Gone renamed' },
      { operation: 'delete_page', page: gone },
    ]);
    const newId = result.changes.find((c: any) => c.ref === 'new')?.page.id;
    expect(result.changes).toEqual([
      { object: 'updated_page', page: expect.objectContaining({ id: kept }) },
      { object: 'created_page', ref: 'new', page: expect.objectContaining({ id: newId }) },
      { object: 'deleted_page', page: gone },
    ]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['kept: Kept renamed', 'new: New renamed']);
  });

  it('reports a page deleted and restored in the same batch once, as updated', async () => {
    const { spaceId, cr, base } = await withBase([{ operation: 'insert_page', title: 'Phoenix', document: { markdown: 'Body.\n' } }]);
    const [phoenix] = pageIds(base);
    const result = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'delete_page', page: phoenix },
      { operation: 'revert_page', page: phoenix },
    ]);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(['phoenix: Phoenix']);
    // The page is there after the batch: listing it as `deleted_page` (with only its id) is wrong.
    expect(result.changes).toEqual([{ object: 'updated_page', page: expect.objectContaining({ object: 'page', id: phoenix }) }]);
  });

  it('revert_page with `block` restores one top-level block of the base document', async () => {
    const { spaceId, cr, base } = await withBase([
      { operation: 'insert_page', title: 'Blocks', document: { markdown: 'Para one.\n\nPara two.\n\nPara three.\n' } },
    ]);
    const [id] = pageIds(base);
    const baseDoc = (await readPage(spaceId, cr.id, id, '?format=document')).document;
    await applyChanges(spaceId, cr.id, owner, [
      { operation: 'update_page', page: id, document: { markdown: 'Para one changed.\n\nPara two changed.\n\nPara three.\n' } },
    ]);
    const edited = (await readPage(spaceId, cr.id, id, '?format=document')).document;
    expect(edited.nodes.map(textOf)).toEqual(['Para one changed.', 'Para two changed.', 'Para three.']);
    const secondKey = baseDoc.nodes[1].key;
    expect(edited.nodes[1].key).toBe(secondKey);

    const result = await applyChanges(spaceId, cr.id, owner, [{ operation: 'revert_page', page: id, block: [secondKey] }]);
    expect(result.changes).toEqual([{ object: 'updated_page', page: expect.objectContaining({ id }) }]);
    const after = (await readPage(spaceId, cr.id, id)).document;
    expect(after.nodes.map(textOf)).toEqual(['Para one changed.', 'Para two.', 'Para three.']);
    expect(after.nodes[1]).toEqual(baseDoc.nodes[1]);

    const unknownBlock = await postChanges(spaceId, cr.id, owner, [{ operation: 'revert_page', page: id, block: ['no-such-key'] }], false);
    expectError(unknownBlock, 400, /^changes\[0\] \(revert_page\): block "no-such-key"/);
  });

  it('revert_page with an unknown revision is refused', async () => {
    const { spaceId, cr, base } = await withBase([{ operation: 'insert_page', title: 'Page', document: {} }]);
    const res = await postChanges(spaceId, cr.id, owner, [{ operation: 'revert_page', page: pageIds(base)[0], revision: UNKNOWN_ID }], false);
    expectError(res, 400, new RegExp(`^changes\\[0\\] \\(revert_page\\): revision "${UNKNOWN_ID}" is not a revision of this space`));
  });
});

// ---------------------------------------------------------------------------------------------

describe('insert_files', () => {
  it('stores a base64 image that a page of the same batch can use by ref', async () => {
    const { spaceId, cr } = await fresh();
    const result = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Pictures', document: { markdown: '![x](./pixel.png)\n' } },
      { operation: 'insert_files', files: [{ ref: 'pixel.png', name: 'pixel.png', contentType: 'image/png', base64: PNG_1x1 }] },
    ]);
    expect(result.insertedFiles).toEqual([
      {
        id: expect.any(String),
        name: 'pixel.png',
        contentType: 'image/png',
        downloadURL: expect.stringMatching(/\/files\/[0-9a-f]{64}\/pixel\.png\?/),
        size: atob(PNG_1x1).length,
        dimensions: { width: 1, height: 1 },
      },
    ]);
    const fileId = result.insertedFiles[0].id;
    expect(result.changes).toEqual([{ object: 'created_page', page: expect.objectContaining({ id: expect.any(String) }) }]);
    expect(await pageMarkdown(spaceId, result.changes[0].page.id, owner, cr.id)).toContain(`![x](/files/${fileId})`);
    const file = await api('GET', `${contentPath(spaceId, cr.id)}/files/${fileId}`, { token: owner });
    expect(file.status).toBe(200);
    expect(file.body.name).toBe('pixel.png');
  });

  it('refuses invalid base64, a missing contentType, a url and a file over 1 MiB', async () => {
    const { spaceId, cr } = await fresh();
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'a.png', contentType: 'image/png', base64: 'not base64!!' }, /base64 is not valid base64/],
      [{ name: 'a.png', base64: PNG_1x1 }, /contentType is required/],
      [{ name: 'a.png', contentType: 'image/png', url: 'https://example.com/a.png' }, /not supported/],
    ];
    for (const [file, message] of cases) {
      const res = await postChanges(spaceId, cr.id, owner, [{ operation: 'insert_files', files: [file] }], false);
      const text = expectError(res, 400, message);
      expect(text).toMatch(/^changes\[0\] \(insert_files\): files\[0\] "a\.png"/);
    }
    const big = new Uint8Array(Math.round(1.1 * 1024 * 1024)).fill(65);
    let binary = '';
    for (let i = 0; i < big.length; i += 0x8000) binary += String.fromCharCode(...big.subarray(i, i + 0x8000));
    const tooBig = await postChanges(spaceId, cr.id, owner, [
      { operation: 'insert_files', files: [{ name: 'big.bin', contentType: 'application/octet-stream', base64: btoa(binary) }] },
    ], false);
    // The deployment's MAX_FILE_BYTES (1 MiB by default; test/limits/caps-content.test.ts tests a smaller cap).
    expectError(tooBig, 413, /^changes\[0\] \(insert_files\): files\[0\] "big\.bin": the file is 1153434 bytes; the limit is 1048576 \(MAX_FILE_BYTES\)$/);
    const files = await api('GET', `${contentPath(spaceId, cr.id)}/files`, { token: owner });
    expect(files.body.count).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------

describe('batches as a whole', () => {
  it('writes nothing when the third change is invalid', async () => {
    const { spaceId, cr } = await fresh();
    await applyChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', title: 'Existing', document: {} }]);
    const before = await getChangeRequest(spaceId, cr.id);
    const treeBefore = await pageTree(spaceId, owner, cr.id);
    const res = await postChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'New one', document: { markdown: 'x' } },
      { operation: 'insert_files', files: [{ name: 'p.png', contentType: 'image/png', base64: PNG_1x1 }] },
      { operation: 'delete_page', page: UNKNOWN_ID },
      { operation: 'insert_page', title: 'Never', document: {} },
    ], false);
    expectError(res, 400, /^changes\[2\] \(delete_page\): /);
    const after = await getChangeRequest(spaceId, cr.id);
    expect(after.revision).toBe(before.revision);
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual(treeBefore);
    const files = await api('GET', `${contentPath(spaceId, cr.id)}/files`, { token: owner });
    expect(files.body.count).toBe(0);
  });

  it('accepts 1 to 50 changes', async () => {
    const { spaceId, cr } = await fresh();
    const page = (i: number) => ({ operation: 'insert_page', title: `Page ${i}`, document: {} });
    expectError(await postChanges(spaceId, cr.id, owner, Array.from({ length: 51 }, (_, i) => page(i)), false), 400);
    expectError(await postChanges(spaceId, cr.id, owner, [], false), 400);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual([]);
    const fifty = await applyChanges(spaceId, cr.id, owner, Array.from({ length: 50 }, (_, i) => page(i)));
    expect(fifty.changes).toHaveLength(50);
    expect(await pageTree(spaceId, owner, cr.id)).toHaveLength(50);
  });

  it('answers the change request by default (compat), with a new revision', async () => {
    const { spaceId, cr } = await fresh();
    const res = await postChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', title: 'Compat', document: {} }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.object).toBe('change-request');
    expect(res.body.id).toBe(cr.id);
    expect(res.body.changes).toBeUndefined();
    expect(res.body.revision).not.toBe(cr.revision);
    expect((await getChangeRequest(spaceId, cr.id)).revision).toBe(res.body.revision);
    const explicit = await postChanges(spaceId, cr.number, owner, [{ operation: 'insert_page', title: 'Again', document: {} }], true);
    expect(explicit.status).toBe(200);
    expect(explicit.body.object).toBe('change-request');
    expect(explicit.body.revision).not.toBe(res.body.revision);
  });

  it('with compat=false answers the change request, the affected pages and the inserted files', async () => {
    const { spaceId, cr } = await fresh();
    const res = await postChanges(spaceId, cr.number, owner, [{ operation: 'insert_page', ref: 'r', title: 'X', document: {} }], false);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['changeRequest', 'changes', 'insertedFiles']);
    expect(res.body.changeRequest.object).toBe('change-request');
    expect(res.body.changeRequest.revision).not.toBe(cr.revision);
    expect(res.body.insertedFiles).toEqual([]);
    const [change] = res.body.changes;
    expect(change).toEqual({
      object: 'created_page',
      ref: 'r',
      page: { object: 'page', id: expect.any(String), urls: { location: `${res.body.changeRequest.urls.location}/content/page/${change.page.id}` } },
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('permissions and states', () => {
  const insert = [{ operation: 'insert_page', title: 'By role', document: {} }];

  it('needs the edit role: edit and above 200, comment/read 403, guest/outsider 404, no token 401', async () => {
    const { spaceId, cr } = await fresh();
    for (const role of ['admin', 'create', 'review', 'edit'] as const) {
      const res = await postChanges(spaceId, cr.id, org.members[role].token, insert);
      expect(res.status, `${role}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    for (const role of ['comment', 'read'] as const) expectError(await postChanges(spaceId, cr.id, org.members[role].token, insert), 403);
    expectError(await postChanges(spaceId, cr.id, org.members.guest.token, insert), 404);
    expectError(await postChanges(spaceId, cr.id, org.outsider.token, insert), 404);
    const anonymous = await api('POST', `${contentPath(spaceId, cr.id)}`, { body: { changes: insert } });
    expectError(anonymous, 401);
    expect(await pageTree(spaceId, owner, cr.id)).toHaveLength(4);
  });

  it("is 404 on another organization's space", async () => {
    const otherOrg = await api('GET', '/v1/orgs', { token: org.outsider.token });
    expect(otherOrg.status).toBe(200);
    const otherOrgId = otherOrg.body.items[0].id;
    const space = await createSpace(otherOrgId, org.outsider.token);
    const cr = await openChangeRequest(space.id, org.outsider.token);
    expectError(await postChanges(space.id, cr.id, owner, insert), 404);
    expectError(await postChanges(space.id, cr.number, owner, insert), 404);
  });

  it('is 403 on a locked space', async () => {
    const { spaceId, cr } = await fresh();
    const locked = await api('PATCH', `/v1/spaces/${spaceId}`, { token: owner, body: { editMode: 'locked' } });
    expect(locked.status, JSON.stringify(locked.body)).toBe(200);
    expectError(await postChanges(spaceId, cr.id, owner, insert), 403, 'locked');
    expectError(await postChanges(spaceId, cr.id, org.members.edit.token, insert), 403);
    expect(await pageTree(spaceId, owner, cr.id)).toEqual([]);
  });

  it('is 400 on a merged or an archived change request', async () => {
    const { spaceId, cr } = await fresh();
    await applyChanges(spaceId, cr.id, owner, insert);
    expect((await merge(spaceId, cr.id, owner)).status).toBe(200);
    expectError(await postChanges(spaceId, cr.id, owner, insert), 400, 'merged');

    const archived = await openChangeRequest(spaceId, owner, 'To archive');
    const patched = await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${archived.id}`, { token: owner, body: { status: 'archived' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const before = await getChangeRequest(spaceId, archived.id);
    expectError(await postChanges(spaceId, archived.id, owner, insert), 400, 'archived');
    expect((await getChangeRequest(spaceId, archived.id)).revision).toBe(before.revision);
  });
});

// ---------------------------------------------------------------------------------------------

describe('Markdown through the API', () => {
  it('round-trips headings, lists, code, quote, hint, table, marks and links stably', async () => {
    const { spaceId, cr } = await fresh();
    const setup = await applyChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', title: 'Target', document: {} }]);
    const [target] = pageIds(setup);
    const markdown = [
      '# Round Trip',
      '',
      'An introduction with **bold**, *italic*, `code`, ~~struck~~ and a [link](https://example.com) and [a page](/pages/target).',
      '',
      '## Heading one',
      '',
      '### Heading two',
      '',
      '#### Heading three',
      '',
      '1. first',
      '2. second',
      '',
      '- apple',
      '- banana',
      '',
      '```js',
      'const x = 1;',
      'console.log(x);',
      '```',
      '',
      '> A quote.',
      '',
      '{% hint style="info" %}',
      'Hint text.',
      '{% endhint %}',
      '',
      '| Name | Value |',
      '| ---- | ----- |',
      '| a    | 1     |',
      '| b    | 2     |',
      '',
    ].join('\n');
    const result = await applyChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', document: { markdown } }]);
    const [id] = pageIds(result);
    const page = await readPage(spaceId, cr.id, id);
    expect(page.title).toBe('Round Trip');
    expect(page.document.nodes.map((n: any) => n.type)).toEqual([
      'paragraph',
      'heading-1',
      'heading-2',
      'heading-3',
      'list-ordered',
      'list-unordered',
      'code',
      'blockquote',
      'hint',
      'table',
    ]);

    const first = await pageMarkdown(spaceId, id, owner, cr.id);
    for (const piece of [
      '**bold**',
      '*italic*',
      '`code`',
      '~~struck~~',
      '[link](https://example.com)',
      `[a page](/pages/${target})`,
      // GitBook's levels: the page title is `#`, headings 1 to 3 are `##` to `####`.
      '## Heading one',
      '### Heading two',
      '#### Heading three',
      '1. first',
      '```js',
      'const x = 1;',
      '> A quote.',
      '{% hint style="info" %}',
      'Hint text.',
      '{% endhint %}',
      '| Name',
    ]) {
      expect(first).toContain(piece);
    }
    // The title is read back once, as the leading heading, and is not part of the body.
    expect(first.startsWith('# Round Trip\n\nAn introduction with ')).toBe(true);
    expect(first.slice('# Round Trip'.length)).not.toContain('Round Trip');

    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: id, document: { markdown: first } }]);
    const again = await readPage(spaceId, cr.id, id);
    expect(again.title).toBe('Round Trip');
    expect(again.documentId).toBe(page.documentId);
    expect(await pageMarkdown(spaceId, id, owner, cr.id)).toBe(first);
  });

  it('keeps a body that starts with a heading 1 through a read and write of its Markdown', async () => {
    const { spaceId, cr } = await fresh();
    const result = await applyChanges(spaceId, cr.id, owner, [{ operation: 'insert_page', document: { markdown: '# Title\n\n# Heading one\n\nText.\n' } }]);
    const [id] = pageIds(result);
    expect((await readPage(spaceId, cr.id, id)).title).toBe('Title');
    const page = await readPage(spaceId, cr.id, id);
    expect(page.title).toBe('Title');
    expect(page.document.nodes.map((n: any) => n.type)).toEqual(['heading-1', 'paragraph']);
    const first = await pageMarkdown(spaceId, id, owner, cr.id);
    // The title heading, then the body's own heading 1, as it was written (it reads back as a heading 1).
    expect(first).toBe('# Title\n\n# Heading one\n\nText.\n');
    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: id, document: { markdown: first } }]);
    // The Markdown read back must mean the same page: same title, same body.
    const again = await readPage(spaceId, cr.id, id);
    expect(again.title).toBe('Title');
    expect(again.document.nodes.map(textOf)).toEqual(['Heading one', 'Text.']);
    expect(again.document.nodes.map((n: any) => n.type)).toEqual(['heading-1', 'paragraph']);
    expect(again.documentId).toBe(page.documentId);
    expect(await pageMarkdown(spaceId, id, owner, cr.id)).toBe(first);
  });

  it('keeps the title, description and body of a page through a read and write of its Markdown', async () => {
    const { spaceId, cr } = await fresh();
    const description = 'Notes: what "this" page is #1';
    const result = await applyChanges(spaceId, cr.id, owner, [
      { operation: 'insert_page', title: 'Described', description, document: { markdown: 'Body.\n' } },
    ]);
    const [id] = pageIds(result);
    const page = await readPage(spaceId, cr.id, id);
    expect([page.title, page.description]).toEqual(['Described', description]);
    const first = await pageMarkdown(spaceId, id, owner, cr.id);
    // YAML frontmatter with the description, then the title heading, then the body.
    expect(first).toMatch(/^---\ndescription: .+\n---\n\n# Described\n\nBody\.\n$/);
    expect(first).toContain('#1');

    // Changed elsewhere, then set back from the Markdown read: the page is what it was.
    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: id, title: 'Other', description: 'Other description' }]);
    await applyChanges(spaceId, cr.id, owner, [{ operation: 'update_page', page: id, document: { markdown: first } }]);
    const again = await readPage(spaceId, cr.id, id);
    expect([again.title, again.description, again.slug]).toEqual(['Described', description, 'described']);
    expect(again.documentId).toBe(page.documentId);
    expect(again.document).toEqual(page.document);
    expect(await pageMarkdown(spaceId, id, owner, cr.id)).toBe(first);
  });
});
