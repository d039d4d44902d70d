/**
 * Site insights: trackEventsInSiteById queues GitBook's events (no D1 write on the visitor's request), the queue's
 * consumer stores them in batches, idempotently, and aggregateSiteEvents / listSiteVisitorSegments answer GitBook's
 * queries over them. Counts are exact after a burst of 10,000 events with duplicates and redeliveries.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { purgeOldEvents, RETENTION_MS } from '../../src/services/insights/store';
import { signVisitorToken } from '../../src/services/sites/visitor-token';
import { api, BASE, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { callCapturing, captureQueue, deliver, pageView, type CapturedQueue } from '../helpers/insights';
import { publishedSite, shareKeyOf, spaceWithPages } from '../site/helpers';

let org: TestOrg;
let space: { id: string; pages: Record<string, string> };
let site: { id: string; path: string };
let siteSpaceId: string;

const search = (query: string, resultsCount: number | undefined, at = Date.now()) => ({
  ...pageView(space.id, null, { at }),
  type: 'search_type_query',
  query,
  ...(resultsCount !== undefined && { resultsCount }),
});

const track = (siteId: string, events: unknown[], captured: CapturedQueue, headers: Record<string, string> = {}, query = '') =>
  callCapturing(`/v1/orgs/${org.id}/sites/${siteId}/insights/events${query}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ events }) }, captured);

const aggregate = (siteId: string, body: unknown, token = org.owner.token) => api('POST', `/v1/orgs/${org.id}/sites/${siteId}/insights/events/aggregate`, { token, body });

beforeAll(async () => {
  org = await seedOrg();
  space = await spaceWithPages(org, 'Guide', [
    { operation: 'insert_page', title: 'Intro', document: { markdown: 'Intro.\n' } },
    { operation: 'insert_page', title: 'Setup', document: { markdown: 'Setup.\n' } },
    { operation: 'insert_page', title: 'Usage', document: { markdown: 'Usage.\n' } },
  ]);
  site = await publishedSite(org, [space.id], 'public', 'Insights Docs');
  siteSpaceId = expectStatus(await api('GET', `${site.path}/site-spaces`, { token: org.owner.token }), 200).body.items[0].id;
});

describe('trackEventsInSiteById', () => {
  it('a visitor without a token tracks events of a public site: 204, queued, no D1 write on the request', async () => {
    const captured = captureQueue();
    const res = await track(site.id, [pageView(space.id, space.pages.Intro, { siteSpace: siteSpaceId })], captured);
    expect(res.status, res.text).toBe(204);
    expect(res.statements.filter((s) => !/^\s*select/i.test(s))).toEqual([]);
    expect(captured.messages).toHaveLength(1);
    expect(captured.messages[0]).toMatchObject({ type: 'site-insights-events', payload: { events: [{ type: 'page_view', siteId: site.id }] } });
    // Nothing identifying is queued: no address, no user agent, ids hashed with the site.
    const queued = JSON.stringify(captured.messages);
    expect(queued).not.toContain('Mozilla');
    expect(queued).not.toContain('visitor-1');
    expect(queued).not.toContain('session-1');
    const result = await deliver(captured.messages);
    expect(result.explicitAcks).toHaveLength(1);
    const counts = expectStatus(await aggregate(site.id, { select: [{ column: 'page' }, { column: 'eventsCount' }], range: 'last24Hours' }), 200).body;
    expect(counts).toEqual({ columns: [{ column: 'page', values: [{ space: space.id, page: space.pages.Intro }] }, { column: 'eventsCount', values: [1] }] });
  });

  // 3,000 events, 2,700 distinct, over 250 visitors and 500 sessions: past every queue batch (100) and every visitor and
  // session on every page; 10,000 (100 calls) proved nothing more and took most of this file's time.
  const CALLS = 30;
  it(`counts are exact after a burst of ${CALLS * 100} events with duplicates and redeliveries`, async () => {
    const burst = await publishedSite(org, [space.id], 'public', 'Burst');
    const captured = captureQueue();
    const pages = [space.pages.Intro, space.pages.Setup, space.pages.Usage];
    const now = Date.now();
    const expected = new Map<string, number>();
    let sent = 0;
    let previous: unknown[] = [];
    for (let call = 0; call < CALLS; call++) {
      // Every tenth call sends the previous call's events again (a client retrying): they count once.
      const retry = call % 10 === 9;
      const events = retry
        ? previous
        : Array.from({ length: 100 }, (_, i) => {
            const n = call * 100 + i;
            const page = pages[n % 3];
            expected.set(page, (expected.get(page) ?? 0) + 1);
            return pageView(space.id, page, { visitor: `v${n % 250}`, session: `s${n % 500}`, at: now - n });
          });
      previous = events;
      sent += events.length;
      const res = await track(burst.id, events, captured);
      expect(res.status, res.text).toBe(204);
    }
    expect(sent).toBe(CALLS * 100);
    const distinct = [...expected.values()].reduce((a, b) => a + b, 0);
    expect(distinct).toBe(CALLS * 90);
    // Delivered in queue batches of 100, then a third of them delivered again (the queue retrying).
    for (let i = 0; i < captured.messages.length; i += 100) {
      const result = await deliver(captured.messages.slice(i, i + 100));
      expect(result.retryMessages).toEqual([]);
    }
    await deliver(captured.messages.filter((_, i) => i % 3 === 0), 2);
    const byPage = expectStatus(
      await aggregate(burst.id, { select: [{ column: 'page' }, { column: 'eventsCount' }, { column: 'visitorsCount' }, { column: 'sessionsCount' }], range: 'last24Hours', order: { by: { column: 'page' }, direction: 'asc' } }),
      200,
    ).body;
    const counted = new Map<string, number>(byPage.columns[0].values.map((p: { page: string }, i: number) => [p.page, byPage.columns[1].values[i]]));
    expect(counted).toEqual(expected);
    expect(byPage.columns[2].values.reduce((a: number, b: number) => a + b, 0)).toBe(750);
    const total = expectStatus(await aggregate(burst.id, { select: [{ column: 'eventsCount' }, { column: 'visitorsCount' }, { column: 'sessionsCount' }], range: 'last24Hours' }), 200).body;
    expect(total.columns.map((c: { values: number[] }) => c.values[0])).toEqual([CALLS * 90, 250, 500]);
  });

  it('share-link and visitor-auth sites take their credentials; claims come from the verified token only', async () => {
    const shared = await publishedSite(org, [space.id], 'share-link', 'Shared insights');
    const key = shareKeyOf(expectStatus(await api('POST', `${shared.path}/share-links`, { token: org.owner.token, body: { name: 'L' } }), 201).body);
    const captured = captureQueue();
    expect((await track(shared.id, [pageView(space.id, space.pages.Intro)], captured)).status).toBe(404);
    expect((await track(shared.id, [pageView(space.id, space.pages.Intro)], captured, {}, '?shareKey=wrong')).status).toBe(404);
    expect((await track(shared.id, [pageView(space.id, space.pages.Intro)], captured, {}, `?shareKey=${encodeURIComponent(key)}`)).status).toBe(204);

    const members = await publishedSite(org, [space.id], 'visitor-auth', 'Member insights');
    const privateKey = expectStatus(await api('GET', `${members.path}/publishing/auth`, { token: org.owner.token }), 200).body.privateKey;
    expect((await track(members.id, [pageView(space.id, space.pages.Intro)], captured)).status).toBe(404);
    const claimed = { ...pageView(space.id, space.pages.Intro), session: { ...pageView(space.id, null).session, visitorAuthClaims: { plan: 'forged' } } };
    const jwt = await signVisitorToken({ plan: 'pro' }, privateKey, 600);
    const before = captured.messages.length;
    expect((await track(members.id, [claimed], captured, { 'X-Visitor-Token': jwt })).status).toBe(204);
    await deliver(captured.messages.slice(before));
    const segments = expectStatus(await api('GET', `${members.path}/insights/visitor-segments`, { token: org.owner.token }), 200).body;
    expect(segments).toEqual({ items: [{ title: 'plan: pro', claims: { plan: 'pro' }, events: 1, visitors: 1, sessions: 1 }], count: 1 });
  });

  it('GitBook’s renderer tracks with the site token it was given, on its own site only', async () => {
    const apiToken = expectStatus(await api('POST', '/v1/urls/published', { body: { url: `${BASE}/s/${site.id}/` } }), 200).body.apiToken as string;
    const captured = captureQueue();
    const own = await track(site.id, [pageView(space.id, space.pages.Usage)], captured, { Authorization: `Bearer ${apiToken}` });
    expect(own.status, own.text).toBe(204);
    const other = await publishedSite(org, [space.id], 'public', 'Another site');
    expect((await track(other.id, [pageView(space.id, space.pages.Usage)], captured, { Authorization: `Bearer ${apiToken}` })).status).toBe(404);
    expect(captured.messages).toHaveLength(1);
  });

  it('without the site’s tracking cookie, a visitor is their session', async () => {
    const untracked = await publishedSite(org, [space.id], 'public', 'Untracked');
    expectStatus(await api('PUT', `${untracked.path}/customization`, { token: org.owner.token, body: { insights: { trackingCookie: false } } }), 200);
    const captured = captureQueue();
    const events = [1, 2, 3].map((n) => pageView(space.id, space.pages.Intro, { visitor: 'same-visitor', session: `session-${n}`, at: Date.now() - n }));
    expect((await track(untracked.id, events, captured)).status).toBe(204);
    await deliver(captured.messages);
    const counts = expectStatus(await aggregate(untracked.id, { select: [{ column: 'visitorsCount' }, { column: 'sessionsCount' }], range: 'last24Hours' }), 200).body;
    expect(counts.columns.map((c: { values: number[] }) => c.values[0])).toEqual([3, 3]);
  });
});

describe('aggregateSiteEvents', () => {
  let agg: { id: string; path: string };

  beforeAll(async () => {
    agg = await publishedSite(org, [space.id], 'public', 'Aggregations');
    const captured = captureQueue();
    const now = Date.now();
    await track(agg.id, [
      search('install', 3, now - 10),
      search('install', 3, now - 11),
      search('quantum', 0, now - 12),
      search('quantum', 0, now - 13),
      search('warp', 0, now - 14),
      search('legacy', undefined, now - 15),
      { ...pageView(space.id, space.pages.Setup), type: 'page_post_feedback', feedback: { rating: 'good' } },
      { ...pageView(space.id, space.pages.Setup, { at: now - 1 }), type: 'page_post_feedback', feedback: { rating: 'bad' } },
      { ...pageView(space.id, space.pages.Setup, { at: now - 2 }), type: 'page_post_feedback_comment', feedback: { rating: 'bad', comment: 'Missing a step' } },
      pageView(space.id, space.pages.Setup, { at: now - 3 }),
      pageView(space.id, space.pages.Setup, { at: now - 4, visitor: 'v2' }),
      pageView(space.id, space.pages.Usage, { at: now - 5 }),
    ], captured);
    await deliver(captured.messages);
  });

  it('most read pages: page views grouped by page, the most first', async () => {
    const res = expectStatus(
      await aggregate(agg.id, {
        select: [{ column: 'page' }, { column: 'urlPath' }, { column: 'eventsCount' }],
        where: [{ column: 'eventType', values: ['page_view'] }],
        groupBy: [{ column: 'page' }, { column: 'urlPath' }],
        order: { by: { column: 'eventsCount' }, direction: 'desc' },
        range: 'last7Days',
        limit: 10,
      }),
      200,
    ).body;
    expect(res.columns).toEqual([
      { column: 'page', values: [{ space: space.id, page: space.pages.Setup }, { space: space.id, page: space.pages.Usage }] },
      { column: 'urlPath', values: [`/${space.pages.Setup}`, `/${space.pages.Usage}`] },
      { column: 'eventsCount', values: [2, 1] },
    ]);
  });

  it('searches with no result, by query; all searches by query', async () => {
    const none = expectStatus(
      await aggregate(agg.id, {
        select: [{ column: 'eventSearchQuery' }, { column: 'eventsCount' }],
        where: [{ column: 'eventType', values: ['search_type_query'] }, { column: 'eventSearchResultsCount', values: [0] }],
        range: 'last7Days',
      }),
      200,
    ).body;
    expect(none.columns).toEqual([{ column: 'eventSearchQuery', values: ['quantum', 'warp'] }, { column: 'eventsCount', values: [2, 1] }]);
    const all = expectStatus(
      await aggregate(agg.id, { select: [{ column: 'eventSearchQuery' }, { column: 'eventsCount' }], where: [{ column: 'eventType', values: ['search_type_query'] }, { column: 'eventsCount', operator: 'greaterThan', values: [1] }], range: 'last7Days' }),
      200,
    ).body;
    expect(all.columns[0].values).toEqual(['install', 'quantum']);
  });

  it('by day, with the feedback ratings of a page and its comments', async () => {
    const byDay = expectStatus(await aggregate(agg.id, { select: [{ column: 'eventsCount' }], groupBy: [{ column: 'datetime', interval: 'day' }], range: 'last7Days' }), 200).body;
    expect(byDay.columns[0]).toEqual({ column: 'datetime', interval: 'day', values: [`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`] });
    expect(byDay.columns[1].values).toEqual([12]);
    const ratings = expectStatus(
      await aggregate(agg.id, { select: [{ column: 'page' }, { column: 'pageFeedbackRating' }], where: [{ column: 'page', values: [{ space: space.id, page: space.pages.Setup }] }], range: 'last24Hours' }),
      200,
    ).body;
    expect(ratings.columns[1].values).toEqual([{ ok: 0, good: 1, bad: 1 }]);
    const comments = expectStatus(
      await aggregate(agg.id, { select: [{ column: 'eventPageFeedbackComment' }, { column: 'eventsCount' }], where: [{ column: 'eventType', values: ['page_post_feedback_comment'] }], range: 'last24Hours' }),
      200,
    ).body;
    expect(comments.columns[0].values).toEqual(['Missing a step']);
  });

  it('visitor traits and referrers, reduced from what the reader sent', async () => {
    const res = expectStatus(
      await aggregate(agg.id, { select: [{ column: 'visitorBrowser' }, { column: 'visitorOS' }, { column: 'referrerDomain' }, { column: 'utmSource' }, { column: 'eventsCount' }], range: 'last24Hours' }),
      200,
    ).body;
    expect(res.columns.map((c: { values: unknown[] }) => c.values[0])).toEqual(['safari', 'macos', 'www.google.com', 'newsletter', 12]);
  });

  it('bad queries: 400 naming what is wrong', async () => {
    expectError(await aggregate(agg.id, { range: 'lastCentury' }), 400, 'range');
    expectError(await aggregate(agg.id, { range: { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' } }), 400, 'after');
    expectError(await aggregate(agg.id, { range: { from: '2020-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } }), 400, '366 days');
    expectError(await aggregate(agg.id, { select: [{ column: 'visitorGeoPoint' }], range: 'last7Days' }), 400, 'geographic');
    expectError(await aggregate(agg.id, { groupBy: [{ column: 'eventsCount' }], range: 'last7Days' }), 400, 'count');
    expectError(await aggregate(agg.id, { order: { by: { column: 'urlPath' }, direction: 'asc' }, range: 'last7Days' }), 400, 'order.by');
    expectError(await aggregate(agg.id, { where: Array.from({ length: 2 }, () => ({ column: 'urlPath', values: Array.from({ length: 60 }, (_, i) => `/${i}`) })), range: 'last7Days' }), 400, 'too many');
    expectError(await aggregate(agg.id, { range: 'last7Days', limit: 5000 }), 400, 'limit');
  });

  it('members below edit, outsiders and other organizations: 403 or 404', async () => {
    expectError(await aggregate(agg.id, { range: 'last7Days' }, org.members.read.token), 403);
    expectError(await aggregate(agg.id, { range: 'last7Days' }, org.outsider.token), 404);
    expect((await aggregate(agg.id, { range: 'last7Days' }, org.members.edit.token)).status).toBe(200);
    const other = await seedOrg();
    expectError(await api('POST', `/v1/orgs/${other.id}/sites/${agg.id}/insights/events/aggregate`, { token: other.owner.token, body: { range: 'last7Days' } }), 404);
    expectError(await api('GET', `/v1/orgs/${other.id}/sites/${agg.id}/insights/visitor-segments`, { token: other.owner.token }), 404);
    expectError(await api('POST', `/v1/orgs/${org.id}/sites/${agg.id}/insights/events/aggregate`, { body: { range: 'last7Days' } }), 401);
  });
});

describe('round trips (DESIGN.md budget)', () => {
  it('tracking costs one D1 round trip (a read), an aggregation two with the token', async () => {
    const track = await measureRoundTrips('POST', `/v1/orgs/${org.id}/sites/${site.id}/insights/events`, null, { events: [pageView(space.id, space.pages.Intro)] });
    expect(track.status).toBe(204);
    expect(track.roundTrips).toBe(1);
    const query = await measureRoundTrips('POST', `/v1/orgs/${org.id}/sites/${site.id}/insights/events/aggregate`, org.owner.token, { range: 'last7Days' });
    expect(query.status).toBe(200);
    expect(query.roundTrips).toBeLessThanOrEqual(2);
  });
});

describe('bad input to trackEventsInSiteById', () => {
  it('unknown types, huge batches, stale timestamps, other sites’ ids: 4xx, nothing queued', async () => {
    const captured = captureQueue();
    const bad = async (events: unknown[], status: number, message: string, siteId = site.id) => {
      const res = await track(siteId, events, captured);
      expect(res.status, res.text).toBe(status);
      expect(res.body.error.message.toLowerCase()).toContain(message.toLowerCase());
    };
    await bad([{ ...pageView(space.id, null), type: 'page_explode' }], 400, 'type');
    await bad(Array.from({ length: 101 }, () => pageView(space.id, null)), 400, 'events');
    await bad([], 400, 'events');
    await bad([pageView(space.id, null, { at: Date.now() - 3_600_000 })], 400, 'within 5 minutes');
    await bad([pageView('someone-elses-space', null)], 400, 'not a space of this site');
    await bad([pageView(space.id, null, { siteSpace: 'forged' })], 400, 'not a site space');
    await bad([{ ...pageView(space.id, null), type: 'page_post_feedback_comment', feedback: { rating: 'bad', comment: 'x'.repeat(600) } }], 400, 'comment');
    await bad([pageView(space.id, null)], 404, 'not found', 'no-such-site');
    const draft = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: 'Draft', spaces: [space.id] } }), 201).body;
    await bad([pageView(space.id, null)], 404, 'not found', draft.id);
    const other = await seedOrg();
    const res = await callCapturing(`/v1/orgs/${other.id}/sites/${site.id}/insights/events`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ events: [pageView(space.id, null)] }) }, captured);
    expect(res.status).toBe(404);
    expect(captured.messages).toEqual([]);
  });
});

describe('retention', () => {
  it('the hourly cron removes events past 400 days, and only those', async () => {
    const now = Date.now();
    const insert = env.DB.prepare(
      `insert into site_insights_events (id, site_id, type, at, url, url_path, display_context, visitor_id, session_id, data) values (?, ?, 'page_view', ?, 'https://x.test/', '/', 'site', 'v', 's', '{}')`,
    );
    const old = `old-${now}`;
    const recent = `recent-${now}`;
    await env.DB.batch([insert.bind(old, site.id, now - RETENTION_MS - 1000), insert.bind(recent, site.id, now - RETENTION_MS + 60_000)]);
    expect(await purgeOldEvents(createDb(env.DB), now)).toBeGreaterThanOrEqual(1);
    const left = await env.DB.prepare('select id from site_insights_events where id in (?, ?)').bind(old, recent).all();
    expect(left.results.map((r) => r.id)).toEqual([recent]);
  });
});
