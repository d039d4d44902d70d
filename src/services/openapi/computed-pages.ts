import type { MarkdownConversion, MarkdownToDocumentOptions } from '../markdown/from-markdown';
import type {
  ContentRefOpenAPI,
  DocumentBlockHint,
  DocumentBlockParagraph,
  GeneratedOpenAPIBlock,
  HintStyle,
  JSONDocument,
  TopLevelBlock,
} from '../markdown/document';
import type { PageEntry, ReadPage } from '../content/revisions';
import { slugify } from '../content/slugs';
import { OPENAPI_METHODS, type OpenAPIMethod } from '../../lib/openapi-specs';
import type { SpecOutline, SpecOutlineOperation, SpecOutlineTag, SpecProcessingError } from './types';

/**
 * Computed API reference pages (GitBook's `builtin:openapi` computed content). A page of a space may
 * be computed from an OpenAPI spec of its organization: it stores only its source (the spec's slug and
 * how to present it, `ComputedRevisionSource`) and the seed of the ids it generates, never a document
 * or child pages. Every read with `computed=true` expands it, from the outline of the spec's latest
 * version (`openapi_spec_versions.outline`, fetched in the same statement as the page records), into
 * a document page (the spec's description) with one child page per tag, whose document holds one
 * `openapi-operation` block per operation (or, grouped `by-operation`, one grandchild page per
 * operation), and a Models page. Ids of generated pages depend only on the computed page's seed and
 * on the tag name, method and path, so they are the same for every version of the spec.
 *
 * Pointing a page at a spec takes read access to the organization's specs (services/content/computed-sources):
 * every reader of the space sees what the spec outlines. A failed spec's page names its error code,
 * never its messages (they may quote the source URL).
 *
 * Everything here is pure: no I/O, no clock. Documents of generated pages are built only for the
 * page a read returns with its body (`generatedDocument`), so tree reads never convert Markdown.
 */

export type OpenAPIGrouping = 'by-tag' | 'by-operation';

export interface OpenAPISpecDependency {
  spec: { ref: ContentRefOpenAPI };
}

/** What a computed page stores: GitBook's `ComputedContentSourceRevisionOpenAPI`. */
export interface ComputedRevisionSource {
  type: 'builtin:openapi';
  dependencies: OpenAPISpecDependency;
  props: { models: boolean; grouping?: OpenAPIGrouping; downloadLink?: boolean };
}

export type ComputedDocumentProps =
  | { doc: 'models' }
  | { doc: 'operations' | 'info'; page: string }
  | { doc: 'operation'; page: string; method: OpenAPIMethod; deprecated?: boolean }
  | { doc: 'tag'; page: string };

/** What a generated page says it was computed from: GitBook's `ComputedContentSourceDocumentOpenAPI`. */
export interface ComputedDocumentSource {
  type: 'builtin:openapi';
  dependencies: OpenAPISpecDependency;
  props: ComputedDocumentProps;
}

/** What a read knows of a spec a computed page refers to (absent from the read's map: no such spec in the organization). */
export interface SpecState {
  slug: string;
  /** `pending`, `progress` or `complete`. */
  state: string;
  errorCode: string | null;
  errors: SpecProcessingError[];
  /** The latest version's outline; null when the spec has no version (yet) or it cannot be read. */
  outline: SpecOutline | null;
  versionCreatedAt: string | null;
  /** Anyone reads its latest version at its published address (routes/openapi/published). */
  public?: boolean;
}

/** The body of a generated page, turned into a document only when a read returns it. */
export type GeneratedBody =
  | { kind: 'info'; markdown?: string }
  | { kind: 'hint'; style: HintStyle; text: string }
  | { kind: 'tag'; markdown?: string; operations: SpecOutlineOperation[] }
  | { kind: 'operation'; operation: SpecOutlineOperation }
  | { kind: 'models'; schemas: string[] };

export interface GeneratedContent {
  computed: ComputedDocumentSource;
  body: GeneratedBody;
}

/** The slug of the spec a computed source names. */
export const specSlugOf = (source: ComputedRevisionSource) => source.dependencies.spec.ref.spec;

