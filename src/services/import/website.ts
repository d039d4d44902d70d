import type { Element, ElementContent, Root as HastRoot, RootContent as HastContent } from 'hast';
import type { Image, Link, Nodes as MdastNodes, Root as MdastRoot } from 'mdast';
import rehypeParse from 'rehype-parse';
import rehypeRemark from 'rehype-remark';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import { badRequest } from '../../lib/errors';
import { checkOutboundUrl, OutboundError, outboundFetch, type FetchFunction, type OutboundEnv } from '../../lib/outbound';
import { MAX_BATCH_MARKDOWN_CHARS, MAX_FILES_PER_BATCH, type ContentChange } from '../content/batch';
import { CAPS } from '../limits/caps';
import { DEEP_MARKDOWN_LINE } from '../content/batch';

/**
 * Website import: crawls a site from one URL and turns its pages into ONE content batch (GitBook's
 * `importContentInChangeRequest` with `source: 'website'`).
 *
 * - Crawl: the page at `url`, then the `<a href>` links of every page (navigation included) that stay
 *   under the same origin and path prefix, breadth first, at most `maxPages` (20) HTML pages, fetched
 *   4 at a time, each through the outbound guard (src/lib/outbound.ts; redirects checked per hop). The
 *   prefix is the start URL's directory: `/docs/` for `/docs/`, `/docs` and `/docs/intro.html`. Links
 *   to files that are obviously not pages (`.pdf`, `.png`, `.zip`, ...) are not followed. A page that
 *   fails (status, type, size, refused redirect) is skipped; only the start page must succeed.
 * - Convert: the page's main content (`<main>`, else `<article>`, else `<body>`) without navigation,
 *   header, footer, scripts, styles and forms goes through rehype-parse -> rehype-remark ->
 *   remark-stringify (with GFM, for tables), and the Markdown is given to the content engine as an
 *   `insert_page` with `document: {markdown}`. The title is the content's first `<h1>`, else the
 *   `<title>` (which often carries the site's name too), else the URL's last segment; as for any
 *   Markdown, a leading `# heading` of the content is the title and leaves the body.
 * - Links between imported pages become refs of the batch (links to pages of the space); every other
 *   link becomes an absolute URL.
 * - Images (`<img src>`, and `data:` URLs) that are PNG, JPEG, GIF or WebP (read from their bytes) of
 *   at most `maxImageBytes` each (the deployment's MAX_FILE_BYTES, which the import route passes; an image
 *   over it is not imported), from any host the guard admits, become files of the batch (`insert_files`
 *   with base64 and a ref; the image points to the ref); at most 40 files and 10 MiB in all, so the
 *   batch stays well under the Durable Object call limit. An image not imported keeps its absolute URL.
 * - Tree: pages nest by URL path: a page goes under the nearest imported page whose path is an
 *   ancestor of its own (`/docs/guide/install` under `/docs/guide`); the start page, and the pages
 *   whose nearest imported ancestor is the start page, are top-level pages (after the change
 *   request's existing ones), so `/docs/` gives "Docs", "Guide" (with "Install" under it), ...
 * - Limits of one content batch: a page's Markdown over 128 Ki characters is skipped (half the
 *   engine's per-page limit: its document must also stay under 1 MiB), and pages stop being added
 *   once the batch would pass 512 Ki characters.
 * - Time: no new page fetch starts after 30 s, no new image fetch after 45 s; each fetch has the
 *   guard's 10 s limit.
 */

export const WEBSITE_IMPORT_LIMITS = {
  maxPages: 20,
  maxFiles: MAX_FILES_PER_BATCH,
  maxPageBytes: 5 * 1024 * 1024,
  /** The default cap on a file's bytes; the route passes the configured one (MAX_FILE_BYTES). */
  maxImageBytes: CAPS.bytesPerFile.fallback as number,
  maxTotalImageBytes: 10 * 1024 * 1024,
  maxPageMarkdownChars: 128 * 1024,
  maxBatchMarkdownChars: MAX_BATCH_MARKDOWN_CHARS,
  concurrency: 4,
  pagesDeadlineMs: 30_000,
  imagesDeadlineMs: 45_000,
};

