/**
 * GitBook's JSON document -> GitBook Markdown, in the syntax GitBook's own export writes: the document
 * is mapped onto an mdast tree and remark-stringify writes it (with remark-gfm for tables,
 * strikethrough and task lists, remark-math for `$$`), so escaping is the library's, as it is in
 * GitBook's exporter (`*` bullets, `_italic_`, `**bold**`, `&#x20;` for a space that would be lost).
 * Blocks Markdown has no syntax for are GitBook's tags (`{% tabs %}`, `{% embed %}`, ...) or its HTML
 * (`<figure>`, `<details>`, `<mark>`); `markdownToDocument` reads every one of them back, so a document
 * written and read again is the same document, and Markdown read and written is a fixed point.
 */
import type { AlignType, BlockContent, Image, List, ListItem, PhrasingContent, Root, RootContent, Table, TableCell, TableRow, Paragraph } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import remarkStringify, { type Options as StringifyOptions } from 'remark-stringify';
import { unified } from 'unified';
import { isMap, parseDocument, stringify as stringifyYaml, type Document as YamlDocument } from 'yaml';
import type {
  AnyBlock,
  ContentRef,
  DocumentBlock,
  DocumentBlockCode,
  DocumentBlockListItem,
  DocumentBlockTable,
  DocumentInlineContent,
  DocumentMark,
  DocumentTextLeaf,
  JSONDocument,
  MarkdownStyle,
} from './document';
import { BLOCK_TAG_NAMES } from './block-tags';
import { pageFrontmatter } from './from-markdown';
import { defaultHrefFor, mentionLabelOf } from './hrefs';
import { buttonHtml, emojiText, escapeAttribute, escapeHtml, htmlTable, iconHtml, inlineHtml, needsHtmlTable, openColorMark, pictureHtml } from './html-table-writer';
import { DEFAULT_PAGE_LAYOUT, LAYOUT_PARTS, type PageLayoutFrontmatter } from './page-layout';
import { applySourceHunks, frontmatterKey, PAGE_FIELD_FRONTMATTER_KEYS, SOURCE_PATCH_KEY, sourcePatchOf, type SourceHunk, type SourcePatch } from './source-patch';
import { hasInlines, preCodeHtml } from './pre-code-html';
import { encodeTagAttribute, leadingUnknownTag, parseTag } from './syntax/tags';
import { type CellWriting, tableText, type TableMode, unmarkTables } from './table-lines';
import { writeText } from './syntax/text-escape';

export { encodeTagAttribute } from './syntax/tags';

export interface DocumentToMarkdownOptions {
  /** Href written for a link or image target. Defaults to `defaultHrefFor`. */
  hrefFor?: (ref: ContentRef) => string;
  /** Written as a leading heading 1, where `markdownToDocument` reads a title back. */
  title?: string;
  /** Written as YAML frontmatter when it has at least one key. */
  frontmatter?: Record<string, unknown>;
  /** A table cell's text as the caller finally writes it (table-lines.ts `CellWriting`): columns are padded by it. */
  cellsWrittenAs?: CellWriting;
}

export { defaultHrefFor } from './hrefs';

// ---------------------------------------------------------------------------------------------
// GitBook's tags in the mdast tree

/**
 * A tag around flow content: `open`, the content, `close`. GitBook writes the content right after the
 * opening line and the closing line right after the content; items of a tabs, stepper, columns or
 * updates block are separated by one blank line. `spaced` puts blank lines inside (`<details>`).
 */
interface TagNode {
  type: 'gitbookTag';
  open: string;
  close: string | null;
  spaced?: boolean;
  children: RootContent[];
}

function tagNode(open: string, close: string | null, children: RootContent[] = [], spaced = false): BlockContent {
  const node: TagNode = { type: 'gitbookTag', open, close, children, spaced };
  return node as unknown as BlockContent;
}

function openTag(name: string, attributes: Record<string, string | undefined> = {}): string {
  const written = Object.entries(attributes)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([attribute, value]) => ` ${attribute}="${encodeTagAttribute(value)}"`)
    .join('');
  return `{% ${name}${written} %}`;
}

type Handle = NonNullable<NonNullable<StringifyOptions['handlers']>['paragraph']>;

const writeTag: Handle = (node: TagNode, _parent, state, info) => {
  if (node.close === null) return node.open;
  const inner = node.children.length ? state.containerFlow(node as unknown as Root, info) : '';
  const gap = node.spaced ? '\n\n' : '\n';
  return inner ? `${node.open}${gap}${inner}${gap}${node.close}` : `${node.open}\n${node.close}`;
};

/** A pipe table in one of table-lines.ts's writings; its cells are written by remark-gfm's own cell handler. */
function tableWriter(mode: TableMode): Handle {
  return (node: Table, _parent, state, info) => {
    const exit = state.enter('table');
    const matrix = node.children.map((row) => {
      const exitRow = state.enter('tableRow');
      const cells = row.children.map((child) => state.handle(child, row, state, info));
      exitRow();
      return cells;
    });
    exit();
    return tableText(matrix, node.align, mode, tableCellsWrittenAs);
  };
}

/** How the table cells of the document being written are finally written (`writeBlocks`). */
let tableCellsWrittenAs: CellWriting | undefined;

const KNOWN_TAG_NAMES = new Set<string>(BLOCK_TAG_NAMES);
const KNOWN_TAGS = BLOCK_TAG_NAMES.map((name) => name.replace(/[-]/g, '\\-')).join('|');

/** One processor per Markdown style a document records (a handful at most) and table writing, built when first used. */
const stringifiers = new Map<string, ReturnType<typeof createStringifier>>();

function createStringifier(style: MarkdownStyle, tables: TableMode = 'aligned') {
  const unsafe: NonNullable<StringifyOptions['unsafe']> = [
    // Text that would read back as one of GitBook's tags is escaped (`\{% hint %}`); unknown tags
    // stay as written, they are text either way.
    { character: '{', after: String.raw`%-?[ \t]*(?:end)?(?:${KNOWN_TAGS}|@)`, atBreak: true },
  ];
  if (style.escapedParentheses) {
    // As the source wrote them: every parenthesis of text escaped (not those of link destinations).
    const notInConstruct: NonNullable<StringifyOptions['unsafe']>[number]['notInConstruct'] = ['destinationLiteral', 'destinationRaw', 'titleQuote', 'titleApostrophe', 'reference'];
    unsafe.push({ character: '(', inConstruct: 'phrasing', notInConstruct }, { character: ')', inConstruct: 'phrasing', notInConstruct });
  }
  return unified()
    .use(remarkGfm)
    .use(remarkFrontmatter, ['yaml'])
    .use(remarkMath, { singleDollarTextMath: false })
    .use(remarkStringify, {
      bullet: style.bullet ?? '*',
      emphasis: style.emphasis ?? '_',
      strong: style.strong ?? '*',
      fence: '`',
      fences: !style.indentedCode,
      rule: style.rule ?? '*',
      listItemIndent: 'one',
      incrementListMarker: true,
      // The handlers map is keyed by mdast's node types, which do not include ours.
      // `text` is the library's own handler, escaping faster (syntax/text-escape.ts).
      handlers: { gitbookTag: writeTag, text: writeText, table: tableWriter(tables) } as StringifyOptions['handlers'],
      unsafe,
    });
}

