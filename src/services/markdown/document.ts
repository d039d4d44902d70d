/**
 * The rich-text document model of page content: the subset of GitBook's document (OpenAPI v0.146.0,
 * `components.schemas.JSONDocument`, `DocumentBlock*`, `DocumentInline*`, `DocumentText*`,
 * `DocumentMark*`, `ContentRef*`) that the Markdown conversion supports. The interfaces describe both
 * what the converter emits and what a client may post; `parseDocument` validates the latter.
 *
 * Which block may sit inside which is GitBook's rule, not ours: a hint holds only "essential" blocks,
 * a quote only essentials and quotes, a list item essentials plus code, hints, quotes and tables.
 * The lists below are the single source of those rules for the schemas and for the converter.
 */
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Content references

export interface ContentRefUrl {
  kind: 'url';
  url: string;
}
export interface ContentRefFile {
  kind: 'file';
  file: string;
  space?: string;
}
export interface ContentRefPage {
  kind: 'page';
  page: string;
  space?: string;
}
export interface ContentRefAnchor {
  kind: 'anchor';
  anchor: string;
  page?: string;
  space?: string;
}
export interface ContentRefSpace {
  kind: 'space';
  space: string;
}
export interface ContentRefCollection {
  kind: 'collection';
  collection: string;
}
export interface ContentRefUser {
  kind: 'user';
  user: string;
}
export interface ContentRefReusableContent {
  kind: 'reusable-content';
  reusableContent: string;
  space?: string;
}
export interface ContentRefOpenAPI {
  kind: 'openapi';
  spec: string;
}
export type ContentRef =
  | ContentRefUrl
  | ContentRefFile
  | ContentRefPage
  | ContentRefAnchor
  | ContentRefSpace
  | ContentRefCollection
  | ContentRefUser
  | ContentRefReusableContent
  | ContentRefOpenAPI;
/** Images can only point at an uploaded file or an external URL. */
export type ImageRef = ContentRefUrl | ContentRefFile;

// ---------------------------------------------------------------------------------------------
// Text, marks and inlines

/** Marks with a Markdown form; the others are accepted from clients but written as plain text. */
export const FORMATTING_MARKS = ['bold', 'italic', 'strikethrough', 'code'] as const;
export type FormattingMarkType = (typeof FORMATTING_MARKS)[number];
export type SimpleMarkType = FormattingMarkType | 'keyboard' | 'superscript' | 'subscript';

export interface DocumentMarkSimple {
  object: 'mark';
  type: SimpleMarkType;
}
export interface DocumentMarkColor {
  object: 'mark';
  type: 'color';
  data: { text: string; background: string };
}
export type DocumentMark = DocumentMarkSimple | DocumentMarkColor;

export interface DocumentTextLeaf {
  object: 'leaf';
  text: string;
  marks: DocumentMark[];
}
export interface DocumentText {
  object: 'text';
  key?: string;
  leaves: DocumentTextLeaf[];
}
export interface DocumentInlineImage {
  object: 'inline';
  type: 'inline-image';
  key?: string;
  isVoid: true;
  data: { ref: ImageRef; refDark?: ImageRef; alt?: string; caption?: string; size?: 'original' | 'line' };
}
export interface DocumentInlineLink {
  object: 'inline';
  type: 'link';
  key?: string;
  isVoid?: false;
  data: { ref: ContentRef };
  nodes: Array<DocumentText | DocumentInlineImage>;
}
/** A variable read when the page is rendered (`space.vars.version`); GitBook writes it as `{{ ... }}`. */
export interface DocumentInlineExpression {
  object: 'inline';
  type: 'expression';
  key?: string;
  isVoid: true;
  data: { expression: string };
}
export type DocumentInline = DocumentInlineLink | DocumentInlineImage | DocumentInlineExpression;
/** What a paragraph or heading holds. */
export type DocumentInlineContent = DocumentText | DocumentInline;

// ---------------------------------------------------------------------------------------------
// Blocks

