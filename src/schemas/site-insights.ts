import { z } from '@hono/zod-openapi';
import { TimestampSchema } from './common';

/**
 * GitBook's site insights (its 0.202 specification): the 20 `SiteInsightsEvent` types a site's renderer tracks
 * (trackEventsInSiteById), and the aggregation queries over them (aggregateSiteEvents, listSiteVisitorSegments).
 * Bounds are ours: GitBook's shapes carry none, and every string here is stored.
 */

/** Most events one call tracks (GitBook's renderer sends a few at a time). */
export const MAX_EVENTS_PER_CALL = 100;
const SHORT = 256;
const MAX_URL = 2048;

const Id = z.string().min(1).max(128);
const NullableId = Id.nullable();
const Url = z.string().min(1).max(MAX_URL).openapi({ format: 'uri' });

export const SITE_INSIGHTS_EVENT_TYPES = [
  'page_view',
  'page_markdown_request',
  'search_open',
  'search_type_query',
  'search_open_result',
  'page_post_feedback',
  'page_post_feedback_comment',
  'agent_feedback',
  'ask_question',
  'ask_view',
  'ask_rate_response',
  'link_click',
  'api_client_open',
  'api_client_request',
  'ad_click',
  'ad_display',
  'trademark_click',
  'llms_request',
  'mcp_request',
  'rss_request',
] as const;
export type SiteInsightsEventType = (typeof SITE_INSIGHTS_EVENT_TYPES)[number];

export const PAGE_FEEDBACK_RATINGS = ['bad', 'ok', 'good'] as const;
export const DISPLAY_CONTEXTS = ['site', 'server', 'embed', 'mcp'] as const;
const LINK_POSITIONS = ['announcement', 'header', 'footer', 'sidebar', 'content'] as const;
const TRADEMARK_PLACEMENTS = ['sidebar', 'ad', 'footer', 'pdf', 'embed'] as const;

export const SiteInsightsEventSessionSchema = z
  .object({
    visitorId: Id.openapi({ description: "The reader's identifier (stored salted and hashed; the session's when the site sets no tracking cookie)" }),
    sessionId: Id.openapi({ description: "The reader's session (stored salted and hashed)" }),
    cookies: z.record(z.string().max(SHORT), z.string().max(MAX_URL)).openapi({ description: 'Accepted for GitBook compatibility; never stored' }),
    ip: z.string().max(64).optional().openapi({ description: 'Accepted for GitBook compatibility; never stored' }),
    userAgent: z.string().max(1024).openapi({ description: 'Reduced to a browser, an OS, a device kind and a bot name; never stored whole' }),
    language: z.string().max(64).nullable(),
    referrer: z.union([z.literal(''), Url]).nullable(),
    visitorAuthToken: z.string().max(8192).nullable().optional().openapi({ deprecated: true }),
    visitorAuthClaims: z.record(z.string(), z.unknown()).optional().openapi({
      description: 'Ignored: the claims recorded are those of the verified visitor token (or site token) of the request',
    }),
  })
  .openapi('SiteInsightsEventSession');

export const SiteInsightsEventLocationSchema = z
  .object({
    url: Url,
    displayContext: z.enum(DISPLAY_CONTEXTS).default('site'),
    siteSection: NullableId,
    siteSpace: NullableId,
    siteShareKey: z.string().max(SHORT).nullable(),
    space: NullableId,
    revision: NullableId,
    page: NullableId,
  })
  .openapi('SiteInsightsEventLocation');

const base = {
  session: SiteInsightsEventSessionSchema,
  location: SiteInsightsEventLocationSchema,
  timestamp: TimestampSchema.optional().openapi({ description: 'When the event happened (within 5 minutes of now); now when absent' }),
};
const event = <T extends SiteInsightsEventType, S extends z.ZodRawShape>(type: T, shape: S) => z.object({ type: z.literal(type), ...base, ...shape });

const Rating = z.enum(PAGE_FEEDBACK_RATINGS);
const Operation = z.object({ path: z.string().max(MAX_URL), method: z.string().max(16) });
const Ad = z.object({ domain: z.string().max(SHORT), zoneId: z.string().max(SHORT), placement: z.enum(['aside']) });
const Query = z.string().max(512);
/** GitBook's `ContentRef` as a link's target: its kind and the ids or URL it names. */
const LinkTarget = z
  .object({ kind: z.enum(['url', 'page', 'file', 'anchor', 'space', 'collection', 'user', 'reusable-content']) })
  .catchall(z.union([z.string().max(MAX_URL), z.number(), z.boolean(), z.null()]));

export const SiteInsightsEventSchema = z
  .discriminatedUnion('type', [
    event('page_view', {}),
    event('page_markdown_request', { markdownSource: z.enum(['page-action']).optional() }),
    event('search_open', {}),
    event('search_type_query', {
      query: Query,
      resultsCount: z.number().int().min(0).max(10_000).optional().openapi({
        description: 'Not in GitBook: how many results the search showed (our HTML reader sends it), for the searches with no result (column `eventSearchResultsCount`)',
      }),
    }),
    event('search_open_result', {
      query: Query,
      result: z.union([z.object({ spaceId: Id, pageId: Id }), z.object({ recordId: Id })]),
    }),
    event('page_post_feedback', { feedback: z.object({ rating: Rating }) }),
    event('page_post_feedback_comment', { feedback: z.object({ rating: Rating, comment: z.string().min(1).max(512) }) }),
    event('agent_feedback', {}),
    event('ask_question', { query: Query, goal: z.string().max(1024).optional() }),
    event('ask_view', {}),
    event('ask_rate_response', { query: Query, rating: z.union([z.literal(1), z.literal(-1)]), responseId: Id }),
    event('link_click', { link: z.object({ target: LinkTarget, position: z.enum(LINK_POSITIONS) }) }),
    event('api_client_open', { operation: Operation }),
    event('api_client_request', { operation: Operation }),
    event('ad_click', { ad: Ad }),
    event('ad_display', { ad: Ad }),
    event('trademark_click', { placement: z.enum(TRADEMARK_PLACEMENTS) }),
    event('llms_request', { llmsVariant: z.enum(['standard', 'full']) }),
    event('mcp_request', {}),
    event('rss_request', {}),
  ])
  .openapi('SiteInsightsEvent', { description: "One of GitBook's 20 site insights events" });
