/**
 * The rich-text document model of page content: the blocks of GitBook's document (@gitbook/api 0.202.0,
 * `components.schemas.JSONDocument`, `DocumentBlock*`, `DocumentInline*`, `DocumentText*`,
 * `DocumentMark*`, `ContentRef*`): all 36 block types, read from and written to GitBook Markdown. The interfaces describe both
 * what the converter emits and what a client may post; `parseDocument` validates the latter.
 *
 * Which block may sit inside which is GitBook's rule, not ours (`BLOCK_CHILD_TYPES`, copied from the
 * `nodes` of each `DocumentBlock*` schema of 0.202.0): the single source of those rules for the
 * schemas and for the converter.
 */
import { withoutSourcePatch } from './source-patch-key';
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
/** GitBook's other inlines: emoji, icons, inline math, mentions, buttons and annotations. */
export interface DocumentInlineGeneric {
  object: 'inline';
  type: 'emoji' | 'icon' | 'inline-math' | 'mention' | 'button' | 'annotation';
  key?: string;
  isVoid: boolean;
  data?: Record<string, unknown>;
  nodes?: DocumentText[];
  fragments?: Array<DocumentFragment<AnyBlock>>;
}
export type DocumentInline = DocumentInlineLink | DocumentInlineImage | DocumentInlineExpression | DocumentInlineGeneric;
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
/**
 * The blocks of GitBook's model this module types loosely (their data is GitBook's, checked by the
 * schemas below): containers of other blocks (`nodes`), or void blocks with `fragments`.
 */