/** The style a document records, its values checked (a client may post anything in `data`). */
function markdownStyleOf(document: JSONDocument): MarkdownStyle {
  const raw = document.data?.markdownStyle as Record<string, unknown> | undefined;
  if (!raw || typeof raw !== 'object') return dashRulesPatch(document) ? { rule: '-' } : {};
  const style: MarkdownStyle = {};
  if (raw.rule === '-' || raw.rule === '_') style.rule = raw.rule;
  else if (dashRulesPatch(document)) style.rule = '-';
  if (raw.bullet === '-' || raw.bullet === '+') style.bullet = raw.bullet;
  if (raw.emphasis === '*') style.emphasis = '*';
  if (raw.strong === '_') style.strong = '_';
  if (raw.escapedParentheses === true) style.escapedParentheses = true;
  if (raw.headingAnchors === 'id') style.headingAnchors = 'id';
  if (raw.indentedCode === true) style.indentedCode = true;
  return style;
}

/**
 * Whether the document's source patch was taken over a writing of dividers as `---` (ours before `***`, GitBook's): its
 * hunks name those lines, and a file read then with `---` dividers recorded no style for them, so it is written so.
 */
function dashRulesPatch(document: JSONDocument): boolean {
  const patch = document.data?.[SOURCE_PATCH_KEY];
  return !!patch && typeof patch === 'object' && (patch as SourcePatch).starRules !== true;
}

function stringifierFor(style: MarkdownStyle, tables: TableMode = 'aligned') {
  const key = `${tables}${JSON.stringify(style)}`;
  let stringifier = stringifiers.get(key);
  if (!stringifier) {
    stringifier = createStringifier(style, tables);
    stringifiers.set(key, stringifier);
  }
  return stringifier;
}

export function documentToMarkdown(document: JSONDocument, options: DocumentToMarkdownOptions = {}): string {
  const patch = sourcePatchOf(document.data);
  const body = writeBody(document, options.hrefFor, patch?.hunks ?? [], patch?.strict, patch?.tableRows === true, options.cellsWrittenAs);
  if (patch?.head && headMatches(patch.head, options)) return withEnding(patch.head.text + body, patch);
  const kept = patch?.head ? headWithSourceFrontmatter(patch.head, options) : null;
  if (kept !== null) return withEnding(kept + body, patch);
  // A source without front matter whose title changed (a page renamed in the app): only its heading line is written again.
  const retitled = patch?.head && patch.head.frontmatter === null && headMatches({ ...patch.head, title: options.title ?? null }, options) ? retitledHead(patch.head, options.title) : null;
  if (retitled !== null) return withEnding(retitled + body, patch);
  const head = writeHead(options.title, options.frontmatter);
  return withEnding(head && body ? `${head}\n${body}` : head + body, patch);
}

/**
 * A page's Markdown with the ending of the file it was synced from (`synced`, the document read from or written to
 * it): an editor appending a paragraph sends it with a final newline, which the file, without one, keeps out.
 */
export function withEndingOf(markdown: string, synced: JSONDocument | undefined): string {
  return synced ? withEnding(markdown, sourcePatchOf(synced.data)) : markdown;
}

/** The source's own ending: without a final newline where it had none. */
function withEnding(markdown: string, patch: SourcePatch | undefined): string {
  return patch?.noFinalNewline && markdown.endsWith('\n') ? markdown.slice(0, -1) : markdown;
}

/** The front matter and title heading as we write them; empty when there are neither. */
export function writeHead(title: string | undefined, frontmatter: Record<string, unknown> | undefined): string {
  const children: RootContent[] = [];
  if (frontmatter && Object.keys(frontmatter).length > 0) children.push({ type: 'yaml', value: stringifyYaml(frontmatter).trimEnd() });
  if (title !== undefined) children.push({ type: 'heading', depth: 1, children: [{ type: 'text', value: title }] });
  return children.length ? stringifierFor({}).stringify({ type: 'root', children }) : '';
}

/**
 * The document's blocks as Markdown, with the source's own lines put back where `hunks` still fit.
 * The hunks were taken over the default hrefs and our tables' rows written alone (`writePatchBase`): with
 * other hrefs, they are matched against a default writing and the lines they leave are taken from the
 * writing asked for; our tables' rows left are then written in the author's table style (table-lines.ts).
 */
export function writeBody(document: JSONDocument, hrefFor: ((ref: ContentRef) => string) | undefined, hunks: readonly SourceHunk[] = [], strict = false, tableRows = true, cellsWrittenAs?: CellWriting): string {
  if (hunks.length === 0) return writeBlocks(document, hrefFor ?? defaultHrefFor, 'aligned', cellsWrittenAs);
  const base = patchBaseOf(document, defaultHrefFor, tableRows);
  const asked = hrefFor && hrefFor !== defaultHrefFor ? writePatchBase(document, hrefFor, tableRows) : undefined;
  return applySourceHunks(base.text, hunks, asked, strict, base.tables, cellsWrittenAs);
}

/** Our writing that a source patch's hunks are taken over (`text`), with which of its lines are a table's (table-lines.ts). */
export type PatchBase = ReturnType<typeof unmarkTables>;

/**
 * Our writing that a source patch's hunks are taken over and matched against: each table row written alone
 * (table-lines.ts); a patch taken before that (no `tableRows`) was taken over our padded tables.
 */
export function writePatchBase(document: JSONDocument, hrefFor: ((ref: ContentRef) => string) | undefined, tableRows = true): string {
  return patchBaseOf(document, hrefFor, tableRows).text;
}

/** writePatchBase's writing with its tables' lines, for patchedWriting to apply hunks to as often as asked. */
export function patchBaseOf(document: JSONDocument, hrefFor: ((ref: ContentRef) => string) | undefined, tableRows = true): PatchBase {
  return unmarkTables(writeBlocks(document, hrefFor ?? defaultHrefFor, tableRows ? 'rows' : 'aligned'));
}

/**
 * `writeBody(document, undefined, hunks, strict, tableRows)` (hunks not empty) from the base that call writes first,
 * written once already: `patchBaseOf(document, hrefFor, tableRows)` over hrefs that are the default ones. Writing the
 * page again to apply hunks was a tenth of an imported page's conversion (sourcePatch's check that the hunks left only
 * pad tables), and up to 24 writings of a page edited as JSON (withSourcePatchOf's search for the hunks that fit).
 */
export function patchedWriting(base: PatchBase, hunks: readonly SourceHunk[], strict = false): string {
  return applySourceHunks(base.text, hunks, undefined, strict, base.tables);
}

function writeBlocks(document: JSONDocument, hrefFor: (ref: ContentRef) => string, tables: TableMode = 'aligned', cellsWrittenAs?: CellWriting): string {
  const style = markdownStyleOf(document);
  const writer = new Writer(hrefFor, style);
  const children = [...writer.flow(document.nodes as unknown as AnyBlock[]), ...writer.footnotes()];
  if (children.length === 0) return '';
  // The stringifiers are shared (one per style), so the cells' writing is theirs for this call only.
  tableCellsWrittenAs = cellsWrittenAs;
  try {
    return stringifierFor(style, tables).stringify({ type: 'root', children });
  } finally {
    tableCellsWrittenAs = undefined;
  }
}

