/**
 * GitBook Markdown -> GitBook's JSON document. Parsing is remark's (CommonMark, GFM tables,
 * strikethrough, task lists, autolinks and footnotes, YAML front matter, `$$` math) extended with
 * GitBook's block tags as a micromark flow construct (syntax/liquid-tag.ts); this module pairs the
 * tags among siblings (syntax/tags.ts) and maps the resulting tree onto GitBook's block model, reading
 * the HTML GitBook's Markdown uses (`<figure>`, `<img data-size>`, `<mark>`, `<details>`) with an HTML
 * parser (syntax/html.ts).
 *
 * Nothing is dropped. What GitBook's model cannot hold stays visible: unknown HTML blocks as code, inline
 * HTML and footnotes as text, tags without a block of their own as text, and blocks a container may not hold move out
 * next to it. Link reference definitions and HTML comments render nothing in Markdown, so are no
 * content (the source patch keeps their lines in the file).
 *
 * Bounded work for any input: one parse, one linear pairing pass per container, and nesting deeper
 * than `MAX_NESTING` or input longer than `MAX_MARKDOWN_LENGTH` is refused with a
 * MarkdownConversionError (a 400 at the API), never a stack overflow.
 */
import type { Element, ElementContent } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import type {
  Blockquote,
  Code,
  Definition,
  FootnoteDefinition,
  FootnoteReference,
  Heading,
  Html,
  Image,
  ImageReference,
  List,
  Link,
  ListItem,
  Nodes,
  Paragraph,
  PhrasingContent,
  Root,
  RootContent,
  Table,
} from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import remarkParse from 'remark-parse';
import './syntax/edit-map-fix';
import { unified, type Processor } from 'unified';
import { parse as parseYaml } from 'yaml';
import {
  BLOCK_CHILD_TYPES,
  assignKeys,
  type AnyBlock,
  type ContentRef,
  type DocumentBlockCode,
  type DocumentBlockImage,
  type DocumentBlockListItem,
  type DocumentBlockParagraph,
  type DocumentBlockTable,
  type DocumentFragment,
  type DocumentInline,
  type DocumentInlineContent,
  type DocumentInlineImage,
  type DocumentInlineLink,
  type DocumentMark,
  type DocumentText,
  type DocumentTextLeaf,
  ESSENTIAL_BLOCK_TYPES,
  type HintStyle,
  HINT_STYLES,
  type ImageRef,
  type JSONDocument,
  type MarkdownStyle,
  type TableColumnAlignment,
  type TopLevelBlock,
} from './document';
import { HeadingIdAllocator } from './heading-ids';
import { mentionLabelOf } from './hrefs';
import { emojiText } from './html-table-writer';
import { splitHtmlAtTagLines } from './syntax/html-tag-lines';
import { type HtmlTable, flowPartOf, htmlCellValue, htmlColumnKind, openTables, readHtmlTable, readSplitHtmlTable } from './syntax/html-table';
import { readAlignedParagraph, readImagesHtml } from './syntax/images-html';
import { footnoteIdentifier, type PreCode, type PreCodeNote, preCodeOf, readPreCode } from './syntax/pre-code';
import { DEFAULT_PAGE_LAYOUT, LAYOUT_PARTS, type PageLayoutFrontmatter } from './page-layout';
import { attribute, closingTagName, elementText, elementsOf, hasClass, htmlElements, markColors, openingTag, TEXT_COLORS } from './syntax/html';
import { INLINE_HTML_MARKS, type Picture, readInlineElement, readPicture } from './syntax/inline-html';
import { liquidTagFromMarkdown, liquidTagSyntax, type LiquidTagNode } from './syntax/liquid-tag';
import { leadingUnknownTag, matchTags, parseTag, readAttributes, type ParsedTag } from './syntax/tags';

export type LinkResolver = (href: string) => ContentRef | null;

export interface MarkdownToDocumentOptions {
  /**
   * Decides what a link or image target points at; `null` means an external URL. Defaults to
   * `defaultResolveLink`. See `createPathLinkResolver` for slug paths and relative `.md` links.
   */
  resolveLink?: LinkResolver;
}

export interface MarkdownConversion {
  document: JSONDocument;
  /** Frontmatter `title`, else the text of a leading heading 1 (which is then not in the document). */
  title?: string;
  /** Frontmatter `description`. */
  description?: string;
  frontmatter: Record<string, unknown>;
  /** The front matter keys GitBook reads into a page's fields, each checked for its type. */
  page: PageFrontmatter;
}

/** What GitBook's Git Sync reads from a page's front matter into the page. */
export interface PageFrontmatter {
  description?: string;
  icon?: string;
  cover?: string;
  coverY?: number;
  hidden?: boolean;
  /** GitBook's page layout (`width`, `cover`, and the `visible` flag of each part), read onto the defaults. */
  layout?: PageLayoutFrontmatter;
  /** A condition on the visitor for the whole page. */
  if?: string;
  /** Page variables (`vars:`). */
  vars?: Record<string, unknown>;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
}

