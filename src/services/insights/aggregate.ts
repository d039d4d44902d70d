import { sql, type SQL } from 'drizzle-orm';
import { rawAll, rowsOf, type Db } from '../../db/client';
import { ApiError } from '../../lib/errors';
import {
  METRIC_COLUMNS,
  type AggregationQuery,
  type MetricColumn,
  type QueryColumn,
  type QueryFilter,
} from '../../schemas/site-insights';

/**
 * GitBook's `aggregateSiteEvents` over the stored events of one site (services/insights/store): a `select` of
 * columns, grouped by dimensions (every selected dimension groups), filtered (`where`: dimensions before grouping,
 * counts after it), ordered, limited, within a range. One SQL statement; answered column by column as GitBook does
 * (`{ columns: [{ column, values }] }`, the i-th value of every column being the i-th row).
 *
 * A column this deployment records nothing for (a visitor's geographic point, the claim properties) is a 400 that
 * says so rather than a column of nulls.
 */

const RANGE_PRESET_MS: Record<string, number> = {
  last24Hours: 24 * 3600_000,
  last7Days: 7 * 86400_000,
  last30Days: 30 * 86400_000,
  last3Months: 90 * 86400_000,
  lastYear: 365 * 86400_000,
};
const MAX_RANGE_MS = 366 * 86400_000;
/** D1 binds at most 100 parameters per statement. */
const MAX_PARAMETERS = 95;

const UNRECORDED: Record<string, string> = {
  visitorGeoPoint: "This deployment records no visitor's geographic point",
  visitorClaimProperty: 'This deployment records claims as values (group by visitorClaim with a claim)',
};

const j = (path: string) => sql.raw(`json_extract(data, '$.${path}')`);

const DATETIME_FORMATS: Record<string, string> = {
  hour: '%Y-%m-%dT%H:00:00.000Z',
  day: '%Y-%m-%dT00:00:00.000Z',
  month: '%Y-%m-01T00:00:00.000Z',
};

function datetimeExpression(interval: string | undefined): SQL {
  if (interval === 'week') return sql.raw(`date(at / 1000, 'unixepoch', '-6 days', 'weekday 1') || 'T00:00:00.000Z'`);
  return sql.raw(`strftime('${DATETIME_FORMATS[interval ?? 'day']}', at / 1000, 'unixepoch')`);
}

/** The SQL of a dimension column (a value per event). */
function dimensionExpression(column: QueryColumn): SQL {
  const name = column.column;
  if (UNRECORDED[name]) throw new ApiError(400, UNRECORDED[name]);
  switch (name) {
    case 'datetime':
      return datetimeExpression(column.interval);
    case 'dayOfWeek':
      return sql.raw(`((cast(strftime('%w', at / 1000, 'unixepoch') as integer) + 6) % 7) + 1`);
    case 'hourOfDay':
      return sql.raw(`cast(strftime('%H', at / 1000, 'unixepoch') as integer)`);
    case 'url':
      return sql.raw('url');
    case 'urlPath':
      return sql.raw('url_path');
    case 'eventType':
      return sql.raw('type');
    case 'siteSection':
      return sql.raw('site_section');
    case 'siteSpace':
      return sql.raw('site_space');
    case 'siteShareKey':
      return sql.raw('site_share_key');
    case 'displayContext':
      return sql.raw('display_context');
    case 'page':
      return sql.raw('case when page_id is null then null else json_array(space_id, page_id) end');
    case 'visitorGeoCountry':
      return j('country');
    case 'visitorDevice':
      return j('device');
    case 'visitorBrowser':
      return j('browser');
    case 'visitorOS':
      return j('os');
    case 'visitorBot':
      return j('bot');
    case 'visitorLanguage':
      return j('language');
    case 'eventLinkTargetValue':
      return j('link.target');
    case 'eventLinkTargetKind':
      return j('link.target.kind');
    case 'eventLinkTargetDomain':
      return j('linkDomain');
    case 'eventLinkPosition':
      return j('link.position');
    case 'eventAPIOperationPath':
      return j('operation.path');
    case 'eventAPIOperationMethod':
      return j('operation.method');
    case 'eventLLMSVariant':
      return j('llmsVariant');
    case 'eventPageNotFoundType':
      return j('pageNotFoundType');
    case 'eventMarkdownSource':
      return j('markdownSource');
    case 'eventSearchQuery':
      return j('query');
    case 'eventSearchResultRecordId':
      return j('result.recordId');
    case 'eventSearchResultsCount':
      return j('resultsCount');
    case 'eventPageFeedbackRating':
      return j('feedback.rating');
    case 'eventPageFeedbackComment':
      return j('feedback.comment');
    case 'eventAskResponseRating':
      return j('rating');
    case 'referrer':
      return j('referrer');
    case 'referrerDomain':
      return j('referrerDomain');
    case 'utmSource':
      return j('utmSource');
    case 'utmMedium':
      return j('utmMedium');
    case 'utmCampaign':
      return j('utmCampaign');
    case 'utmTerm':
      return j('utmTerm');
    case 'utmContent':
      return j('utmContent');
    case 'visitorAuthenticated':
      return j('authenticated');
    case 'visitorClaim': {
      if (!column.claim) throw new ApiError(400, 'visitorClaim needs a claim');
      return sql`json_extract(data, ${`$.claims."${column.claim.replace(/["\\]/g, '')}"`})`;
    }
    case 'eventAdDomain':
      return j('ad.domain');
    case 'eventAdPlacement':
      return j('ad.placement');
    case 'eventTrademarkPlacement':
      return j('placement');
    default:
      throw new ApiError(400, `${name} is not a column to group by`);
  }
}