/** Title of the page of operations that have no tag. */
export const UNTAGGED_TITLE = 'Other operations';
/** Title of the page of the spec's schemas. */
export const MODELS_TITLE = 'Models';
/** Markdown of a description converted into a generated document, at most. */
const MAX_DESCRIPTION_CHARS = 20_000;
/** Control characters (C0, DEL, C1) and Unicode line separators: an operation path with one is not shown. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

// ---------------------------------------------------------------------------------------------
// Stable ids

/** cyrb128: a fast, well-mixed 128-bit hash of a string (not cryptographic; ids only need to be stable and distinct). */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` base62 characters derived from `text` (16 carry about 95 bits). */
export function stableToken(text: string, length = 16): string {
  let value = cyrb128(text).reduce((acc, part) => (acc << 32n) | BigInt(part), 0n);
  let out = '';
  for (let i = 0; i < length; i++) {
    out += BASE62[Number(value % 62n)];
    value /= 62n;
  }
  return out;
}

/**
 * The id of a page generated under computed page `rootId` from `seed`: `<rootId>-<16 base62>`. Stored
 * page ids are 20 base62 characters without `-`, so a generated id is never one of theirs, and the
 * part before `-` names the computed page to expand to find it.
 */
export function generatedPageId(rootId: string, seed: string): string {
  return `${rootId}-${stableToken(seed)}`;
}

/** The computed page a generated id belongs to (its part before the first `-`), or undefined for any other id. */
export function generatedStem(id: string): string | undefined {
  const at = id.indexOf('-');
  return at > 0 ? id.slice(0, at) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Reading what the database gives

/** An outline as stored, checked member by member: a malformed one is read as far as it is usable. */
export function readOutline(value: unknown): SpecOutline | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const raw = value as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const tags: SpecOutlineTag[] = (Array.isArray(raw.tags) ? raw.tags : []).flatMap((tag): SpecOutlineTag[] => {
    if (!tag || typeof tag !== 'object' || typeof (tag as SpecOutlineTag).name !== 'string') return [];
    const t = tag as Record<string, unknown>;
    const operations = (Array.isArray(t.operations) ? t.operations : []).flatMap((op): SpecOutlineOperation[] => {
      const o = op as Record<string, unknown> | null;
      if (!o || typeof o.path !== 'string' || typeof o.method !== 'string') return [];
      return [
        {
          path: o.path,
          method: o.method.toLowerCase(),
          ...(text(o.summary) ? { summary: text(o.summary) } : {}),
          ...(text(o.operationId) ? { operationId: text(o.operationId) } : {}),
          ...(o.deprecated === true ? { deprecated: true } : {}),
        },
      ];
    });
    return [{ name: t.name as string, ...(text(t.description) ? { description: text(t.description) } : {}), operations }];
  });
  return {
    title: text(raw.title) ?? '',
    ...(text(raw.version) ? { version: text(raw.version) } : {}),
    ...(text(raw.description) ? { description: text(raw.description) } : {}),
    tags,
    schemas: (Array.isArray(raw.schemas) ? raw.schemas : []).filter((s): s is string => typeof s === 'string' && s !== ''),
  };
}

/**
 * A spec row of a content read: `json_object(slug, state, errorCode, errors, outline, versionCreatedAt, public)`
 * (see `specStatesSql` in services/content/reads).
 */
export function readSpecState(json: string): SpecState | undefined {
  let row: Record<string, unknown>;
  try {
    row = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!row || typeof row.slug !== 'string') return undefined;
  const errors = Array.isArray(row.errors)
    ? row.errors.flatMap((e): SpecProcessingError[] =>
        e && typeof e === 'object' && typeof (e as SpecProcessingError).message === 'string'
          ? [{ message: (e as SpecProcessingError).message, ...(typeof (e as SpecProcessingError).code === 'string' ? { code: (e as SpecProcessingError).code } : {}) }]
          : [],
      )
    : [];
  return {
    slug: row.slug,
    state: typeof row.state === 'string' ? row.state : 'pending',
    errorCode: typeof row.errorCode === 'string' ? row.errorCode : null,
    errors,
    outline: readOutline(row.outline),
    versionCreatedAt: typeof row.versionCreatedAt === 'string' ? row.versionCreatedAt : null,
    public: row.public === 1 || row.public === true,
  };
}

// ---------------------------------------------------------------------------------------------
// Expansion

/** Every computed page of a nested page tree expanded; other pages unchanged (their children expanded too). */
export function expandPages(pages: PageEntry[], specs: ReadonlyMap<string, SpecState>): ReadPage[] {
  return pages.map((page) => expandPage(page, specs));
}

export function expandPage(page: PageEntry, specs: ReadonlyMap<string, SpecState>, depth = 0): ReadPage {
  const children = depth > 1000 ? [] : page.pages.map((child) => expandPage(child, specs, depth + 1));
  if (!page.computed) return { ...page, pages: children };
  const expanded = expandComputed(page, specs.get(specSlugOf(page.computed)));
  // A computed page has no stored children (content batches refuse them, merges report a conflict);
  // should some be there anyway, they follow the generated ones (whose slugs keep clear of theirs)
  // rather than disappear.
  return { ...expanded, pages: [...expanded.pages, ...children] };
}

/**
 * The slugs of one group of sibling pages, taken as generated pages claim them: `base`, else the
 * first free `base-2`, `base-3`... (what `uniqueSlug` gives), in constant time per claim however many
 * siblings there are: the numbering of each prefix goes on from where its last claim stopped (every
 * number below it is taken, and taken slugs stay taken).
 */
export class SiblingSlugs {
  private readonly taken = new Set<string>();
  private readonly next = new Map<string, number>();

  /** A slug that is already used (a stored child page's). */
  reserve(slug: string) {
    this.taken.add(slug);
  }

  claim(title: string): string {
    const base = slugify(title);
    if (!this.taken.has(base)) {
      this.taken.add(base);
      return base;
    }
    const prefix = base.slice(0, 95);
    let n = this.next.get(prefix) ?? 2;
    while (this.taken.has(`${prefix}-${n}`)) n++;
    const slug = `${prefix}-${n}`;
    this.next.set(prefix, n + 1);
    this.taken.add(slug);
    return slug;
  }
}

/**
 * A tag name as a part of a seed: `%` and `/` escaped (as `encodeURIComponent` does), so a tag's seed
 * never reads as another tag's or as an operation's (`<tag>/operation/<method> <path>`: the method is a
 * word, and the path, the last part, runs to the end). Names without either keep the seed they had.
 */
const seedPart = (name: string) => name.replace(/%/g, '%25').replace(/\//g, '%2F');

/** One computed page as the document page a read shows, with its generated children. */
export function expandComputed(page: PageEntry, spec: SpecState | undefined): ReadPage {
  const source = page.computed!;
  const ref: ContentRefOpenAPI = { kind: 'openapi', spec: specSlugOf(source) };
  const dependencies: OpenAPISpecDependency = { spec: { ref } };
  const computedAs = (props: ComputedDocumentProps): ComputedDocumentSource => ({ type: 'builtin:openapi', dependencies, props });
  const seed = page.computedSeed ?? page.id;
  const { computed: _source, computedSeed: _seed, document: _document, pages: stored, ...base } = page;
  const outline = spec?.outline ?? null;
  const updatedAt = spec?.versionCreatedAt && spec.versionCreatedAt > page.updatedAt ? spec.versionCreatedAt : page.updatedAt;
  const root: ReadPage = { ...base, updatedAt, computedSeed: seed, pages: [], generated: { computed: computedAs({ doc: 'info', page: ref.spec }), body: problemOf(ref.spec, spec) } };
  if (!outline) return root;
  root.generated = { computed: computedAs({ doc: 'info', page: outline.title || ref.spec }), body: { kind: 'info', ...(outline.description ? { markdown: outline.description } : {}) } };

  const make = (childSeed: string, title: string, siblings: SiblingSlugs, generated: GeneratedContent, pages: ReadPage[] = []): ReadPage => ({
    id: generatedPageId(page.id, childSeed),
    type: 'document',
    title,
    slug: siblings.claim(title),
    createdAt: page.createdAt,
    updatedAt,
    computedSeed: childSeed,
    generated,
    pages,
  });
  const byOperation = source.props.grouping === 'by-operation';
  const top = new SiblingSlugs();
  // Stored children (which a computed page should not have) keep their paths: generated pages take others.
  for (const child of stored) top.reserve(child.slug);
  const seeds = new Set<string>();
  for (const tag of outline.tags) {
    const operations = uniqueOperations(tag.operations);
    const tagSeed = `${seed}/tag/${seedPart(tag.name)}`;
    if (operations.length === 0 || seeds.has(tagSeed)) continue;
    seeds.add(tagSeed);
    const title = tag.name === '' ? UNTAGGED_TITLE : tag.name;
    const description = tag.description ? { markdown: tag.description } : {};
    if (!byOperation) {
      root.pages.push(make(tagSeed, title, top, { computed: computedAs({ doc: 'tag', page: title }), body: { kind: 'tag', ...description, operations } }));
      continue;
    }
    const siblings = new SiblingSlugs();
    const children = operations.map((operation) =>
      make(`${tagSeed}/operation/${operation.method} ${operation.path}`, operation.summary ?? `${operation.method.toUpperCase()} ${operation.path}`, siblings, {
        computed: computedAs({ doc: 'operation', page: operation.path, method: operation.method as OpenAPIMethod, ...(operation.deprecated ? { deprecated: true } : {}) }),
        body: { kind: 'operation', operation },
      }),
    );
    root.pages.push(make(tagSeed, title, top, { computed: computedAs({ doc: 'tag', page: title }), body: { kind: 'tag', ...description, operations: [] } }, children));
  }
  const schemas = outline.schemas.filter(isListableSchemaName);
  if (source.props.models && schemas.length > 0) {
    root.pages.push(make(`${seed}/models`, MODELS_TITLE, top, { computed: computedAs({ doc: 'models' }), body: { kind: 'models', schemas } }));
  }
  return root;
}

/**
 * A schema name that a list of names can carry: GitBook's Markdown writes them joined by `,`
 * (`schemas="A,B"`), so a name with a comma (or a control character) would read back as other names.
 */
export const isListableSchemaName = (name: string) => name !== '' && !name.includes(',') && !CONTROL_CHARACTERS.test(name);

/**
 * A tag's operations once each, with a method GitBook's schema knows and a path that can be shown: not
 * empty (GitBook's `{doc: 'operation', page}` names it), without control characters (a line break in a
 * path written into Markdown would start a line of its own).
 */
function uniqueOperations(operations: SpecOutlineOperation[]): SpecOutlineOperation[] {
  const seen = new Set<string>();
  return operations.filter((op) => {
    const key = `${op.method} ${op.path}`;
    if (!(OPENAPI_METHODS as readonly string[]).includes(op.method) || seen.has(key)) return false;
    if (op.path === '' || CONTROL_CHARACTERS.test(op.path)) return false;
    seen.add(key);
    return true;
  });
}

/** What the page says when its spec has no version to show. */
function problemOf(slug: string, spec: SpecState | undefined): GeneratedBody {
  if (!spec) {
    return { kind: 'hint', style: 'danger', text: `The OpenAPI specification "${slug}" does not exist in this organization: create it, or point this page at another one.` };
  }
  if (spec.state === 'pending' || spec.state === 'progress') {
    return { kind: 'hint', style: 'info', text: `The OpenAPI specification "${slug}" is being processed: its reference pages appear here once it is done.` };
  }
  // The code only: error messages may quote the spec's source URL (and whatever secret it holds), and
  // readers of the space need not be able to read the spec; its members find them on the spec.
  const given = spec.errorCode ?? spec.errors[0]?.code;
  const code = given && /^[A-Za-z0-9_.:-]{1,64}$/.test(given) ? given : undefined;
  return { kind: 'hint', style: 'danger', text: `The OpenAPI specification "${slug}" could not be processed${code ? ` (${code})` : ''}: see the spec's lastProcessedErrors` };
}

