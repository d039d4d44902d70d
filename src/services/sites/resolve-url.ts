import type { Context } from 'hono';
import { decodeJwt } from 'jose';
import type { AppBindings } from '../../env';
import { ApiError } from '../../lib/errors';
import { orgHostOf } from '../organizations/hostnames';
import { loadSite, type LoadedSite, type SiteTarget } from '../../site/load';
import { firstListed, isSiteIdSegment, parseSegments, resolvePath, sectionsOf, siteStructure, type SiteStructureView } from '../../site/structure';
import { issueSiteToken, MAX_SITE_URL } from './site-token';

/**
 * resolvePublishedContentByUrl: a published URL -> the site, section, site space and page path it shows, with a
 * site token for the renderer's later calls. The URL scheme is the HTML site's (src/site/routes, src/site/structure),
 * read with the same code:
 *
 * - on an organization's host (`<label>.<SITES_DOMAIN>`, or its custom hostname once verified) the site is its
 *   default content site at the root; on any other host, `/s/<siteId>/...`, or the sites' `urls.published`
 *   (`<SITES_URL>/<organization>/<basename>/...`, without SITES_URL `/sites/<organization>/<basename>/...`);
 * - below the site's base, `[/<share key>][/<section>][/<site space>][/<page path>]`. The share key is a path
 *   segment in GitBook's URLs (its renderer drops the query before resolving); our reader's `?share=` (or
 *   `?shareKey=`) in the URL is read too, and then no segment is one;
 * - a visitor-auth site opens with `visitor.jwtToken` (or `jwt_token` in the URL); without one, the answer is
 *   GitBook's redirect to the site's fallback URL (`location`: the path asked for); with an invalid one, the same
 *   redirect when `redirectOnError`, else a 401.
 *
 * The page path is not looked up (GitBook's renderer reads the page itself and shows its own 404): resolving costs
 * the site's one round trip (two for a host that may be an unverified custom hostname, then read as `/s/...`).
 * `complete` is false when a further segment could still name a section or site space (no page path yet and the
 * default was taken where others exist): GitBook's renderer resolves every prefix of a URL at once and keeps a
 * complete answer, so an incomplete prefix must say so. Anything the visitor may not open is a 404.
 */

export interface ResolveInput {
  url: string;
  redirectOnError?: boolean;
  visitor?: { type?: 'human' | 'agent'; jwtToken?: string; unsignedClaims?: Record<string, unknown> };
}

/** GitBook's `PublishedSiteContent`. */
export interface ResolvedContent {
  site: string;
  siteSection?: string;
  siteSpace: string;
  space: string;
  organization: string;
  pathname: string;
  basePath: string;
  siteBasePath: string;
  canonicalUrl: string;
  complete: boolean;
  apiToken: string;
  shareKey?: string;
}

/** GitBook's `PublishedContentRedirect`. */
export type ResolvedRedirect = { target: 'content'; redirect: string } | { target: 'external'; site: string; redirect: string };

const SHARE_PARAMS = ['share', 'shareKey'];
const enc = (segments: string[]) => segments.map(encodeURIComponent).join('/');

interface Attempt {
  target: SiteTarget;
  /** The URL path of the site's root, without its trailing slash. */
  base: string;
  /** The raw path below it. */
  rest: string;
}

/**
 * Where the URL's site may be: its host's, and (on a host that may not be an organization's) `/s/<siteId>`,
 * or the form of the sites' `urls.published`.
 */
function attemptsFor(c: Context<AppBindings>, url: URL): Attempt[] {
  const host = orgHostOf(url.hostname, c.env);
  const attempts: Attempt[] = host ? [{ target: host, base: '', rest: url.pathname }] : [];
  if (host && 'hostname' in host) return attempts;
  const match = /^\/s\/([^/]+)(\/.*)?$/.exec(url.pathname);
  if (match && isSiteIdSegment(match[1])) attempts.push({ target: { siteId: match[1] }, base: `/s/${match[1]}`, rest: match[2] ?? '' });
  const published = publishedFormAttempt(c.env.SITES_URL, url);
  if (published) attempts.push(published);
  return attempts;
}