export const GENERIC_BLOCK_TYPES = [
  'prompt',
  'if',
  'drawing',
  'embed',
  'math',
  'expandable',
  'tabs',
  'tabs-item',
  'swagger',
  'openapi-webhook',
  'content-ref',
  'integration',
  'stepper',
  'stepper-step',
  'columns',
  'column',
  'updates',
  'update',
] as const;
export type GenericBlockType = (typeof GENERIC_BLOCK_TYPES)[number];
export interface DocumentBlockGeneric extends BlockBase<GenericBlockType> {
  isVoid?: boolean;
  data: Record<string, unknown>;
  nodes?: AnyBlock[];
  fragments?: Array<DocumentFragment<AnyBlock>>;
  meta?: Record<string, unknown>;
}
/** Any block, as converters build it before it is typed by its place in the tree. */
export interface AnyBlock {
  object: 'block';
  type: string;
  key?: string;
  isVoid?: boolean;
  data?: Record<string, unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- children of any place in the tree
  nodes?: any[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  fragments?: any[];
  meta?: Record<string, unknown>;
}

export interface DocumentBlockOpenAPIOperation extends BlockBase<'openapi-operation'> {
  isVoid: true;
  data: { ref: ContentRefOpenAPI; path: string; method: string };
}
export interface DocumentBlockOpenAPISchemas extends BlockBase<'openapi-schemas'> {
  isVoid: true;
  data: { ref: ContentRefOpenAPI; schemas: string[]; grouped?: boolean };
}
export type GeneratedOpenAPIBlock = DocumentBlockOpenAPIOperation | DocumentBlockOpenAPISchemas;

/**
 * Which blocks each container may hold: GitBook 0.202.0's `DocumentBlock*` schemas' `nodes` (and the
 * expandable's body fragment). `document` is the top level (`DocumentBlocksTopLevels`).
 */
const ESSENTIALS = ['paragraph', 'heading-1', 'heading-2', 'heading-3', 'list-ordered', 'list-unordered', 'list-tasks', 'divider'] as const;
const ITEM_BLOCKS = [...ESSENTIALS, 'content-ref', 'code', 'embed', 'file', 'images', 'drawing', 'hint', 'prompt', 'blockquote', 'math', 'integration'] as const;
const TOP_LEVELS = [
  ...ESSENTIALS,
  'blockquote',
  'hint',
  'prompt',
  'images',
  'file',
  'drawing',
  'embed',
  'code',
  'math',
  'expandable',
  'tabs',
  'table',
  'swagger',
  'openapi-operation',
  'openapi-schemas',
  'openapi-webhook',
  'content-ref',
  'integration',
  'reusable-content',
  'stepper',
  'if',
  'columns',
  'updates',
] as const;
export const BLOCK_CHILD_TYPES: Record<string, readonly string[]> = {
  document: TOP_LEVELS,
  hint: [...ESSENTIALS, 'embed', 'integration', 'table'],
  blockquote: [...ESSENTIALS, 'blockquote'],
  'list-item': [...ESSENTIALS, 'code', 'hint', 'blockquote', 'math', 'table'],
  prompt: ['code'],
  if: TOP_LEVELS,
  'tabs-item': ITEM_BLOCKS,
  'stepper-step': [...ITEM_BLOCKS, 'expandable'],
  column: [...ESSENTIALS, 'images', 'code', 'hint', 'prompt', 'content-ref', 'drawing', 'embed', 'file', 'integration', 'math', 'blockquote', 'table', 'expandable', 'stepper'],
  update: [...ITEM_BLOCKS, 'tabs', 'expandable'],
  expandable: [...ESSENTIALS, 'file', 'images', 'code', 'table', 'hint', 'prompt', 'blockquote', 'reusable-content', 'integration'],
  'table-cell': [...ESSENTIALS, 'blockquote', 'hint', 'images', 'file', 'code'],
};

export type EssentialBlock =
  | DocumentBlockParagraph
  | DocumentBlockHeading
  | DocumentBlockListOrdered
  | DocumentBlockListUnordered
  | DocumentBlockListTasks
  | DocumentBlockDivider;
export type QuoteChildBlock = EssentialBlock | DocumentBlockQuote;
export type ListItemChildBlock = EssentialBlock | DocumentBlockCode | DocumentBlockHint | DocumentBlockQuote | DocumentBlockTable | DocumentBlockGeneric;
export type TopLevelBlock =
  | EssentialBlock
  | DocumentBlockQuote
  | DocumentBlockHint
  | DocumentBlockImages
  | DocumentBlockFile
  | DocumentBlockCode
  | DocumentBlockTable
  | DocumentBlockReusableContent
  | GeneratedOpenAPIBlock
  | DocumentBlockGeneric;
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

/**
 * How the Markdown a document was read from writes what Markdown can write several ways, where it
 * differs from GitBook's export (`*` bullets, `_emphasis_`, `**strong**`, parentheses unescaped).
 * Kept in the document's `data` so that writing the document back gives the author's Markdown.
 */
export interface MarkdownStyle {
  bullet?: '-' | '+';
  emphasis?: '*';
  strong?: '_';
  escapedParentheses?: true;
  /** `<a id="x"></a>` after a heading, not `<a href="#x" id="x"></a>`. */
  headingAnchors?: 'id';
  /** Code without a language written indented by four spaces, not fenced (notebook exports' outputs). */
  indentedCode?: true;
  /** Dividers written `---` or `___`, not `***` (GitBook's). */
  rule?: '-' | '_';
}

export interface JSONDocument {
  object: 'document';
  data: { schemaVersion?: number; markdownStyle?: MarkdownStyle; [extra: string]: unknown };
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
export const HINT_CHILD_TYPES = BLOCK_CHILD_TYPES.hint;
export const LIST_ITEM_CHILD_TYPES = BLOCK_CHILD_TYPES['list-item'];
export const TOP_LEVEL_BLOCK_TYPES = TOP_LEVELS;
export const TABLE_CELL_CHILD_TYPES = BLOCK_CHILD_TYPES['table-cell'];
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
/**
 * The schema of a whole document (every block, inline and mark type), built by the first document validated: a
 * cold isolate that only reads content (a page read, a published page) does not construct its few hundred zod
 * schemas. Reads never validate a document; content batches and imports do.
 */
let documentSchemaOnce: z.ZodType<JSONDocument> | undefined;
const documentSchema = (): z.ZodType<JSONDocument> => (documentSchemaOnce ??= buildDocumentSchema());

function buildDocumentSchema(): z.ZodType<JSONDocument> {
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
  const voidInline = <T extends string, D extends z.ZodType>(type: T, data: D) =>
    z.looseObject({ object: z.literal('inline'), type: z.literal(type), key, isVoid: z.literal(true), data });
  const emojiSchema = voidInline('emoji', z.looseObject({ code: z.string() }));
  const iconSchema = voidInline('icon', z.looseObject({ icon: z.string() }));
  const inlineMathSchema = voidInline('inline-math', z.looseObject({ formula: z.string() }));
  const mentionSchema = voidInline('mention', z.looseObject({ ref: contentRefSchema }));
  const buttonSchema = voidInline('button', z.looseObject({ label: z.string(), kind: z.enum(['primary', 'secondary']) }));
  const annotationSchema = z.looseObject({
    object: z.literal('inline'),
    type: z.literal('annotation'),
    key,
    isVoid: z.literal(false),
    data: z.looseObject({}).optional(),
    nodes: z.array(textSchema),
    get fragments() {
      return z.array(
        z.looseObject({
          object: z.literal('fragment'),
          key,
          fragment: nonEmpty,
          type: z.literal('annotation-body'),
          nodes: z.array(blocksAllowed([...ESSENTIAL_BLOCK_TYPES, 'code'])),
        }),
      );
    },
  });
  const INLINE_TYPES = ['link', 'inline-image', 'expression', 'emoji', 'icon', 'inline-math', 'mention', 'button', 'annotation'];
  const inlineSchema = z.discriminatedUnion(
    'type',
    [linkSchema, inlineImageSchema, expressionSchema, emojiSchema, iconSchema, inlineMathSchema, mentionSchema, buttonSchema, annotationSchema],
    { error: unknownTypeError('inline', 'type', INLINE_TYPES) },
  );
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
      return z.array(childrenOf('hint') as z.ZodType<EssentialBlock>);
    },
  });
  const codeLineSchema = z.looseObject({
    ...containerFrame,
    type: z.literal('code-line'),
    data: z.looseObject({ highlighted: z.boolean().optional() }),
    // GitBook's code line holds text, annotations and expressions (DocumentBlockCodeLine, @gitbook/api 0.202.0).
    nodes: z.array(z.union([textSchema, annotationSchema, expressionSchema])),
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

  // -- the blocks GitBook added to its model beyond the essentials (0.202.0)

  /** The union of the blocks `container` may hold, built once (containers nest recursively). */
  const childUnions = new Map<string, z.ZodType>();
  function childrenOf(container: string): z.ZodType {
    let union = childUnions.get(container);
    if (!union) {
      union = blocksAllowed(BLOCK_CHILD_TYPES[container]);
      childUnions.set(container, union);
    }
    return union;
  }
  /** A container block: `nodes` are what GitBook allows in it. */
  function containerSchema<T extends string, D extends z.ZodType>(type: T, data: D, childPlace: string = type) {
    return z.looseObject({
      ...containerFrame,
      type: z.literal(type),
      data,
      get nodes() {
        return z.array(childrenOf(childPlace));
      },
    });
  }
  /** A container whose nodes are only its items (tabs of tab items, a stepper of steps). */
  function itemsSchema<T extends string, D extends z.ZodType>(type: T, data: D, item: z.ZodType) {
    return z.looseObject({ ...containerFrame, type: z.literal(type), data, nodes: z.array(item) });
  }
  function voidSchema<T extends string, D extends z.ZodType>(type: T, data: D) {
    return z.looseObject({ ...voidFrame, type: z.literal(type), data });
  }
  const lengthSchema = z.union([z.number(), z.looseObject({ unit: z.string(), value: z.number() })]);
  const blockFragments = (place: string) =>
    z.array(
      z.looseObject({
        object: z.literal('fragment'),
        key,
        fragment: nonEmpty,
        type: z.string().optional(),
        get nodes() {
          return z.array(childrenOf(place));
        },
      }),
    );

  const promptSchema = containerSchema('prompt', z.looseObject({ description: z.string() }));
  const ifSchema = containerSchema('if', z.looseObject({ expression: z.string() }));
  const drawingSchema = voidSchema('drawing', z.looseObject({ ref: refFile.optional() }));
  const embedSchema = z.looseObject({
    ...voidFrame,
    type: z.literal('embed'),
    data: z.looseObject({ url: z.string(), fullWidth: z.boolean().optional() }),
    fragments: z.array(captionFragmentSchema).optional(),
  });
  const mathSchema = voidSchema('math', z.looseObject({ formula: z.string() }));
  const expandableSchema = z.looseObject({
    ...voidFrame,
    type: z.literal('expandable'),
    data: z.looseObject({ defaultExpanded: z.boolean().optional() }),
    fragments: blockFragments('expandable'),
  });
  const tabsItemSchema = containerSchema('tabs-item', z.looseObject({ title: z.string().optional() }));
  const tabsSchema = itemsSchema('tabs', z.looseObject({ fullWidth: z.boolean().optional() }).optional(), tabsItemSchema);
  const swaggerSchema = voidSchema(
    'swagger',
    z.looseObject({ ref: z.discriminatedUnion('kind', [refUrl, refFile]), path: z.string(), method: z.string() }),
  );
  const openAPIOperationSchema = voidSchema('openapi-operation', z.looseObject({ ref: refOpenApi, path: z.string(), method: z.string() }));
  const openAPISchemasSchema = voidSchema('openapi-schemas', z.looseObject({ ref: refOpenApi, schemas: z.array(z.string()) }));
  const openAPIWebhookSchema = voidSchema('openapi-webhook', z.looseObject({ ref: refOpenApi, name: z.string(), method: z.string() }));
  const contentRefBlockSchema = voidSchema('content-ref', z.looseObject({ ref: contentRefSchema }));
  const integrationSchema = voidSchema(
    'integration',
    z.looseObject({ integration: z.string(), block: z.string(), props: z.record(z.string(), z.unknown()) }),
  );
  const stepSchema = containerSchema('stepper-step', z.looseObject({ icon: z.string().optional() }));
  const stepperSchema = itemsSchema('stepper', z.looseObject({}).optional(), stepSchema);
  const columnSchema = containerSchema('column', z.looseObject({ width: lengthSchema.optional(), verticalAlignment: z.enum(['top', 'middle', 'bottom']).optional() }));
  const columnsSchema = itemsSchema('columns', z.looseObject({ fullWidth: z.boolean().optional() }), columnSchema);
  const updateSchema = containerSchema(
    'update',
    z.looseObject({ date: z.string(), tags: z.array(z.looseObject({ kind: z.literal('tag'), tag: z.string() })).optional() }),
  );
  const updatesSchema = itemsSchema('updates', z.looseObject({ format: z.enum(['numeric', 'full', 'short']) }), updateSchema);

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
    prompt: promptSchema,
    if: ifSchema,
    drawing: drawingSchema,
    embed: embedSchema,
    math: mathSchema,
    expandable: expandableSchema,
    tabs: tabsSchema,
    swagger: swaggerSchema,
    'openapi-operation': openAPIOperationSchema,
    'openapi-schemas': openAPISchemasSchema,
    'openapi-webhook': openAPIWebhookSchema,
    'content-ref': contentRefBlockSchema,
    integration: integrationSchema,
    stepper: stepperSchema,
    columns: columnsSchema,
    updates: updatesSchema,
  } as const;

  /** One union per place in the tree, so that "a code block inside a hint" is reported as such. */
  function blocksAllowed(types: readonly string[]) {
    const names = [...new Set(types.map((t) => (t.startsWith('heading-') ? 'heading' : t)))] as Array<keyof typeof BLOCK_SCHEMAS>;
    const options = names.map((name) => BLOCK_SCHEMAS[name]);
    return z.discriminatedUnion('type', options as unknown as [typeof paragraphSchema], {
      error: unknownTypeError('block', 'type', types),
    });
  }

  const quoteChildSchema = blocksAllowed(QUOTE_CHILD_TYPES) as unknown as z.ZodType<QuoteChildBlock>;
  const listItemChildSchema = childrenOf('list-item') as unknown as z.ZodType<ListItemChildBlock>;
  const tableCellChildSchema = childrenOf('table-cell') as unknown as z.ZodType<TableCellBlock>;
  const topLevelSchema = childrenOf('document') as unknown as z.ZodType<TopLevelBlock>;
  const tableFragmentSchema = z.looseObject({
    object: z.literal('fragment'),
    key,
    fragment: nonEmpty,
    type: z.string().optional(),
    nodes: z.array(tableCellChildSchema),
  }) as unknown as z.ZodType<DocumentFragment<TableCellBlock>>;

  return z
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
}

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
  const result = documentSchema().safeParse(input);
  // A client's document never carries the source patch: only our converter writes one (source-patch.ts).
  if (result.success) return { success: true, document: withoutSourcePatch(result.data) };
  const issues = result.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  return { success: false, error: `Invalid document: ${issues.join('; ')}`, issues };
}