export type WebsiteImportLimits = typeof WEBSITE_IMPORT_LIMITS;

export interface WebsiteImportOptions {
  limits?: Partial<WebsiteImportLimits>;
  /** A fetch for this import (else the guard's default, which tests replace with `setOutboundFetch`). */
  fetch?: FetchFunction;
  /**
   * Asked before each round of page fetches and before the images (an import run's cancel, services/import/runs):
   * false stops the crawl there with an `ImportStopped`, nothing more fetched.
   */
  stillWanted?: () => Promise<boolean>;
}

/** Thrown when `stillWanted` answered false: the import was stopped (cancelled) before it finished crawling. */
export class ImportStopped extends Error {
  constructor() {
    super('The import was stopped');
  }
}

export interface WebsiteImport {
  /** The content batch: pages (parents first) and at most two `insert_files` changes. */
  changes: ContentChange[];
  /** URLs of the imported pages and images, in batch order. */
  pages: string[];
  files: string[];
  /** Pages and files in the batch. */
  importedResources: number;
  /** Resources found: in-scope page URLs discovered (fetched or not) and distinct images of the fetched pages. */
  totalResources: number;
}

/** Path endings that are not HTML pages: links to them are not followed. */
const NOT_PAGES = /\.(?:pdf|zip|gz|tgz|tar|rar|7z|png|jpe?g|gif|webp|svg|ico|bmp|tiff?|avif|css|js|mjs|map|json|xml|rss|atom|txt|csv|md|mp3|mp4|m4a|webm|ogg|wav|mov|avi|woff2?|ttf|otf|eot|exe|dmg|apk|bin|iso|docx?|xlsx?|pptx?)$/i;
/** Elements that are never main content. */
const DROPPED = new Set([
  'nav',
  'header',
  'footer',
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'form',
  'button',
  'input',
  'select',
  'textarea',
  'dialog',
  'svg',
  'canvas',
  'link',
  'meta',
]);
const IMAGE_EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

const htmlParser = unified().use(rehypeParse);
const toMarkdownTree = unified().use(rehypeRemark);
const stringifier = unified()
  .use(remarkGfm)
  .use(remarkStringify, {
    bullet: '-',
    emphasis: '*',
    strong: '*',
    fence: '`',
    fences: true,
    rule: '-',
    listItemIndent: 'one',
    resourceLink: true,
    // Text that would read back as a GitBook block tag is escaped (as the engine's own writer does).
    unsafe: [{ character: '{', after: String.raw`%[ \t]*(?:(?:end)?(?:hint|file|code|tabs|tab|content-ref|embed|swagger|openapi)|include)\b`, atBreak: true }],
  });

/** A fetched and converted page, before its links and images are rewritten. */
interface CrawledPage {
  url: string;
  title: string;
  markdownTree: MdastRoot;
  images: string[];
}

