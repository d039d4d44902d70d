import { ApiError, badRequest } from '../lib/errors';
import { jsonDepth } from '../lib/json-depth';
import { newId } from '../lib/ids';
import { decodeBase64, MAX_FILE_BYTES, prepareFile, type PreparedFile } from './files';
import {
  MarkdownConversionError,
  createPathLinkResolver,
  markdownToDocument,
  parseDocument,
  type ContentRef,
  type JSONDocument,
  type LinkResolver,
} from './markdown';
import {
  cloneManifest,
  indexPages,
  slugify,
  subtreeIds,
  toStoredDocument,
  uniqueSlug,
  type Manifest,
  type PageEntry,
  type StoredDocument,
} from './revisions';

/**
 * Applies a batch of content changes (GitBook's `updateChangeRequestContent`) to a manifest, in
 * memory. Every change is checked as it is applied; the first invalid one rejects the whole batch
 * (nothing has been written yet), with a message that names it.
 */

/** Per page: Markdown is parsed inside the space's writer, so its size and nesting bound that work. */
export const MAX_PAGE_MARKDOWN_CHARS = 256 * 1024;
/** A stored document stays well under D1's 2 MB row limit. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
/** JSON nesting of a posted document (a block level is about two JSON levels). */
export const MAX_DOCUMENT_DEPTH = 100;
/** Leading run of indentation, quote and list markers on one Markdown line: about 100 nesting levels. */
const DEEP_MARKDOWN_LINE = /^[ \t>*+\-0-9.)]{256}/m;
/**
 * Markdown one batch may carry in all. Parsing costs 14-25 ms of CPU per KiB on a 2-core machine
 * (`npm run bench`), inside the space's single writer: this keeps a batch to seconds.
 */
export const MAX_BATCH_MARKDOWN_CHARS = 512 * 1024;
/** Files one batch may upload: each is a write to R2 from the space's writer. */
export const MAX_FILES_PER_BATCH = 40;

export type DocumentInput = { markdown: string } | { document: unknown } | Record<string, never>;

/** The page fields a change may set (GitBook's RevisionPageUpdate); `slug` is checked apart from the rest. */
const METADATA_KEYS = ['title', 'emoji', 'icon', 'description', 'hidden', 'noIndex', 'noRobotsIndex', 'condition'] as const;
export type PageMetadataInput = Partial<Pick<PageEntry, (typeof METADATA_KEYS)[number] | 'slug'>>;

export type ContentChange =
  | ({ operation: 'insert_page'; into?: string; at?: number; ref?: string; document: DocumentInput } & PageMetadataInput)
  | ({ operation: 'update_page'; page: string; document?: DocumentInput; into?: string | null; at?: number } & PageMetadataInput)
  | { operation: 'delete_page'; page: string }
  | { operation: 'revert_page'; page: string; revision?: string; block?: string[] }
  | {
      operation: 'insert_files';
      files: Array<{ ref?: string; name: string; contentType?: string; base64?: string; url?: string }>;
    };

export type PageOutcome = { object: 'created_page'; ref?: string; page: string } | { object: 'updated_page'; page: string } | { object: 'deleted_page'; page: string };

export interface BatchResult {
  manifest: Manifest;
  documents: StoredDocument[];
  files: PreparedFile[];
  outcomes: PageOutcome[];
}

export interface BatchContext {
  /** The manifest a `revert_page` without `revision` goes back to (the change request's base). */
  baseManifest: () => Manifest;
  /** Manifests of other revisions of the space named by `revert_page.revision`, loaded beforehand. */
  revisionManifests: Map<string, Manifest>;
  /** Documents of the base/revert revisions, by hash, for block-level reverts. */
  loadDocument: (hash: string) => Promise<JSONDocument | undefined>;
  now: string;
}

/** The revisions a batch's `revert_page` changes name, to load before applying it. */
export function revertRevisions(changes: ContentChange[]): string[] {
  return [...new Set(changes.flatMap((c) => (c.operation === 'revert_page' && c.revision ? [c.revision] : [])))];
}

