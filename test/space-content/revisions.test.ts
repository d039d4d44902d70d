/**
 * Reads of any revision of a space by id (GitBook's getRevisionById, getPageInRevisionById,
 * getPageDocumentInRevisionById, getPageInRevisionByPath, listRevisionPageMetaLinks,
 * getReusableContentDocumentInRevisionById): an old revision reads as it was, not as the head is; a
 * revision of another space, another organization's space and callers without the read role are 404s;
 * bad query values are 400s; every read is at most two D1 round trips.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { measureRoundTrips } from '../helpers/round-trips';
import { toStoredDocument } from '../../src/services/content/revisions';

let org: TestOrg;
let owner: string;

const OPERATIONS = gitbookOperations();
/** The body validates against GitBook 0.202.0's 200 response of the operation. */
function expectGitbook(operationId: string, body: unknown) {
  const validator = schemaValidator(OPERATIONS.get(operationId)!.responses['200']!, GITBOOK_0202.components);
  expect(gitbookErrors(validator, body), `${operationId}: ${JSON.stringify(body)}`).toBe('valid');
}

const get = async (path: string, token = owner) => expectStatus(await api('GET', path, { token }), 200).body;
const flatten = (pages: any[]): any[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);

const paragraph = (text: string, key: string) => ({
  object: 'block',
  type: 'paragraph',
  key,
  data: {},
  nodes: [{ object: 'text', key: `${key}-t`, leaves: [{ object: 'leaf', text, marks: [] }] }],
});
const expression = (expr: string) => ({
  object: 'block',
  type: 'paragraph',
  key: 'expr-p',
  data: {},
  nodes: [{ object: 'inline', type: 'expression', key: 'expr', isVoid: true, data: { expression: expr } }],
});
const reusableBlock = (id: string) => ({ object: 'block', type: 'reusable-content', key: `rc-${id}`, isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: id } } });

interface Fixture {
  spaceId: string;
  /** The revision after the first merge: Guides > Install, FAQ, Reuse. */
  first: string;
  /** The head after the second merge: Install edited and renamed, FAQ deleted. */
  head: string;
  ids: { guides: string; install: string; faq: string; reuse: string };
}

/**
 * Two merges; then the first revision's meta gets a variable and two reusable contents (no operation
 * writes them yet), the second including nothing, written straight to D1.
 */
async function fixture(): Promise<Fixture> {
  const space = await createSpace(org.id, owner, 'History');
  const cr1 = await openChangeRequest(space.id, owner, 'First');
  const result = await applyChanges(space.id, cr1.number, owner, [
    { operation: 'insert_page', ref: 'guides', title: 'Guides', document: { markdown: 'Guides.\n' } },
    { operation: 'insert_page', ref: 'install', into: 'guides', title: 'Install', document: { markdown: 'Install version one.\n' } },
    { operation: 'insert_page', ref: 'faq', title: 'FAQ', document: { markdown: 'Old answers.\n' } },
    {
      operation: 'insert_page',
      ref: 'reuse',
      title: 'Reuse',
      document: { document: { object: 'document', data: {}, nodes: [paragraph('Before.', 'b'), reusableBlock('rcShared'), expression('space.vars.version')] } },
    },
  ]);
  expectStatus(await merge(space.id, cr1.number, owner), 200);
  const [guides, install, faq, reuse] = result.changes.map((c: any) => c.page.id as string);
  const first = (await get(`/v1/spaces/${space.id}/content`)).id as string;

  const cr2 = await openChangeRequest(space.id, owner, 'Second');
  await applyChanges(space.id, cr2.number, owner, [
    { operation: 'update_page', page: install, title: 'Installation', slug: 'installation', document: { markdown: 'Install version two.\n' } },
    { operation: 'delete_page', page: faq },
  ]);
  expectStatus(await merge(space.id, cr2.number, owner), 200);
  const head = (await get(`/v1/spaces/${space.id}/content`)).id as string;

  const shared = await toStoredDocument({ object: 'document', data: {}, nodes: [paragraph('Shared text.', 's'), expression('vars.version')] } as never);
  await env.DB.prepare('insert or ignore into documents (hash, body, created_at) values (?, ?, ?)').bind(shared.hash, shared.body, new Date().toISOString()).run();
  const meta = { variables: { version: '1.0' }, reusableContents: [{ id: 'rcShared', title: 'Shared', document: shared.hash }, { id: 'rcEmpty', title: 'Empty' }] };
  await env.DB.prepare('update revisions set meta = ? where id = ?').bind(JSON.stringify(meta), first).run();
  return { spaceId: space.id, first, head, ids: { guides, install, faq, reuse } };
}

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
});

