import { ApiError } from '../lib/errors';
import { TrackEventsBodySchema, type SiteInsightsEvent } from '../schemas/site-insights';
import { enqueueQuietly, enqueueSiteEvents } from '../services/insights/events';
import { boundedJson, jsonError } from './machine-body';
import type { SiteRequest } from './views';

/**
 * `POST <site URL>/~gitbook/insights`: the events our HTML reader sends of itself (page views, searches, page
 * feedback: src/site/assets.ts), in GitBook's `trackEventsInSiteById` body, for the site and visitor the request
 * stands for (routes.ts checked the access: the same cookies as the pages). Queued, never written on this request
 * (services/insights/events). On an organization's host this is the only way in: its API is not served there.
 */

/** 100 events of a few hundred bytes each. */
export const MAX_READER_EVENTS_BYTES = 128 * 1024;

function countryOf(request: SiteRequest): string | null {
  const cf = (request.c.req.raw as { cf?: { country?: unknown } }).cf;
  return typeof cf?.country === 'string' ? cf.country : null;
}

export async function serveReaderEvents(request: SiteRequest): Promise<Response> {
  if (request.c.req.method !== 'POST') return jsonError(405, 'Send events with POST', { Allow: 'POST' });
  const body = await boundedJson(request.c.req.raw, MAX_READER_EVENTS_BYTES);
  if (body instanceof Response) return body;
  const parsed = TrackEventsBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return jsonError(400, `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  try {
    await enqueueSiteEvents(request.env, request.model, parsed.data.events, { claims: request.reader.claims, country: countryOf(request) });
  } catch (error) {
    if (error instanceof ApiError) return jsonError(error.status, error.message);
    throw error;
  }
  return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
}

/**
 * An event the server itself notices, for a request no script of ours runs on: a tool call of the site's MCP server
 * (`mcp_request`, display context `mcp`), llms.txt (`llms_request`) and a page's Markdown (`page_markdown_request`),
 * display context `server`. Such clients carry no visitor or session of ours: each request is its own (nothing
 * identifies the agent but the bot name its user agent gives, as `visitorBot`).
 */
export function serverEvent(request: SiteRequest, event: { type: 'mcp_request' | 'llms_request' | 'page_markdown_request'; llmsVariant?: 'standard' | 'full' }): SiteInsightsEvent {
  const id = crypto.randomUUID();
  return {
    ...event,
    session: { visitorId: id, sessionId: id, cookies: {}, userAgent: request.c.req.header('User-Agent')?.slice(0, 1024) ?? '', language: null, referrer: null },
    location: {
      url: request.url.href.slice(0, 2048),
      displayContext: event.type === 'mcp_request' ? 'mcp' : 'server',
      siteSection: null,
      siteSpace: null,
      siteShareKey: null,
      space: null,
      revision: null,
      page: null,
    },
  } as SiteInsightsEvent;
}

/** Queues a server-noticed event after the answer (`waitUntil`): never on the visitor's time, never failing it. */
export function recordServerEvent(request: SiteRequest, event: Parameters<typeof serverEvent>[1]): void {
  const work = enqueueQuietly(request.env, request.model, [serverEvent(request, event)], { claims: request.reader.claims });
  try {
    request.c.executionCtx.waitUntil(work);
  } catch {
    // No execution context (a direct call of the app): the work runs on, unawaited.
  }
}