export type SiteInsightsEvent = z.infer<typeof SiteInsightsEventSchema>;

export const TrackEventsBodySchema = z.object({
  events: z.array(SiteInsightsEventSchema).min(1).max(MAX_EVENTS_PER_CALL),
});

// ---------------------------------------------------------------------------------------------
// Aggregation

/** Columns that group (dimensions). */
export const DIMENSION_COLUMNS = [
  'datetime',
  'dayOfWeek',
  'hourOfDay',
  'url',
  'urlPath',
  'eventType',
  'siteSection',
  'siteSpace',
  'siteShareKey',
  'displayContext',
  'page',
  'visitorGeoCountry',
  'visitorGeoPoint',
  'visitorDevice',
  'visitorBrowser',
  'visitorOS',
  'visitorBot',
  'visitorLanguage',
  'eventLinkTargetValue',
  'eventLinkTargetKind',
  'eventLinkTargetDomain',
  'eventLinkPosition',
  'eventAPIOperationPath',
  'eventAPIOperationMethod',
  'eventLLMSVariant',
  'eventPageNotFoundType',
  'eventMarkdownSource',
  'eventSearchQuery',
  'eventSearchResultRecordId',
  'eventSearchResultsCount',
  'eventPageFeedbackRating',
  'eventPageFeedbackComment',
  'eventAskResponseRating',
  'referrer',
  'referrerDomain',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'utmTerm',
  'utmContent',
  'visitorAuthenticated',
  'visitorClaimProperty',
  'visitorClaim',
  'eventAdDomain',
  'eventAdPlacement',
  'eventTrademarkPlacement',
] as const;
/** Columns that count (metrics). */
export const METRIC_COLUMNS = ['eventsCount', 'sessionsCount', 'visitorsCount', 'pageFeedbackRating', 'askResponseRating'] as const;
export type DimensionColumn = (typeof DIMENSION_COLUMNS)[number];
export type MetricColumn = (typeof METRIC_COLUMNS)[number];
export type QueryColumnName = DimensionColumn | MetricColumn;

export const SiteInsightsQueryEventsColumnSchema = z
  .object({
    column: z.enum([...DIMENSION_COLUMNS, ...METRIC_COLUMNS]),
    interval: z.enum(['hour', 'day', 'week', 'month']).optional().openapi({ description: '`datetime` only: the bucket (day when absent)' }),
    claim: z.string().min(1).max(SHORT).optional().openapi({ description: '`visitorClaim` only: the claim' }),
    precision: z.number().int().min(0).max(15).optional(),
  })
  .openapi('SiteInsightsQueryEventsColumn');
export type QueryColumn = z.infer<typeof SiteInsightsQueryEventsColumnSchema>;

const FilterValue = z.union([z.string().max(MAX_URL), z.number(), z.boolean(), z.null(), z.object({ page: z.string().max(128).nullable(), space: z.string().max(128) })]);

export const SiteInsightsQueryEventsFilterSchema = SiteInsightsQueryEventsColumnSchema.extend({
  values: z.array(FilterValue).max(100),
  operator: z.enum(['in', 'notIn', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual']).optional(),
}).openapi('SiteInsightsQueryEventsFilter');
export type QueryFilter = z.infer<typeof SiteInsightsQueryEventsFilterSchema>;

export const RANGE_PRESETS = ['lastYear', 'last3Months', 'last30Days', 'last7Days', 'last24Hours'] as const;

export const SiteInsightsQueryEventsAggregationSchema = z
  .object({
    select: z.array(SiteInsightsQueryEventsColumnSchema).max(20).optional(),
    where: z.array(SiteInsightsQueryEventsFilterSchema).max(20).optional(),
    groupBy: z.array(SiteInsightsQueryEventsColumnSchema).max(5).optional(),
    order: z.object({ by: SiteInsightsQueryEventsColumnSchema, direction: z.enum(['asc', 'desc']) }).optional(),
    range: z.union([z.enum(RANGE_PRESETS), z.object({ from: TimestampSchema, to: TimestampSchema })]),
    limit: z.number().int().min(1).max(1000).default(1000),
  })
  .openapi('SiteInsightsQueryEventsAggregation');
export type AggregationQuery = z.infer<typeof SiteInsightsQueryEventsAggregationSchema>;

export const SiteInsightsQueryEventsAggregationResultSchema = z
  .object({
    columns: z.array(
      z.object({
        column: z.string(),
        claim: z.string().optional(),
        interval: z.string().optional(),
        values: z.array(z.unknown()),
      }),
    ),
  })
  .openapi('SiteInsightsQueryEventsAggregationResult');

export const SiteInsightsVisitorSegmentSchema = z
  .object({
    title: z.string(),
    claims: z.record(z.string(), z.unknown()),
    events: z.number(),
    visitors: z.number(),
    sessions: z.number(),
  })
  .openapi('SiteInsightsVisitorSegment');
