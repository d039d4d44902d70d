import { checkOutboundUrl, outboundFetch, OutboundError, type OutboundEnv } from '../../lib/outbound';

/**
 * What a URL shows as an embed (GitBook's Embed): `rich` with the HTML its oEmbed endpoint gives, when
 * the page announces one (`<link rel="alternate" type="application/json+oembed">`) and that endpoint
 * answers `rich` or `video` HTML; otherwise a `link` with the page's title, site name and icon (Open
 * Graph first, then `<title>`). Every request goes through the one guarded fetch (lib/outbound): a URL
 * it refuses (a private address, a non-http scheme, credentials) is a 400 and is never requested. A page
 * that cannot be read (down, too slow, too large, not HTML) is still a link: its URL, titled by itself.
 */

export type Embed =
  | { type: 'link'; title: string; site: string; icon?: string }
  | { type: 'rich'; title: string; site: string; icon?: string; html: string };

/** Pages are read up to this size: the head is what matters. */
const MAX_PAGE_BYTES = 512 * 1024;
const MAX_OEMBED_BYTES = 64 * 1024;
const TIMEOUT_MS = 5000;

export async function unfurl(env: OutboundEnv, url: string): Promise<Embed> {
  const target = checkOutboundUrl(env, url, 'url');
  const fallback: Embed = { type: 'link', title: target.href, site: target.hostname };
  const page = await readText(env, target.href, 'text/html,application/xhtml+xml', MAX_PAGE_BYTES);
  if (!page || !/html/i.test(page.contentType)) return fallback;
  const meta = readHead(page.text, page.url);
  const link: Embed = { type: 'link', title: meta.title ?? fallback.title, site: meta.site ?? new URL(page.url).hostname, ...(meta.icon && { icon: meta.icon }) };
  if (!meta.oembed) return link;
  const oembed = await readText(env, meta.oembed, 'application/json', MAX_OEMBED_BYTES);
  const rich = oembed ? richOf(oembed.text) : null;
  return rich ? { ...link, type: 'rich', html: rich.html, ...(rich.title && { title: rich.title }), ...(rich.site && { site: rich.site }) } : link;
}

/** The body of a URL, or null when it cannot be read; a refused URL (or redirect hop) stays a 400. */
async function readText(env: OutboundEnv, url: string, accept: string, maxBytes: number) {
  try {
    const res = await outboundFetch(env, url, { headers: { accept } }, { field: 'url', maxBytes, timeoutMs: TIMEOUT_MS });
    if (!res.ok) return null;
    return { url: res.url, text: res.text(), contentType: res.headers.get('content-type') ?? '' };
  } catch (error) {
    if (error instanceof OutboundError && error.reason !== 'refused') return null;
    throw error;
  }
}

interface HeadMeta {
  title?: string;
  site?: string;
  icon?: string;
  oembed?: string;
}

/** The attributes of one tag, names lower-cased, values decoded. */
function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z:_-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) out[m[1].toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const clean = (text: string | undefined, max = 300) => {
  const value = text?.replace(/\s+/g, ' ').trim();
  return value ? value.slice(0, max) : undefined;
};

/** An absolute http(s) URL from a page's reference, or undefined. */
function absolute(ref: string | undefined, base: string): string | undefined {
  if (!ref) return undefined;
  try {
    const url = new URL(ref, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Title, site name, icon and oEmbed endpoint from the page's head (everything before `<body`). */
export function readHead(html: string, pageUrl: string): HeadMeta {
  const end = html.search(/<body[\s>]/i);
  const head = end < 0 ? html : html.slice(0, end);
  const meta: Record<string, string> = {};
  let icon: string | undefined;
  let oembed: string | undefined;
  for (const [tag] of head.matchAll(/<(?:meta|link)\b[^>]*>/gi)) {
    const a = attributes(tag);
    if (tag.toLowerCase().startsWith('<meta')) {
      const key = (a.property ?? a.name)?.toLowerCase();
      if (key && a.content !== undefined && !(key in meta)) meta[key] = a.content;
      continue;
    }
    const rel = (a.rel ?? '').toLowerCase().split(/\s+/);
    if (!icon && (rel.includes('icon') || rel.includes('apple-touch-icon'))) icon = absolute(a.href, pageUrl);
    if (!oembed && rel.includes('alternate') && (a.type ?? '').toLowerCase() === 'application/json+oembed') oembed = absolute(a.href, pageUrl);
  }
  const title = clean(meta['og:title']) ?? clean(meta['twitter:title']) ?? clean(decodeEntities(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(head)?.[1] ?? ''));
  return { title, site: clean(meta['og:site_name'], 100), icon, oembed };
}

/** The HTML of an oEmbed answer of type rich or video, with its title and provider. */
function richOf(text: string): { html: string; title?: string; site?: string } | null {
  try {
    const data = JSON.parse(text) as Record<string, unknown>;
    if ((data.type !== 'rich' && data.type !== 'video') || typeof data.html !== 'string' || data.html.length === 0) return null;
    return {
      html: data.html,
      title: typeof data.title === 'string' ? clean(data.title) : undefined,
      site: typeof data.provider_name === 'string' ? clean(data.provider_name, 100) : undefined,
    };
  } catch {
    return null;
  }
}
