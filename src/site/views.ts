import type { Context } from 'hono';
import { runBatch, type BatchItem, type Db } from '../db/client';
import type { AppBindings, Env } from '../env';
import { ApiError } from '../lib/errors';
import { publishedSpecPath } from '../lib/openapi-specs';
import { sha256Hex } from '../lib/ids';
import type { CustomizationContentRef, SiteCustomizationSettings } from '../schemas/site-customization';
import { createSigner, downloadUrl } from '../services/content/files';
import type { ContentRef } from '../services/markdown/document';
import { defaultHrefFor } from '../services/markdown/hrefs';
import type { SiteReader } from '../services/sites/access';
import type { FileEntry } from '../services/content/revisions';
import type { SiteModel, SiteSpaceRow } from '../services/sites/model';
import { mergePageCsp, serializeCsp, type CspDirectives, type SiteIntegrationScript } from '../services/integrations/site-scripts';
import { siteAssets, cspHash } from './assets';
import { navigationTree, pageBodyOf, pageStatement, readPageBody, readTrees, visiblePages, type SitePage, type SpaceTree } from './content';
import { renderPage, renderSearch, type Chrome, type SearchResult } from './layout';
import type { RenderedFile } from './render/document';
import type { SiteMount } from './routes';
import { firstListed, resolvePath, siteStructure, type SiteSpaceNode, type SiteStructureView } from './structure';
import { themeCss } from './theme';
import { EDGE_VERSION_HEADER, type EdgeStale } from './edge-cache';

/**
 * The views of a site the visitor may open (src/site/routes decided that): pages as HTML and as
 * Markdown, llms.txt and llms-full.txt, sitemap.xml, robots.txt, search, and links to pages of other site spaces.
 *
 * Cost and caching: the site's model (the first round trip, in routes) holds every site space's head
 * revision, so a version of everything a response depends on (site row, structure, heads, claims,
 * assets, the period of file URLs) is known before any content is read: it is the ETag (a 304 costs
 * that one round trip) and, for sites anyone may read, part of the key of the response in the Cache API
 * (a hit costs that one round trip too; a changed site or head is another key, so nothing stale is
 * served). Otherwise a page costs two more: its space's tree, then its document with what it includes.
 * Before all that, a visitor without credentials may be answered by the edge cache (edge-cache.ts), keyed by the
 * URL alone, with no D1 round trip, for a bounded time after the answer was made.
 */

export type ViewKind = 'page' | 'markdown' | 'llms' | 'llms-full' | 'sitemap' | 'robots' | 'search' | 'page-link' | 'none';

export interface SiteRequest {
  c: Context<AppBindings>;
  db: Db;
  env: Env;
  url: URL;
  mount: SiteMount;
  model: SiteModel;
  reader: SiteReader;
  /** The visitor carries claims (a visitor token): what they see may differ from anyone else's. */
  claimed: boolean;
  settingsFor(row: SiteSpaceRow | null): SiteCustomizationSettings;
  notFound(): Promise<Response>;
  badRequest(message: string): Promise<Response>;
  /** Integrations' scripts the pages load (with relative URLs: served on the page's own origin). */
  scripts: SiteIntegrationScript[];
  /**
   * Set when the edge cache was read for this request (routes.ts, edge-cache.ts): its entry for the URL stands in
   * for the versioned one here, so that a view makes one Cache API lookup and at most one store. `stale`: that
   * entry, past its freshness bound, served when it was made for the site's version.
   */
  edge?: { stale: EdgeStale | null };
}

/** Bumped when the markup changes in a way the version would not otherwise show. */
const RENDER_VERSION = 2;
/** File URLs in pages are signed for a period of this length, at least as long again before they expire. */
export const FILE_PERIOD_MS = 30 * 60 * 1000;
/** How long the Cache API keeps a response (its key changes with the version anyway). */
const EDGE_TTL_SECONDS = 600;
const CACHE_ORIGIN = 'https://site-cache.invalid';

const HTML = 'text/html; charset=utf-8';

