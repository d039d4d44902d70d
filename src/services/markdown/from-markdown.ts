/**
 * Markdown -> rich-text document. Parsing is remark's (CommonMark + GFM tables, strikethrough, task
 * lists, autolinks and footnotes + YAML frontmatter); this module only maps the resulting mdast tree
 * onto GitBook's block model. GitBook's block tags (`{% hint %}`, `{% file %}`, `{% code %}`,
 * `{% include %}`) are not Markdown: see `isolateTagLines` and `groupTags` for how they are
 * recognized without a parser of our own.
 *
 * Nothing is dropped. What GitBook's model cannot hold stays visible: raw HTML as code, footnotes and
 * unused link definitions as text, tags without their pair as text, headings 4 to 6 as heading 3,
 * and blocks a hint or quote may not contain move out next to it. Lost are only attributes with no
 * place in the model: a link's title, and a fence's info string beyond its language and `title`.
 */
import type {
  Blockquote,
  Code,
  Definition,
  FootnoteDefinition,
  Heading,
  Image,
  ImageReference,
  List,
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
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { parse as parseYaml } from 'yaml';
import {
  FORMATTING_MARKS,
  HINT_CHILD_TYPES,
  HINT_STYLES,
  LIST_ITEM_CHILD_TYPES,
  QUOTE_CHILD_TYPES,
  assignKeys,
  type ContentRef,
  type DocumentBlockCode,
  type DocumentBlockImage,
  type DocumentBlockListItem,
  type DocumentBlockParagraph,
  type DocumentBlockReusableContent,
  type DocumentBlockTable,
  type DocumentFragment,
  type DocumentInline,
  type DocumentInlineContent,
  type DocumentInlineImage,
  type DocumentInlineLink,
  type DocumentText,
  type EssentialBlock,
  type FormattingMarkType,
  type HintStyle,
  type ImageRef,
  type JSONDocument,
  type ListItemChildBlock,
  type QuoteChildBlock,
  type TableColumnAlignment,
  type TopLevelBlock,
} from './document';

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
}

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
// GitBook block tags

/** Tags that wrap content: `{% hint style="info" %}` ... `{% endhint %}`. */
const PAIRED_TAG_NAMES = ['hint', 'file', 'code'] as const;
/** Tags that stand alone, with no end tag: `{% include "<reusable content id>" %}`. */
const SINGLE_TAG_NAMES = ['include'] as const;
/** GitBook's Markdown writes some blocks as tags. */
export const BLOCK_TAG_NAMES = [...PAIRED_TAG_NAMES, ...SINGLE_TAG_NAMES] as const;
type BlockTagName = (typeof BLOCK_TAG_NAMES)[number];
// Single tags have no `end` form: `{% endinclude %}` is text, not a tag line to isolate.
const TAG = String.raw`\{%[ \t]*(?:(end)?(${PAIRED_TAG_NAMES.join('|')})|(${SINGLE_TAG_NAMES.join('|')}))\b([^\n]*?)%\}`;
/** A tag alone on its line, possibly inside block quotes (`> `) or indented in a list item. */
const TAG_LINE = new RegExp(String.raw`^((?:[ \t]*>)*)[ \t]*${TAG}[ \t]*$`);
const TAG_ONLY = new RegExp(String.raw`^${TAG}$`);

interface TagBlock {
  type: 'gitbookTag';
  name: BlockTagName;
  attributes: Record<string, string>;
  children: FlowNode[];
}
type FlowNode = RootContent | TagBlock;

const parser = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml']);

/**
 * Surrounds every tag line that is not inside code, HTML or frontmatter with blank lines. Without
 * that, Markdown would fold `{% endhint %}` into the preceding paragraph or list item (a "lazy
 * continuation line") and the opening tag into the following text. Which lines are code is asked of
 * the parser itself (a first parse), so a tag shown inside a fenced block stays literal text.
 */
function isolateTagLines(source: string): string {
  const lines = source.split('\n');
  if (!lines.some((line) => TAG_LINE.test(line))) return source;
  const opaque = opaqueLines(parser.parse(source));
  const out: string[] = [];
  lines.forEach((line, index) => {
    const match = opaque.has(index) ? null : TAG_LINE.exec(line);
    if (!match) {
      out.push(line);
      return;
    }
    // The blank lines keep the quote markers, or they would end the quote the tag is in.
    const blank = match[1].trimEnd();
    out.push(blank, line, blank);
  });
  return out.join('\n');
}

