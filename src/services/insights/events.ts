import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { newId, sha256Hex } from '../../lib/ids';
import type { SiteInsightsEvent } from '../../schemas/site-insights';
import type { SiteModel } from '../sites/model';
import { siteSettings } from '../sites/settings';
import { visitorTraits } from './visitor';
import { SITE_INSIGHTS_JOB } from './store';

/**
 * Site insights events, from GitBook's shapes to the rows the queue consumer stores (src/jobs/site-insights.ts).
 *
 * A visitor's request never writes to D1: `enqueueSiteEvents` checks the events against the site it read (its
 * sections, site spaces and spaces), turns them into rows and sends them on the JOBS queue; the consumer inserts
 * them in batches. Each row's id is a hash of the event (`eventId`): the same event delivered twice (a queue retry,
 * a client sending its batch again with the same timestamps) is one row, so counts stay exact.
 *
 * What identifies a visitor is what the site's tracking setting allows (`insights.trackingCookie`): the ids the reader
 * sent are stored salted with the site and hashed (not linkable across sites nor to the reader's own value); without
 * the tracking cookie the visitor id is the session's, so nobody is followed from one session to the next. The
 * address and user agent are never stored (only a browser, OS, device kind and bot name); the claims of a visitor are
 * recorded only from a verified visitor token or site token, never from what the body says.
 */

/** How far a given timestamp may be from now (GitBook's rule). */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;
/** Queue messages stay under the Queue's 128 KB per message. */
const MAX_MESSAGE_BYTES = 100 * 1024;

/** What the consumer stores of one event (columns of `site_insights_events`). */
export interface InsightsRow {
  id: string;
  siteId: string;
  type: string;
  at: number;
  url: string;
  urlPath: string;
  displayContext: string;
  siteSection: string | null;
  siteSpace: string | null;
  siteShareKey: string | null;
  space: string | null;
  revision: string | null;
  page: string | null;
  visitorId: string;
  sessionId: string;
  data: Record<string, unknown>;
}

/** Who the events are recorded for: the verified claims of the request (none for a member or an anonymous reader). */
export interface EventSource {
  claims: Record<string, unknown>;
  /** The request's country (Cloudflare's `cf.country`), when known. */
  country?: string | null;
  now?: number;
}

/** The fields of an event besides the common ones: what its type adds (query, feedback, link, ...). */
function ownFields(event: SiteInsightsEvent): Record<string, unknown> {
  const { type: _type, session: _session, location: _location, timestamp: _timestamp, ...own } = event;
  return own;
}

function utmOf(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['source', 'medium', 'campaign', 'term', 'content']) {
    const value = url.searchParams.get(`utm_${name}`);
    if (value) out[`utm${name[0].toUpperCase()}${name.slice(1)}`] = value.slice(0, 256);
  }
  return out;
}

function domainOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}

/** The time of an event: its timestamp when within the tolerance of now (400 otherwise), else now. */
function eventTime(event: SiteInsightsEvent, index: number, now: number): number {
  if (!event.timestamp) return now;
  const at = Date.parse(event.timestamp);
  if (Number.isNaN(at)) throw new ApiError(400, `events[${index}].timestamp is not a date-time`);
  if (Math.abs(at - now) > TIMESTAMP_TOLERANCE_MS) throw new ApiError(400, `events[${index}].timestamp must be within 5 minutes of now`);
  return at;
}

/** Every id a location names must be the site's: a section, a site space, a space of one (400 otherwise). */
function checkLocation(model: SiteModel, event: SiteInsightsEvent, index: number): void {
  const { siteSection, siteSpace, space } = event.location;
  if (siteSection && !model.sections.some((s) => s.id === siteSection)) throw new ApiError(400, `events[${index}].location.siteSection is not a section of this site`);
  if (siteSpace && !model.siteSpaces.some((s) => s.id === siteSpace)) throw new ApiError(400, `events[${index}].location.siteSpace is not a site space of this site`);
  if (space && !model.siteSpaces.some((s) => s.spaceId === space)) throw new ApiError(400, `events[${index}].location.space is not a space of this site`);
}

/** The id of an event: a hash of the site and everything the event says (its time included). */
export async function eventId(siteId: string, event: SiteInsightsEvent, at: number): Promise<string> {
  const { session, location } = event;
  const identity = [siteId, event.type, session.visitorId, session.sessionId, at, location, ownFields(event)];
  return (await sha256Hex(JSON.stringify(identity))).slice(0, 40);
}

