/**
 * Rich-text document -> Markdown. The document is mapped onto an mdast tree and remark-stringify
 * (with remark-gfm for tables, strikethrough and task lists) writes it, so escaping is the
 * library's. Hints, files, titled code blocks and reusable content are written as GitBook's block
 * tags, which `markdownToDocument` reads back. Expressions are written as GitBook writes them,
 * `{{ space.vars.x }}`, which is read back as text: the value is only known when rendering.
 */
import type {
  AlignType,
  BlockContent,
  Image,
  List,
  ListItem,
  PhrasingContent,
  Root,
  RootContent,
  Table,
  TableCell,
  TableRow,
} from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkStringify, { type Options as StringifyOptions } from 'remark-stringify';
import { unified } from 'unified';
import { stringify as stringifyYaml } from 'yaml';
import type {
  ContentRef,
  DocumentBlock,
  DocumentBlockCode,
  DocumentBlockListItem,
  DocumentBlockTable,
  DocumentInlineContent,
  DocumentTextLeaf,
  GeneratedOpenAPIBlock,
  JSONDocument,
  TableCellBlock,
} from './document';

export interface DocumentToMarkdownOptions {
  /** Href written for a link or image target. Defaults to `defaultHrefFor`. */
  hrefFor?: (ref: ContentRef) => string;
  /** Written as a leading heading 1, where `markdownToDocument` reads a title back. */
  title?: string;
  /** Written as YAML frontmatter when it has at least one key. */
  frontmatter?: Record<string, unknown>;
}

/** `/pages/<id>`, `/files/<id>` or the URL: the hrefs that `defaultResolveLink` reads back. */
export function defaultHrefFor(ref: ContentRef): string {
  switch (ref.kind) {
    case 'url':
      return ref.url;
    case 'file':
      return `/files/${ref.file}`;
    case 'page':
      return pageHref(ref.page, ref.space);
    case 'anchor':
      return ref.page ? `${pageHref(ref.page, ref.space)}#${ref.anchor}` : `#${ref.anchor}`;
    case 'space':
      return `/spaces/${ref.space}`;
    case 'collection':
      return `/collections/${ref.collection}`;
    case 'user':
      return `/users/${ref.user}`;
    case 'reusable-content':
      return `/reusable-contents/${ref.reusableContent}`;
    case 'openapi':
      return `/openapi/${ref.spec}`;
  }
}

function pageHref(page: string, space: string | undefined): string {
  return space ? `/spaces/${space}/pages/${page}` : `/pages/${page}`;
}

/**
 * A GitBook block tag in the mdast tree. mdast has no such node; it is passed through the tree as a
 * block and written by its own handler.
 */
interface BlockTagNode {
  type: 'gitbookTag';
  name: 'hint' | 'file' | 'code' | GeneratedOpenAPIBlock['type'];
  attributes: Record<string, string>;
  children: RootContent[];
}

function blockTag(name: BlockTagNode['name'], attributes: Record<string, string>, children: RootContent[]): BlockContent {
  const node: BlockTagNode = { type: 'gitbookTag', name, attributes, children };
  return node as unknown as BlockContent;
}

/** `{% include "<id>" %}`: a tag with no content and no end tag, so a node of its own. */
interface IncludeTagNode {
  type: 'gitbookInclude';
  target: string;
}

function includeTag(target: string): BlockContent {
  const node: IncludeTagNode = { type: 'gitbookInclude', target };
  return node as unknown as BlockContent;
}

type Handle = NonNullable<NonNullable<StringifyOptions['handlers']>['paragraph']>;

const writeIncludeTag: Handle = (node: IncludeTagNode) => `{% include "${node.target.replace(/"/g, '&quot;')}" %}`;

/**
 * An attribute value as it is written in a tag: one line, with no `"` and no `%}` in it, so the tag
 * ends where it should and nothing in the value starts a line (a tag) of its own. `markdownToDocument`
 * reads these references back (`readAttributes`).
 */