export type TextAlignment = 'start' | 'center' | 'end';
export type HintStyle = 'info' | 'warning' | 'danger' | 'success';
export const HINT_STYLES: readonly HintStyle[] = ['info', 'warning', 'danger', 'success'];
export type HeadingType = 'heading-1' | 'heading-2' | 'heading-3';

interface BlockBase<T extends string> {
  object: 'block';
  type: T;
  key?: string;
}

export interface DocumentBlockParagraph extends BlockBase<'paragraph'> {
  isVoid?: false;
  data?: { align?: TextAlignment };
  nodes: DocumentInlineContent[];
}
export interface DocumentBlockHeading extends BlockBase<HeadingType> {
  isVoid?: false;
  data: { id?: string; align?: TextAlignment };
  nodes: DocumentInlineContent[];
}
export interface DocumentBlockListItem extends BlockBase<'list-item'> {
  isVoid?: false;
  data?: { checked?: boolean };
  nodes: ListItemChildBlock[];
}
export interface DocumentBlockListOrdered extends BlockBase<'list-ordered'> {
  isVoid?: false;
  data: { start?: number };
  nodes: DocumentBlockListItem[];
}
export interface DocumentBlockListUnordered extends BlockBase<'list-unordered'> {
  isVoid?: false;
  data?: Record<string, never>;
  nodes: DocumentBlockListItem[];
}
export interface DocumentBlockListTasks extends BlockBase<'list-tasks'> {
  isVoid?: false;
  data?: Record<string, never>;
  nodes: DocumentBlockListItem[];
}
export interface DocumentBlockDivider extends BlockBase<'divider'> {
  isVoid: true;
  data: Record<string, never>;
}
export interface DocumentBlockQuote extends BlockBase<'blockquote'> {
  isVoid?: false;
  data?: Record<string, never>;
  nodes: QuoteChildBlock[];
}
export interface DocumentBlockHint extends BlockBase<'hint'> {
  isVoid?: false;
  data: { style: HintStyle };
  nodes: EssentialBlock[];
}
export interface DocumentBlockCodeLine extends BlockBase<'code-line'> {
  isVoid?: false;
  data: { highlighted?: boolean };
  nodes: DocumentText[];
}
export interface DocumentBlockCode extends BlockBase<'code'> {
  isVoid?: false;
  data: {
    syntax?: string;
    title?: string;
    overflow?: 'scroll' | 'wrap';
    lineNumbers?: boolean;
    fullWidth?: boolean;
    expandable?: boolean;
    collapsedLineCount?: number;
  };
  nodes: DocumentBlockCodeLine[];
}
/** A named piece of rich content attached to a void block (an image's caption, a table cell). */
export interface DocumentFragment<Node = DocumentBlockParagraph> {
  object: 'fragment';
  key?: string;
  fragment: string;
  type?: string;
  nodes: Node[];
}
export interface DocumentBlockImage extends BlockBase<'image'> {
  isVoid: true;
  data: { ref: ImageRef; refDark?: ImageRef; alt?: string; width?: unknown; height?: unknown };
  fragments: Array<DocumentFragment<DocumentBlockParagraph>>;
}
export interface DocumentBlockImages extends BlockBase<'images'> {
  isVoid: false;
  data: { align?: 'center' | 'left' | 'right'; fullWidth?: boolean; withFrame?: boolean };
  nodes: DocumentBlockImage[];
}
export interface DocumentBlockFile extends BlockBase<'file'> {
  isVoid: true;
  data: { ref: ContentRefFile };
  /** GitBook renders a `caption` fragment under files as under images. */
  fragments?: Array<DocumentFragment<DocumentBlockParagraph>>;
}
export type TableColumnAlignment = 'left' | 'center' | 'right';
export interface DocumentTableDefinition {
  id: string;
  title: string;
  /** We emit `text` columns only; other GitBook column types are accepted and written as text. */
  type: string;
  textAlignment?: TableColumnAlignment;
  [extra: string]: unknown;
}
export interface DocumentTableRecord {
  orderIndex: string;
  /** For a text column, the name of the fragment holding the cell's content. */
  values: Record<string, unknown>;
}
export interface DocumentBlockTable extends BlockBase<'table'> {
  isVoid: true;
  data: {
    view: { type: 'grid' | 'cards'; columns: string[]; hideHeader?: boolean; [extra: string]: unknown };
    records: Record<string, DocumentTableRecord>;
    definition: Record<string, DocumentTableDefinition>;
    fullWidth?: boolean;
  };
  fragments: Array<DocumentFragment<TableCellBlock>>;
}