export async function applyContentBatch(current: Manifest, changes: ContentChange[], context: BatchContext): Promise<BatchResult> {
  const batch = new Batch(cloneManifest(current), context);
  batch.checkLimits(changes);
  batch.assignRefs(changes);
  for (const [index, change] of changes.entries()) {
    try {
      await batch.apply(change);
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) throw badRequest(`changes[${index}] (${change.operation}): ${error.message}`);
      throw error;
    }
  }
  return batch.result();
}

class Batch {
  private readonly pageRefs = new Map<string, string>();
  private readonly fileRefs = new Map<string, string>();
  private readonly documents: StoredDocument[] = [];
  private readonly files: PreparedFile[] = [];
  private readonly outcomes = new Map<string, PageOutcome>();

  constructor(
    private readonly manifest: Manifest,
    private readonly context: BatchContext,
  ) {}

  /** Refs resolve whatever the order of the changes, so ids are given to inserted pages up front. */
  assignRefs(changes: ContentChange[]) {
    const paths = new Set([...indexPages(this.manifest.pages).values()].map((l) => l.path));
    const claim = (ref: string, index: number) => {
      if (this.pageRefs.has(ref) || this.fileRefs.has(ref)) throw badRequest(`changes[${index}]: ref "${ref}" is used twice in this batch`);
      if (paths.has(ref.replace(/\.md$/i, ''))) throw badRequest(`changes[${index}]: ref "${ref}" collides with the path of an existing page`);
    };
    changes.forEach((change, index) => {
      if (change.operation === 'insert_page' && change.ref !== undefined) {
        claim(change.ref, index);
        this.pageRefs.set(change.ref, newId());
      }
      if (change.operation === 'insert_files') {
        for (const file of change.files) {
          if (file.ref === undefined) continue;
          claim(file.ref, index);
          this.fileRefs.set(file.ref, newId());
        }
      }
    });
  }

  result(): BatchResult {
    return { manifest: this.manifest, documents: this.documents, files: this.files, outcomes: [...this.outcomes.values()] };
  }

  checkLimits(changes: ContentChange[]) {
    const files = changes.reduce((n, c) => n + (c.operation === 'insert_files' ? c.files.length : 0), 0);
    if (files > MAX_FILES_PER_BATCH) throw badRequest(`changes: ${files} files in one batch; the limit is ${MAX_FILES_PER_BATCH}`);
    const markdown = changes.reduce((n, c) => n + ('document' in c && c.document && 'markdown' in c.document ? String(c.document.markdown).length : 0), 0);
    if (markdown > MAX_BATCH_MARKDOWN_CHARS) {
      throw badRequest(`changes: ${markdown} characters of Markdown in one batch; the limit is ${MAX_BATCH_MARKDOWN_CHARS}: split it into several batches`);
    }
  }

  async apply(change: ContentChange): Promise<void> {
    switch (change.operation) {
      case 'insert_page':
        return this.insertPage(change);
      case 'update_page':
        return this.updatePage(change);
      case 'delete_page':
        return this.deletePage(change.page);
      case 'revert_page':
        return this.revertPage(change);
      case 'insert_files':
        return this.insertFiles(change.files);
    }
  }

  /** One outcome per page, in first-touch order: what the batch did to it as a whole. */
  private touch(outcome: PageOutcome) {
    const previous = this.outcomes.get(outcome.page);
    if (!previous) this.outcomes.set(outcome.page, outcome);
    else if (outcome.object === 'deleted_page') {
      // Created and deleted in the same batch: nothing happened to it.
      if (previous.object === 'created_page') this.outcomes.delete(outcome.page);
      else this.outcomes.set(outcome.page, { object: 'deleted_page', page: outcome.page });
    } else if (previous.object === 'deleted_page') {
      // Deleted, then restored by a revert: the page is still there, changed.
      this.outcomes.set(outcome.page, { object: 'updated_page', page: outcome.page });
    }
  }

  private locate(pageId: string) {
    const id = this.pageRefs.get(pageId) ?? pageId;
    const location = indexPages(this.manifest.pages).get(id);
    if (!location) throw badRequest(`page "${pageId}" does not exist in this change request`);
    return location;
  }