/**
 * Set on the answer of a page (`<siteSpaceId> <spaceId> <pageId>`), kept with it in the cache: which page was
 * viewed, for its `site_view` event. routes.ts removes it before the answer leaves.
 */
export const VIEWED_PAGE_HEADER = 'X-Site-Viewed-Page';

interface Output {
  body: string;
  type: string;
  status?: number;
  /** The page a page view shows (`VIEWED_PAGE_HEADER`). */
  viewed?: string;
  /** Inline styles' hashes, for the Content-Security-Policy. */
  styleHashes?: string[];
}

// ---------------------------------------------------------------------------------------------
// URLs

class SiteUrls {
  constructor(
    readonly base: string,
    readonly origin: string,
  ) {}

  /** The root of a site space ('/s/<id>/' for the default one). */
  siteSpace(node: SiteSpaceNode): string {
    return `${this.base}/${node.path ? `${node.path}/` : ''}`;
  }

  page(node: SiteSpaceNode, path: string): string {
    const encoded = path.split('/').filter(Boolean).map(encodeURIComponent).join('/');
    return `${this.base}/${[node.path, encoded].filter(Boolean).join('/')}`;
  }

  markdown(node: SiteSpaceNode, path: string): string {
    return `${this.page(node, path)}.md`;
  }

  pageLink(spaceId: string, pageId: string): string {
    return `${this.base}/~page/${encodeURIComponent(spaceId)}/${encodeURIComponent(pageId)}`;
  }