/** A generated page of a subtree by id, with the path of its parent (`rootParentPath` is that of `root`'s parent). */
export function findGenerated(root: ReadPage, id: string, rootParentPath: string): { page: ReadPage; parentPath: string } | undefined {
  const visit = (page: ReadPage, parentPath: string, depth: number): { page: ReadPage; parentPath: string } | undefined => {
    if (page.id === id) return { page, parentPath };
    if (depth > 8) return undefined;
    const path = parentPath ? `${parentPath}/${page.slug}` : page.slug;
    for (const child of page.pages) {
      if (!child.generated) continue;
      const found = visit(child, path, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return visit(root, rootParentPath, 0);
}

// ---------------------------------------------------------------------------------------------
// Documents

function paragraph(text: string, key: string): DocumentBlockParagraph {
  return { object: 'block', type: 'paragraph', key, nodes: [{ object: 'text', key: `${key}-t`, leaves: [{ object: 'leaf', text, marks: [] }] }] } as DocumentBlockParagraph;
}

type MarkdownReader = (markdown: string, options?: MarkdownToDocumentOptions) => MarkdownConversion;

/**
 * The Markdown reader, loaded by the first generated page that has a description to convert: a page read (of a
 * generated page without one, or of any other page) never evaluates the parser.
 */
const markdownReader = (): Promise<MarkdownReader> => import('../markdown/round-trip').then((m) => m.markdownToDocument);

/** A description (Markdown) as blocks; its own leading heading stays a heading, and it never fails. */
function descriptionBlocks(markdownToDocument: MarkdownReader | undefined, markdown: string | undefined, key: string): TopLevelBlock[] {
  if (!markdown || !markdownToDocument) return [];
  const text = markdown.length > MAX_DESCRIPTION_CHARS ? markdown.slice(0, MAX_DESCRIPTION_CHARS) : markdown;
  try {
    // A title in frontmatter keeps a leading `# heading` in the body (the converter takes it as the title otherwise).
    return markdownToDocument(`---\ntitle: description\n---\n${text}`).document.nodes;
  } catch {
    return text
      .split(/\n{2,}/)
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part, i) => paragraph(part, `${key}-p${i}`));
  }
}

function operationBlock(ref: ContentRefOpenAPI, operation: SpecOutlineOperation, seed: string): TopLevelBlock {
  const block: GeneratedOpenAPIBlock = {
    object: 'block',
    type: 'openapi-operation',
    key: `op-${stableToken(`${seed}#${operation.method} ${operation.path}`, 12)}`,
    isVoid: true,
    data: { ref, path: operation.path, method: operation.method },
  };
  return block as unknown as TopLevelBlock;
}

/** The document of a generated page (its blocks' keys derived from its seed, so every read gives the same). */
export async function generatedDocument(content: GeneratedContent, seed: string): Promise<JSONDocument> {
  const described = (content.body.kind === 'info' || content.body.kind === 'tag') && !!content.body.markdown;
  return generatedDocumentWith(described ? await markdownReader() : undefined, content, seed);
}

/** `generatedDocument` for any number of pages, without waiting: the Markdown reader is loaded first, once. */
export async function generatedDocuments(): Promise<(content: GeneratedContent, seed: string) => JSONDocument> {
  const read = await markdownReader();
  return (content, seed) => generatedDocumentWith(read, content, seed);
}

function generatedDocumentWith(markdownToDocument: MarkdownReader | undefined, content: GeneratedContent, seed: string): JSONDocument {
  const ref = content.computed.dependencies.spec.ref;
  const body = content.body;
  const key = `g-${stableToken(seed, 12)}`;
  let nodes: TopLevelBlock[];
  switch (body.kind) {
    case 'info':
      nodes = descriptionBlocks(markdownToDocument, body.markdown, key);
      break;
    case 'hint': {
      const hint: DocumentBlockHint = { object: 'block', type: 'hint', key: `${key}-hint`, isVoid: false, data: { style: body.style }, nodes: [paragraph(body.text, `${key}-p`)] } as DocumentBlockHint;
      nodes = [hint];
      break;
    }
    case 'tag':
      nodes = [...descriptionBlocks(markdownToDocument, body.markdown, key), ...body.operations.map((operation) => operationBlock(ref, operation, seed))];
      break;
    case 'operation':
      nodes = [operationBlock(ref, body.operation, seed)];
      break;
    case 'models': {
      const block: GeneratedOpenAPIBlock = {
        object: 'block',
        type: 'openapi-schemas',
        key: `${key}-schemas`,
        isVoid: true,
        data: { ref, schemas: body.schemas, grouped: true },
      };
      nodes = [block as unknown as TopLevelBlock];
      break;
    }
  }
  return { object: 'document', data: {}, nodes };
}

/**
 * What a computed document source (GitBook's getComputedDocument) generates from its spec: the same bodies the pages
 * of a computed page have (expandComputed), found by the source's props: the spec's description (`info`), a tag's
 * operations by its title (`tag`), the operations of a path (`operations`), one operation (`operation`) or the
 * schemas (`models`). A spec without a version to show gives what is wrong; a props naming nothing gives undefined.
 */
export function generatedFor(source: ComputedDocumentSource, spec: SpecState | undefined): GeneratedContent | undefined {
  const outline = spec?.outline;
  const slug = source.dependencies.spec.ref.spec;
  if (!outline) return { computed: source, body: problemOf(slug, spec) };
  const props = source.props;
  const operations = () => outline.tags.flatMap((tag) => uniqueOperations(tag.operations));
  switch (props.doc) {
    case 'info':
      return { computed: source, body: { kind: 'info', ...(outline.description ? { markdown: outline.description } : {}) } };
    case 'models':
      return { computed: source, body: { kind: 'models', schemas: outline.schemas.filter(isListableSchemaName) } };
    case 'tag': {
      const tag = outline.tags.find((t) => (t.name === '' ? UNTAGGED_TITLE : t.name) === props.page);
      return tag && { computed: source, body: { kind: 'tag', ...(tag.description ? { markdown: tag.description } : {}), operations: uniqueOperations(tag.operations) } };
    }
    case 'operations': {
      const matching = operations().filter((op) => op.path === props.page);
      return matching.length > 0 ? { computed: source, body: { kind: 'tag', operations: matching } } : undefined;
    }
    case 'operation': {
      const operation = operations().find((op) => op.path === props.page && op.method === props.method);
      return operation && { computed: source, body: { kind: 'operation', operation } };
    }
  }
}