/** 0-based line numbers covered by code, HTML or frontmatter nodes. */
function opaqueLines(tree: Root): Set<number> {
  const lines = new Set<number>();
  const visit = (node: Nodes) => {
    if ((node.type === 'code' || node.type === 'html' || node.type === 'yaml') && node.position) {
      for (let line = node.position.start.line; line <= node.position.end.line; line++) lines.add(line - 1);
    }
    if ('children' in node) for (const child of node.children) visit(child);
  };
  visit(tree);
  return lines;
}

/** A paragraph whose source is exactly one tag (an escaped `\{%` in the source is not a tag). */
function readTag(node: FlowNode, source: string) {
  if (node.type !== 'paragraph' || !node.position) return null;
  const text = source.slice(node.position.start.offset, node.position.end.offset).trim();
  const match = TAG_ONLY.exec(text);
  if (!match) return null;
  if (match[3]) {
    const target = readIncludeTarget(match[4]);
    // An include that names nothing is kept as the text it is.
    return target ? { closing: false, single: true, name: match[3] as BlockTagName, attributes: { target } } : null;
  }
  return { closing: Boolean(match[1]), single: false, name: match[2] as BlockTagName, attributes: readAttributes(match[4]) };
}

/** The quoted argument of `{% include "<id>" %}`, quotes written as `&quot;` (as in attributes). */
function readIncludeTarget(text: string): string | null {
  const match = /^\s*"([^"]+)"\s*$/.exec(text);
  return match ? match[1].replace(/&quot;/g, '"') : null;
}

/** What `encodeTagAttribute` (to-markdown) writes for `"`, CR, LF and the `}` of `%}`. */
const ATTRIBUTE_REFERENCES: Record<string, string> = { '&quot;': '"', '&#13;': '\r', '&#10;': '\n', '&#125;': '}' };

function readAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of text.matchAll(/([A-Za-z][\w-]*)\s*=\s*"([^"]*)"/g)) {
    attributes[match[1]] = match[2].replace(/&quot;|&#13;|&#10;|&#125;/g, (reference) => ATTRIBUTE_REFERENCES[reference]);
  }
  return attributes;
}

/**
 * Pairs opening and closing tag paragraphs among siblings into tag blocks. An opening tag without
 * its closing tag at the same level (or the reverse) stays a paragraph: its text is kept as written.
 */
function groupTags(children: readonly FlowNode[], source: string): FlowNode[] {
  const out: FlowNode[] = [];
  for (let index = 0; index < children.length; index++) {
    const tag = readTag(children[index], source);
    if (tag?.single) {
      out.push({ type: 'gitbookTag', name: tag.name, attributes: tag.attributes, children: [] });
      continue;
    }
    const end = tag && !tag.closing ? findClosingTag(children, index, tag.name, source) : -1;
    if (!tag || end < 0) {
      out.push(children[index]);
      continue;
    }
    out.push({ type: 'gitbookTag', name: tag.name, attributes: tag.attributes, children: children.slice(index + 1, end) });
    index = end;
  }
  return out;
}