  absolute(path: string): string {
    return `${this.origin}${path}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Serving with ETag, Cache-Control and the Cache API

function shareable(request: SiteRequest): boolean {
  const visibility = request.model.site.visibility;
  return (visibility === 'public' || visibility === 'unlisted') && !request.claimed;
}

async function versionOf(request: SiteRequest, kind: ViewKind): Promise<string> {
  const { model } = request;
  const { authKey: _secret, ...site } = model.site;
  const assets = await siteAssets();
  const spaces = [...model.spaces.values()].map(({ space }) => [space.id, space.revisionId, space.title, space.language, space.updatedAt]);
  const parts = [
    RENDER_VERSION,
    kind,
    assets.css.path,
    assets.js.path,
    assets.icon.path,
    site,
    model.groups,
    model.sections,
    model.siteSpaces,
    spaces,
    request.reader.claims,
    Math.floor(Date.now() / FILE_PERIOD_MS),
    request.url.origin,
    request.mount.base,
    // Only when there are some: the version (and the ETag) of a site without scripts is what it was before them.
    ...(request.scripts.length > 0 ? [request.scripts] : []),
  ];
  return (await sha256Hex(JSON.stringify(parts))).slice(0, 32);
}

function headersFor(request: SiteRequest, out: Output, etag: string): Headers {
  const visibility = request.model.site.visibility;
  const headers = new Headers({
    'Content-Type': out.type,
    ETag: etag,
    Vary: 'Cookie',
    'Cache-Control': shareable(request) ? 'public, max-age=60' : 'private, no-cache',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
  });
  if (visibility !== 'public') headers.set('X-Robots-Tag', 'noindex');
  if (out.type.startsWith('text/html')) {
    // Our own script and stylesheet, the theme's inline stylesheet by its hash, and what the integrations whose
    // scripts the page loads declared (services/integrations/site-scripts `mergePageCsp`; nothing without them).
    const page: CspDirectives = new Map([
      ['default-src', ["'none'"]],
      ['style-src', ["'self'", ...(out.styleHashes ?? [])]],
      ['script-src', ["'self'"]],
      ['img-src', ["'self'", 'https:', 'data:']],
      ['base-uri', ["'none'"]],
      ['form-action', ["'self'"]],
      ['frame-ancestors', ["'none'"]],
      ['connect-src', ["'self'"]], // the reader's own insights events and page feedback (src/site/insights.ts)
    ]);
    headers.set('Content-Security-Policy', serializeCsp(mergePageCsp(page, request.scripts)));
  }
  return headers;
}

const matches = (header: string | undefined, etag: string) =>
  !!header && header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);

function cacheApi(): Cache | null {
  try {
    return (globalThis as { caches?: { default?: Cache } }).caches?.default ?? null;
  } catch {
    return null;
  }
}

export async function serveView(request: SiteRequest, kind: ViewKind, segments: string[]): Promise<Response> {
  if (kind === 'page-link') return pageLink(request, segments);
  if (kind === 'sitemap' && request.model.site.visibility !== 'public') return request.notFound();
  const version = await versionOf(request, kind);
  const etag = `"${version}"`;
  const cacheable = shareable(request) && kind !== 'search';
  if (matches(request.c.req.header('If-None-Match'), etag)) {
    const headers = headersFor(request, { body: '', type: 'text/plain' }, etag);
    headers.delete('Content-Type');
    headers.delete('Content-Security-Policy');
    return new Response(null, { status: 304, headers });
  }
  // A request the edge cache was read for (routes.ts, edge-cache.ts) has its entry for the URL stand in for the
  // versioned one: the view then makes one Cache API lookup and at most one store (routes.ts `edgeStore`), and its
  // entry past the freshness bound is served when it was made for this version.
  const edge = request.edge;
  const cache = cacheable && !edge ? cacheApi() : null;
  const key = cache && new Request(`${CACHE_ORIGIN}/${encodeURIComponent(request.model.site.id)}/${version}${request.url.pathname}${request.url.search}`);
  const stored = edge ? (cacheable && edge.stale?.version === version ? edge.stale : null) : cache && key ? await cache.match(key).catch(() => undefined) : null;
  if (stored) {
    const headers = new Headers(stored.headers);
    headers.set('Cache-Control', 'public, max-age=60');
    headers.set('X-Site-Cache', 'hit');
    // Anyone may be served it: the edge cache (edge-cache.ts) may keep it, keyed by its URL alone.
    if (stored.status === 200) headers.set(EDGE_VERSION_HEADER, version);
    return new Response(stored.body, { status: stored.status, headers });
  }
  const out = await produce(request, kind, segments);
  if (out instanceof Response) return out;
  const headers = headersFor(request, out, etag);
  if (out.viewed) headers.set(VIEWED_PAGE_HEADER, out.viewed);
  const status = out.status ?? 200;
  if ((edge ? cacheable : cache) && status === 200) {
    if (cache && key) {
      const kept = new Headers(headers);
      kept.set('Cache-Control', `public, max-age=${EDGE_TTL_SECONDS}`);
      const put = cache.put(key, new Response(out.body, { status, headers: kept })).catch(() => undefined);
      try {
        request.c.executionCtx.waitUntil(put);
      } catch {
        await put;
      }
    }
    headers.set('X-Site-Cache', 'miss');
    headers.set(EDGE_VERSION_HEADER, version);
  }
  return new Response(out.body, { status, headers });
}

async function produce(request: SiteRequest, kind: ViewKind, segments: string[]): Promise<Output | Response> {
  const view = siteStructure(request.model, request.reader);
  const urls = new SiteUrls(request.mount.base, request.url.origin);
  switch (kind) {
    case 'robots':
      return robots(request, urls);
    case 'llms':
      return llms(request, view, urls);
    case 'llms-full':
      return llmsFull(request, view, urls);
    case 'sitemap':
      return sitemap(request, view, urls);
    case 'search':
      return search(request, view, urls);
    case 'page':
    case 'markdown':
      return page(request, view, urls, segments, kind === 'markdown');
    default:
      return request.notFound();
  }
}

// ---------------------------------------------------------------------------------------------
// Chrome: what every HTML page of the site has around its content

function langOf(node: SiteSpaceNode | null, settings: SiteCustomizationSettings): string {
  const lang = node?.space.language || settings.internationalization?.locale || 'en';
  return /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(lang) ? lang : 'en';
}

async function chromeFor(
  request: SiteRequest,
  view: SiteStructureView,
  urls: SiteUrls,
  current: { siteSpace: SiteSpaceNode; section: SiteStructureView['items'][number] | null } | null,
  linkPage: (spaceId: string | undefined, pageId: string, anchor?: string) => string | null,
  noindex: boolean,
): Promise<{ chrome: Chrome; styleHashes: string[] }> {
  const settings = request.settingsFor(current?.siteSpace.row ?? null);
  const assets = await siteAssets();
  const css = themeCss(settings);
  const siteTitle = settings.title || request.model.site.title;
  const chrome: Chrome = {
    siteTitle,
    settings,
    lang: langOf(current?.siteSpace ?? null, settings),
    home: `${urls.base}/`,
    searchUrl: `${urls.base}/~search`,
    view,
    current: current ? { siteSpace: current.siteSpace, section: current.section?.kind === 'section' ? current.section : null } : null,
    siteSpaceUrl: (node) => urls.siteSpace(node),
    linkUrl: (ref) => customizationLink(ref, view, urls, linkPage),
    assets: { css: assets.css.path, js: assets.js.path, icon: assets.icon.path },
    themeCss: css,
    noindex: noindex || request.model.site.visibility !== 'public',
    scripts: request.scripts,
  };
  return { chrome, styleHashes: [await cspHash(css)] };
}

function siteSpaceOfSpace(view: SiteStructureView, spaceId: string): SiteSpaceNode | undefined {
  return view.siteSpaces.find((s) => s.space.id === spaceId && s.listed) ?? view.siteSpaces.find((s) => s.space.id === spaceId);
}

function customizationLink(
  ref: CustomizationContentRef | null | undefined,
  view: SiteStructureView,
  urls: SiteUrls,
  linkPage: (spaceId: string | undefined, pageId: string, anchor?: string) => string | null,
): string | null {
  if (!ref) return null;
  switch (ref.kind) {
    case 'url':
      return ref.url;
    case 'space': {
      const node = siteSpaceOfSpace(view, ref.space);
      return node ? urls.siteSpace(node) : null;
    }
    case 'page':
      return linkPage(ref.space, ref.page);
    case 'anchor':
      return linkPage(ref.space, ref.page, ref.anchor);
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Pages

/** Signed URLs of a page's files, valid for the current file period and at least as long again. */
async function signFiles(env: Env, origin: string, files: Map<string, FileEntry>): Promise<Map<string, RenderedFile>> {
  const out = new Map<string, RenderedFile>();
  if (files.size === 0) return out;
  const period = Math.floor(Date.now() / FILE_PERIOD_MS) * FILE_PERIOD_MS;
  let sign: ReturnType<typeof createSigner>;
  try {
    sign = createSigner(env);
    await Promise.all(
      [...files.values()].map(async (file) => {
        const url = await downloadUrl(env, origin, file, period, sign);
        out.set(file.id, { url, name: file.name, contentType: file.contentType, size: file.size, ...(file.dimensions && { dimensions: file.dimensions }) });
      }),
    );
  } catch (error) {
    // Downloads not configured (no signing key): files show as their names.
    if (!(error instanceof ApiError)) throw error;
  }
  return out;
}

/**
 * Where the Markdown of a page computed from a spec links the spec: its published document, served on the
 * API's origin (this request's, unless the site is served on an organization's host, which serves nothing
 * but the site: then API_URL's). None for a private spec, or when that origin is unknown: the page itself.
 */
function specHref(request: SiteRequest, tree: SpaceTree, slug: string): string | null {
  if (!tree.specs.get(slug)?.public) return null;
  const origin = request.mount.base ? request.url.origin : configuredOrigin(request.env.API_URL);
  return origin ? `${origin}${publishedSpecPath(request.model.site.orgId, slug)}` : null;
}

function configuredOrigin(url: string | undefined): string | null {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
}

/** The Markdown writer, loaded by the first `.md` page or llms-full.txt: an HTML page never evaluates it. */
const markdownWriter = () => import('../services/markdown/to-markdown');
/**
 * The document renderer (hastscript, hast-util-sanitize, hast-util-to-html and property-information's tables, which
 * it builds on evaluation), loaded by the first HTML page rendered: an answer from the edge cache, a 404, a redirect,
 * llms.txt, a sitemap or a `.md` page never evaluates it (build-worker.mjs SITE_ON_DEMAND).
 */
const documentRenderer = () => import('./render/document');
/** The site's search (services/search's query words and index), loaded by the first `~search`. */
const searchOfSite = () => import('./search');

type LinkPage = (spaceId: string | undefined, pageId: string, anchor?: string) => string | null;

/** Where the links of a page's Markdown go: absolute URLs of the site (pages, files, specs), as a reader outside it needs. */
function markdownHrefs(request: SiteRequest, urls: SiteUrls, tree: SpaceTree, linkPage: LinkPage, files: Map<string, RenderedFile>, pageUrl: string) {
  return (ref: ContentRef): string => {
    if (ref.kind === 'page' || ref.kind === 'anchor') {
      const anchor = ref.kind === 'anchor' ? ref.anchor : undefined;
      const href = ref.page ? linkPage(ref.space, ref.page, anchor) : anchor ? `#${anchor}` : null;
      return href ? (href.startsWith('/') ? urls.absolute(href) : href) : defaultHrefFor(ref);
    }
    if (ref.kind === 'file') return files.get(ref.file)?.url ?? defaultHrefFor(ref);
    if (ref.kind === 'openapi') return specHref(request, tree, ref.spec) ?? urls.absolute(pageUrl);
    return defaultHrefFor(ref);
  };
}

