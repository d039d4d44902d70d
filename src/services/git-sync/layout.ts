import { parse as parseYaml } from 'yaml';
import { transliteratedSlug } from '../content/revisions';
import { resolveSegments } from './path-segments';

/**
 * GitBook's layout of a space in a Git repository (what its Git Sync reads and writes), as pure functions:
 * - `.gitbook.yaml` at the project directory: `root` (the folder the content lives in), `structure.readme`
 *   (the first page, `README.md`), `structure.summary` (the table of contents, `SUMMARY.md`) and `redirects`
 *   (`old/path: new-file.md`);
 * - `SUMMARY.md`: the page tree. List items (`* [Title](path.md)`) nest by indentation; a `## Heading` starts a
 *   group (GitBook's page group, of the top level), whose items are its child pages, until the next heading or a
 *   thematic break (`***`, which GitBook writes before a page of the top level that follows a group); the
 *   `# Table of contents` title is not a page. Without a summary the
 *   tree is the folders: `README.md` first, then the other Markdown files and the folders (a folder's
 *   `README.md` is its own page), by name;
 * - `.gitbook/assets/`: files; `.gitbook/includes/`: reusable content (`{% include "../.gitbook/includes/x.md" %}` in a page).
 */

export interface GitBookConfig {
  /** The content's folder inside the project directory ('' for the project directory itself). */
  root: string;
  readme: string;
  summary: string;
  redirects: Record<string, string>;
}

/** Reads `.gitbook.yaml` (absent or unreadable: the defaults). Paths are normalized without leading `./` or `/`. */
export function parseGitBookConfig(text: string | null): GitBookConfig {
  const config: GitBookConfig = { root: '', readme: 'README.md', summary: 'SUMMARY.md', redirects: {} };
  if (!text) return config;
  let raw: unknown;
  try {
    raw = parseYaml(text, { maxAliasCount: 10 });
  } catch {
    return config;
  }
  if (!raw || typeof raw !== 'object') return config;
  const doc = raw as Record<string, unknown>;
  if (typeof doc.root === 'string') config.root = cleanPath(doc.root);
  const structure = doc.structure && typeof doc.structure === 'object' ? (doc.structure as Record<string, unknown>) : {};
  if (typeof structure.readme === 'string' && cleanPath(structure.readme)) config.readme = cleanPath(structure.readme);
  if (typeof structure.summary === 'string' && cleanPath(structure.summary)) config.summary = cleanPath(structure.summary);
  if (doc.redirects && typeof doc.redirects === 'object') {
    for (const [from, to] of Object.entries(doc.redirects as Record<string, unknown>)) {
      // A URL (`pricing: https://example.com/pricing`) is kept as written: cleaned as a path, it read `https:/example.com`.
      if (typeof to === 'string' && from.length <= 512 && to.length <= 512) config.redirects[cleanPath(from)] = externalUrl(to) ?? cleanPath(to);
    }
  }
  return config;
}

/**
 * Why a `.gitbook.yaml` is read as the defaults though it has text: not YAML (the parser's message, first line), or no
 * mapping. Null when it reads (or is empty). The import warns with it: the defaults replaced its root and redirects silently.
 */
export function gitBookConfigProblem(text: string | null): string | null {
  if (!text?.trim()) return null;
  let raw: unknown;
  try {
    raw = parseYaml(text, { maxAliasCount: 10 });
  } catch (error) {
    return `it is not valid YAML (${String((error as Error).message).split('\n')[0].slice(0, 200)})`;
  }
  return raw === null || raw === undefined || (typeof raw === 'object' && !Array.isArray(raw)) ? null : 'it holds no mapping of settings';
}

/** Is a configuration GitBook's default (what a repository without `.gitbook.yaml` has)? */
export const isDefaultConfig = (config: GitBookConfig) =>
  config.root === '' && config.readme === 'README.md' && config.summary === 'SUMMARY.md' && Object.keys(config.redirects).length === 0;

/** The entry (git_sync_entries, kind `config`) that keeps the `.gitbook.yaml` an import read. */
export const CONFIG_ENTRY_PATH = 'config:.gitbook.yaml';

/** `./a/b/` -> `a/b`; `..` segments are dropped at the top (a path never leaves the root). */
export function cleanPath(path: string): string {
  // Most paths are clean already (no `\\`, no empty, `.` or `..` segment): kept as they are, without the split and join.
  if (!/\\|(?:^|\/)\.{0,2}(?:\/|$)/.test(path)) return path;
  return resolveSegments(path.replace(/\\/g, '/').split('/'));
}