const isMetric = (column: QueryColumn): column is QueryColumn & { column: MetricColumn } => (METRIC_COLUMNS as readonly string[]).includes(column.column);

/** The SQL of a metric (an aggregate over the group). */
function metricExpression(name: MetricColumn): SQL {
  switch (name) {
    case 'eventsCount':
      return sql.raw('count(*)');
    case 'sessionsCount':
      return sql.raw('count(distinct session_id)');
    case 'visitorsCount':
      return sql.raw('count(distinct visitor_id)');
    case 'pageFeedbackRating':
      // Ratings of `page_post_feedback` only: a comment event repeats its rating.
      return sql.raw(
        `json_object(${['ok', 'good', 'bad']
          .map((r) => `'${r}', sum(case when type = 'page_post_feedback' and json_extract(data, '$.feedback.rating') = '${r}' then 1 else 0 end)`)
          .join(', ')})`,
      );
    case 'askResponseRating':
      return sql.raw(
        `json_object('positive', sum(case when type = 'ask_rate_response' and json_extract(data, '$.rating') = 1 then 1 else 0 end), 'negative', sum(case when type = 'ask_rate_response' and json_extract(data, '$.rating') = -1 then 1 else 0 end))`,
      );
  }
}

/** A column's identity (its name, interval and claim), to find it again among the output's. */
const keyOf = (column: QueryColumn) => `${column.column}|${column.column === 'datetime' ? (column.interval ?? 'day') : ''}|${column.claim ?? ''}`;

/** The range's bounds in epoch milliseconds: a preset ending now, or `from`..`to` (400 when backwards or over a year). */
export function rangeOf(range: AggregationQuery['range'], now = Date.now()): { from: number; to: number } {
  if (typeof range === 'string') return { from: now - RANGE_PRESET_MS[range], to: now };
  const from = Date.parse(range.from);
  const to = Date.parse(range.to);
  if (Number.isNaN(from) || Number.isNaN(to)) throw new ApiError(400, 'range.from and range.to must be date-times');
  if (to <= from) throw new ApiError(400, 'range.to must be after range.from');
  if (to - from > MAX_RANGE_MS) throw new ApiError(400, 'range covers at most 366 days');
  return { from, to };
}

class Parameters {
  count = 0;
  take(n: number) {
    this.count += n;
    if (this.count > MAX_PARAMETERS) throw new ApiError(400, `The query has too many filter values (at most ${MAX_PARAMETERS - 5} in all)`);
  }
}