const saltedId = async (siteId: string, kind: string, value: string) => (await sha256Hex(`${siteId}\n${kind}\n${value}`)).slice(0, 32);

/** The rows of `events` for `model`'s site (which must be published): 400 for a location that is not the site's. */
export async function toRows(model: SiteModel, events: SiteInsightsEvent[], source: EventSource): Promise<InsightsRow[]> {
  if (!model.site.published) throw new ApiError(400, 'The site is not published: it records no events');
  const tracking = siteSettings(model.site).insights.trackingCookie;
  const now = source.now ?? Date.now();
  const siteId = model.site.id;
  const authenticated = model.site.visibility === 'visitor-auth' || Object.keys(source.claims).length > 0;
  return Promise.all(
    events.map(async (event, index) => {
      checkLocation(model, event, index);
      const at = eventTime(event, index, now);
      let url: URL;
      try {
        url = new URL(event.location.url);
      } catch {
        throw new ApiError(400, `events[${index}].location.url is not a URL`);
      }
      const sessionId = await saltedId(siteId, 'session', event.session.sessionId);
      const visitorId = tracking ? await saltedId(siteId, 'visitor', event.session.visitorId) : sessionId;
      const referrer = event.session.referrer || null;
      const data: Record<string, unknown> = {
        ...ownFields(event),
        ...visitorTraits(event.session.userAgent),
        language: event.session.language ?? null,
        referrer,
        referrerDomain: domainOf(referrer),
        authenticated,
        ...(Object.keys(source.claims).length > 0 && { claims: source.claims }),
        ...(source.country && { country: source.country }),
        ...utmOf(url),
        ...(event.type === 'link_click' && event.link.target.kind === 'url' && { linkDomain: domainOf(String(event.link.target.url ?? '')) }),
      };
      return {
        id: await eventId(siteId, event, at),
        siteId,
        type: event.type,
        at,
        url: url.href,
        urlPath: url.pathname,
        displayContext: event.location.displayContext ?? 'site',
        siteSection: event.location.siteSection,
        siteSpace: event.location.siteSpace,
        siteShareKey: event.location.siteShareKey,
        space: event.location.space,
        revision: event.location.revision,
        page: event.location.page,
        visitorId,
        sessionId,
        data,
      };
    }),
  );
}

/** Splits rows into queue messages under the Queue's size limit. */
function messagesOf(rows: InsightsRow[]): InsightsRow[][] {
  const messages: InsightsRow[][] = [];
  let current: InsightsRow[] = [];
  let size = 0;
  for (const row of rows) {
    const bytes = JSON.stringify(row).length;
    if (current.length > 0 && size + bytes > MAX_MESSAGE_BYTES) {
      messages.push(current);
      current = [];
      size = 0;
    }
    current.push(row);
    size += bytes;
  }
  if (current.length > 0) messages.push(current);
  return messages;
}

/**
 * Sends rows to the consumer on JOBS. Throws when the queue refuses them (the caller answers 503: a reader's
 * events are not kept anywhere else, so the client may send them again; their ids make that harmless).
 */
export async function enqueueRows(env: Pick<Env, 'JOBS'>, rows: InsightsRow[]): Promise<void> {
  if (rows.length === 0) return;
  const bodies = messagesOf(rows).map((events) => ({ body: { id: newId(), type: SITE_INSIGHTS_JOB, payload: { events } } }));
  try {
    for (let i = 0; i < bodies.length; i += 100) await env.JOBS.sendBatch(bodies.slice(i, i + 100));
  } catch (error) {
    console.error(`site insights: ${rows.length} event(s) not queued`, error);
    throw new ApiError(503, 'The events could not be queued: send them again');
  }
}

/** Checks, converts and queues events of a site: what every way in (API, HTML reader, MCP) calls. */
export async function enqueueSiteEvents(env: Pick<Env, 'JOBS'>, model: SiteModel, events: SiteInsightsEvent[], source: EventSource): Promise<number> {
  const rows = await toRows(model, events, source);
  await enqueueRows(env, rows);
  return rows.length;
}

/** For events the server itself notices (an MCP tool call): queued after the answer, never failing it. */
export async function enqueueQuietly(env: Pick<Env, 'JOBS'>, model: SiteModel, events: SiteInsightsEvent[], source: EventSource): Promise<void> {
  try {
    await enqueueSiteEvents(env, model, events, source);
  } catch (error) {
    console.error(`site ${model.site.id}: insights events not recorded`, error);
  }
}