function findClosingTag(children: readonly FlowNode[], open: number, name: BlockTagName, source: string): number {
  let depth = 0;
  for (let index = open + 1; index < children.length; index++) {
    const tag = readTag(children[index], source);
    if (!tag || tag.name !== name) continue;
    if (!tag.closing) depth++;
    else if (depth === 0) return index;
    else depth--;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Conversion

export function markdownToDocument(markdown: string, options: MarkdownToDocumentOptions = {}): MarkdownConversion {
  const source = isolateTagLines(markdown.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'));
  const tree = parser.parse(source);
  const frontmatter = readFrontmatter(tree);
  let body = tree.children.filter((node) => node.type !== 'yaml');

  let title = scalarText(frontmatter.title);
  const first = body[0];
  const headingTitle = first?.type === 'heading' && first.depth === 1 ? toString(first).trim() : '';
  if (title === undefined && headingTitle) {
    title = headingTitle;
    body = body.slice(1);
  }
  const description = scalarText(frontmatter.description);

  const converter = new Converter(source, options.resolveLink ?? defaultResolveLink, tree);
  const document: JSONDocument = { object: 'document', data: {}, nodes: converter.flow(body) };
  return {
    document: assignKeys(document),
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    frontmatter,
  };
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
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new MarkdownConversionError('YAML frontmatter must be a mapping of keys to values');
  return data as Record<string, unknown>;
}

type Marks = readonly FormattingMarkType[];

function withMark(marks: Marks, mark: FormattingMarkType): Marks {
  // One canonical order, so equal formatting always gives equal leaves.
  return marks.includes(mark) ? marks : FORMATTING_MARKS.filter((m) => m === mark || marks.includes(m));
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
    const leaf = { object: 'leaf' as const, text, marks: marks.map((type) => ({ object: 'mark' as const, type })) };
    if (last?.object !== 'text') {
      this.nodes.push({ object: 'text', leaves: [leaf] });
      return;
    }
    const previous = last.leaves[last.leaves.length - 1];
    const same = previous.marks.length === marks.length && previous.marks.every((mark, i) => mark.type === marks[i]);
    if (same) previous.text += text;
    else last.leaves.push(leaf);
  }

  inline(node: DocumentInline) {
    this.nodes.push(node);
  }

  /** Content converted earlier; only formatting marks occur in what this module builds. */
  append(nodes: readonly DocumentInlineContent[]) {
    for (const node of nodes) {
      if (node.object === 'inline') this.inline(node);
      else for (const leaf of node.leaves) this.text(leaf.text, leaf.marks.map((mark) => mark.type) as FormattingMarkType[]);
    }
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

class Converter {
  private readonly definitions = new Map<string, Definition>();
  private readonly referenced = new Set<string>();

  constructor(
    private readonly source: string,
    private readonly resolveLink: LinkResolver,
    tree: Root,
  ) {
    const visit = (node: Nodes) => {
      if (node.type === 'definition' && !this.definitions.has(node.identifier)) this.definitions.set(node.identifier, node);
      if (node.type === 'linkReference' || node.type === 'imageReference') this.referenced.add(node.identifier);
      if ('children' in node) for (const child of node.children) visit(child);
    };
    visit(tree);
  }

  /** Converts flow content; the result may hold any top-level block, the caller fits it. */
  flow(nodes: readonly FlowNode[]): TopLevelBlock[] {
    return groupTags(nodes, this.source).flatMap((node) => this.block(node));
  }

  private block(node: FlowNode): TopLevelBlock[] {
    switch (node.type) {
      case 'paragraph':
        return [this.paragraph(node)];
      case 'heading':
        return [this.heading(node)];
      case 'thematicBreak':
        return [{ object: 'block', type: 'divider', isVoid: true, data: {} }];
      case 'blockquote':
        return this.blockquote(node);
      case 'list':
        return [this.list(node)];
      case 'code':
        return [this.code(node)];
      case 'table':
        return [this.table(node)];
      case 'html':
        // Raw HTML is not interpreted: it is kept, verbatim and visible, as an HTML code block.
        return [this.codeBlock(node.value, 'html')];
      case 'definition':
        return this.referenced.has(node.identifier) ? [] : [this.unusedDefinition(node)];
      case 'footnoteDefinition':
        return this.footnoteDefinition(node);
      case 'yaml':
        return [];
      case 'gitbookTag':
        return this.tagBlock(node);
      default:
        return [plainParagraph(toString(node))];
    }
  }

  private paragraph(node: Paragraph): TopLevelBlock {
    const images = onlyImages(node);
    if (images) {
      return { object: 'block', type: 'images', isVoid: false, data: {}, nodes: images.map((image) => this.imageBlock(image)) };
    }
    return { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: this.inlines(node.children) };
  }

  private heading(node: Heading): TopLevelBlock {
    // GitBook has three heading levels; deeper Markdown headings become level 3.
    const type = `heading-${Math.min(node.depth, 3)}` as 'heading-1' | 'heading-2' | 'heading-3';
    return { object: 'block', type, isVoid: false, data: {}, nodes: this.inlines(node.children) };
  }

  private blockquote(node: Blockquote): TopLevelBlock[] {
    return fitInto(QUOTE_CHILD_TYPES, this.flow(node.children), (nodes) => ({
      object: 'block',
      type: 'blockquote',
      isVoid: false,
      data: {},
      nodes: nodes as QuoteChildBlock[],
    }));
  }

  private list(node: List): TopLevelBlock {
    const nodes = node.children.map((item) => this.listItem(item));
    if (node.ordered) {
      const start = typeof node.start === 'number' && node.start !== 1 ? { start: node.start } : {};
      return { object: 'block', type: 'list-ordered', isVoid: false, data: start, nodes };
    }
    const tasks = node.children.length > 0 && node.children.every((item) => typeof item.checked === 'boolean');
    return { object: 'block', type: tasks ? 'list-tasks' : 'list-unordered', isVoid: false, data: {}, nodes };
  }

  private listItem(node: ListItem): DocumentBlockListItem {
    const children = this.flow(node.children);
    // Every top-level type is allowed in a list item except images and files, which `adapt` turns
    // into paragraphs, and reusable content, which GitBook does not allow in a list item: it stays
    // the tag's text. Nothing has to leave the item.
    const nodes = (children.length ? children : [plainParagraph('')]).map(
      (child) => adapt(child, LIST_ITEM_CHILD_TYPES) ?? (child.type === 'reusable-content' ? includeText(child) : child),
    );
    const data = typeof node.checked === 'boolean' ? { checked: node.checked } : {};
    return { object: 'block', type: 'list-item', isVoid: false, data, nodes: nodes as ListItemChildBlock[] };
  }

  private code(node: Code): DocumentBlockCode {
    const block = this.codeBlock(node.value, node.lang ?? undefined);
    // Of the info string after the language, only a `title="..."` has a place in GitBook's model.
    const title = node.meta ? readAttributes(node.meta).title : undefined;
    return title ? withCodeAttributes(block, { title }) : block;
  }

  private codeBlock(value: string, syntax: string | undefined): DocumentBlockCode {
    const nodes = value.split('\n').map((line) => ({
      object: 'block' as const,
      type: 'code-line' as const,
      isVoid: false as const,
      data: {},
      nodes: [textNode(line)],
    }));
    return { object: 'block', type: 'code', isVoid: false, data: syntax ? { syntax } : {}, nodes };
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
        const inlines = this.inlines(row.children[c]?.children ?? []);
        fragments.push({
          object: 'fragment',
          fragment: name,
          nodes: [{ object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: inlines }],
        });
        values[column] = name;
      });
      records[recordId] = { orderIndex: String(r).padStart(digits, '0'), values };
    });
    const hideHeader = Object.values(definition).every((column) => column.title === '');
    return {
      object: 'block',
      type: 'table',
      isVoid: true,
      data: { view: { type: 'grid', columns, hideHeader }, records, definition },
      fragments,
    };
  }

  /** A definition no link uses stays as written, `[label]: url "title"`, its URL a link. */
  private unusedDefinition(node: Definition): DocumentBlockParagraph {
    const builder = new InlineBuilder();
    builder.text(`[${node.label ?? node.identifier}]: `, []);
    builder.inline(this.link(node.url, [{ type: 'text', value: node.url }], []));
    if (node.title) builder.text(` "${node.title}"`, []);
    return { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: builder.finish() };
  }

  private footnoteDefinition(node: FootnoteDefinition): TopLevelBlock[] {
    // GitBook has no footnotes: the definition stays as text, `[^label]: ` before its content.
    const label = `[^${node.label ?? node.identifier}]: `;
    const blocks = this.flow(node.children);
    const first = blocks[0];
    if (first?.type !== 'paragraph') return [plainParagraph(label.trimEnd()), ...blocks];
    const builder = new InlineBuilder();
    builder.text(label, []);
    builder.append(first.nodes);
    return [{ ...first, nodes: builder.finish() }, ...blocks.slice(1)];
  }

  private tagBlock(node: TagBlock): TopLevelBlock[] {
    if (node.name === 'include') return [reusableContentBlock(node.attributes.target)];
    const children = this.flow(node.children);
    if (node.name === 'hint') {
      const style = HINT_STYLES.includes(node.attributes.style as HintStyle) ? (node.attributes.style as HintStyle) : 'info';
      return fitInto(HINT_CHILD_TYPES, children, (nodes) => ({
        object: 'block',
        type: 'hint',
        isVoid: false,
        data: { style },
        nodes: nodes as EssentialBlock[],
      }));
    }
    if (node.name === 'code') return children.map((child) => (child.type === 'code' ? withCodeAttributes(child, node.attributes) : child));
    return this.fileBlock(node.attributes.src ?? '', children);
  }

  /** `{% file src="/files/<id>" %}caption{% endfile %}`: the caption is the paragraphs inside. */
  private fileBlock(src: string, children: TopLevelBlock[]): TopLevelBlock[] {
    const captions = children.filter((child): child is DocumentBlockParagraph => child.type === 'paragraph');
    const rest = children.filter((child) => child.type !== 'paragraph');
    const ref = src ? this.resolveLink(src) : null;
    if (ref?.kind !== 'file') {
      // Not an uploaded file: keep it as a link so that neither the target nor the caption is lost.
      const text = captions.map((caption) => inlineText(caption.nodes)).join(' ') || src;
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

  private inlines(nodes: readonly PhrasingContent[]): DocumentInlineContent[] {
    const builder = new InlineBuilder();
    this.phrasing(nodes, [], builder);
    return builder.finish();
  }

  private phrasing(nodes: readonly PhrasingContent[], marks: Marks, out: InlineBuilder) {
    for (const node of nodes) this.phrase(node, marks, out);
  }

  private phrase(node: PhrasingContent, marks: Marks, out: InlineBuilder) {
    switch (node.type) {
      case 'text':
        // A soft line break renders as a space; only hard breaks are line breaks in the document.
        return out.text(node.value.replace(/[ \t]*\n[ \t]*/g, ' '), marks);
      case 'emphasis':
        return this.phrasing(node.children, withMark(marks, 'italic'), out);
      case 'strong':
        return this.phrasing(node.children, withMark(marks, 'bold'), out);
      case 'delete':
        return this.phrasing(node.children, withMark(marks, 'strikethrough'), out);
      case 'inlineCode':
        return out.text(node.value.replace(/\n/g, ' '), withMark(marks, 'code'));
      case 'break':
        return out.text('\n', marks);
      case 'link':
        return out.inline(this.link(node.url, node.children, marks));
      case 'linkReference': {
        const definition = this.definitions.get(node.identifier);
        if (!definition) return this.phrasing(node.children, marks, out);
        return out.inline(this.link(definition.url, node.children, marks));
      }
      case 'image':
      case 'imageReference': {
        // The parser makes a reference only when its definition exists.
        const image = this.imageTarget(node);
        return out.inline(this.inlineImage(image.url, image.alt, image.title));
      }
      case 'html':
        // Inline HTML is not interpreted: its source stays visible, as code (as HTML blocks do).
        // As plain text it would not survive a round trip: a URL in it would become a GFM autolink.
        return out.text(node.value.replace(/\n/g, ' '), withMark(marks, 'code'));
      case 'footnoteReference':
        return out.text(`[^${node.label ?? node.identifier}]`, marks);
      default:
        return out.text(toString(node), marks);
    }
  }

  private link(url: string, children: readonly PhrasingContent[], marks: Marks): DocumentInlineLink {
    const builder = new InlineBuilder();
    this.phrasing(children, marks, builder);
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
  if (attributes.lineNumbers === 'true' || attributes.lineNumbers === 'false') data.lineNumbers = attributes.lineNumbers === 'true';
  if (attributes.fullWidth === 'true' || attributes.fullWidth === 'false') data.fullWidth = attributes.fullWidth === 'true';
  return { ...block, data };
}

function inlineText(nodes: readonly DocumentInlineContent[]): string {
  return nodes
    .map((node) => {
      if (node.object === 'text') return node.leaves.map((leaf) => leaf.text).join('');
      if (node.type === 'expression') return `{{ ${node.data.expression.trim()} }}`;
      return node.type === 'link' ? inlineText(node.nodes) : (node.data.alt ?? '');
    })
    .join('');
}

function reusableContentBlock(id: string): DocumentBlockReusableContent {
  return { object: 'block', type: 'reusable-content', isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: id } } };
}

/** The include as the author wrote it, for where GitBook allows no reusable content. */
function includeText(block: DocumentBlockReusableContent): DocumentBlockParagraph {
  return plainParagraph(`{% include "${block.data.ref.reusableContent.replace(/"/g, '&quot;')}" %}`);
}

function linkParagraph(ref: ContentRef, text: string): DocumentBlockParagraph {
  const link: DocumentInlineLink = { object: 'inline', type: 'link', isVoid: false, data: { ref }, nodes: [textNode(text)] };
  return { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: [textNode(''), link, textNode('')] };
}

/**
 * Makes a block acceptable where GitBook restricts content: images become a paragraph of inline
 * images and a file becomes a paragraph linking to it. Null when the block must leave the container.
 */
function adapt(block: TopLevelBlock, allowed: readonly string[]): TopLevelBlock | null {
  if (allowed.includes(block.type)) return block;
  if (block.type === 'images') {
    const builder = new InlineBuilder();
    for (const image of block.nodes) {
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
  if (block.type === 'file') {
    const caption = block.fragments?.find((fragment) => fragment.fragment === 'caption');
    const text = caption ? caption.nodes.map((paragraph) => inlineText(paragraph.nodes)).join(' ') : '';
    return linkParagraph(block.data.ref, text || block.data.ref.file);
  }
  return null;
}

/**
 * Wraps blocks in a container that accepts only some types (a hint, a quote). A block that cannot be
 * adapted is moved out after the container, which continues after it: content is never dropped,
 * a hint holding a code block becomes hint, code, hint.
 */
function fitInto(allowed: readonly string[], blocks: TopLevelBlock[], wrap: (nodes: TopLevelBlock[]) => TopLevelBlock): TopLevelBlock[] {
  if (blocks.length === 0) return [wrap([plainParagraph('')])];
  const out: TopLevelBlock[] = [];
  let run: TopLevelBlock[] = [];
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