/** Content kept once and shown wherever it is referenced; GitBook's Markdown writes `{% include %}`. */
export interface DocumentBlockReusableContent extends BlockBase<'reusable-content'> {
  isVoid: true;
  data: { ref: ContentRefReusableContent };
}

/**
 * GitBook's blocks of an OpenAPI operation and of a spec's schemas. Clients cannot post them (they are
 * no TopLevelBlock, so `parseDocument` rejects them): computed API reference pages generate them when
 * read (services/openapi/computed-pages), and `documentToMarkdown` writes them as GitBook's tags.
 */
export interface DocumentBlockOpenAPIOperation extends BlockBase<'openapi-operation'> {
  isVoid: true;
  data: { ref: ContentRefOpenAPI; path: string; method: string };
}
export interface DocumentBlockOpenAPISchemas extends BlockBase<'openapi-schemas'> {
  isVoid: true;
  data: { ref: ContentRefOpenAPI; schemas: string[]; grouped?: boolean };
}
export type GeneratedOpenAPIBlock = DocumentBlockOpenAPIOperation | DocumentBlockOpenAPISchemas;

export type EssentialBlock =
  | DocumentBlockParagraph
  | DocumentBlockHeading
  | DocumentBlockListOrdered
  | DocumentBlockListUnordered
  | DocumentBlockListTasks
  | DocumentBlockDivider;
export type QuoteChildBlock = EssentialBlock | DocumentBlockQuote;
export type ListItemChildBlock = EssentialBlock | DocumentBlockCode | DocumentBlockHint | DocumentBlockQuote | DocumentBlockTable;
export type TopLevelBlock =
  | EssentialBlock
  | DocumentBlockQuote
  | DocumentBlockHint
  | DocumentBlockImages
  | DocumentBlockFile
  | DocumentBlockCode
  | DocumentBlockTable
  | DocumentBlockReusableContent;
/** GitBook would accept reusable content in a cell too; we keep it top-level, where it is resolved. */
export type TableCellBlock =
  | EssentialBlock
  | DocumentBlockQuote
  | DocumentBlockHint
  | DocumentBlockImages
  | DocumentBlockFile
  | DocumentBlockCode;
/** Any block that can appear in a document we support. */
export type DocumentBlock = TopLevelBlock | DocumentBlockListItem | DocumentBlockCodeLine | DocumentBlockImage;

export interface JSONDocument {
  object: 'document';
  data: { schemaVersion?: number; [extra: string]: unknown };
  nodes: TopLevelBlock[];
}

export const ESSENTIAL_BLOCK_TYPES = [
  'paragraph',
  'heading-1',
  'heading-2',
  'heading-3',
  'list-ordered',
  'list-unordered',
  'list-tasks',
  'divider',
] as const;
export const QUOTE_CHILD_TYPES = [...ESSENTIAL_BLOCK_TYPES, 'blockquote'] as const;
export const HINT_CHILD_TYPES = ESSENTIAL_BLOCK_TYPES;
export const LIST_ITEM_CHILD_TYPES = [...ESSENTIAL_BLOCK_TYPES, 'code', 'hint', 'blockquote', 'table'] as const;
export const TOP_LEVEL_BLOCK_TYPES = [
  ...ESSENTIAL_BLOCK_TYPES,
  'blockquote',
  'hint',
  'images',
  'file',
  'code',
  'table',
  'reusable-content',
] as const;
export const TABLE_CELL_CHILD_TYPES = TOP_LEVEL_BLOCK_TYPES.filter((t) => t !== 'table' && t !== 'reusable-content');
export type TopLevelBlockType = (typeof TOP_LEVEL_BLOCK_TYPES)[number];