async function page(request: SiteRequest, view: SiteStructureView, urls: SiteUrls, segments: string[], markdown: boolean): Promise<Output | Response> {
  const resolved = resolvePath(view, segments);
  // The default section (or site space) is not for this visitor, or has no pages: the first one they may see.
  const root = segments.length === 0 && (resolved.kind === 'none' || resolved.siteSpace.empty);
  if (resolved.kind === 'none' || root) {
    const first = root ? firstListed(view) : undefined;
    if (first && !first.empty && !markdown) return new Response(null, { status: 302, headers: { Location: urls.siteSpace(first), 'Cache-Control': 'private, no-cache' } });
    return request.notFound();
  }
  const node = resolved.siteSpace;
  const { trees } = await readTrees(request.db, [{ spaceId: node.space.id, revisionId: node.space.revisionId }]);
  const tree = trees.get(node.space.id)!;
  const pages = visiblePages(tree.pages, request.reader.claims);
  const wanted = resolved.pagePath.join('/');
  const current = wanted ? pages.find((p) => p.path === wanted) : pages.find((p) => !p.hidden);
  if (!current || (markdown && !wanted)) return request.notFound();

  const body = await readPageBody(request.db, tree, current.page);
  const files = await signFiles(request.env, request.url.origin, body.files);
  const byId = new Map(pages.map((p) => [p.page.id, p]));
  const linkPage = (spaceId: string | undefined, pageId: string, anchor?: string): string | null => {
    if (spaceId && spaceId !== node.space.id) {
      const other = siteSpaceOfSpace(view, spaceId);
      return other ? `${urls.pageLink(spaceId, pageId)}${anchor ? `#${encodeURIComponent(anchor)}` : ''}` : null;
    }
    const target = byId.get(pageId);
    if (!target) return null;
    return `${urls.page(node, target.path)}${anchor ? `#${encodeURIComponent(anchor)}` : ''}`;
  };

  if (markdown) {
    const hrefFor = markdownHrefs(request, urls, tree, linkPage, files, urls.page(node, current.path));
    const frontmatter = current.page.description ? { description: current.page.description } : undefined;
    const { documentToMarkdown } = await markdownWriter();
    return { body: documentToMarkdown(body.document, { title: current.page.title, frontmatter, hrefFor }), type: 'text/markdown; charset=utf-8' };
  }

  const { RESERVED_IDS, renderDocument } = await documentRenderer();
  const rendered = await renderDocument(body.document, {
    pageUrl: (ref) => (ref.page ? linkPage(ref.space, ref.page, ref.anchor) : ref.anchor ? `#${encodeURIComponent(ref.anchor)}` : null),
    pageTitle: (ref) => (!ref.space || ref.space === node.space.id ? (byId.get(ref.page)?.page.title ?? null) : null),
    file: (id) => files.get(id) ?? null,
    reservedIds: [...RESERVED_IDS, 'theme-toggle', 'outline-title'],
  });
  const listed = pages.filter((p) => !p.hidden);
  const index = listed.findIndex((p) => p.page.id === current.page.id);
  const noindex = !!(current.page.noIndex || current.page.noRobotsIndex);
  const { chrome, styleHashes } = await chromeFor(request, view, urls, { siteSpace: node, section: resolved.section }, linkPage, noindex);
  const html = renderPage(chrome, {
    title: current.page.title,
    description: current.page.description,
    page: current,
    nav: navigationTree(tree.pages, request.reader.claims),
    pageUrl: (path) => urls.page(node, path),
    body: rendered.html,
    outline: rendered.outline,
    previous: index > 0 ? listed[index - 1] : undefined,
    next: index >= 0 && index < listed.length - 1 ? listed[index + 1] : undefined,
    markdownUrl: urls.markdown(node, current.path),
    // The first page is also the site space's root: its own URL is the canonical one.
    canonical: urls.absolute(urls.page(node, current.path)),
    edit: editLinkOf(chrome.settings, node.space.gitSync, current.page.git),
  });
  return { body: html, type: HTML, styleHashes, viewed: `${node.row.id} ${node.space.id} ${current.page.id}` };
}

