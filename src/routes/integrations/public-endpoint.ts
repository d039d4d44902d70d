import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { integrationInstallations, integrations, integrationSiteInstallations, integrationSpaceInstallations, sites, spaces } from '../../db/schema';
import type { AppBindings } from '../../env';
import { createRouter } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { INTEGRATION_NAME_PATTERN } from '../../schemas/integration';
import { apiBaseOf, apiEndpointOf, line, readScriptSecrets, scriptEnvironment, ownerQuery, scriptTarget, type ContentInstallationRow, type InstallationRow, type ScriptSecrets, recordInvocation } from '../../services/integrations/delivery';
import { eventPayload, withoutCredentials } from '../../services/integrations/event-payload';
import { insertEvent } from '../../services/integrations/events';
import { coveredSpacesSql } from '../../services/integrations/installations';
import { NO_LOADER_MESSAGE, readCapped, runIntegrationFetch, type FetchAnswer, type TraceLine } from '../../services/integrations/runtime';

/**
 * The public endpoints of integrations (their `urls.publicEndpoint`, schemas/integration.ts and
 * schemas/integration-installation.ts): `<origin>/integrations/<name>/public`,
 * `<origin>/integrations/<name>/installations/<id>/public`, and an installation's on one space or site,
 * `.../installations/<id>/spaces/<spaceId>/public` and `.../sites/<siteId>/public` (the space or site
 * installation's `urls.publicEndpoint`: the event carries `spaceId` or `siteId`, and the environment the space or
 * site installation), with any method and any path below them. No API
 * token: they receive what the outside world sends an integration (third-party webhooks, OAuth callbacks), as
 * GitBook's do. Each request runs the integration's current script at once with a GitBook `fetch` event
 * (`{eventId, type: 'fetch', installationId?, request: {url, method, headers}}`, the body as the multipart
 * field `fetch-body`) and the environment events get (tokens, secrets, the installation), and the script's
 * own response is the answer: its status, its headers (filtered, below), its body (at most 5 MiB).
 *
 * The endpoint shares its origin with the API and the published sites, and the script is another organization's
 * code, so what crosses is filtered both ways:
 * - in: the headers that carry credentials of this origin (`CREDENTIAL_HEADERS` of services/integrations/
 *   event-payload: Cookie, Authorization, a visitor's X-Visitor-Token ...) are neither handed to the script nor
 *   stored in the event. A third party authenticates to an integration some other way (a signature header, a
 *   secret in the URL), as webhooks do;
 * - out: hop-by-hop headers and those that would set or clear this origin's state (`Set-Cookie`,
 *   `Clear-Site-Data`) or redirect without a Location (`Refresh`) are dropped. A `Location` is kept when it
 *   leads to another origin (an absolute http(s) URL: an OAuth provider) or stays on this one under a public
 *   endpoint of the same integration (`/integrations/<name>/public...`, `.../installations/<id>/public...`);
 *   anything else (`/v1/...`, `/s/...`, `javascript:`) is dropped. Every answer carries a sandboxing
 *   Content-Security-Policy (a page an integration serves may run script, post forms and open popups, but as
 *   an opaque origin, never as this one) and `X-Content-Type-Options: nosniff`.
 *
 * Errors (`{error: {code, message}}`): an unknown integration or installation (or one of another integration),
 * a space or site the installation does not cover 404; an integration without a script 404; a body over 1 MiB 413; no Worker Loader 503; no INTEGRATIONS_KEY
 * 503 (the script is always given signing secrets); a script that throws, runs out of time, answers more than 5 MiB
 * or cannot be loaded 502, whose message says which and never what the script threw (that may hold its
 * secrets): the publisher reads it in the event's trace.
 *
 * Every request that reached the script is recorded as an integration event of type `fetch` (`success` when it
 * answered below 400, else `failed`) with the script's console as its trace, after the answer (waitUntil), once
 * the work the script passed to its own `waitUntil` settled (its lines come last): its publisher sees it with
 * listIntegrationEvents. Round trips: one read, one token batch, then that write.
 */
export const MAX_PUBLIC_REQUEST_BYTES = 1024 * 1024;

/**
 * Headers of the script's response never sent on: those that describe its hop to us, not the answer (the body
 * is sent decoded, whole), and those that would set or clear this origin's state or redirect without a Location.
 */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'content-encoding',
  'set-cookie',
  'set-cookie2',
  'clear-site-data',
  'refresh',
]);
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
/** Added to every answer: documents run sandboxed (an opaque origin), not as the API's origin. */
const SANDBOX =
  'sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-modals allow-downloads allow-top-navigation-by-user-activation';
