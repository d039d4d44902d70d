import { and, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { integrationInstallations, integrations, integrationSiteInstallations } from '../../db/schema';
import type { AppBindings } from '../../env';
import { createRouter } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { apiBaseOf, apiEndpointOf, line, ownerQuery, readScriptSecrets, scriptEnvironment, scriptTarget, recordInvocation } from '../../services/integrations/delivery';
import { eventPayload } from '../../services/integrations/event-payload';
import { insertEvent } from '../../services/integrations/events';
import { coveredSpacesSql } from '../../services/integrations/installations';
import { NO_LOADER_MESSAGE, runIntegrationFetch, type FetchAnswer, type TraceLine } from '../../services/integrations/runtime';
import { siteScriptRows, siteScriptTargetQuery, type SiteScriptRow } from '../../services/integrations/site-scripts';
import { orgHostOf, servedOnHostSql } from '../../services/organizations/hostnames';

/**
 * A site installation's script (services/integrations/site-scripts.ts): `GET /_site/integrations/<installationId>/
 * <siteId>/script.js`, no token (a published page's visitors load it), on the API's origin and on an
 * organization's own host alike (`/_site/` is served there too), so a page on that host loads it as `'self'`.
 *
 * - Served only for an installation that has a script on that site (`eligibleSql`: `site:script:inject` asked and
 *   approved, a working installation covering the site, the site published); anything else is the same 404, so
 *   nobody can run an installation's handler for a site it has no script on, nor learn which ids exist.
 * - On an organization's own host, only for that organization's sites: there a script is same-origin with the
 *   organization's pages and passes their `script-src 'self'`, so another organization's script is a 404 on it,
 *   whatever its ids (`servedOnHostSql`).
 * - A miss runs the installation's `fetch_published_script` handler in its isolate (GitBook's event
 *   `{eventId, type: 'fetch_published_script', installationId, siteId}`, the environment with the site
 *   installation and its configuration), records the call as an integration event of that type with the handler's
 *   console as its trace (after the answer), and answers the handler's body with its `Content-Type` and
 *   `Cache-Control`. The body must be JavaScript (a `Content-Type` of a JavaScript type) and at most
 *   `MAX_SITE_SCRIPT_BYTES`; a handler that fails, throws, answers >= 300 or anything else: 502, naming why (never
 *   what it threw: the publisher reads that in the event's trace). No Worker Loader: 503.
 * - Caching: the answer is kept in the Cache API for as long as the handler's `Cache-Control` allows a shared
 *   cache to keep it (at most a day, nothing for `private`, `no-store`, `no-cache` or no max-age), under a key
 *   holding the integration's version and the installation's and site installation's last change, so a new version
 *   or configuration is never served stale. The eligibility read still runs on every request (one round trip): an
 *   uninstalled script or a withdrawn consent stops at once. A hit runs no isolate and issues no tokens.
 * - Every answer carries `X-Content-Type-Options: nosniff` and a sandboxing Content-Security-Policy: opened as a
 *   document on this origin, the script's text can run nothing.
 */
export const MAX_SITE_SCRIPT_BYTES = 1024 * 1024;
const MAX_CACHE_SECONDS = 24 * 60 * 60;
const CACHE_ORIGIN = 'https://site-scripts.invalid';
const ID = /^[A-Za-z0-9_-]{1,128}$/;
const JAVASCRIPT = /^(application|text)\/(javascript|ecmascript|x-javascript)\s*(;.*)?$/i;
/** A header value we pass on: printable ASCII only. */
const HEADER_VALUE = /^[\x20-\x7e]{1,256}$/;
const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; sandbox" };

type ScriptContext = Context<AppBindings>;

const notFound = () => new ApiError(404, 'No integration script for this site');

/** The eligibility check and what running the handler needs, in one round trip. */
async function loadScript(c: ScriptContext, installationId: string, siteId: string) {
  if (!ID.test(installationId) || !ID.test(siteId)) throw notFound();
  const db = c.get('db');
  const installationIntegration = sql`(select integration_id from integration_installations where id = ${installationId})`;
  const [eligible, integrationRows, ownerRows, installationRows, ownRows] = await db.batch([
    siteScriptTargetQuery(db, installationId, siteId, servedOnHostSql(orgHostOf(new URL(c.req.url).hostname, c.env), sql.raw('s.org_id'))),
    db.select().from(integrations).where(sql`${integrations.id} = ${installationIntegration}`),
    ownerQuery(db, sql`(select owner_org_id from integrations where id = ${installationIntegration})`),
    db.select({ installation: integrationInstallations, spaces: coveredSpacesSql }).from(integrationInstallations).where(eq(integrationInstallations.id, installationId)),
    db
      .select({ status: integrationSiteInstallations.status, configuration: integrationSiteInstallations.configuration, externalIds: integrationSiteInstallations.externalIds })
      .from(integrationSiteInstallations)
      .where(and(eq(integrationSiteInstallations.installationId, installationId), eq(integrationSiteInstallations.siteId, siteId))),
  ]);
  const row = siteScriptRows(eligible)[0];
  const integration = integrationRows[0];
  const covered = installationRows[0];
  const owner = ownerRows[0];
  if (!row || !integration?.scriptKey || !covered || !owner) throw notFound();
  return { row, integration, owner, scriptKey: integration.scriptKey, installation: covered.installation, installationSpaces: covered.spaces, own: ownRows[0] };
}

/** Seconds a shared cache may keep the answer by its `Cache-Control` (0: not at all). */
function sharedMaxAge(cacheControl: string | null): number {
  if (!cacheControl) return 0;
  const value = cacheControl.toLowerCase();
  if (/(^|[\s,])(private|no-store|no-cache)([\s,=]|$)/.test(value)) return 0;
  const match = /(?:^|[\s,])s-maxage\s*=\s*(\d+)/.exec(value) ?? /(?:^|[\s,])max-age\s*=\s*(\d+)/.exec(value);
  return match ? Math.min(Number(match[1]), MAX_CACHE_SECONDS) : 0;
}

function cacheApi(): Cache | null {
  try {
    return (globalThis as { caches?: { default?: Cache } }).caches?.default ?? null;
  } catch {
    return null;
  }
}

const cacheKey = (row: SiteScriptRow) =>
  new Request(`${CACHE_ORIGIN}/${encodeURIComponent(row.installationId)}/${encodeURIComponent(row.siteId)}/${row.version}/${encodeURIComponent(row.changedAt)}`);

/** The handler's answer as a script, or why it cannot be one. */
function scriptOf(answer: FetchAnswer): { ok: true; type: string; cacheControl: string | null; body: Uint8Array } | { ok: false; reason: string } {
  if (answer.status < 200 || answer.status >= 300) return { ok: false, reason: `answered ${answer.status}` };
  const header = (name: string) => answer.headers.find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
  const type = header('content-type');
  if (!type || !JAVASCRIPT.test(type) || !HEADER_VALUE.test(type)) return { ok: false, reason: `answered the Content-Type ${JSON.stringify((type ?? 'none').slice(0, 100))}, not JavaScript` };
  if (answer.body.byteLength > MAX_SITE_SCRIPT_BYTES) return { ok: false, reason: `answered a script larger than ${MAX_SITE_SCRIPT_BYTES} bytes` };
  const cacheControl = header('cache-control');
  return { ok: true, type, cacheControl: cacheControl && HEADER_VALUE.test(cacheControl) ? cacheControl : null, body: answer.body };
}

async function runHandler(c: ScriptContext, loaded: Awaited<ReturnType<typeof loadScript>>) {
  const { row, integration, installation } = loaded;
  if (!c.env.LOADER) throw new ApiError(503, NO_LOADER_MESSAGE);
  const apiEndpoint = apiEndpointOf(c.env);
  const stored = { type: 'fetch_published_script', installationId: installation.id, siteId: row.siteId };
  const record = insertEvent(c.get('db'), { integrationId: integration.id, installationId: installation.id, orgId: installation.orgId, payload: stored }, new Date().toISOString());
  const payload = eventPayload(record.id, stored, apiBaseOf(apiEndpoint));
  const label = `fetch_published_script for site ${row.siteId}`;
  const fail = (reason: string, lines: TraceLine[], detail = reason): never => {
    recordInvocation(c.env, c.executionCtx, record, { type: 'fetch_published_script', ok: false, lines: [...lines, line('error', `${label}: the script ${detail}`)] });
    throw new ApiError(502, `The integration's script ${reason}`);
  };
  let keys;
  try {
    keys = await readScriptSecrets(c.env, integration, installation);
  } catch (error) {
    if (error instanceof ApiError) throw error; // no INTEGRATIONS_KEY: its own 503, naming the secret
    return fail('could not be run: its secrets could not be read', []);
  }
  const environment = await scriptEnvironment(c.env, c.get('db'), {
    apiEndpoint,
    appUrl: c.env.APP_URL,
    integration,
    owner: loaded.owner,
    installation,
    installationSpaces: loaded.installationSpaces,
    payload,
    ...(loaded.own ? { siteInstallation: loaded.own } : {}),
    ...keys,
  });
  const result = await runIntegrationFetch(c.env, scriptTarget(integration, loaded.scriptKey), payload, environment, new URL(apiEndpoint).origin, null);
  if (!result.ok) return fail(result.failure, result.logs, result.detail);
  const script = scriptOf(result.answer);
  if (!script.ok) return fail(script.reason, result.logs);
  recordInvocation(c.env, c.executionCtx, record, { type: 'fetch_published_script', ok: true, lines: [...result.logs, line('info', `${label}: the script ${result.detail}`)] });
  return script;
}

async function serveSiteScript(c: ScriptContext): Promise<Response> {
  const loaded = await loadScript(c, c.req.param('installationId') ?? '', c.req.param('siteId') ?? '');
  const cache = cacheApi();
  const key = cacheKey(loaded.row);
  const head = c.req.method === 'HEAD';
  const hit = cache ? await cache.match(key).catch(() => undefined) : undefined;
  if (hit) {
    const headers = new Headers(hit.headers);
    const original = headers.get('x-script-cache-control');
    headers.delete('x-script-cache-control');
    if (original) headers.set('Cache-Control', original);
    headers.set('X-Site-Script-Cache', 'hit');
    return new Response(head ? null : hit.body, { status: 200, headers });
  }
  const script = await runHandler(c, loaded);
  const headers = new Headers({ 'Content-Type': script.type, ...SECURITY_HEADERS });
  if (script.cacheControl) headers.set('Cache-Control', script.cacheControl);
  const ttl = sharedMaxAge(script.cacheControl);
  if (cache && ttl > 0) {
    const stored = new Headers(headers);
    stored.set('Cache-Control', `public, max-age=${ttl}`);
    stored.set('x-script-cache-control', script.cacheControl!);
    const put = cache.put(key, new Response(script.body, { headers: stored })).catch(() => undefined);
    c.executionCtx.waitUntil(put);
    headers.set('X-Site-Script-Cache', 'miss');
  }
  return new Response(head ? null : script.body, { status: 200, headers });
}

export const siteScriptRouter = createRouter().get('/_site/integrations/:installationId/:siteId/script.js', serveSiteScript);