/**
 * Where a page's "Edit on GitHub" link leads, as GitBook's renderer builds it: the space's `gitSync.url` (the
 * repository tree URL Git Sync was given) and the path of the page's file from the repository's root. None
 * unless the customization asks for it (`git.showEditLink`) and the page was read from a repository.
 */
export function editLinkOf(
  settings: SiteCustomizationSettings,
  gitSync: { url?: string; installationProvider?: string } | null | undefined,
  git: { path: string } | undefined,
): { url: string; provider: string } | undefined {
  if (!settings.git?.showEditLink || !gitSync?.url || !git?.path) return undefined;
  const path = git.path.split('/').map(encodeURIComponent).join('/');
  return { url: `${gitSync.url.replace(/\/+$/, '')}/${path}`, provider: gitSync.installationProvider ?? 'github' };
}

/** `/~page/<spaceId>/<pageId>`: the URL of a page of another site space, found in its tree. */
async function pageLink(request: SiteRequest, segments: string[]): Promise<Response> {
  if (segments.length !== 2) return request.notFound();
  const [spaceId, pageId] = segments;
  const view = siteStructure(request.model, request.reader);
  const node = siteSpaceOfSpace(view, spaceId);
  if (!node) return request.notFound();
  const urls = new SiteUrls(request.mount.base, request.url.origin);
  const { trees } = await readTrees(request.db, [{ spaceId, revisionId: node.space.revisionId }]);
  const target = visiblePages(trees.get(spaceId)!.pages, request.reader.claims).find((p) => p.page.id === pageId);
  if (!target) return request.notFound();
  return new Response(null, { status: 302, headers: { Location: urls.page(node, target.path), 'Cache-Control': 'private, no-cache' } });
}

