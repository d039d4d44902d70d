import type { Context } from 'hono';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { listOf } from '../../schemas/common';
import type { AppBindings } from '../../env';
import {
  SiteInsightsQueryEventsAggregationResultSchema,
  SiteInsightsQueryEventsAggregationSchema,
  SiteInsightsVisitorSegmentSchema,
  TrackEventsBodySchema,
} from '../../schemas/site-insights';
import { aggregationResult, aggregationStatement, segmentsOf, segmentsStatement } from '../../services/insights/aggregate';
import { enqueueSiteEvents } from '../../services/insights/events';
import { loadSiteAsMember, loadSiteAsReader, visitorCredentials } from '../../services/sites/access';
import { SiteParams, VisitorQuery } from './params';

/**
 * Site insights (GitBook's `site-insights` operations): what readers of a published site do, recorded through the
 * queue (services/insights/events) and aggregated over the stored events (services/insights/aggregate).
 *
 * Who: a site's readers track events (its renderer with the site token it was given, or a visitor without an API
 * token carrying what the site asks of them: nothing for public sites, the share key, the visitor token), and only on
 * a published site they may read; members of the organization may too (a member reads any of its sites). Members
 * with the `edit` role or more read the aggregations: insights hold readers' searches and feedback comments.
 */

const tags = ['Site insights'];
/** Who reads insights: members who edit the organization's content or more. */
export const INSIGHTS_READ_RANK = RANK.edit;
/** The window of listSiteVisitorSegments. */
const SEGMENTS_WINDOW_MS = 90 * 86400_000;

const trackEventsRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/insights/events', () => ({
  operationId: 'trackEventsInSiteById',
  visitors: true,
  siteToken: true,
  tags,
  summary: "Track events of a published site's readers",
  description:
    "GitBook's 20 `SiteInsightsEvent` types, at most 100 per call, each within 5 minutes of now. Queued, then stored by the queue's consumer in batches: the answer (204) means queued, and an aggregation sees them a moment later. An event sent twice (same fields and timestamp) counts once. Visitors call it without an API token with the site's credentials (`shareKey`, `jwt_token` or `X-Visitor-Token`), the site's renderer with its site token; only a published site records events, and only ids of the site's own sections, site spaces and spaces are accepted. The visitor and session ids are stored hashed with the site; without the site's `insights.trackingCookie` a visitor is counted once per session. No address nor user agent is stored; claims are recorded only from a verified visitor token or site token.",
  request: { params: SiteParams, query: VisitorQuery, ...jsonBody(TrackEventsBodySchema) },
  responses: { 204: noContent('Events have been queued') },
}));

const aggregateRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/insights/events/aggregate', () => ({
  operationId: 'aggregateSiteEvents',
  tags,
  summary: "Query a site's insights events",
  description:
    'Counts (`eventsCount`, `visitorsCount`, `sessionsCount`, `pageFeedbackRating`, `askResponseRating`) grouped by columns (`datetime` with an `interval`, `page`, `eventSearchQuery`, `eventType`, `urlPath`, ...), filtered by `where` (`in`, `notIn`, comparisons; on counts too), ordered and limited, over a `range` (a preset or `{ from, to }`). Answered column by column. Members with the edit role or more.',
  request: { params: SiteParams, ...jsonBody(SiteInsightsQueryEventsAggregationSchema) },
  responses: { 200: jsonResponse(SiteInsightsQueryEventsAggregationResultSchema, 'Aggregated events of the site') },
}));

const listSegmentsRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/insights/visitor-segments', () => ({
  operationId: 'listSiteVisitorSegments',
  tags,
  summary: "List a site's visitor segments",
  description:
    'Readers grouped by the claims their visitor tokens carried (visitor-auth and adaptive sites), over the last 90 days, the largest first (at most 100); readers without claims are one segment. Members with the edit role or more.',
  request: { params: SiteParams },
  responses: { 200: jsonResponse(listOf(SiteInsightsVisitorSegmentSchema, 'SiteInsightsVisitorSegments'), 'Visitor segments of the site') },
}));

/** Cloudflare's country of the request, when it knows it (never the address). */
function countryOf(c: Context<AppBindings>): string | null {
  const cf = (c.req.raw as { cf?: { country?: unknown } }).cf;
  return typeof cf?.country === 'string' ? cf.country : null;
}

export const siteInsightsRouter = createRouter()
  .openapi(trackEventsRoute, async (c) => {
    const { organizationId, siteId } = c.req.valid('param');
    const { shareKey } = c.req.valid('query');
    const { events } = c.req.valid('json');
    const { model, reader } = await loadSiteAsReader(c, organizationId, siteId, visitorCredentials(c, shareKey));
    // A member's own claims are a preview's; a visitor's are those of their verified token (or site token).
    const claims = reader.kind === 'visitor' ? reader.claims : {};
    await enqueueSiteEvents(c.env, model, events, { claims, country: countryOf(c) });
    return c.body(null, 204);
  })
  .openapi(aggregateRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const db = c.get('db');
    // Built (and refused with a 400) before anything is read; run in the site's batch, read only when allowed.
    const { statement, outputs } = aggregationStatement(db, siteId, c.req.valid('json'));
    const { extra } = await loadSiteAsMember<[unknown]>(db, organizationId, siteId, userId, INSIGHTS_READ_RANK, [statement]);
    return c.json(aggregationResult(extra[0], outputs), 200);
  })
  .openapi(listSegmentsRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const db = c.get('db');
    const statement = segmentsStatement(db, siteId, Date.now() - SEGMENTS_WINDOW_MS);
    const { extra } = await loadSiteAsMember<[unknown]>(db, organizationId, siteId, userId, INSIGHTS_READ_RANK, [statement]);
    const items = segmentsOf(extra[0]);
    return c.json({ items, count: items.length }, 200);
  });
