/**
 * The edge cache of published pages (src/site/edge-cache.ts, issue 42 item 2): a view served from it costs no D1
 * round trip; it is trusted for SITE_EDGE_FRESH_SECONDS and no longer; share-link and visitor-auth pages never
 * enter it, and a request with credentials never reads it. The suite runs with it off (test/vitest.config.ts);
 * these requests turn it on through their bindings.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app';
import { FILE_PERIOD_MS } from '../../src/site/views';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { countingD1 } from '../helpers/round-trips';
import { publishedSite, publishPages, shareKeyOf, spaceWithPages } from './helpers';

const app = createApp();
let org: TestOrg;

/** A GET through the app with the edge cache on (`fresh` seconds) and a D1 that counts round trips. */
async function view(path: string, headers: Record<string, string> = {}, fresh = '30') {
  const counter = countingD1(env.DB);
  const ctx = createExecutionContext();
  const res = await app.request(`${BASE}${path}`, { headers }, { ...env, DB: counter.db, SITE_EDGE_FRESH_SECONDS: fresh }, ctx);
  const text = await res.text();
  // The entry is stored in the background: the next view finds it.
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, text, roundTrips: counter.count };
}

beforeAll(async () => {
  org = await seedOrg();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the edge cache of published pages', () => {
  it('a public page served from it costs no D1 round trip, a 304 from it neither', async () => {
    const space = await spaceWithPages(org, 'Edge', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Edge text.\n' } }]);
    const site = await publishedSite(org, [space.id], 'public', 'Edge site');
    const first = await view(`/s/${site.id}/page`);
    expect(first.status).toBe(200);
    expect(first.roundTrips).toBe(3);
    const second = await view(`/s/${site.id}/page`);
    expect(second.status).toBe(200);
    expect(second.headers.get('X-Site-Cache')).toBe('edge');
    expect(second.roundTrips).toBe(0);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('ETag')).toBe(first.headers.get('ETag'));
    expect(second.headers.get('Content-Security-Policy')).toBe(first.headers.get('Content-Security-Policy'));
    // Nothing internal leaves the Worker.
    for (const [name] of second.headers) expect(name.toLowerCase()).not.toMatch(/^x-site-(edge|viewed)/);
    const notModified = await view(`/s/${site.id}/page`, { 'If-None-Match': first.headers.get('ETag')! });
    expect(notModified.status).toBe(304);
    expect(notModified.roundTrips).toBe(0);
  });

  it('is trusted for SITE_EDGE_FRESH_SECONDS after the answer was made, then the site is read again', async () => {
    const space = await spaceWithPages(org, 'Fresh', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Old text.\n' } }]);
    const site = await publishedSite(org, [space.id], 'public', 'Fresh site');
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    expect((await view(`/s/${site.id}/page`)).text).toContain('Old text.');
    await publishPages(space.id, org.owner.token, [{ operation: 'update_page', page: space.pages.Page, document: { markdown: 'New text.\n' } }]);
    // Within the bound: the answer made before the merge, from the edge.
    vi.setSystemTime(start + 29_000);
    const within = await view(`/s/${site.id}/page`);
    expect(within.headers.get('X-Site-Cache')).toBe('edge');
    expect(within.text).toContain('Old text.');
    // Past it: the site's version is read, the new content served, and kept again.
    vi.setSystemTime(start + 31_000);
    const past = await view(`/s/${site.id}/page`);
    expect(past.headers.get('X-Site-Cache')).not.toBe('edge');
    expect(past.roundTrips).toBeGreaterThan(0);
    expect(past.text).toContain('New text.');
    const again = await view(`/s/${site.id}/page`);
    expect(again.headers.get('X-Site-Cache')).toBe('edge');
    expect(again.text).toContain('New text.');
  });

  it('a view reads the Cache API once and stores at most once; past the bound, an unchanged site is served from the entry', async () => {
    const space = await spaceWithPages(org, 'Once', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Once.\n' } }]);
    const site = await publishedSite(org, [space.id], 'public', 'Once site');
    // The site's version changes with the period its file URLs are signed for: the test's 90 s stay within one, so
    // that a view past the bound finds the entry's version (from the next period's start when this one ends sooner).
    const now = Date.now();
    const start = (now % FILE_PERIOD_MS) + 90_000 < FILE_PERIOD_MS ? now : now - (now % FILE_PERIOD_MS) + FILE_PERIOD_MS;
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const match = vi.spyOn(caches.default, 'match');
    const put = vi.spyOn(caches.default, 'put');
    const operations = () => {
      const counted = { match: match.mock.calls.length, put: put.mock.calls.length };
      match.mockClear();
      put.mockClear();
      return counted;
    };
    try {
      const first = await view(`/s/${site.id}/page`);
      expect(first.headers.get('X-Site-Cache')).toBe('miss');
      expect(operations()).toEqual({ match: 1, put: 1 });
      // Past the bound: the site is read (one round trip), its version is the entry's, so the entry is served.
      vi.setSystemTime(start + 31_000);
      const past = await view(`/s/${site.id}/page`);
      expect(past.headers.get('X-Site-Cache')).toBe('hit');
      expect(past.roundTrips).toBe(1);
      expect(past.text).toBe(first.text);
      expect(past.headers.get('ETag')).toBe(first.headers.get('ETag'));
      for (const [name] of past.headers) expect(name.toLowerCase()).not.toMatch(/^x-site-(edge|viewed)/);
      expect(operations()).toEqual({ match: 1, put: 1 });
      // Stored again: fresh for another bound.
      vi.setSystemTime(start + 50_000);
      const again = await view(`/s/${site.id}/page`);
      expect(again.headers.get('X-Site-Cache')).toBe('edge');
      expect(again.roundTrips).toBe(0);
      expect(operations()).toEqual({ match: 1, put: 0 });
      // A changed site past the bound: made anew, the entry replaced.
      await publishPages(space.id, org.owner.token, [{ operation: 'update_page', page: space.pages.Page, document: { markdown: 'Twice.\n' } }]);
      vi.setSystemTime(start + 90_000);
      const changed = await view(`/s/${site.id}/page`);
      expect(changed.headers.get('X-Site-Cache')).toBe('miss');
      expect(changed.text).toContain('Twice.');
      expect(operations()).toEqual({ match: 1, put: 1 });
    } finally {
      match.mockRestore();
      put.mockRestore();
    }
  });

  it('off with SITE_EDGE_FRESH_SECONDS=0: every view reads the site first', async () => {
    const space = await spaceWithPages(org, 'Off', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Off.\n' } }]);
    const site = await publishedSite(org, [space.id], 'public', 'Off site');
    await view(`/s/${site.id}/page`, {}, '0');
    const second = await view(`/s/${site.id}/page`, {}, '0');
    expect(second.headers.get('X-Site-Cache')).toBe('hit');
    expect(second.roundTrips).toBe(1);
  });

  it('share-link pages never enter it: neither with the cookie, nor by the key in the path', async () => {
    const space = await spaceWithPages(org, 'Shared', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Secret text.\n' } }]);
    const site = await publishedSite(org, [space.id], 'share-link', 'Shared site');
    const link = expectStatus(await api('POST', `${site.path}/share-links`, { token: org.owner.token, body: { name: 'x' } }), 201).body;
    const key = shareKeyOf(link);
    const cookie = { Cookie: `site_share_${site.id}=${key}` };
    for (let i = 0; i < 2; i++) {
      const withCookie = await view(`/s/${site.id}/page`, cookie);
      expect(withCookie.status).toBe(200);
      expect(withCookie.headers.get('X-Site-Cache')).not.toBe('edge');
      expect(withCookie.roundTrips).toBeGreaterThan(0);
      const byPath = await view(`/s/${site.id}/${key}/page`);
      expect(byPath.status).toBe(200);
      expect(byPath.text).toContain('Secret text.');
      expect(byPath.headers.get('X-Site-Cache')).not.toBe('edge');
      expect(byPath.roundTrips).toBeGreaterThan(0);
    }
    // Someone without the key, at the URL a keyed visitor used first: the site's answer, not the stored page.
    const stranger = await view(`/s/${site.id}/page`);
    expect(stranger.status).toBe(404);
    expect(stranger.text).not.toContain('Secret text.');
  });

  it('a visitor-auth site is never served from it', async () => {
    const space = await spaceWithPages(org, 'Guarded', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Guarded text.\n' } }]);
    const site = await publishedSite(org, [space.id], 'visitor-auth', 'Guarded site');
    for (let i = 0; i < 2; i++) {
      const res = await view(`/s/${site.id}/page`);
      expect(res.status).not.toBe(200);
      expect(res.text).not.toContain('Guarded text.');
      expect(res.headers.get('X-Site-Cache')).not.toBe('edge');
    }
  });

  it('a public page viewed with a site cookie is not stored for others', async () => {
    const space = await spaceWithPages(org, 'Cookie', [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Cookie.\n' } }]);
    const site = await publishedSite(org, [space.id], 'public', 'Cookie site');
    await view(`/s/${site.id}/page`, { Cookie: `site_share_${site.id}=whatever` });
    const next = await view(`/s/${site.id}/page`);
    expect(next.headers.get('X-Site-Cache')).not.toBe('edge');
    expect(next.roundTrips).toBeGreaterThan(0);
  });
});
