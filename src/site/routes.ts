import type { Context, MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AppBindings } from '../env';
import { limitByClientIp } from '../middleware/rate-limit';
import { orgHostOf, type OrgHost } from '../services/organizations/hostnames';
import { siteSettings, siteSpaceSettings, settingsForReader } from '../services/sites/settings';
import { verifyVisitorToken } from '../services/sites/visitor-token';
import { siteAssets } from './assets';
import { badRequestPage, notFoundPage } from './layout';
import { receiverIdsOf, recordSiteView, siteViewReceiversQuery } from '../services/integrations/site-views';
import { siteScriptRows, siteScriptsStatement, toSiteIntegrationScript } from '../services/integrations/site-scripts';
import { visitorAccess } from '../services/sites/access';
import { loadSite, orgHostActive, siteIdByBasename, type LoadedSite, type SiteTarget } from './load';
import { isSiteIdSegment, parseSegments } from './structure';
import { shareLinkStatement, targetExpressions } from '../services/sites/visitor-model';
import { serveView, VIEWED_PAGE_HEADER, type SiteRequest, type ViewKind } from './views';
import { edgeLookup, edgeStore } from './edge-cache';

/**
 * The published site as HTML, served from the Worker itself (no client-side framework):
 *
 * - `/s/<siteId>/...`: every published site (see src/site/structure for the URL scheme), with
 *   `/s/<siteId>/llms.txt`, `llms-full.txt`, `sitemap.xml`, `robots.txt`, `~search?q=`, and each page as Markdown at
 *   its URL with `.md`. `/s/<siteId>/~page/<spaceId>/<pageId>` redirects to a page of another site
 *   space (links between spaces).
 * - On an organization's own host (`<hostname>.<SITES_DOMAIN>`, or its custom hostname once verified by DNS:
 *   services/organizations/organizations/hostnames), its default content site at the host root (`siteHostDispatch`), and
 *   nothing else but the site's assets (`/_site/`) and its files' signed downloads (`/files/`): no API, no
 *   integration endpoint, no other site. So the site's cookies there may be scoped to `Path=/`: no other code
 *   of this Worker, and no integration's script, ever receives them.
 * - `/sites/<org>/<basename>/...` (the `urls.published` of sites when SITES_URL is not set) redirect
 *   (301) to `/s/<siteId>/...`.
 * - `/_site/<hash>.css|.js|.svg`: the site-independent stylesheet, script and built-in favicon, immutable.
 *
 * Visitors only: an API token plays no part here. A site opens exactly as the published view does
 * (services/sites/access `visitorAccess`): public and unlisted to anyone; share-link with `?share=`
 * (or `?shareKey=`), kept in an HttpOnly cookie scoped to the site; visitor-auth with `?jwt_token=`,
 * kept likewise until the token expires, a visitor without a valid one being sent to the site's
 * fallback URL. Everything else (unknown, unpublished, refused, a page hidden by its condition) is the
 * same 404 page.
 */

/**
 * Paths of an organization's host that are not its site's pages: the site's assets and its files' signed
 * downloads, served by their own routes (the same on every host). Everything else there is the site.
 */
const SITE_RESOURCES = /^\/(_site|files)\//;

const SHARE_PARAMS = ['share', 'shareKey'] as const;
const TOKEN_PARAM = 'jwt_token';

export interface SiteMount {
  target: SiteTarget;
  /** The URL path of the site's root, without the trailing slash ('' on a hostname). */
  base: string;
  /** Cookie names and path: scoped to the site. */
  cookies: { share: string; token: string; path: string };
}

function mountOf(siteId: string): SiteMount {
  return {
    target: { siteId },
    base: `/s/${encodeURIComponent(siteId)}`,
    cookies: { share: `site_share_${siteId}`, token: `site_token_${siteId}`, path: `/s/${encodeURIComponent(siteId)}/` },
  };
}

/** `Path=/`: nothing but the site is served on its host (see `siteHostDispatch`). */
function hostMount(target: OrgHost): SiteMount {
  return { target, base: '', cookies: { share: 'site_share', token: 'site_token', path: '/' } };
}

// ---------------------------------------------------------------------------------------------
// Responses shared by every view

async function notFound(): Promise<Response> {
  const { css, icon } = await siteAssets();
  return new Response(notFoundPage(css.path, icon.path), { status: 404, headers: plainHeaders('text/html; charset=utf-8') });
}

