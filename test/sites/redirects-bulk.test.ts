/**
 * GitBook's bulkUpsertSiteRedirects (PUT /orgs/{organizationId}/sites/{siteId}/redirects): items apply in order,
 * each answered on its own; an existing source is updated in place; a null destination deletes; `publish` makes
 * a draft live; one batch writes everything. Admins only; over 500 items or a malformed item: 400, nothing
 * written. Responses validated against GitBook 0.202's schema.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { MAX_BULK_PATH_DESTINATIONS, MAX_BULK_REDIRECTS } from '../../src/routes/sites/redirects-bulk';
import { MAX_SITE_REDIRECTS } from '../../src/routes/sites/redirects';
import { createSpace } from '../helpers/content';
import { gitbookErrors, gitbookOperations, GITBOOK_0202, schemaValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { publishedSite, spaceWithPages } from '../site/helpers';

let org: TestOrg;
let other: TestOrg;
let space: { id: string; pages: Record<string, string> };
let site: { id: string; path: string; basename: string };
let siteSpaceId: string;

const validator = schemaValidator(gitbookOperations().get('bulkUpsertSiteRedirects')!.responses['200']!, GITBOOK_0202.components);
const external = (url = 'https://example.com/x') => ({ kind: 'external', url });
const bulk = (redirects: unknown[], token = org.owner.token, path = site.path) => api('PUT', `${path}/redirects`, { token, body: { redirects } });

async function bulkOk(redirects: unknown[], path = site.path) {
  const body = expectStatus(await bulk(redirects, org.owner.token, path), 200).body;
  expect(gitbookErrors(validator, body)).toBe('valid');
  return body.results as any[];
}

async function redirectsOf(siteId: string) {
  const { results } = await env.DB.prepare('select id, source, draft, permanent, capture_wildcard as captureWildcard, destination from site_redirects where site_id = ? order by source, draft').bind(siteId).all<any>();
  return results.map((r) => ({ ...r, draft: !!r.draft, permanent: !!r.permanent, captureWildcard: !!r.captureWildcard, destination: JSON.parse(r.destination) }));
}

async function freshSite(title: string) {
  return publishedSite(org, [space.id], 'public', title);
}

beforeAll(async () => {
  org = await seedOrg();
  other = await seedOrg();
  space = await spaceWithPages(org, 'Docs', [
    { operation: 'insert_page', title: 'Home', document: { markdown: 'Home.\n' } },
    { operation: 'insert_page', title: 'Install', document: { markdown: 'Install.\n' } },
  ]);
  site = await freshSite('Bulk');
  siteSpaceId = expectStatus(await api('GET', `${site.path}/site-spaces`, { token: org.owner.token }), 200).body.items[0].id;
});

describe('bulkUpsertSiteRedirects', () => {
  it('creates, updates in place by source, deletes with a null destination, each item answered in order', async () => {
    const s = await freshSite('Crud');
    const sp = expectStatus(await api('GET', `${s.path}/site-spaces`, { token: org.owner.token }), 200).body.items[0].id;
    const [a, b, c] = await bulkOk([
      { source: '/a', destination: external() },
      { source: '/b/*', destination: { kind: 'path', spaceId: space.id, path: 'install' }, captureWildcard: true, permanent: true },
      { source: '/c', intent: 'draft', destination: external('https://example.com/c') },
    ], s.path);
    expect(a).toEqual({ status: 'created', source: '/a', draft: false, id: expect.any(String) });
    expect(b).toMatchObject({ status: 'created', source: '/b/*', draft: false });
    expect(c).toMatchObject({ status: 'created', source: '/c', draft: true });
    // The same source again is an update of the same row, not a second one.
    const [again, gone, missing] = await bulkOk([
      { source: '/a', destination: { kind: 'site-space', siteSpaceId: sp }, permanent: true },
      { source: '/b/*', destination: null },
      { source: '/nothing', destination: null },
    ], s.path);
    expect(again).toEqual({ status: 'updated', source: '/a', draft: false, id: a.id });
    expect(gone).toEqual({ status: 'deleted', source: '/b/*', draft: false });
    expect(missing).toMatchObject({ status: 'error', source: '/nothing', draft: false, error: expect.stringContaining('no live redirect') });
    const rows = await redirectsOf(s.id);
    expect(rows).toEqual([
      { id: a.id, source: '/a', draft: false, permanent: true, captureWildcard: false, destination: { kind: 'site-space', siteSpaceId: sp } },
      { id: c.id, source: '/c', draft: true, permanent: false, captureWildcard: false, destination: external('https://example.com/c') },
    ]);
    // What the list answers agrees (the updated one carries its update time).
    const listed = expectStatus(await api('GET', `${s.path}/redirects`, { token: org.owner.token }), 200).body.items;
    expect(listed.map((r: any) => [r.source, !!r.updatedAt])).toEqual([['/a', true]]);
  });

  it('a path destination is stored as the site page it names', async () => {
    const s = await freshSite('Paths');
    const sp = expectStatus(await api('GET', `${s.path}/site-spaces`, { token: org.owner.token }), 200).body.items[0].id;
    await bulkOk([{ source: '/install', destination: { kind: 'path', spaceId: space.id, path: 'install' } }], s.path);
    expect((await redirectsOf(s.id))[0].destination).toEqual({ kind: 'site-page', siteSpaceId: sp, pageId: space.pages.Install });
  });

  it('publish makes the draft live (replacing the live one) and removes the draft', async () => {
    const s = await freshSite('Publish');
    const [live] = await bulkOk([{ source: '/p', destination: external('https://example.com/old') }, { source: '/p', intent: 'draft', destination: external('https://example.com/new'), permanent: true }], s.path);
    const [published, nothing] = await bulkOk([{ source: '/p', intent: 'publish' }, { source: '/q', intent: 'publish' }], s.path);
    expect(published).toEqual({ status: 'published', source: '/p', draft: false, id: live.id });
    expect(nothing).toMatchObject({ status: 'error', source: '/q', error: expect.stringContaining('no draft') });
    expect(await redirectsOf(s.id)).toEqual([{ id: live.id, source: '/p', draft: false, permanent: true, captureWildcard: false, destination: external('https://example.com/new') }]);
    // Without a live one, the draft itself becomes live; a new draft of the same source in the same request is kept.
    const [draft] = await bulkOk([{ source: '/r', intent: 'draft', destination: external('https://example.com/r') }], s.path);
    const [pub, redraft] = await bulkOk([{ source: '/r', intent: 'publish' }, { source: '/r', intent: 'draft', destination: external('https://example.com/r2') }], s.path);
    expect(pub).toMatchObject({ status: 'published', id: draft.id });
    expect(redraft).toMatchObject({ status: 'created', draft: true });
    expect((await redirectsOf(s.id)).filter((r) => r.source === '/r').map((r) => [r.id, r.draft])).toEqual([[draft.id, false], [redraft.id, true]]);
  });

  it('an item whose destination is not of the site fails alone; the others are written', async () => {
    const s = await freshSite('Partial');
    const results = await bulkOk([
      { source: '/ok', destination: external() },
      { source: '/bad-space', destination: { kind: 'site-space', siteSpaceId: 'notmine' } },
      { source: '/bad-section', destination: { kind: 'site-section', siteSectionId: 'notmine' } },
      { source: '/bad-path', destination: { kind: 'path', spaceId: space.id, path: 'missing' } },
      { source: '/other-space', destination: { kind: 'path', spaceId: 'nospace', path: 'install' } },
    ], s.path);
    expect(results.map((r) => r.status)).toEqual(['created', 'error', 'error', 'error', 'error']);
    expect(results[1].error).toContain('siteSpaceId');
    expect(results[3].error).toContain('destination.path');
    expect((await redirectsOf(s.id)).map((r) => r.source)).toEqual(['/ok']);
  });

  it('keeps the site under its limit: creations past it fail, updates still apply', async () => {
    const s = await freshSite('Full');
    const now = new Date().toISOString();
    await env.DB.batch(
      Array.from({ length: MAX_SITE_REDIRECTS - 1 }, (_, i) =>
        env.DB.prepare('insert into site_redirects (id, site_id, source, destination, created_at, sorted_at) values (?, ?, ?, ?, ?, ?)').bind(`bulkfill${i}`, s.id, `/f${i}`, JSON.stringify(external()), now, now),
      ),
    );
    const results = await bulkOk([{ source: '/last', destination: external() }, { source: '/over', destination: external() }, { source: '/f1', destination: external('https://example.com/f1') }], s.path);
    expect(results.map((r) => r.status)).toEqual(['created', 'error', 'updated']);
    expect(results[1].error).toContain(`${MAX_SITE_REDIRECTS}`);
    expect((await redirectsOf(s.id)).length).toBe(MAX_SITE_REDIRECTS);
  });

  it('writes in one batch: 500 items cost three round trips (token, read, write)', async () => {
    const s = await freshSite('Trips');
    const items = Array.from({ length: MAX_BULK_REDIRECTS }, (_, i) => ({ source: `/t${i}`, destination: external(`https://example.com/${i}`) }));
    const first = await measureRoundTrips('PUT', `${s.path}/redirects`, org.owner.token, { redirects: items });
    expect(first.status).toBe(200);
    expect((first.body as any).results.every((r: any) => r.status === 'created')).toBe(true);
    expect(first.roundTrips).toBeLessThanOrEqual(3);
    const again = await measureRoundTrips('PUT', `${s.path}/redirects`, org.owner.token, { redirects: items.map((item) => ({ ...item, permanent: true })) });
    expect((again.body as any).results.every((r: any) => r.status === 'updated')).toBe(true);
    expect(again.roundTrips).toBeLessThanOrEqual(3);
    expect((await redirectsOf(s.id)).filter((r) => r.permanent).length).toBe(MAX_BULK_REDIRECTS);
  });

  it('refuses hostile bodies with a 400 naming the field, writing nothing', async () => {
    const s = await freshSite('Hostile');
    const many = Array.from({ length: 10_000 }, (_, i) => ({ source: `/h${i}`, destination: external() }));
    expectError(await bulk(many, org.owner.token, s.path), 400, 'redirects');
    expectError(await bulk(many.slice(0, MAX_BULK_REDIRECTS + 1), org.owner.token, s.path), 400, `${MAX_BULK_REDIRECTS}`);
    expectError(await bulk([], org.owner.token, s.path), 400, 'redirects');
    expectError(await api('PUT', `${s.path}/redirects`, { token: org.owner.token, body: { redirects: 'x' } }), 400, 'redirects');
    expectError(await api('PUT', `${s.path}/redirects`, { token: org.owner.token, body: {} }), 400, 'redirects');
    for (const bad of [
      { source: 'no-slash', destination: external() },
      { source: `/${'a'.repeat(5000)}`, destination: external() },
      { source: '/x', destination: { kind: 'external', url: 'javascript:alert(1)' } },
      { source: '/x', destination: external(`https://example.com/${'a'.repeat(5000)}`) },
      { source: '/x', destination: { kind: 'external', url: 'https://example.com', nested: { a: { b: { c: { d: [[[[[]]]]] } } } } }, intent: 'sideways' },
      { source: '/x' },
      { source: '/x', destination: { kind: 'site-page', siteSpaceId: 'a'.repeat(200), pageId: 'p' } },
    ]) {
      expect((await bulk([{ source: '/fine', destination: external() }, bad], org.owner.token, s.path)).status).toBe(400);
    }
    const paths = Array.from({ length: MAX_BULK_PATH_DESTINATIONS + 1 }, (_, i) => ({ source: `/p${i}`, destination: { kind: 'path', spaceId: space.id, path: `page-${i}` } }));
    expectError(await bulk(paths, org.owner.token, s.path), 400, 'path');
    expect(await redirectsOf(s.id)).toEqual([]);
  });

  it('admins only: editors and readers 403; guests, outsiders, other organizations and unknown sites 404', async () => {
    const item = [{ source: '/who', destination: external() }];
    expectError(await bulk(item, org.members.edit.token), 403);
    expectError(await bulk(item, org.members.read.token), 403);
    for (const token of [org.members.guest.token, org.outsider.token, other.owner.token]) expectError(await bulk(item, token), 404);
    expect((await api('PUT', `${site.path}/redirects`, { body: { redirects: item } })).status).toBe(401);
    // Another organization's admin, through their own organization's path, on this site's id: 404.
    expectError(await bulk(item, other.owner.token, `/v1/orgs/${other.id}/sites/${site.id}`), 404);
    // Their own site cannot point a redirect at this site's site space.
    const theirs = await publishedSite(other, [(await createSpace(other.id, other.owner.token, 'Theirs')).id], 'public', 'Theirs');
    const [result] = expectStatus(await bulk([{ source: '/steal', destination: { kind: 'site-space', siteSpaceId } }], other.owner.token, theirs.path), 200).body.results;
    expect(result.status).toBe('error');
    expect((await redirectsOf(site.id)).map((r) => r.source)).not.toContain('/who');
  });
});