// ---------------------------------------------------------------------------------------------
// Machine views

function robots(request: SiteRequest, urls: SiteUrls): Output {
  const body =
    request.model.site.visibility === 'public'
      ? `User-agent: *\nAllow: /\n\nSitemap: ${urls.absolute(`${urls.base}/sitemap.xml`)}\n`
      : 'User-agent: *\nDisallow: /\n';
  return { body, type: 'text/plain; charset=utf-8' };
}

/** The listed site spaces with their trees (one round trip for all). */
async function listedTrees(request: SiteRequest, view: SiteStructureView): Promise<Array<{ node: SiteSpaceNode; tree: SpaceTree }>> {
  const nodes = view.siteSpaces.filter((s) => s.listed);
  const unique = [...new Map(nodes.map((n) => [n.space.id, { spaceId: n.space.id, revisionId: n.space.revisionId }])).values()];
  const { trees } = await readTrees(request.db, unique);
  return nodes.map((node) => ({ node, tree: trees.get(node.space.id)! }));
}

function siteSpaceHeading(view: SiteStructureView, node: SiteSpaceNode): string {
  const variants = node.section ? (view.siteSpaces.filter((s) => s.section?.id === node.section!.id && s.listed).length > 1 ? node.title : '') : '';
  if (node.section) return variants ? `${node.section.title} (${variants})` : node.section.title;
  return node.title;
}