  private childrenOf(parentId: string | null | undefined): { list: PageEntry[]; path: string } {
    if (parentId === null || parentId === undefined) return { list: this.manifest.pages, path: '' };
    const parent = this.locate(parentId);
    return { list: parent.page.pages, path: parent.path };
  }

  private async insertPage(change: Extract<ContentChange, { operation: 'insert_page' }>) {
    const target = this.childrenOf(change.into);
    const at = checkIndex(change.at, target.list.length);
    const id = change.ref !== undefined ? this.pageRefs.get(change.ref)! : newId();
    const content = await this.readDocument(change.document, target.path);
    const title = content.title ?? change.title ?? 'Untitled';
    const slug = change.slug ? checkSlug(change.slug, target.list) : uniqueSlug(slugify(title), target.list);
    const page: PageEntry = {
      id,
      type: 'document',
      title,
      slug,
      createdAt: this.context.now,
      updatedAt: this.context.now,
      pages: [],
    };
    applyMetadata(page, { ...change, ...content.metadata, title });
    if (content.hash) page.document = content.hash;
    target.list.splice(at ?? target.list.length, 0, page);
    this.touch({ object: 'created_page', ...(change.ref !== undefined ? { ref: change.ref } : {}), page: id });
  }

  private async updatePage(change: Extract<ContentChange, { operation: 'update_page' }>) {
    const location = this.locate(change.page);
    const page = location.page;
    if (change.into !== undefined || change.at !== undefined) this.movePage(location, change.into, change.at);
    const placed = this.locate(page.id);
    const content = change.document ? await this.readDocument(change.document, placed.parentPath) : { metadata: {} };
    const title = content.title ?? change.title;
    if (change.slug !== undefined && change.slug !== '') page.slug = checkSlug(change.slug, placed.siblings, page.id);
    applyMetadata(page, { ...change, ...content.metadata, ...(title !== undefined ? { title } : {}) });
    if (change.document) {
      if (content.hash) page.document = content.hash;
      else delete page.document;
    }
    page.updatedAt = this.context.now;
    this.touch({ object: 'updated_page', page: page.id });
  }

  private movePage(location: ReturnType<Batch['locate']>, into: string | null | undefined, at: number | undefined) {
    const page = location.page;
    const newParentId = into === undefined ? location.parent?.id ?? null : into === null ? null : this.pageRefs.get(into) ?? into;
    if (newParentId !== null && subtreeIds(page).includes(newParentId)) throw badRequest(`page "${page.id}" cannot move under itself or one of its descendants`);
    const target = this.childrenOf(newParentId);
    const sameParent = target.list === location.siblings;
    location.siblings.splice(location.siblings.indexOf(page), 1);
    const index = checkIndex(at, target.list.length) ?? (sameParent ? location.siblings.length : target.list.length);
    if (!sameParent && target.list.some((p) => p.slug === page.slug)) {
      location.siblings.push(page); // the batch is rejected anyway; keep the tree whole
      throw badRequest(`slug "${page.slug}" is already used by a page under the new parent`);
    }
    target.list.splice(index, 0, page);
  }

  private deletePage(pageId: string) {
    const location = this.locate(pageId);
    location.siblings.splice(location.siblings.indexOf(location.page), 1);
    for (const id of subtreeIds(location.page)) this.touch({ object: 'deleted_page', page: id });
  }

  private async revertPage(change: Extract<ContentChange, { operation: 'revert_page' }>) {
    const target = change.revision === undefined ? this.context.baseManifest() : this.context.revisionManifests.get(change.revision);
    if (!target) throw badRequest(`revision "${change.revision}" is not a revision of this space`);
    const pageId = this.pageRefs.get(change.page) ?? change.page;
    const before = indexPages(target.pages).get(pageId);
    const now = indexPages(this.manifest.pages).get(pageId);
    if (!before && !now) throw badRequest(`page "${change.page}" exists neither in this change request nor in the revision`);
    if (change.block) {
      if (!before || !now) throw badRequest(`blocks can only be reverted on a page that exists on both sides`);
      return this.revertBlocks(now.page, before.page, change.block);
    }
    if (!before) return this.deletePage(pageId);
    if (!now) return this.restorePage(before.page, before.parent?.id ?? null, before.siblings.indexOf(before.page));
    const { pages, createdAt, ...state } = before.page;
    Object.assign(now.page, { ...state, slug: now.page.slug, createdAt: now.page.createdAt, updatedAt: this.context.now });
    for (const key of Object.keys(now.page) as Array<keyof PageEntry>) if (!(key in before.page) && key !== 'slug') delete now.page[key];
    this.touch({ object: 'updated_page', page: pageId });
  }