/**
 * The source's head is written back when the page still has the title and front matter it was read with. A
 * writer that passes no front matter asks for none; one that passes the page's fields (even none of them: `{}`)
 * asks for the source's front matter while those fields are unchanged.
 */
function headMatches(head: NonNullable<SourcePatch['head']>, options: DocumentToMarkdownOptions): boolean {
  if ((options.title ?? null) !== head.title) return false;
  // A source without front matter still fits a page that has none of the fields (`{}`, as Git Sync's export
  // passes for every page): otherwise any page whose title line is not ours (`# Use \`x\``) had it rewritten.
  if (head.frontmatter === null) return options.frontmatter === undefined || frontmatterKey(options.frontmatter) === frontmatterKey({});
  if (options.frontmatter === undefined) return false;
  return frontmatterKey(options.frontmatter) === head.frontmatter;
}

/** A head's front matter block, `---` to `---` (or `...`) and its line ending. */
const FRONTMATTER_BLOCK = /^---[ \t]*\r?\n([\s\S]*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/**
 * The source's head for a page whose fields or title changed since it was read: its front matter as the author wrote
 * it, only the page fields that changed set (in place), removed or added (at the end), its other keys (`tags:`) and
 * their order kept; its title part as written while the title is the same, else our heading. Written whole our way,
 * the front matter lost those keys and had its keys reordered. Null where the source had no front matter (or one
 * that is not a mapping): the head is then ours.
 */
function headWithSourceFrontmatter(head: NonNullable<SourcePatch['head']>, options: DocumentToMarkdownOptions): string | null {
  const block = FRONTMATTER_BLOCK.exec(head.text);
  if (!block || head.frontmatter === null) return null;
  const yaml = parseDocument(block[1] ?? '');
  if (yaml.errors.length > 0 || !isMap(yaml.contents)) return null;
  const source = (yaml.toJS() ?? {}) as Record<string, unknown>;
  // A `title:` is the page's title, which our head writes as its heading: the source's head is not kept.
  if ('title' in source) return null;
  let frontmatter = block[0];
  const fields = options.frontmatter ?? {};
  if (frontmatterKey(fields) !== head.frontmatter) {
    for (const key of PAGE_FIELD_FRONTMATTER_KEYS) {
      if (frontmatterKey({ [key]: source[key] }) === frontmatterKey({ [key]: fields[key] })) continue;
      if (key === 'layout') setLayoutChanges(yaml, source.layout, fields.layout);
      else if (fields[key] === undefined) yaml.delete(key);
      // A new node: the changed value written as we write it, not in the quoting of the value it replaces.
      else yaml.set(key, yaml.createNode(fields[key]));
    }
    frontmatter = `---\n${isMap(yaml.contents) && yaml.contents.items.length > 0 ? yaml.toString() : ''}---\n`;
  }
  const rest = head.text.slice(block[0].length);
  if ((options.title ?? null) === head.title) return frontmatter + rest;
  const retitled = retitledHead({ ...head, text: rest }, options.title);
  if (retitled !== null) return frontmatter + retitled;
  return options.title === undefined ? `${frontmatter}\n` : `${frontmatter}\n${writeHead(options.title, undefined)}\n`;
}

/**
 * The head after its front matter (blank lines, the heading 1, blank lines) with only its heading's text changed to
 * `title`: the author's blank lines around it kept, and a setext heading kept setext (its `===` line as written). Written
 * our way, a title edit in the app collapsed the blank lines after the heading (found-gitprobe18b 5). Null where the head
 * holds more than a heading 1 and blank lines (its title elsewhere), or the page is written without a title.
 */
function retitledHead(head: NonNullable<SourcePatch['head']>, title: string | undefined): string | null {
  if (title === undefined || head.title === null) return null;
  const parts = /^((?:[ \t]*\r?\n)*)(?:( {0,3}#[ \t]+)[^\r\n]*|( {0,3})[^\s#][^\r\n]*(\r?\n {0,3}=+[ \t]*))((?:\r?\n[ \t]*)*)$/.exec(head.text);
  if (!parts) return null;
  const [, before, atx, setextIndent, underline, after] = parts;
  const heading = writeHead(title, undefined).replace(/\n$/, '');
  if (atx !== undefined) return `${before}${heading}${after}`;
  // A setext heading's text is the heading 1's without its `# `.
  return `${before}${setextIndent}${heading.replace(/^# /, '')}${underline}${after}`;
}

/** Where each setting of a page's layout is in GitBook's `layout:` front matter. */
const LAYOUT_PATHS: ReadonlyArray<[keyof PageLayoutFrontmatter, string[]]> = [
  ['width', ['width']],
  ['cover', ['cover', 'visible']],
  ['coverSize', ['cover', 'size']],
  ...LAYOUT_PARTS.map((part): [keyof PageLayoutFrontmatter, string[]] => [part, [part, 'visible']]),
];

/**
 * The settings of a page's layout that changed, set in the source's `layout:` one by one (`layout.outline.visible:
 * false`), the others left as the author wrote them or left them out: GitBook's whole layout written in place of a
 * `layout:` naming one part had the diff show every default.
 */
function setLayoutChanges(yaml: YamlDocument, sourceLayout: unknown, layout: unknown): void {
  const before = pageFrontmatter({ layout: sourceLayout }).layout ?? DEFAULT_PAGE_LAYOUT;
  const after = pageFrontmatter({ layout }).layout ?? DEFAULT_PAGE_LAYOUT;
  for (const [setting, path] of LAYOUT_PATHS) {
    if (before[setting] !== after[setting]) yaml.setIn(['layout', ...path], after[setting]);
  }
}

// ---------------------------------------------------------------------------------------------
// Marks

/** Marks written as HTML around their text, outermost first. */
const HTML_MARKS = ['color', 'keyboard', 'superscript', 'subscript'] as const;
/** Marks with Markdown syntax, outermost first: GitBook writes `~~_**x**_~~`. */
const SYNTAX_MARKS = ['strikethrough', 'italic', 'bold'] as const;
/**
 * Outermost first, as GitBook nests them: italic outside a highlight, bold inside (`_<mark style="...">**x**</mark>_`:
 * 60 `_<mark>…</mark>_` and 457 `<mark>**…**</mark>` in the GitBook-exported repositories, none the other way round;
 * fylr-gitbook's backup.md). The other HTML marks stay outermost.
 */
const WRAP_ORDER = ['keyboard', 'superscript', 'subscript', 'strikethrough', 'italic', 'color', 'bold'] as const satisfies ReadonlyArray<(typeof HTML_MARKS)[number] | (typeof SYNTAX_MARKS)[number]>;
type WrapMark = (typeof WRAP_ORDER)[number];

/** A piece of inline content with the marks that may be shared with its neighbours. */
type Item = { marks: ReadonlyMap<WrapMark, DocumentMark> } & ({ leaf: DocumentTextLeaf } | { node: PhrasingContent } | { link: PendingLink });
interface PendingLink {
  url: string;
  inner: Item[];
}

function markKey(mark: DocumentMark): string {
  return JSON.stringify(mark.type === 'color' ? [mark.type, mark.data] : [mark.type]);
}

const HTML_MARK_TAGS: Record<(typeof HTML_MARKS)[number], string> = { color: 'mark', keyboard: 'kbd', superscript: 'sup', subscript: 'sub' };

function openHtmlMark(mark: DocumentMark): string {
  if (mark.type === 'color') return openColorMark(mark);
  return `<${HTML_MARK_TAGS[mark.type as (typeof HTML_MARKS)[number]]}>`;
}

// ---------------------------------------------------------------------------------------------
// The writer

class Writer {
  /** The notes of the annotations written so far, each the footnote numbered by its place here. */
  private readonly notes: AnyBlock[][] = [];

  constructor(
    private readonly hrefFor: (ref: ContentRef) => string,
    private readonly style: MarkdownStyle = {},
  ) {}

  flow(blocks: readonly AnyBlock[]): RootContent[] {
    return separateLists(blocks.map((block) => this.block(block)));
  }

  /**
   * The annotations' notes as GitBook writes them, footnotes at the end of the page (`[^1]: note`), each referred to
   * right after the text it annotates. A note's own annotations are numbered after the others.
   */
  footnotes(): RootContent[] {
    const out: RootContent[] = [];
    for (let i = 0; i < this.notes.length; i++) {
      const label = String(i + 1);
      out.push({ type: 'footnoteDefinition', identifier: label, label, children: this.flow(this.notes[i]) as BlockContent[] } as RootContent);
    }
    return out;
  }

  private note = (annotation: { fragments?: unknown[] }): number => {
    const body = (annotation.fragments as Array<{ nodes?: AnyBlock[] }> | undefined)?.[0]?.nodes ?? [];
    return this.notes.push(body);
  };

  /**
   * A paragraph beginning with a tag no block holds, text after it on its line (`leadingUnknownTag`: a legacy tag's line
   * edited in the app): the tag as written, the rest as text. Escaped whole (`https\\://`), the line read back as
   * another paragraph, and the page was written whole our way.
   */
  private leadingTagParagraph(nodes: DocumentInlineContent[]): RootContent | null {
    const first = nodes[0];
    const leaf = first?.object === 'text' ? first.leaves[0] : undefined;
    const tag = leaf && leaf.marks.length === 0 ? leadingUnknownTag(leaf.text) : null;
    if (!first || first.object !== 'text' || !leaf || !tag) return null;
    const rest: DocumentInlineContent[] = [{ ...first, leaves: [{ ...leaf, text: leaf.text.slice(tag.length) }, ...first.leaves.slice(1)] }, ...nodes.slice(1)];
    return { type: 'paragraph', children: [{ type: 'html', value: tag }, ...withTrailingBreaks(withTrailingBackslash(this.phrasing(rest)))] };
  }

  private block(block: AnyBlock): RootContent {
    const data = (block.data ?? {}) as Record<string, any>;
    const nodes = (block.nodes ?? []) as AnyBlock[];
    switch (block.type) {
      case 'paragraph':
        // GitBook's form of an aligned paragraph: `<p align="center">`, its content as inline HTML.
        if (typeof data.align === 'string' && HTML_ALIGN[data.align]) return { type: 'html', value: `<p align="${HTML_ALIGN[data.align]}">${inlineHtml(nodes as unknown as DocumentInlineContent[], this.hrefFor)}</p>` };
        return unknownTagLine(block) ?? this.leadingTagParagraph(nodes as unknown as DocumentInlineContent[]) ?? imageAloneAsHtml({ type: 'paragraph', children: withTrailingBreaks(withTrailingBackslash(this.phrasing(nodes as unknown as DocumentInlineContent[]))) });
      case 'heading-1':
      case 'heading-2':
      case 'heading-3':
        return this.heading(block);
      case 'divider':
        return { type: 'thematicBreak' };
      case 'blockquote':
        return { type: 'blockquote', children: this.flow(nodes) as BlockContent[] };
      case 'list-ordered':
        return this.list(nodes as unknown as DocumentBlockListItem[], true, data.start ?? 1, false);
      case 'list-unordered':
        return this.list(nodes as unknown as DocumentBlockListItem[], false, null, false);
      case 'list-tasks':
        return this.list(nodes as unknown as DocumentBlockListItem[], false, null, true);
      case 'list-item':
        return this.listItem(block as unknown as DocumentBlockListItem, false);
      case 'code':
        return this.code(block as unknown as DocumentBlockCode);
      case 'code-line':
        return { type: 'code', value: leavesText((nodes as any[]).flatMap((text) => text.leaves)) };
      case 'hint':
        return tagNode(openTag('hint', { style: data.style, icon: data.icon }), '{% endhint %}', this.flow(nodes));
      case 'images':
        return this.imagesBlock(nodes, data);
      case 'image':
        return this.imagesBlock([block]);
      case 'drawing':
        return { type: 'html', value: `<img src="${escapeAttribute(data.ref ? this.hrefFor(data.ref) : String(data.src ?? ''))}" alt="${escapeAttribute(String(data.alt ?? ''))}" class="gitbook-drawing">` };
      case 'file':
        return tagNode(openTag('file', { src: this.hrefFor(data.ref) }), '{% endfile %}', this.flow(captionOf(block)));
      case 'embed': {
        const caption = captionOf(block);
        return tagNode(openTag('embed', { url: String(data.url ?? '') }), caption.length ? '{% endembed %}' : null, this.flow(caption));
      }
      case 'math':
        return this.math(String(data.formula ?? ''));
      case 'table':
        return this.table(block as unknown as DocumentBlockTable);
      case 'reusable-content':
        return tagNode(`{% include "${String(data.ref?.reusableContent ?? '').replace(/"/g, '&quot;')}" %}`, null);
      case 'content-ref': {
        const href = data.ref ? this.hrefFor(data.ref) : '';
        return tagNode(openTag('content-ref', { url: href }), '{% endcontent-ref %}', [targetLink(href)]);
      }
      case 'if':
        return tagNode(`{% if ${String(data.expression ?? '').replace(/%\}/g, '% }')} %}`, '{% endif %}', this.flow(nodes));
      case 'tabs':
        return this.itemsBlock('tabs', 'tab', nodes, {}, (item) => ({ title: String(item.data?.title ?? '') }));
      case 'stepper':
        return this.itemsBlock('stepper', 'step', nodes, {}, () => ({}));
      case 'columns':
        return this.itemsBlock('columns', 'column', nodes, { fullWidth: flag(data.fullWidth) }, (item) => ({
          width: lengthText(item.data?.width),
          valign: typeof item.data?.verticalAlignment === 'string' ? item.data.verticalAlignment : undefined,
        }));
      case 'updates':
        return this.itemsBlock('updates', 'update', nodes, { format: data.format ?? 'full' }, (item) => ({
          date: String(item.data?.date ?? '').replace(/^(\d{4}-\d{2}-\d{2})T00:00:00(?:\.000)?Z$/, '$1'),
          tags: Array.isArray(item.data?.tags) && item.data.tags.length ? item.data.tags.map((tag: { tag?: unknown }) => String(tag.tag ?? '')).join(',') : undefined,
        }));
      case 'expandable':
        return this.expandable(block);
      case 'prompt':
        return tagNode(openTag('prompt', { description: String(data.description ?? ''), defaultExpanded: data.defaultExpanded }), '{% endprompt %}', this.flow(nodes));
      case 'swagger': {
        const href = data.ref ? this.hrefFor(data.ref) : '';
        return tagNode(openTag('openapi', { src: href, path: String(data.path ?? ''), method: String(data.method ?? '') }), '{% endopenapi %}', href ? [targetLink(href)] : []);
      }
      case 'openapi-operation':
      case 'openapi-schemas':
      case 'openapi-webhook':
        return this.openAPIBlock(block);
      case 'integration':
        return tagNode(openTag(`@${String(data.integration ?? '')}/${String(data.block ?? '')}`, propsAttributes(data.props)), null);
      default:
        // Only reachable with a document that skipped `parseDocument`: keep its text rather than fail.
        return { type: 'paragraph', children: [{ type: 'text', value: blockText(block as unknown as DocumentBlock) }] };
    }
  }

  /** `##`, `###`, `####` (the page title is `#`); an explicit id as GitBook writes it, an empty anchor. */
  private heading(block: AnyBlock): RootContent {
    const depth = (Number(block.type.slice(-1)) + 1) as 2 | 3 | 4;
    const children = this.phrasing(block.nodes as DocumentInlineContent[], true);
    const id = block.data?.id;
    if (typeof id === 'string' && /^[-a-z0-9.+_]+$/.test(id)) {
      const anchor = this.style.headingAnchors === 'id' ? `<a id="${id}">` : `<a href="#${id}" id="${id}">`;
      children.push({ type: 'text', value: ' ' }, { type: 'html', value: anchor }, { type: 'html', value: '</a>' });
    }
    return { type: 'heading', depth, children };
  }

  /**
   * A `$$` block on three lines (`$$`, the formula, `$$`), as GitBook writes block math (ssv-docs GITBOOK-359,
   * coinmetrics-docs GITBOOK-1247); written `$$formula$$` on one line, a page made in the app did not look like
   * GitBook's. An author's one-line `$$...$$` is kept by the source patch while it is not edited.
   */
  private math(formula: string): RootContent {
    return { type: 'math', value: formula } as unknown as RootContent;
  }

  /** Tabs, steppers, columns, updates: each item a tag, items a blank line apart. */
  private itemsBlock(
    name: string,
    itemName: string,
    items: readonly AnyBlock[],
    attributes: Record<string, string | undefined>,
    itemAttributes: (item: AnyBlock) => Record<string, string | undefined>,
  ): RootContent {
    const children = items.map((item) => tagNode(openTag(itemName, itemAttributes(item)), `{% end${itemName} %}`, this.flow((item.nodes ?? []) as AnyBlock[])));
    return tagNode(openTag(name, attributes), `{% end${name} %}`, children);
  }

  /** `<details>` with its `<summary>` and the body, blank lines between, as GitBook writes it. */
  private expandable(block: AnyBlock): RootContent {
    const fragments = (block.fragments ?? []) as Array<{ fragment: string; nodes: AnyBlock[] }>;
    const title = fragments.find((fragment) => fragment.fragment === 'expandable-title');
    const body = fragments.find((fragment) => fragment.fragment === 'expandable-body');
    const titleText = (title?.nodes ?? []).map((paragraph) => inlineText((paragraph.nodes ?? []) as DocumentInlineContent[])).join(' ');
    const open = block.data?.defaultExpanded === true ? '<details open>' : '<details>';
    return tagNode(`${open}\n\n<summary>${paragraphHtml(title?.nodes ?? [], titleText, this.hrefFor)}</summary>`, '</details>', this.flow(body?.nodes ?? []), true);
  }

  /**
   * GitBook's Markdown of OpenAPI blocks: `{% openapi-operation spec="<slug>" path="/pets" method="get" %}`,
   * a link to the spec, the end tag (`openapi-schemas` with `schemas="A,B" grouped="true"`, and
   * `openapi-webhook` with `name` and `method`, likewise).
   */
  private openAPIBlock(block: AnyBlock): RootContent {
    const data = (block.data ?? {}) as Record<string, any>;
    const spec = typeof data.ref?.spec === 'string' ? data.ref.spec : '';
    const attributes: Record<string, string> = { spec };
    if (block.type === 'openapi-operation') {
      attributes.path = String(data.path ?? '');
      attributes.method = String(data.method ?? '');
    } else if (block.type === 'openapi-webhook') {
      attributes.name = String(data.name ?? '');
      attributes.method = String(data.method ?? '');
    } else {
      // Joined by `,`: a name with one would read back as two (expansion leaves such names out).
      attributes.schemas = Array.isArray(data.schemas) ? data.schemas.map(String).filter((name: string) => name !== '' && !name.includes(',')).join(',') : '';
      attributes.grouped = String(data.grouped ?? true);
    }
    const link: RootContent = {
      type: 'paragraph',
      children: [{ type: 'link', url: this.hrefFor({ kind: 'openapi', spec }), title: null, children: [{ type: 'text', value: `OpenAPI ${spec}` }] }],
    };
    return tagNode(openTag(block.type, attributes), `{% end${block.type} %}`, spec ? [link] : []);
  }

  private list(items: readonly DocumentBlockListItem[], ordered: boolean, start: number | null, tasks: boolean): List {
    return { type: 'list', ordered, start, spread: false, children: items.map((item) => this.listItem(item, tasks)) };
  }

  private listItem(item: DocumentBlockListItem, task: boolean): ListItem {
    const checked = typeof item.data?.checked === 'boolean' ? item.data.checked : task ? false : null;
    return { type: 'listItem', spread: false, checked, children: this.flow(item.nodes as unknown as AnyBlock[]) as BlockContent[] };
  }

  private code(block: DocumentBlockCode): RootContent {
    // GitBook's HTML form holds what a fence cannot: highlighted lines, annotations.
    if (block.nodes.some((line) => line.data?.highlighted === true) || hasInlines(block)) return { type: 'html', value: preCodeHtml(block, this.note) };
    const value = block.nodes.map((line) => leavesText(line.nodes.flatMap((text) => text.leaves))).join('\n');
    const code: RootContent = { type: 'code', lang: block.data.syntax || null, meta: null, value };
    // Options with no Markdown form go in GitBook's `{% code %}` tag around the fence.
    const attributes: Record<string, string | undefined> = {
      title: block.data.title || undefined,
      overflow: block.data.overflow,
      lineNumbers: flag(block.data.lineNumbers),
      fullWidth: flag(block.data.fullWidth),
      expandable: flag(block.data.expandable),
    };
    return Object.values(attributes).some((value) => value !== undefined) ? tagNode(openTag('code', attributes), '{% endcode %}', [code]) : code;
  }

  /**
   * An image block as GitBook writes it, `<figure><img src alt width><figcaption><p>caption</p></figcaption></figure>`;
   * without a caption, `<figcaption></figcaption>` empty, as GitBook's recent exports write it (beefree GITBOOK-431:
   * 293 such lines, no `![](...)`). Written `![alt](src)`, an image made in the app did not look like GitBook's; an
   * author's `![](...)` is kept by the source patch while its block is not edited.
   */
  private imagesBlock(images: readonly AnyBlock[], data: Record<string, unknown> = {}): RootContent {
    const wrapper = imagesDivAttributes(data);
    const html = images
      .map((image) => {
        const width = lengthText(image.data?.width);
        const caption = captionText(image);
        const src = this.hrefFor(image.data?.ref as ContentRef);
        const alt = String(image.data?.alt ?? '');
        const img = `<img src="${escapeAttribute(src)}" alt="${escapeAttribute(alt)}"${width ? ` width="${escapeAttribute(width)}"` : ''}>`;
        const dark = image.data?.refDark ? pictureHtml({ src, darkSrc: this.hrefFor(image.data.refDark as ContentRef), alt }) : null;
        return `<figure>${dark ?? img}<figcaption>${caption ? `<p>${this.captionHtml(image, caption)}</p>` : ''}</figcaption></figure>`;
      })
      // GitBook's gallery: its figures in a `<div>`, a space between them.
      .join(images.length > 1 ? ' ' : '');
    return { type: 'html', value: wrapper !== null || images.length > 1 ? `<div${wrapper ?? ''}>${html}</div>` : html };
  }

  /** A caption as GitBook writes it: its text escaped, or, holding links or marks, as inline HTML. */
  private captionHtml(image: AnyBlock, text: string): string {
    return paragraphHtml(captionOf(image), text, this.hrefFor);
  }

  private table(block: DocumentBlockTable): Table | RootContent {
    if (needsHtmlTable(block)) return { type: 'html', value: htmlTable(block, this.hrefFor) };
    const { view, definition, records } = block.data;
    const listed = view.columns.filter((id) => definition[id]);
    const columns = listed.length ? listed : Object.keys(definition);
    const align: AlignType[] = columns.map((id) => {
      const alignment = definition[id].textAlignment;
      return alignment === 'center' || alignment === 'right' ? alignment : null;
    });
    const header: TableRow = {
      type: 'tableRow',
      children: columns.map((id) => cell(view.hideHeader ? [] : [{ type: 'text', value: definition[id].title }])),
    };
    const ordered = Object.entries(records).sort(([idA, a], [idB, b]) =>
      a.orderIndex === b.orderIndex ? compare(idA, idB) : compare(a.orderIndex, b.orderIndex),
    );
    const rows: TableRow[] = ordered.map(([, record]) => ({
      type: 'tableRow',
      children: columns.map((id) => cell(this.tableValue(block, definition[id].type, record.values[id]))),
    }));
    return { type: 'table', align, children: [header, ...rows] };
  }

  /** A text cell is the fragment its value names; other GitBook column types are written as text. */
  private tableValue(block: DocumentBlockTable, type: string, value: unknown): PhrasingContent[] {
    if (value === null || value === undefined) return [];
    if (type === 'text' && typeof value === 'string') {
      const fragment = block.fragments.find((candidate) => candidate.fragment === value);
      return fragment ? this.cellContent(fragment.nodes as unknown as AnyBlock[]) : [];
    }
    if (typeof value === 'boolean') return [{ type: 'text', value: value ? '[x]' : '[ ]' }];
    if (Array.isArray(value)) return [{ type: 'text', value: value.map(String).join(', ') }];
    if (typeof value === 'object' && 'kind' in value) {
      const href = this.hrefFor(value as ContentRef);
      return [{ type: 'link', url: href, children: [{ type: 'text', value: href }] }];
    }
    return [{ type: 'text', value: typeof value === 'object' ? JSON.stringify(value) : String(value) }];
  }

  /** A Markdown cell holds one line: several paragraphs are `<p>a</p><p>b</p>`, as GitBook writes them. */
  private cellContent(blocks: readonly AnyBlock[]): PhrasingContent[] {
    const parts = blocks.map((block): PhrasingContent[] => {
      if (block.type === 'paragraph' || block.type.startsWith('heading-')) return this.phrasing(block.nodes as DocumentInlineContent[], 'cell');
      if (block.type === 'images') {
        return (block.nodes as AnyBlock[]).map((image) => ({ type: 'image', url: this.hrefFor(image.data?.ref as ContentRef), alt: String(image.data?.alt ?? ''), title: null }));
      }
      return [{ type: 'text', value: blockText(block as unknown as DocumentBlock) }];
    });
    if (parts.length <= 1) return parts[0] ?? [];
    return parts.flatMap((part): PhrasingContent[] => [{ type: 'html', value: '<p>' }, ...part, { type: 'html', value: '</p>' }]);
  }

  // -- inline content

  private phrasing(nodes: readonly DocumentInlineContent[], singleLine: SingleLine = false): PhrasingContent[] {
    return nest(this.items(nodes ?? []), 0, singleLine);
  }

  private items(nodes: readonly DocumentInlineContent[]): Item[] {
    const items: Item[] = [];
    for (const node of nodes) {
      if (node.object === 'text') {
        for (const leaf of node.leaves) if (leaf.text !== '') items.push({ marks: wrapMarks(leaf), leaf });
        continue;
      }
      const inline = node as { type: string; data?: Record<string, any>; nodes?: DocumentInlineContent[] };
      const data = inline.data ?? {};
      switch (inline.type) {
        case 'link':
          items.push({ marks: new Map(), link: { url: this.hrefFor(data.ref), inner: this.items(inline.nodes ?? []) } });
          break;
        case 'expression':
          // GitBook's form; the expression between the tags is text, escaped so that it reads back as written.
          items.push(
            { marks: new Map(), node: { type: 'html', value: '<code class="expression">' } },
            { marks: new Map(), leaf: { object: 'leaf', text: String(data.expression ?? '').trim(), marks: [] } },
            { marks: new Map(), node: { type: 'html', value: '</code>' } },
          );
          break;
        case 'inline-image':
          items.push({ marks: new Map(), node: this.inlineImage(data) });
          break;
        case 'inline-math':
          items.push({ marks: new Map(), node: { type: 'inlineMath', value: String(data.formula ?? '') } as unknown as PhrasingContent });
          break;
        case 'emoji':
          items.push({ marks: new Map(), leaf: { object: 'leaf', text: emojiText(String(data.code ?? '')), marks: [] } });
          break;
        case 'icon':
          items.push({ marks: new Map(), node: { type: 'html', value: iconHtml(data) } });
          break;
        case 'button':
          items.push({ marks: new Map(), node: { type: 'html', value: buttonHtml(data, data.ref ? this.hrefFor(data.ref) : '') } });
          break;
        case 'mention': {
          // GitBook's Markdown of a mention: a link titled "mention", `[Page](page.md "mention")`. Its label is the
          // author's own (kept as its text), else the target's file name as GitBook writes it (hrefs.ts mentionLabelOf).
          const href = data.ref ? this.hrefFor(data.ref) : '';
          const label = leavesText((inline.nodes ?? []).flatMap((node) => (node.object === 'text' ? node.leaves : []))) || mentionLabelOf(href);
          items.push({ marks: new Map(), node: { type: 'link', url: href, title: 'mention', children: [{ type: 'text', value: label }] } });
          break;
        }
        case 'annotation': {
          // GitBook's Markdown of an annotation: the text, then the footnote holding its note, `word[^1]`; text that is
          // not one word standing alone is the link to the note, `[some words](#user-content-fn-1)[^1]` (`word[^1]`
          // annotates the word before the footnote only).
          const inner = this.items(inline.nodes ?? []);
          const label = String(this.note(inline as { fragments?: unknown[] }));
          if (isOneWord(inner, items[items.length - 1])) items.push(...inner);
          else items.push({ marks: new Map(), link: { url: `#user-content-fn-${label}`, inner } });
          items.push({ marks: new Map(), node: { type: 'footnoteReference', identifier: label, label } as PhrasingContent });
          break;
        }
        default:
          break;
      }
    }
    return resolveLinks(items);
  }

  /** `<img src alt data-size>` when the image has a size (GitBook's inline form), else `![alt](src)`. */
  private inlineImage(data: Record<string, any>): PhrasingContent {
    const src = this.hrefFor(data.ref);
    if (data.refDark) {
      // GitBook's form of an inline image with a dark-mode variant.
      const size = data.size === 'line' || data.size === 'original' ? data.size : undefined;
      const picture = { src, darkSrc: this.hrefFor(data.refDark), alt: String(data.alt ?? ''), ...(size ? { size } : {}) };
      return { type: 'html', value: pictureHtml(picture) };
    }
    if (data.size === 'line' || data.size === 'original') {
      return { type: 'html', value: `<img src="${escapeAttribute(src)}" alt="${escapeAttribute(String(data.alt ?? ''))}" data-size="${data.size}">` };
    }
    return { type: 'image', url: src, alt: String(data.alt ?? ''), title: data.caption || null };
  }
}

/**
 * A paragraph holding an inline image alone (an author's `<img src>` on its line) as that HTML: written `![](src)`, it
 * read back as an image block, which is written as a `<figure>` (GitBook's), and the page was no fixed point.
 */
function imageAloneAsHtml(paragraph: Paragraph): RootContent {
  const [only, ...rest] = paragraph.children;
  if (rest.length > 0 || only?.type !== 'image' || only.title) return paragraph;
  return { type: 'html', value: `<img src="${escapeAttribute(only.url)}" alt="${escapeAttribute(only.alt ?? '')}">` };
}

/**
 * Two lists of one kind next to each other, written as GitBook writes them: an empty comment `<!---->` between them
 * (which the reader drops), where Markdown would otherwise join them into one list (the writer's default, another
 * bullet, was not GitBook's and changed the second list's lines).
 */
function separateLists(nodes: RootContent[]): RootContent[] {
  const sameKind = (a: RootContent | undefined, b: RootContent) => a?.type === 'list' && b.type === 'list' && Boolean(a.ordered) === Boolean(b.ordered);
  if (!nodes.some((node, i) => i > 0 && sameKind(nodes[i - 1], node))) return nodes;
  return nodes.flatMap((node, i): RootContent[] => (i > 0 && sameKind(nodes[i - 1], node) ? [{ type: 'html', value: '<!---->' }, node] : [node]));
}

/** GitBook's TextAlignment of a paragraph as HTML's `align`. */
const HTML_ALIGN: Record<string, string> = { start: 'left', center: 'center', end: 'right' };

/** The attributes of the `<div>` GitBook writes an images block's `align`, `fullWidth` and `withFrame` on; null for none. */
function imagesDivAttributes(data: Record<string, unknown>): string | null {
  const attributes = [
    data.align === 'left' || data.align === 'center' || data.align === 'right' ? ` align="${data.align}"` : '',
    typeof data.fullWidth === 'boolean' ? ` data-full-width="${data.fullWidth}"` : '',
    typeof data.withFrame === 'boolean' ? ` data-with-frame="${data.withFrame}"` : '',
  ].join('');
  return attributes === '' ? null : attributes;
}

/**
 * Marks a link shares with a neighbour go outside it (`**a [b](x) c**`); others stay inside, as GitBook
 * writes a link that is all bold: `[**b**](x)`.
 */
/** Whether an annotation's text is one word after a space (or nothing), which a footnote right after it annotates alone. */
function isOneWord(inner: readonly Item[], before: Item | undefined): boolean {
  if (inner.length === 0 || !inner.every((item) => 'leaf' in item)) return false;
  const text = inner.map((item) => ('leaf' in item ? item.leaf.text : '')).join('');
  const after = !before || ('leaf' in before && /\s$/.test(before.leaf.text));
  return /^\S+$/.test(text) && after;
}

function resolveLinks(items: Item[]): Item[] {
  return items.map((item, index) => {
    if (!('link' in item)) return item;
    const { inner, url } = item.link;
    const shared = inner.length ? WRAP_ORDER.filter((mark) => inner.every((child) => sameMark(child.marks.get(mark), inner[0].marks.get(mark)))) : [];
    const neighbours = [items[index - 1], items[index + 1]].filter((neighbour): neighbour is Item => neighbour !== undefined && !('link' in neighbour));
    const hoisted = new Map<WrapMark, DocumentMark>();
    for (const mark of shared) {
      const value = inner[0].marks.get(mark);
      if (value && neighbours.some((neighbour) => sameMark(neighbour.marks.get(mark), value))) hoisted.set(mark, value);
    }
    const stripped = inner.map((child) => ({ ...child, marks: new Map([...child.marks].filter(([mark]) => !hoisted.has(mark))) }));
    return { marks: hoisted, node: { type: 'link', url, title: null, children: nest(stripped, 0, false) } };
  });
}

function sameMark(a: DocumentMark | undefined, b: DocumentMark | undefined): boolean {
  return a !== undefined && b !== undefined && markKey(a) === markKey(b);
}

/**
 * Turns a flat run of marked items into nested mdast: consecutive items sharing the outermost mark
 * are wrapped together, then the next mark is applied inside each run.
 */
function nest(items: readonly Item[], depth: number, singleLine: SingleLine): PhrasingContent[] {
  if (depth === WRAP_ORDER.length) {
    return items.flatMap((item) => ('node' in item ? [item.node] : 'leaf' in item ? leafNodes(item.leaf, singleLine) : []));
  }
  const mark = WRAP_ORDER[depth];
  const out: PhrasingContent[] = [];
  let index = 0;
  while (index < items.length) {
    const value = items[index].marks.get(mark);
    let end = index + 1;
    while (end < items.length && (value ? sameMark(items[end].marks.get(mark), value) : !items[end].marks.has(mark))) end++;
    const children = nest(items.slice(index, end), depth + 1, singleLine);
    if (!value) out.push(...children);
    else if (mark === 'bold') out.push({ type: 'strong', children });
    else if (mark === 'italic') out.push({ type: 'emphasis', children });
    else if (mark === 'strikethrough') out.push({ type: 'delete', children });
    else out.push({ type: 'html', value: openHtmlMark(value) }, ...children, { type: 'html', value: `</${HTML_MARK_TAGS[mark]}>` });
    index = end;
  }
  return out;
}

function wrapMarks(leaf: DocumentTextLeaf): Map<WrapMark, DocumentMark> {
  const marks = new Map<WrapMark, DocumentMark>();
  for (const mark of leaf.marks) if ((WRAP_ORDER as readonly string[]).includes(mark.type)) marks.set(mark.type as WrapMark, mark);
  return marks;
}

/**
 * Code marks become code spans; a line break in text is a hard break, `\` at the end of the line, as GitBook writes
 * it (in a list item too: `* first\` then `  second`), a space where none fits. Written as a bare line ending, a
 * break read from `<br>` or `\` came back as a soft one, and one ending an item as `&#xA;`.
 */
function leafNodes(leaf: DocumentTextLeaf, singleLine: SingleLine): PhrasingContent[] {
  if (leaf.marks.some((mark) => mark.type === 'code')) return [{ type: 'inlineCode', value: leaf.text.replace(/\n/g, ' ') }];
  if (singleLine === true || !leaf.text.includes('\n')) return [{ type: 'text', value: singleLine ? leaf.text.replace(/\n/g, ' ') : leaf.text }];
  const lineBreak: PhrasingContent = singleLine === 'cell' ? { type: 'html', value: '<br>' } : { type: 'break' };
  return leaf.text.split('\n').flatMap((part, i): PhrasingContent[] => [...(i > 0 ? [lineBreak] : []), ...(part ? [{ type: 'text' as const, value: part }] : [])]);
}

/** Inline content on one line: a line break as a space (a heading), or as `<br>` (a pipe table's cell, as GitBook writes it). */
type SingleLine = boolean | 'cell';

/**
 * Breaks ending a paragraph (nothing after them on its last line: `\` there would be text) written `<br>`, as
 * GitBook writes them (`Text.<br>`): they read back as the breaks they are.
 */
function withTrailingBreaks(children: PhrasingContent[]): PhrasingContent[] {
  const last = children.at(-1);
  if (!last) return children;
  if (last.type === 'break') return [...withTrailingBreaks(children.slice(0, -1)), { type: 'html', value: '<br>' }];
  if ((last.type === 'strong' || last.type === 'emphasis' || last.type === 'delete' || last.type === 'link') && last.children.at(-1)?.type === 'break') {
    return [...children.slice(0, -1), { ...last, children: withTrailingBreaks(last.children) } as PhrasingContent];
  }
  return children;
}

/**
 * A tag GitBook's Markdown has but no block of the model holds (`{% swagger-description %}` of the
 * legacy API blocks) is read as a paragraph of its text; it is written back as it was, not escaped, so
 * that it reads back the same.
 */
function unknownTagLine(block: AnyBlock): RootContent | null {
  const nodes = (block.nodes ?? []) as DocumentInlineContent[];
  const only = nodes.length === 1 && nodes[0].object === 'text' && nodes[0].leaves.length === 1 ? nodes[0].leaves[0] : null;
  if (!only || only.marks.length > 0 || only.text.includes('\n')) return null;
  const tag = parseTag(only.text);
  if (!tag || KNOWN_TAG_NAMES.has(tag.name) || tag.name.startsWith('@')) return null;
  return { type: 'html', value: only.text };
}

/**
 * `[target](target)`: the link GitBook writes inside a content reference or an OpenAPI tag, a resource
 * link even where its text is its URL (which Markdown would shorten to `<target>`).
 */
function targetLink(href: string): RootContent {
  const label = href.replace(/[\\[\]]/g, (character) => `\\${character}`);
  const destination = /[\s<>()]/.test(href) ? `<${href.replace(/[<>]/g, encodeURIComponent)}>` : href;
  return { type: 'paragraph', children: [{ type: 'html', value: `[${label}](${destination})` }] };
}

function cell(children: PhrasingContent[]): TableCell {
  return { type: 'tableCell', children };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A paragraph's text ending in one backslash (GitBook's hard break `\` before a block that ends the paragraph, a
 * `<figure>`, reads as that text) writes it as it was: a backslash ending a paragraph is text, while the writer,
 * taking it for a hard break before a line ending, doubled it on every export.
 */
function withTrailingBackslash(children: PhrasingContent[]): PhrasingContent[] {
  const last = children.at(-1);
  if (last?.type !== 'text' || !/(?:^|[^\\])\\$/.test(last.value)) return children;
  return [...children.slice(0, -1), ...(last.value.length > 1 ? [{ ...last, value: last.value.slice(0, -1) }] : []), { type: 'html', value: '\\' }];
}

function flag(value: unknown): string | undefined {
  return typeof value === 'boolean' ? String(value) : undefined;
}

/** A GitBook length: a number (pixels) or `{ unit, value }`. */
function lengthText(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  if (value && typeof value === 'object' && typeof (value as { value?: unknown }).value === 'number') {
    const { unit, value: number } = value as { unit?: unknown; value: number };
    return `${number}${unit === '%' ? '%' : ''}`;
  }
  return undefined;
}

/**
 * An integration block's props as tag attributes, by name: a stored document's JSON is canonical (members sorted), so
 * written in the order read, a page's own writing at import kept the author's order (no hunk recorded) and, once stored,
 * came back sorted, a line nobody edited changed (`{% @supademo/embed url= demoId= %}`: found-gitprobe16b 1). Written
 * sorted, the author's order is kept by the source patch.
 */
function propsAttributes(props: unknown): Record<string, string> {
  if (!props || typeof props !== 'object') return {};
  const entries = Object.entries(props as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
}

/**
 * One paragraph as HTML inside a tag (a caption, an expandable's `<summary>`): its text escaped, or, holding links or
 * marks, as inline HTML.
 */
function paragraphHtml(paragraphs: readonly AnyBlock[], text: string, hrefFor: (ref: ContentRef) => string): string {
  const nodes = (paragraphs.length === 1 ? (paragraphs[0].nodes ?? []) : []) as DocumentInlineContent[];
  const rich = nodes.some((node) => node.object !== 'text' || node.leaves.some((leaf) => (leaf.marks ?? []).length > 0));
  return rich ? inlineHtml(nodes, hrefFor) : escapeHtml(text);
}

function captionOf(block: AnyBlock): AnyBlock[] {
  const caption = ((block.fragments ?? []) as Array<{ fragment: string; nodes: AnyBlock[] }>).find((fragment) => fragment.fragment === 'caption');
  return caption?.nodes ?? [];
}

function captionText(block: AnyBlock): string {
  return captionOf(block)
    .map((paragraph) => inlineText((paragraph.nodes ?? []) as DocumentInlineContent[]))
    .join(' ');
}

function leavesText(leaves: readonly DocumentTextLeaf[]): string {
  return leaves.map((leaf) => leaf.text).join('');
}

function inlineText(nodes: readonly DocumentInlineContent[]): string {
  return nodes
    .map((node) => {
      if (node.object === 'text') return leavesText(node.leaves);
      const inline = node as { type: string; data?: Record<string, any>; nodes?: DocumentInlineContent[] };
      if (inline.type === 'expression') return String(inline.data?.expression ?? '');
      if (inline.type === 'link' || inline.type === 'annotation') return inlineText(inline.nodes ?? []);
      if (inline.type === 'inline-math') return String(inline.data?.formula ?? '');
      return String(inline.data?.alt ?? inline.data?.label ?? '');
    })
    .join('');
}

/** The text of any block, for places (table cells) where only text fits. */
function blockText(block: DocumentBlock): string {
  const loose = block as unknown as AnyBlock;
  if (typeof loose?.type !== 'string') return '';
  if (loose.type === 'paragraph' || loose.type.startsWith('heading-')) return inlineText((loose.nodes ?? []) as DocumentInlineContent[]);
  if (loose.type === 'code' || loose.type === 'code-line') {
    const lines = loose.type === 'code' ? (loose.nodes as any[]) : [loose];
    return lines.map((line) => leavesText((line.nodes ?? []).flatMap((text: { leaves?: DocumentTextLeaf[] }) => text.leaves ?? []))).join(' ');
  }
  if (loose.type === 'math') return String(loose.data?.formula ?? '');
  if (loose.type === 'embed') return String(loose.data?.url ?? '');
  const children = [...((loose.nodes ?? []) as DocumentBlock[]), ...((loose.fragments ?? []) as Array<{ nodes: DocumentBlock[] }>).flatMap((fragment) => fragment.nodes)];
  return children.map(blockText).join(' ');
}
