import { normalizeCondition } from '../sites/conditions';
import { ApiError, badRequest } from '../../lib/errors';
import { jsonDepth } from '../../lib/json-depth';
import { newId } from '../../lib/ids';
import { decodeBase64 } from '../../lib/base64';
import { prepareFile, type PreparedFile } from './files';
import { CAPS } from '../limits/caps';
import { childCount, ROOT, type ChildRef, type ContentTree, type PageRecord } from './pages';
import type { ComputedRevisionSource } from '../openapi/computed-pages';
import {
  MarkdownConversionError,
  createPathLinkResolver,
  linkedPagePath,
  markdownToDocument,
  type PageFrontmatter,
  parseDocument,
  withSourcePatchOf,
  type ContentRef,
  type JSONDocument,
  type LinkResolver,
} from '../markdown/index';
import { DEEP_MARKDOWN_LINE, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH, MAX_PAGE_MARKDOWN_CHARS } from './document-limits';
import { asDelta, isGroupPage, slugOfTitle, toStoredDocument, uniqueSlug, type PageEntry, type PageLinkTarget, type StoredDocument } from './revisions';
import type { DeltaBase } from './document-deltas';
import { PackingBudget } from './packed-documents';

/**
 * Applies a batch of content changes (GitBook's `updateChangeRequestContent`) to a manifest, in
 * memory. Every change is checked as it is applied; the first invalid one rejects the whole batch
 * (nothing has been written yet), with a message that names it.
 */

export { DEEP_MARKDOWN_LINE, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH, MAX_PAGE_MARKDOWN_CHARS } from './document-limits';
/**
 * Markdown one batch may carry in all. Parsing costs 14-25 ms of CPU per KiB on a 2-core machine
 * (`npm run bench`), inside the space's single writer: this keeps a batch to seconds.
 */
export const MAX_BATCH_MARKDOWN_CHARS = 512 * 1024;
/** Files one batch may upload: each is a write to R2 from the space's writer. */
export const MAX_FILES_PER_BATCH = 40;

export type DocumentInput = { markdown: string } | { document: unknown } | Record<string, never>;

/** The page fields a change may set (GitBook's RevisionPageUpdate); `slug` is checked apart from the rest. */
const METADATA_KEYS = ['title', 'linkTitle', 'emoji', 'icon', 'description', 'hidden', 'noIndex', 'noRobotsIndex', 'condition', 'layout'] as const;
export type PageMetadataInput = Partial<Pick<PageEntry, (typeof METADATA_KEYS)[number] | 'slug'>>;

export type ContentChange =
  | ({
      operation: 'insert_page';
      into?: string;
      at?: number;
      ref?: string;
      document?: DocumentInput;
      computed?: ComputedRevisionSource;
      /** A link page (Git Sync's import of a SUMMARY.md link to a URL); the API's batch has no such insert, as GitBook's. */
      link?: PageLinkTarget;
      /** `group`: a page group of the top level (GitBook's RevisionPageGroup), with no document. */
      type?: PageEntry['type'];
    } & PageMetadataInput)
  | ({
      operation: 'update_page';
      page: string;
      document?: DocumentInput;
      /** A source makes the page computed (dropping its document); null makes it an ordinary empty page again. */
      computed?: ComputedRevisionSource | null;
      into?: string | null;
      at?: number;
      /**
       * Git Sync's import only (the API's batch has no such change, as GitBook's): an empty page made from a SUMMARY.md
       * heading before groups existed becomes the group it stands for (its document, which no file held, is dropped).
       */
      type?: PageEntry['type'];
    } & PageMetadataInput)
  | { operation: 'delete_page'; page: string }
  | { operation: 'revert_page'; page: string; revision?: string; block?: string[] }
  | {
      operation: 'insert_files';
      files: Array<{ ref?: string; name: string; contentType?: string; base64?: string; url?: string }>;
    };

export type PageOutcome = { object: 'created_page'; ref?: string; page: string } | { object: 'updated_page'; page: string } | { object: 'deleted_page'; page: string };

export interface BatchResult {
  /** Net pages added (negative when pages were deleted) and files added: the revision's counts move by these. */
  pageDelta: number;
  fileDelta: number;
  documents: StoredDocument[];
  files: PreparedFile[];
  outcomes: PageOutcome[];
  /** The page id given to each ref of the changes (all of them, whatever `range`). */
  pageRefs: ReadonlyMap<string, string>;
}