  private restorePage(page: PageEntry, parentId: string | null, index: number) {
    const index_ = indexPages(this.manifest.pages);
    const parent = parentId !== null && index_.has(parentId) ? index_.get(parentId)!.page.pages : this.manifest.pages;
    const present = new Set(index_.keys());
    const restored = structuredClone(page);
    // Children that still exist elsewhere stay where they are now.
    const prune = (p: PageEntry) => {
      p.pages = p.pages.filter((child) => !present.has(child.id));
      p.pages.forEach(prune);
    };
    prune(restored);
    restored.slug = uniqueSlug(restored.slug, parent);
    parent.splice(Math.min(index, parent.length), 0, restored);
    for (const id of subtreeIds(restored)) this.touch({ object: 'created_page', page: id });
  }

  private async revertBlocks(page: PageEntry, before: PageEntry, keys: string[]) {
    const load = async (hash?: string) => (hash ? await this.context.loadDocument(hash) : undefined) ?? emptyDocument();
    const current = structuredClone(await load(page.document));
    const previous = await load(before.document);
    for (const key of keys) {
      const at = current.nodes.findIndex((n) => n.key === key);
      const was = previous.nodes.findIndex((n) => n.key === key);
      if (at < 0 && was < 0) throw badRequest(`block "${key}" is not a top-level block of the page on either side`);
      if (at >= 0 && was >= 0) current.nodes[at] = previous.nodes[was];
      else if (at >= 0) current.nodes.splice(at, 1);
      else current.nodes.splice(Math.min(was, current.nodes.length), 0, previous.nodes[was]);
    }
    const stored = await toStoredDocument(current);
    this.documents.push(stored);
    page.document = stored.hash;
    page.updatedAt = this.context.now;
    this.touch({ object: 'updated_page', page: page.id });
  }

  private async insertFiles(files: Extract<ContentChange, { operation: 'insert_files' }>['files']) {
    for (const [i, file] of files.entries()) {
      const where = `files[${i}] "${file.name}"`;
      if (file.url !== undefined) throw badRequest(`${where}: fetching files by URL is not supported by this deployment; send the bytes as base64`);
      if (file.base64 === undefined) throw badRequest(`${where}: base64 is required`);
      if (!file.contentType) throw badRequest(`${where}: contentType is required with base64`);
      const bytes = decodeBase64(file.base64);
      if (!bytes) throw badRequest(`${where}: base64 is not valid base64`);
      if (bytes.byteLength > MAX_FILE_BYTES) throw badRequest(`${where}: the file is ${bytes.byteLength} bytes; the limit is ${MAX_FILE_BYTES}`);
      const prepared = await prepareFile(file.name, file.contentType, bytes);
      if (file.ref !== undefined) prepared.entry.id = this.fileRefs.get(file.ref)!;
      this.manifest.files.push(prepared.entry);
      this.files.push(prepared);
    }
  }