// ---------------------------------------------------------------------------------------------
// Schemas for documents posted by clients. Objects are loose: GitBook documents carry fields we do
// not interpret (a heading's `meta`, a table's `useNewSizing`) and storing them unchanged keeps
// such a document intact. Unknown block, inline and mark types are rejected.

const key = z.string().min(1).optional();
const nonEmpty = z.string().min(1);

// An empty URL is what Markdown's `[text]()` means; GitBook's schema allows it too.
const refUrl = z.looseObject({ kind: z.literal('url'), url: z.string() });
const refFile = z.looseObject({ kind: z.literal('file'), file: nonEmpty, space: z.string().optional() });
const refPage = z.looseObject({ kind: z.literal('page'), page: nonEmpty, space: z.string().optional() });
const refAnchor = z.looseObject({
  kind: z.literal('anchor'),
  anchor: z.string(),
  page: z.string().optional(),
  space: z.string().optional(),
});
const refSpace = z.looseObject({ kind: z.literal('space'), space: nonEmpty });
const refCollection = z.looseObject({ kind: z.literal('collection'), collection: nonEmpty });
const refUser = z.looseObject({ kind: z.literal('user'), user: nonEmpty });
const refReusable = z.looseObject({
  kind: z.literal('reusable-content'),
  reusableContent: nonEmpty,
  space: z.string().optional(),
});
const refOpenApi = z.looseObject({ kind: z.literal('openapi'), spec: nonEmpty });

function unknownTypeError(what: string, field: string, allowed: readonly string[]) {
  return (issue: { code?: string; input?: unknown }) => {
    if (issue.code !== 'invalid_union') return undefined;
    const input = issue.input as Record<string, unknown> | undefined;
    const value = input && typeof input === 'object' ? input[field] : undefined;
    return `unsupported ${what} ${field} ${JSON.stringify(value ?? null)} here (expected one of: ${allowed.join(', ')})`;
  };
}

export const contentRefSchema: z.ZodType<ContentRef> = z.discriminatedUnion(
  'kind',
  [refUrl, refFile, refPage, refAnchor, refSpace, refCollection, refUser, refReusable, refOpenApi],
  {
    error: unknownTypeError('content reference', 'kind', [
      'url',
      'file',
      'page',
      'anchor',
      'space',
      'collection',
      'user',
      'reusable-content',
      'openapi',
    ]),
  },
);
const imageRefSchema: z.ZodType<ImageRef> = z.discriminatedUnion('kind', [refUrl, refFile], {
  error: unknownTypeError('image reference', 'kind', ['url', 'file']),
});

const markSchema: z.ZodType<DocumentMark> = z.discriminatedUnion(
  'type',
  [
    z.looseObject({
      object: z.literal('mark'),
      type: z.enum(['bold', 'italic', 'strikethrough', 'code', 'keyboard', 'superscript', 'subscript']),
    }),
    z.looseObject({
      object: z.literal('mark'),
      type: z.literal('color'),
      data: z.looseObject({ text: z.string(), background: z.string() }),
    }),
  ],
  {
    error: unknownTypeError('mark', 'type', [
      'bold',
      'italic',
      'strikethrough',
      'code',
      'keyboard',
      'superscript',
      'subscript',
      'color',
    ]),
  },
);

const leafSchema = z.looseObject({ object: z.literal('leaf'), text: z.string(), marks: z.array(markSchema) });
const textSchema = z.looseObject({ object: z.literal('text'), key, leaves: z.array(leafSchema) });