export interface BatchContext {
  /** The content a `revert_page` without `revision` goes back to (the change request's base). */
  baseTree: () => ContentTree;
  /** Other revisions of the space named by `revert_page.revision`, loaded beforehand. */
  revisionTrees: Map<string, ContentTree>;
  /** Documents of the base/revert revisions, by hash, for block-level reverts. */
  loadDocument: (hash: string) => Promise<JSONDocument | undefined>;
  /**
   * The whole documents that edited pages' previous documents are stored against (`loadDeltaBases`), so that their
   * new documents are stored as deltas (document-deltas); without it every document is stored whole.
   */
  deltaBases?: (hashes: string[]) => Promise<Map<string, DeltaBase>>;
  /** The deployment's cap on one file's bytes (MAX_FILE_BYTES): a file over it answers 413. */
  maxFileBytes: number;
  now: string;
  /**
   * Skips the per-batch limits (Markdown characters, files): for Git Sync's imports, which run from the queue
   * and bring a whole repository at once; each page and file still meets its own limits.
   */
  unbounded?: boolean;
  /**
   * Where each document the batch makes goes as soon as it is made, in place of the result's `documents` (Git Sync's
   * import stores them in bounded chunks while it converts, so a whole repository's documents are never held at once),
   * with the document the page had (`replaces`), which the new one may be stored as a delta of (document-deltas).
   */
  storeDocument?: (stored: StoredDocument, replaces?: string) => Promise<void>;
  /** Gives each change, just before it is applied, as it is to be applied (Git Sync's import reads its Markdown then). */
  prepare?: (change: ContentChange, index: number) => Promise<ContentChange>;
  /**
   * A page whose document is over MAX_DOCUMENT_BYTES: with this, the change is applied without it (a new page empty,
   * a page already there keeping its document) and told here (Git Sync's import: one large file of a repository does
   * not fail the whole import), instead of the whole batch failing.
   */
  oversizedDocument?: (change: ContentChange, message: string) => void;
  /**
   * Git Sync's import applied in slices, one writer call each (services/git-sync/apply: each call's CPU bounded): the
   * changes this call applies (the others are the slices before and after it), and, after the first slice, the ids the
   * first gave every ref of the import (its refs were checked then, against the tree before the import).
   */
  range?: { from: number; to: number };
  refIds?: ReadonlyMap<string, string>;
  /** How an error names the change that failed (Git Sync's import: a page's file); `changes[i] (operation)` otherwise. */
  nameChange?: (change: ContentChange) => string | undefined;
  /**
   * What the links of a prepared change's Markdown lead to, read before any other resolution (Git Sync's import: a path
   * of the repository -> its page's batch ref or `/pages/<id>`, or `/files/<id>`), or null for a link it does not know.
   */
  linkTargetOf?: (input: DocumentInput) => ((href: string) => string | null) | undefined;
}

/** A page's document over MAX_DOCUMENT_BYTES (400). */
class DocumentTooLargeError extends ApiError {}

/** The revisions a batch's `revert_page` changes name, to load before applying it. */
export function revertRevisions(changes: ContentChange[]): string[] {
  return [...new Set(changes.flatMap((c) => (c.operation === 'revert_page' && c.revision ? [c.revision] : [])))];
}

/** Applies the changes to `tree` (staged in its tries: `tree.write()` makes the new revision's nodes). */
export async function applyContentBatch(tree: ContentTree, changes: ContentChange[], context: BatchContext): Promise<BatchResult> {
  const batch = new Batch(tree, context);
  if (!context.unbounded) batch.checkLimits(changes);
  if (context.refIds) batch.useRefs(context.refIds);
  else await batch.assignRefs(changes);
  const { from, to } = context.range ?? { from: 0, to: changes.length };
  for (let index = from; index < to; index++) {
    const change = changes[index];
    let prepared: ContentChange | undefined;
    try {
      prepared = context.prepare ? await context.prepare(change, index) : change;
      await batch.apply(prepared);
    } catch (error) {
      // Nothing of the change was applied yet (its document is read before the page is touched): applied again, a new
      // page empty, a page already there with the document it has.
      if (error instanceof DocumentTooLargeError && context.oversizedDocument && (prepared?.operation === 'insert_page' || prepared?.operation === 'update_page')) {
        context.oversizedDocument(prepared, error.message);
        await batch.apply(prepared.operation === 'insert_page' ? { ...prepared, document: {} } : { ...prepared, document: undefined });
        continue;
      }
      // The change that failed is named, whatever the status (400 invalid, 413 a file over its cap).
      if (error instanceof ApiError && (error.status === 400 || error.status === 413)) {
        throw new ApiError(error.status, `${context.nameChange?.(change) ?? `changes[${index}] (${change.operation})`}: ${error.message}`);
      }
      throw error;
    }
  }
  await batch.storeAsDeltas();
  return batch.result();
}

/** A page found in the tree being edited: its record, its parent's id and child list, and its path. */
interface Location {
  page: PageRecord;
  parent: string;
  siblings: ChildRef[];
  path: string;
  parentPath: string;
}