  /** A document input as a stored document (none for `{}`), with the metadata its Markdown carries. */
  private async readDocument(input: DocumentInput, parentPath: string): Promise<{ hash?: string; title?: string; metadata: PageMetadataInput }> {
    let document: JSONDocument;
    let title: string | undefined;
    let metadata: PageMetadataInput = {};
    if ('markdown' in input && typeof input.markdown === 'string') {
      const size = input.markdown.length;
      if (size > MAX_PAGE_MARKDOWN_CHARS) throw badRequest(`document: the markdown is ${size} characters; the limit is ${MAX_PAGE_MARKDOWN_CHARS} per page`);
      if (DEEP_MARKDOWN_LINE.test(input.markdown)) throw badRequest('document: the Markdown is nested too deeply');
      try {
        const converted = markdownToDocument(input.markdown, { resolveLink: this.linkResolver(parentPath) });
        document = converted.document;
        title = converted.title;
        metadata = frontmatterMetadata(converted.frontmatter, converted.description);
      } catch (error) {
        if (error instanceof MarkdownConversionError) throw badRequest(error.message);
        if (error instanceof RangeError) throw badRequest('document: the Markdown is nested too deeply');
        throw error;
      }
    } else if ('document' in input) {
      if (jsonDepth(input.document, MAX_DOCUMENT_DEPTH) > MAX_DOCUMENT_DEPTH) throw badRequest(`document: nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
      const parsed = parseDocument(input.document);
      if (!parsed.success) throw badRequest(parsed.error);
      document = parsed.document;
    } else {
      return { metadata };
    }
    const stored = await toStoredDocument(document);
    if (stored.body.length > MAX_DOCUMENT_BYTES) throw badRequest(`document: the page is ${stored.body.length} bytes as a document; the limit is ${MAX_DOCUMENT_BYTES}`);
    this.documents.push(stored);
    return { hash: stored.hash, title, metadata };
  }

  /** Batch refs (`./<ref>`, `<ref>.md`), `/pages/<id or slug path>`, `/files/<id>`, slug paths and relative `.md` links. */
  private linkResolver(parentPath: string): LinkResolver {
    const index = indexPages(this.manifest.pages);
    const byPath = createPathLinkResolver({ pages: [...index.values()].map((l) => ({ id: l.page.id, path: l.path })), base: parentPath });
    const knownPage = (id: string) => index.has(id) || [...this.pageRefs.values()].includes(id);
    return (href): ContentRef | null => {
      const local = href.replace(/^\.\//, '');
      const [name, anchor] = local.split('#', 2);
      const pageRef = this.pageRefs.get(name) ?? this.pageRefs.get(name.replace(/\.md$/i, ''));
      if (pageRef) return anchor ? { kind: 'anchor', anchor, page: pageRef } : { kind: 'page', page: pageRef };
      const fileRef = this.fileRefs.get(name);
      if (fileRef) return { kind: 'file', file: fileRef };
      const pages = /^\/pages\/([^#?]+)(?:#(.*))?$/.exec(href);
      if (pages) {
        const [, rest, hash] = pages;
        if (knownPage(rest)) return hash ? { kind: 'anchor', anchor: hash, page: rest } : { kind: 'page', page: rest };
        return byPath(`/${rest}${hash ? `#${hash}` : ''}`) ?? null;
      }
      return byPath(href);
    };
  }
}

function emptyDocument(): JSONDocument {
  return { object: 'document', data: {}, nodes: [] };
}

function checkIndex(at: number | undefined, length: number): number | undefined {
  if (at === undefined) return undefined;
  if (at > length) throw badRequest(`at ${at} is past the end (${length} sibling page(s))`);
  return at;
}

function checkSlug(slug: string, siblings: PageEntry[], self?: string): string {
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(slug)) throw badRequest(`slug "${slug}" may only contain letters, digits, ".", "_" and "-"`);
  if (siblings.some((p) => p.slug === slug && p.id !== self)) throw badRequest(`slug "${slug}" is already used by a sibling page`);
  return slug;
}

/** Frontmatter keys GitBook's Git Sync reads as page metadata. */
function frontmatterMetadata(frontmatter: Record<string, unknown>, description: string | undefined): PageMetadataInput {
  const out: PageMetadataInput = {};
  if (description !== undefined) out.description = description;
  for (const key of ['icon', 'emoji'] as const) if (typeof frontmatter[key] === 'string') out[key] = frontmatter[key] as string;
  for (const key of ['hidden', 'noIndex', 'noRobotsIndex'] as const) if (typeof frontmatter[key] === 'boolean') out[key] = frontmatter[key] as boolean;
  return out;
}

/** Sets what the change gives; an empty string removes emoji, icon, description and condition. */
function applyMetadata(page: PageEntry, input: PageMetadataInput) {
  for (const key of METADATA_KEYS) {
    const value = input[key];
    if (value === undefined) continue;
    if (value === '' && key !== 'title') delete page[key];
    else (page as unknown as Record<string, unknown>)[key] = value;
  }
}