/** An image ready to upload. */
interface ImportedFile {
  url: string;
  ref: string;
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

/** Crawls the site at `startUrl` and builds the content batch that imports it. */
export async function importWebsite(env: OutboundEnv, startUrl: string, options: WebsiteImportOptions = {}): Promise<WebsiteImport> {
  const limits = { ...WEBSITE_IMPORT_LIMITS, ...options.limits };
  const started = Date.now();
  checkOutboundUrl(env, startUrl, 'url');
  const fetchOptions = { fetch: options.fetch };
  const checkWanted = async () => {
    if (options.stillWanted && !(await options.stillWanted())) throw new ImportStopped();
  };

  // -- crawl, breadth first
  const first = await fetchPage(env, startUrl, limits, fetchOptions, true);
  if (!first.ok) throw badRequest(`url: ${startUrl} ${first.why}`);
  const scope = scopeOf(new URL(first.url));
  /** Page URLs already queued or imported (a requested URL and where it landed). */
  const seen = new Set<string>([pageKey(startUrl), pageKey(first.url)]);
  /** Page resources found: the start page and every in-scope link. */
  let found = 1;
  const pages: CrawledPage[] = [];
  const queue: string[] = [];
  const accept = (url: string, html: string) => {
    const page = convertPage(url, html);
    if (!page) return false;
    pages.push(page.page);
    for (const link of page.links) {
      const target = new URL(link);
      if (seen.has(link) || !inScope(target, scope) || NOT_PAGES.test(target.pathname)) continue;
      seen.add(link);
      found++;
      queue.push(link);
    }
    return true;
  };
  if (!accept(first.url, first.html)) throw badRequest(`url: ${startUrl} could not be converted to Markdown`);
  while (queue.length > 0 && pages.length < limits.maxPages && Date.now() - started < limits.pagesDeadlineMs) {
    await checkWanted();
    const round = queue.splice(0, Math.min(limits.concurrency, limits.maxPages - pages.length));
    const results = await Promise.all(round.map((url) => fetchPage(env, url, limits, fetchOptions, false)));
    for (const result of results) {
      if (!result.ok || pages.length >= limits.maxPages) continue;
      // A redirect may land outside the prefix, or on a page already imported or queued.
      const landed = pageKey(result.url);
      if (landed !== pageKey(result.requested)) {
        if (seen.has(landed) || !inScope(new URL(result.url), scope)) continue;
        seen.add(landed);
      }
      accept(result.url, result.html);
    }
  }

  // -- images of the fetched pages
  const imageUrls = [...new Set(pages.flatMap((p) => p.images))];
  if (imageUrls.length > 0) await checkWanted();
  const files = await fetchImages(env, imageUrls, limits, fetchOptions, started);

  // -- Markdown within the batch limits (links to a page left out become URLs again: re-render until stable)
  const fileRefs = new Map(files.map((f) => [f.url, f.ref]));
  let included = pages;
  let rendered: Array<{ page: CrawledPage; markdown: string; files: Set<string> }> = [];
  for (;;) {
    const refs = new Map(included.map((p, i) => [pageKey(p.url), `import:page:${i + 1}`]));
    rendered = included.flatMap((page) => {
      const output = renderMarkdown(page, refs, fileRefs);
      return output ? [{ page, ...output }] : [];
    });
    let total = 0;
    const fits = rendered.filter(({ markdown }) => {
      if (markdown.length > limits.maxPageMarkdownChars || DEEP_MARKDOWN_LINE.test(markdown)) return false;
      if (total + markdown.length > limits.maxBatchMarkdownChars) return false;
      total += markdown.length;
      return true;
    });
    if (fits.length === included.length) break;
    included = fits.map((r) => r.page);
  }
  if (included.length === 0) throw badRequest(`url: ${startUrl} has no page that fits in one import (${limits.maxPageMarkdownChars} characters of Markdown per page)`);

  // -- the batch: pages parents first, then the files their Markdown refers to
  const refOf = new Map(included.map((p, i) => [p, `import:page:${i + 1}`]));
  const parents = parentsByPath(
    included.map((p) => p.url),
    pages[0].url,
  );
  const byUrl = new Map(included.map((p) => [p.url, p]));
  const order = rendered.map((entry, index) => ({ ...entry, index, depth: depthOf(entry.page.url, parents) })).sort((a, b) => a.depth - b.depth || a.index - b.index);
  const changes: ContentChange[] = order.map(({ page, markdown }) => {
    const parent = parents.get(page.url);
    return {
      operation: 'insert_page',
      ref: refOf.get(page)!,
      title: page.title,
      ...(parent ? { into: refOf.get(byUrl.get(parent)!)! } : {}),
      document: { markdown },
    };
  });
  const usedRefs = new Set(rendered.flatMap((r) => [...r.files]));
  const used = files.filter((f) => usedRefs.has(f.ref));
  for (let i = 0; i < used.length; i += 20) {
    changes.push({
      operation: 'insert_files',
      files: used.slice(i, i + 20).map((f) => ({ ref: f.ref, name: f.name, contentType: f.contentType, base64: toBase64(f.bytes) })),
    });
  }
  return {
    changes,
    pages: order.map(({ page }) => page.url),
    files: used.map((f) => f.url),
    importedResources: included.length + used.length,
    totalResources: found + imageUrls.length,
  };
}

// ---------------------------------------------------------------------------------------------
// Crawling

type FetchedPage = { ok: true; requested: string; url: string; html: string } | { ok: false; why: string };

async function fetchPage(env: OutboundEnv, url: string, limits: WebsiteImportLimits, options: { fetch?: FetchFunction }, start: boolean): Promise<FetchedPage> {
  try {
    const response = await outboundFetch(env, url, { headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' } }, { field: 'url', maxBytes: limits.maxPageBytes, ...options });
    if (!response.ok) return { ok: false, why: `answered ${response.status}` };
    const type = (response.headers.get('content-type') ?? '').toLowerCase();
    const html = decode(response.bytes, type);
    const looksHtml = type.includes('text/html') || type.includes('application/xhtml+xml') || (!type && /^\s*<(?:!doctype html|html|head|body)/i.test(html));
    if (!looksHtml) return { ok: false, why: `is not an HTML page (${type || 'no content type'})` };
    return { ok: true, requested: url, url: response.url, html };
  } catch (error) {
    // The start page's failure is the caller's answer (it names the URL); later pages are skipped.
    if (start && error instanceof OutboundError) throw error;
    if (error instanceof OutboundError) return { ok: false, why: error.message };
    throw error;
  }
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

interface Scope {
  origin: string;
  prefix: string;
  start: string;
}

/** The origin and directory of the start page: `/docs/` for `/docs/`, `/docs` and `/docs/intro.html`. */
function scopeOf(url: URL): Scope {
  const path = url.pathname;
  const last = path.slice(path.lastIndexOf('/') + 1);
  const prefix = path.endsWith('/') ? path : last.includes('.') ? path.slice(0, path.lastIndexOf('/') + 1) : `${path}/`;
  return { origin: url.origin, prefix, start: path };
}

function inScope(url: URL, scope: Scope): boolean {
  return url.origin === scope.origin && (url.pathname === scope.start || url.pathname.startsWith(scope.prefix));
}

/** A page's identity: the URL without its fragment. */
function pageKey(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

// ---------------------------------------------------------------------------------------------
// HTML -> Markdown tree

/** The page converted, with the links it holds; undefined when it cannot be (nested beyond what the converters take). */
function convertPage(url: string, html: string): { page: CrawledPage; links: string[] } | undefined {
  try {
    return convertPageOrThrow(url, html);
  } catch (error) {
    console.warn(`website import: ${url} could not be converted: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

function convertPageOrThrow(url: string, html: string): { page: CrawledPage; links: string[] } {
  const tree = htmlParser.parse(html) as HastRoot;
  const base = baseUrl(tree, url);
  const links: string[] = [];
  walk(tree, (node) => {
    if (node.tagName !== 'a') return;
    const href = absolute(stringProperty(node, 'href'), base);
    if (href && /^https?:$/.test(new URL(href).protocol)) links.push(pageKey(href));
  });
  const content = findElement(tree, 'main') ?? findElement(tree, 'article') ?? findElement(tree, 'body') ?? tree;
  const root: HastRoot = { type: 'root', children: prune(content.children as HastContent[]) as HastRoot['children'] };
  const titleElement = findElement(tree, 'title');
  const h1 = findElement(root, 'h1');
  // The first <h1> of the content is what readers see as the page's title; <title> often adds the site's name.
  const title = collapse(h1 ? textOf(h1) : '') || collapse(titleElement ? textOf(titleElement) : '') || lastSegment(url) || 'Untitled';

  const markdownTree = toMarkdownTree.runSync(root as never) as unknown as MdastRoot;
  const images: string[] = [];
  visitMdast(markdownTree, (node) => {
    if (node.type === 'image' || node.type === 'link') {
      const resolved = absolute(node.url, base);
      if (resolved) node.url = resolved;
      if (node.type === 'image' && resolved) images.push(resolved);
    }
  });
  return { page: { url, title: title.slice(0, 200), markdownTree, images }, links };
}

/** `<base href>` of the document, resolved against its URL. */
function baseUrl(tree: HastRoot, url: string): string {
  const base = findElement(tree, 'base');
  return (base && absolute(stringProperty(base, 'href'), url)) || url;
}

function absolute(href: string | undefined, base: string): string | undefined {
  if (!href) return undefined;
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return undefined;
  }
}

function stringProperty(node: Element, name: string): string | undefined {
  const value = node.properties?.[name];
  return typeof value === 'string' ? value : undefined;
}

function walk(node: HastRoot | Element, visit: (element: Element) => void) {
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    visit(child);
    walk(child, visit);
  }
}

function findElement(node: HastRoot | Element, tagName: string): Element | undefined {
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    if (child.tagName === tagName) return child;
    const found = findElement(child, tagName);
    if (found) return found;
  }
  return undefined;
}

/** The children without navigation, scripts, forms, comments and hidden elements. */
function prune(children: Array<HastContent | ElementContent>): ElementContent[] {
  const out: ElementContent[] = [];
  for (const child of children) {
    if (child.type === 'comment' || child.type === 'doctype') continue;
    if (child.type === 'element') {
      const hidden = child.properties?.hidden !== undefined && child.properties.hidden !== false;
      if (DROPPED.has(child.tagName) || hidden || child.properties?.ariaHidden === 'true') continue;
      out.push({ ...child, children: prune(child.children) });
    } else out.push(child as ElementContent);
  }
  return out;
}

function textOf(node: Element | ElementContent): string {
  if (node.type === 'text') return node.value;
  if (node.type !== 'element') return '';
  return node.children.map(textOf).join('');
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

function lastSegment(url: string): string {
  const segments = new URL(url).pathname.split('/').filter(Boolean);
  const last = segments.at(-1);
  if (!last) return new URL(url).hostname;
  try {
    return decodeURIComponent(last).replace(/\.[a-z0-9]+$/i, '');
  } catch {
    return last;
  }
}

function visitMdast(node: MdastNodes, visit: (node: Image | Link) => void) {
  if (node.type === 'image' || node.type === 'link') visit(node);
  if ('children' in node) for (const child of node.children) visitMdast(child as MdastNodes, visit);
}

// ---------------------------------------------------------------------------------------------
// Markdown with refs

/**
 * The page's Markdown with links to imported pages and images as refs of the batch, and the file refs
 * it uses; undefined when it cannot be written (nested too deeply).
 */
function renderMarkdown(page: CrawledPage, pageRefs: Map<string, string>, fileRefs: Map<string, string>): { markdown: string; files: Set<string> } | undefined {
  const tree = structuredClone(page.markdownTree);
  const files = new Set<string>();
  visitMdast(tree, (node) => {
    if (node.type === 'image') {
      const ref = fileRefs.get(node.url);
      if (ref) {
        node.url = ref;
        files.add(ref);
      } else if (node.url.startsWith('data:')) {
        // An inline image that was not imported: its alt text, not kilobytes of base64 in the page.
        Object.assign(node, { type: 'text', value: node.alt ?? '', url: undefined, alt: undefined, title: undefined });
      }
      return;
    }
    let target: URL;
    try {
      target = new URL(node.url);
    } catch {
      return;
    }
    const ref = pageRefs.get(pageKey(target.href));
    if (ref) node.url = target.hash.length > 1 ? `${ref}${target.hash}` : ref;
  });
  try {
    return { markdown: stringifier.stringify(tree), files };
  } catch (error) {
    console.warn(`website import: ${page.url} could not be written as Markdown: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Tree by URL path

/** Pathname without a trailing slash or `index.html`: `/docs/guide/` and `/docs/guide/index.html` are `/docs/guide`. */
function pathKey(url: string): string {
  return new URL(url).pathname.replace(/\/index\.html?$/i, '/').replace(/\/+$/, '') || '/';
}

/**
 * Each page's parent: the imported page with the longest path that is a proper ancestor of its own;
 * none for the start page and for the pages whose nearest imported ancestor is the start page.
 */
function parentsByPath(urls: string[], startUrl: string): Map<string, string> {
  const byPath = new Map<string, string>();
  for (const url of urls) if (!byPath.has(pathKey(url))) byPath.set(pathKey(url), url);
  const start = pathKey(startUrl);
  const parents = new Map<string, string>();
  for (const url of urls) {
    const path = pathKey(url);
    if (path === start) continue;
    for (let cut = path.lastIndexOf('/'); cut >= 0; cut = cut === 0 ? -1 : path.lastIndexOf('/', cut - 1)) {
      const ancestorPath = path.slice(0, cut) || '/';
      if (ancestorPath === start || ancestorPath === path) break;
      const ancestor = byPath.get(ancestorPath);
      if (ancestor !== undefined) {
        parents.set(url, ancestor);
        break;
      }
    }
  }
  return parents;
}

function depthOf(url: string, parents: Map<string, string>): number {
  let depth = 0;
  for (let current = parents.get(url); current !== undefined && depth < 100; current = parents.get(current)) depth++;
  return depth;
}

// ---------------------------------------------------------------------------------------------
// Images

async function fetchImages(env: OutboundEnv, urls: string[], limits: WebsiteImportLimits, options: { fetch?: FetchFunction }, started: number): Promise<ImportedFile[]> {
  const files: ImportedFile[] = [];
  const names = new Set<string>();
  let total = 0;
  const queue = [...urls];
  while (queue.length > 0 && files.length < limits.maxFiles && total < limits.maxTotalImageBytes && Date.now() - started < limits.imagesDeadlineMs) {
    const round = queue.splice(0, limits.concurrency);
    const fetched = await Promise.all(round.map((url) => imageBytes(env, url, limits, options)));
    for (const [i, bytes] of fetched.entries()) {
      if (!bytes || files.length >= limits.maxFiles || total + bytes.byteLength > limits.maxTotalImageBytes) continue;
      const contentType = sniffImage(bytes);
      if (!contentType) continue;
      total += bytes.byteLength;
      const url = round[i];
      files.push({ url, ref: `import:file:${files.length + 1}`, name: fileName(url, contentType, names), contentType, bytes });
    }
  }
  return files;
}

/** An image's bytes (a `data:` URL's, or fetched through the guard), or undefined when it cannot be had. */
async function imageBytes(env: OutboundEnv, url: string, limits: WebsiteImportLimits, options: { fetch?: FetchFunction }): Promise<Uint8Array | undefined> {
  if (url.startsWith('data:')) {
    const match = /^data:image\/(?:png|jpeg|gif|webp);base64,([a-z0-9+/=\s]+)$/i.exec(url);
    if (!match) return undefined;
    try {
      const bytes = Uint8Array.from(atob(match[1].replace(/\s+/g, '')), (c) => c.charCodeAt(0));
      return bytes.byteLength <= limits.maxImageBytes ? bytes : undefined;
    } catch {
      return undefined;
    }
  }
  try {
    const response = await outboundFetch(env, url, { headers: { accept: 'image/png,image/jpeg,image/gif,image/webp' } }, { field: 'image', maxBytes: limits.maxImageBytes, ...options });
    return response.ok ? response.bytes : undefined;
  } catch (error) {
    if (error instanceof OutboundError) return undefined;
    throw error;
  }
}

/** PNG, JPEG, GIF or WebP by their magic bytes (whatever the server said). */
export function sniffImage(bytes: Uint8Array): string | undefined {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return 'image/webp';
  return undefined;
}

/** The URL's last segment (or `image`), with the extension of its type, unique among the import's files. */
function fileName(url: string, contentType: string, taken: Set<string>): string {
  let stem = 'image';
  if (!url.startsWith('data:')) {
    const last = new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? '';
    let decoded = last;
    try {
      decoded = decodeURIComponent(last);
    } catch {
      // keep it encoded
    }
    stem =
      decoded
        .replace(/\.[a-z0-9]{1,5}$/i, '')
        .replace(/[\u0000-\u001f\u007f/\\]/g, '')
        .replace(/[\uD800-\uDFFF]/g, '')
        .slice(0, 100)
        .trim() || 'image';
  }
  const extension = IMAGE_EXTENSIONS[contentType];
  let name = `${stem}.${extension}`;
  for (let n = 2; taken.has(name); n++) name = `${stem}-${n}.${extension}`;
  taken.add(name);
  return name;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