class Batch {
  private readonly pageRefs = new Map<string, string>();
  private readonly fileRefs = new Map<string, string>();
  private readonly documents: StoredDocument[] = [];
  /** An editor's batch packs its documents densely, within the budget of one request (packed-documents). */
  private readonly packing = new PackingBudget();
  private readonly files: PreparedFile[] = [];
  private readonly outcomes = new Map<string, PageOutcome>();
  /** An updated page's new document -> the document it had: what the new one may be stored as a delta of. */
  private readonly previousDocuments = new Map<string, string>();
  private pageDelta = 0;

  constructor(
    private readonly tree: ContentTree,
    private readonly context: BatchContext,
  ) {}

  /** Refs resolve whatever the order of the changes, so ids are given to inserted pages up front. */
  async assignRefs(changes: ContentChange[]) {
    const claim = async (ref: string, index: number) => {
      if (this.pageRefs.has(ref) || this.fileRefs.has(ref)) throw badRequest(`changes[${index}]: ref "${ref}" is used twice in this batch`);
      if ((await this.pageAtPath(normalizeRefPath(ref))) !== undefined) throw badRequest(`changes[${index}]: ref "${ref}" collides with the path of an existing page`);
    };
    for (const [index, change] of changes.entries()) {
      if (change.operation === 'insert_page' && change.ref !== undefined) {
        await claim(change.ref, index);
        this.pageRefs.set(change.ref, newId());
      }
      if (change.operation === 'insert_files') {
        for (const file of change.files) {
          if (file.ref === undefined) continue;
          await claim(file.ref, index);
          this.fileRefs.set(file.ref, newId());
        }
      }
    }
  }

  /** The ids an earlier slice of the same batch gave its refs (BatchContext.refIds). */
  useRefs(refIds: ReadonlyMap<string, string>) {
    for (const [ref, id] of refIds) this.pageRefs.set(ref, id);
  }

  /**
   * Stores updated pages' new documents as deltas where that is smaller: their previous documents' bases read in one
   * statement, or none when the writer remembers them (`rememberedBase`: it stored them).
   */
  async storeAsDeltas() {
    if (!this.context.deltaBases) return;
    const bases = this.previousDocuments.size > 0 ? await this.context.deltaBases([...new Set(this.previousDocuments.values())]) : new Map<string, DeltaBase>();
    for (const [i, stored] of this.documents.entries()) {
      const previous = this.previousDocuments.get(stored.hash);
      this.documents[i] = asDelta(stored, previous === undefined ? undefined : bases.get(previous));
    }
  }