/**
 * Text on one line of llms.txt: every line break (\r, \n, U+2028...) and control character a space, so a
 * title cannot start a line of its own (a heading, a link of its own making).
 */
const oneLine = (text: string) => text.replace(/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
/** Text of a Markdown link: on one line, its brackets (and backslashes) escaped so none ends it (`](javascript:...)`). */
const linkText = (text: string) => oneLine(text).replace(/[\\[\]]/g, '\\$&');

async function llms(request: SiteRequest, view: SiteStructureView, urls: SiteUrls): Promise<Output> {
  const settings = request.settingsFor(null);
  const title = oneLine(settings.title || request.model.site.title);
  const lines = [`# ${title}`, ''];
  for (const { node, tree } of await listedTrees(request, view)) {
    // llms.txt lists links under `##` sections; a section named like the site (its only space, most often) would
    // read as the title twice: it is the site's pages.
    const heading = oneLine(siteSpaceHeading(view, node));
    lines.push(`## ${heading === title ? 'Pages' : heading}`, '');
    for (const p of visiblePages(tree.pages, request.reader.claims).filter((p) => !p.hidden)) {
      const title = linkText(p.page.title);
      const description = p.page.description ? `: ${oneLine(p.page.description)}` : '';
      lines.push(`- [${title}](${urls.absolute(urls.markdown(node, p.path))})${description}`);
    }
    lines.push('');
  }
  return { body: `${lines.join('\n').trimEnd()}\n`, type: 'text/plain; charset=utf-8' };
}

/** At most this many pages, and about this many characters, in llms-full.txt; llms.txt lists them all. */
const LLMS_FULL_MAX_PAGES = 1000;
const LLMS_FULL_MAX_CHARS = 5_000_000;
/** Page documents read per round trip for llms-full.txt. */
const LLMS_FULL_BATCH = 50;

/**
 * llms-full.txt: the Markdown of every page llms.txt lists, in its order, each as its `.md` URL serves it (the same
 * converter, the same absolute links), without the front matter (one document, not many). One round trip for the
 * trees, then one per LLMS_FULL_BATCH pages; past LLMS_FULL_MAX_PAGES pages or LLMS_FULL_MAX_CHARS characters it
 * ends with a line saying so, and where the rest is.
 */
async function llmsFull(request: SiteRequest, view: SiteStructureView, urls: SiteUrls): Promise<Output> {
  const { documentToMarkdown } = await markdownWriter();
  const entries: Array<{ node: SiteSpaceNode; tree: SpaceTree; page: SitePage; byId: Map<string, SitePage> }> = [];
  for (const { node, tree } of await listedTrees(request, view)) {
    const pages = visiblePages(tree.pages, request.reader.claims);
    const byId = new Map(pages.map((p) => [p.page.id, p]));
    for (const page of pages) if (!page.hidden) entries.push({ node, tree, page, byId });
  }
  const chunks: string[] = [];
  let size = 0;
  let cut = false;
  const kept = entries.slice(0, LLMS_FULL_MAX_PAGES);
  for (let start = 0; start < kept.length && !cut; start += LLMS_FULL_BATCH) {
    const batch = kept.slice(start, start + LLMS_FULL_BATCH);
    const stored = batch.filter((e) => !e.page.page.generated && e.page.page.document);
    const results = stored.length ? ((await runBatch(request.db, stored.map((e) => pageStatement(request.db, e.tree.revisionId, e.page.page.document!) as unknown as BatchItem))) as unknown[]) : [];
    const resultOf = new Map(stored.map((e, i) => [e, results[i]]));
    for (const entry of batch) {
      const { node, tree, page, byId } = entry;
      const body = await pageBodyOf(page.page, tree.meta, resultOf.get(entry) ?? null);
      const files = await signFiles(request.env, request.url.origin, body.files);
      const linkPage: LinkPage = (spaceId, pageId, anchor) => {
        const hash = anchor ? `#${encodeURIComponent(anchor)}` : '';
        if (spaceId && spaceId !== node.space.id) return siteSpaceOfSpace(view, spaceId) ? `${urls.pageLink(spaceId, pageId)}${hash}` : null;
        const target = byId.get(pageId);
        return target ? `${urls.page(node, target.path)}${hash}` : null;
      };
      const hrefFor = markdownHrefs(request, urls, tree, linkPage, files, urls.page(node, page.path));
      const markdown = documentToMarkdown(body.document, { title: page.page.title, hrefFor }).trimEnd();
      if (size + markdown.length > LLMS_FULL_MAX_CHARS && chunks.length > 0) {
        cut = true;
        break;
      }
      chunks.push(markdown);
      size += markdown.length;
    }
  }
  if (cut || entries.length > kept.length) {
    chunks.push(`The rest of this site's pages are left out of this file; llms.txt lists them all: ${urls.absolute(`${urls.base}/llms.txt`)}`);
  }
  return { body: chunks.length ? `${chunks.join('\n\n')}\n` : '', type: 'text/plain; charset=utf-8' };
}

const xmlEscape = (text: string) => text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch]!);