const INSTALLATION_ID = /^[A-Za-z0-9]{1,64}$/;

type PublicContext = Context<AppBindings>;

/** A space or site installation's endpoint: which one, by id. */
interface ContentTarget {
  kind: 'space' | 'site';
  id: string;
}

/**
 * The space (site) of `target` with the installation's own row on it, if any: for the caller's batch. Deleted
 * spaces and sites are left out (a deleted space is not covered).
 */
function contentInstallationQuery(c: PublicContext, installationId: string, target: ContentTarget) {
  const db = c.get('db');
  const own = { status: sql<string | null>`si.status`, configuration: sql<string | null>`si.configuration`, externalIds: sql<string | null>`si.external_ids` };
  if (target.kind === 'space') {
    return db
      .select({ orgId: spaces.orgId, ...own })
      .from(spaces)
      .leftJoin(sql`${integrationSpaceInstallations} si`, sql`si.installation_id = ${installationId} and si.space_id = ${spaces.id}`)
      .where(and(eq(spaces.id, target.id), isNull(spaces.deletedAt)));
  }
  return db
    .select({ orgId: sites.orgId, ...own })
    .from(sites)
    .leftJoin(sql`${integrationSiteInstallations} si`, sql`si.installation_id = ${installationId} and si.site_id = ${sites.id}`)
    .where(eq(sites.id, target.id));
}

type ContentRow = { orgId: string; status: string | null; configuration: string | null; externalIds: string | null };

/**
 * The space (site) installation the endpoint is for: the installation's own row on it, or (an installation on all
 * spaces or sites) a space (site) of its organization without one, which `scriptEnvironment` shows with the
 * installation's status and the configuration's defaults. Null when the installation does not cover it.
 */
function coveredContent(installation: InstallationRow, row: ContentRow | undefined, kind: 'space' | 'site'): ContentInstallationRow | 'covered' | null {
  if (!row || row.orgId !== installation.orgId) return null;
  if (row.status !== null) {
    return { status: row.status, configuration: row.configuration ? JSON.parse(row.configuration) : {}, externalIds: row.externalIds ? JSON.parse(row.externalIds) : [] };
  }
  const selection = kind === 'space' ? installation.spaceSelection : installation.siteSelection;
  return selection === 'all' ? 'covered' : null;
}

/** The integration (and installation, and space or site installation) a public endpoint belongs to, in one round trip; 404 when there is none. */
async function loadTarget(c: PublicContext, name: string, installationId: string | undefined, content?: ContentTarget) {
  if (name.length > 100 || !INTEGRATION_NAME_PATTERN.test(name)) throw new ApiError(404, 'No matching integration');
  if (installationId !== undefined && !INSTALLATION_ID.test(installationId)) throw new ApiError(404, 'No matching installation');
  if (content && !INSTALLATION_ID.test(content.id)) throw new ApiError(404, `No matching ${content.kind} installation`);
  const db = c.get('db');
  const ofName = db.select().from(integrations).where(and(eq(integrations.name, name), isNull(integrations.deletedAt)));
  const ofInstallation = (id: string) =>
    db.select({ installation: integrationInstallations, spaces: coveredSpacesSql }).from(integrationInstallations).where(eq(integrationInstallations.id, id));
  const owner = ownerQuery(db, sql`(select owner_org_id from integrations where name = ${name} and deleted_at is null)`);
  const [integrationRows, ownerRows, installationRows, contentRows] = installationId
    ? content
      ? await db.batch([ofName, owner, ofInstallation(installationId), contentInstallationQuery(c, installationId, content)])
      : [...(await db.batch([ofName, owner, ofInstallation(installationId)])), []]
    : [...(await db.batch([ofName, owner])), [], []];
  const integration = integrationRows[0];
  const ownerRow = ownerRows[0];
  if (!integration || !ownerRow) throw new ApiError(404, 'No matching integration');
  const installation = installationRows[0]?.installation ?? null;
  if (installationId && installation?.integrationId !== integration.id) throw new ApiError(404, 'No matching installation of this integration');
  let contentInstallation: ContentInstallationRow | 'covered' | null = null;
  if (content && installation) {
    contentInstallation = coveredContent(installation, contentRows[0] as ContentRow | undefined, content.kind);
    if (!contentInstallation) throw new ApiError(404, `No matching ${content.kind} installation: the installation does not cover this ${content.kind}`);
  }
  if (!integration.scriptKey) throw new ApiError(404, `The integration ${name} has no script to answer requests at its public endpoint`);
  return { integration, owner: ownerRow, installation, installationSpaces: installationRows[0]?.spaces ?? 0, scriptKey: integration.scriptKey, contentInstallation };
}