export function dirname(path: string): string {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** A page of the tree: a Markdown file, a group (a summary heading, or a folder without README.md), or a link. */
export interface LayoutPage {
  /** The Markdown file (from the content root), or null for a group or a link. */
  path: string | null;
  /** A stable key: the path, `group:<title>` (`group:<folder>` from folders), or `link:<url>`; `#2`... for a repeated one. */
  key: string;
  title: string;
  children: LayoutPage[];
  /** A summary item whose destination is a URL (`* [Status](https://status.example.com)`): a link page. */
  link?: string;
  /** A page group (GitBook's RevisionPageGroup): a summary heading, or a folder of the top level without README.md. */
  group?: true;
  /** A group's slug where GitBook wrote it, as the anchor of its heading (`## Get Started <a href="#getting-started" ...>`). */
  slug?: string;
  /** The page's navigation title (GitBook's `linkTitle`): its item's quoted link title, `[Main title](page.md "Link title")`. */
  linkTitle?: string;
  /**
   * A summary item that leads to an anchor of a page listed in its own place (`* [Buttons](inline.md#buttons)`, in
   * GitBook's own documentation): a link page to that anchor (GitBook's ContentRefAnchor). `path` is the page's file.
   */
  anchorLink?: { path: string; anchor: string };
  /**
   * A summary item without a link whose items nest under it (`* Section`, then `    * [B](b.md)`): an empty page of
   * that title holding them, as GitBook imports it (00labs/huma-monorepo: `* Developer Guidlines` over four linked
   * items, then GitBook's next commit, GITBOOK #45, wrote it `* [Developer Guidlines](developer-guidlines/README.md)`
   * with the children under it). It has no file until it has content; its key is `item:<title>`.
   */
  linkless?: true;
  /**
   * A summary item leading to a Markdown file the repository does not have (`* [GDAP Management](tenant/gdap/README.md)`
   * after the folder was renamed): an empty page of that title, its items under it, as GitBook imports it (CIPP's docs:
   * GITBOOK-225 wrote two such items back as `tenant/gdap-management/README.md`, a new file holding only the title, the
   * items under them unchanged; fylr's GITBOOK-446 did the same for `for-users/plugins.md`). It has no file until it has
   * content, so its line stays as written; `missing` is the file it names (from the content root), its key `missing:<file>`.
   */
  missing?: string;
  /**
   * The file as the item wrote it, where that names no file and one file alone has that name in other case (`README.md`
   * for `README.MD`): the page is that file's (`caseFolded`).
   */
  writtenAs?: string;
}

/**
 * The item lines of a summary that are no page (a link to something other than a Markdown file, a second place of a page,
 * an item without a link and without items under it, an item with an empty title...), where they were: each after the
 * page `keys[at - 1]` (at 0: before the first). An export writing the summary again writes them back there, as they were.
 */
export interface UnreadSummaryLines {
  /** The keys of the summary's pages, in its order. */
  keys: string[];
  lines: Array<{ at: number; line: string; why: string | null }>;
}

/**
 * A summary item with a link: its indentation, its text, and its destination with its quoted title, if any. The destination
 * may be in angle brackets and hold parentheses (`<README (1).md>`, as GitBook writes a file named so: airstack, secoda),
 * or not, with balanced parentheses (`a(1).md`); spaces are read in either (authors write `[A](My Page.md)`).
 */
const ITEM = /^(\s*)[*+-]\s+\[((?:[^\]\\]|\\.)*)\]\(\s*((?:<[^<>\n]*>|(?:[^()\s\\]|\\.|\([^()\n]*\)|[ \t]+(?=[^\s"')]))*)(?:\s+(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'))?)\s*\)/;
/** A summary item with no link (`* Section`): its text. */
const LINKLESS_ITEM = /^(\s*)[*+-]\s+(?!\[)(\S.*?)\s*$/;
const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
/** CommonMark's thematic break (`***`, `---`, `___`, spaced or not): the end of a group in a summary. */
const THEMATIC_BREAK = /^ {0,3}([*_-])(?:[ \t]*\1){2,}[ \t]*$/;
/** A link's title after its destination (`"Page link title"`, `'...'`), backslash escapes kept. */
const LINK_TITLE = /\s+(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*$/;
/** GitBook's bound on a navigation title (0.202.0's `linkTitle`: 1 to 100 characters). */
export const MAX_LINK_TITLE = 100;

/**
 * How a summary's items are written: `unit` spaces a level (GitBook writes 2; authors often 4), after `base` spaces that
 * every item has (a summary whose items are all indented, top level included), and the bullet most of them have (GitBook
 * writes `*`): a new item among `-` items with `*` starts a list of its own in CommonMark.
 */
export interface SummaryIndent {
  unit: number;
  base: number;
  bullet?: '*' | '+' | '-';
}
const GITBOOK_INDENT: SummaryIndent = { unit: 2, base: 0 };
const itemStart = (depth: number, indent: SummaryIndent) => `${' '.repeat(indent.base + Math.max(depth, 0) * indent.unit)}${indent.bullet ?? '*'}`;

/**
 * A title as a summary item's text, escaped where CommonMark would read it otherwise, as GitBook writes it (the rules of
 * mdast-util-to-markdown): brackets and backslashes, `<` that would open a tag (`\<Git 편>`: gugbab2/Backend-GitBook
 * GITBOOK-687; `Slack <> Questions` stays: secoda GITBOOK-533) and `&` that would start a character reference (`Q\&A`;
 * `Authentication & Security` stays: flxbl-io/docs-sfp GITBOOK-178). The import undoes every backslash escape.
 */
const summaryItemText = (title: string) => title.replace(/[[\]\\]|<(?=[!/?A-Za-z])|&(?=[#A-Za-z])/g, '\\$&');

/** A summary item as GitBook writes it: its title, its destination and the page's navigation title, if any, quoted. */
export function summaryItem(depth: number, title: string, destination: string, linkTitle?: string, indent = GITBOOK_INDENT): string {
  const quoted = linkTitle ? ` "${linkTitle.replace(/(["\\])/g, '\\$1')}"` : '';
  return `${itemStart(depth, indent)} [${summaryItemText(title)}](${destination}${quoted})`;
}

/** What GitBook writes between a group and a page of the top level after it. */
export const SUMMARY_GROUP_END = '***';

/** CommonMark's backslash escapes (`\_` for `_`), which GitBook writes in the link destinations of its summaries. */
const ESCAPED_PUNCTUATION = /\\([!-/:-@[-`{-~])/g;

/**
 * The file a link's destination names, as written in a page or a summary (relative to the file it is in, or from the
 * content root with a leading `/`, kept: a leading `../` must survive until the target is joined to its folder), or null
 * for no file (a URL, `//host/...`, only an anchor). The one reading of a destination, for the import, the summary and
 * the export's spellings: angle brackets dropped (`<a b.md>`), CommonMark's backslash escapes undone (`down\_time.md`:
 * ASCII punctuation only, so `a\b.md` keeps its backslash), the query and anchor dropped, then each run
 * of percent escapes decoded (`a%20b.md`, `%E2%9C%85.md`); a `%` that starts no escape, or a run that is no UTF-8, stays
 * as written (`100%.md`, `50%-off%20sale.md` -> `50%-off sale.md`), where decoding the whole failed and one reader kept
 * every escape, another dropped the link.
 */
export function decodeTarget(target: string): string | null {
  const written = target.trim();
  const unbracketed = written.startsWith('<') && written.endsWith('>') ? written.slice(1, -1) : written;
  const bare = unbracketed.replace(ESCAPED_PUNCTUATION, '$1').replace(/[?#].*$/, '').trim();
  if (!bare || /^[a-z][a-z0-9+.-]*:/i.test(bare) || bare.startsWith('//')) return null;
  return bare.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * A title of the summary as GitBook reads it: without the empty HTML anchors GitBook writes after a group's title
 * (`## Guides <a href="#guides" id="guides"></a>`), which are no part of the title.
 */
function summaryTitle(text: string): string {
  return text.replace(/\s*<a\b[^>]*>\s*<\/a>/gi, '').trim();
}

/**
 * The slug GitBook writes after a group's title when it is not the title's own (`## Get Started <a href="#getting-started"
 * id="getting-started"></a>`, its pages in `getting-started/`, GitBook's own documentation), or null.
 */
function headingSlug(text: string): string | null {
  const id = /<a\b[^>]*\bid="([a-z0-9][a-z0-9._-]{0,99})"[^>]*>\s*<\/a>/i.exec(text)?.[1];
  return id ? id.toLowerCase() : null;
}

/** A group's heading in a summary, as GitBook writes it: its slug as an anchor where the title alone would not give it. */
export function summaryGroupHeading(title: string, slug: string, titleSlug: string): string {
  return slug === titleSlug ? `## ${title}` : `## ${title} <a href="#${slug}" id="${slug}"></a>`;
}

/** A summary item's destination when it leads out of the repository (`https://...`, `mailto:...`, `//host/...`), else null. */
function externalUrl(written: string): string | null {
  const url = written.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//') ? url : null;
}

/** Keys of pages that have no file in the repository: groups, links and summary items without a link. */
export const isPathlessKey = (key: string) => key.startsWith('group:') || key.startsWith('link:') || isLinklessKey(key);

/**
 * The key of a page with no file until it has content: a summary item without a link (`item:<title>`) or leading to a
 * file the repository does not have (`missing:<file>`).
 */
export const isLinklessKey = (key: string) => key.startsWith('item:') || isMissingKey(key);

/** The key of a summary item leading to a file the repository does not have (`missing:<file>`), an empty page. */
export const isMissingKey = (key: string) => key.startsWith('missing:');
export const MISSING_KEY_PREFIX = 'missing:';

/** A summary item without a link, as its author wrote it (`* Section`). */
export const linklessSummaryItem = (depth: number, title: string, indent = GITBOOK_INDENT) => `${itemStart(depth, indent)} ${title}`;

/**
 * Where a page was when its file was synced: its parent (`''` at the top level) and its slug. The export moves the
 * file of a page whose place is not the one recorded (git_sync_entries.place).
 */
export const placeOf = (parent: string | null | undefined, slug: string) => `${parent && parent !== '~' ? parent : ''}/${slug}`;

/** The parent part of a place (`placeOf`): the page id, or '' at the top level. */
export const parentOfPlace = (place: string) => place.slice(0, place.lastIndexOf('/'));

/** The slug part of a place (`placeOf`). */
export const slugOfPlace = (place: string) => place.slice(place.lastIndexOf('/') + 1);

/** The folder a page's children are written in: `guides` for `guides/README.md` and for `guides.md`. */
export const childFolderOf = (path: string) => (basename(path).toLowerCase() === 'readme.md' ? dirname(path) : path.replace(/\.md$/i, ''));

/** A path relative to the file at `from` (both from the content root), spaces as `%20`. */
export function relativePath(from: string, to: string): string {
  return relativeFilePath(from, to).replace(/ /g, '%20');
}

/** A path relative to the file at `from` as a tag names it, spaces kept (GitBook's `{% include "../a note (1).md" %}`). */
export function relativeFilePath(from: string, to: string): string {
  const a = dirname(from).split('/').filter(Boolean);
  const b = to.split('/');
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  const up = a.length - i;
  return `${up === 0 ? '' : '../'.repeat(up)}${b.slice(i).join('/')}` || basename(to);
}

/** `group:<title>` keys of a summary's groups, in its order: a second group of one title is `group:<title>#2`. */
function groupKeyCounter(): (key: string) => string {
  const groupKeys = new Map<string, number>();
  return (key: string) => {
    const seenTimes = (groupKeys.get(key) ?? 0) + 1;
    groupKeys.set(key, seenTimes);
    return seenTimes === 1 ? key : `${key}#${seenTimes}`;
  };
}

/**
 * The keys `parseSummary` gives the groups and links of a summary written with them, in this order, by page id
 * (a link: `link` set).
 */
export function summaryKeys(pages: Array<{ id: string; title: string; link?: string; linkless?: boolean; missing?: string }>): Map<string, string> {
  // (`link` of an anchor: `<file>#<anchor>`, the file from the content root, as parseSummary keys it.)
  const uniqueGroupKey = groupKeyCounter();
  const uniqueLinkKey = groupKeyCounter();
  const uniqueItemKey = groupKeyCounter();
  const keyOf = ({ title, link, linkless, missing }: (typeof pages)[number]) =>
    missing !== undefined
      ? `${MISSING_KEY_PREFIX}${missing}`
      : link !== undefined ? uniqueLinkKey(`link:${link}`) : linkless ? uniqueItemKey(`item:${title}`) : uniqueGroupKey(`group:${summaryTitle(title)}`);
  return new Map(pages.map((page) => [page.id, keyOf(page)]));
}

/**
 * The page tree of a SUMMARY.md (paths relative to the content root; `summaryDir` is the summary's folder,
 * which its links are relative to). A file listed twice is a page once (pagePlaces: where items nest under it, else its
 * first place). Entries whose file
 * is not in `exists` are left out. An item naming `summaryFile` (the summary itself) is no page: its file is the
 * summary's, which the export writes from the tree, so an edit of that page was lost by the next export.
 */
export function parseSummary(
  text: string,
  summaryDir: string,
  exists: (path: string) => boolean | string,
  lineOf?: Map<string, string>,
  unread?: UnreadSummaryLines,
  summaryFile?: string,
  depthOf?: Map<string, number>,
): LayoutPage[] {
  const top: LayoutPage[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  // Files an item lists without an anchor: an item leading to an anchor of one of them is a link to that anchor.
  const listed = new Set<string>();
  for (const line of lines) {
    const item = ITEM.exec(line);
    const read = item ? readItem(item[3], summaryDir) : null;
    if (read?.path && read.anchor === null) listed.add(read.path);
  }
  const placeOfPage = pagePlaces(lines, summaryDir);
  let group: LayoutPage | null = null;
  // Two groups of one title (`### Overview` under `## 9` and under `## 10`) are two pages: the second key gets its
  // rank (`group:Overview#2`), stable while the summary keeps its order; the same key twice failed the whole import.
  const uniqueGroupKey = groupKeyCounter();
  const uniqueLinkKey = groupKeyCounter();
  const uniqueItemKey = groupKeyCounter();
  // Stack of [indent, page] for list nesting within the current section.
  let stack: Array<[number, LayoutPage]> = [];
  // Items without a link, in the tree only once an item nests under them: where each goes then.
  const pending = new Map<LayoutPage, { siblings: LayoutPage[]; parent: LayoutPage | null; line: string; depth: number }>();
  let line = '';
  const place = (page: LayoutPage, siblings: LayoutPage[], parent: LayoutPage | null) => {
    if (parent) placePending(parent);
    siblings.push(page);
  };
  const placeItem = (page: LayoutPage, siblings: LayoutPage[], parent: LayoutPage | null) => {
    lineOf?.set(page.key, line);
    depthOf?.set(page.key, stack.length);
    place(page, siblings, parent);
    return page;
  };
  const placePending = (page: LayoutPage) => {
    const at = pending.get(page);
    if (!at) return;
    pending.delete(page);
    // Keyed once it is a page: an item holding nothing before it (`* Basics` twice, the first alone) took the key's first
    // rank, which the export's keys (summaryKeys, of pages only) give this one: every export wrote the summary again.
    page.key = uniqueItemKey(page.key);
    lineOf?.set(page.key, at.line);
    depthOf?.set(page.key, at.depth);
    place(page, at.siblings, at.parent);
  };
  let inFence = false;
  // Each item and heading line in order, with the page it made (null: none), for `unread`.
  const said: Array<{ line: string; page: LayoutPage | null; why: string | null }> = [];
  let at = -1;
  for (line of lines) {
    at++;
    // A fence may open in a list item (`* ```yaml`: GitBook's OpenAPI pages); taken for a closing one, every item after it was lost.
    // Its lines are no page; kept as the author's lines are (an export writing the summary again dropped GitBook's OpenAPI pages).
    const fence = /^\s*(?:[*+-]\s+)?(```|~~~)/.test(line);
    if (fence) inFence = !inFence;
    if (inFence || fence) {
      said.push({ line, page: null, why: null });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      if (heading[1].length >= 2) {
        const title = summaryTitle(heading[2]);
        const slug = headingSlug(heading[2]);
        group = { path: null, key: uniqueGroupKey(`group:${title}`), title, children: [], group: true, ...(slug ? { slug } : {}) };
        lineOf?.set(group.key, line);
        said.push({ line, page: group, why: null });
        top.push(group);
      }
      stack = [];
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      // Items after it are pages of the top level again (GitBook writes `***` before one that follows a group).
      group = null;
      stack = [];
      continue;
    }
    const item = ITEM.exec(line);
    if (!item) {
      const linkless = LINKLESS_ITEM.exec(line);
      if (!linkless) continue;
      const indent = linkless[1].replace(/\t/g, '    ').length;
      while (stack.length > 0 && stack[stack.length - 1][0] >= indent) stack.pop();
      const parent = stack.length > 0 ? stack[stack.length - 1][1] : null;
      const title = summaryTitle(linkless[2]);
      const page: LayoutPage = { path: null, key: `item:${title}`, title, children: [], linkless: true };
      said.push({ line, page, why: null });
      pending.set(page, { siblings: parent ? parent.children : group ? group.children : top, parent, line, depth: stack.length });
      stack.push([indent, page]);
      continue;
    }
    const indent = item[1].replace(/\t/g, '    ').length;
    const title = summaryTitle(item[2].replace(/\\(.)/g, '$1'));
    const { linkTitle, path, anchor, outside, url } = readItem(item[3], summaryDir);
    while (stack.length > 0 && stack[stack.length - 1][0] >= indent) stack.pop();
    const parent = stack.length > 0 ? stack[stack.length - 1][1] : null;
    const siblings = parent ? parent.children : group ? group.children : top;
    if (url !== null && title) {
      // GitBook's link page: in its place in the tree, with no children of its own (items under it nest under its parent).
      said.push({ line, page: placeItem({ path: null, key: uniqueLinkKey(`link:${url}`), title, children: [], link: url, ...(linkTitle ? { linkTitle } : {}) }, siblings, parent), why: null });
      continue;
    }
    if (path !== null && anchor !== null && title && (listed.has(path) || seen.has(path)) && exists(path)) {
      // A link to an anchor of a page listed in its own place: like a link page, no children of its own.
      const key = uniqueLinkKey(`link:${path}#${anchor}`);
      said.push({ line, page: placeItem({ path: null, key, title, children: [], anchorLink: { path, anchor }, ...(linkTitle ? { linkTitle } : {}) }, siblings, parent), why: null });
      continue;
    }
    const elsewhere = path === null ? undefined : placeOfPage.get(path);
    const why =
      path === null || url !== null ? 'it leads to no file'
      : outside && !exists(path) ? 'it leads out of the content root'
      : !/\.md$/i.test(path) ? 'it leads to no Markdown file'
      : seen.has(path) ? 'its file is listed before'
      : elsewhere !== undefined && elsewhere !== at ? 'its file is listed after, with items under it'
      : path.toLowerCase() === summaryFile?.toLowerCase() ? 'it is the summary itself'
      : null;
    if (why !== null || path === null) {
      // A link to nothing (or a second place of a page): its items nest under what it nests under.
      said.push({ line, page: null, why });
      continue;
    }
    seen.add(path);
    const found = exists(path);
    const file = typeof found === 'string' ? found : path;
    if (file !== path) seen.add(file);
    const page: LayoutPage = found
      ? { path: file, key: file, title, children: [], ...(linkTitle ? { linkTitle } : {}), ...(file !== path ? { writtenAs: path } : {}) }
      : { path: null, key: `${MISSING_KEY_PREFIX}${path}`, title, children: [], missing: path, ...(linkTitle ? { linkTitle } : {}) };
    said.push({ line, page: placeItem(page, siblings, parent), why: null });
    stack.push([indent, page]);
  }
  if (unread) {
    for (const { line: text, page, why } of said) {
      // An item without a link is a page only once an item nests under it (one alone may be a note, not a page).
      if (page && !pending.has(page)) unread.keys.push(page.key);
      else unread.lines.push({ at: unread.keys.length, line: text, why: page ? null : why });
    }
  }
  return top;
}

/**
 * The line of each file's page among the summary's items that name it without an anchor: the first item with items
 * nested under it, else the first. GitBook writes a link to a page as an item naming the page's file, which may come
 * first, alone (trunk-io/docs: `* [MCP Server](…/mcp-reference/README.md)` under another section, the page with its
 * ten pages under it further down); made the page, its pages became pages of the section above.
 */
function pagePlaces(lines: string[], summaryDir: string): Map<string, number> {
  const items: Array<{ at: number; indent: number; path: string | null }> = [];
  let inFence = false;
  lines.forEach((line, at) => {
    const fence = /^\s*(?:[*+-]\s+)?(```|~~~)/.test(line);
    if (fence) inFence = !inFence;
    if (inFence || fence) return;
    // A heading or a thematic break ends the items nested under the item before it.
    if (HEADING.test(line) || THEMATIC_BREAK.test(line)) return void items.push({ at, indent: -1, path: null });
    const item = ITEM.exec(line);
    const written = item ?? LINKLESS_ITEM.exec(line);
    if (!written) return;
    const read = item ? readItem(item[3], summaryDir) : null;
    items.push({ at, indent: written[1].replace(/\t/g, '    ').length, path: read && read.url === null && read.anchor === null ? read.path : null });
  });
  const first = new Map<string, number>();
  const nesting = new Map<string, number>();
  items.forEach(({ at, indent, path }, i) => {
    if (path === null) return;
    if (!first.has(path)) first.set(path, at);
    if (!nesting.has(path) && (items[i + 1]?.indent ?? -1) > indent) nesting.set(path, at);
  });
  return new Map([...first].map(([path, at]) => [path, nesting.get(path) ?? at]));
}

/**
 * What a summary line says, to compare an author's line with ours: its depth (its indentation in `unit`s), its text, and
 * where it leads (a file from the content root, with its anchor and quoted link title, or a URL), or null for a line that
 * is not an item. Two lines saying the same are the same item in the same place, whatever their spelling.
 */
export function summaryItemForm(line: string, indent: SummaryIndent, summaryDir: string, foldCase = false, nested?: number): string | null {
  const item = ITEM.exec(line);
  const linkless = item ? null : LINKLESS_ITEM.exec(line);
  const spaces = (item ?? linkless)?.[1].replace(/\t/g, '    ').length;
  if (spaces === undefined) return null;
  if (nested === undefined && (spaces < indent.base || (spaces - indent.base) % indent.unit !== 0)) return null;
  const depth = nested ?? (spaces - indent.base) / indent.unit;
  if (linkless) return JSON.stringify([depth, summaryTitle(linkless[2])]);
  const { linkTitle, path, anchor, url } = readItem(item![3], summaryDir);
  return JSON.stringify([depth, summaryTitle(item![2].replace(/\\(.)/g, '$1')), url ?? (foldCase ? path?.toLowerCase() : path), anchor, linkTitle]);
}

/**
 * Whether a group's heading as the author wrote it (`## Sip & CIPP`) still says the group: its title is the group's, and
 * its slug, written as an anchor or not, is the one it has (`slugThen`: the slug it was synced with). Any level from 2
 * makes a group (parseSummary), `###` too: a summary of `###` groups (BrighterCommand/Docs, probe21) had every heading
 * written again as `##`, and a repeated title with an anchor, by any export that wrote the summary again.
 */
export function sameGroupHeading(line: string, title: string, slug: string, slugThen: string | null): boolean {
  const heading = HEADING.exec(line);
  if (!heading || heading[1].length < 2 || summaryTitle(heading[2]) !== title) return false;
  return (headingSlug(heading[2]) ?? slugThen) === slug;
}

/**
 * How a summary's items are indented: the spaces every item has (its top level's), and one level's beyond them, 2
 * when it has no nested item. A summary indented as a whole (top level at 2, nested at 4) has a base of 2 and a unit
 * of 2: its lines are its author's where they say what ours say, and a new item goes in at its top level's indent.
 */
export function summaryIndent(text: string): SummaryIndent {
  const bullets = { '*': 0, '+': 0, '-': 0 };
  const indents = text.split(/\r?\n/).flatMap((line) => {
    const item = /^([ \t]*)([*+-])\s/.exec(line);
    if (!item || THEMATIC_BREAK.test(line)) return [];
    bullets[item[2] as keyof typeof bullets]++;
    return [item[1].replace(/\t/g, '    ').length];
  });
  if (indents.length === 0) return GITBOOK_INDENT;
  const base = Math.min(...indents);
  const steps = indents.map((spaces) => spaces - base).filter((step) => step > 0);
  const bullet = (['*', '-', '+'] as const).reduce((most, next) => (bullets[next] > bullets[most] ? next : most));
  return { unit: steps.length ? Math.min(...steps) : 2, base, ...(bullet === '*' ? {} : { bullet }) };
}

/**
 * How a summary's lines end, as its author wrote them: CRLF where most do, whether its last line has a break, and how
 * many blank lines close it (fluent/fluentd-docs-gitbook ends with one: a page added in the app took its place).
 */
export function summaryLineBreaks(text: string): { eol: '\n' | '\r\n'; final: boolean; blankAtEnd: number } {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const lf = (text.match(/\n/g)?.length ?? 0) - crlf;
  const final = text === '' || text.endsWith('\n');
  const lines = text.split(/\r?\n/);
  let blank = 0;
  while (blank < lines.length - 1 && !lines[lines.length - 1 - blank].trim()) blank++;
  // (With a final break, the last empty string of the split is that break, no blank line.)
  return { eol: crlf > lf ? '\r\n' : '\n', final, blankAtEnd: text.trim() === '' ? 0 : Math.max(0, final ? blank - 1 : blank) };
}

/**
 * A summary item's destination (`item[3]`): without its link title, which is the page's navigation title as GitBook
 * writes it (`* [Page main title](page.md "Page link title")`, its Git Sync documentation); the file it names (from the
 * content root) and its anchor as written (null without one); the URL it leads to, if any, with CommonMark's backslash
 * escapes undone, as for a file: GitBook writes `\_` in them (`…/d/1j5…mT\_e1QM/edit`), and a link page kept the
 * backslash, which a browser reads as a `/`.
 */
function readItem(written: string, summaryDir: string) {
  const quoted = LINK_TITLE.exec(written);
  const spelled = (quoted ? written.slice(0, quoted.index) : written).trim();
  const destination = spelled.startsWith('<') && spelled.endsWith('>') ? spelled.slice(1, -1) : spelled;
  const linkTitle = quoted ? (quoted[1] ?? quoted[2]).replace(/\\(.)/g, '$1').trim().slice(0, MAX_LINK_TITLE) : '';
  const target = decodeTarget(destination);
  const joined = target === null ? null : summaryDir ? `${summaryDir}/${target}` : target;
  const path = joined === null ? null : cleanPath(joined);
  // `../CONTRIBUTING.md` from a summary at the content root (0x-mesh, `root: ./docs/`): a file outside the content.
  const outside = joined !== null && !target!.startsWith('/') && climbsOut(joined);
  const hashAt = destination.indexOf('#');
  const anchor = hashAt >= 0 && destination.slice(hashAt + 1).trim() ? destination.slice(hashAt + 1).trim() : null;
  const url = externalUrl(destination.replace(ESCAPED_PUNCTUATION, '$1'));
  return { destination, linkTitle, path, anchor, outside, url };
}

/**
 * Whether a path names a file of `paths`: true when it does as written; else the one file whose path differs from it in
 * case only (`zh/intro/README.MD` for `zh/intro/README.md`), or false when none or several do. A summary item is read so:
 * no evidence found says how GitBook reads one (git itself is case-sensitive), and a repository whose summary wrote
 * `README.md` for 24 files named `README.MD` (beihaili/Get-Started-with-Web3) imported them as 24 empty pages.
 */
export function caseFolded(paths: ReadonlySet<string> | ReadonlyMap<string, unknown>): (path: string) => boolean | string {
  let folded: Map<string, string | null> | undefined;
  // Unicode's composed and decomposed spellings are one name too: a file committed from macOS is named decomposed
  // (`cafe\u0301.md`) where its summary item is typed composed (`café.md`), and it was imported as an empty page.
  const fold = (path: string) => path.normalize('NFC').toLowerCase();
  return (path) => {
    if (paths.has(path)) return true;
    if (!folded) {
      folded = new Map();
      for (const candidate of paths.keys()) {
        const key = fold(candidate);
        folded.set(key, folded.has(key) ? null : candidate);
      }
    }
    return folded.get(fold(path)) ?? false;
  };
}

/** Does a relative path leave the folder it starts from (`../a.md`, `a/../../b.md`)? */
function climbsOut(path: string): boolean {
  let depth = 0;
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '..') depth--;
    else if (part !== '' && part !== '.') depth++;
    if (depth < 0) return true;
  }
  return false;
}

/** The page tree of the folders, when there is no summary: README.md first, then files and folders by name. */
export function treeOfFolders(markdownPaths: string[], readme: string): LayoutPage[] {
  type Folder = { files: string[]; folders: Map<string, Folder> };
  const root: Folder = { files: [], folders: new Map() };
  for (const path of markdownPaths) {
    const parts = path.split('/');
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (!next) folder.folders.set(part, (next = { files: [], folders: new Map() }));
      folder = next;
    }
    folder.files.push(path);
  }
  const titleOf = (name: string) => name.replace(/\.md$/i, '').replace(/[-_]+/g, ' ').replace(/^./, (c) => c.toUpperCase());
  const build = (folder: Folder, prefix: string, isRoot: boolean): LayoutPage[] => {
    const readmePath = isRoot ? readme : `${prefix}README.md`;
    const items: Array<[string, LayoutPage]> = [];
    for (const file of folder.files) {
      if (file.toLowerCase() === readmePath.toLowerCase() || (!isRoot && basename(file).toLowerCase() === 'readme.md')) continue;
      items.push([basename(file), { path: file, key: file, title: titleOf(basename(file)), children: [] }]);
    }
    for (const [name, sub] of folder.folders) {
      const subReadme = sub.files.find((f) => basename(f).toLowerCase() === 'readme.md');
      const children = build(sub, `${prefix}${name}/`, false);
      // A folder of the top level without README.md is a group; deeper, where GitBook has no groups, an empty page.
      const folderPage: LayoutPage = { path: null, key: `group:${prefix}${name}`, title: titleOf(name), children, ...(isRoot ? { group: true as const } : {}) };
      items.push([name, subReadme ? { path: subReadme, key: subReadme, title: titleOf(name), children } : folderPage]);
    }
    items.sort(([a], [b]) => a.localeCompare(b));
    const pages = items.map(([, page]) => page);
    if (isRoot) {
      const first = folder.files.find((f) => f.toLowerCase() === readme.toLowerCase()) ?? markdownPaths.find((p) => p.toLowerCase() === readme.toLowerCase());
      if (first) pages.unshift({ path: first, key: first, title: 'Introduction', children: [] });
    }
    return pages;
  };
  return build(root, '', true);
}

/**
 * The tree a repository without a summary has (`treeOfFolders`), one `<path>` or `group:<title>` `<parent>#<index>`
 * line per page, as an export compares it with the space's: while they are the same, no summary is written (an
 * export with nothing changed made a commit adding SUMMARY.md to such a repository).
 */
export function folderTreeLines(markdownPaths: string[], readme: string): string[] {
  const keyOf = new Map<string, string>();
  // Groups keyed as a summary would key them (`group:<title>`, `#2` for a second of one title), as the export keys the space's.
  const uniqueGroupKey = groupKeyCounter();
  // A folder below the top level without README.md is a page without a file, keyed as a summary's item without a link
  // (`item:<title>`, summaryKeys): keyed as a group, a repository nesting such folders (aggrawal-ankur's `content/blogs/`)
  // never matched the space, and an export with nothing edited committed a SUMMARY.md.
  const uniqueItemKey = groupKeyCounter();
  return flatten(treeOfFolders(markdownPaths, readme)).map(({ page, parent, index }) => {
    const key = page.path ?? (page.group ? uniqueGroupKey(`group:${summaryTitle(page.title)}`) : uniqueItemKey(`item:${page.title}`));
    keyOf.set(page.key, key);
    return `${key}<${parent ? keyOf.get(parent) : ''}#${index}`;
  });
}

/** Every page of a tree, parents before children, with its parent's key (null at the top) and its index. */
export function flatten(pages: LayoutPage[]): Array<{ page: LayoutPage; parent: string | null; index: number }> {
  const out: Array<{ page: LayoutPage; parent: string | null; index: number }> = [];
  const walk = (list: LayoutPage[], parent: string | null) =>
    list.forEach((page, index) => {
      out.push({ page, parent, index });
      walk(page.children, page.key);
    });
  walk(pages, null);
  return out;
}

/**
 * A slug for a page from its file (`guides/install.md` -> `install`, `guides/README.md` -> `guides`), or null. A
 * name in another script is transliterated as GitBook does (`тестовые стенды.md` -> `testovye-stendy`): it gave
 * `page`, `page-2`... before, and the page's URL said nothing.
 */
export async function slugOfPath(path: string | null, title: string): Promise<string | null> {
  let name = path ? basename(path).replace(/\.md$/i, '') : title;
  if (path && name.toLowerCase() === 'readme') name = basename(dirname(path)) || '';
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '')
    .slice(0, 100);
  const usable = /^[a-z0-9][a-z0-9._-]*$/.test(slug) ? slug : null;
  // Latin names (accents dropped) keep the slugs they always had; others are transliterated.
  if (!/[^\x00-\x7f]/.test(name.normalize('NFKD').replace(/[\u0300-\u036f]/g, ''))) return usable;
  return (await transliteratedSlug(name)) || usable;
}

const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  avif: 'image/avif',
  ico: 'image/x-icon',
  pdf: 'application/pdf',
  zip: 'application/zip',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  txt: 'text/plain',
  csv: 'text/csv',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
};

export function contentTypeOf(path: string): string {
  const ext = basename(path).split('.').pop()?.toLowerCase() ?? '';
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

/**
 * Link targets of a page's Markdown: `](x)` and `](<x y>)`, `src="x"`, `url="x"`, `page="x"`, `href="x"` (GitBook's HTML
 * tables, cards and buttons, which the converter reads; an `href` in HTML it keeps as code is written back to its path by
 * the export like any `/pages/<id>`), and reference definitions. An inline link's destination is followed by its title
 * or its `)`: `](a.md#- how to)` holds a space and is no link (its text stays as written, GitBook shows it so); it was
 * rewritten to the import's batch ref, and the page's text and the next export said `](_gp4#- how to)`. A destination
 * may hold balanced parentheses, as CommonMark's (`](shot%20(1).png)`, the export's spelling of `shot (1).png`).
 * A footnote's definition (`[^1]: Some words`) is no reference definition: its text is no destination.
 */
const LINKS = [/(\]\(\s*)(<[^<>\n]*>|(?:[^()\s<>]|\([^()\s<>]*\))+)(?=\s*(?:\)|"|'|\(|$))/gm, /(\b(?:src|srcset|url|page|href)\s*=\s*")([^"]+)/g, /(^\s{0,3}\[(?!\^)[^\]]+\]:\s*<?)(\S+?)(?=>?(?:\s|$))/gm];

/**
 * Rewrites the links of a page (at `pagePath`) that point at files of the repository to what `replace`
 * answers for their path (from the content root), keeping their `#anchor`; other links are left alone.
 */
export function rewriteLinks(markdown: string, pagePath: string, replace: (path: string) => string | null): string {
  // An HTML comment is kept as written, never read as links: a path rewritten there (to a batch ref) stayed in its text
  // and an export wrote `<!-- [Metrics](_gp2) -->` into the repository.
  const outsideComments = markdown.includes('<!--') ? markdown.split(/(<!--[\s\S]*?-->)/) : [markdown];
  if (outsideComments.length > 1) return outsideComments.map((part, i) => (i % 2 === 1 ? part : rewriteLinks(part, pagePath, replace))).join('');
  let out = markdown;
  for (const pattern of LINKS) {
    out = out.replace(pattern, (whole, before: string, written: string) => {
      const to = linkedTarget(written, pagePath, replace);
      return to === null ? whole : `${before}${to}`;
    });
  }
  return out;
}

/**
 * What one link target of a page (at `pagePath`), as written or as the converter reads it, leads to: what `replace`
 * answers for the file of the repository it names (its path from the content root), its `#anchor` kept; null when it
 * names no such file. A folder's link leads to its `README.md`.
 */
export function linkedTarget(written: string, pagePath: string, replace: (path: string) => string | null): string | null {
  // A destination in angle brackets may hold spaces (`](<Getting Started/install.md>)`); an id needs none.
  const target = written.startsWith('<') && written.endsWith('>') ? written.slice(1, -1) : written;
  const hashAt = target.indexOf('#');
  const anchor = hashAt >= 0 ? target.slice(hashAt) : '';
  const bare = decodeTarget(target);
  if (bare === null) return null;
  const dir = dirname(pagePath);
  const path = target.startsWith('/') ? cleanPath(bare) : cleanPath(dir ? `${dir}/${bare}` : bare);
  // Written with a trailing `/` (`./`, `v0.73/`), it names a folder whatever its name looks like (no `.73` file).
  const folder = isFolderLink(path) || /(?:^|\/)\.{0,2}$/.test(bare);
  const to = replace(path) ?? (folder ? replace(path ? `${path}/README.md` : 'README.md') : null);
  return to === null ? null : `${to}${anchor}`;
}

/**
 * A page file's text as an export writes it where files moved: the text of the file that was at `from` and is now at
 * `to` (the same path for a page written again) with its links to moved files written for their new places and labelled
 * with their new names (relinkMovedFiles, then relabelMovedLinks over what it gives), and, given the file it replaces
 * (`previous`), its mentions labelled as that file labelled them. `moved`: a moved file's path when synced -> its path now.
 * Where nothing moved and the page stays where it was, no link leads anywhere new and none is relabelled (every answer of
 * both is "as it is"): the mentions alone are looked at, not every link of the page seven times (an export's every page).
 */
export function relinkedForMoves(markdown: string, from: string, to: string, moved: ReadonlyMap<string, string>, previous = ''): string {
  if (moved.size === 0 && from === to) return previous ? mentionsLabelledAsBefore(markdown, previous, linkPathFrom(dirname(to))) : markdown;
  const movedBack = reversedMoves(moved);
  return relabelMovedLinks(relinkMovedFiles(markdown, from, to, (path) => moved.get(path) ?? null), to, (path) => movedBack.get(path) ?? null, previous);
}

/** A moved file's path now -> its path when synced, made once per map of moves (an export asks for every page it writes). */
const movesReversed = new WeakMap<ReadonlyMap<string, string>, Map<string, string>>();
function reversedMoves(moved: ReadonlyMap<string, string>): Map<string, string> {
  let back = movesReversed.get(moved);
  if (!back || back.size !== moved.size) movesReversed.set(moved, (back = new Map([...moved].map(([was, now]) => [now, was]))));
  return back;
}

/**
 * The text of a file that was at `from` and is now at `to` (the same path when only the files it links to moved), each
 * relative link and include tag written for the new places: a link to a file that moved (`moved` answers its new path,
 * from the content root) leads to its new path, and every relative link of a file that moved to another folder leads
 * where it led. Everything else, the link's spelling included (`./`, a folder's `guides/`, angle brackets, `%20`, the
 * anchor), stays byte for byte, as GitBook's move of a page rewrites the links of the pages that lead to it
 * (docs-sfp GITBOOK-247: `../../api-reference/integrations.md` became `../../project/integrations.md`).
 */
function relinkMovedFiles(markdown: string, from: string, to: string, moved: (path: string) => string | null): string {
  const relink = (written: string): string | null => {
    const angled = written.startsWith('<') && written.endsWith('>');
    const target = angled ? written.slice(1, -1) : written;
    if (target.startsWith('/') || target.startsWith('#')) return null;
    const hashAt = target.indexOf('#');
    const anchor = hashAt >= 0 ? target.slice(hashAt) : '';
    const bare = decodeTarget(target);
    if (bare === null || isBrokenReference(bare)) return null;
    const path = cleanPath(dirname(from) ? `${dirname(from)}/${bare}` : bare);
    const folder = isFolderLink(path) && moved(path) === null ? (path ? `${path}/README.md` : 'README.md') : null;
    const now = moved(folder ?? path) ?? (folder ?? path);
    if (now === (folder ?? path) && dirname(from) === dirname(to)) return null;
    let rewritten = relativePath(to, now);
    if (folder !== null && basename(now).toLowerCase() === 'readme.md') {
      rewritten = rewritten.replace(/(^|\/)README\.md$/i, '$1') || './';
      if (!target.replace(/[?#].*$/, '').endsWith('/')) rewritten = rewritten.replace(/(?<=.)\/$/, '');
    }
    if (target.startsWith('./') && !rewritten.startsWith('.')) rewritten = `./${rewritten}`;
    // Spelled as the link was: spaces kept raw where it had them, other characters escaped where it escaped them.
    if (/ /.test(target)) rewritten = rewritten.replace(/%20/g, ' ');
    else if (/%(?!20)[0-9A-Fa-f]{2}/.test(target)) rewritten = encodeURI(rewritten.replace(/%20/g, ' '));
    const out = `${rewritten}${anchor}`;
    return out === target ? null : angled ? `<${out}>` : out;
  };
  // A link labelled with its target's file name (GitBook's mentions and content-refs: `[setup.md](../setup.md "mention")`)
  // is labelled with the new one's, as GitBook writes it; the label sits before the match, so the text is rebuilt.
  let out = '';
  let from_ = 0;
  for (const match of markdown.matchAll(LINKS[0])) {
    const [whole, before, written] = match;
    const to = relink(written);
    if (to === null) continue;
    const at = match.index;
    const named = basename((decodeTarget(written.replace(/^<|>$/g, '')) ?? '').replace(/\/+$/, ''));
    const label = `[${named}`;
    const renamed = named && markdown.slice(at - label.length, at) === label ? basename(decodeTarget(to.replace(/^<|>$/g, '')) ?? '') : '';
    out += renamed ? `${markdown.slice(from_, at - named.length)}${renamed}` : markdown.slice(from_, at);
    out += `${before}${to}`;
    from_ = at + whole.length;
  }
  out += markdown.slice(from_);
  for (const pattern of LINKS.slice(1)) out = out.replace(pattern, (whole, before: string, written: string) => {
    const to = relink(written);
    return to === null ? whole : `${before}${to}`;
  });
  return out.replace(INCLUDE, (whole, before: string, written: string, after: string) => {
    const to = relink(written);
    return to === null ? whole : `${before}${to}${after}`;
  });
}

/**
 * A link to a folder (`./`, `../guides/`, `guides`): GitBook writes a link to a folder's `README.md` page so; it
 * leads to that page when there is one.
 */
const isFolderLink = (path: string) => !/\.[A-Za-z0-9]+$/.test(basename(path));

const INCLUDE = /(\{%\s*include\s+")([^"]+)("\s*%\})/g;

/** GitBook's link to a target that is gone, written `broken-reference` at every depth: no path to rebase. */
const isBrokenReference = (target: string) => /^broken-reference\/?$/.test(target);

/**
 * Rewrites the `{% include "<path>" %}` tags of a page (at `pagePath`) whose path (relative to the page, or from
 * the content root with a leading `/`) is a file `replace` knows: to what it answers (the reusable content's id).
 * Other tags are left alone.
 */
export function rewriteIncludes(markdown: string, pagePath: string, replace: (target: string) => string | null): string {
  const dir = dirname(pagePath);
  return markdown.replace(INCLUDE, (whole, before: string, target: string, after: string) => {
    const bare = decodeTarget(target.replace(/&quot;/g, '"'));
    const path = bare === null ? target : target.startsWith('/') ? cleanPath(bare) : cleanPath(dir ? `${dir}/${bare}` : bare);
    const to = replace(path);
    return to === null ? whole : `${before}${to}${after}`;
  });
}

/** Is a path (from the content root) a reusable content's file? */
export const isIncludePath = (path: string) => path.startsWith('.gitbook/includes/') && /\.md$/i.test(path);

/**
 * The links of a page (at `pagePath`) to a file that moved, labelled with the name it had (`[setup.md](install.md
 * "mention")`, a cards table's `<a href="install.md">setup.md</a>`), labelled with its new one, as GitBook labels a
 * mention, a content-ref and a link cell (its target's file name; a folder's page, its folder's name). `movedFrom`
 * answers the path (from the content root) a file now at `path` had. relinkMovedFiles relabels a kept file's Markdown
 * links as it rewrites them; a page written again names a mention read with its target's file name by the name it
 * has now (such a label is the target's, not stored), but holds an author's label, and one stored by an import made
 * before labels were derived, as it was read, and a link cell's label is no Markdown link: these kept the old name.
 */
function relabelMovedLinks(markdown: string, pagePath: string, movedFrom: (path: string) => string | null, previous = ''): string {
  const pathOf = linkPathFrom(dirname(pagePath));
  const relabel = (label: string, written: string): string | null => {
    const path = pathOf(written);
    if (path === null) return null;
    const folder = isFolderLink(path) ? (path ? `${path}/README.md` : 'README.md') : null;
    const now = movedFrom(path) !== null ? path : folder;
    const was = now === null ? null : movedFrom(now);
    if (now === null || was === null) return null;
    const readme = (p: string) => basename(p).toLowerCase() === 'readme.md';
    if (label === basename(was)) return basename(now);
    if (readme(was) && readme(now) && label === basename(dirname(was)) && dirname(now)) return basename(dirname(now));
    return null;
  };
  const relabelled = markdown.replace(LABELLED_LINK, (whole, open: string, label: string, middle: string, written: string, mention: string | undefined) => {
    const to = relabel(label, written);
    return to === null || /[\\[\]*`<>&]/.test(to) ? whole : `${open}${to}${middle}${written}${mention ?? ''}`;
  });
  const cells = relabelled.replace(HTML_LINK, (whole, open: string, written: string, label: string, close: string) => {
    const to = relabel(label, hrefTarget(written));
    return to === null || /[<&]/.test(to) ? whole : `${open}${to}${close}`;
  });
  return previous ? mentionsLabelledAsBefore(cells, previous, pathOf) : cells;
}

/** The path (from the content root) a link's target names, written in a page of folder `dir`; null for a broken reference or one that does not decode. */
function linkPathFrom(dir: string): (written: string) => string | null {
  return (written) => {
    const bare = decodeTarget(written);
    if (bare === null || isBrokenReference(bare)) return null;
    return bare.startsWith('/') ? cleanPath(bare) : cleanPath(dir ? `${dir}/${bare}` : bare);
  };
}

/** A Markdown link, `[label](target`, and whether it is GitBook's mention (`"mention"` its title). */
const LABELLED_LINK = /(\[)([^[\]\n]+)(\]\(\s*)(<[^<>\n]*>|[^()\s<>]+)(\s+"mention"\))?/g;

/**
 * A page written again whose mention or card (a `{% content-ref %}`'s link) is labelled (the document's label, the one
 * it was read with: `setup.md`) otherwise than its target's name (`install.md`) where the file replaced labelled that
 * target with its name and never with this label: the target's file was renamed since, and an export relabelled the
 * link in the file (relinkMovedFiles), not in the document. It takes the name again, as GitBook labels a mention and a
 * card. A label of the author's own (`[Setup](setup.md "mention")`), which the file replaced has, stays; so does any
 * other link's label that is no file or folder name (`[the setup](install.md)`).
 */
function mentionsLabelledAsBefore(markdown: string, previous: string, pathOf: (written: string) => string | null): string {
  const labels = new Map<string, Set<string>>();
  const add = (label: string, written: string) => {
    const path = pathOf(written);
    if (path !== null) labels.set(path, (labels.get(path) ?? new Set()).add(label));
  };
  for (const [, , label, , written] of previous.matchAll(LABELLED_LINK)) add(label, written);
  for (const [, , written, label] of previous.matchAll(HTML_LINK)) add(label, hrefTarget(written));
  if (labels.size === 0) return markdown;
  // The target's name where the link should be labelled with it again, else null.
  const renamed = (label: string, written: string, mention: boolean): string | null => {
    const path = pathOf(written);
    const name = basename((decodeTarget(written) ?? '').replace(/\/+$/, ''));
    const before = path === null ? undefined : labels.get(path);
    if (!before || !name || label === name || before.has(label) || !before.has(name) || /[\\[\]*`<>&]/.test(name)) return null;
    return mention || /^[^\s/]+$/.test(label) ? name : null;
  };
  return markdown
    .replace(LABELLED_LINK, (whole, open: string, label: string, middle: string, written: string, mention: string | undefined) => {
      const name = renamed(label, written, !!mention);
      return name === null ? whole : `${open}${name}${middle}${written}${mention ?? ''}`;
    })
    .replace(HTML_LINK, (whole, open: string, written: string, label: string, close: string) => {
      const name = renamed(label, hrefTarget(written), false);
      return name === null ? whole : `${open}${name}${close}`;
    });
}

/** An HTML link (a cards table's link cell, `<a href="setup.md">setup.md</a>`): its opening tag, href, label and closing tag. */
const HTML_LINK = /(<a\b[^>]*?\bhref="([^"]+)"[^>]*>)([^<]*)(<\/a>)/g;
/** An HTML link's href as a Markdown link would write it: GitBook's `&` written as `&#x26;` (or `&amp;`) read back. */
const hrefTarget = (href: string) => href.replace(/&#x26;|&amp;/g, '&');

/**
 * A page file's heading 1 line as written (`# Setup`, or a setext heading's text line), after its front matter and blank
 * lines; null where it begins otherwise. Two writings of a page with the same one kept its title.
 */
export function titleHeadingLine(markdown: string): string | null {
  const lines = markdown.replace(/^\uFEFF/, '').split(/\r?\n/);
  let at = 0;
  if (/^---[ \t]*$/.test(lines[0] ?? '')) {
    const end = lines.findIndex((line, i) => i > 0 && /^(?:---|\.\.\.)[ \t]*$/.test(line));
    if (end < 0) return null;
    at = end + 1;
  }
  while (at < lines.length && lines[at].trim() === '') at++;
  const line = lines[at];
  if (line === undefined) return null;
  if (/^ {0,3}#(?:[ \t]|$)/.test(line)) return line.trim();
  return /^ {0,3}=+[ \t]*$/.test(lines[at + 1] ?? '') ? line.trim() : null;
}
