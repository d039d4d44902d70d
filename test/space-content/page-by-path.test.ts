/**
 * GitBook's getPageByPath: a page of the space's current content by its path
 * (`GET /v1/spaces/{spaceId}/content/path/{pagePath}`), the path as one URL-encoded segment or as several (what
 * @gitbook/api's client sends: it writes `pagePath` into the URL as it is). Answers GitBook 0.202.0's schema;
 * reads the head, not an older revision; unknown paths, other organizations and callers without read are 404s.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { BASE, api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { measureRoundTrips } from '../helpers/round-trips';
import { fetchWorker } from '../helpers/worker';

const OPERATIONS = gitbookOperations();
function expectGitbook(body: unknown) {
  const validator = schemaValidator(OPERATIONS.get('getPageByPath')!.responses['200']!, GITBOOK_0202.components);
  expect(gitbookErrors(validator, body), JSON.stringify(body)).toBe('valid');
}

let org: TestOrg;
let owner: string;
let spaceId: string;
const ids: Record<string, string> = {};
const byPath = (path: string) => `/v1/spaces/${spaceId}/content/path/${path}`;
const get = async (path: string, token = owner) => expectStatus(await api('GET', path, { token }), 200).body;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
  spaceId = (await createSpace(org.id, owner, 'Paths')).id;
  const cr = await openChangeRequest(spaceId, owner, 'Pages');
  const result = await applyChanges(spaceId, cr.number, owner, [
    { operation: 'insert_page', ref: 'guides', title: 'Guides', document: { markdown: 'Guides.\n' } },
    { operation: 'insert_page', ref: 'install', into: 'guides', title: 'Install', document: { markdown: 'Install it.\n' } },
    { operation: 'insert_page', ref: 'deep', into: 'install', title: 'On Linux', document: { markdown: 'With apt.\n' } },
    { operation: 'insert_page', ref: 'faq', title: 'FAQ', document: { markdown: 'Answers.\n' } },
  ]);
  [ids.guides, ids.install, ids.deep, ids.faq] = result.changes.map((c: any) => c.page.id as string);
  expectStatus(await merge(spaceId, cr.number, owner), 200);
});

describe('getPageByPath', () => {
  it("answers the page at a path of the head with its content, in GitBook's shape", async () => {
    const faq = await get(byPath('faq'));
    expect(faq).toMatchObject({ id: ids.faq, title: 'FAQ', path: 'faq' });
    expectGitbook(faq);
    const guides = await get(byPath('guides'));
    expect(guides.id).toBe(ids.guides);
    expect(guides.pages.map((p: any) => p.title)).toEqual(['Install']);
    expectGitbook(guides);
    const markdown = await get(`${byPath('faq')}?format=markdown`);
    expect(markdown.markdown).toBe('# FAQ\n\nAnswers.\n');
    expectGitbook(markdown);
  });

  it('takes a nested path as one encoded segment or as several, with or without slashes around it', async () => {
    for (const path of [encodeURIComponent('guides/install/on-linux'), 'guides/install/on-linux', encodeURIComponent('/guides/install/on-linux/')]) {
      expect((await get(byPath(path))).id, path).toBe(ids.deep);
    }
    expect((await get(`${byPath('guides/install')}?format=markdown&dereferenced=true&evaluated=true&cachedMetadata=true`)).markdown).toContain('Install it.');
  });

  it("is what @gitbook/api's client calls, unchanged", async () => {
    const client = new GitBookAPI({ authToken: owner, endpoint: BASE, serviceBinding: { fetch: (input: RequestInfo | URL, init?: RequestInit) => fetchWorker(input, init) } as never });
    const res = await client.spaces.getPageByPath(spaceId, 'guides/install', {});
    expect((res.data as { id: string }).id).toBe(ids.install);
  });

  it('reads the head: a page renamed since is found at its new path only', async () => {
    const cr = await openChangeRequest(spaceId, owner, 'Rename');
    await applyChanges(spaceId, cr.number, owner, [{ operation: 'update_page', page: ids.faq, title: 'Questions', slug: 'questions' }]);
    expect((await get(byPath('faq'))).id).toBe(ids.faq);
    expectStatus(await merge(spaceId, cr.number, owner), 200);
    expect((await get(byPath('questions'))).id).toBe(ids.faq);
    expectError(await api('GET', byPath('faq'), { token: owner }), 404, 'Page not found');
  });

  it('unknown paths, odd characters and unknown spaces are 404s; bad query values and too long paths are 400s', async () => {
    for (const path of ['nothing', encodeURIComponent('guides/nothing'), 'guides/install/on-linux/more', encodeURIComponent("a'b"), '%2F', encodeURIComponent('😀')]) {
      expectError(await api('GET', byPath(path), { token: owner }), 404);
    }
    expectError(await api('GET', `/v1/spaces/unknownSpace/content/path/faq`, { token: owner }), 404, 'Space not found');
    expectError(await api('GET', `${byPath('guides')}?format=html`, { token: owner }), 400, 'format');
    expectError(await api('GET', `${byPath('guides')}?cachedMetadata=sometimes`, { token: owner }), 400, 'cachedMetadata');
    expectError(await api('GET', byPath('a'.repeat(2100)), { token: owner }), 400, 'pagePath');
    expectError(await api('GET', byPath(`a/${'b'.repeat(2100)}`), { token: owner }), 400, 'pagePath');
  });

  it('another organization, outsiders and guests get 404, no token 401; members who read and installations covering the space read it', async () => {
    const stranger = await seedOrg();
    for (const path of [byPath('guides'), byPath('guides/install')]) {
      expectError(await api('GET', path, { token: stranger.owner.token }), 404, 'Space not found');
      expectError(await api('GET', path, { token: org.outsider.token }), 404);
      expectError(await api('GET', path, { token: org.members.guest.token }), 404);
      expectError(await api('GET', path, {}), 401);
      expectStatus(await api('GET', path, { token: org.members.read.token }), 200);
    }
    const integration = await seedIntegration(org.id, { scopes: ['space:content:read'] });
    const installed = await seedInstallation(integration, org.id, { spaces: [spaceId] });
    expect((await get(byPath('guides'), await seedToken(integration.id, installed.id))).id).toBe(ids.guides);
    const elsewhere = await seedInstallation(integration, stranger.id, { spaces: 'all' });
    expect([403, 404]).toContain((await api('GET', byPath('guides'), { token: await seedToken(integration.id, elsewhere.id) })).status);
    expect([403, 404]).toContain((await api('GET', byPath('guides'), { token: await seedToken(integration.id, null) })).status);
  });

  it('is at most two D1 round trips, nested and dereferenced included', async () => {
    for (const path of [byPath('guides'), byPath('guides/install/on-linux?dereferenced=true'), byPath(encodeURIComponent('guides/install'))]) {
      const { status, roundTrips } = await measureRoundTrips('GET', path, owner);
      expect(status, path).toBe(200);
      expect(roundTrips, path).toBeLessThanOrEqual(2);
    }
  });
});
