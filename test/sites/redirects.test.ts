/**
 * Site redirects (GitBook's listSiteRedirects, createSiteRedirect, updateSiteRedirectById,
 * deleteSiteRedirectById, getSiteRedirectBySource): admins write, members read, a site token of the site
 * resolves a path; exact sources win over prefixes, drafts are not live; bounded sizes; another
 * organization's ids are 404s.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_SITE_REDIRECTS } from '../../src/routes/sites/redirects';
import { createSpace } from '../helpers/content';
import { api, BASE, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { publishedSite, spaceWithPages } from '../site/helpers';
import { env } from 'cloudflare:workers';

let org: TestOrg;
let other: TestOrg;
let site: { id: string; path: string; basename: string };
let space: { id: string; pages: Record<string, string> };
let siteSpaceId: string;
let owner: string;

const create = (body: unknown, token = owner, path = site.path) => api('POST', `${path}/redirects`, { token, body });
const lookup = (source: string, token = owner, path = site.path) => api('GET', `${path}/redirect?source=${encodeURIComponent(source)}`, { token });

beforeAll(async () => {
  org = await seedOrg();
  other = await seedOrg();
  owner = org.owner.token;
  space = await spaceWithPages(org, 'Docs', [
    { operation: 'insert_page', title: 'Home', document: { markdown: 'Home.\n' } },
    { operation: 'insert_page', title: 'Install', document: { markdown: 'Install.\n' } },
  ]);
  site = await publishedSite(org, [space.id], 'public', 'Redirected');
  siteSpaceId = expectStatus(await api('GET', `${site.path}/site-spaces`, { token: owner }), 200).body.items[0].id;
});

describe('site redirects', () => {
  it('creates, lists, updates and deletes (GitBook 0.202 answers: 205 deleted, 204 none)', async () => {
    const created = expectStatus(await create({ source: '/crud', destination: { kind: 'external', url: 'https://example.com/x' } }), 201).body;
    expect(created).toMatchObject({ object: 'site-redirect', source: '/crud', draft: false, captureWildcard: false, permanent: false });
    expect(created.updatedAt).toBeUndefined();
    const listed = expectStatus(await api('GET', `${site.path}/redirects?search=CRUD`, { token: org.members.read.token }), 200).body;
    expect(listed.items.map((r: any) => r.id)).toEqual([created.id]);
    const updated = expectStatus(await api('PATCH', `${site.path}/redirects/${created.id}`, { token: owner, body: { permanent: true, source: '/crud2' } }), 200).body;
    expect(updated).toMatchObject({ source: '/crud2', permanent: true, updatedAt: expect.any(String) });
    expect((await api('DELETE', `${site.path}/redirects/${created.id}`, { token: owner })).status).toBe(205);
    expect((await api('DELETE', `${site.path}/redirects/${created.id}`, { token: owner })).status).toBe(204);
  });

  it('resolves a path: exact before the longest prefix, capturing the wildcard, to pages, site spaces and URLs', async () => {
    expectStatus(await create({ source: '/guides/*', destination: { kind: 'site-space', siteSpaceId }, captureWildcard: true }), 201);
    expectStatus(await create({ source: '/guides/old/*', destination: { kind: 'path', spaceId: space.id, path: 'install' } }), 201);
    expectStatus(await create({ source: '/guides/exact', destination: { kind: 'external', url: 'https://example.com/exact' } }), 201);
    expectStatus(await create({ source: '/drafted', destination: { kind: 'external', url: 'https://example.com/d' }, draft: true }), 201);
    const exact = expectStatus(await lookup('/guides/exact'), 200).body;
    expect(exact.target).toBe('https://example.com/exact');
    const page = expectStatus(await lookup('/guides/old/anything'), 200).body;
    expect(page.redirect.destination).toEqual({ kind: 'site-page', siteSpaceId, pageId: space.pages.Install });
    expect(page.target).toMatch(new RegExp(`/${org.id}/${site.basename}/install$`));
    const captured = expectStatus(await lookup('/guides/a/b'), 200).body;
    expect(captured.target).toMatch(new RegExp(`/${org.id}/${site.basename}/a/b$`));
    expectError(await lookup('/drafted'), 404);
    expectError(await lookup('/nowhere'), 404);
    expectError(await lookup('guides/exact'), 404);
    expectError(await lookup(`/${'a'.repeat(600)}`), 400, 'source');
  });

  it('a site token of the site resolves paths; of another site it cannot', async () => {
    const token = expectStatus(await api('POST', '/v1/urls/published', { body: { url: `${BASE}/s/${site.id}/` } }), 200).body.apiToken;
    expect(expectStatus(await lookup('/guides/exact', token), 200).body.target).toBe('https://example.com/exact');
    // Everything else about redirects refuses it.
    expect((await api('GET', `${site.path}/redirects`, { token })).status).toBe(403);
    expect((await create({ source: '/t', destination: { kind: 'external', url: 'https://example.com' } }, token)).status).toBe(403);
    const second = await publishedSite(org, [space.id], 'public', 'Second');
    expectError(await lookup('/guides/exact', token, second.path), 404);
  });

  it('admins write, members read; guests, outsiders and other organizations get 404', async () => {
    const body = { source: '/roles', destination: { kind: 'external', url: 'https://example.com' } };
    expectError(await create(body, org.members.edit.token), 403);
    expectStatus(await api('GET', `${site.path}/redirects`, { token: org.members.read.token }), 200);
    expectStatus(await lookup('/guides/exact', org.members.read.token), 200);
    for (const token of [org.members.guest.token, org.outsider.token, other.owner.token]) {
      expectError(await api('GET', `${site.path}/redirects`, { token }), 404);
      expectError(await lookup('/guides/exact', token), 404);
      expectError(await create(body, token), 404);
    }
    const mine = expectStatus(await create(body), 201).body;
    // Another organization's admin, through their own site: the redirect id is not theirs.
    const theirs = await publishedSite(other, [(await createSpace(other.id, other.owner.token, 'Theirs')).id], 'public', 'Theirs');
    expectError(await api('PATCH', `${theirs.path}/redirects/${mine.id}`, { token: other.owner.token, body: { permanent: true } }), 404);
    expect((await api('DELETE', `${theirs.path}/redirects/${mine.id}`, { token: other.owner.token })).status).toBe(204);
    expectStatus(await lookup('/roles'), 200);
  });

  it('refuses bad sources, destinations of another site, duplicates, and more than the limit', async () => {
    for (const source of ['no-slash', '/*', '/a*b', '/a b', `/${'a'.repeat(600)}`]) {
      expectError(await create({ source, destination: { kind: 'external', url: 'https://example.com' } }), 400, 'source');
    }
    expectError(await create({ source: '/bad', destination: { kind: 'external', url: 'javascript:alert(1)' } }), 400, 'url');
    expectError(await create({ source: '/bad', destination: { kind: 'site-space', siteSpaceId: 'notmine' } }), 400, 'siteSpaceId');
    expectError(await create({ source: '/bad', destination: { kind: 'path', spaceId: space.id, path: 'missing' } }), 400, 'destination.path');
    expectStatus(await create({ source: '/dup', destination: { kind: 'external', url: 'https://example.com' } }), 201);
    expectError(await create({ source: '/dup', destination: { kind: 'external', url: 'https://example.com' } }), 409, 'source');
    // A draft of the same source may exist; promoting it while the live one does is a conflict.
    const draft = expectStatus(await create({ source: '/dup', destination: { kind: 'external', url: 'https://example.com/2' }, draft: true }), 201).body;
    expectError(await api('PATCH', `${site.path}/redirects/${draft.id}`, { token: owner, body: { draft: false } }), 409, 'source');
    // Fill up to the limit straight in D1, then one more is refused.
    const fill = await publishedSite(org, [space.id], 'public', 'Full');
    const now = new Date().toISOString();
    const rows = Array.from({ length: MAX_SITE_REDIRECTS }, (_, i) =>
      env.DB.prepare('insert into site_redirects (id, site_id, source, destination, created_at, sorted_at) values (?, ?, ?, ?, ?, ?)').bind(`fill${i}`, fill.id, `/f${i}`, '{"kind":"external","url":"https://example.com"}', now, now),
    );
    await env.DB.batch(rows);
    expectError(await create({ source: '/one-more', destination: { kind: 'external', url: 'https://example.com' } }, owner, fill.path), 400, `${MAX_SITE_REDIRECTS}`);
  });
});