/** The request's body (null without one); 413 over `MAX_PUBLIC_REQUEST_BYTES`. */
async function requestBody(c: PublicContext): Promise<Blob | null> {
  const request = c.req.raw;
  if (request.method === 'GET' || request.method === 'HEAD' || !request.body) return null;
  const tooLarge = new ApiError(413, `Request body is larger than ${MAX_PUBLIC_REQUEST_BYTES} bytes`);
  if (Number(request.headers.get('content-length')) > MAX_PUBLIC_REQUEST_BYTES) throw tooLarge;
  const bytes = await readCapped(request.body, MAX_PUBLIC_REQUEST_BYTES);
  if (!bytes) throw tooLarge;
  return bytes.byteLength > 0 ? new Blob([bytes], { type: request.headers.get('content-type') ?? '' }) : null;
}

/** This origin as callers reach it: the request's, and API_URL's when set (scripts are told that one). */
function ownOrigins(c: PublicContext): Set<string> {
  const origins = new Set([new URL(c.req.url).origin]);
  if (c.env.API_URL) origins.add(new URL(apiEndpointOf(c.env)).origin);
  return origins;
}

/** Whether a (resolved) path is a public endpoint of the integration, or below one. */
function underPublicEndpoint(pathname: string, integrationName: string): boolean {
  const [empty, integrationsSegment, name, ...rest] = pathname.split('/');
  if (empty !== '' || integrationsSegment !== 'integrations' || name !== encodeURIComponent(integrationName)) return false;
  if (rest[0] !== 'installations') return rest[0] === 'public';
  if (rest.length < 3 || !INSTALLATION_ID.test(rest[1])) return false;
  // `installations/<id>/public`, or `installations/<id>/spaces|sites/<id>/public`
  if (rest[2] === 'public') return true;
  return (rest[2] === 'spaces' || rest[2] === 'sites') && rest.length >= 5 && INSTALLATION_ID.test(rest[3]) && rest[4] === 'public';
}

/**
 * A script's `Location`, or null when it may not be sent: another origin's URL as it is (absolute), over https (or
 * http when this request came over http: a local deployment); on this origin (a path, or a URL of it) only a path
 * under a public endpoint of the same integration, resolved first (so `..`, `%2e%2e` and backslashes cannot climb
 * out) and sent as that path.
 *
 * Redirecting to another origin is intended: OAuth flows send the browser to a provider and back, as GitBook's
 * integrations do from its integrations host. It makes these paths a redirect anyone who publishes an integration
 * can aim, as any OAuth callback host is; what bounds it: the link names the integration (`/integrations/<name>/
 * ...`), the hop never downgrades to http, carries no credentials, never leads to another path of this origin (the
 * API, sites, files, another integration), and the answer sends no Referer (`Referrer-Policy: no-referrer`).
 */