export function encodeTagAttribute(value: string): string {
  return value.replace(/"/g, '&quot;').replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/%\}/g, '%&#125;');
}

/** `{% hint style="info" %}`, the content (indented by the container, as any flow), `{% endhint %}`. */
const writeBlockTag: Handle = (node: BlockTagNode, _parent, state, info) => {
  const attributes = Object.entries(node.attributes)
    .map(([name, value]) => ` ${name}="${encodeTagAttribute(value)}"`)
    .join('');
  const inner = state.containerFlow(node as unknown as Root, info);
  const open = `{% ${node.name}${attributes} %}`;
  const close = `{% end${node.name} %}`;
  return inner ? `${open}\n${inner}\n${close}` : `${open}\n${close}`;
};

const stringifier = unified()
  .use(remarkGfm)
  .use(remarkFrontmatter, ['yaml'])
  .use(remarkStringify, {
    bullet: '-',
    emphasis: '*',
    strong: '*',
    fence: '`',
    fences: true,
    rule: '-',
    listItemIndent: 'one',
    incrementListMarker: true,
    // The handlers map is keyed by mdast's node types, which do not include ours.
    handlers: { gitbookTag: writeBlockTag, gitbookInclude: writeIncludeTag } as StringifyOptions['handlers'],
    // Text that would read back as a block tag is escaped (`\{% hint %}`).
    unsafe: [{ character: '{', after: String.raw`%[ \t]*(?:(?:end)?(?:hint|file|code)|include)\b`, atBreak: true }],
  });

export function documentToMarkdown(document: JSONDocument, options: DocumentToMarkdownOptions = {}): string {
  const writer = new Writer(options.hrefFor ?? defaultHrefFor);
  const children = writer.flow(document.nodes);
  if (options.title !== undefined) children.unshift({ type: 'heading', depth: 1, children: [{ type: 'text', value: options.title }] });
  if (options.frontmatter && Object.keys(options.frontmatter).length > 0) {
    children.unshift({ type: 'yaml', value: stringifyYaml(options.frontmatter).trimEnd() });
  }
  return stringifier.stringify({ type: 'root', children });
}

type WrapMark = 'bold' | 'italic' | 'strikethrough';
/** Outermost first: `**bold *and italic***`. */
const WRAP_ORDER: readonly WrapMark[] = ['bold', 'italic', 'strikethrough'];

/** A piece of inline content with the marks that may be shared with its neighbours. */
type Item = { marks: ReadonlySet<WrapMark> } & ({ leaf: DocumentTextLeaf } | { node: PhrasingContent });

class Writer {
  constructor(private readonly hrefFor: (ref: ContentRef) => string) {}

  flow(blocks: readonly DocumentBlock[]): RootContent[] {
    return blocks.map((block) => this.block(block));
  }

  private block(block: DocumentBlock): RootContent {
    switch (block.type) {
      case 'paragraph':
        return { type: 'paragraph', children: this.phrasing(block.nodes) };
      case 'heading-1':
      case 'heading-2':
      case 'heading-3':
        return { type: 'heading', depth: Number(block.type.slice(-1)) as 1 | 2 | 3, children: this.phrasing(block.nodes) };
      case 'divider':
        return { type: 'thematicBreak' };
      case 'blockquote':
        return { type: 'blockquote', children: this.flow(block.nodes) as BlockContent[] };
      case 'list-ordered':
        return this.list(block.nodes, true, block.data.start ?? 1, false);
      case 'list-unordered':
        return this.list(block.nodes, false, null, false);
      case 'list-tasks':
        return this.list(block.nodes, false, null, true);
      case 'list-item':
        return this.listItem(block, false);
      case 'code':
        return this.code(block);
      case 'code-line':
        return { type: 'code', value: leavesText(block.nodes.flatMap((text) => text.leaves)) };
      case 'hint':
        return blockTag('hint', { style: block.data.style }, this.flow(block.nodes));
      case 'images':
        return { type: 'paragraph', children: this.images(block.nodes) };
      case 'image':
        return { type: 'paragraph', children: this.images([block]) };
      case 'file': {
        const caption = block.fragments?.find((fragment) => fragment.fragment === 'caption');
        return blockTag('file', { src: this.hrefFor(block.data.ref) }, this.flow(caption?.nodes ?? []));
      }
      case 'table':
        return this.table(block);
      case 'reusable-content':
        return includeTag(block.data.ref.reusableContent);
      default:
        if (isOpenAPIBlock(block)) return this.openAPIBlock(block);
        // Only reachable with a document that skipped `parseDocument`: keep its text rather than fail.
        return { type: 'paragraph', children: [{ type: 'text', value: blockText(block as DocumentBlock) }] };
    }
  }

  /**
   * GitBook's Markdown of the blocks computed API reference pages generate:
   * `{% openapi-operation spec="<slug>" path="/pets" method="get" %}`, a link to the spec, the end tag
   * (and `{% openapi-schemas spec="<slug>" schemas="A,B" grouped="true" %}` likewise).
   */
  private openAPIBlock(block: GeneratedOpenAPIBlock): RootContent {
    const data = (block.data ?? {}) as Partial<GeneratedOpenAPIBlock['data']> & Record<string, unknown>;
    const spec = typeof data.ref?.spec === 'string' ? data.ref.spec : '';
    const attributes: Record<string, string> = { spec };
    if (block.type === 'openapi-operation') {
      attributes.path = String(data.path ?? '');
      attributes.method = String(data.method ?? '');
    } else {
      // Joined by `,`: a name with one would read back as two (expansion leaves such names out).
      attributes.schemas = Array.isArray(data.schemas) ? data.schemas.map(String).filter((name) => name !== '' && !name.includes(',')).join(',') : '';
      attributes.grouped = String(data.grouped ?? true);
    }
    const link: RootContent = {
      type: 'paragraph',
      children: [{ type: 'link', url: this.hrefFor({ kind: 'openapi', spec }), title: null, children: [{ type: 'text', value: `OpenAPI ${spec}` }] }],
    };
    return blockTag(block.type, attributes, spec ? [link] : []);
  }

  private list(items: readonly DocumentBlockListItem[], ordered: boolean, start: number | null, tasks: boolean): List {
    return { type: 'list', ordered, start, spread: false, children: items.map((item) => this.listItem(item, tasks)) };
  }

  private listItem(item: DocumentBlockListItem, task: boolean): ListItem {
    const checked = typeof item.data?.checked === 'boolean' ? item.data.checked : task ? false : null;
    return { type: 'listItem', spread: false, checked, children: this.flow(item.nodes) as BlockContent[] };
  }

  private code(block: DocumentBlockCode): RootContent {
    const value = block.nodes.map((line) => leavesText(line.nodes.flatMap((text) => text.leaves))).join('\n');
    const code: RootContent = { type: 'code', lang: block.data.syntax || null, meta: null, value };
    // Options with no Markdown form go in GitBook's `{% code %}` tag around the fence.
    const attributes: Record<string, string> = {};
    if (block.data.title) attributes.title = block.data.title;
    if (block.data.overflow) attributes.overflow = block.data.overflow;
    if (typeof block.data.lineNumbers === 'boolean') attributes.lineNumbers = String(block.data.lineNumbers);
    if (typeof block.data.fullWidth === 'boolean') attributes.fullWidth = String(block.data.fullWidth);
    return Object.keys(attributes).length ? blockTag('code', attributes, [code]) : code;
  }

  /** Images are one paragraph, one image per line; a caption is the image's title. */
  private images(images: ReadonlyArray<Extract<DocumentBlock, { type: 'image' }>>): PhrasingContent[] {
    return images.flatMap((image, index) => {
      const caption = image.fragments.find((fragment) => fragment.fragment === 'caption');
      const title = caption ? caption.nodes.map((paragraph) => inlineText(paragraph.nodes)).join(' ') : '';
      const node: Image = { type: 'image', url: this.hrefFor(image.data.ref), alt: image.data.alt ?? '', title: title || null };
      return index === 0 ? [node] : [{ type: 'text', value: '\n' } as const, node];
    });
  }

  private table(block: DocumentBlockTable): Table {
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
      return fragment ? this.cellContent(fragment.nodes) : [];
    }
    if (typeof value === 'boolean') return [{ type: 'text', value: value ? '[x]' : '[ ]' }];
    if (Array.isArray(value)) return [{ type: 'text', value: value.map(String).join(', ') }];
    if (typeof value === 'object' && 'kind' in value) {
      const href = this.hrefFor(value as ContentRef);
      return [{ type: 'link', url: href, children: [{ type: 'text', value: href }] }];
    }
    return [{ type: 'text', value: typeof value === 'object' ? JSON.stringify(value) : String(value) }];
  }

  /** A Markdown cell holds one line of inline content: blocks are joined by spaces. */
  private cellContent(blocks: readonly TableCellBlock[]): PhrasingContent[] {
    const parts = blocks.map((block): PhrasingContent[] => {
      if (block.type === 'paragraph' || block.type.startsWith('heading-')) {
        return this.phrasing((block as { nodes: DocumentInlineContent[] }).nodes, true);
      }
      if (block.type === 'images') return this.images(block.nodes).filter((node) => node.type === 'image');
      return [{ type: 'text', value: blockText(block) }];
    });
    return parts.flatMap((part, index) => (index === 0 ? part : [{ type: 'text', value: ' ' } as const, ...part]));
  }

  // -- inline content

  private phrasing(nodes: readonly DocumentInlineContent[], singleLine = false): PhrasingContent[] {
    return nest(this.items(nodes), 0, singleLine);
  }

  private items(nodes: readonly DocumentInlineContent[]): Item[] {
    const items: Item[] = [];
    for (const node of nodes) {
      if (node.object === 'text') {
        for (const leaf of node.leaves) if (leaf.text !== '') items.push({ marks: wrapMarks(leaf), leaf });
      } else if (node.type === 'expression') {
        // Text, so that remark escapes whatever in the expression would otherwise be Markdown.
        items.push({ marks: new Set(), leaf: { object: 'leaf', text: expressionText(node.data.expression), marks: [] } });
      } else if (node.type === 'inline-image') {
        const { ref, alt, caption } = node.data;
        items.push({ marks: new Set(), node: { type: 'image', url: this.hrefFor(ref), alt: alt ?? '', title: caption || null } });
      } else {
        // Marks shared by all of a link's text go outside it: `**[a](x)**`, not `[**a**](x)`.
        const inner = this.items(node.nodes);
        const shared = inner.length ? WRAP_ORDER.filter((mark) => inner.every((item) => item.marks.has(mark))) : [];
        const stripped = inner.map((item) => ({ ...item, marks: new Set([...item.marks].filter((mark) => !shared.includes(mark))) }));
        items.push({
          marks: new Set(shared),
          node: { type: 'link', url: this.hrefFor(node.data.ref), title: null, children: nest(stripped, 0, false) },
        });
      }
    }
    return items;
  }
}