async function badRequest(message: string): Promise<Response> {
  const { css, icon } = await siteAssets();
  return new Response(badRequestPage(css.path, icon.path, message), { status: 400, headers: plainHeaders('text/html; charset=utf-8') });
}

/** Headers of the pages that say nothing about a site (404, 400): never cached by anyone, never indexed. */
function plainHeaders(type: string): Headers {
  return new Headers({
    'Content-Type': type,
    'Cache-Control': 'no-store',
    'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    'X-Robots-Tag': 'noindex',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
  });
}

function redirect(location: string, status: 301 | 302, cookies: string[] = []): Response {
  const headers = new Headers({ Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
  for (const cookie of cookies) headers.append('Set-Cookie', cookie);
  return new Response(null, { status, headers });
}

function cookie(name: string, value: string, path: string, maxAge?: number): string {
  return `${name}=${encodeURIComponent(value)}; Path=${path}; HttpOnly; Secure; SameSite=Lax${maxAge !== undefined ? `; Max-Age=${Math.max(0, Math.floor(maxAge))}` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// The path below the site's base

/** What a site serves besides its views: its MCP server and its readers' insights events (POST, JSON). */
type MachineKind = 'mcp' | 'insights';
const MACHINE_PATHS: Record<string, MachineKind> = { mcp: 'mcp', insights: 'insights' };

function viewOf(segments: string[]): { kind: ViewKind | MachineKind; segments: string[] } {
  if (segments.length === 2 && segments[0] === '~gitbook' && MACHINE_PATHS[segments[1]]) return { kind: MACHINE_PATHS[segments[1]], segments: [] };
  if (segments.length === 1) {
    const [only] = segments;
    if (only === 'llms.txt') return { kind: 'llms', segments: [] };
    if (only === 'llms-full.txt') return { kind: 'llms-full', segments: [] };
    if (only === 'sitemap.xml') return { kind: 'sitemap', segments: [] };
    if (only === 'robots.txt') return { kind: 'robots', segments: [] };
    if (only === '~search') return { kind: 'search', segments: [] };
  }
  if (segments[0] === '~page') return { kind: 'page-link', segments: segments.slice(1) };
  if (segments[0]?.startsWith('~')) return { kind: 'none', segments };
  const last = segments[segments.length - 1];
  if (last && last.length > 3 && last.endsWith('.md')) return { kind: 'markdown', segments: [...segments.slice(0, -1), last.slice(0, -3)] };
  return { kind: 'page', segments };
}

// ---------------------------------------------------------------------------------------------
// Serving a site

/**
 * Integrations' scripts run in the page's origin, so they load only on an organization's own host, where that
 * origin holds this site and nothing else. Under `/s/<siteId>/` the origin is shared with the API, every other
 * organization's sites and integrations' public endpoints: a script there could fetch another site's pages with
 * the visitor's cookies of that site (share links, visitor tokens: scoped by path, not by origin).
 */
const scriptsOn = (mount: SiteMount) => !('siteId' in mount.target);

/** The URL without the credential parameters: where a visitor is sent once they are kept in cookies. */
function cleanLocation(url: URL): string {
  const clean = new URL(url);
  for (const name of [...SHARE_PARAMS, TOKEN_PARAM]) clean.searchParams.delete(name);
  // One leading slash: a path like `//evil.example/` (a request to `https://host//evil.example/`, possible
  // on an organization's hostname) would otherwise be a Location on another host.
  return `${clean.pathname.replace(/^\/+/, '/')}${clean.search}`;
}

/** The site's fallback URL with `location`, the path the visitor asked for (GitBook's convention). */
function fallbackLocation(site: LoadedSite, url: URL): string | null {
  const fallback = site.model.site.authFallbackUrl;
  if (!fallback) return null;
  try {
    const target = new URL(fallback);
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return null;
    target.searchParams.set('location', cleanLocation(url));
    return target.href;
  } catch {
    return null;
  }
}

/**
 * Serves one request to a site; null when the target is a host no organization serves its site on (the
 * request is then none of the site's business).
 */
export async function serveSite(c: Context<AppBindings>, mount: SiteMount, rawPath: string): Promise<Response | null> {
  const url = new URL(c.req.url);
  const parsed = parseSegments(rawPath);
  if (parsed.kind !== 'ok') {
    // On a host, a path the site refuses is still the site's answer when the host is an organization's.
    if (!('siteId' in mount.target) && !('basename' in mount.target) && !(await orgHostActive(c.get('db'), mount.target))) return null;
    return parsed.kind === 'bad' ? badRequest('The address cannot be read.') : notFound();
  }
  const queryShare = SHARE_PARAMS.map((name) => url.searchParams.get(name)).find((v) => v) ?? undefined;
  const queryToken = url.searchParams.get(TOKEN_PARAM) || undefined;
  const cookieShare = getCookie(c, mount.cookies.share) || undefined;
  const cookieToken = getCookie(c, mount.cookies.token) || undefined;
  // An MCP client carries a visitor-auth site's token as a bearer (it keeps no cookie).
  const bearerToken = isMachinePath(rawPath) ? /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '')?.[1] : undefined;
  const credentials = { shareKey: (queryShare ?? cookieShare)?.slice(0, 256), token: queryToken ?? bearerToken ?? cookieToken };
  // A visitor without credentials of the site may be answered from the edge cache, before any D1 read.
  const credentialFree = !queryShare && !queryToken && !cookieShare && !cookieToken && !bearerToken;
  const edge = await edgeLookup(c, url, credentialFree);
  if (edge?.hit) {
    noteView(c, edge.hit.response, edge.hit.siteId, edge.hit.receivers);
    return edge.hit.response;
  }

  // Read in the same first batch: the integrations that receive its page views, integrations' scripts where the
  // origin is the site's alone (`scriptsOn`), and whether the first segment is a share key of the site (GitBook's
  // form of a share link, `<site>/<key>/<page>`, which works where a query string is dropped).
  const db = c.get('db');
  const withScripts = scriptsOn(mount);
  const segmentKey = !credentials.shareKey && parsed.segments[0] ? parsed.segments[0].slice(0, 256) : undefined;
  const siteOfTarget = targetExpressions(mount.target).site;
  const { site: loaded, hostKnown, extra } = await loadSite<unknown[]>(db, mount.target, credentials, [
    siteViewReceiversQuery(db, siteOfTarget),
    ...(withScripts ? [siteScriptsStatement(db, siteOfTarget)] : []),
    ...(segmentKey ? [shareLinkStatement(db, siteOfTarget, segmentKey)] : []),
  ]);
  if (!hostKnown) return null;
  if (!loaded) return isMachinePath(rawPath) ? machineNotFound() : notFound();
  const keyed = segmentKey !== undefined && loaded.model.site.visibility === 'share-link' && (extra.at(-1) as unknown[]).length > 0;
  const site = keyed ? { ...loaded, access: await visitorAccess(loaded.model, true, { ...credentials, shareKey: segmentKey }) } : loaded;
  if (keyed) mount = { ...mount, base: `${mount.base}/${encodeURIComponent(segmentKey!)}` };
  const view = viewOf(keyed ? parsed.segments.slice(1) : parsed.segments);
  if (view.kind === 'none') return notFound();
  const machine = view.kind === 'mcp' || view.kind === 'insights';
  // Only the machine paths take a body; every other path of a site is read with GET or HEAD.
  if (!machine && c.req.method !== 'GET' && c.req.method !== 'HEAD') return methodNotAllowed();
  const { model } = site;

  // A machine refused reads as an unknown site too, in JSON: no fallback redirect, no HTML.
  if (!site.access && machine) return machineNotFound();
  if (!site.access) {
    // A visitor-auth site sends visitors without a valid token to its fallback URL (once published);
    // a stale cookie is dropped either way.
    const clear = [
      ...(cookieToken ? [cookie(mount.cookies.token, '', mount.cookies.path, 0)] : []),
      ...(cookieShare && !queryShare ? [cookie(mount.cookies.share, '', mount.cookies.path, 0)] : []),
    ];
    if (model.site.published && model.site.visibility === 'visitor-auth') {
      const fallback = fallbackLocation(site, url);
      if (fallback) return redirect(fallback, 302, clear);
    }
    const response = await notFound();
    for (const value of clear) response.headers.append('Set-Cookie', value);
    return response;
  }

  // Credentials given in the URL move to cookies scoped to the site, and the URL loses them (a machine keeps them).
  if (!machine && (queryShare !== undefined || queryToken !== undefined)) {
    const set: string[] = [];
    if (queryShare !== undefined && model.site.visibility === 'share-link' && site.access.shareKey) {
      set.push(cookie(mount.cookies.share, site.access.shareKey, mount.cookies.path));
    }
    if (queryToken !== undefined) {
      const payload = await verifyVisitorToken(queryToken, model.site.authKey);
      const exp = typeof payload?.exp === 'number' ? payload.exp : 0;
      if (payload) set.push(cookie(mount.cookies.token, queryToken, mount.cookies.path, exp - Date.now() / 1000));
    }
    return redirect(cleanLocation(url), 302, set);
  }

  const reader = site.access.reader;
  const siteDefaults = siteSettings(model.site);
  const request: SiteRequest = {
    c,
    db: c.get('db'),
    env: c.env,
    url,
    mount,
    model,
    reader,
    claimed: Object.keys(reader.claims).length > 0,
    settingsFor: (row) => settingsForReader(row ? siteSpaceSettings(model.site, row, siteDefaults) : siteDefaults, reader.claims),
    notFound,
    badRequest,
    // Relative URLs: the script is served under `/_site/` of the page's own host.
    scripts: withScripts ? siteScriptRows(extra[1]).map((row) => toSiteIntegrationScript('', row)) : [],
    ...(edge ? { edge: { stale: edge.stale } } : {}),
  };
  if (view.kind === 'mcp') {
    const [{ serveMcp }, { recordServerEvent }] = await Promise.all([import('./mcp'), import('./insights')]);
    return serveMcp(request, () => recordServerEvent(request, { type: 'mcp_request' }));
  }
  if (view.kind === 'insights') return (await import('./insights')).serveReaderEvents(request);
  const receivers = receiverIdsOf(extra[0]);
  // Kept for visitors without credentials only: what one with credentials was answered is never theirs to read.
  let served = await serveView(request, view.kind, view.segments);
  // A path with no page: the site's redirects (loaded only then).
  if (served.status === 404 && view.kind === 'page') served = (await (await import('./redirect')).siteRedirect(request, view.segments, redirect)) ?? served;
  const response = edgeStore(c, url, served, credentialFree, model.site.id, receivers);
  if ((view.kind === 'llms' || view.kind === 'markdown') && response.status === 200 && c.req.method === 'GET') {
    // What agents read of the site: insights events, queued after the answer (an answer from the edge cache records none).
    const { recordServerEvent } = await import('./insights');
    recordServerEvent(request, view.kind === 'llms' ? { type: 'llms_request', llmsVariant: 'standard' } : { type: 'page_markdown_request' });
  }
  noteView(c, response, model.site.id, receivers);
  return response;
}

/**
 * A page view served (200, GET) is a `site_view` event for the integrations that receive the site's views
 * (services/integrations/site-views.ts), recorded after the answer. The viewed page's header never leaves.
 */
function noteView(c: Context<AppBindings>, response: Response, siteId: string, receivers: string[]): void {
  const viewed = response.headers.get(VIEWED_PAGE_HEADER);
  if (viewed === null) return;
  response.headers.delete(VIEWED_PAGE_HEADER);
  if (receivers.length === 0 || c.req.method !== 'GET' || response.status !== 200) return;
  const [siteSpaceId, spaceId, pageId] = viewed.split(' ');
  const record = recordSiteView(c.env, c.get('db'), receivers, { siteId, siteSpaceId, spaceId, pageId }, c.req.raw);
  try {
    c.executionCtx.waitUntil(record);
  } catch {
    // No execution context (a direct call of the app): the record runs on, unawaited.
  }
}

// ---------------------------------------------------------------------------------------------
// Routes

async function serveAsset(c: Context<AppBindings>) {
  const { css, js, icon } = await siteAssets();
  const asset = [css, js, icon].find((a) => a.path === c.req.path);
  if (!asset) return notFound();
  return new Response(asset.body, {
    headers: {
      // An SVG opened on its own is a document: nothing in it may run or load.
      ...(asset === icon && { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox" }),
      'Content-Type': asset.type,
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      ETag: `"${asset.path.slice(7, 23)}"`,
    },
  });
}

/** `/sites/<org>/<basename>/<rest>` -> `/s/<siteId>/<rest>` (the query kept): the published URLs of the API. */
async function redirectPublished(c: Context<AppBindings>) {
  const { orgId, basename } = c.req.param() as { orgId: string; basename: string };
  if (orgId.length > 128 || basename.length > 128) return notFound();
  const siteId = await siteIdByBasename(c.get('db'), orgId, basename);
  if (!siteId) return notFound();
  const url = new URL(c.req.url);
  // What follows the raw (still encoded) organization and basename segments.
  const rest = url.pathname.replace(/^\/sites\/[^/]*\/[^/]*/, '');
  return redirect(`/s/${encodeURIComponent(siteId)}${rest || '/'}${url.search}`, 301);
}

/** The paths of a site that take a POST (MACHINE_PATHS), from the raw path below the site's mount. */
const isMachinePath = (rawPath: string) => /\/~gitbook\/(mcp|insights)\/?$/.test(rawPath);

function machineNotFound() {
  return new Response(JSON.stringify({ error: { code: 404, message: 'Site not found' } }), {
    status: 404,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
  });
}

function methodNotAllowed() {
  return new Response('Method not allowed', { status: 405, headers: { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' } });
}

async function serveSitePath(c: Context<AppBindings>) {
  const siteId = c.req.param('siteId') ?? '';
  if (!isSiteIdSegment(siteId)) return notFound();
  const url = new URL(c.req.url);
  // What follows the raw (still encoded) id segment.
  const rest = url.pathname.replace(/^\/s\/[^/]*/, '');
  if (rest === '') return redirect(`/s/${siteId}/${url.search}`, 301);
  return (await serveSite(c, mountOf(siteId), rest)) ?? notFound();
}

type SiteHandler = (c: Context<AppBindings>) => Response | Promise<Response>;

/**
 * The site's routes, in the order they match (`ALL` last: every other method of a site's path is refused). They are
 * the `site` route group (`siteRouter`), and app.ts serves each with its handler here straight from its own match of
 * the same (method, path) (`siteRouteHandler`): a page view makes no group app, no second route match and no second
 * context (the group app's dispatch was a cold isolate's first published page's, issue 42 item 7).
 */
const SITE_ROUTES: ReadonlyArray<readonly [method: string, path: string, handler: SiteHandler]> = [
  ['GET', '/_site/:file', serveAsset],
  ['GET', '/sites/:orgId/:basename', redirectPublished],
  ['GET', '/sites/:orgId/:basename/*', redirectPublished],
  ['GET', '/s', () => notFound()],
  ['GET', '/s/', () => notFound()],
  ['GET', '/s/:siteId', serveSitePath],
  ['GET', '/s/:siteId/*', serveSitePath],
  ['POST', '/s/:siteId/*', (c) => (isMachinePath(c.req.path) ? serveSitePath(c) : methodNotAllowed())],
  ['ALL', '/s/:siteId', methodNotAllowed],
  ['ALL', '/s/:siteId/*', methodNotAllowed],
];

export const siteRouter = new Hono<AppBindings>();
for (const [method, path, handler] of SITE_ROUTES) siteRouter.on(method, path, handler);

/** The site's handler of the route (`method`, `path`) of the route manifest, if it is one of the site's. */
export function siteRouteHandler(method: string, path: string): SiteHandler | undefined {
  return SITE_ROUTES.find(([m, p]) => m === method && p === path)?.[2];
}

/** The visitor rate limit (by client address) of a request the site answers; /v1 paths are not counted by it otherwise. */
async function limitVisitor(c: Context<AppBindings>): Promise<void> {
  if (c.req.path.startsWith('/v1/')) await limitByClientIp(c, async () => undefined);
}

/**
 * An organization's host serves its default content site and nothing else: every path but the site's
 * assets and files (`SITE_RESOURCES`) is the site's (a page, or its 404), whatever the method; the API,
 * `/integrations/*`, `/openapi.json`, `/docs`, `/sso`, `/s/<other site>` are never reached there.
 *
 * Which hosts are an organization's is decided first from the Host alone (services/organizations/organizations/hostnames
 * `orgHostOf`): the deployment's own hosts, localhost and IP addresses cost nothing; a label under
 * SITES_DOMAIN is always the site's (an unknown label is a 404); any other host of three labels or more may
 * be a verified custom hostname, which the site's first batch tells (or one lookup, off the GET paths of pages):
 * when it is not, the request goes on to the API as on any host.
 */
export const siteHostDispatch: MiddlewareHandler<AppBindings> = async (c, next) => {
  const target = orgHostOf(new URL(c.req.url).hostname, c.env);
  if (!target || SITE_RESOURCES.test(c.req.path)) return next();
  const isPage = (c.req.method === 'GET' || c.req.method === 'HEAD') && !c.req.path.startsWith('/v1/');
  if ('customHostname' in target) {
    if (isPage) {
      const response = await serveSite(c, hostMount(target), new URL(c.req.url).pathname);
      if (!response) return next();
      await limitVisitor(c);
      return response;
    }
    if (!(await orgHostActive(c.get('db'), target))) return next();
  }
  await limitVisitor(c);
  const machinePost = c.req.method === 'POST' && isMachinePath(c.req.path);
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !machinePost) return notFound();
  return (await serveSite(c, hostMount(target), new URL(c.req.url).pathname)) ?? notFound();
};