  result(): BatchResult {
    return {
      pageDelta: this.pageDelta,
      fileDelta: this.files.length,
      documents: this.documents,
      files: this.files,
      outcomes: [...this.outcomes.values()],
      pageRefs: this.pageRefs,
    };
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

  /** The ids from a page up to the top level (the page first). */
  private async ancestry(id: string): Promise<PageRecord[]> {
    const chain: PageRecord[] = [];
    for (let current: string | null = id; current !== null && current !== ROOT; ) {
      const record = await this.tree.page(current);
      if (!record || chain.length > 1000) break;
      chain.push(record);
      current = record.parent;
    }
    return chain;
  }

  private async locate(pageId: string): Promise<Location> {
    const id = this.pageRefs.get(pageId) ?? pageId;
    const chain = await this.ancestry(id);
    if (chain.length === 0) throw badRequest(`page "${pageId}" does not exist in this change request`);
    const page = chain[0];
    const parentPath = chain
      .slice(1)
      .reverse()
      .map((p) => p.slug)
      .join('/');
    const parent = page.parent ?? ROOT;
    return { page, parent, siblings: await this.tree.children(parent), path: parentPath ? `${parentPath}/${page.slug}` : page.slug, parentPath };
  }

  /** A parent (ROOT for the top level) with its child list and path; a computed page cannot be one. */
  private async childrenOf(parentId: string | null | undefined): Promise<{ parent: string; list: ChildRef[]; path: string }> {
    if (parentId === null || parentId === undefined) return { parent: ROOT, list: await this.tree.children(ROOT), path: '' };
    const parent = await this.locate(parentId);
    refuseComputedParent(parent.page);
    return { parent: parent.page.id, list: await this.tree.children(parent.page.id), path: parent.path };
  }

  /** Stores a parent's new child list (on the parent's record, or on the top-level record). */
  private async saveChildren(parent: string, list: ChildRef[]) {
    const record = parent === ROOT ? await this.tree.rootRecord() : await this.tree.page(parent);
    if (!record) throw new Error(`parent ${parent} vanished during the batch`);
    this.tree.pages.set(parent, await this.tree.setChildren(record, list));
  }

  /** `replaces`: the document the page had, which the new one may be stored as a delta of. */
  private async keep(stored: StoredDocument, replaces?: string) {
    if (this.context.storeDocument) return this.context.storeDocument(stored, replaces);
    this.documents.push(stored);
    if (replaces && replaces !== stored.hash) this.previousDocuments.set(stored.hash, replaces);
  }

  private putPage(page: PageRecord) {
    this.tree.pages.set(page.id, page);
  }

  private async insertPage(change: Extract<ContentChange, { operation: 'insert_page' }>) {
    const group = change.type === 'group';
    if (group) refuseGroupContent(change, 'a group');
    if (change.computed && hasBody(change.document)) throw badRequest(COMPUTED_WITHOUT_DOCUMENT);
    if (!change.computed && !group && change.document === undefined) throw badRequest('document is required (`{}` for an empty page), unless the page is computed or a group');
    if (group && change.into !== undefined && change.into !== null) throw badRequest(GROUP_AT_TOP_LEVEL);
    const target = await this.childrenOf(change.into);
    const at = checkIndex(change.at, target.list.length);
    const id = change.ref !== undefined ? this.pageRefs.get(change.ref)! : newId();
    const content = change.computed || group ? { metadata: {} as PageMetadataInput } : await this.readDocument(change.document ?? {}, target.path);
    const title = content.title ?? change.title ?? 'Untitled';
    const slug = change.slug ? checkSlug(change.slug, target.list) : uniqueSlug(await slugOfTitle(title), target.list);
    const page: PageRecord = {
      id,
      type: group ? 'group' : 'document',
      title,
      slug,
      createdAt: this.context.now,
      updatedAt: this.context.now,
      parent: target.parent === ROOT ? null : target.parent,
    };
    applyMetadata(page, { ...change, ...content.metadata, title });
    if ('hash' in content && content.hash) page.document = content.hash;
    if (change.computed) {
      page.computed = change.computed;
      page.computedSeed = id;
    }
    // An anchor's page may be one this batch inserts (a ref, its id given before the batch runs).
    if (change.link) page.link = change.link.kind === 'url' ? { kind: 'url', url: change.link.url } : { kind: 'anchor', page: this.pageRefs.get(change.link.page) ?? change.link.page, anchor: change.link.anchor };
    this.putPage(page);
    target.list.splice(at ?? target.list.length, 0, [id, slug]);
    await this.saveChildren(target.parent, target.list);
    this.pageDelta++;
    this.touch({ object: 'created_page', ...(change.ref !== undefined ? { ref: change.ref } : {}), page: id });
  }

  private async updatePage(change: Extract<ContentChange, { operation: 'update_page' }>) {
    let location = await this.locate(change.page);
    if (change.into !== undefined || change.at !== undefined) {
      await this.movePage(location, change.into, change.at);
      location = await this.locate(location.page.id);
    }
    const page = location.page;
    // A link page leads elsewhere (GitBook's RevisionPageLink): it has no document, and does not become computed.
    if (page.link && (hasBody(change.document) || change.computed)) throw badRequest(`page "${change.page}" is a link page: it has no document`);
    if (change.type === 'group' && !isGroupPage(page)) await this.becomeGroup(page, location);
    if (isGroupPage(page)) refuseGroupContent(change, `page "${change.page}" is a group`);
    if (change.computed) {
      if (hasBody(change.document)) throw badRequest(COMPUTED_WITHOUT_DOCUMENT);
      const children = childCount(page);
      if (children > 0) throw badRequest(`page "${change.page}" has ${children} child page(s): a computed page has none of its own; move or delete them first`);
    } else if (change.computed === undefined && page.computed && hasBody(change.document)) {
      throw badRequest(`page "${change.page}" is computed: its content is generated; send computed: null to give it a document of its own`);
    }
    const content = change.document && !change.computed ? await this.readDocument(change.document, location.parentPath, page.git ? page.document : undefined, page.document) : { metadata: {} };
    const title = content.title ?? change.title;
    if (change.slug !== undefined && change.slug !== '' && change.slug !== page.slug) {
      page.slug = checkSlug(change.slug, location.siblings, page.id);
      const list = location.siblings.map((child): ChildRef => (child[0] === page.id ? [page.id, page.slug] : child));
      await this.saveChildren(location.parent, list);
    }
    applyMetadata(page, { ...change, ...content.metadata, ...(title !== undefined ? { title } : {}) });
    if (change.document) {
      if ('hash' in content && content.hash) page.document = content.hash;
      else delete page.document;
    }
    if (change.computed) {
      page.computed = change.computed;
      page.computedSeed = page.computedSeed ?? page.id;
      delete page.document;
    } else if (change.computed === null) {
      delete page.computed;
      delete page.computedSeed;
    }
    page.updatedAt = this.context.now;
    this.putPage(page);
    this.touch({ object: 'updated_page', page: page.id });
  }

  /** Git Sync's turn of an empty page of the top level into a group (see ContentChange's `type`). */
  private async becomeGroup(page: PageRecord, location: Location) {
    if (location.parent !== ROOT) throw badRequest(GROUP_AT_TOP_LEVEL);
    const groupsInside = [...(await this.tree.pagesById((await this.tree.listOf(page)).map(([id]) => id))).values()].filter(isGroupPage);
    if (groupsInside.length > 0) throw badRequest(`page "${page.id}" holds a group: ${GROUP_AT_TOP_LEVEL}`);
    page.type = 'group';
    for (const key of ['document', 'computed', 'computedSeed', 'description', 'layout', 'variables', 'git'] as const) delete page[key];
  }

  private async movePage(location: Location, into: string | null | undefined, at: number | undefined) {
    const page = location.page;
    const newParentId = into === undefined ? location.parent : into === null ? ROOT : (this.pageRefs.get(into) ?? into);
    if (isGroupPage(page) && newParentId !== ROOT) throw badRequest(`page "${page.id}" is a group: ${GROUP_AT_TOP_LEVEL}`);
    if (newParentId !== ROOT) {
      const chain = await this.ancestry(newParentId);
      if (chain.length === 0) throw badRequest(`page "${into}" does not exist in this change request`);
      if (chain.some((p) => p.id === page.id)) throw badRequest(`page "${page.id}" cannot move under itself or one of its descendants`);
      refuseComputedParent(chain[0]);
    }
    const sameParent = newParentId === location.parent;
    const from = location.siblings.filter(([id]) => id !== page.id);
    const target = sameParent ? from : await this.tree.children(newParentId);
    const index = checkIndex(at, target.length) ?? target.length;
    if (!sameParent && target.some(([, slug]) => slug === page.slug)) throw badRequest(`slug "${page.slug}" is already used by a page under the new parent`);
    target.splice(index, 0, [page.id, page.slug]);
    if (!sameParent) {
      await this.saveChildren(location.parent, from);
      this.putPage({ ...page, parent: newParentId === ROOT ? null : newParentId });
    }
    await this.saveChildren(newParentId, target);
  }

  /** A page and all its descendants, depth first (the records are read as the walk goes). */
  private async subtree(page: PageRecord): Promise<PageRecord[]> {
    const out: PageRecord[] = [page];
    let level = [page];
    while (level.length > 0) {
      const ids = (await Promise.all(level.map((p) => this.tree.listOf(p)))).flat().map(([id]) => id);
      const found = await this.tree.pagesById(ids);
      level = ids.flatMap((id) => (found.has(id) ? [found.get(id)!] : []));
      out.push(...level);
    }
    return out;
  }

  private async deletePage(pageId: string) {
    const location = await this.locate(pageId);
    await this.saveChildren(
      location.parent,
      location.siblings.filter(([id]) => id !== location.page.id),
    );
    const removed = await this.subtree(location.page);
    for (const page of removed) {
      this.tree.pages.delete(page.id);
      this.touch({ object: 'deleted_page', page: page.id });
    }
    this.pageDelta -= removed.length;
  }

  private async revertPage(change: Extract<ContentChange, { operation: 'revert_page' }>) {
    const target = change.revision === undefined ? this.context.baseTree() : this.context.revisionTrees.get(change.revision);
    if (!target) throw badRequest(`revision "${change.revision}" is not a revision of this space`);
    const pageId = this.pageRefs.get(change.page) ?? change.page;
    const before = await target.page(pageId);
    const now = await this.tree.page(pageId);
    if (!before && !now) throw badRequest(`page "${change.page}" exists neither in this change request nor in the revision`);
    if (change.block) {
      if (!before || !now) throw badRequest(`blocks can only be reverted on a page that exists on both sides`);
      if (before.computed || now.computed) throw badRequest(`page "${change.page}" is computed on one side: it has no blocks of its own to revert`);
      return this.revertBlocks(now, before, change.block);
    }
    if (!before) return this.deletePage(pageId);
    if (!now) return this.restorePage(target, before);
    const { parent, children, chunks, createdAt, ...state } = before;
    if (state.computed && childCount(now) > 0) {
      throw badRequest(`page "${change.page}" was computed there and has child pages now: a computed page has none of its own; move or delete them first`);
    }
    const reverted: PageRecord = { ...state, slug: now.slug, createdAt: now.createdAt, updatedAt: this.context.now, parent: now.parent };
    if (now.children) reverted.children = now.children;
    if (now.chunks) reverted.chunks = now.chunks;
    this.putPage(reverted);
    this.touch({ object: 'updated_page', page: pageId });
  }

  /** Brings back a page (and the descendants it had there that do not exist now) from another revision. */
  private async restorePage(source: ContentTree, page: PageRecord) {
    // Under its parent if that is still there (and not computed since), else at the top level.
    const parentRecord = page.parent !== null ? await this.tree.page(page.parent) : undefined;
    const parentNow = parentRecord && !parentRecord.computed ? parentRecord.id : ROOT;
    const oldSiblings = await source.children(page.parent ?? ROOT);
    const index = oldSiblings.findIndex(([id]) => id === page.id);
    // Children that still exist elsewhere stay where they are now.
    const restored: PageRecord[] = [];
    const visit = async (record: PageRecord) => {
      const kids = await source.listOf(record);
      const present = await this.tree.pagesById(kids.map(([id]) => id));
      const absent = kids.filter(([id]) => !present.has(id));
      const kept = await source.pagesById(absent.map(([id]) => id));
      const list = absent.filter(([id]) => kept.has(id));
      restored.push(await this.tree.setChildren(record, list));
      for (const [id] of list) await visit(kept.get(id)!);
    };
    await visit(page);
    const list = await this.tree.children(parentNow);
    const top = restored[0];
    top.slug = uniqueSlug(top.slug, list);
    top.parent = parentNow === ROOT ? null : parentNow;
    list.splice(Math.min(index < 0 ? list.length : index, list.length), 0, [top.id, top.slug]);
    for (const record of restored) this.putPage(record);
    await this.saveChildren(parentNow, list);
    this.pageDelta += restored.length;
    for (const record of restored) this.touch({ object: 'created_page', page: record.id });
  }

  private async revertBlocks(page: PageRecord, before: PageRecord, keys: string[]) {
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
    const stored = await toStoredDocument(current, this.packing);
    await this.keep(stored, page.document);
    this.putPage({ ...page, document: stored.hash, updatedAt: this.context.now });
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
      const max = this.context.maxFileBytes;
      if (bytes.byteLength > max) throw new ApiError(413, `${where}: the file is ${bytes.byteLength} bytes; the limit is ${max} (${CAPS.bytesPerFile.variable})`);
      const prepared = await prepareFile(file.name, file.contentType, bytes);
      if (file.ref !== undefined) prepared.entry.id = this.fileRefs.get(file.ref)!;
      this.tree.files.set(prepared.entry.id, prepared.entry);
      this.files.push(prepared);
    }
  }