/**
 * `<sites base>/<organization>/<basename>/...`, the sites' `urls.published` (services/sites/present): under
 * SITES_URL on its host when it is set, else under `/sites` on any host (the API's own origin, as the renderer
 * is given it: without its port).
 */
function publishedFormAttempt(sitesUrl: string | undefined, url: URL): Attempt | null {
  let prefix = '/sites';
  if (sitesUrl) {
    const base = URL.canParse(sitesUrl) ? new URL(sitesUrl) : null;
    if (!base || base.hostname !== url.hostname) return null;
    prefix = base.pathname.replace(/\/+$/, '');
  }
  if (!url.pathname.startsWith(`${prefix}/`)) return null;
  const match = /^\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname.slice(prefix.length));
  if (!match) return null;
  const names = parseSegments(`/${match[1]}/${match[2]}`);
  if (names.kind !== 'ok' || names.segments.length !== 2) return null;
  const [orgId, basename] = names.segments;
  if (orgId.length > 128 || basename.length > 128) return null;
  return { target: { orgId, basename }, base: `${prefix}/${match[1]}/${match[2]}`, rest: match[3] ?? '' };
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError(400, 'Invalid body: url: must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ApiError(400, 'Invalid body: url: must be an http or https URL');
  return url;
}

export async function resolvePublishedUrl(c: Context<AppBindings>, input: ResolveInput): Promise<ResolvedContent | ResolvedRedirect> {
  const url = parseUrl(input.url);
  const queryShare = SHARE_PARAMS.map((name) => url.searchParams.get(name)).find((v) => v) || undefined;
  const jwtToken = input.visitor?.jwtToken || url.searchParams.get('jwt_token') || undefined;
  for (const attempt of attemptsFor(c, url)) {
    const parsed = parseSegments(attempt.rest);
    if (parsed.kind === 'bad') throw new ApiError(400, 'Invalid body: url: its path cannot be decoded');
    if (parsed.kind === 'none') break;
    // The share key: the URL's query, else the first segment (the share link query finds whether it is one).
    const shareKey = (queryShare ?? parsed.segments[0])?.slice(0, 256);
    const { site, hostKnown } = await loadSite(c.get('db'), attempt.target, { shareKey, token: jwtToken });
    if (!hostKnown) continue;
    if (!site) break;
    return answer(c, input, url, attempt, site, parsed.segments, { queryShare, shareKey, jwtToken });
  }
  throw new ApiError(404, 'No published content at this URL');
}

