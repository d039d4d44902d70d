import type { CustomizationContentRef, SiteCustomizationSettings } from '../schemas/site-customization';
import type { ReadPage } from '../services/content/revisions';
import { isGroupPage } from '../services/content/tree-rows';
import type { SitePage } from './content';
import { html, raw, safeHref, type Html } from './html';
import type { OutlineEntry } from './render/document';
import { sectionListed, type GroupNode, type SectionNode, type SiteSpaceNode, type SiteStructureView } from './structure';

/**
 * The page around a document: landmarks (banner, navigation, main, complementary, contentinfo), a skip
 * link, the site's sections as tabs and its groups as menus (details/summary: no script), the site
 * space's variants as a switcher, its page tree as the sidebar, the page with its outline and its
 * previous and next pages, the header and footer links and the announcement of the customization.
 * Every value is escaped by `html`; URLs go through `safeHref`.
 */

export interface Assets {
  css: string;
  js: string;
  /** The built-in favicon, for a site without an icon or emoji of its own. */
  icon: string;
}

export interface Chrome {
  siteTitle: string;
  settings: SiteCustomizationSettings;
  lang: string;
  /** The site's root URL (ends with '/'). */
  home: string;
  searchUrl: string;
  view: SiteStructureView;
  current: { siteSpace: SiteSpaceNode; section: SectionNode | null } | null;
  siteSpaceUrl(node: SiteSpaceNode): string;
  /** Where a customization link leads (null: nowhere the visitor may go: shown as text). */
  linkUrl(ref: CustomizationContentRef | null | undefined): string | null;
  assets: Assets;
  themeCss: string;
  noindex: boolean;
  /** Integrations' scripts (services/integrations/site-scripts.ts), on pages served from the organization's own host. */
  scripts: readonly { script: string; cookies: boolean }[];
}

export interface PageView {
  title: string;
  description?: string;
  page: SitePage;
  nav: ReadPage[];
  pageUrl(path: string): string;
  body: string;
  outline: OutlineEntry[];
  previous?: SitePage;
  next?: SitePage;
  markdownUrl: string;
  canonical?: string;
  /** The page's file in the synced Git repository (customization `git.showEditLink`), and the host's name. */
  edit?: { url: string; provider: string };
}

function link(href: string | null, content: Html | string, attrs: Html | string = ''): Html {
  const safe = safeHref(href);
  return safe ? html`<a href="${safe}"${attrs}>${content}</a>` : html`<span>${content}</span>`;
}

function themedImage(url: { light: string; dark: string } | undefined, alt: string): Html | null {
  if (!url) return null;
  const light = safeHref(url.light);
  const dark = safeHref(url.dark);
  if (!light) return null;
  const source = dark && dark !== light ? html`<source srcset="${dark}" media="(prefers-color-scheme: dark)">` : '';
  return html`<picture>${source}<img src="${light}" alt="${alt}"></picture>`;
}

/** An emoji given as code points in hex (`1f4d8`, `1f469-200d-1f4bb`) or as itself; null when it is not one. */
function emojiGlyph(emoji: string): string | null {
  if (!/^[0-9a-f]{2,6}(-[0-9a-f]{2,6})*$/i.test(emoji)) return emoji;
  const points = emoji.split('-').map((hex) => Number.parseInt(hex, 16));
  // String.fromCodePoint throws beyond U+10FFFF: a stored `ffffff` would fail every page of the site.
  return points.every((p) => p <= 0x10ffff) ? String.fromCodePoint(...points) : null;
}