/** The page fields of a front matter mapping; keys of the wrong type are left out. */
export function pageFrontmatter(frontmatter: Record<string, unknown>): PageFrontmatter {
  const page: PageFrontmatter = {};
  const text = (key: 'description' | 'icon' | 'cover' | 'if') => {
    const value = scalarText(frontmatter[key]);
    if (value !== undefined) page[key] = value;
  };
  text('description');
  text('icon');
  text('cover');
  text('if');
  if (typeof frontmatter.coverY === 'number' && Number.isFinite(frontmatter.coverY)) page.coverY = frontmatter.coverY;
  for (const flag of ['hidden', 'noIndex', 'noRobotsIndex'] as const) if (typeof frontmatter[flag] === 'boolean') page[flag] = frontmatter[flag] as boolean;
  if (isMapping(frontmatter.vars)) page.vars = frontmatter.vars;
  if (isMapping(frontmatter.layout)) page.layout = readLayout(frontmatter.layout);
  return page;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** GitBook's `layout:` (`width: wide`, `cover: {visible, size}`, `title: {visible: false}`, ...); what it does not say is the default. */
function readLayout(raw: Record<string, unknown>): PageLayoutFrontmatter {
  const layout = { ...DEFAULT_PAGE_LAYOUT };
  if (raw.width === 'wide' || raw.width === 'default') layout.width = raw.width;
  for (const part of LAYOUT_PARTS) {
    const value = raw[part];
    if (isMapping(value) && typeof value.visible === 'boolean') layout[part] = value.visible;
  }
  const cover = raw.cover;
  if (isMapping(cover)) {
    if (typeof cover.visible === 'boolean') layout.cover = cover.visible;
    if (cover.size === 'hero' || cover.size === 'full') layout.coverSize = cover.size;
  }
  return layout;
}

export { layoutFrontmatter } from './page-layout';

/**
 * Markdown that cannot be converted: only its frontmatter can be wrong. Any body converts, what
 * GitBook's model cannot hold being kept as text or code (see the comments at each such place).
 */
export class MarkdownConversionError extends Error {
  override name = 'MarkdownConversionError';
}

// ---------------------------------------------------------------------------------------------
// Links

const PAGE_HREF = /^(?:\/spaces\/([^/?#]+))?\/pages\/([^/?#]+)\/?(?:#(.*))?$/;
const FILE_HREF = /^\/files\/([^/?#]+)\/?$/;

/**
 * `/pages/<id>` -> page, `/files/<id>` -> file; anything else is a URL (null). Also reads back the
 * other hrefs `documentToMarkdown` writes by default: `/pages/<id>#<anchor>` and
 * `/spaces/<space>/pages/<id>`.
 */
export function defaultResolveLink(href: string): ContentRef | null {
  const page = PAGE_HREF.exec(href);
  if (page) {
    const [, space, id, anchor] = page;
    const inSpace = space ? { space } : {};
    return anchor ? { kind: 'anchor', anchor, page: id, ...inSpace } : { kind: 'page', page: id, ...inSpace };
  }
  const file = FILE_HREF.exec(href);
  return file ? { kind: 'file', file: file[1] } : null;
}

export interface PathLinkResolverOptions {
  /** The space's pages with their GitBook path (`guides/install`, no leading slash). */
  pages?: ReadonlyArray<{ id: string; path: string }>;
  /** Instead of `pages`: the id of the page at a normalized path (see `linkedPagePath`), if any. */
  lookup?: (path: string) => string | undefined;
  /** Page path that relative links start from: the parent of the page being converted (`guides`). */
  base?: string;
}

/**
 * The page path a link written in Markdown points at, normalized (`../guides/install.md#x` from
 * `a` -> `guides/install`, anchor `x`); null for URLs, builtin hrefs and in-page anchors.
 */
export function linkedPagePath(href: string, base = ''): { path: string; anchor: string } | null {
  if (defaultResolveLink(href)) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) return null;
  const hashAt = href.indexOf('#');
  const anchor = hashAt >= 0 ? href.slice(hashAt + 1) : '';
  const pathPart = (hashAt >= 0 ? href.slice(0, hashAt) : href).replace(/\?.*$/, '');
  if (pathPart === '') return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    return null;
  }
  const segments = decoded.startsWith('/') ? decoded.split('/') : [...base.split('/').filter(Boolean), ...decoded.split('/')];
  return { path: normalizePagePath(segments), anchor };
}

/**
 * Resolves what authors write in a space's Markdown: `/pages/<id>` and `/files/<id>`, slug paths
 * (`/guides/install`), relative Markdown files (`../guides/install.md`, `install.md#step-2`, a folder's
 * `README.md`) and in-page anchors (`#step-2`). Targets that match no page are URLs (null).
 */
export function createPathLinkResolver(options: PathLinkResolverOptions): LinkResolver {
  const byPath = new Map((options.pages ?? []).map((page) => [normalizePagePath(page.path.split('/')), page.id]));
  const lookup = options.lookup ?? ((path: string) => byPath.get(path));
  const base = options.base ?? '';
  return (href) => {
    const builtin = defaultResolveLink(href);
    if (builtin) return builtin;
    const hashAt = href.indexOf('#');
    if ((hashAt >= 0 ? href.slice(0, hashAt) : href).replace(/\?.*$/, '') === '' && !/^[a-z][a-z0-9+.-]*:/i.test(href)) {
      const anchor = hashAt >= 0 ? href.slice(hashAt + 1) : '';
      return anchor ? { kind: 'anchor', anchor } : null;
    }
    const target = linkedPagePath(href, base);
    if (!target) return null;
    const page = lookup(target.path);
    if (page === undefined) return null;
    return target.anchor ? { kind: 'anchor', anchor: target.anchor, page } : { kind: 'page', page };
  };
}

/** `a/./b/../c.md` -> `a/c`; a folder's `README.md` is the folder's own page (GitBook's Git layout). */
function normalizePagePath(segments: string[]): string {
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  if (out.length > 0) out[out.length - 1] = out[out.length - 1].replace(/\.md$/i, '');
  if (out.length > 0 && out[out.length - 1].toLowerCase() === 'readme') out.pop();
  return out.join('/');
}


// ---------------------------------------------------------------------------------------------
// Limits

/** Longer Markdown is refused: 4 MiB is far beyond any page (GitBook's largest are under 1 MiB). */
export const MAX_MARKDOWN_LENGTH = 4 * 1024 * 1024;
/** Containers (quotes, lists, tags) nested deeper than this are refused rather than recursed into. */
export const MAX_NESTING = 48;

// ---------------------------------------------------------------------------------------------
// GitBook block tags

export { BLOCK_TAG_NAMES } from './block-tags';
/** Tags that have no end tag: a `{% endinclude %}` after an include is text, not its end. */
const NEVER_PAIRED = new Set<string>(['include', 'page-ref']);
/**
 * Tags that are whole without an end tag; the others wrap content and need theirs. A file without its caption is
 * `{% file src="..." %}` alone in earlier exports (cipp-docs, navixy-public-docs, predicthq).
 */
const STANDALONE_TAGS = new Set<string>(['embed', 'page-ref', 'include', 'file', 'openapi-operation', 'openapi-schemas', 'openapi-webhook']);

/** A tag line paired with its end tag (or standing alone), with the flow between them. */
interface TagBlock {
  type: 'gitbookTagBlock';
  tag: ParsedTag;
  /** The source of the opening tag line, kept for tags that end up as text. */
  source: string;
  paired: boolean;
  children: FlowNode[];
  /** The source of its end tag's line, when paired. */
  endSource?: string;
}
/** `<details>` ... `</details>` HTML around Markdown: an expandable. */
interface DetailsBlock {
  type: 'gitbookDetails';
  open: boolean;
  summary: PhrasingContent[] | null;
  /** The summary's content when it holds elements (a `<mark>`), read as inline HTML: its text alone lost them. */
  summaryHtml: ElementContent[] | null;
  children: FlowNode[];
}
/** An HTML table written over several HTML blocks with Markdown between them (syntax/html-table.ts). */
interface SplitHtmlTable {
  type: 'gitbookHtmlTable';
  table: HtmlTable;
  /** The runs of Markdown its cells hold, by the index their placeholder names. */
  parts: FlowNode[][];
}
type FlowNode = RootContent | LiquidTagNode | TagBlock | DetailsBlock | SplitHtmlTable;

function gitbookTags(this: Processor) {
  const data = this.data();
  (data.micromarkExtensions ??= []).push(liquidTagSyntax);
  (data.fromMarkdownExtensions ??= []).push(liquidTagFromMarkdown);
}

/** The name of remark-gfm's transform that links literal URLs and addresses (mdast-util-gfm-autolink-literal). */
export const LITERAL_AUTOLINK_TRANSFORM = 'transformGfmAutolinkLiterals';

/** What every literal autolink holds: an `@` (an address, `mailto:`, `xmpp:`), `http://`, `https://` or `www.`. */
const LITERAL_AUTOLINK_MARK = /@|https?:\/\/|www\./i;

/** Whether a text of the tree outside links (which the transform leaves alone) holds a literal autolink's mark. */
function mayHoldLiteralAutolink(node: Root | RootContent): boolean {
  if (node.type === 'text') return LITERAL_AUTOLINK_MARK.test(node.value);
  if (node.type === 'link' || node.type === 'linkReference' || !('children' in node)) return false;
  return (node.children as Array<RootContent>).some(mayHoldLiteralAutolink);
}

/**
 * remark-gfm's literal autolinks are found after the tree is built, by a transform that walks the whole tree (with
 * each node's ancestors) once for each of its four regular expressions: the most costly step of a parse after
 * micromark's own (6% of an imported page's conversion). None of them can match a text without the marks of
 * `mayHoldLiteralAutolink`, so the transform runs only on a tree that has one: the same tree, without the walks on
 * most pages. `LITERAL_AUTOLINK_TRANSFORM` names the transform; a test checks it is still found.
 */
function literalAutolinksOnlyWhereMarked(this: Processor) {
  const extensions = (this.data().fromMarkdownExtensions ?? []).flat() as Array<{ transforms?: Array<(tree: Root) => Root | undefined | void> }>;
  for (const extension of extensions) {
    const transforms = extension.transforms ?? [];
    transforms.forEach((transform, i) => {
      if (transform.name !== LITERAL_AUTOLINK_TRANSFORM) return;
      const guarded = (tree: Root) => (mayHoldLiteralAutolink(tree) ? transform(tree) : undefined);
      Object.defineProperty(guarded, 'name', { value: `${LITERAL_AUTOLINK_TRANSFORM}WhereMarked` });
      transforms[i] = guarded;
    });
  }
}

const parser = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(literalAutolinksOnlyWhereMarked)
  .use(remarkFrontmatter, ['yaml'])
  // GitBook writes math between `$$`, inline and as a block; a single `$` is a dollar.
  .use(remarkMath, { singleDollarTextMath: false })
  .use(gitbookTags);

// ---------------------------------------------------------------------------------------------
// Conversion

/** A conversion with where its body starts in the (normalized) source, for `markdownToDocument` (round-trip.ts). */
export interface MarkdownRead {
  conversion: MarkdownConversion;
  source: string;
  bodyStart: number;
  /** The text of the leading heading 1 read as the title; null when the title, if any, came from front matter. */
  headingTitle: string | null;
  /** The tree the conversion was read from (offsets in `source`): where its code is, without parsing the page again. */
  tree: Root;
}

export function readMarkdown(markdown: string, options: MarkdownToDocumentOptions = {}): MarkdownRead {
  if (markdown.length > MAX_MARKDOWN_LENGTH) {
    throw new MarkdownConversionError(`Markdown is too long (${markdown.length} characters, at most ${MAX_MARKDOWN_LENGTH})`);
  }
  const source = markdown.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const tree = parser.parse(source);
  splitHtmlAtTagLines(tree, source);
  const frontmatter = readFrontmatter(tree);
  let body = tree.children.filter((node) => node.type !== 'yaml');

  let title = scalarText(frontmatter.title);
  const first = body[0];
  const headingTitle = first?.type === 'heading' && first.depth === 1 ? toString(first).trim() : '';
  const titleFromHeading = title === undefined && headingTitle !== '';
  if (titleFromHeading) {
    title = headingTitle;
    body = body.slice(1);
  }
  const description = scalarText(frontmatter.description);

  const converter = new Converter(options.resolveLink ?? defaultResolveLink, tree, source);
  const nodes = converter.flow(body, 0) as TopLevelBlock[];
  const style = readMarkdownStyle(tree, source);
  const document: JSONDocument = { object: 'document', data: style ? { markdownStyle: style } : {}, nodes };
  const conversion: MarkdownConversion = {
    document: assignKeys(document),
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    frontmatter,
    page: pageFrontmatter(frontmatter),
  };
  const bodyStart = body[0]?.position?.start.offset ?? source.length;
  return { conversion, source, bodyStart, headingTitle: titleFromHeading ? headingTitle : null, tree };
}

/**
 * The syntax choices of the source where Markdown offers several and GitBook's model records none:
 * the bullet (`*`, `-` or `+`), the emphasis (`_` or `*`) and strong (`**` or `__`) markers, and
 * whether parentheses in text were escaped (`\(`, as GitBook's earlier exporter wrote them). Only what
 * differs from GitBook's own export is recorded, in the document's `data` (GitBook's JSONDocument allows
 * any key there), so that a page written by hand comes back as it was written; `documentToMarkdown`
 * reads it. Null when the source writes as GitBook does.
 */
function readMarkdownStyle(tree: Root, source: string): MarkdownStyle | null {
  const bullets = new Map<string, number>();
  const emphasis = new Map<string, number>();
  const strong = new Map<string, number>();
  let escapedParentheses = 0;
  let plainParentheses = 0;
  let idOnlyAnchors = false;
  const code = new Map<string, number>();
  const rules = new Map<string, number>();
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const stack: Nodes[] = [tree];
  while (stack.length) {
    const node = stack.pop()!;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (node.type === 'list' && !node.ordered) {
      for (const item of node.children) if (item.position?.start.offset !== undefined) count(bullets, source[item.position.start.offset]);
    } else if (node.type === 'emphasis' && start !== undefined) count(emphasis, source[start]);
    else if (node.type === 'strong' && start !== undefined) count(strong, source[start]);
    else if (node.type === 'heading' && !idOnlyAnchors) {
      // GitBook's earlier exporter wrote a heading's anchor as `<a id="x"></a>`, without its href.
      const last = node.children.filter((child) => child.type === 'html').at(-2);
      const element = last?.type === 'html' ? openingTag(last.value) : null;
      idOnlyAnchors = element?.tagName === 'a' && attribute(element, 'id') !== undefined && attribute(element, 'href') === undefined;
    }
    else if (node.type === 'thematicBreak' && start !== undefined) count(rules, source[start]);
    else if (node.type === 'code' && !node.lang && start !== undefined) count(code, /^[ \t]*(?:`{3}|~{3})/.test(source.slice(start, start + 64)) ? 'fenced' : 'indented');
    else if (node.type === 'text' && start !== undefined && end !== undefined) {
      const raw = source.slice(start, end);
      for (const match of raw.matchAll(/\\?[()]/g)) {
        if (match[0].length === 2) escapedParentheses++;
        else plainParentheses++;
      }
    }
    if ('children' in node) for (const child of node.children) stack.push(child as Nodes);
  }
  const majority = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1])[0]?.[0];
  const style: MarkdownStyle = {};
  const bullet = majority(bullets);
  if (bullet === '-' || bullet === '+') style.bullet = bullet;
  if (majority(emphasis) === '*') style.emphasis = '*';
  if (majority(strong) === '_') style.strong = '_';
  if (escapedParentheses > 0 && plainParentheses === 0) style.escapedParentheses = true;
  if (idOnlyAnchors) style.headingAnchors = 'id';
  // A page whose code without a language is mostly indented (a notebook's outputs): written fenced, each of its lines
  // differed from the source, and the patch keeping them passed what a page may hold (the page was written whole).
  if (majority(code) === 'indented') style.indentedCode = true;
  // GitBook writes a divider `***`; an author's `---` is kept where the page is written whole, as their bullets are.
  const rule = majority(rules);
  if (rule === '-' || rule === '_') style.rule = rule;
  return Object.keys(style).length ? style : null;
}

/** YAML reads `title: 2024` as a number; it is still the text the author meant. */
function scalarText(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const text = String(value).trim();
  return text === '' ? undefined : text;
}

function readFrontmatter(tree: Root): Record<string, unknown> {
  const first = tree.children[0];
  if (first?.type !== 'yaml') return {};
  let data: unknown;
  try {
    data = parseYaml(first.value);
  } catch (error) {
    throw new MarkdownConversionError(`Invalid YAML frontmatter: ${error instanceof Error ? error.message : String(error)}`);
  }
  // A single value (a line between two `---` lines reads as one string) sets nothing, as an empty one; a list is an error.
  if (data === null || typeof data !== 'object') return {};
  if (Array.isArray(data)) throw new MarkdownConversionError('YAML frontmatter must be a mapping of keys to values');
  return data as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Inline content

type MarkSpec = DocumentMark;
type Marks = readonly MarkSpec[];

/** One canonical order, so equal formatting always gives equal leaves. */
const MARK_ORDER = ['bold', 'italic', 'strikethrough', 'code', 'keyboard', 'superscript', 'subscript', 'color'];

function withMark(marks: Marks, mark: MarkSpec): Marks {
  const rest = marks.filter((m) => m.type !== mark.type);
  return [...rest, mark].sort((a, b) => MARK_ORDER.indexOf(a.type) - MARK_ORDER.indexOf(b.type));
}
const simpleMark = (type: 'bold' | 'italic' | 'strikethrough' | 'code' | 'keyboard' | 'superscript' | 'subscript'): MarkSpec => ({ object: 'mark', type });

function sameMarks(a: readonly DocumentMark[], b: Marks): boolean {
  return a.length === b.length && a.every((mark, i) => JSON.stringify(mark) === JSON.stringify(b[i]));
}

function textNode(text: string): DocumentText {
  return { object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] };
}

function plainParagraph(text: string): DocumentBlockParagraph {
  return { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: [textNode(text)] };
}

/**
 * Collects a run of inline content, merging adjacent text with equal marks into one leaf. GitBook's
 * editor keeps a text node before, after and between inlines; `finish` adds empty ones there.
 */
class InlineBuilder {
  private readonly nodes: DocumentInlineContent[] = [];

  text(text: string, marks: Marks) {
    if (text === '') return;
    const last = this.nodes[this.nodes.length - 1];
    const leaf = { object: 'leaf' as const, text, marks: marks.map((mark) => ({ ...mark })) };
    if (last?.object !== 'text') {
      this.nodes.push({ object: 'text', leaves: [leaf] });
      return;
    }
    const previous = last.leaves[last.leaves.length - 1];
    if (sameMarks(previous.marks, marks)) previous.text += text;
    else last.leaves.push(leaf);
  }

  inline(node: DocumentInline) {
    this.nodes.push(node);
  }

  append(nodes: readonly DocumentInlineContent[]) {
    for (const node of nodes) {
      if (node.object === 'inline') this.inline(node);
      else for (const leaf of node.leaves) this.text(leaf.text, leaf.marks);
    }
  }

  /**
   * Takes the word the text ends with (its leaves, marks kept) off the end: what a footnote right after it annotates.
   * Null when the content ends with anything but a word.
   */
  takeTrailingWord(): DocumentText | null {
    const last = this.nodes[this.nodes.length - 1];
    if (last?.object !== 'text') return null;
    const taken: DocumentTextLeaf[] = [];
    while (last.leaves.length > 0) {
      const leaf = last.leaves[last.leaves.length - 1];
      const word = /\S+$/.exec(leaf.text)?.[0] ?? '';
      if (word === '') break;
      taken.unshift({ ...leaf, text: word });
      if (word.length < leaf.text.length) {
        leaf.text = leaf.text.slice(0, -word.length);
        break;
      }
      last.leaves.pop();
    }
    if (last.leaves.length === 0) this.nodes.pop();
    return taken.length ? { object: 'text', leaves: taken } : null;
  }

  finish(): DocumentInlineContent[] {
    const out: DocumentInlineContent[] = [];
    for (const node of this.nodes) {
      if (node.object === 'inline' && out[out.length - 1]?.object !== 'text') out.push(textNode(''));
      out.push(node);
    }
    if (out[out.length - 1]?.object !== 'text') out.push(textNode(''));
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// The converter

class Converter {
  private readonly definitions = new Map<string, Definition>();
  private readonly headingIds = new HeadingIdAllocator();
  /** Footnotes (`[^1]: ...`) by identifier, and those that become the note of an annotation (so are no block of their own). */
  private readonly footnotes = new Map<string, FootnoteDefinition>();
  private readonly notes = new Set<string>();
  /** The footnotes whose note is being read: a footnote that refers to itself is text there, not a loop. */
  private readonly readingNotes = new Set<string>();
  /** GitBook's annotation of several words, `[some words](#user-content-fn-1)[^1]`: its link, and the footnote after it (`annotatedSpan`). */
  private readonly noteLinks = new WeakMap<Nodes, FootnoteReference>();
  private readonly spanReferences = new WeakSet<Nodes>();

  constructor(
    private readonly resolveLink: LinkResolver,
    tree: Root,
    private readonly source = '',
  ) {
    // Iterative: a deeply nested tree must not overflow the stack before the nesting check sees it.
    const stack: Nodes[] = [tree];
    while (stack.length) {
      const node = stack.pop()!;
      if (node.type === 'definition' && !this.definitions.has(node.identifier)) this.definitions.set(node.identifier, node);
      if (node.type === 'footnoteDefinition' && !this.footnotes.has(node.identifier)) this.footnotes.set(node.identifier, node);
      if (node.type === 'html' && node.value.includes('data-footnote-ref')) for (const label of codeNoteLabels(node.value)) this.notes.add(label);
      if (!('children' in node)) continue;
      node.children.forEach((child, i) => {
        const before = node.children[i - 1] as Nodes | undefined;
        if (child.type === 'footnoteReference' && before && linksToNote(before, child.identifier)) this.noteLinks.set(before, child);
        if (child.type === 'footnoteReference' && (followsWord(before) || this.noteLinks.has(before!))) this.notes.add(child.identifier);
        stack.push(child as Nodes);
      });
    }
    for (const label of this.notes) if (!this.footnotes.has(label)) this.notes.delete(label);
  }

  /**
   * GitBook's annotation: `text` with the footnote `label`'s content as its note (GitBook's Markdown of an annotation
   * is a footnote right after the word it annotates: `word[^1]` and `[^1]: note`). Null when there is no such footnote.
   */
  private annotation(label: string, text: DocumentText): DocumentInline | null {
    const footnote = this.footnotes.get(label);
    if (!footnote || !this.notes.has(label) || this.readingNotes.has(label)) return null;
    this.readingNotes.add(label);
    const body = this.flow(footnote.children, 1);
    this.readingNotes.delete(label);
    const nodes = body.map((block) => adapt(block, ANNOTATION_BODY_TYPES) ?? plainParagraph(blockText(block)));
    return {
      object: 'inline',
      type: 'annotation',
      isVoid: false,
      data: {},
      nodes: [text],
      fragments: [{ object: 'fragment', fragment: 'annotation-body', type: 'annotation-body', nodes: nodes.length ? nodes : [plainParagraph('')] }],
    } as unknown as DocumentInline;
  }

  /**
   * A link to a footnote's anchor right before that footnote (`[some words](#user-content-fn-1)[^1]`): GitBook's
   * Markdown of an annotation of several words (`word[^1]` annotates one). Null where its text holds more than text.
   */
  private annotatedSpan(link: Link, marks: Marks): DocumentInline | null {
    const reference = this.noteLinks.get(link);
    if (!reference) return null;
    const builder = new InlineBuilder();
    this.phrasing(link.children, marks, builder, false);
    const content = builder.finish();
    if (content.some((node) => node.object !== 'text')) return null;
    const text: DocumentText = { object: 'text', leaves: content.flatMap((node) => (node as DocumentText).leaves) };
    const annotation = this.annotation(reference.identifier, text);
    if (annotation) this.spanReferences.add(reference);
    return annotation;
  }

  /** GitBook's code block in HTML, its annotations (`<a data-footnote-ref>`) read as such. */
  private preCode(pre: PreCode): DocumentBlockCode {
    return preCodeBlock(pre, (label, text) => this.annotation(label, textNode(text)));
  }

  /** Converts flow content; the result may hold any top-level block, the caller fits it. */
  flow(nodes: readonly FlowNode[], depth: number): AnyBlock[] {
    if (depth > MAX_NESTING) throw new MarkdownConversionError(`Markdown is nested too deeply (more than ${MAX_NESTING} levels of lists, quotes or blocks)`);
    return groupFlow(nodes, this.source).flatMap((node) => this.block(node, depth));
  }

  private block(node: FlowNode, depth: number): AnyBlock[] {
    switch (node.type) {
      case 'paragraph':
        return [this.paragraph(node)];
      case 'heading':
        return [this.heading(node)];
      case 'thematicBreak':
        return [{ object: 'block', type: 'divider', isVoid: true, data: {} }];
      case 'blockquote':
        return this.blockquote(node, depth);
      case 'list':
        return [this.list(node, depth)];
      case 'code':
        return [this.code(node)];
      case 'math':
        return [mathBlock(node.value)];
      case 'table':
        return [this.table(node)];
      case 'html':
        return this.htmlBlock(node);
      case 'definition':
        // Used or not, a definition renders nothing (CommonMark): `[//]: # (comment)` is how authors write a comment.
        // GitBook's export drops the line (istex-doc e2923cf, mintbase-docs b849fd8); the source patch keeps it.
        return [];
      case 'footnoteDefinition':
        return this.footnoteDefinition(node, depth);
      case 'yaml':
        return [];
      case 'gitbookLiquidTag':
        // A tag line that `groupFlow` made no block of: its text, as written.
        return [plainParagraph(node.value)];
      case 'gitbookTagBlock':
        return this.tagBlock(node, depth);
      case 'gitbookDetails':
        return [this.expandable(node, depth)];
      case 'gitbookHtmlTable':
        return [this.htmlTable(node.table, (part) => this.flow(node.parts[part] ?? [], depth + 1))];
      default:
        return [plainParagraph(toString(node))];
    }
  }

  private paragraph(node: Paragraph): AnyBlock {
    const images = onlyImages(node);
    if (images) return { object: 'block', type: 'images', isVoid: false, data: {}, nodes: images.map((image) => this.imageBlock(image)) };
    const only = node.children.length === 1 ? node.children[0] : null;
    // GitBook writes a block formula as `$$...$$` alone in its paragraph.
    if (only?.type === 'inlineMath') return mathBlock(only.value);
    const drawing = only?.type === 'html' ? this.drawing(only.value) : null;
    if (drawing) return drawing;
    return { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: this.inlines(this.leadingTagAsText(node) ?? node.children) };
  }

  /**
   * A paragraph's children with the unknown tag its line begins with (`leadingUnknownTag`) as one text of its source:
   * read as Markdown, its `https://...` attribute was a link, and the line a legacy tag whose text was edited (ours the
   * tag as written) read back otherwise, so the page was written whole our way. Null where the line begins with none.
   */
  private leadingTagAsText(node: Paragraph): PhrasingContent[] | null {
    const start = node.position?.start.offset;
    if (start === undefined || this.source[start] !== '{') return null;
    const lineEnd = this.source.indexOf('\n', start);
    const tag = leadingUnknownTag(this.source.slice(start, lineEnd < 0 ? undefined : lineEnd));
    if (!tag) return null;
    const end = start + tag.length;
    const out: PhrasingContent[] = [{ type: 'text', value: tag }];
    for (const child of node.children) {
      const [from, to] = [child.position?.start.offset, child.position?.end.offset];
      if (from === undefined || to === undefined) return null;
      if (to <= end) continue;
      if (from >= end) out.push(child);
      // A text the tag's end falls in, written as it reads (no escape): its part after the tag.
      else if (child.type === 'text' && this.source.slice(from, to) === child.value) out.push({ ...child, value: child.value.slice(end - from) });
      else return null;
    }
    return out;
  }

  /**
   * GitBook's page title is `#`; its three heading levels are `##`, `###` and `####` (a `#` further
   * down is a heading 1, `#####` and deeper a heading 3). A trailing `<a href="#x" id="x"></a>` is the
   * heading's own anchor.
   */
  private heading(node: Heading): AnyBlock {
    const level = node.depth <= 2 ? 1 : Math.min(node.depth - 1, 3);
    const children = [...node.children];
    const explicit = trailingAnchor(children);
    if (explicit) children.splice(children.length - explicit.consumed);
    const nodes = this.inlines(children, true);
    const id = this.headingIds.allocate(explicit?.id, inlineText(nodes));
    return {
      object: 'block',
      type: `heading-${level}`,
      isVoid: false,
      data: explicit ? { id: explicit.id } : {},
      meta: { id },
      nodes,
    };
  }

  private blockquote(node: Blockquote, depth: number): AnyBlock[] {
    return fitInto('blockquote', this.flow(node.children, depth + 1), (nodes) => ({ object: 'block', type: 'blockquote', isVoid: false, data: {}, nodes }));
  }

  private list(node: List, depth: number): AnyBlock {
    const nodes = node.children.map((item) => this.listItem(item, depth + 1));
    if (node.ordered) {
      const start = typeof node.start === 'number' && node.start !== 1 ? { start: node.start } : {};
      return { object: 'block', type: 'list-ordered', isVoid: false, data: start, nodes };
    }
    const tasks = node.children.length > 0 && node.children.every((item) => typeof item.checked === 'boolean');
    return { object: 'block', type: tasks ? 'list-tasks' : 'list-unordered', isVoid: false, data: {}, nodes };
  }

  private listItem(node: ListItem, depth: number): DocumentBlockListItem {
    const children = this.flow(node.children, depth);
    const allowed = BLOCK_CHILD_TYPES['list-item'];
    // What a list item may not hold is adapted (images to inline images) or kept as its text.
    const nodes = (children.length ? children : [plainParagraph('')]).map((child) => adapt(child, allowed) ?? plainParagraph(blockText(child)));
    const data = typeof node.checked === 'boolean' ? { checked: node.checked } : {};
    return { object: 'block', type: 'list-item', isVoid: false, data, nodes: nodes as DocumentBlockListItem['nodes'] };
  }

  private code(node: Code): DocumentBlockCode {
    const block = codeBlock(node.value, node.lang ?? undefined);
    // Of the info string after the language, only a `title="..."` has a place in GitBook's model.
    const title = node.meta ? readAttributes(node.meta).title : undefined;
    return title ? withCodeAttributes(block, { title }) : block;
  }

  /**
   * A GFM table becomes GitBook's table block: one text column per Markdown column, one record per
   * body row, and each cell's content in a fragment that the record's value names.
   */
  private table(node: Table): DocumentBlockTable {
    const [header, ...rows] = node.children;
    const width = Math.max(node.align?.length ?? 0, ...node.children.map((row) => row.children.length));
    const columns = Array.from({ length: width }, (_, i) => `c${i + 1}`);
    const definition: DocumentBlockTable['data']['definition'] = {};
    columns.forEach((id, i) => {
      const cell = header?.children[i];
      const align = node.align?.[i];
      // GitBook's text columns always have an alignment, left by default: `:---` and `---` are both left.
      const textAlignment: TableColumnAlignment = align === 'center' || align === 'right' ? align : 'left';
      definition[id] = { id, title: cell ? toString(cell).trim() : '', type: 'text', textAlignment };
    });
    const records: DocumentBlockTable['data']['records'] = {};
    const fragments: DocumentBlockTable['fragments'] = [];
    const digits = Math.max(4, String(rows.length).length);
    rows.forEach((row, r) => {
      const recordId = `r${r + 1}`;
      const values: Record<string, string> = {};
      columns.forEach((column, c) => {
        const name = `${recordId}-${column}`;
        fragments.push({ object: 'fragment', fragment: name, nodes: this.cellBlocks(row.children[c]?.children ?? []) as never });
        values[column] = name;
      });
      records[recordId] = { orderIndex: String(r).padStart(digits, '0'), values };
    });
    const hideHeader = Object.values(definition).every((column) => column.title === '');
    return { object: 'block', type: 'table', isVoid: true, data: { view: { type: 'grid', columns, hideHeader }, records, definition }, fragments };
  }

  /**
   * An HTML table (syntax/html-table.ts) becomes GitBook's table block: a cards table's target column of links a
   * `content-ref` column, its cover columns `image` (or `files`) columns, `checkbox` and `number` columns their values;
   * any other column is text, its cells' HTML read into blocks. Widths are the grid's `columnWidths`.
   */
  private htmlTable(table: HtmlTable, flowPart: FlowPart = noFlowPart): DocumentBlockTable {
    const ids = table.columns.map((_, i) => `c${i + 1}`);
    const refKind = (href: string) => this.resolveLink(href)?.kind ?? 'url';
    const kinds = table.columns.map((column, i) => htmlColumnKind(column, table.rows.map((row) => row[i]), refKind));
    const definition: DocumentBlockTable['data']['definition'] = {};
    table.columns.forEach((column, i) => {
      const kind = kinds[i];
      definition[ids[i]] =
        kind === 'text'
          ? { id: ids[i], title: column.title, type: 'text', textAlignment: column.align, ...(column.valign ? { verticalAlignment: column.valign } : {}) }
          : { id: ids[i], title: column.title, type: kind };
    });
    const records: DocumentBlockTable['data']['records'] = {};
    const fragments: DocumentBlockTable['fragments'] = [];
    const digits = Math.max(4, String(table.rows.length).length);
    const resolveFile = (href: string) => (this.resolveLink(href) as { file: string }).file;
    table.rows.forEach((row, r) => {
      const recordId = `r${r + 1}`;
      const values: Record<string, unknown> = {};
      ids.forEach((id, c) => {
        const cell = row[c];
        const kind = kinds[c];
        if (kind !== 'text') values[id] = htmlCellValue(kind, cell, (href) => this.linkRef(href), resolveFile);
        else {
          const name = `${recordId}-${id}`;
          fragments.push({ object: 'fragment', fragment: name, nodes: this.htmlCellBlocks(cell?.children ?? [], flowPart) as never });
          values[id] = name;
        }
      });
      records[recordId] = { orderIndex: String(r).padStart(digits, '0'), values };
    });
    const visible = ids.filter((_, i) => !table.columns[i].hidden);
    const target = ids.find((_, i) => kinds[i] === 'content-ref' && table.columns[i].cardTarget);
    const isCover = (i: number) => kinds[i] === 'files' || kinds[i] === 'image';
    const cover = ids.find((_, i) => isCover(i) && table.columns[i].cardCover);
    const coverDark = ids.find((_, i) => isCover(i) && table.columns[i].cardCoverDark);
    const widths = Object.fromEntries(ids.flatMap((id, i) => (table.columns[i].width !== undefined ? [[id, table.columns[i].width!]] : [])));
    const view: DocumentBlockTable['data']['view'] =
      table.view === 'cards'
        ? {
            type: 'cards',
            columns: visible,
            cardSize: table.cardSize ?? 'medium',
            ...(target ? { targetDefinition: target } : {}),
            ...(cover ? { coverDefinition: cover } : {}),
            ...(coverDark ? { coverDefinitionDark: coverDark } : {}),
          }
        : { type: 'grid', columns: visible, hideHeader: table.headerHidden, ...(Object.keys(widths).length ? { columnWidths: widths } : {}) };
    return { object: 'block', type: 'table', isVoid: true, data: { view, records, definition, ...(table.fullWidth !== undefined ? { fullWidth: table.fullWidth } : {}) }, fragments };
  }

  /**
   * A cell's HTML: `<p>`, headings, lists and `<pre>` code as blocks, the rest (text, marks, links, icons) as
   * paragraphs; a run of Markdown (a table split over HTML blocks) as its blocks.
   */
  private htmlCellBlocks(children: readonly ElementContent[], flowPart: FlowPart): AnyBlock[] {
    const blocks: AnyBlock[] = [];
    let run: ElementContent[] = [];
    const flush = () => {
      if (run.some((node) => node.type === 'element' || (node.type === 'text' && node.value.trim() !== ''))) blocks.push(this.htmlParagraph(trimRun(run)));
      run = [];
    };
    for (const child of children) {
      const part = child.type === 'element' ? flowPartOf(child) : null;
      const pre = child.type === 'element' && child.tagName === 'pre' ? preCodeOf(child) : null;
      if (part === null && !pre && (child.type !== 'element' || !CELL_BLOCK_TAGS.has(child.tagName))) {
        run.push(child);
        continue;
      }
      flush();
      if (part !== null) blocks.push(...flowPart(part));
      else if (pre) blocks.push(this.preCode(pre));
      else blocks.push(this.htmlCellBlock(child as Element, flowPart));
    }
    flush();
    return fitAll('table-cell', blocks.length ? blocks : [plainParagraph('')]);
  }

  private htmlCellBlock(element: Element, flowPart: FlowPart): AnyBlock {
    const heading = /^h([1-6])$/.exec(element.tagName);
    if (heading) {
      const depth = Number(heading[1]);
      // No anchor of the page's outline: a cell's heading takes no id, so the page's headings keep theirs.
      return { object: 'block', type: `heading-${depth <= 2 ? 1 : Math.min(depth - 1, 3)}`, isVoid: false, data: {}, nodes: this.htmlInlines(element.children) } as AnyBlock;
    }
    if (element.tagName === 'ul' || element.tagName === 'ol') {
      const items = elementsOf(element.children).filter((item) => item.tagName === 'li');
      const nodes = items.map((item) => ({ object: 'block', type: 'list-item', isVoid: false, data: {}, nodes: this.htmlCellBlocks(item.children, flowPart) }));
      return { object: 'block', type: element.tagName === 'ol' ? 'list-ordered' : 'list-unordered', isVoid: false, data: {}, nodes } as AnyBlock;
    }
    return this.htmlParagraph(trimRun(element.children));
  }

  private htmlParagraph(nodes: readonly ElementContent[]): AnyBlock {
    return { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: this.htmlInlines(nodes) };
  }

  /** Inline HTML as GitBook's table cells hold it: `<strong>`, `<em>`, `<code>`, `<a>`, icons, buttons, `<mark>`, `<br>`, `<img>`. */
  private htmlInlines(nodes: readonly ElementContent[]): DocumentInlineContent[] {
    const out = new InlineBuilder();
    this.htmlPhrasing(nodes, [], out);
    return out.finish();
  }

  private htmlPhrasing(nodes: readonly ElementContent[], marks: Marks, out: InlineBuilder) {
    for (const node of nodes) {
      if (node.type === 'text') out.text(node.value.replace(/\s*\n\s*/g, ' '), marks);
      if (node.type !== 'element') continue;
      const special = this.htmlSpecialInline(node);
      if (special) {
        out.inline(special);
        continue;
      }
      if (node.tagName === 'br') out.text('\n', marks);
      else if (node.tagName === 'a' && attribute(node, 'href') !== undefined && attribute(node, 'dataMention') !== undefined) {
        out.inline(this.mention(attribute(node, 'href')!, elementText(node).trim()));
      } else if (node.tagName === 'a' && attribute(node, 'href') !== undefined) {
        const inner = new InlineBuilder();
        this.htmlPhrasing(node.children, marks, inner);
        out.inline({ object: 'inline', type: 'link', isVoid: false, data: { ref: this.linkRef(attribute(node, 'href')!) }, nodes: inner.finish() as Array<DocumentText | DocumentInlineImage> });
      } else {
        const mark = INLINE_HTML_MARKS[node.tagName]?.(node);
        this.htmlPhrasing(node.children, mark ? withMark(marks, mark) : marks, out);
      }
    }
  }

  /** The void inlines an HTML element of a cell may be: an image, an icon, a button, an expression. */
  private htmlSpecialInline(element: Element): DocumentInline | null {
    if (element.tagName === 'img') return this.htmlInlineImage(element);
    if (element.tagName === 'code' && hasClass(element, 'expression')) return { object: 'inline', type: 'expression', isVoid: true, data: { expression: elementText(element) } } as DocumentInline;
    const text = element.children.every((child) => child.type === 'text');
    return this.iconOrButton(element, text, elementText(element));
  }

  /** A cell's content; GitBook writes a cell of several paragraphs as `<p>one</p><p>two</p>`. */
  private cellBlocks(children: readonly PhrasingContent[]): AnyBlock[] {
    const paragraphs = splitHtmlParagraphs(children);
    if (!paragraphs) return [{ object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: this.inlines(children) }];
    return paragraphs.map((part) => ({ object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: this.inlines(part) }));
  }

  private footnoteDefinition(node: FootnoteDefinition, depth: number): AnyBlock[] {
    // The note of an annotation is in the annotation.
    if (this.notes.has(node.identifier)) return [];
    // Unreferenced, GitBook has no place for it: the definition stays as text, `[^label]: ` before its content.
    const label = `[^${node.label ?? node.identifier}]: `;
    const blocks = this.flow(node.children, depth + 1);
    const first = blocks[0];
    if (first?.type !== 'paragraph') return [plainParagraph(label.trimEnd()), ...blocks];
    const builder = new InlineBuilder();
    builder.text(label, []);
    builder.append(first.nodes as DocumentInlineContent[]);
    return [{ ...first, nodes: builder.finish() }, ...blocks.slice(1)];
  }

  // -- HTML blocks

  /**
   * `<figure>` images, `<img class="gitbook-drawing">`, GitBook's `<pre><code>` code blocks; any other HTML is kept,
   * verbatim, as code.
   */
  private htmlBlock(node: Html): AnyBlock[] {
    // A comment is no content: GitBook's model has no place for it and its reader shows none (the source patch keeps
    // it in the file when the page is edited).
    if (onlyComments(node.value)) return [];
    const table = readHtmlTable(node.value);
    if (table) return [this.htmlTable(table)];
    const drawing = this.drawing(node.value);
    if (drawing) return [drawing];
    const figures = this.figures(node.value);
    if (figures) return [figures];
    const inline = this.inlineHtmlLine(node.value);
    if (inline) return [inline];
    const aligned = readAlignedParagraph(node.value);
    if (aligned) return [{ object: 'block', type: 'paragraph', isVoid: false, data: { align: aligned.align }, nodes: this.htmlInlines(trimRun(aligned.children)) }];
    const pre = readPreCode(node.value);
    if (pre) return [this.preCode(pre)];
    return [codeBlock(node.value, 'html')];
  }

  private drawing(html: string): AnyBlock | null {
    const elements = htmlElements(html);
    const img = elements.length === 1 && elements[0].tagName === 'img' ? elements[0] : null;
    if (!img || !hasClass(img, 'gitbook-drawing')) return null;
    const src = attribute(img, 'src') ?? '';
    const ref = this.resolveLink(src);
    const alt = attribute(img, 'alt');
    // A drawing names its file; a path that is no uploaded file is kept as written, in `src`.
    const data = ref?.kind === 'file' ? { ref } : { src };
    return { object: 'block', type: 'drawing', isVoid: true, data: { ...data, ...(alt ? { alt } : {}) } };
  }

  /**
   * A line of only inline images, icons and buttons (`<img src="logo.svg" alt="" data-size="line">`, GitBook's
   * paragraph of one inline image): CommonMark makes a tag alone on its line an HTML block, GitBook a paragraph.
   */
  private inlineHtmlLine(html: string): AnyBlock | null {
    if (html.includes('\n')) return null;
    const root = fromHtml(html, { fragment: true });
    const children = root.children as ElementContent[];
    const inlineOnly = children.every((child) =>
      child.type === 'text' ? child.value.trim() === '' : child.type === 'element' && ((child.tagName === 'img' && !hasClass(child, 'gitbook-drawing')) || this.htmlSpecialInline(child) !== null),
    );
    if (!inlineOnly || !children.some((child) => child.type === 'element')) return null;
    return this.htmlParagraph(trimRun(children));
  }

  /** One or more `<figure><img ...><figcaption>...</figcaption></figure>`, or a `<div>` of them: an images block. */
  private figures(html: string): AnyBlock | null {
    const read = readImagesHtml(html);
    if (!read) return null;
    const images: AnyBlock[] = read.images.map(({ img, darkSrc, caption, captionHtml }) => {
      const alt = attribute(img, 'alt');
      const width = lengthOf(attribute(img, 'width'));
      return {
        object: 'block',
        type: 'image',
        isVoid: true,
        data: {
          ref: this.imageRef(attribute(img, 'src') ?? ''),
          ...(darkSrc !== undefined ? { refDark: this.imageRef(darkSrc) } : {}),
          ...(alt ? { alt } : {}),
          ...(width !== undefined ? { width } : {}),
        },
        // A caption holding a link (or marks) keeps them: read as its text, its link was lost when the caption was edited.
        fragments: caption ? [{ object: 'fragment', fragment: 'caption', nodes: [captionHtml ? this.htmlParagraph(trimRun(captionHtml)) : plainParagraph(caption)] }] : [],
      };
    });
    return { object: 'block', type: 'images', isVoid: false, data: read.data, nodes: images };
  }

  private expandable(node: DetailsBlock, depth: number): AnyBlock {
    const title = node.summaryHtml ? this.htmlInlines(trimRun(node.summaryHtml)) : node.summary ? this.inlines(node.summary) : [textNode('')];
    const body = fitIntoFragment('expandable', this.flow(node.children, depth + 1));
    return {
      object: 'block',
      type: 'expandable',
      isVoid: true,
      data: node.open ? { defaultExpanded: true } : {},
      fragments: [
        { object: 'fragment', fragment: 'expandable-title', type: 'expandable-title', nodes: [{ object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: title }] },
        { object: 'fragment', fragment: 'expandable-body', type: 'expandable-body', nodes: body.length ? body : [plainParagraph('')] },
      ],
    };
  }

  // -- tags

  private tagBlock(node: TagBlock, depth: number): AnyBlock[] {
    const { tag } = node;
    // A tag that wraps content but lacks its end tag is the text it is (items excepted: see itemsBlock).
    if (!node.paired && !STANDALONE_TAGS.has(tag.name) && !tag.name.startsWith('@')) return [plainParagraph(node.source)];
    const attributes = tag.attributes;
    const children = () => this.flow(node.children, depth + 1);
    // A tag with no block of its own: its lines as text around its content, the end tag's too (legacy
    // `{% api-method %}` blocks lost every `{% endapi-method-* %}` line once written: found-gitprobe17c 1, roam-ai).
    const asText = () => [plainParagraph(node.source), ...(node.paired ? children() : []), ...(node.endSource ? [plainParagraph(node.endSource)] : [])];
    const container = (type: string, data: Record<string, unknown>, blocks: AnyBlock[]) =>
      fitInto(type, blocks, (nodes) => ({ object: 'block', type, isVoid: false, data, nodes }));
    switch (tag.name) {
      case 'hint': {
        const style = HINT_STYLES.includes(attributes.style as HintStyle) ? attributes.style : 'info';
        return container('hint', { style, ...(attributes.icon ? { icon: attributes.icon } : {}) }, children());
      }
      case 'tabs':
        return [this.itemsBlock('tabs', 'tabs-item', node, depth, (item) => ({ title: item.attributes.title ?? '' }))];
      case 'stepper':
        return [this.itemsBlock('stepper', 'stepper-step', node, depth, () => ({}))];
      case 'columns':
        return [this.itemsBlock('columns', 'column', node, depth, (item) => columnData(item.attributes), fullWidthData(attributes))];
      case 'updates': {
        const format = ['numeric', 'full', 'short'].includes(attributes.format) ? attributes.format : 'full';
        return [this.itemsBlock('updates', 'update', node, depth, (item) => updateData(item.attributes), { format })];
      }
      case 'embed':
        return [this.embed(attributes.url ?? '', node.paired ? children() : [])];
      case 'content-ref':
        return [{ object: 'block', type: 'content-ref', isVoid: true, data: { ref: this.linkRef(attributes.url ?? '') } }];
      case 'page-ref':
        return [{ object: 'block', type: 'content-ref', isVoid: true, data: { ref: this.linkRef(attributes.page ?? attributes.url ?? '') } }];
      case 'code':
        return children().map((child) => (child.type === 'code' ? withCodeAttributes(child as DocumentBlockCode, attributes) : child));
      case 'file':
        return this.fileBlock(attributes.src ?? '', children());
      case 'include': {
        const target = readIncludeTarget(tag.rest);
        return target ? [reusableContentBlock(target)] : [plainParagraph(node.source)];
      }
      case 'if':
        return [{ object: 'block', type: 'if', isVoid: false, data: { expression: ifExpression(tag) }, nodes: fitAll('if', children()) }];
      case 'swagger':
        // GitBook's earlier form of its OpenAPI block, `{% swagger src="spec.json" path="/x" method="get" %}`; the
        // hand-written API method of older exports (no `src`, `{% swagger-parameter %}` inside) has no block.
        if (!attributes.src) return asText();
      // falls through
      case 'openapi':
        return [{ object: 'block', type: 'swagger', isVoid: true, data: { ref: this.linkRef(attributes.src ?? ''), path: attributes.path ?? '', method: attributes.method ?? '' } }];
      case 'openapi-operation':
        return [openAPIBlock('openapi-operation', attributes.spec ?? '', { path: attributes.path ?? '', method: attributes.method ?? '' })];
      case 'openapi-schemas':
        return [
          openAPIBlock('openapi-schemas', attributes.spec ?? '', {
            schemas: (attributes.schemas ?? '').split(',').filter(Boolean),
            grouped: attributes.grouped !== 'false',
          }),
        ];
      case 'openapi-webhook':
        return [openAPIBlock('openapi-webhook', attributes.spec ?? '', { name: attributes.name ?? '', method: attributes.method ?? '' })];
      case 'prompt': {
        const codes = children().filter((child) => child.type === 'code');
        const data = { description: attributes.description ?? '', ...(attributes.defaultExpanded ? { defaultExpanded: attributes.defaultExpanded } : {}) };
        return [{ object: 'block', type: 'prompt', isVoid: false, data, nodes: codes.length ? [codes[0]] : [codeBlock('', undefined)] }];
      }
      default:
        if (tag.name.startsWith('@')) return [integrationBlock(tag)];
        return asText();
    }
  }

  /** Tabs, steppers, columns, updates: a container of items, each an item tag around its content. */
  private itemsBlock(
    type: string,
    itemType: string,
    node: TagBlock,
    depth: number,
    itemData: (tag: ParsedTag) => Record<string, unknown>,
    data: Record<string, unknown> = {},
  ): AnyBlock {
    const itemTag = ITEM_TAGS[type];
    const items: Array<{ tag: ParsedTag; nodes: AnyBlock[] }> = [];
    for (const child of node.children) {
      if (child.type === 'gitbookTagBlock' && child.tag.name === itemTag) {
        // An item tag without its end tag (a slip GitBook forgives) takes what follows, up to the next item.
        items.push({ tag: child.tag, nodes: this.flow(child.children, depth + 2) });
      } else if (items.length > 0) {
        // Content between items belongs to the item before it (GitBook writes none there).
        items[items.length - 1].nodes.push(...this.flow([child], depth + 2));
      }
    }
    if (items.length === 0) items.push({ tag: { name: itemTag, closing: false, rest: '', attributes: {} }, nodes: [] });
    const blocks = items.map(
      (item): AnyBlock => ({
        object: 'block',
        type: itemType,
        isVoid: false,
        data: itemData(item.tag),
        nodes: fitAll(itemType, item.nodes.length ? item.nodes : [plainParagraph('')]),
      }),
    );
    return { object: 'block', type, isVoid: false, data, nodes: blocks };
  }

  /** `{% embed url="..." %}`, with a caption between it and `{% endembed %}` when there is one. */
  private embed(url: string, caption: AnyBlock[]): AnyBlock {
    const paragraphs = caption.filter((block) => block.type === 'paragraph');
    return {
      object: 'block',
      type: 'embed',
      isVoid: true,
      data: { url },
      ...(paragraphs.length ? { fragments: [{ object: 'fragment', fragment: 'caption', nodes: paragraphs }] } : {}),
    };
  }

  /** `{% file src="/files/<id>" %}caption{% endfile %}`: the caption is the paragraphs inside. */
  private fileBlock(src: string, children: AnyBlock[]): AnyBlock[] {
    const captions = children.filter((child) => child.type === 'paragraph');
    const rest = children.filter((child) => child.type !== 'paragraph');
    const ref = src ? this.resolveLink(src) : null;
    if (ref?.kind !== 'file') {
      // Not an uploaded file: keep it as a link so that neither the target nor the caption is lost.
      const text = captions.map((caption) => inlineText(caption.nodes as DocumentInlineContent[])).join(' ') || src;
      const target: ContentRef = ref ?? { kind: 'url', url: src };
      return [linkParagraph(target, text), ...rest];
    }
    const fragments = captions.length ? [{ object: 'fragment' as const, fragment: 'caption', nodes: captions }] : undefined;
    return [{ object: 'block', type: 'file', isVoid: true, data: { ref }, ...(fragments ? { fragments } : {}) }, ...rest];
  }

  private imageBlock(node: Image | ImageReference): DocumentBlockImage {
    const image = this.imageTarget(node);
    const caption: Array<DocumentFragment<DocumentBlockParagraph>> = image.title
      ? [{ object: 'fragment', fragment: 'caption', nodes: [plainParagraph(image.title)] }]
      : [];
    return {
      object: 'block',
      type: 'image',
      isVoid: true,
      data: { ref: this.imageRef(image.url), ...(image.alt ? { alt: image.alt } : {}) },
      fragments: caption,
    };
  }

  /** An image, or an image reference (`![alt][id]`) read through its definition. */
  private imageTarget(node: Image | ImageReference): { url: string; alt?: string | null; title?: string | null } {
    if (node.type === 'image') return node;
    const definition = this.definitions.get(node.identifier);
    return { url: definition?.url ?? '', alt: node.alt, title: definition?.title };
  }

  private imageRef(url: string): ImageRef {
    const ref = this.resolveLink(url) ?? defaultResolveLink(url);
    return ref?.kind === 'file' ? ref : { kind: 'url', url };
  }

  private linkRef(url: string): ContentRef {
    return this.resolveLink(url) ?? { kind: 'url', url };
  }

  // -- inline content

  private inlines(nodes: readonly PhrasingContent[], singleLine = false): DocumentInlineContent[] {
    const builder = new InlineBuilder();
    this.phrasing(nodes, [], builder, singleLine);
    return builder.finish();
  }

  /**
   * Phrasing content; inline HTML tags that open a mark (`<mark>`, `<kbd>`, `<sup>`, `<sub>`) apply it
   * to the siblings up to their closing tag, and `<code class="expression">` makes an expression.
   */
  private phrasing(nodes: readonly PhrasingContent[], marks: Marks, out: InlineBuilder, singleLine: boolean) {
    const closings = nodes.some((node) => node.type === 'html') ? htmlClosings(nodes) : null;
    for (let index = 0; index < nodes.length; index++) {
      const node = nodes[index];
      if (node.type === 'html' && closings) {
        const consumed = this.inlineHtml(nodes, index, closings[index], marks, out, singleLine);
        if (consumed > 0) {
          index += consumed - 1;
          continue;
        }
      }
      this.phrase(node, marks, out, singleLine);
    }
  }

  /** How many siblings from `index` an HTML construct took (0 when it is not one GitBook writes). */
  private inlineHtml(nodes: readonly PhrasingContent[], index: number, close: number, marks: Marks, out: InlineBuilder, singleLine: boolean): number {
    const element = openingTag((nodes[index] as Html).value);
    if (!element) return 0;
    if (element.tagName === 'img') {
      out.inline(this.htmlInlineImage(element));
      return 1;
    }
    if (element.tagName === 'br') {
      out.text('\n', marks);
      return 1;
    }
    if (close < 0) return 0;
    const inner = nodes.slice(index + 1, close);
    const special = this.iconOrButton(element, inner.every((node) => node.type === 'text'), toString({ type: 'paragraph', children: [...inner] }));
    if (special) {
      out.inline(special);
      return close - index + 1;
    }
    if (element.tagName === 'code' && hasClass(element, 'expression')) {
      out.inline({ object: 'inline', type: 'expression', isVoid: true, data: { expression: toString({ type: 'paragraph', children: inner }) } });
      return close - index + 1;
    }
    if (element.tagName === 'picture') {
      const picture = readPicture(nodes.slice(index, close + 1).map((node) => (node.type === 'html' ? node.value : '')).join(''));
      if (!picture) return 0;
      out.inline(this.pictureImage(picture));
      return close - index + 1;
    }
    const reading = readInlineElement(element);
    if (!reading) return 0;
    if (reading.kind === 'link' && reading.mention) out.inline(this.mention(reading.href, toString({ type: 'paragraph', children: inner })));
    else if (reading.kind === 'link') out.inline(this.link(reading.href, inner, marks));
    else this.phrasing(inner, reading.kind === 'mark' ? withMark(marks, reading.mark) : marks, out, singleLine);
    return close - index + 1;
  }

  /** An inline image with its dark-mode variant (`refDark`). */
  private pictureImage(picture: Picture): DocumentInlineImage {
    const data: DocumentInlineImage['data'] = { ref: this.imageRef(picture.src) };
    if (picture.darkSrc !== undefined) data.refDark = this.imageRef(picture.darkSrc);
    if (picture.alt !== undefined) data.alt = picture.alt;
    if (picture.size) data.size = picture.size;
    return { object: 'inline', type: 'inline-image', isVoid: true, data };
  }

  /**
   * GitBook's mention of a page. GitBook's mention holds no label: its app and site show the target as it is now, and its
   * Markdown labels it with the target's file name. A label that is that name is not kept (the mention is GitBook's, its
   * label the target's when read or written, so a renamed target relabels every page mentioning it); another label,
   * the author's own (`[Setup](setup.md "mention")`), is kept as the mention's text.
   */
  private mention(href: string, label: string): DocumentInline {
    const ref = this.linkRef(href);
    // A mention of an anchor keeps its label: the name is the page's, not the section's.
    if (!href.includes('#') && label === mentionLabelOf(href)) return { object: 'inline', type: 'mention', isVoid: true, data: { ref } };
    return { object: 'inline', type: 'mention', isVoid: true, data: { ref }, nodes: [textNode(label)] };
  }

  /**
   * GitBook's icon `<i class="fa-bolt" style="color:$primary;">:bolt:</i>` and button
   * `<a href="setup.md" class="button primary" data-icon="rocket">Set up</a>` (its writer's forms; to-markdown.ts
   * writes them so): the inline they are, or null for any other `<i>` or `<a>`.
   */
  private iconOrButton(element: Element, onlyText: boolean, text: string): DocumentInline | null {
    const classes = classNames(element);
    if (element.tagName === 'i') {
      const icon = classes.find((name) => name.startsWith('fa-') && name.length > 3)?.slice(3);
      if (!icon || !onlyText) return null;
      const color = markColors(attribute(element, 'style')).text;
      return { object: 'inline', type: 'icon', isVoid: true, data: { icon, ...(color !== 'default' && TEXT_COLORS.includes(color) ? { color } : {}) } } as DocumentInline;
    }
    if (element.tagName === 'span') return emojiSpan(element, onlyText, text);
    if (!classes.includes('button')) return null;
    const kind = classes.includes('secondary') ? 'secondary' : 'primary';
    const icon = attribute(element, 'dataIcon');
    const label = text.trim();
    const href = attribute(element, 'href');
    if (element.tagName === 'a' && href !== undefined) {
      return { object: 'inline', type: 'button', isVoid: true, data: { label, kind, ref: this.linkRef(href), ...(icon ? { icon } : {}) } } as DocumentInline;
    }
    // `<button class="button primary" data-action="ask" data-query="...">`: a button that opens the assistant or the
    // search (GitBook's `DocumentAction`), or selects an option by its slug.
    const action = buttonAction(element);
    if (element.tagName !== 'button' || !action) return null;
    return { object: 'inline', type: 'button', isVoid: true, data: { label, kind, action, ...(icon ? { icon } : {}) } } as DocumentInline;
  }

  private htmlInlineImage(element: Element): DocumentInlineImage {
    const size = attribute(element, 'dataSize');
    const alt = attribute(element, 'alt');
    return {
      object: 'inline',
      type: 'inline-image',
      isVoid: true,
      data: {
        ref: this.imageRef(attribute(element, 'src') ?? ''),
        ...(alt !== undefined ? { alt } : {}),
        ...(size === 'line' || size === 'original' ? { size } : {}),
      },
    };
  }

  private phrase(node: PhrasingContent, marks: Marks, out: InlineBuilder, singleLine: boolean) {
    switch (node.type) {
      case 'text':
        // A line break inside a paragraph is kept: GitBook's text holds it, and writes it back as one.
        return out.text(singleLine ? node.value.replace(/[ \t]*\n[ \t]*/g, ' ') : node.value.replace(/[ \t]*\n[ \t]*/g, '\n'), marks);
      case 'emphasis':
        return this.phrasing(node.children, withMark(marks, simpleMark('italic')), out, singleLine);
      case 'strong':
        return this.phrasing(node.children, withMark(marks, simpleMark('bold')), out, singleLine);
      case 'delete':
        return this.phrasing(node.children, withMark(marks, simpleMark('strikethrough')), out, singleLine);
      case 'inlineCode':
        return out.text(node.value.replace(/\n/g, ' '), withMark(marks, simpleMark('code')));
      case 'inlineMath':
        return out.inline({ object: 'inline', type: 'inline-math', isVoid: true, data: { formula: node.value } } as unknown as DocumentInline);
      case 'break':
        return out.text(singleLine ? ' ' : '\n', marks);
      case 'link':
        // GitBook's mention is a link titled "mention" (`[Page](page.md "mention")`): its inline `mention`, the label kept as its text.
        if (node.title === 'mention') return out.inline(this.mention(node.url, toString(node)));
        return out.inline(this.annotatedSpan(node, marks) ?? this.link(node.url, node.children, marks));
      case 'linkReference': {
        const definition = this.definitions.get(node.identifier);
        if (!definition) return this.phrasing(node.children, marks, out, singleLine);
        return out.inline(this.link(definition.url, node.children, marks));
      }
      case 'image':
      case 'imageReference': {
        // The parser makes a reference only when its definition exists.
        const image = this.imageTarget(node);
        return out.inline(this.inlineImage(image.url, image.alt, image.title));
      }
      case 'html':
        if (onlyComments(node.value)) return;
        // Inline HTML GitBook's model has no mark or inline for (`<center>`, a generic's `<T>`, a `<kbd>` left open) is
        // kept as the text it is, as GitBook keeps it. Read as code, it showed as code and a page written our way put
        // backticks around it in the file; as text, our writing escapes it (`\<center>`, GitBook's form) and the
        // source patch keeps the author's tags on a line whose edit is elsewhere.
        return out.text(node.value.replace(/\n/g, ' '), marks);
      case 'footnoteReference': {
        // The footnote of an annotation of several words, read with its link.
        if (this.spanReferences.has(node)) return;
        const word = this.notes.has(node.identifier) ? out.takeTrailingWord() : null;
        const annotation = word && this.annotation(node.identifier, word);
        if (annotation) return out.inline(annotation);
        if (word) out.append([word]);
        return out.text(`[^${node.label ?? node.identifier}]`, marks);
      }
      default:
        return out.text(toString(node), marks);
    }
  }

  private link(url: string, children: readonly PhrasingContent[], marks: Marks): DocumentInlineLink {
    const builder = new InlineBuilder();
    this.phrasing(withoutLinks(children), marks, builder, false);
    // Markdown cannot nest links, so a link's content is only text and images.
    const nodes = builder.finish() as Array<DocumentText | DocumentInlineImage>;
    return { object: 'inline', type: 'link', isVoid: false, data: { ref: this.linkRef(url) }, nodes };
  }

  private inlineImage(url: string, alt: string | null | undefined, title: string | null | undefined): DocumentInlineImage {
    return {
      object: 'inline',
      type: 'inline-image',
      isVoid: true,
      data: { ref: this.imageRef(url), ...(alt ? { alt } : {}), ...(title ? { caption: title } : {}) },
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Grouping flow content: tags with their end tags, `<details>` with `</details>`

const ITEM_TAGS: Record<string, string> = { tabs: 'tab', stepper: 'step', columns: 'column', updates: 'update' };

/**
 * Pairs tag lines with their end tags and `<details>` with `</details>` among siblings. Pairs are
 * found in one pass (`matchTags`); a pair that would cross another is not one, its tags stay text.
 */
function groupFlow(nodes: readonly FlowNode[], source: string): FlowNode[] {
  const children = groupSplitHtmlTables(hoistEndTags(nodes), source);
  const tags = children.map((child): ParsedTag | null => {
    if (child.type === 'gitbookLiquidTag') return parseTag(child.value);
    if (child.type === 'html') return detailsTag(child.value);
    return null;
  });
  if (tags.every((tag) => tag === null)) return [...children];
  const matches = matchTags(tags);
  const build = (from: number, to: number): FlowNode[] => {
    const out: FlowNode[] = [];
    for (let index = from; index < to; index++) {
      const tag = tags[index];
      const child = children[index];
      if (!tag) {
        out.push(child);
        continue;
      }
      const end = matches[index];
      const paired = !tag.closing && end > index && end < to && !NEVER_PAIRED.has(tag.name) && !tag.name.startsWith('@');
      if (tag.name === 'details') {
        if (paired) {
          out.push(detailsBlock(child as Html, build(index + 1, end)));
          index = end;
        } else out.push(child);
        continue;
      }
      if (tag.closing) {
        out.push({ type: 'paragraph', children: [{ type: 'text', value: (child as LiquidTagNode).value }] });
        continue;
      }
      const source = (child as LiquidTagNode).value;
      const endSource = paired && children[end].type === 'gitbookLiquidTag' ? (children[end] as LiquidTagNode).value : undefined;
      out.push({ type: 'gitbookTagBlock', tag, source, paired, children: paired ? build(index + 1, end) : [], ...(endSource ? { endSource } : {}) });
      if (paired) index = end;
    }
    return out;
  };
  return build(0, children.length);
}

/**
 * An end tag indented under a list's last item (`{% endstep %}` written in the item's indent after a list in a
 * step) closes the tag open around the list, as GitBook reads it: CommonMark made it the item's last line, the step
 * had no end and its content after the list fell out of it. Such end tags move out after the list when a tag of
 * their name is open among the list's siblings before it.
 */
function hoistEndTags(children: readonly FlowNode[]): readonly FlowNode[] {
  if (!children.some((child) => child.type === 'list')) return children;
  const open = new Map<string, number>();
  const count = (tag: ParsedTag | null) => tag && open.set(tag.name, (open.get(tag.name) ?? 0) + (tag.closing ? -1 : 1));
  const out: FlowNode[] = [];
  for (const child of children) {
    out.push(child);
    if (child.type === 'gitbookLiquidTag') count(parseTag(child.value));
    if (child.type !== 'list') continue;
    const ends = trailingEndTags(child);
    // The longest run of them, to the list's end, that each close a tag open here.
    for (let from = 0; from < ends.length; from++) {
      const run = ends.slice(from);
      const left = new Map(open);
      const closes = run.every((tag) => {
        const name = parseTag(tag.value)!.name;
        left.set(name, (left.get(name) ?? 0) - 1);
        return left.get(name)! >= 0;
      });
      if (!closes) continue;
      for (const tag of run) removeTag(child, tag);
      run.forEach((tag) => count(parseTag(tag.value)));
      out.push(...run);
      break;
    }
  }
  return out;
}

/** The end tags a list ends with, in order: its last item's last lines (or its own last list's). */
function trailingEndTags(list: List): LiquidTagNode[] {
  const item = list.children.at(-1);
  if (!item) return [];
  const ends: LiquidTagNode[] = [];
  for (let i = item.children.length - 1; i >= 0; i--) {
    const node = item.children[i] as FlowNode;
    if (node.type === 'gitbookLiquidTag' && parseTag(node.value)?.closing) ends.unshift(node);
    else {
      if (node.type === 'list' && i === item.children.length - 1) ends.unshift(...trailingEndTags(node));
      break;
    }
  }
  return ends;
}

function removeTag(list: List, tag: LiquidTagNode): void {
  const item = list.children.at(-1)!;
  const index = item.children.indexOf(tag as never);
  if (index >= 0) item.children.splice(index, 1);
  else if (item.children.at(-1)?.type === 'list') removeTag(item.children.at(-1) as List, tag);
}

/**
 * An HTML block opening a `<table>` it does not close, through the node that closes it: one table, when it reads as
 * one. Two forms: GitBook's own one-line table whose cell's `<pre>` code holds a blank line, which ends CommonMark's
 * HTML block there (the table is read from its source, whole); and a hand-written table with Markdown between its
 * HTML blocks (`readSplitHtmlTable`). One pass: a table never closed stops the search for others, so a page of
 * unclosed tables is not scanned once per table.
 */
function groupSplitHtmlTables(children: readonly FlowNode[], source: string): readonly FlowNode[] {
  const opens = (node: FlowNode) => node.type === 'html' && /^\s*<table[\s>]/i.test(node.value) && openTables(node.value) > 0;
  if (!children.some(opens)) return children;
  const text = (node: FlowNode) => (node.type === 'html' ? node.value : sourceOf(node, source));
  const out: FlowNode[] = [];
  let searching = true;
  for (let index = 0; index < children.length; index++) {
    const child = children[index];
    const end = searching && opens(child) ? tableEnd(children, index, text) : -1;
    if (searching && opens(child) && end < 0) searching = false;
    const table = end > 0 ? splitHtmlTable(children.slice(index, end + 1), source) : null;
    if (!table) {
      out.push(child);
      continue;
    }
    out.push(table);
    index = end;
  }
  return out;
}

/** The index of the node that closes the table `children[start]` opens, or -1. */
function tableEnd(children: readonly FlowNode[], start: number, text: (node: FlowNode) => string): number {
  let open = 0;
  for (let index = start; index < children.length; index++) {
    open += openTables(text(children[index]));
    if (open <= 0) return index;
  }
  return -1;
}

/** A node's source, from the (normalized) page; '' for a node without a position. */
function sourceOf(node: FlowNode, source: string): string {
  const position = 'position' in node ? node.position : undefined;
  return position?.start.offset !== undefined && position.end.offset !== undefined ? source.slice(position.start.offset, position.end.offset) : '';
}

function splitHtmlTable(nodes: readonly FlowNode[], source: string): SplitHtmlTable | null {
  const start = (nodes[0] as Html).position?.start;
  if (cutInsidePre(nodes) && start?.offset !== undefined) {
    // GitBook's one-line table with a blank line in a cell's code: its source is the table, less the indent of the
    // list item it is in.
    const indent = new RegExp(`\n {0,${start.column - 1}}`, 'g');
    const whole = source.slice(start.offset, sourceEnd(nodes.at(-1)!)).replace(indent, '\n');
    const table = readHtmlTable(whole);
    return table ? { type: 'gitbookHtmlTable', table, parts: [] } : null;
  }
  if (nodes.at(-1)?.type !== 'html') return null;
  const pieces: Array<string | number> = [];
  const parts: FlowNode[][] = [];
  for (const node of nodes) {
    if (node.type === 'html') pieces.push(node.value);
    else if (typeof pieces.at(-1) === 'number') parts[parts.length - 1].push(node);
    else pieces.push(parts.push([node]) - 1);
  }
  const table = readSplitHtmlTable(pieces);
  return table ? { type: 'gitbookHtmlTable', table, parts } : null;
}

function sourceEnd(node: FlowNode): number | undefined {
  return 'position' in node ? node.position?.end.offset : undefined;
}

/** Whether an HTML block of a table ends inside a `<pre>`: a blank line in its code ended the block there. */
function cutInsidePre(nodes: readonly FlowNode[]): boolean {
  let open = 0;
  for (const node of nodes) {
    if (node.type !== 'html') continue;
    open += (node.value.match(/<pre[\s>]/gi)?.length ?? 0) - (node.value.match(/<\/pre\s*>/gi)?.length ?? 0);
    if (open > 0) return true;
  }
  return false;
}

/** `<details>` (with its `<summary>` in the same HTML block or not) opens; `</details>` closes. */
function detailsTag(html: string): ParsedTag | null {
  const trimmed = html.trim();
  if (closingTagName(trimmed) === 'details') return { name: 'details', closing: true, rest: '', attributes: {} };
  if (!/^<details[\s>]/i.test(trimmed)) return null;
  const [details, ...rest] = htmlElements(trimmed);
  // The whole expandable in one HTML block is kept as HTML: its content is not Markdown.
  if (!details || details.tagName !== 'details' || rest.length > 0 || trimmed.includes('</details>')) return null;
  return { name: 'details', closing: false, rest: '', attributes: {} };
}

function detailsBlock(open: Html, children: FlowNode[]): DetailsBlock {
  const [details] = htmlElements(open.value);
  let summaryElement = elementsOf(details.children).find((child) => child.tagName === 'summary');
  let body = children;
  const first = children[0];
  if (!summaryElement && first?.type === 'html') {
    const [element] = htmlElements(first.value);
    if (element?.tagName === 'summary') {
      summaryElement = element;
      body = children.slice(1);
    }
  }
  const summaryText = summaryElement ? elementText(summaryElement).trim() : '';
  // GitBook's title is a paragraph, its text marked as any paragraph's (`<summary>Text <mark style="...">x</mark></summary>`).
  const rich = summaryElement?.children.some((child) => child.type === 'element') ?? false;
  return {
    type: 'gitbookDetails',
    open: attribute(details, 'open') !== undefined,
    summary: [{ type: 'text', value: summaryText }],
    summaryHtml: rich && summaryElement ? summaryElement.children : null,
    children: body,
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** `<a href="#x" id="x"></a>` closing a heading: GitBook's form of a heading's own anchor. */
function trailingAnchor(children: PhrasingContent[]): { id: string; consumed: number } | null {
  let end = children.length;
  const last = children[end - 1];
  if (last?.type === 'text' && last.value.trim() === '') end--;
  const close = children[end - 1];
  const open = children[end - 2];
  if (close?.type !== 'html' || open?.type !== 'html' || closingTagName(close.value) !== 'a') return null;
  const element = openingTag(open.value);
  const id = element?.tagName === 'a' ? attribute(element, 'id') : undefined;
  if (!id || !/^[-a-z0-9.+_]+$/.test(id)) return null;
  let consumed = children.length - (end - 2);
  // The space GitBook writes between the text and the anchor goes with it.
  const before = children[end - 3];
  if (before?.type === 'text' && before.value.endsWith(' ')) {
    before.value = before.value.replace(/ +$/, '');
    if (before.value === '') consumed++;
  }
  return { id, consumed };
}

/**
 * For each inline HTML opening tag among siblings, the index of its closing tag (-1 if none), found in
 * one pass with a stack per tag name: a line of a thousand unclosed `<b>` is not re-scanned per tag.
 */
function htmlClosings(nodes: readonly PhrasingContent[]): Int32Array {
  const tags = nodes.map((node): ParsedTag | null => {
    if (node.type !== 'html') return null;
    const closing = closingTagName(node.value);
    if (closing) return { name: closing, closing: true, rest: '', attributes: {} };
    const element = openingTag(node.value);
    return element ? { name: element.tagName, closing: false, rest: '', attributes: {} } : null;
  });
  return matchTags(tags);
}

/** A cell `<p>a</p><p>b</p>`: the phrasing of each paragraph, or null when the cell is not that. */
function splitHtmlParagraphs(children: readonly PhrasingContent[]): PhrasingContent[][] | null {
  const first = children[0];
  if (first?.type !== 'html' || openingTag(first.value)?.tagName !== 'p') return null;
  const closings = htmlClosings(children);
  const parts: PhrasingContent[][] = [];
  let index = 0;
  while (index < children.length) {
    const node = children[index];
    if (node.type !== 'html' || openingTag(node.value)?.tagName !== 'p') return null;
    const close = closings[index];
    if (close < 0) return null;
    parts.push(children.slice(index + 1, close));
    index = close + 1;
  }
  return parts;
}

/**
 * GitBook's emoji in HTML, `<span data-gb-custom-inline data-tag="emoji" data-code="2728">✨</span>` (public-docs' table
 * cells and figure captions): the emoji inline, where the span holds that emoji alone; read as its text, an emoji
 * became a character of the text. Null for any other span.
 */
function emojiSpan(element: Element, onlyText: boolean, text: string): DocumentInline | null {
  const code = attribute(element, 'dataCode');
  if (attribute(element, 'dataTag') !== 'emoji' || !onlyText || !code || !/^[0-9a-f]{1,6}(?:-[0-9a-f]{1,6})*$/i.test(code)) return null;
  const emoji = emojiText(code);
  return emoji !== '' && text.trim() === emoji ? ({ object: 'inline', type: 'emoji', isVoid: true, data: { code } } as DocumentInline) : null;
}

/** HTML comments (CommonMark's, `<!-->` and `<!--->` too) and whitespace, nothing else. */
const COMMENTS = /^(?:\s*<!--(?:-?>|[\s\S]*?-->))+\s*$/;
function onlyComments(html: string): boolean {
  return html.startsWith('<!--') || html.trimStart().startsWith('<!--') ? COMMENTS.test(html) : false;
}

/** The blocks of a run of Markdown in a table's cell, by its index. */
type FlowPart = (part: number) => AnyBlock[];
const noFlowPart: FlowPart = () => [];

/** The elements of a table cell that are blocks; any other is inline. */
const CELL_BLOCK_TAGS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol']);


/** Whitespace around a cell's content, the line breaks a hand-written table has between tags, dropped. */
function trimRun(nodes: readonly ElementContent[]): ElementContent[] {
  const out = [...nodes];
  while (out[0]?.type === 'text' && out[0].value.trim() === '') out.shift();
  while (out.at(-1)?.type === 'text' && (out.at(-1) as { value: string }).value.trim() === '') out.pop();
  if (out[0]?.type === 'text') out[0] = { ...out[0], value: out[0].value.trimStart() };
  const last = out.at(-1);
  if (last?.type === 'text') out[out.length - 1] = { ...last, value: last.value.trimEnd() };
  return out;
}

function buttonAction(element: Element): Record<string, string> | null {
  const action = attribute(element, 'dataAction');
  const query = attribute(element, 'dataQuery');
  const slug = attribute(element, 'dataSlug');
  if (action === 'ask' || action === 'search') return { action, ...(query !== undefined ? { query } : {}) };
  if (action === 'select' && slug) return { action, slug };
  return null;
}

function classNames(element: Element): string[] {
  const value = element.properties?.className;
  return Array.isArray(value) ? value.map(String) : [];
}

function lengthOf(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(%|px)?$/.exec(value.trim());
  if (!match) return undefined;
  const number = Number(match[1]);
  return match[2] === '%' ? { unit: '%', value: number } : number;
}

function columnData(attributes: Record<string, string>): Record<string, unknown> {
  const width = lengthOf(attributes.width);
  const verticalAlignment = ['top', 'middle', 'bottom'].includes(attributes.valign) ? attributes.valign : undefined;
  return { ...(width !== undefined ? { width } : {}), ...(verticalAlignment ? { verticalAlignment } : {}) };
}

function fullWidthData(attributes: Record<string, string>): Record<string, unknown> {
  return attributes.fullWidth === 'true' || attributes.fullWidth === 'false' ? { fullWidth: attributes.fullWidth === 'true' } : {};
}

function updateData(attributes: Record<string, string>): Record<string, unknown> {
  const tags = (attributes.tags ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean)
    .map((tag) => ({ kind: 'tag', tag }));
  // GitBook's update date is a timestamp; its Markdown writes the day of one at midnight UTC.
  const date = attributes.date ?? '';
  return { date: /^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date}T00:00:00.000Z` : date, ...(tags.length ? { tags } : {}) };
}

/** `{% if visitor.claims.plan == "pro" %}` or `{% if condition="..." %}`. */
function ifExpression(tag: ParsedTag): string {
  return tag.attributes.condition ?? tag.rest;
}

/** `{% @mermaid/diagram content="graph TD" %}`: an integration's block and its props. */
function integrationBlock(tag: ParsedTag): AnyBlock {
  const [integration, ...blockPath] = tag.name.slice(1).split('/');
  return { object: 'block', type: 'integration', isVoid: true, data: { integration, block: blockPath.join('/'), props: { ...tag.attributes } } };
}

function openAPIBlock(type: string, spec: string, data: Record<string, unknown>): AnyBlock {
  return { object: 'block', type, isVoid: true, data: { ref: { kind: 'openapi', spec }, ...data } };
}

function mathBlock(formula: string): AnyBlock {
  return { object: 'block', type: 'math', isVoid: true, data: { formula } };
}

/** GitBook's HTML code block: its lines, the highlighted ones marked, with the options of its `<pre>`. */
function preCodeBlock(pre: PreCode, annotation: (label: string, text: string) => DocumentInline | null): DocumentBlockCode {
  const block = withCodeAttributes(codeBlock(pre.lines.map((line) => line.text).join('\n'), pre.syntax), pre.attributes);
  const nodes = block.nodes.map((line, i) => {
    const { highlighted, notes, text } = pre.lines[i];
    const annotated = notes?.length ? { ...line, nodes: annotatedLine(text, notes, annotation) as never } : line;
    return highlighted ? { ...annotated, data: { highlighted: true } } : annotated;
  });
  return { ...block, nodes };
}

/** A code line's text with its annotations: text, annotation, text..., as GitBook's editor keeps them. */
function annotatedLine(text: string, notes: readonly PreCodeNote[], annotation: (label: string, text: string) => DocumentInline | null): DocumentInlineContent[] {
  const out = new InlineBuilder();
  let at = 0;
  for (const note of notes) {
    const inline = note.to > note.from ? annotation(note.label, text.slice(note.from, note.to)) : null;
    if (!inline) continue;
    out.text(text.slice(at, note.from), []);
    out.inline(inline);
    at = note.to;
  }
  out.text(text.slice(at), []);
  return out.finish();
}

/** The footnotes GitBook's code blocks in HTML annotate with: `<a data-footnote-ref href="#user-content-fn-1">`. */
function codeNoteLabels(html: string): string[] {
  return [...html.matchAll(/href="#user-content-fn-([^"]+)"/g)].map((match) => footnoteIdentifier(match[1]));
}


/** Whether `node` is a link to the anchor GitBook gives footnote `identifier` (`#user-content-fn-1`). */
function linksToNote(node: Nodes, identifier: string): node is Link {
  const anchor = node.type === 'link' ? /^#user-content-fn-(.+)$/.exec(node.url) : null;
  return !!anchor && footnoteIdentifier(anchor[1]) === identifier;
}

/** Whether a footnote reference after `node` follows a word (GitBook annotates the word a footnote follows). */
function followsWord(node: Nodes | undefined): boolean {
  if (!node) return false;
  if (node.type === 'text') return /\S$/.test(node.value);
  return node.type === 'emphasis' || node.type === 'strong' || node.type === 'delete' || node.type === 'inlineCode';
}

/** The block types an annotation's note may hold (GitBook's `annotation-body`). */
const ANNOTATION_BODY_TYPES = [...ESSENTIAL_BLOCK_TYPES, 'code'];

function codeBlock(value: string, syntax: string | undefined): DocumentBlockCode {
  const nodes = value.split('\n').map((line) => ({ object: 'block' as const, type: 'code-line' as const, isVoid: false as const, data: {}, nodes: [textNode(line)] }));
  return { object: 'block', type: 'code', isVoid: false, data: syntax ? { syntax } : {}, nodes };
}

/** The quoted argument of `{% include "<id>" %}`, quotes written as `&quot;` (as in attributes). */
function readIncludeTarget(text: string): string | null {
  const match = /^\s*"([^"]+)"\s*$/.exec(text);
  return match ? match[1].replace(/&quot;/g, '"') : null;
}

/** The images of a paragraph that holds nothing but images (and the whitespace between them). */
function onlyImages(node: Paragraph): Array<Image | ImageReference> | null {
  const images: Array<Image | ImageReference> = [];
  for (const child of node.children) {
    if (child.type === 'image' || child.type === 'imageReference') images.push(child);
    else if (child.type === 'text' && child.value.trim() === '') continue;
    else if (child.type === 'break') continue;
    else return null;
  }
  return images.length ? images : null;
}

function withCodeAttributes(block: DocumentBlockCode, attributes: Record<string, string>): DocumentBlockCode {
  const data = { ...block.data };
  if (attributes.title) data.title = attributes.title;
  if (attributes.overflow === 'wrap' || attributes.overflow === 'scroll') data.overflow = attributes.overflow;
  for (const flag of ['lineNumbers', 'fullWidth', 'expandable'] as const) {
    if (attributes[flag] === 'true' || attributes[flag] === 'false') data[flag] = attributes[flag] === 'true';
  }
  return { ...block, data };
}

export function inlineText(nodes: readonly DocumentInlineContent[]): string {
  return nodes
    .map((node) => {
      if (node.object === 'text') return node.leaves.map((leaf) => leaf.text).join('');
      const inline = node as { type: string; data?: Record<string, unknown>; nodes?: DocumentInlineContent[] };
      if (inline.type === 'expression') return `{{ ${String(inline.data?.expression ?? '').trim()} }}`;
      if (inline.type === 'link' || inline.type === 'annotation') return inlineText(inline.nodes ?? []);
      if (inline.type === 'inline-math') return String(inline.data?.formula ?? '');
      return String(inline.data?.alt ?? '');
    })
    .join('');
}

/** The text of any block, where only text fits (a list item cannot hold an embed). */
function blockText(block: AnyBlock): string {
  if (block.type === 'paragraph' || block.type.startsWith('heading-')) return inlineText(block.nodes as DocumentInlineContent[]);
  if (block.type === 'embed') return String(block.data?.url ?? '');
  if (block.type === 'math') return `$$${String(block.data?.formula ?? '')}$$`;
  if (block.type === 'reusable-content') return `{% include "${String((block.data?.ref as { reusableContent?: string })?.reusableContent ?? '')}" %}`;
  const parts = [...((block.nodes as AnyBlock[] | undefined) ?? []), ...((block.fragments as Array<{ nodes: AnyBlock[] }> | undefined) ?? []).flatMap((f) => f.nodes)];
  return parts.map((part) => (part.object === 'block' ? blockText(part) : '')).join(' ');
}

function reusableContentBlock(id: string): AnyBlock {
  return { object: 'block', type: 'reusable-content', isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: id } } };
}

/**
 * Markdown cannot nest links, but an HTML `<a>` can hold one: its text a URL, which GFM links itself
 * (`<a href="https://x">https://x</a>`). A link in a link is no document's, so the inner one is read as its text.
 */
function withoutLinks(nodes: readonly PhrasingContent[]): PhrasingContent[] {
  return nodes.flatMap((node): PhrasingContent[] => {
    if (node.type === 'link' || node.type === 'linkReference') return withoutLinks(node.children);
    return 'children' in node ? [{ ...node, children: withoutLinks(node.children as PhrasingContent[]) } as PhrasingContent] : [node];
  });
}

function linkParagraph(ref: ContentRef, text: string): DocumentBlockParagraph {
  const link: DocumentInlineLink = { object: 'inline', type: 'link', isVoid: false, data: { ref }, nodes: [textNode(text)] };
  return { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: [textNode(''), link, textNode('')] };
}

/**
 * Makes a block acceptable where GitBook restricts content: images become a paragraph of inline
 * images and a file a paragraph linking to it. Null when the block must leave the container.
 */
function adapt(block: AnyBlock, allowed: readonly string[]): AnyBlock | null {
  if (allowed.includes(block.type)) return block;
  if (block.type === 'images' && allowed.includes('paragraph')) {
    const builder = new InlineBuilder();
    for (const image of block.nodes as DocumentBlockImage[]) {
      const caption = image.fragments.find((fragment) => fragment.fragment === 'caption');
      const captionText = caption ? caption.nodes.map((paragraph) => inlineText(paragraph.nodes)).join(' ') : '';
      builder.inline({
        object: 'inline',
        type: 'inline-image',
        isVoid: true,
        data: { ref: image.data.ref, ...(image.data.alt ? { alt: image.data.alt } : {}), ...(captionText ? { caption: captionText } : {}) },
      });
    }
    return { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: builder.finish() };
  }
  if (block.type === 'file' && allowed.includes('paragraph')) {
    const data = block.data as { ref: { kind: 'file'; file: string } };
    const caption = (block.fragments as Array<DocumentFragment> | undefined)?.find((fragment) => fragment.fragment === 'caption');
    const text = caption ? caption.nodes.map((paragraph) => inlineText(paragraph.nodes)).join(' ') : '';
    return linkParagraph(data.ref, text || data.ref.file);
  }
  return null;
}

/**
 * Wraps blocks in a container that accepts only some types (a hint, a quote). A block that cannot be
 * adapted is moved out after the container, which continues after it: content is never dropped,
 * a hint holding a code block becomes hint, code, hint.
 */
function fitInto(type: string, blocks: AnyBlock[], wrap: (nodes: AnyBlock[]) => AnyBlock): AnyBlock[] {
  const allowed = BLOCK_CHILD_TYPES[type];
  if (blocks.length === 0) return [wrap([plainParagraph('')])];
  const out: AnyBlock[] = [];
  let run: AnyBlock[] = [];
  for (const block of blocks) {
    const fitted = adapt(block, allowed);
    if (fitted) {
      run.push(fitted);
      continue;
    }
    if (run.length) out.push(wrap(run));
    run = [];
    out.push(block);
  }
  if (run.length) out.push(wrap(run));
  return out;
}

/**
 * For containers whose content cannot leave them (a tab, a step, an expandable's body): what the
 * container may not hold is adapted, else kept as a paragraph of its text.
 */
function fitAll(type: string, blocks: AnyBlock[]): AnyBlock[] {
  const allowed = BLOCK_CHILD_TYPES[type];
  return blocks.map((block) => adapt(block, allowed) ?? plainParagraph(blockText(block)));
}

function fitIntoFragment(type: 'expandable', blocks: AnyBlock[]): AnyBlock[] {
  return fitAll(type, blocks);
}
