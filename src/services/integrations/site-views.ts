import { sql } from 'drizzle-orm';
import { rawAll, rowsOf, type Db } from '../../db/client';
import { constantSelect } from '../../db/constant-select';
import type { Env } from '../../env';
import { sha256Hex } from '../../lib/ids';
import { WORKING_STATUSES_LIST } from './scopes';

/**
 * GitBook's `site_view` event (`SiteViewEvent`): a page of a published site was viewed. Produced when the Worker
 * serves a page of the HTML reader (src/site) with 200, from its cache or not: not for Markdown, llms.txt, search,
 * redirects, 304 revalidations, nor the published-content API (which serves a site's structure, not a page).
 *
 * Receivers: the installations covering the site (on all sites of their organization, or on this one with an active
 * site installation), in a working status, of an integration with a script or a development tunnel, except a
 * version that answered a site_view "not handled" (406, what @gitbook/runtime's `createIntegration` answers when it
 * has no `site_view` handler: recorded in `integrations.unhandled_events` by the delivery, so the next views of that
 * version are not recorded; a new version is asked again). They are read in the site's first batch (no round trip of
 * their own); when there are none, a view costs nothing more.
 *
 * No visitor latency: the events are recorded and queued after the answer (executionCtx.waitUntil), one statement
 * and one queue batch, and delivered by the queue like every event.
 *
 * Volume: at most `SITE_VIEW_EVENTS_PER_MINUTE` per installation and minute (a cap, not sampling: the views after it
 * within the minute are not sent), since every event is a stored row, a queue message and a run of the script.
 *
 * Visitor: what GitBook's `EventVisitor` holds: the address (CF-Connecting-IP), User-Agent, the first language of
 * Accept-Language, the request's cookies but the site's own (`site_share*`, `site_token*`: share keys and visitor
 * tokens, credentials no integration receives), and `anonymousId`, a hash of the site, address, user agent and UTC
 * day (no cookie is set to track visitors).
 */
export const SITE_VIEW_EVENTS_PER_MINUTE = 30;
const SITE_VIEW = 'site_view';
/** Cookies this Worker sets on a site (src/site/routes.ts): credentials, never handed to an integration. */
const SITE_COOKIE = /^site_(share|token)/;
const MAX_COOKIES = 50;
const MAX_FIELD = 2048;

/**
 * For the site's first batch: the installations that receive its views, `site` an SQL expression with `?` for its
 * values (services/sites/visitor-model `targetExpressions`). Constant SQL (db/constant-select), as the rest of that
 * batch: a cold isolate's first page does not build it.
 */
export function siteViewReceiversQuery(db: Db, site: { text: string; params: unknown[] }) {
  return constantSelect(
    db,
    `select ii.id from sites s
      join integration_installations ii on ii.org_id = s.org_id and ii.status in ${WORKING_STATUSES_LIST}
      join integrations i on i.id = ii.integration_id and i.deleted_at is null
      where s.id = ${site.text}
        and (i.script_key is not null or i.dev_tunnel_url is not null)
        -- A visitor's address, user agent and cookies go only where the organization approved \`site:views:read\`
        -- and the integration asks for it (GitBook's scope of site_view events).
        and exists (select 1 from json_each(i.scopes) asked where asked.value = 'site:views:read')
        and exists (select 1 from json_each(ii.approved_scopes) approved where approved.value = 'site:views:read')
        and coalesce(json_extract(i.unhandled_events, '$.site_view'), -1) <> i.version
        and (ii.site_selection = 'all' or exists (select 1 from integration_site_installations si
          where si.installation_id = ii.id and si.site_id = s.id and si.status = 'active'))`,
    site.params,
    (row) => ({ id: row.id as string }),
  );
}

/** The receivers' ids from that statement's batch result. */
export const receiverIdsOf = (result: unknown) => rowsOf<{ id: string }>(result).map((row) => row.id);

export interface SiteView {
  siteId: string;
  siteSpaceId: string;
  spaceId: string;
  pageId: string;
}

const clip = (value: string) => value.slice(0, MAX_FIELD);

/** GitBook's `EventVisitor` of a request (see the top of this file). */
export async function visitorOf(request: Request, siteId: string): Promise<Record<string, unknown>> {
  const ip = request.headers.get('cf-connecting-ip') ?? '';
  const userAgent = clip(request.headers.get('user-agent') ?? '');
  const cookies: Record<string, string> = {};
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    if (Object.keys(cookies).length >= MAX_COOKIES) break;
    const at = part.indexOf('=');
    const name = (at < 0 ? part : part.slice(0, at)).trim();
    if (!name || SITE_COOKIE.test(name) || name === '__proto__') continue;
    cookies[name] = clip(at < 0 ? '' : part.slice(at + 1).trim());
  }
  const language = request.headers.get('accept-language')?.split(',')[0]?.split(';')[0]?.trim();
  const day = new Date().toISOString().slice(0, 10);
  const anonymousId = (await sha256Hex(`${siteId}\n${ip}\n${userAgent}\n${day}`)).slice(0, 32);
  return { anonymousId, cookies, userAgent, ip, ...(language ? { language: clip(language) } : {}) };
}

/**
 * Records one `site_view` event per receiver (within the cap) and queues them: for `waitUntil`, after the answer.
 * Never throws (a view that could not be recorded is logged).
 */
export async function recordSiteView(env: Env, db: Db, receivers: string[], view: SiteView, request: Request): Promise<void> {
  if (receivers.length === 0) return;
  // One statement's bound parameters stay under D1's 100 (an organization has no more installations on one site).
  receivers = receivers.slice(0, 90);
  try {
    // Imported here, not with the module: a published page whose site has no receivers never evaluates it.
    const { enqueueEvents, eventIdsOf, insertEventsPerInstallation } = await import('./events');
    const fields = {
      siteId: view.siteId,
      siteSpaceId: view.siteSpaceId,
      spaceId: view.spaceId,
      pageId: view.pageId,
      visitor: await visitorOf(request, view.siteId),
      url: clip(request.url),
      referrer: clip(request.headers.get('referer') ?? ''),
    };
    const now = new Date();
    const since = new Date(now.getTime() - 60_000).toISOString();
    const insert = insertEventsPerInstallation(
      db,
      SITE_VIEW,
      sql`json_patch(${JSON.stringify(fields)}, json_object('type', ${SITE_VIEW}, 'installationId', ii.id))`,
      sql`from integration_installations ii
        where ii.id in (${sql.join(
          receivers.map((id) => sql`${id}`),
          sql`, `,
        )})
          and (select count(*) from integration_events e where e.integration_id = ii.integration_id and e.created_at > ${since}
            and e.installation_id = ii.id and e.type = ${SITE_VIEW}) < ${SITE_VIEW_EVENTS_PER_MINUTE}`,
      now.toISOString(),
    );
    const [inserted] = await db.batch([insert]);
    await enqueueEvents(env, eventIdsOf(inserted));
  } catch (error) {
    console.error(`site ${view.siteId}: a page view was not recorded for its integrations`, error);
  }
}

/**
 * For the delivery's batch: records that the integration's `version` answered 406 to an event of `type`, for the
 * types whose emission consults it (site_view); null for the others.
 */
export function noteUnhandled(db: Db, integrationId: string, version: number, type: string) {
  if (type !== SITE_VIEW) return null;
  return rawAll(
    db,
    sql`update integrations set unhandled_events = json_set(coalesce(unhandled_events, '{}'), '$.' || ${type}, ${version})
      where id = ${integrationId} and version = ${version} returning id`,
  );
}