/** The site's favicon, or the built-in one: every page links an icon that exists, so no browser asks for /favicon.ico. */
function favicon(settings: SiteCustomizationSettings, builtIn: string): Html {
  const icon = (settings.favicon ?? {}) as { icon?: { light: string }; emoji?: string };
  const href = icon.icon ? safeHref(icon.icon.light) : null;
  if (href) return html`<link rel="icon" href="${href}">`;
  const glyph = icon.emoji ? emojiGlyph(icon.emoji) : null;
  if (glyph) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><text y=".9em" font-size="90">${glyph.replace(/[<>&"']/g, '')}</text></svg>`;
    return html`<link rel="icon" href="${`data:image/svg+xml,${encodeURIComponent(svg)}`}">`;
  }
  return html`<link rel="icon" href="${builtIn}" type="image/svg+xml">`;
}

function head(chrome: Chrome, title: string, description: string | undefined, extra: Html | string = ''): Html {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${description ? html`<meta name="description" content="${description}">` : ''}
${chrome.noindex ? raw('<meta name="robots" content="noindex">') : ''}
<link rel="stylesheet" href="${chrome.assets.css}">
<style>${raw(chrome.themeCss)}</style>
<script src="${chrome.assets.js}"></script>
${favicon(chrome.settings, chrome.assets.icon)}
${integrationScripts(chrome)}
${extra}
</head>`;
}

/**
 * Integrations' scripts that use no cookies load at once (async). Those that may (`site:script:cookies`) load only
 * once the visitor accepts cookies in `cookieConsent`'s banner (the site's script loads them, the choice is kept in
 * localStorage); without script nothing of them loads.
 */
function integrationScripts(chrome: Chrome): Html | string {
  const now = chrome.scripts.filter((s) => !s.cookies);
  return now.length ? html`${now.map((s) => html`<script async src="${s.script}"></script>`)}` : '';
}

function cookieConsent(chrome: Chrome): Html | string {
  const later = chrome.scripts.filter((s) => s.cookies);
  // The site's own tracking cookie (insights.trackingCookie, src/site/assets.ts) is asked for like integrations' cookies.
  if (later.length === 0 && !chrome.settings.insights.trackingCookie) return '';
  return html`<div id="cookie-consent" class="cookie-consent" role="region" aria-label="Cookies" hidden data-scripts="${later.map((s) => s.script).join(' ')}"><p>This site uses cookies to analyze traffic.</p><button type="button" data-consent="yes">Accept cookies</button> <button type="button" data-consent="no">Decline</button></div>`;
}

function announcement(chrome: Chrome): Html | string {
  const a = chrome.settings.announcement;
  if (!a?.enabled) return '';
  const target = a.link ? chrome.linkUrl(a.link.to) : null;
  return html`<div class="announcement announcement-${a.style}" role="region" aria-label="Announcement"><p>${a.message}${
    a.link && target ? html` ${link(target, a.link.title)}` : ''
  }</p></div>`;
}

function headerLinks(chrome: Chrome): Html | string {
  const links = chrome.settings.header?.links ?? [];
  if (links.length === 0) return '';
  const items = links.map((item) => {
    const style = item.style && item.style !== 'link' ? html` class="${item.style}"` : '';
    if (item.links.length > 0) {
      const sub = item.links.map((l) => html`<li>${link(chrome.linkUrl(l.to), l.title)}</li>`);
      return html`<li><details class="menu"><summary>${item.title}</summary><ul>${sub}</ul></details></li>`;
    }
    return html`<li>${link(chrome.linkUrl(item.to), item.title, style)}</li>`;
  });
  return html`<nav aria-label="Links"><ul class="header-links">${items}</ul></nav>`;
}

function firstUrl(chrome: Chrome, section: SectionNode): string {
  const node = section.siteSpaces.find((s) => s.listed && s.row.isDefault) ?? section.siteSpaces.find((s) => s.listed) ?? section.siteSpaces[0];
  return chrome.siteSpaceUrl(node);
}

function sectionItems(chrome: Chrome, items: Array<SectionNode | GroupNode>, depth = 0): Html[] {
  const current = chrome.current?.section?.row.id;
  return items.flatMap((item) => {
    if (item.kind === 'section') {
      if (!sectionListed(item)) return [];
      const mark = item.row.id === current ? raw(' aria-current="page"') : '';
      return [html`<li><a href="${firstUrl(chrome, item)}"${mark}>${item.row.title}</a></li>`];
    }
    const children = sectionItems(chrome, item.children, depth + 1);
    if (children.length === 0) return [];
    return [html`<li><details class="menu"><summary>${item.row.title}</summary><ul>${children}</ul></details></li>`];
  });
}

function header(chrome: Chrome): Html {
  const title = chrome.siteTitle;
  const logo = themedImage(chrome.settings.header?.logo, title);
  const brandHref = chrome.linkUrl(chrome.settings.header?.primaryLink) ?? chrome.home;
  const sections = sectionItems(chrome, chrome.view.items);
  // Shown by the script, which keeps its label and aria-pressed on the theme showing; until then, the site's default.
  const dark = chrome.settings.themes.default === 'dark';
  const toggle = chrome.settings.themes.toggeable
    ? raw(`<button id="theme-toggle" type="button" hidden aria-pressed="${dark}">${dark ? 'Dark mode' : 'Light mode'}</button>`)
    : '';
  return html`<header class="site-header">
<div class="header-row">
${link(brandHref, logo ? html`${logo}<span>${title}</span>` : title, raw(' class="brand"'))}
${headerLinks(chrome)}
<form class="search" role="search" action="${chrome.searchUrl}" method="get">
<label for="search" class="skip">Search</label><input id="search" type="search" name="q" maxlength="512" placeholder="Search…" aria-label="Search">
<button type="submit">Search</button>
</form>
${toggle}
</div>
${sections.length > 1 ? html`<nav aria-label="Sections"><ul class="sections">${sections}</ul></nav>` : ''}
</header>`;
}

function variants(chrome: Chrome): Html | string {
  const current = chrome.current;
  if (!current) return '';
  const siblings = (current.section ? current.section.siteSpaces : chrome.view.siteSpaces.filter((s) => s.section === null)).filter(
    (s) => s.listed || s.row.id === current.siteSpace.row.id,
  );
  if (siblings.length < 2) return '';
  const items = siblings.map((s) => {
    const mark = s.row.id === current.siteSpace.row.id ? raw(' aria-current="true"') : '';
    return html`<li><a href="${chrome.siteSpaceUrl(s)}"${mark}>${s.title}</a></li>`;
  });
  return html`<details class="menu variants"><summary>${current.siteSpace.title}<span class="skip"> (switch version)</span></summary><ul>${items}</ul></details>`;
}

/** A page's name in the navigation: its link title where it has one (GitBook's `linkTitle`), else its title. */
function pageTitle(page: ReadPage): string {
  return page.linkTitle || page.title;
}

/** The path of each page of the navigation, by id (for links to a page's anchor), made once per view. */
const navPaths = new WeakMap<PageView, Map<string, string>>();
function navPathOf(view: PageView): Map<string, string> {
  let paths = navPaths.get(view);
  if (!paths) {
    const found = new Map<string, string>();
    const walk = (pages: ReadPage[], parentPath: string) => {
      for (const page of pages) {
        if (page.link) continue;
        const path = parentPath ? `${parentPath}/${page.slug}` : page.slug;
        found.set(page.id, path);
        walk(page.pages, path);
      }
    };
    walk(view.nav, '');
    navPaths.set(view, (paths = found));
  }
  return paths;
}

function sidebarList(view: PageView, pages: ReadPage[], parentPath: string, inGroup = false): Html | string {
  if (pages.length === 0) return '';
  const items = pages.map((page) => {
    // A link page: its URL, when it is one a browser may follow (never `javascript:`), or its page's anchor.
    if (page.link?.kind === 'anchor') {
      const target = navPathOf(view).get(page.link.page);
      return target === undefined ? html`<li>${pageTitle(page)}</li>` : html`<li><a href="${view.pageUrl(target)}#${page.link.anchor}">${pageTitle(page)}</a></li>`;
    }
    if (page.link) return /^(https?:|mailto:|\/\/)/i.test(page.link.url) ? html`<li><a class="external" href="${page.link.url}" rel="noopener">${pageTitle(page)}</a></li>` : html`<li>${pageTitle(page)}</li>`;
    const path = parentPath ? `${parentPath}/${page.slug}` : page.slug;
    // A group: a section heading over its pages, leading nowhere (it has no page of its own).
    if (isGroupPage(page)) return html`<li><span class="group-title" role="heading" aria-level="2">${pageTitle(page)}</span>${sidebarList(view, page.pages, path, true)}</li>`;
    const mark = page.id === view.page.page.id ? raw(' aria-current="page"') : '';
    return html`<li><a href="${view.pageUrl(path)}"${mark}>${pageTitle(page)}</a>${sidebarList(view, page.pages, path)}</li>`;
  });
  // A group's pages are listed like the top level's, under its heading.
  return inGroup ? html`<ul class="group">${items}</ul>` : html`<ul>${items}</ul>`;
}

function outline(entries: OutlineEntry[]): Html | string {
  const shown = entries.filter((e) => e.level <= 2);
  if (shown.length === 0) return '';
  const items = shown.map((e) => html`<li class="level-${e.level + 1}"><a href="#${e.id}">${e.title}</a></li>`);
  return html`<aside class="outline" aria-labelledby="outline-title"><div class="sticky"><h2 id="outline-title">On this page</h2><ul>${items}</ul></div></aside>`;
}

function pagination(view: PageView, enabled: boolean): Html | string {
  if (!enabled || (!view.previous && !view.next)) return '';
  const prev = view.previous
    ? html`<a class="previous" rel="prev" href="${view.pageUrl(view.previous.path)}"><small>Previous</small>${pageTitle(view.previous.page)}</a>`
    : '';
  const next = view.next ? html`<a class="next" rel="next" href="${view.pageUrl(view.next.path)}"><small>Next</small>${pageTitle(view.next.page)}</a>` : '';
  return html`<nav class="pagination" aria-label="Previous and next pages">${prev}${next}</nav>`;
}

function breadcrumbs(view: PageView): Html | string {
  const ancestors = view.page.ancestors;
  if (ancestors.length === 0) return '';
  let path = '';
  const items = ancestors.map((a) => {
    path = path ? `${path}/${a.slug}` : a.slug;
    // A group has no page to lead to: its title alone.
    if (isGroupPage(a)) return html`<li>${a.title}</li>`;
    return html`<li><a href="${view.pageUrl(path)}">${a.title}</a></li>`;
  });
  return html`<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol>${items}</ol></nav>`;
}

function footer(chrome: Chrome): Html {
  const f = chrome.settings.footer;
  const logo = themedImage(f?.logo, chrome.siteTitle);
  const groups = (f?.groups ?? []).map(
    (g, i) =>
      html`<section aria-labelledby="footer-${i}"><h2 id="footer-${i}">${g.title}</h2><ul>${g.links.map((l) => html`<li>${link(chrome.linkUrl(l.to), l.title)}</li>`)}</ul></section>`,
  );
  return html`<footer class="site-footer">
${groups.length || logo ? html`<div class="footer-groups">${logo ? html`<div>${logo}</div>` : ''}${groups}</div>` : ''}
${f?.copyright ? html`<p class="copyright">${f.copyright}</p>` : ''}
</footer>`;
}

function document(
  chrome: Chrome,
  title: string,
  description: string | undefined,
  headExtra: Html | string,
  main: Html,
  sidebar: Html | string,
  aside: Html | string,
  tracked: InsightsContext = {},
): string {
  const defaultTheme = chrome.settings.themes.default;
  const theme = defaultTheme === 'light' || defaultTheme === 'dark' ? html` data-theme="${defaultTheme}"` : '';
  return `<!doctype html>\n${html`<html lang="${chrome.lang}"${theme}>
${head(chrome, title, description, headExtra)}
<body>
<a class="skip" href="#main">Skip to content</a>
${announcement(chrome)}
${header(chrome)}
<div class="layout">
<nav class="sidebar" aria-label="Pages">${sidebar}</nav>
<main id="main" tabindex="-1">${main}</main>
${aside}
</div>
${footer(chrome)}
${insightsMarker(chrome, tracked)}
${cookieConsent(chrome)}
</body>
</html>`}\n`;
}

/** What the reader's events say of the page they happen on (src/site/assets.ts sends them). */
interface InsightsContext {
  page?: string;
  space?: string;
  revision?: string;
  siteSpace?: string;
  siteSection?: string;
  searchQuery?: string;
  searchResults?: number;
}

/**
 * Where and what the site's script sends as insights events (page views, searches, feedback), read by it from this
 * element: the site's endpoint (`<site>/~gitbook/insights`, src/site/insights.ts), whether the site may keep a visitor
 * cookie (`insights.trackingCookie`, then only once the visitor accepts cookies), and the page's ids.
 */
function insightsMarker(chrome: Chrome, tracked: InsightsContext): Html {
  const attribute = (name: string, value: string | number | undefined) => (value === undefined ? '' : html` data-${raw(name)}="${String(value)}"`);
  return html`<div id="site-insights" hidden data-endpoint="${`${chrome.home}~gitbook/insights`}" data-cookie-path="${chrome.home}" data-tracking="${chrome.settings.insights.trackingCookie ? '1' : '0'}"${attribute('page', tracked.page)}${attribute('space', tracked.space)}${attribute('revision', tracked.revision)}${attribute('site-space', tracked.siteSpace)}${attribute('site-section', tracked.siteSection)}${attribute('search-query', tracked.searchQuery)}${attribute('search-results', tracked.searchResults)}></div>`;
}

/**
 * GitBook's page feedback (`feedback.enabled`): a rating (bad, ok, good), then an optional comment, sent by the site's
 * script as insights events; shown only with script (it is nothing without it).
 */
function pageFeedback(): Html {
  return html`<section id="page-feedback" class="page-feedback" hidden aria-labelledby="page-feedback-title">
<h2 id="page-feedback-title">Was this page helpful?</h2>
<div class="feedback-ratings" role="group" aria-label="Rating"><button type="button" data-rating="good">Yes</button> <button type="button" data-rating="ok">Somewhat</button> <button type="button" data-rating="bad">No</button></div>
<form class="feedback-comment" hidden><label for="page-feedback-comment">Tell us more (optional)</label><textarea id="page-feedback-comment" name="comment" maxlength="512" rows="3"></textarea><button type="submit">Send</button></form>
<p class="feedback-status" role="status"></p>
</section>`;
}

/** GitBook's "Edit on GitHub" link: the page's file in the repository the space syncs with. */
function editLink(view: PageView): Html | string {
  if (!view.edit) return '';
  const host = view.edit.provider === 'gitlab' ? 'GitLab' : 'GitHub';
  return html`<p class="edit-link">${link(view.edit.url, `Edit on ${host}`, raw(' rel="noopener"'))}</p>`;
}

/** A whole page of the site. */
export function renderPage(chrome: Chrome, view: PageView): string {
  const title = view.title === chrome.siteTitle ? view.title : `${view.title} | ${chrome.siteTitle}`;
  const extra = html`<link rel="alternate" type="text/markdown" href="${view.markdownUrl}">${view.canonical ? html`<link rel="canonical" href="${view.canonical}">` : ''}`;
  const main = html`<article>
${breadcrumbs(view)}
<h1>${view.title}</h1>
${view.description ? html`<p class="description">${view.description}</p>` : ''}
${raw(view.body)}
${editLink(view)}
</article>
${chrome.settings.feedback.enabled ? pageFeedback() : ''}
${pagination(view, chrome.settings.pagination.enabled)}`;
  const sidebar = html`${variants(chrome)}${sidebarList(view, view.nav, '')}`;
  const node = chrome.current?.siteSpace;
  const tracked: InsightsContext = {
    page: view.page.page.id,
    space: node?.space.id,
    revision: node?.space.revisionId,
    siteSpace: node?.row.id,
    siteSection: chrome.current?.section?.row.id,
  };
  return document(chrome, title, view.description, extra, main, sidebar, outline(view.outline), tracked);
}

export interface SearchResult {
  title: string;
  url: string;
  ancestors: string[];
  sections: Array<{ title: string; url: string; body: string }>;
}

/** The search page: the form again, then the pages found with links to their sections. */
export function renderSearch(chrome: Chrome, query: string, results: SearchResult[] | null, message?: string): string {
  const list = results?.length
    ? html`<ol class="results">${results.map(
        (r) => html`<li><h2><a href="${r.url}">${r.title}</a></h2>${r.ancestors.length ? html`<p>${r.ancestors.join(' / ')}</p>` : ''}<ul>${r.sections.map(
          (s) => html`<li><a href="${s.url}">${s.title}</a><p>${s.body}</p></li>`,
        )}</ul></li>`,
      )}</ol>`
    : html`<p>${message ?? (query ? 'No results.' : 'Type words to search for.')}</p>`;
  const main = html`<h1>${query ? `Results for “${query}”` : 'Search'}</h1>
<form role="search" action="${chrome.searchUrl}" method="get"><label for="q">Search the site</label> <input id="q" type="search" name="q" value="${query}" maxlength="512"> <button type="submit">Search</button></form>
${list}`;
  const tracked: InsightsContext = query && results ? { searchQuery: query.slice(0, 512), searchResults: results.length } : {};
  return document(chrome, query ? `Search: ${query} | ${chrome.siteTitle}` : `Search | ${chrome.siteTitle}`, undefined, raw('<meta name="robots" content="noindex">'), main, variants(chrome), '', tracked);
}

/**
 * The one page that answers everything a visitor may not see: an unknown, unpublished or refused site,
 * a page that does not exist or whose condition hides it. Identical whatever the reason.
 */
export function notFoundPage(cssUrl: string, iconUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Page not found</title>
<link rel="stylesheet" href="${cssUrl}">
<link rel="icon" href="${iconUrl}" type="image/svg+xml">
</head>
<body>
<main id="main" class="not-found">
<h1>Page not found</h1>
<p>The page you are looking for does not exist, or you do not have access to it.</p>
</main>
</body>
</html>
`;
}

/** A bad request (a path that cannot be decoded, a search query too long). */
export function badRequestPage(cssUrl: string, iconUrl: string, message: string): string {
  return notFoundPage(cssUrl, iconUrl).replace('<title>Page not found</title>', '<title>Bad request</title>').replace(
    /<h1>Page not found<\/h1>\n<p>[^<]*<\/p>/,
    `<h1>Bad request</h1>\n<p>${message.replace(/[&<>"']/g, '')}</p>`,
  );
}