/**
 * Turns a flat run of marked items into nested mdast: consecutive items sharing the outermost mark
 * are wrapped together, then the next mark is applied inside each run.
 */
function nest(items: readonly Item[], depth: number, singleLine: boolean): PhrasingContent[] {
  if (depth === WRAP_ORDER.length) return items.flatMap((item) => ('node' in item ? [item.node] : leafNodes(item.leaf, singleLine)));
  const mark = WRAP_ORDER[depth];
  const out: PhrasingContent[] = [];
  let index = 0;
  while (index < items.length) {
    const has = items[index].marks.has(mark);
    let end = index;
    while (end < items.length && items[end].marks.has(mark) === has) end++;
    const children = nest(items.slice(index, end), depth + 1, singleLine);
    if (!has) out.push(...children);
    else if (mark === 'bold') out.push({ type: 'strong', children });
    else if (mark === 'italic') out.push({ type: 'emphasis', children });
    else out.push({ type: 'delete', children });
    index = end;
  }
  return out;
}

function wrapMarks(leaf: DocumentTextLeaf): Set<WrapMark> {
  return new Set(leaf.marks.map((mark) => mark.type).filter((type): type is WrapMark => (WRAP_ORDER as string[]).includes(type)));
}

/** Code marks become code spans; line breaks in text become hard breaks (spaces where none fit). */
function leafNodes(leaf: DocumentTextLeaf, singleLine: boolean): PhrasingContent[] {
  if (leaf.marks.some((mark) => mark.type === 'code')) return [{ type: 'inlineCode', value: leaf.text.replace(/\n/g, ' ') }];
  if (singleLine) return [{ type: 'text', value: leaf.text.replace(/\n/g, ' ') }];
  return leaf.text.split('\n').flatMap((line, index): PhrasingContent[] => {
    const text: PhrasingContent[] = line ? [{ type: 'text', value: line }] : [];
    return index === 0 ? text : [{ type: 'break' }, ...text];
  });
}