const inlineImageSchema = z.looseObject({
  object: z.literal('inline'),
  type: z.literal('inline-image'),
  key,
  isVoid: z.literal(true),
  data: z.looseObject({
    ref: imageRefSchema,
    refDark: imageRefSchema.optional(),
    alt: z.string().optional(),
    caption: z.string().optional(),
    size: z.enum(['original', 'line']).optional(),
  }),
});
const linkChildSchema: z.ZodType<DocumentText | DocumentInlineImage> = z.discriminatedUnion('object', [textSchema, inlineImageSchema], {
  error: unknownTypeError('node', 'object', ['text', 'inline (inline-image)']),
});
const linkSchema = z.looseObject({
  object: z.literal('inline'),
  type: z.literal('link'),
  key,
  isVoid: z.literal(false).optional(),
  data: z.looseObject({ ref: contentRefSchema }),
  nodes: z.array(linkChildSchema),
});
const expressionSchema = z.looseObject({
  object: z.literal('inline'),
  type: z.literal('expression'),
  key,
  isVoid: z.literal(true),
  data: z.looseObject({ expression: z.string() }),
});
const inlineSchema = z.discriminatedUnion('type', [linkSchema, inlineImageSchema, expressionSchema], {
  error: unknownTypeError('inline', 'type', ['link', 'inline-image', 'expression']),
});
const inlineContentSchema: z.ZodType<DocumentInlineContent> = z.discriminatedUnion('object', [textSchema, inlineSchema], {
  error: unknownTypeError('node', 'object', ['text', 'inline']),
});

/** What every block has: a container holds nodes (`isVoid` false or absent), a void block holds none. */
const containerFrame = { object: z.literal('block'), key, isVoid: z.literal(false).optional() };
const voidFrame = { object: z.literal('block'), key, isVoid: z.literal(true) };

const alignSchema = z.enum(['start', 'center', 'end']);
const emptyData = z.looseObject({});