/** A filter value as stored: booleans as SQLite's 0/1. */
const stored = (value: unknown) => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

const COMPARISONS: Record<string, string> = { greaterThan: '>', greaterThanOrEqual: '>=', lessThan: '<', lessThanOrEqual: '<=' };

function filterCondition(expression: SQL, filter: QueryFilter, params: Parameters): SQL {
  const operator = filter.operator ?? 'in';
  const comparison = COMPARISONS[operator];
  if (comparison) {
    if (filter.values.length !== 1 || (typeof filter.values[0] !== 'number' && typeof filter.values[0] !== 'string')) {
      throw new ApiError(400, `where: ${filter.column} ${operator} takes one value, a number or a date-time`);
    }
    params.take(1);
    return sql`${expression} ${sql.raw(comparison)} ${filter.values[0]}`;
  }
  if (filter.column === 'page') return pageCondition(filter, operator === 'notIn', params);
  const values = filter.values.filter((v) => v !== null).map(stored);
  if (values.some((v) => typeof v === 'object')) throw new ApiError(400, `where: the values of ${filter.column} are scalars`);
  const withNull = values.length < filter.values.length;
  params.take(values.length);
  const list = values.length ? sql`${expression} in (${sql.join(values.map((v) => sql`${v}`), sql`, `)})` : sql.raw('0');
  const matches = withNull ? sql`(${list} or ${expression} is null)` : list;
  return operator === 'notIn' ? sql`not coalesce(${matches}, 0)` : sql`coalesce(${matches}, 0)`;
}

/** `page` filters name pages as `{ space, page }`, or null for events on no page (a 404). */
function pageCondition(filter: QueryFilter, negate: boolean, params: Parameters): SQL {
  const parts = filter.values.map((value) => {
    if (value === null) return sql.raw('page_id is null');
    if (typeof value !== 'object') throw new ApiError(400, 'where: the values of page are { space, page } or null');
    params.take(value.page === null ? 1 : 2);
    return value.page === null ? sql`(space_id = ${value.space} and page_id is null)` : sql`(space_id = ${value.space} and page_id = ${value.page})`;
  });
  const any = parts.length ? sql`(${sql.join(parts, sql` or `)})` : sql.raw('0');
  return negate ? sql`not ${any}` : any;
}

interface OutputColumn {
  column: QueryColumn;
  expression: SQL;
  metric: boolean;
}