  /**
   * A document input as a stored document (none for `{}`), with the metadata its Markdown carries. A document sent as
   * JSON in place of one read from Markdown (`previous`, the page's document) keeps its source lines where they fit:
   * asked for pages a Git file backs (`git`), whose lines an export writes back, so other JSON edits read nothing more.
   */
  /** `previous`: the document a Git file backed (its links and source lines kept); `replaces`: the one the page had. */
  private async readDocument(input: DocumentInput, parentPath: string, previous?: string, replaces?: string): Promise<{ hash?: string; title?: string; metadata: PageMetadataInput }> {
    let document: JSONDocument;
    let title: string | undefined;
    let metadata: PageMetadataInput = {};
    if ('markdown' in input && typeof input.markdown === 'string') {
      const size = input.markdown.length;
      if (size > MAX_PAGE_MARKDOWN_CHARS) throw badRequest(`document: the markdown is ${size} characters; the limit is ${MAX_PAGE_MARKDOWN_CHARS} per page`);
      if (DEEP_MARKDOWN_LINE.test(input.markdown)) throw badRequest('document: the Markdown is nested too deeply');
      try {
        const written = previous ? urlHrefsOf(await this.context.loadDocument(previous)) : undefined;
        const converted = await this.convertMarkdown(input.markdown, parentPath, written, this.context.linkTargetOf?.(input));
        document = converted.document;
        title = converted.title;
        metadata = frontmatterMetadata(converted.frontmatter, converted.page);
      } catch (error) {
        if (error instanceof MarkdownConversionError) throw badRequest(error.message);
        if (error instanceof RangeError) throw badRequest('document: the Markdown is nested too deeply');
        throw error;
      }
    } else if ('document' in input) {
      if (jsonDepth(input.document, MAX_DOCUMENT_DEPTH) > MAX_DOCUMENT_DEPTH) throw badRequest(`document: nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
      const parsed = parseDocument(input.document);
      if (!parsed.success) throw badRequest(parsed.error);
      document = previous ? withSourcePatchOf(await this.context.loadDocument(previous), parsed.document) : parsed.document;
    } else {
      return { metadata };
    }
    const stored = await toStoredDocument(document, this.packing);
    if (stored.body.length > MAX_DOCUMENT_BYTES) throw new DocumentTooLargeError(400, `document: the page is ${stored.body.length} bytes as a document; the limit is ${MAX_DOCUMENT_BYTES}`);
    await this.keep(stored, replaces);
    return { hash: stored.hash, title, metadata };
  }

  /**
   * Markdown links by slug path (and `/pages/<id>`) need the pages they name. The targets its links
   * name are found first and looked up in the tree, so a page's conversion reads only what it links
   * to; a target the scan missed is looked up after a first conversion, which is then done again.
   */
  private async convertMarkdown(source: string, parentPath: string, urls: ReadonlySet<string> = new Set(), linkTarget?: (href: string) => string | null) {
    const markdown = source;
    const known = new Map<string, string | undefined>();
    const resolve = async (targets: Iterable<string>) => {
      for (const target of targets) {
        if (known.has(target)) continue;
        const [kind, value] = splitTarget(target);
        known.set(target, kind === 'id' ? ((await this.tree.page(value)) ? value : undefined) : await this.pageAtPath(value));
      }
    };
    await resolve(scanLinkTargets(markdown, parentPath, linkTarget));
    for (let attempt = 0; ; attempt++) {
      const missed = new Set<string>();
      const converted = markdownToDocument(markdown, { resolveLink: this.linkResolver(parentPath, known, missed, urls, linkTarget) });
      if (missed.size === 0 || attempt > 0) return converted;
      await resolve(missed);
    }
  }

  /** The page at a slug path of the tree being edited (`guides/install`), if any. */
  private async pageAtPath(path: string): Promise<string | undefined> {
    let parent = ROOT;
    for (const segment of path.split('/').filter(Boolean)) {
      const match = (await this.tree.children(parent)).find(([, slug]) => slug === segment);
      if (!match) return undefined;
      parent = match[0];
    }
    return parent === ROOT ? undefined : parent;
  }

  /**
   * Batch refs (`./<ref>`, `<ref>.md`), `/pages/<id or slug path>`, `/files/<id>`, slug paths and
   * relative `.md` links, answered from `known` (targets looked up beforehand); what it lacks goes to `missed`.
   * An href the page's previous document held as a URL (`urls`) stays one: a Git file's link to no file of the
   * repository (`asciidoc.md`, none there) is read back from the page's Markdown as written, and resolved by slug
   * path it became a link to another page (`syntax/asciidoc.md`) on the page's first edit.
   */
  private linkResolver(parentPath: string, known: Map<string, string | undefined>, missed: Set<string>, urls: ReadonlySet<string>, linkTarget?: (href: string) => string | null): LinkResolver {
    const ask = (target: string) => {
      if (!known.has(target)) missed.add(target);
      return known.get(target);
    };
    const byPath = createPathLinkResolver({ lookup: (path) => ask(`path:${path}`), base: parentPath });
    const refIds = new Set(this.pageRefs.values());
    return (written): ContentRef | null => {
      const target = linkTarget?.(written);
      // A Git file's relative link to no file of the repository (`../#execute` into a folder without a README) stays
      // the URL it is: by slug path it led to another page (the grandparent), written back differently on the
      // page's first edit (Mintbase's SDK reference, 19 pages).
      if (linkTarget && target === null && isRelativeFileLink(written)) return null;
      const href = target ?? written;
      const local = href.replace(/^\.\//, '');
      const [name, anchor] = local.split('#', 2);
      const pageRef = this.pageRefs.get(name) ?? this.pageRefs.get(name.replace(/\.md$/i, ''));
      if (pageRef) return anchor ? { kind: 'anchor', anchor, page: pageRef } : { kind: 'page', page: pageRef };
      const fileRef = this.fileRefs.get(name);
      if (fileRef) return { kind: 'file', file: fileRef };
      if (urls.has(href)) return null;
      const pages = /^\/pages\/([^#?]+)(?:#(.*))?$/.exec(href);
      if (pages) {
        const [, rest, hash] = pages;
        // An id a path of this conversion resolved to (a kept line's link, written by id: round-trip.ts) is a page.
        const resolved = refIds.has(rest) || [...known.values()].includes(rest);
        if (resolved || ask(`id:${rest}`) !== undefined) return hash ? { kind: 'anchor', anchor: hash, page: rest } : { kind: 'page', page: rest };
        return byPath(`/${rest}${hash ? `#${hash}` : ''}`) ?? null;
      }
      return byPath(href);
    };
  }
}

/**
 * A link written as a path of the repository relative to the page, to a Markdown file or a folder (`../x.md`, `a/`,
 * `../#b`): not an anchor, a root path, a URL with a scheme, or a bare word (`install`, which a slug path may name).
 */
function isRelativeFileLink(href: string): boolean {
  const written = href.startsWith('<') && href.endsWith('>') ? href.slice(1, -1) : href;
  if (/^(?:[a-z][a-z0-9+.-]*:|\/|#)/i.test(written)) return false;
  const path = written.replace(/[?#].*$/, '');
  return path !== '' && (/\.md$/i.test(path) || /(?:^|\/)\.{0,2}$/.test(path));
}

/** The hrefs of a document's links (and other refs) to URLs, as its Markdown writes them. */
function urlHrefsOf(document: JSONDocument | undefined): Set<string> {
  const urls = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    const { data, nodes, fragments } = value as { data?: { ref?: ContentRef }; nodes?: unknown; fragments?: unknown };
    if (data?.ref?.kind === 'url' && typeof data.ref.url === 'string') urls.add(data.ref.url);
    visit(nodes);
    visit(fragments);
  };
  visit(document?.nodes);
  return urls;
}

function splitTarget(target: string): ['id' | 'path', string] {
  const at = target.indexOf(':');
  return [target.slice(0, at) as 'id' | 'path', target.slice(at + 1)];
}

/** `a.md`, `./a` and `a` name the same page path. */
function normalizeRefPath(ref: string): string {
  return ref.replace(/^\.\//, '').replace(/\.md$/i, '');
}

/** Link targets written in Markdown (inline, reference definitions, HTML attributes and GitBook tags). */
const LINK_TARGETS = [/\]\(\s*<?([^)\s>]+)/g, /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm, /\b(?:href|src)\s*=\s*"([^"]+)"/g];

/** What a Markdown text's links may point at (`path:<slug path>`, `id:<page id>`): to look up before converting it. */
export function scanLinkTargets(markdown: string, parentPath: string, linkTarget?: (href: string) => string | null): string[] {
  const targets = new Set<string>();
  for (const pattern of LINK_TARGETS) {
    for (const match of markdown.matchAll(pattern)) {
      const href = linkTarget?.(match[1]) ?? match[1];
      const pages = /^\/pages\/([^#?]+)/.exec(href);
      if (pages) targets.add(`id:${pages[1]}`);
      const target = linkedPagePath(pages ? `/${pages[1]}` : href, parentPath);
      if (target) targets.add(`path:${target.path}`);
    }
  }
  return [...targets];
}

const COMPUTED_WITHOUT_DOCUMENT = 'a computed page has no document of its own: omit document (or send {}) with computed';
const GROUP_AT_TOP_LEVEL = 'a group is at the top level only (into: null), and holds no group';

/** A group (GitBook's RevisionPageGroup) has a title, emoji, icon, slug and flags: no body, source, target or description. */
function refuseGroupContent(change: { document?: DocumentInput; computed?: unknown; link?: unknown; description?: string }, what: string) {
  if (hasBody(change.document)) throw badRequest(`${what} has no document: omit document (or send {})`);
  if (change.computed) throw badRequest(`${what} cannot be computed`);
  if (change.link) throw badRequest(`${what} cannot be a link`);
  if (change.description) throw badRequest(`${what} has no description`);
}

/** A document input with a body (Markdown or a document), not `{}`. */
function hasBody(input: DocumentInput | undefined): boolean {
  return !!input && ('markdown' in input || 'document' in input);
}

function refuseComputedParent(parent: PageRecord) {
  if (parent.computed) {
    throw badRequest(`page "${parent.id}" is computed (an API reference generated from an OpenAPI spec): it cannot have child pages`);
  }
  // GitBook's link page has no child pages: reads would not show them.
  if (parent.link) throw badRequest(`page "${parent.id}" is a link page: it cannot have child pages`);
}

function emptyDocument(): JSONDocument {
  return { object: 'document', data: {}, nodes: [] };
}

function checkIndex(at: number | undefined, length: number): number | undefined {
  if (at === undefined) return undefined;
  if (at > length) throw badRequest(`at ${at} is past the end (${length} sibling page(s))`);
  return at;
}

function checkSlug(slug: string, siblings: ChildRef[], self?: string): string {
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(slug)) throw badRequest(`slug "${slug}" may only contain letters, digits, ".", "_" and "-"`);
  if (siblings.some(([id, other]) => other === slug && id !== self)) throw badRequest(`slug "${slug}" is already used by a sibling page`);
  return slug;
}

/** Frontmatter keys GitBook's Git Sync reads as page metadata. */
function frontmatterMetadata(frontmatter: Record<string, unknown>, page: PageFrontmatter): PageMetadataInput {
  const out: PageMetadataInput = {};
  const { description, layout, if: condition } = page;
  if (description !== undefined) out.description = description;
  for (const key of ['icon', 'emoji'] as const) if (typeof frontmatter[key] === 'string') out[key] = frontmatter[key] as string;
  for (const key of ['hidden', 'noIndex', 'noRobotsIndex'] as const) if (typeof frontmatter[key] === 'boolean') out[key] = frontmatter[key] as boolean;
  if (layout) out.layout = layout;
  // GitBook's `if:` shows the page only where it holds: the page's condition, checked as conditions are.
  if (condition !== undefined) out.condition = normalizeCondition(condition, 'if') ?? '';
  return out;
}

/** Sets what the change gives; an empty string removes the link title, emoji, icon, description and condition. */
function applyMetadata(page: PageRecord, input: PageMetadataInput) {
  for (const key of METADATA_KEYS) {
    const value = input[key];
    if (value === undefined) continue;
    if (value === '' && key !== 'title') delete page[key];
    else (page as unknown as Record<string, unknown>)[key] = value;
  }
}