function cell(children: PhrasingContent[]): TableCell {
  return { type: 'tableCell', children };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function leavesText(leaves: readonly DocumentTextLeaf[]): string {
  return leaves.map((leaf) => leaf.text).join('');
}

/** GitBook's Markdown form of an expression. */
function expressionText(expression: string): string {
  return `{{ ${expression.trim()} }}`;
}

function inlineText(nodes: readonly DocumentInlineContent[]): string {
  return nodes
    .map((node) => {
      if (node.object === 'text') return leavesText(node.leaves);
      if (node.type === 'expression') return expressionText(node.data.expression);
      return node.type === 'link' ? inlineText(node.nodes) : (node.data.alt ?? '');
    })
    .join('');
}

/** The text of any block, for places (table cells) where only text fits. */
function blockText(block: DocumentBlock): string {
  if (typeof block?.type !== 'string') return '';
  if (block.type === 'paragraph' || block.type.startsWith('heading-')) return inlineText((block as { nodes: DocumentInlineContent[] }).nodes);
  if (block.type === 'code' || block.type === 'code-line') {
    const lines = block.type === 'code' ? block.nodes : [block];
    return lines.map((line) => leavesText(line.nodes.flatMap((text) => text.leaves))).join(' ');
  }
  if ('nodes' in block && Array.isArray(block.nodes)) return (block.nodes as DocumentBlock[]).map(blockText).join(' ');
  return '';
}

function isOpenAPIBlock(block: unknown): block is GeneratedOpenAPIBlock {
  const type = (block as { type?: unknown } | null)?.type;
  return type === 'openapi-operation' || type === 'openapi-schemas';
}