async function sitemap(request: SiteRequest, view: SiteStructureView, urls: SiteUrls): Promise<Output> {
  const locations = new Set<string>();
  for (const { node, tree } of await listedTrees(request, view)) {
    for (const p of visiblePages(tree.pages, request.reader.claims)) {
      if (p.hidden || p.page.noIndex || p.page.noRobotsIndex) continue;
      locations.add(urls.absolute(urls.page(node, p.path)));
    }
  }
  const entries = [...locations].map((loc) => `  <url><loc>${xmlEscape(loc)}</loc></url>`);
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}${entries.length ? '\n' : ''}</urlset>\n`;
  return { body, type: 'application/xml; charset=utf-8' };
}

// ---------------------------------------------------------------------------------------------
// Search

async function search(request: SiteRequest, view: SiteStructureView, urls: SiteUrls): Promise<Output | Response> {
  const query = (request.url.searchParams.get('q') ?? '').slice(0, 10_000);
  // No space's tree is read here: a customization link to a page goes through `~page`, which finds the
  // page in its space's tree when followed (and answers 404 for a page the visitor may not open). A
  // page named without its space is one of the site's default site space, as on the site's home.
  const home = resolvePath(view, []);
  const homeNode = home.kind === 'page' ? home.siteSpace : firstListed(view);
  const linkPage = (spaceId: string | undefined, pageId: string, anchor?: string): string | null => {
    const node = spaceId ? siteSpaceOfSpace(view, spaceId) : homeNode;
    return node ? `${urls.pageLink(node.space.id, pageId)}${anchor ? `#${encodeURIComponent(anchor)}` : ''}` : null;
  };
  const { chrome, styleHashes } = await chromeFor(request, view, urls, null, linkPage, true);
  const listed = view.siteSpaces.filter((s) => s.listed);
  let results: SearchResult[] | null = null;
  if (query.trim() !== '') {
    try {
      const { siteSearch } = await searchOfSite();
      const found = await siteSearch(request.db, query, listed, request.reader.claims);
      results = found.map((hit) => {
        const node = siteSpaceOfSpace(view, hit.spaceId)!;
        const url = urls.page(node, hit.path);
        return {
          title: hit.title,
          url,
          ancestors: [...(listed.length > 1 ? [node.title] : []), ...hit.ancestors],
          sections: hit.sections.map((s) => ({ title: s.title, url: s.anchor ? `${url}#${encodeURIComponent(s.anchor)}` : url, body: s.body })),
        };
      });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      return { body: renderSearch(chrome, query.slice(0, 100), null, error.message), type: HTML, status: 400, styleHashes };
    }
  }
  return { body: renderSearch(chrome, query, results), type: HTML, styleHashes };
}