/** The statement of a query on `siteId` (validated: 400s are thrown here, before anything is read). */
export function aggregationStatement(db: Db, siteId: string, query: AggregationQuery, now = Date.now()) {
  const { from, to } = rangeOf(query.range, now);
  const params = new Parameters();
  params.take(3);
  const selected = query.select?.length ? query.select : [{ column: 'eventsCount' as const }];
  // Every dimension selected groups; the groupBy's come first, in their order.
  const outputs: OutputColumn[] = [];
  const seen = new Set<string>();
  for (const column of [...(query.groupBy ?? []), ...selected]) {
    const key = keyOf(column);
    if (seen.has(key)) continue;
    seen.add(key);
    const metric = isMetric(column);
    if (metric && query.groupBy?.some((g) => keyOf(g) === key)) throw new ApiError(400, `groupBy: ${column.column} is a count, not a column to group by`);
    outputs.push({ column, expression: metric ? metricExpression(column.column as MetricColumn) : dimensionExpression(column), metric });
  }
  const dimensions = outputs.filter((o) => !o.metric);

  const where: SQL[] = [sql`site_id = ${siteId}`, sql`at >= ${from}`, sql`at < ${to}`];
  const having: SQL[] = [];
  for (const filter of query.where ?? []) {
    if (filter.column === 'datetime') {
      const operator = filter.operator ?? 'in';
      const bound = filter.values.length === 1 && typeof filter.values[0] === 'string' ? Date.parse(filter.values[0]) : NaN;
      if (!COMPARISONS[operator] || Number.isNaN(bound)) throw new ApiError(400, 'where: datetime is compared (greaterThan, lessThan...) with one date-time');
      params.take(1);
      where.push(sql`at ${sql.raw(COMPARISONS[operator])} ${bound}`);
    } else if (isMetric(filter)) {
      having.push(filterCondition(metricExpression(filter.column as MetricColumn), filter, params));
    } else {
      where.push(filterCondition(dimensionExpression(filter), filter, params));
    }
  }

  let order: SQL;
  if (query.order) {
    const index = outputs.findIndex((o) => keyOf(o.column) === keyOf(query.order!.by));
    if (index < 0) throw new ApiError(400, 'order.by must be a selected or grouped column');
    order = sql.raw(`c${index} ${query.order.direction}`);
  } else {
    const datetime = outputs.findIndex((o) => o.column.column === 'datetime');
    const firstMetric = outputs.findIndex((o) => o.metric && o.column.column.endsWith('Count'));
    order = sql.raw(datetime >= 0 ? `c${datetime} asc` : firstMetric >= 0 ? `c${firstMetric} desc` : 'c0 asc');
  }
  // Ties in a stable order: the grouped values.
  const tieBreak = dimensions.map((d) => sql.raw(`c${outputs.indexOf(d)} asc`));
  const columns = sql.join(
    outputs.map((o, i) => sql`${o.expression} as ${sql.raw(`c${i}`)}`),
    sql`, `,
  );
  const statement = sql`select ${columns} from site_insights_events where ${sql.join(where, sql` and `)}
    ${dimensions.length ? sql`group by ${sql.join(dimensions.map((d) => sql.raw(`c${outputs.indexOf(d)}`)), sql`, `)}` : sql``}
    ${having.length ? sql`having ${sql.join(having, sql` and `)}` : sql``}
    order by ${sql.join([order, ...tieBreak], sql`, `)}
    limit ${query.limit ?? 1000}`;
  return { statement: rawAll<Record<string, unknown>>(db, statement), outputs };
}

/** A stored value as the API shows it. */
function present(column: QueryColumn, value: unknown): unknown {
  switch (column.column) {
    case 'page': {
      if (value === null) return null;
      const [space, page] = JSON.parse(String(value)) as [string, string];
      return { space, page };
    }
    case 'visitorAuthenticated':
      return value === null ? null : value === 1 || value === true;
    case 'pageFeedbackRating':
    case 'askResponseRating':
    case 'eventLinkTargetValue':
      return value === null ? null : JSON.parse(String(value));
    default:
      return value;
  }
}

/** The statement's rows, column by column. */
export function aggregationResult(result: unknown, outputs: OutputColumn[]) {
  const rows = rowsOf<Record<string, unknown>>(result);
  return {
    columns: outputs.map((o, i) => ({
      column: o.column.column,
      ...(o.column.claim !== undefined && { claim: o.column.claim }),
      ...(o.column.column === 'datetime' && { interval: o.column.interval ?? 'day' }),
      values: rows.map((row) => present(o.column, row[`c${i}`] ?? null)),
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Visitor segments

export const MAX_SEGMENTS = 100;

/** Visitors grouped by their claims (visitor-auth sites: what their tokens said), the largest first. */
export function segmentsStatement(db: Db, siteId: string, since: number) {
  return rawAll<{ claims: string | null; events: number; visitors: number; sessions: number }>(
    db,
    sql`select json_extract(data, '$.claims') as claims, count(*) as events, count(distinct visitor_id) as visitors, count(distinct session_id) as sessions
      from site_insights_events where site_id = ${siteId} and at >= ${since}
      group by 1 order by events desc, claims asc limit ${MAX_SEGMENTS}`,
  );
}

const scalar = (value: unknown) => (value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value));

export function segmentsOf(result: unknown) {
  return rowsOf<{ claims: string | null; events: number; visitors: number; sessions: number }>(result).map((row) => {
    const claims = row.claims ? (JSON.parse(row.claims) as Record<string, unknown>) : {};
    const entries = Object.entries(claims);
    const title = entries.length ? entries.map(([key, value]) => `${key}: ${scalar(value)}`).join(', ') : 'Visitors without claims';
    return { title, claims, events: row.events, visitors: row.visitors, sessions: row.sessions };
  });
}