function allowedLocation(value: string, requestUrl: string, origins: Set<string>, integrationName: string): string | null {
  let target: URL;
  try {
    target = new URL(value, requestUrl);
  } catch {
    return null;
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return null;
  if (target.protocol === 'http:' && new URL(requestUrl).protocol === 'https:') return null;
  if (target.username || target.password) return null;
  if (!origins.has(target.origin)) return target.href;
  return underPublicEndpoint(target.pathname, integrationName) ? `${target.pathname}${target.search}${target.hash}` : null;
}

/** The script's answer as this route's response: headers filtered (see the top of this file), security headers added. */
function toResponse(answer: FetchAnswer, method: string, location: (value: string) => string | null): Response {
  const headers = new Headers();
  for (const [name, value] of answer.headers) {
    const lower = name.toLowerCase();
    if (DROPPED_RESPONSE_HEADERS.has(lower)) continue;
    try {
      if (lower !== 'location') headers.append(name, value);
      else {
        const kept = location(value);
        if (kept !== null) headers.set('Location', kept);
      }
    } catch {
      // a name or value no response may carry
    }
  }
  // The endpoint's URL (an OAuth code or state in its query) never goes on to where it redirects.
  if (headers.has('Location')) headers.set('Referrer-Policy', 'no-referrer');
  headers.append('Content-Security-Policy', SANDBOX);
  headers.set('X-Content-Type-Options', 'nosniff');
  const body = method === 'HEAD' || NULL_BODY_STATUSES.has(answer.status) ? null : answer.body;
  return new Response(body, { status: answer.status, headers });
}

async function handlePublicRequest(c: PublicContext, name: string, installationId: string | undefined, content?: ContentTarget): Promise<Response> {
  const { integration, owner, installation, installationSpaces, scriptKey, contentInstallation } = await loadTarget(c, name, installationId, content);
  const fetchBody = await requestBody(c);
  if (!c.env.LOADER) throw new ApiError(503, NO_LOADER_MESSAGE);

  const request = c.req.raw;
  const apiEndpoint = apiEndpointOf(c.env);
  const stored = {
    type: 'fetch',
    ...(installation ? { installationId: installation.id } : {}),
    // GitBook's FetchEvent names the space or site of requests specific to one.
    ...(content ? { [content.kind === 'space' ? 'spaceId' : 'siteId']: content.id } : {}),
    // GitBook's FetchRequest: the method in lower case, the headers as one object.
    request: { url: request.url, method: request.method.toLowerCase(), headers: withoutCredentials(request.headers) },
  };
  const record = insertEvent(
    c.get('db'),
    // The column is nullable: the integration's own endpoint has no installation (NewEvent types it as a string).
    { integrationId: integration.id, installationId: installation?.id ?? (null as unknown as string), orgId: installation?.orgId ?? integration.ownerOrgId, payload: stored },
    new Date().toISOString(),
  );
  const payload = eventPayload(record.id, stored, apiBaseOf(apiEndpoint));
  const label = `${request.method} ${new URL(request.url).pathname}`;
  const fail = (message: string, lines: TraceLine[], detail: string, later?: Promise<TraceLine[]>): never => {
    recordInvocation(c.env, c.executionCtx, record, { type: 'fetch', ok: false, lines: [...lines, line('error', `${label}: the script ${detail}`)], later });
    throw new ApiError(502, `The integration's script ${message}`);
  };

  let keys: ScriptSecrets;
  try {
    keys = await readScriptSecrets(c.env, integration, installation);
  } catch (error) {
    const reason = `was not run: its secrets could not be read: ${error instanceof Error ? error.message : String(error)}`;
    // A deployment without INTEGRATIONS_KEY: its own 503, which names the secret, rather than the script's 502.
    if (error instanceof ApiError) {
      recordInvocation(c.env, c.executionCtx, record, { type: 'fetch', ok: false, lines: [line('error', `${label}: the script ${reason}`)] });
      throw error;
    }
    return fail('could not be run: its secrets could not be read', [], reason);
  }
  // An installation on all spaces (sites) covers one without a row of its own: scriptEnvironment shows it so.
  const own = contentInstallation === 'covered' ? undefined : (contentInstallation ?? undefined);
  const environment = await scriptEnvironment(c.env, c.get('db'), {
    apiEndpoint,
    appUrl: c.env.APP_URL,
    integration,
    owner,
    installation,
    installationSpaces,
    payload,
    ...(content?.kind === 'space' ? { spaceInstallation: own } : content?.kind === 'site' ? { siteInstallation: own } : {}),
    ...keys,
  });
  const result = await runIntegrationFetch(c.env, scriptTarget(integration, scriptKey), payload, environment, new URL(apiEndpoint).origin, fetchBody);
  if (!result.ok) return fail(result.failure, result.logs, result.detail, result.later);
  const ok = result.answer.status < 400;
  recordInvocation(c.env, c.executionCtx, record, { type: 'fetch', ok, lines: [...result.logs, line(ok ? 'info' : 'error', `${label}: the script ${result.detail}`)], later: result.later });
  const origins = ownOrigins(c);
  return toResponse(result.answer, request.method, (value) => allowedLocation(value, request.url, origins, integration.name));
}

export const integrationPublicRouter = createRouter()
  .all('/integrations/:integrationName/public', (c) => handlePublicRequest(c, c.req.param('integrationName'), undefined))
  .all('/integrations/:integrationName/public/*', (c) => handlePublicRequest(c, c.req.param('integrationName'), undefined))
  .all('/integrations/:integrationName/installations/:installationId/public', (c) =>
    handlePublicRequest(c, c.req.param('integrationName'), c.req.param('installationId')),
  )
  .all('/integrations/:integrationName/installations/:installationId/public/*', (c) =>
    handlePublicRequest(c, c.req.param('integrationName'), c.req.param('installationId')),
  )
  .all('/integrations/:integrationName/installations/:installationId/:kind{spaces|sites}/:contentId/public', (c) => handleContentRequest(c))
  .all('/integrations/:integrationName/installations/:installationId/:kind{spaces|sites}/:contentId/public/*', (c) => handleContentRequest(c));

/** A request to the public endpoint of an installation on one space or site. */
function handleContentRequest(c: PublicContext): Promise<Response> {
  const kind = c.req.param('kind') === 'spaces' ? 'space' : 'site';
  return handlePublicRequest(c, c.req.param('integrationName')!, c.req.param('installationId'), { kind, id: c.req.param('contentId')! });
}