async function answer(
  c: Context<AppBindings>,
  input: ResolveInput,
  url: URL,
  attempt: Attempt,
  site: LoadedSite,
  allSegments: string[],
  credentials: { queryShare?: string; shareKey?: string; jwtToken?: string },
): Promise<ResolvedContent | ResolvedRedirect> {
  const { model, access } = site;
  if (!access) return refused(input, url, site, credentials.jwtToken);
  const shareLink = model.site.visibility === 'share-link';
  const keyInPath = shareLink && !credentials.queryShare;
  const segments = keyInPath ? allSegments.slice(1) : allSegments;
  const siteBase = `${attempt.base}${keyInPath ? `/${encodeURIComponent(credentials.shareKey!)}` : ''}`;

  const view = siteStructure(model, access.reader);
  const resolved = resolvePath(view, segments);
  if (resolved.kind === 'none') {
    // The default section is not for this visitor: the first one they may open (as the HTML site does).
    const first = segments.length === 0 ? firstListed(view) : undefined;
    if (first) return { target: 'content', redirect: `${url.origin}${siteBase}/${first.path ? `${first.path}/` : ''}` };
    throw new ApiError(404, 'No published content at this URL');
  }
  const { siteSpace, section, pagePath } = resolved;
  const basePath = `${siteBase}/${siteSpace.path ? `${siteSpace.path}/` : ''}`;
  const { token } = await issueSiteToken(
    c.env,
    {
      kind: 'site',
      organization: model.site.orgId,
      site: model.site.id,
      ...(section && { siteSection: section.row.id }),
      siteSpace: siteSpace.row.id,
      space: siteSpace.space.id,
      spaces: [...new Set(view.siteSpaces.map((s) => s.space.id))],
      claims: access.reader.claims,
      visitorType: input.visitor?.type ?? 'human',
      ...siteUrlClaim(`${url.origin}${attempt.base}${shareLink && credentials.shareKey ? `/${encodeURIComponent(credentials.shareKey)}` : ''}`),
    },
    credentials.jwtToken && model.site.visibility === 'visitor-auth' ? expiryOf(credentials.jwtToken) : undefined,
  );
  return {
    site: model.site.id,
    ...(section && { siteSection: section.row.id }),
    siteSpace: siteSpace.row.id,
    space: siteSpace.space.id,
    organization: model.site.orgId,
    pathname: pagePath.join('/'),
    basePath,
    siteBasePath: `${siteBase}/`,
    canonicalUrl: `${url.origin}${basePath}${enc(pagePath)}`,
    complete: pagePath.length > 0 || !moreToName(view, resolved),
    apiToken: token,
    ...(shareLink && credentials.shareKey && { shareKey: credentials.shareKey }),
  };
}

/**
 * The token's `siteUrl`: the site's root as reached, a share key a segment of it however it was given (the form
 * that resolves without a query). Left out when longer than a token accepts (published URLs are then the site's own).
 */
function siteUrlClaim(root: string): { siteUrl?: string } {
  return root.length <= MAX_SITE_URL ? { siteUrl: root } : {};
}

/** Whether one more segment could still name a section or a site space (each default was taken where others exist). */
function moreToName(view: SiteStructureView, resolved: Extract<ReturnType<typeof resolvePath>, { kind: 'page' }>): boolean {
  const { section, siteSpace } = resolved;
  const sectionOpen = section !== null && section.row.isDefault && sectionsOf(view.items).some((s) => !s.row.isDefault);
  const siblings = section ? section.siteSpaces : view.siteSpaces.filter((s) => s.section === null);
  const siteSpaceOpen = siteSpace.row.isDefault && siblings.some((s) => !s.row.isDefault);
  return sectionOpen || siteSpaceOpen;
}

/** The visitor-auth token's expiry (it was verified by the site's access): the site token never outlives it. */
function expiryOf(jwt: string): number | undefined {
  try {
    const { exp } = decodeJwt(jwt);
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    return undefined;
  }
}

/** A visitor the site refuses: GitBook's redirect to a visitor-auth site's fallback URL, else not found. */
function refused(input: ResolveInput, url: URL, site: LoadedSite, jwtToken: string | undefined): ResolvedRedirect {
  const { model } = site;
  if (!model.site.published || model.site.visibility !== 'visitor-auth') throw new ApiError(404, 'No published content at this URL');
  if (jwtToken && !input.redirectOnError) throw new ApiError(401, 'visitor.jwtToken: invalid or expired for this site (send redirectOnError to be sent to its fallback URL instead)');
  const fallback = fallbackUrl(model.site.authFallbackUrl, url);
  if (!fallback) throw new ApiError(404, 'No published content at this URL');
  return { target: 'external', site: model.site.id, redirect: fallback };
}

function fallbackUrl(fallback: string | null, url: URL): string | null {
  if (!fallback) return null;
  try {
    const target = new URL(fallback);
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return null;
    target.searchParams.set('location', url.pathname.replace(/^\/+/, '/'));
    return target.href;
  } catch {
    return null;
  }
}