const paragraphSchema = z.looseObject({
  ...containerFrame,
  type: z.literal('paragraph'),
  data: z.looseObject({ align: alignSchema.optional() }).optional(),
  nodes: z.array(inlineContentSchema),
});
const headingSchema = z.looseObject({
  ...containerFrame,
  type: z.enum(['heading-1', 'heading-2', 'heading-3']),
  data: z.looseObject({ id: z.string().regex(/^[-a-z0-9.+_]+$/).optional(), align: alignSchema.optional() }),
  nodes: z.array(inlineContentSchema),
});
const listItemSchema = z.looseObject({
  ...containerFrame,
  type: z.literal('list-item'),
  data: z.looseObject({ checked: z.boolean().optional() }).optional(),
  get nodes(): z.ZodArray<z.ZodType<ListItemChildBlock>> {
    return z.array(listItemChildSchema);
  },
});
const listItemOnly: z.ZodType<DocumentBlockListItem> = z.discriminatedUnion('type', [listItemSchema], {
  error: unknownTypeError('block', 'type', ['list-item']),
});
const listOrderedSchema = z.looseObject({
  ...containerFrame,
  type: z.literal('list-ordered'),
  data: z.looseObject({ start: z.number().int().optional() }),
  nodes: z.array(listItemOnly),
});
const listUnorderedSchema = z.looseObject({
  ...containerFrame,
  type: z.literal('list-unordered'),
  data: emptyData.optional(),
  nodes: z.array(listItemOnly),
});
const listTasksSchema = z.looseObject({
  ...containerFrame,
  type: z.literal('list-tasks'),
  data: emptyData.optional(),
  nodes: z.array(listItemOnly),
});
const dividerSchema = z.looseObject({
  ...voidFrame,
  type: z.literal('divider'),
  data: emptyData,
});
const quoteSchema = z.looseObject({
  ...containerFrame,
  type: z.literal('blockquote'),
  data: emptyData.optional(),
  get nodes(): z.ZodArray<z.ZodType<QuoteChildBlock>> {
    return z.array(quoteChildSchema);
  },
});
const hintSchema = z.looseObject({
  ...containerFrame,
  type: z.literal('hint'),
  data: z.looseObject({ style: z.enum(['info', 'warning', 'danger', 'success']) }),
  get nodes(): z.ZodArray<z.ZodType<EssentialBlock>> {
    return z.array(essentialSchema);
  },
});
const codeLineSchema = z.looseObject({
  ...containerFrame,
  type: z.literal('code-line'),
  data: z.looseObject({ highlighted: z.boolean().optional() }),
  nodes: z.array(textSchema),
});
const codeSchema = z.looseObject({
  ...containerFrame,
  type: z.literal('code'),
  data: z.looseObject({
    syntax: z.string().optional(),
    title: z.string().optional(),
    overflow: z.enum(['scroll', 'wrap']).optional(),
    lineNumbers: z.boolean().optional(),
    fullWidth: z.boolean().optional(),
    expandable: z.boolean().optional(),
    collapsedLineCount: z.number().int().min(1).optional(),
  }),
  nodes: z.array(
    z.discriminatedUnion('type', [codeLineSchema], { error: unknownTypeError('block', 'type', ['code-line']) }),
  ),
});
const captionFragmentSchema = z.looseObject({
  object: z.literal('fragment'),
  key,
  fragment: nonEmpty,
  type: z.string().optional(),
  nodes: z.array(
    z.discriminatedUnion('type', [paragraphSchema], { error: unknownTypeError('block', 'type', ['paragraph']) }),
  ),
});
const imageSchema = z.looseObject({
  ...voidFrame,
  type: z.literal('image'),
  data: z.looseObject({
    ref: imageRefSchema,
    refDark: imageRefSchema.optional(),
    alt: z.string().optional(),
    width: z.unknown().optional(),
    height: z.unknown().optional(),
  }),
  fragments: z.array(captionFragmentSchema),
});
const imagesSchema = z.looseObject({
  object: z.literal('block'),
  type: z.literal('images'),
  key,
  isVoid: z.literal(false),
  data: z.looseObject({
    align: z.enum(['center', 'left', 'right']).optional(),
    fullWidth: z.boolean().optional(),
    withFrame: z.boolean().optional(),
  }),
  nodes: z.array(z.discriminatedUnion('type', [imageSchema], { error: unknownTypeError('block', 'type', ['image']) })),
});
const fileSchema = z.looseObject({
  ...voidFrame,
  type: z.literal('file'),
  data: z.looseObject({ ref: refFile }),
  fragments: z.array(captionFragmentSchema).optional(),
});
const tableSchema = z.looseObject({
  ...voidFrame,
  type: z.literal('table'),
  data: z.looseObject({
    view: z.looseObject({
      type: z.enum(['grid', 'cards']),
      columns: z.array(z.string()),
      hideHeader: z.boolean().optional(),
    }),
    records: z.record(z.string(), z.looseObject({ orderIndex: z.string(), values: z.record(z.string(), z.unknown()) })),
    definition: z.record(
      z.string(),
      z.looseObject({
        id: z.string(),
        title: z.string(),
        type: z.string(),
        textAlignment: z.enum(['left', 'center', 'right']).optional(),
      }),
    ),
    fullWidth: z.boolean().optional(),
  }),
  get fragments(): z.ZodArray<z.ZodType<DocumentFragment<TableCellBlock>>> {
    return z.array(tableFragmentSchema);
  },
});

const reusableContentSchema = z.looseObject({
  ...voidFrame,
  type: z.literal('reusable-content'),
  data: z.looseObject({ ref: refReusable }),
});

const BLOCK_SCHEMAS = {
  paragraph: paragraphSchema,
  heading: headingSchema,
  'list-ordered': listOrderedSchema,
  'list-unordered': listUnorderedSchema,
  'list-tasks': listTasksSchema,
  divider: dividerSchema,
  blockquote: quoteSchema,
  hint: hintSchema,
  images: imagesSchema,
  file: fileSchema,
  code: codeSchema,
  table: tableSchema,
  'reusable-content': reusableContentSchema,
} as const;