describe('reading a revision by id', () => {
  let f: Fixture;
  const rev = (revision: string, suffix = '') => `/v1/spaces/${f.spaceId}/revisions/${revision}${suffix}`;
  beforeAll(async () => {
    f = await fixture();
  });

  it("getRevisionById: an old revision's tree is that revision's, the head's is the head's", async () => {
    const old = await get(rev(f.first));
    expectGitbook('getRevisionById', old);
    expect(old).toMatchObject({ object: 'revision', id: f.first, variables: { version: '1.0' } });
    expect(old.reusableContents).toEqual([{ id: 'rcShared', title: 'Shared' }, { id: 'rcEmpty', title: 'Empty' }]);
    expect(flatten(old.pages).map((p: any) => [p.path, p.markdown])).toEqual([
      ['guides', 'Guides.\n'],
      ['guides/install', 'Install version one.\n'],
      ['faq', 'Old answers.\n'],
      ['reuse', expect.any(String)],
    ]);
    const head = await get(`${rev(f.head)}?metadata=false&computed=false`);
    expectGitbook('getRevisionById', head);
    expect(head.id).toBe(f.head);
    expect(flatten(head.pages).map((p: any) => [p.path, p.markdown])).toEqual([
      ['guides', 'Guides.\n'],
      ['guides/installation', 'Install version two.\n'],
      ['reuse', expect.any(String)],
    ]);
    // The head revision by id reads as the current content does.
    expect(head.pages).toEqual((await get(`/v1/spaces/${f.spaceId}/content`)).pages);
  });

  it("getPageInRevisionById and getPageDocumentInRevisionById read the revision's document, as a document or Markdown", async () => {
    const old = await get(rev(f.first, `/page/${f.ids.install}`));
    expectGitbook('getPageInRevisionById', old);
    expect(old).toMatchObject({ id: f.ids.install, title: 'Install', path: 'guides/install' });
    const markdown = await get(rev(f.first, `/page/${f.ids.install}?format=markdown&format.markdown.refs=stable`));
    expectGitbook('getPageInRevisionById', markdown);
    expect(markdown.markdown).toBe('# Install\n\nInstall version one.\n');
    expect((await get(rev(f.head, `/page/${f.ids.install}?format=markdown`))).markdown).toBe('# Installation\n\nInstall version two.\n');

    const document = await get(rev(f.first, `/page/${f.ids.install}/document`));
    expectGitbook('getPageDocumentInRevisionById', document);
    expect(document).toEqual(old.document);
    expect(JSON.stringify(document)).toContain('Install version one.');
    expect(JSON.stringify(await get(rev(f.head, `/page/${f.ids.install}/document`)))).toContain('Install version two.');

    // A page deleted since reads in the revision it was in, and not in the head.
    expect((await get(rev(f.first, `/page/${f.ids.faq}/document`))).nodes).toHaveLength(1);
    expectError(await api('GET', rev(f.head, `/page/${f.ids.faq}`), { token: owner }), 404);
    expectError(await api('GET', rev(f.head, `/page/${f.ids.faq}/document`), { token: owner }), 404);
  });

  it('evaluated and dereferenced: expressions take the revision variables, reusable contents become their blocks', async () => {
    const raw = await get(rev(f.first, `/page/${f.ids.reuse}/document`));
    expect(raw.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'reusable-content', 'paragraph']);

    const both = await get(rev(f.first, `/page/${f.ids.reuse}/document?evaluated=true&dereferenced=true`));
    expectGitbook('getPageDocumentInRevisionById', both);
    const text = JSON.stringify(both);
    expect(both.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'paragraph', 'paragraph', 'paragraph']);
    expect(text).toContain('Shared text.');
    expect(text).not.toContain('"expression"');
    // The page's expression and the included content's both read the revision's variable.
    expect(text.match(/"text":"1\.0"/g)).toHaveLength(2);

    const only = await get(rev(f.first, `/page/${f.ids.reuse}/document?dereferenced=reusable-contents&evaluated=deterministic-only`));
    expect(only).toEqual(both);
    // The head's meta has no reusable content and no variable: the block stays, the expression is empty.
    const head = await get(rev(f.head, `/page/${f.ids.reuse}/document?evaluated=true&dereferenced=true`));
    expect(head.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'reusable-content', 'paragraph']);
    expect(JSON.stringify(head)).not.toContain('1.0');
    // The page read dereferences the same way.
    expect((await get(rev(f.first, `/page/${f.ids.reuse}?dereferenced=true&evaluated=true`))).document).toEqual(both);
    expect((await get(rev(f.first, `/page/${f.ids.reuse}?format=markdown&dereferenced=true`))).markdown).toContain('Shared text.');
  });

  it('getReusableContentDocumentInRevisionById reads a reusable content of that revision', async () => {
    const doc = await get(rev(f.first, '/reusable-contents/rcShared/document'));
    expectGitbook('getReusableContentDocumentInRevisionById', doc);
    expect(doc.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'paragraph']);
    expect(JSON.stringify(doc)).toContain('"expression"');
    const evaluated = await get(rev(f.first, '/reusable-contents/rcShared/document?evaluated=true'));
    expect(JSON.stringify(evaluated)).toContain('"text":"1.0"');
    expect(await get(rev(f.first, '/reusable-contents/rcEmpty/document'))).toEqual({ object: 'document', data: {}, nodes: [] });
    expectError(await api('GET', rev(f.first, '/reusable-contents/rcNone/document'), { token: owner }), 404);
    // Not in the head revision.
    expectError(await api('GET', rev(f.head, '/reusable-contents/rcShared/document'), { token: owner }), 404);
  });

  it('getPageInRevisionByPath finds a page by its slugs in that revision, and 404s a path it does not have', async () => {
    const byPath = await get(rev(f.first, `/path/${encodeURIComponent('guides/install')}`));
    expectGitbook('getPageInRevisionByPath', byPath);
    expect(byPath).toMatchObject({ id: f.ids.install, path: 'guides/install' });
    expect(byPath.document).toEqual(await get(rev(f.first, `/page/${f.ids.install}/document`)));
    expect((await get(rev(f.first, '/path/faq?format=markdown&cachedMetadata=true'))).markdown).toBe('# FAQ\n\nOld answers.\n');
    expect((await get(rev(f.head, `/path/${encodeURIComponent('guides/installation')}`))).id).toBe(f.ids.install);
    expect((await get(rev(f.head, '/path/guides'))).pages.map((p: any) => p.title)).toEqual(['Installation']);
    for (const missing of ['faq', encodeURIComponent('guides/install'), 'install', encodeURIComponent('guides/installation/more'), encodeURIComponent('/')]) {
      expectError(await api('GET', rev(f.head, `/path/${missing}`), { token: owner }), 404);
    }
    // A trailing or leading slash is not part of a path.
    expect((await get(rev(f.head, `/path/${encodeURIComponent('/guides/')}`))).id).toBe(f.ids.guides);
    // Quotes and JSON path syntax are matched as slugs, never as SQL or JSON path.
    for (const odd of [`a'b`, '$.x', '"', '*']) expectError(await api('GET', rev(f.head, `/path/${encodeURIComponent(odd)}`), { token: owner }), 404);
  });

  it('listRevisionPageMetaLinks answers a page of the revision with no links, and 404s a page not in it', async () => {
    const links = await get(rev(f.first, `/page/${f.ids.faq}/meta-links`));
    expectGitbook('listRevisionPageMetaLinks', links);
    expect(links).toEqual({ alternates: [] });
    expectError(await api('GET', rev(f.head, `/page/${f.ids.faq}/meta-links`), { token: owner }), 404);
  });

  it("a revision of another space, another organization's space and unknown ids answer 404", async () => {
    const other = await createSpace(org.id, owner, 'Other');
    const otherHead = (await get(`/v1/spaces/${other.id}/content`)).id;
    const paths = (revision: string) => [
      rev(revision),
      rev(revision, `/page/${f.ids.install}`),
      rev(revision, `/page/${f.ids.install}/document`),
      rev(revision, `/page/${f.ids.install}/meta-links`),
      rev(revision, '/path/guides'),
      rev(revision, '/reusable-contents/rcShared/document'),
    ];
    for (const path of paths(otherHead)) expectError(await api('GET', path, { token: owner }), 404, 'Revision not found');
    for (const path of paths('unknownRevision')) expectError(await api('GET', path, { token: owner }), 404);
    // The other space's head through this space's id is not found; this space's revision through the other space's id neither.
    expectError(await api('GET', `/v1/spaces/${other.id}/revisions/${f.first}`, { token: owner }), 404);

    const stranger = await seedOrg();
    for (const path of paths(f.first)) {
      expectError(await api('GET', path, { token: stranger.owner.token }), 404, 'Space not found');
      expectError(await api('GET', path, { token: org.outsider.token }), 404);
      expectError(await api('GET', path, { token: org.members.guest.token }), 404);
      expectError(await api('GET', path, {}), 401);
      expectStatus(await api('GET', path, { token: org.members.read.token }), 200);
    }
    // Another organization's admin asking through their own space for this revision.
    const theirs = await createSpace(stranger.id, stranger.owner.token, 'Theirs');
    expectError(await api('GET', `/v1/spaces/${theirs.id}/revisions/${f.first}`, { token: stranger.owner.token }), 404, 'Revision not found');
  });

  it('integration tokens: an installation covering the space reads its revisions; one of another organization, or the integration itself, does not', async () => {
    const integration = await seedIntegration(org.id, { scopes: ['space:content:read'] });
    const installed = await seedInstallation(integration, org.id, { spaces: [f.spaceId] });
    const token = await seedToken(integration.id, installed.id);
    expect((await get(rev(f.first, `/page/${f.ids.install}`), token)).id).toBe(f.ids.install);
    expect((await get(rev(f.first), token)).id).toBe(f.first);

    const stranger = await seedOrg();
    const elsewhere = await seedInstallation(integration, stranger.id, { spaces: 'all' });
    const foreign = await seedToken(integration.id, elsewhere.id);
    expect((await api('GET', rev(f.first), { token: foreign })).status).toBeGreaterThanOrEqual(403);
    expect((await api('GET', rev(f.first), { token: foreign })).status).toBeLessThanOrEqual(404);
    const bare = await seedToken(integration.id, null);
    expect([403, 404]).toContain((await api('GET', rev(f.first, `/page/${f.ids.install}/document`), { token: bare })).status);
  });

  it('bad query values are 400s naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      [rev(f.first, '?metadata=nope'), 'metadata'],
      [rev(f.first, '?computed=1'), 'computed'],
      [rev(f.first, `/page/${f.ids.install}?format=html`), 'format'],
      [rev(f.first, `/page/${f.ids.install}?format.markdown.refs=absolute`), 'format.markdown.refs'],
      [rev(f.first, `/page/${f.ids.install}/document?evaluated=yes`), 'evaluated'],
      [rev(f.first, `/page/${f.ids.install}/document?dereferenced=maybe`), 'dereferenced'],
      [rev(f.first, '/path/guides?cachedMetadata=sometimes'), 'cachedMetadata'],
      [rev(f.first, '/reusable-contents/rcShared/document?evaluated=2'), 'evaluated'],
      [rev('x'.repeat(200)), 'revisionId'],
      [rev(f.first, `/path/${'a'.repeat(2100)}`), 'pagePath'],
    ];
    for (const [path, field] of cases) expectError(await api('GET', path, { token: owner }), 400, field);
  });

  it('each read is at most two D1 round trips (dereferenced included)', async () => {
    const reads = [
      rev(f.first),
      rev(f.first, `/page/${f.ids.reuse}?dereferenced=true&evaluated=true`),
      rev(f.first, `/page/${f.ids.reuse}/document?dereferenced=true`),
      rev(f.first, `/path/${encodeURIComponent('guides/install')}?dereferenced=true`),
      rev(f.first, `/page/${f.ids.faq}/meta-links`),
      rev(f.first, '/reusable-contents/rcShared/document?dereferenced=true&evaluated=true'),
    ];
    for (const path of reads) {
      const { status, roundTrips } = await measureRoundTrips('GET', path, owner);
      expect(status, path).toBe(200);
      expect(roundTrips, path).toBeLessThanOrEqual(2);
    }
  });
});
