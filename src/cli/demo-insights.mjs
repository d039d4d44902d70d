// A week of site insights for the demo site of `npm run dev`, so that aggregateSiteEvents has something to show:
//   - the six days before today, written into the local D1 as the queue's consumer would have stored them (the API
//     takes events of the last 5 minutes only): page views weighted by page, searches (some with no result), page
//     feedback with comments; deterministic ids, so running `npm run dev` again adds nothing for those days;
//   - today's, sent the way our HTML reader sends them, to the site's `~gitbook/insights` (through the Queue and its
//     consumer, which wrangler dev runs).
import { DEV_URL, ROOT } from './seed.mjs';
import { withLocalD1 } from './local-d1.mjs';

const DAY_MS = 86_400_000;
const SEARCHES = [
  { query: 'install', results: 3, weight: 5 },
  { query: 'timeout', results: 1, weight: 3 },
  { query: 'webhooks', results: 0, weight: 3 },
  { query: 'single sign-on', results: 0, weight: 2 },
  { query: 'config', results: 2, weight: 2 },
];
const COMMENTS = ['The example works as shown.', 'A step is missing before the last command.', 'Clear, thanks.'];
const BROWSERS = [
  ['chrome', 'macos', 'desktop'],
  ['firefox', 'linux', 'desktop'],
  ['safari', 'ios', 'mobile'],
  ['edge', 'windows', 'desktop'],
];

/** A small deterministic generator (mulberry32): the same week every run. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The demo site's pages with their URL paths, from its space's content. */
async function sitePages(api, site) {
  const content = await api.get(`/v1/spaces/${site.spaceId}/content`);
  const out = [];
  const walk = (pages) => {
    for (const page of pages ?? []) {
      if (page.type === 'document' || page.type === 'computed') out.push({ id: page.id, path: page.path });
      walk(page.pages);
    }
  };
  walk(content.pages);
  return out;
}

/** The rows of one past day, as services/insights/events `toRows` makes them. */
function dayRows(site, pages, day, now) {
  const rand = random(Number(day.replaceAll('-', '')));
  const start = Date.parse(`${day}T00:00:00.000Z`);
  const rows = [];
  const base = new URL(site.url);
  const row = (n, type, page, data) => {
    const visitor = `demo-visitor-${Math.floor(rand() * 40)}`;
    const [browser, os, device] = BROWSERS[Math.floor(rand() * BROWSERS.length)];
    const at = Math.min(start + Math.floor(rand() * DAY_MS), now - 60_000);
    const path = page ? `${base.pathname}${page.path}` : `${base.pathname}~search`;
    rows.push({
      id: `demo-${site.id}-${day}-${n}`,
      siteId: site.id,
      type,
      at,
      url: `${base.origin}${path}`,
      urlPath: path,
      displayContext: 'site',
      siteSection: null,
      siteSpace: null,
      siteShareKey: null,
      space: page ? site.spaceId : null,
      revision: null,
      page: page?.id ?? null,
      visitorId: visitor,
      sessionId: `${visitor}-${day}`,
      data: { browser, os, device, bot: null, language: 'en-US', referrer: null, referrerDomain: null, authenticated: false, ...data },
    });
  };
  let n = 0;
  pages.forEach((page, index) => {
    // The first pages are read most.
    const views = Math.round((30 / (index + 1)) * (0.6 + rand()));
    for (let i = 0; i < views; i++) row(n++, 'page_view', page, {});
  });
  for (const search of SEARCHES) {
    const count = Math.round(search.weight * (0.5 + rand()));
    for (let i = 0; i < count; i++) row(n++, 'search_type_query', null, { query: search.query, resultsCount: search.results });
  }
  for (let i = 0; i < 3; i++) {
    const page = pages[Math.floor(rand() * Math.min(pages.length, 4))];
    const rating = ['good', 'good', 'ok', 'bad'][Math.floor(rand() * 4)];
    row(n++, 'page_post_feedback', page, { feedback: { rating } });
    if (rand() < 0.5) row(n++, 'page_post_feedback_comment', page, { feedback: { rating, comment: COMMENTS[Math.floor(rand() * COMMENTS.length)] } });
  }
  return rows;
}

/** Today's events, sent as the reader sends them. */
async function sendToday(site, pages, baseUrl) {
  const session = { visitorId: 'demo-today', sessionId: 'demo-today-session', cookies: {}, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0', language: 'en-US', referrer: null };
  const at = (page) => ({ url: `${site.url}${page?.path ?? ''}`, displayContext: 'site', siteSection: null, siteSpace: null, siteShareKey: null, space: page ? site.spaceId : null, revision: null, page: page?.id ?? null });
  const now = new Date().toISOString();
  const events = [
    ...pages.slice(0, 3).map((page) => ({ type: 'page_view', session, location: at(page), timestamp: now })),
    { type: 'search_type_query', session, location: at(null), timestamp: now, query: 'webhooks', resultsCount: 0 },
  ];
  const res = await fetch(`${baseUrl}/s/${site.id}/~gitbook/insights`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ events }) });
  if (res.status !== 204) throw new Error(`~gitbook/insights answered ${res.status}: ${await res.text()}`);
}

/** Writes the demo week (idempotent) and prints the two questions of the handbook's insights guide as curl commands. */
export async function seedDemoInsights(api, { organizationId, site }, token, { baseUrl = DEV_URL } = {}) {
  try {
    const pages = await sitePages(api, site);
    if (pages.length === 0) return;
    const now = Date.now();
    const days = Array.from({ length: 6 }, (_, i) => new Date(now - (i + 1) * DAY_MS).toISOString().slice(0, 10));
    const rows = days.flatMap((day) => dayRows(site, pages, day, now));
    await withLocalD1(ROOT, async (db) => {
      const insert = db.prepare(
        `insert or ignore into site_insights_events (id, site_id, type, at, url, url_path, display_context, site_section, site_space, site_share_key, space_id, revision_id, page_id, visitor_id, session_id, data)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const statements = rows.map((r) =>
        insert.bind(r.id, r.siteId, r.type, r.at, r.url, r.urlPath, r.displayContext, r.siteSection, r.siteSpace, r.siteShareKey, r.space, r.revision, r.page, r.visitorId, r.sessionId, JSON.stringify(r.data)),
      );
      for (let i = 0; i < statements.length; i += 200) await db.batch(statements.slice(i, i + 200));
    });
    await sendToday(site, pages, baseUrl);
    const aggregate = `${baseUrl}/v1/orgs/${organizationId}/sites/${site.id}/insights/events/aggregate`;
    const mostRead = { select: [{ column: 'urlPath' }, { column: 'eventsCount' }, { column: 'visitorsCount' }], where: [{ column: 'eventType', values: ['page_view'] }], order: { by: { column: 'eventsCount' }, direction: 'desc' }, range: 'last7Days', limit: 10 };
    console.log(`Demo site insights (a week of page views, searches and feedback): the most read pages this week:`);
    console.log(`  curl -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" ${aggregate} -d '${JSON.stringify(mostRead)}'\n`);
  } catch (error) {
    console.error(`demo insights: ${error instanceof Error ? error.message : error}`);
  }
}