/** One union per place in the tree, so that "a code block inside a hint" is reported as such. */
function blocksAllowed(types: readonly string[]) {
  const names = [...new Set(types.map((t) => (t.startsWith('heading-') ? 'heading' : t)))] as Array<keyof typeof BLOCK_SCHEMAS>;
  const options = names.map((name) => BLOCK_SCHEMAS[name]);
  return z.discriminatedUnion('type', options as unknown as [typeof paragraphSchema], {
    error: unknownTypeError('block', 'type', types),
  });
}

const essentialSchema = blocksAllowed(ESSENTIAL_BLOCK_TYPES) as unknown as z.ZodType<EssentialBlock>;
const quoteChildSchema = blocksAllowed(QUOTE_CHILD_TYPES) as unknown as z.ZodType<QuoteChildBlock>;
const listItemChildSchema = blocksAllowed(LIST_ITEM_CHILD_TYPES) as unknown as z.ZodType<ListItemChildBlock>;
const tableCellChildSchema = blocksAllowed(TABLE_CELL_CHILD_TYPES) as unknown as z.ZodType<TableCellBlock>;
const topLevelSchema = blocksAllowed(TOP_LEVEL_BLOCK_TYPES) as unknown as z.ZodType<TopLevelBlock>;
const tableFragmentSchema = z.looseObject({
  object: z.literal('fragment'),
  key,
  fragment: nonEmpty,
  type: z.string().optional(),
  nodes: z.array(tableCellChildSchema),
}) as unknown as z.ZodType<DocumentFragment<TableCellBlock>>;

export const documentSchema = z
  .looseObject({
    object: z.literal('document'),
    data: z.looseObject({ schemaVersion: z.number().int().optional() }),
    nodes: z.array(topLevelSchema),
  })
  .superRefine((doc, ctx) => {
    // Editors address nodes by key: two nodes sharing one would be indistinguishable.
    const seen = new Map<string, string>();
    forEachKeyed(doc.nodes, ['nodes'], (nodeKey, path) => {
      const first = seen.get(nodeKey);
      if (first === undefined) seen.set(nodeKey, formatPath(path));
      else ctx.addIssue({ code: 'custom', path: [...path, 'key'], message: `duplicate key "${nodeKey}" (already used at ${first})` });
    });
  }) as unknown as z.ZodType<JSONDocument>;

/** Visits every node that can carry a key (blocks, inlines, texts, fragments), depth first. */
function forEachKeyed(nodes: unknown, path: Array<string | number>, visit: (key: string, path: Array<string | number>) => void) {
  if (!Array.isArray(nodes)) return;
  nodes.forEach((node: unknown, index) => {
    if (!node || typeof node !== 'object') return;
    const here = [...path, index];
    const record = node as { key?: unknown; nodes?: unknown; fragments?: unknown };
    if (typeof record.key === 'string') visit(record.key, here);
    forEachKeyed(record.nodes, [...here, 'nodes'], visit);
    forEachKeyed(record.fragments, [...here, 'fragments'], visit);
  });
}

/**
 * Gives every block, inline, text and fragment the key `k<n>`, numbered depth first. Numbering by
 * position (not randomly) makes a conversion deterministic: the same Markdown gives the same document.
 */
export function assignKeys<T extends { nodes: unknown[] }>(document: T): T {
  let next = 0;
  const visit = (nodes: unknown) => {
    if (!Array.isArray(nodes)) return;
    for (const node of nodes as Array<{ key?: string; nodes?: unknown; fragments?: unknown }>) {
      node.key = `k${++next}`;
      visit(node.nodes);
      visit(node.fragments);
    }
  };
  visit(document.nodes);
  return document;
}

/** `nodes[2].nodes[0].type`, the way a client would write the path in its own code. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = 'document';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return out;
}

export type DocumentValidation = { success: true; document: JSONDocument } | { success: false; error: string; issues: string[] };

/** Validates a document posted by a client; each issue names the path of the offending node. */
export function parseDocument(input: unknown): DocumentValidation {
  const result = documentSchema.safeParse(input);
  if (result.success) return { success: true, document: result.data };
  const issues = result.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  return { success: false, error: `Invalid document: ${issues.join('; ')}`, issues };
}
