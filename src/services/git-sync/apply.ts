import { and, eq, getTableColumns, gt, sql } from 'drizzle-orm';
import { createDb, rawRun, runBatch, type BatchItem, type Db } from '../../db/client';
import { gitSyncEntries, gitSyncImportProgress, gitSyncImportRows, gitSyncOperations, revisionGit, siteStructureGuard, spaces } from '../../db/schema/index';
import type { Env } from '../../env';
import { ApiError, badRequest } from '../../lib/errors';
import { nowIso } from '../../lib/time';
import { newId } from '../../lib/ids';
import { applyContentBatch, type ContentChange } from '../content/batch';
import { storeFiles } from '../content/files';
import { assertContentCaps, assertMoved, newRevision } from '../content/head-moves';
import { ContentTree, ROOT } from '../content/pages';
import { asDelta, insertDocuments, loadDeltaBases, loadDocuments } from '../content/revisions';
import { d1NodeStore } from '../content/tree';
import { contentUpdatedEvents, enqueueEvents, eventIdsOf } from '../integrations/events';
import { capOf } from '../limits/caps';
import { toStoredDocument, type FileEntry, type GitSyncBlob, type ReusableContentEntry, type StoredDocument } from '../content/revisions';
import type { RevisionMeta } from '../content/convert';
import { beginsWithTitleHeading, defaultResolveLink, markdownToDocument } from '../markdown/index';
import { headSignature, importProgressOf, loadSyncedHead, loadSyncedSpace, type SyncedSpace } from './content';
import { includeTitleOf, type ImportFilePlan, type ImportIncludePlan, type ImportPagePlan } from './import';
import { basename, CONFIG_ENTRY_PATH, isPathlessKey, linkedTarget, placeOf, rewriteLinks } from './layout';
import { redirectStatements, siteSpacesOf } from './redirects';
import { hasMarkdown, type MarkdownSource, type PageLinks } from './markdown-parcels';

/**
 * What the space's writer (SpaceWriter) runs for Git Sync: an import's content batch as one new revision on
 * the head the plan was made on, and the revision's git metadata, in one D1 batch; the head moves only if it
 * is still where the plan read it (compare-and-set), and not at all for a standalone import. The paths the
 * sync leaves (git_sync_entries) are replaced in the same batch. Each page, file and reusable content read from
 * the repository records its blob and path (GitBook's `git: {oid, path}`), which the published site's edit links use.
 */

export interface GitImportTarget {
  spaceId: string;
  userId: string;
  operationId: string;
  expectedHead: string;
  standalone: boolean;
  /**
   * This call's slice of the import's changes (GitImportProgress): the changes from index `from` of the whole list on.
   * A one-call import sends them all (`from` 0 or absent).
   */
  changes: ContentChange[];
  from?: number;
  /** Every batch ref of the import's new pages, in order: the first call gives each its page id (links of one slice name pages of others). Absent: those of `changes`. */
  refs?: string[];
  /** The pages whose git metadata and git_sync_entries rows this call makes (those its changes touch last, and a share of the others). */
  pages: ImportPagePlan[];
  files: ImportFilePlan[];
  /** Files the import stored in R2 (their bytes never travel here): added to the revision with the ids the plan gave them, by the first call. */
  newFiles: FileEntry[];
  includes: ImportIncludePlan[];
  droppedIncludes: string[];
  /** Files an earlier sync made that the repository deleted (import.ts droppedFilesOf): removed by the first slice. */
  droppedFiles?: string[];
  /** What the plan's paths (from the content root) are under in the repository: the project directory and `root`. */
  pathPrefix: string;
  /** `.gitbook.yaml`'s redirects: old path -> file (from the content root). */
  redirects: Record<string, string>;
  /** `.gitbook.yaml` where it is not GitBook's default: recorded (an entry of kind `config`) for the exports. */
  config?: { oid: string; text: string } | null;
  git: { oid: string; message: string; url: string | null; ref: string; createdByGitBook: boolean };
  /**
   * The operation's time limit (an ISO instant): a call after it is refused (IMPORT_PAST_DEADLINE), and the last call's
   * batch moves the head only while the operation is still `running`, so an import that ended `timeout` shows nothing.
   */
  deadline?: string;
  /**
   * With it, the changes' Markdown stays in the repository's blobs in the queue consumer (each `{ markdown }` sent empty:
   * import.ts, markdown-parcels) and the writer reads it as the conversion reaches it, a parcel at a time: the writer's
   * request carries none of it. Indexed in the whole change list.
   */
  pullMarkdown?: MarkdownSource;
}

/**
 * Where an import applied in several writer calls stands between them (issue 40: a Durable Object's request has 30 s of
 * CPU by default, and converting 5,000 pages takes minutes of it), kept in D1 (git_sync_import_progress, migration 0164)
 * rather than sent with each call: a call receives only its slice, and a queue message delivered again continues from
 * the last slice stored. Each call but the last applies a slice of the changes to the tree the previous one left, stores
 * that tree's nodes and the slice's documents (content-addressed, named by no revision: invisible, and collected if the
 * import never ends), and the git_sync_entries rows of its pages and files (git_sync_import_rows); the last applies the
 * rest, makes the revision, copies the rows and moves the head in one batch. So the head move stays one compare-and-set,
 * no call holds every page's record, and an import that fails (or whose head moved meanwhile) leaves the space as it was.
 */
export interface GitImportProgress {
  /** The head the import is applied on, and the commit it imports: a progress of another plan is not continued. */
  expectedHead: string;
  commit: string;
  /** The tree after the changes applied so far (its nodes stored). */
  roots: { pages: string | null; files: string | null };
  /** The changes applied so far are those before this index. */
  next: number;
  /** The time the import's pages are stamped with (the first call's). */
  now: string;
  /** Every ref of the import -> the page id the first call gave it. */
  refIds: Record<string, string>;
  pageDelta: number;
  /** New files (the first call's) included. */
  fileDelta: number;
  oversized: string[];
  documentBatches: number;
  documentDeltas: number;
}

/** A call that starts where the stored progress of its import is not (another run of it went on, or it was restarted). */
export const IMPORT_PROGRESS_MOVED = 412;
/** A call of an import past its operation's time limit, or whose operation ended meanwhile (timed out): nothing of it applied. */
export const IMPORT_PAST_DEADLINE = 408;

/** Refuses a call of an import whose operation's time is up (its consumer ends the operation `timeout`). */
function assertBeforeDeadline(target: GitImportTarget) {
  if (target.deadline && nowIso() >= target.deadline) throw new ApiError(IMPORT_PAST_DEADLINE, `the import passed its time limit (${target.deadline}): nothing of it was applied`);
}

/**
 * The last batch's guard: the batch fails (and rolls back whole: no revision, no rows, no head move) unless the operation is
 * still `running` (for a target with a deadline: a queued operation's). A run that ended `timeout` (its limit passed, or a later message of the space found it stale) while
 * this call converted must not make the import visible after git/info said it timed out. The guard table's CHECK (ok = 1)
 * is the one site structure writes use (db/schema/sites.ts).
 */
function operationRunningGuard(db: Db, target: GitImportTarget): BatchItem[] {
  // A target without a deadline is no queued operation's (the writer's own tests call it directly): nothing to guard.
  if (!target.deadline) return [];
  const operationId = target.operationId;
  return [
    db.insert(siteStructureGuard).select(
      db
        .select({ ok: sql<number>`count(*)`.as('ok') })
        .from(gitSyncOperations)
        .where(and(eq(gitSyncOperations.id, operationId), eq(gitSyncOperations.state, 'running'))),
    ),
    db.delete(siteStructureGuard),
  ];
}

/** The guard's failure as the import's answer (IMPORT_PAST_DEADLINE); any other error as it is. */
async function guardedBatch(db: Db, statements: BatchItem[]) {
  try {
    return await runBatch(db, statements);
  } catch (error) {
    if (String((error as Error)?.message ?? error).includes('CHECK constraint failed')) {
      throw new ApiError(IMPORT_PAST_DEADLINE, 'the operation ended (timed out) while its last call ran: nothing of the import was applied');
    }
    throw error;
  }
}

/**
 * Each change with its Markdown, read from `source` a parcel at a time (none held past the change that needs it), and
 * whether each page's Markdown begins with a heading 1 (recorded as it goes: the import's entries say it).
 */
function markdownReader(source: MarkdownSource | undefined) {
  const parcel = new Map<number, [string, PageLinks?]>();
  const titleHeadingOf = new Map<string, boolean>();
  // The document input of each change whose page links to files of the repository -> what they lead to (linkTargetOf).
  const linksOf = new WeakMap<object, PageLinks>();
  return {
    titleHeadingOf,
    async prepare(change: ContentChange, index: number): Promise<ContentChange> {
      if (!hasMarkdown(change)) return change;
      let markdown = change.document.markdown;
      let links: PageLinks | undefined;
      if (source) {
        if (!parcel.has(index)) {
          parcel.clear();
          for (const [at, text, pageLinks] of await source(index)) parcel.set(at, [text, pageLinks]);
        }
        const read = parcel.get(index);
        if (read === undefined) throw new Error(`the Markdown of change ${index} did not come from the queue consumer`);
        [markdown, links] = read;
        parcel.delete(index);
      }
      const key = change.operation === 'insert_page' ? change.ref : change.page;
      if (key) titleHeadingOf.set(key, beginsWithTitleHeading(markdown));
      if (!source) return change;
      const document = { markdown };
      if (links) linksOf.set(document, links);
      return { ...change, document };
    },
    /** What a link of the page converted from `input` leads to by its file's path (`_gp3`, `/pages/<id>`, `/files/<id>`). */
    linkTargetOf(input: object): ((href: string) => string | null) | undefined {
      const links = linksOf.get(input);
      return links && ((href) => linkedTarget(href, links.path, (path) => links.targets[path] ?? null));
    },
  };
}

/** Removes the space's files of `ids` that it still has; answers how many it had. */
async function dropFiles(tree: ContentTree, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const had = await tree.files.getMany(ids);
  for (const id of had.keys()) tree.files.delete(id);
  return had.size;
}

export interface GitImportOutput {
  revision: string;
  /** What the import could not do (a redirect to no page). */
  warnings: string[];
  /** The D1 batches that stored the import's documents and nodes before the revision's (the operation's stats say them). */
  documentBatches: number;
  /** Of the documents stored, those stored as deltas of their page's previous version (a changed page's). */
  documentDeltas: number;
}

/** The row that keeps the import's `.gitbook.yaml` (layout.ts CONFIG_ENTRY_PATH), if it has one to keep. */
const configRows = (target: GitImportTarget): Array<typeof gitSyncEntries.$inferInsert> =>
  target.config ? [{ spaceId: target.spaceId, path: CONFIG_ENTRY_PATH, kind: 'config', targetId: '', oid: target.config.oid, hash: null, text: target.config.text }] : [];

/** Rows of git_sync_entries, each statement under D1's 100 bound parameters. */
export function entryStatements(db: ReturnType<typeof createDb>, spaceId: string, rows: Array<typeof gitSyncEntries.$inferInsert>): BatchItem[] {
  const out: BatchItem[] = [db.delete(gitSyncEntries).where(eq(gitSyncEntries.spaceId, spaceId))];
  // Every column of a row is a bound parameter (defaults too: drizzle binds them).
  const perStatement = Math.floor(100 / Object.keys(getTableColumns(gitSyncEntries)).length);
  for (let i = 0; i < rows.length; i += perStatement) out.push(db.insert(gitSyncEntries).values(rows.slice(i, i + perStatement)));
  return out;
}

/**
 * The import's last batch leaves git_sync_entries as the sync left the repository: the reusable contents', redirects'
 * and configuration's rows (few) written again, and every slice's rows of pages and files (git_sync_import_rows) copied
 * where they differ from the row the path has. A re-import after a one-page push wrote every page's and file's row
 * again, unchanged but for one (issue 40: a 200-page space, 400 rows deleted and inserted for one page); now the rows
 * of the paths it changed, added or removed.
 */
function syncedEntryStatements(db: Db, target: GitImportTarget, rows: Array<typeof gitSyncEntries.$inferInsert>): BatchItem[] {
  const { spaceId, operationId } = target;
  const synced = sql`git_sync_entries.space_id = ${spaceId} and git_sync_entries.kind in ('page', 'file')`;
  const sameRow = sql`r.operation_id = ${operationId} and r.path = git_sync_entries.path and r.kind = git_sync_entries.kind and r.target_id = git_sync_entries.target_id
    and r.oid is git_sync_entries.oid and r.hash is git_sync_entries.hash and r.title_heading is git_sync_entries.title_heading and r.head is git_sync_entries.head
    and r.place is git_sync_entries.place and git_sync_entries.text is null`;
  const perStatement = Math.floor(100 / Object.keys(getTableColumns(gitSyncEntries)).length);
  const out: BatchItem[] = [
    db.delete(gitSyncEntries).where(and(eq(gitSyncEntries.spaceId, spaceId), sql`${gitSyncEntries.kind} not in ('page', 'file')`)),
    rawRun(db, sql`delete from git_sync_entries where ${synced} and not exists (select 1 from git_sync_import_rows r where ${sameRow})`),
  ];
  for (let i = 0; i < rows.length; i += perStatement) out.push(db.insert(gitSyncEntries).values(rows.slice(i, i + perStatement)));
  out.push(
    rawRun(
      db,
      sql`insert into git_sync_entries (space_id, path, kind, target_id, oid, hash, title_heading, head, place)
        select ${spaceId}, r.path, r.kind, r.target_id, r.oid, r.hash, r.title_heading, r.head, r.place from git_sync_import_rows r
        where r.operation_id = ${operationId} and not exists (select 1 from git_sync_entries e where e.space_id = ${spaceId} and e.path = r.path)`,
    ),
  );
  return out;
}

/**
 * What an import holds before it stores it, one D1 batch each: `documents` page documents (packed) or `statements`
 * rows in all (tree nodes are small: a 100-page tree has ~150), or `bytes` of them. Every statement binds four
 * parameters (D1 allows 100) and a row is under D1's 2 MB (a document is under MAX_DOCUMENT_BYTES). What an import
 * holds of its documents is this, whatever the number of its pages.
 */
export const IMPORT_DOCUMENT_CHUNK = { documents: 32, statements: 200, bytes: 256 * 1024 };

/**
 * Documents and tree nodes stored as they are made, in chunks of IMPORT_DOCUMENT_CHUNK (services/content
 * insertDocuments: content-addressed, so a chunk stored twice or shared with another space changes nothing). They are
 * stored before the revision that names them, in the same run of the space's writer (so history collection, which
 * runs there too, cannot take them meanwhile); until the revision's batch moves the head nobody reads them, and an
 * import that fails leaves them to history collection, referenced by no revision.
 */
export function chunkedDocumentWriter(db: Db, spaceId: string, now: string, chunk = IMPORT_DOCUMENT_CHUNK) {
  let pending: StoredDocument[] = [];
  /** A pending document -> the document its page had: stored as a delta of that one's base where smaller. */
  let replacing = new Map<string, string>();
  let bytes = 0;
  let packed = 0;
  let batches = 0;
  let stored = 0;
  let deltas = 0;
  /**
   * A changed page's document as a delta of its previous version's base, as a content edit stores it (document-deltas;
   * the bases of a chunk read in one statement, or none when this writer stored them): a re-import that changed one page
   * stores about what changed in it, not the whole page. insertDocuments keeps the tenancy rule: a delta only onto a
   * base still stored, and a document another space stored as a delta of a base this space does not refer to is made whole.
   */
  const asDeltas = async (documents: StoredDocument[], previous: Map<string, string>) => {
    if (previous.size === 0) return documents;
    const bases = await loadDeltaBases(db, [...new Set(previous.values())]);
    return documents.map((document) => {
      const replaced = previous.get(document.hash);
      // The same document held again for a new page has let its JSON go (`add`): stored as it is packed, since a delta
      // made of no JSON would be an empty one (gitprobe16a: a changed page and a new page of one push, same content).
      if (replaced === undefined || document.body === '') return document;
      const { body: _json, ...made } = asDelta(document, bases.get(replaced));
      if (made.base) deltas++;
      return { ...made, body: '' };
    });
  };
  const flush = async () => {
    if (pending.length === 0) return;
    const [documents, previous] = [pending, replacing];
    pending = [];
    replacing = new Map();
    bytes = 0;
    packed = 0;
    await runBatch(db, insertDocuments(db, spaceId, await asDeltas(documents, previous), now));
    batches++;
    stored += documents.length;
  };
  return {
    /** `replaces`: the document the page had (batch.ts storeDocument). */
    async add(document: StoredDocument, replaces?: string): Promise<void> {
      const delta = Boolean(document.packed && replaces && replaces !== document.hash);
      // What is stored is the packed form: the JSON text is let go here (a node has only its text), unless a delta is made of it.
      const kept: StoredDocument = document.packed && !delta ? { hash: document.hash, body: '', packed: document.packed, refs: document.refs } : document;
      pending.push(kept);
      if (delta) replacing.set(document.hash, replaces!);
      bytes += (kept.packed?.byteLength ?? 0) + kept.body.length;
      if (kept.packed) packed++;
      if (packed >= chunk.documents || pending.length >= chunk.statements || bytes >= chunk.bytes) await flush();
    },
    flush,
    /** D1 batches, documents and, of them, deltas stored so far. */
    get stats() {
      return { batches, documents: stored, deltas };
    },
  };
}

/** The space as the import's plan read it: refused if it was deleted or its head moved since (the plan is made again). */
async function plannedSpace(db: Db, target: GitImportTarget) {
  const space = await loadSyncedHead(db, target.spaceId);
  if (space.deleted) throw badRequest('This space is deleted: restore it first');
  if (space.head.id !== target.expectedHead) throw new ApiError(409, 'the space changed while the repository was read: the import is planned again');
  return space;
}

/** The progress a call starting at `from` continues: none for the first; refused unless the stored one ends there, for the same head and commit. */
async function progressToContinue(db: Db, target: GitImportTarget): Promise<GitImportProgress | null> {
  const from = target.from ?? 0;
  if (from === 0) return null;
  const stored = (await importProgressOf(db, target.operationId)) as GitImportProgress | null;
  if (!stored || stored.next !== from || stored.expectedHead !== target.expectedHead || stored.commit !== target.git.oid) {
    throw new ApiError(IMPORT_PROGRESS_MOVED, `the import's slices stored end at ${stored ? stored.next : 'none'}, not at change ${from}: another run of the operation went on with it`);
  }
  return stored;
}

const refsOf = (changes: ContentChange[]) => changes.flatMap((c) => (c.operation === 'insert_page' && c.ref !== undefined ? [c.ref] : []));

/**
 * Refuses a ref that is the path of a page already in `tree` (what content/batch's assignRefs refuses in an editor's
 * batch: a link to it would name two pages). The first call checks every ref against the head; each later one checks
 * its own refs against the tree the earlier slices left, which holds the pages they made.
 */
async function claimRefs(tree: ContentTree, refs: string[], from: number, changes: ContentChange[]) {
  const rootSlugs = new Set((await tree.children(ROOT)).map(([, slug]) => slug));
  for (const ref of refs) {
    const segments = ref.replace(/^\.\//, '').replace(/\.md$/i, '').split('/').filter(Boolean);
    if (segments.length === 0 || !rootSlugs.has(segments[0])) continue;
    let parent: string | undefined = ROOT;
    for (const segment of segments) parent = parent && (await tree.children(parent)).find(([, slug]) => slug === segment)?.[0];
    if (!parent) continue;
    const index = changes.findIndex((c) => c.operation === 'insert_page' && c.ref === ref);
    throw badRequest(`changes[${from + Math.max(index, 0)}]: ref "${ref}" collides with the path of an existing page`);
  }
}

/**
 * Applies the call's slice of changes on the tree the stored progress left (the head's for the first call), documents
 * stored as they are made; then the git metadata of the call's pages and files set and their rows made.
 */
async function applySlice(env: Env, db: Db, target: GitImportTarget, documents: ReturnType<typeof chunkedDocumentWriter>) {
  assertBeforeDeadline(target);
  const space = await plannedSpace(db, target);
  const progress = await progressToContinue(db, target);
  const from = target.from ?? 0;
  const store = d1NodeStore(db);
  const now = progress?.now ?? nowIso();
  const tree = new ContentTree(store, progress?.roots ?? space.head);
  const markdown = markdownReader(target.pullMarkdown);
  const oversized = [...(progress?.oversized ?? [])];
  let refIds = progress?.refIds;
  if (!refIds) {
    const refs = target.refs ?? refsOf(target.changes);
    await claimRefs(tree, refs, from, target.changes);
    refIds = Object.fromEntries(refs.map((ref) => [ref, newId()]));
  } else await claimRefs(tree, refsOf(target.changes), from, target.changes);
  // The files first: the pages' links name them by id.
  // One with an id the space has (an asset replaced with git keeps its file's id) replaces that file: not counted again.
  const replacedFiles = progress ? 0 : (await tree.files.getMany(target.newFiles.map((file) => file.id))).size;
  if (!progress) for (const file of target.newFiles) tree.files.set(file.id, file);
  const droppedFiles = progress ? 0 : await dropFiles(tree, target.droppedFiles ?? []);
  const result = await applyContentBatch(tree, target.changes, {
    baseTree: () => new ContentTree(store, space.head),
    revisionTrees: new Map(),
    loadDocument: async (hash) => (await loadDocuments(db, [hash])).get(hash),
    maxFileBytes: capOf(env, 'bytesPerFile'),
    now,
    unbounded: true,
    storeDocument: (stored, replaces) => documents.add(stored, replaces),
    prepare: (change, index) => markdown.prepare(change, from + index),
    linkTargetOf: (input) => markdown.linkTargetOf(input),
    // A new page is made empty; a page already here keeps its document (the batch applies the change with `{}`).
    oversizedDocument: (change, message) => oversized.push(`${fileOfChange(target, change)}: ${change.operation === 'insert_page' ? 'imported as an empty page' : 'not updated, the page keeps its content'} (${message.replace(/^document: /, '')})`),
    refIds: new Map(Object.entries(refIds)),
    // A page that cannot be read fails the import with its file named, which is what its author has to fix.
    nameChange: (change) => (change.operation === 'insert_page' || change.operation === 'update_page' ? fileOfChange(target, change) : undefined),
  });
  const pageDelta = (progress?.pageDelta ?? 0) + result.pageDelta;
  const fileDelta = (progress?.fileDelta ?? target.newFiles.length - replacedFiles - droppedFiles) + result.fileDelta;
  const counts = { pageCount: space.head.pageCount + pageDelta, fileCount: space.head.fileCount + fileDelta };
  assertContentCaps(env, space.head, counts);
  await storeFiles(env.FILES, result.files);
  const rows = await gitRowsOf(db, target, tree, refIds, markdown.titleHeadingOf);
  const written = await tree.write();
  for (const node of written.nodes) await documents.add(node);
  const next: GitImportProgress = {
    expectedHead: target.expectedHead,
    commit: target.git.oid,
    roots: { pages: written.pages, files: written.files },
    next: from + target.changes.length,
    now,
    refIds,
    pageDelta,
    fileDelta,
    oversized,
    documentBatches: progress?.documentBatches ?? 0,
    documentDeltas: progress?.documentDeltas ?? 0,
  };
  return { space, written, counts, rows, progress: next, now };
}

type ImportRow = typeof gitSyncImportRows.$inferInsert;

/**
 * The call's pages and files get their `git: {oid, path}` (where it is not already that), and their git_sync_entries
 * rows as this slice leaves them (no later slice touches them: the consumer gives a page to the slice of its last change).
 * Whether a page's file begins with a heading 1: from the Markdown this call converted, or what the last sync recorded
 * for its path (its blob did not change), or true (a group).
 */
async function gitRowsOf(db: Db, target: GitImportTarget, tree: ContentTree, refIds: Record<string, string>, converted: Map<string, boolean>): Promise<ImportRow[]> {
  const gitOf = (path: string, oid: string): GitSyncBlob => ({ oid, path: `${target.pathPrefix}${path}` });
  const same = (a: GitSyncBlob | undefined, b: GitSyncBlob) => a?.oid === b.oid && a?.path === b.path;
  const ids = target.pages.map((p) => p.page ?? refIds[p.ref!]);
  const records = await tree.pagesById(ids.filter(Boolean));
  const recorded = await recordedTitleHeadings(db, target.spaceId, target.pages.filter((p) => !converted.has(p.page ?? p.ref ?? '')).map((p) => p.key));
  const rows: ImportRow[] = [];
  for (const [i, plan] of target.pages.entries()) {
    const id = ids[i];
    if (!id) continue;
    let record = records.get(id);
    // A group (no file) has no blob; a page records where it was read from.
    if (record && !isPathlessKey(plan.key) && !same(record.git, gitOf(plan.key, plan.oid))) {
      record = { ...record, git: gitOf(plan.key, plan.oid) };
      tree.pages.set(id, record);
    }
    const titleHeading = converted.get(plan.page ?? plan.ref ?? '') ?? recorded.get(plan.key) ?? true;
    // A page whose file did not change keeps the hash it was synced with: an edit the space has not exported stays one.
    const hash = plan.synced !== undefined ? plan.synced : (record?.document ?? null);
    rows.push({ operationId: target.operationId, path: plan.key, kind: 'page', targetId: id, oid: plan.oid, hash, titleHeading, head: record ? await headSignature(record) : null, place: record ? placeOf(record.parent, record.slug) : null });
  }
  const files = await tree.files.getMany(target.files.map((plan) => plan.file));
  for (const plan of target.files) {
    const entry = files.get(plan.file);
    if (entry && !plan.copy && !same(entry.git, gitOf(plan.path, plan.oid))) tree.files.set(plan.file, { ...entry, name: movedFileName(entry, plan.path), git: gitOf(plan.path, plan.oid) });
    rows.push({ operationId: target.operationId, path: plan.path, kind: 'file', targetId: plan.file, oid: plan.oid, hash: null });
  }
  return rows;
}

/**
 * A file a push moved (GitBook's second upload of `shot.png` moves the first to `shot (1).png`) is named after its new
 * path, as a fresh import names it, while it was named after its old one; a name given in the app stays.
 */
function movedFileName(entry: FileEntry, path: string): string {
  return entry.git && entry.name === basename(entry.git.path) ? basename(path) : entry.name;
}

/** What the last sync recorded of whether each path's file began with a heading 1 (one statement: the paths as one JSON parameter). */
async function recordedTitleHeadings(db: Db, spaceId: string, paths: string[]): Promise<Map<string, boolean>> {
  if (paths.length === 0) return new Map();
  const rows = await db
    .select({ path: gitSyncEntries.path, titleHeading: gitSyncEntries.titleHeading })
    .from(gitSyncEntries)
    .where(and(eq(gitSyncEntries.spaceId, spaceId), eq(gitSyncEntries.kind, 'page'), sql`${gitSyncEntries.path} in (select value from json_each(${JSON.stringify(paths)}))`));
  return new Map(rows.map((r) => [r.path, r.titleHeading]));
}

/** Statements storing an import's rows, each under D1's 100 bound parameters; a slice applied again (a resumed import) writes its rows again. */
function importRowStatements(db: Db, rows: ImportRow[]): BatchItem[] {
  const perStatement = Math.floor(100 / Object.keys(getTableColumns(gitSyncImportRows)).length);
  const out: BatchItem[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    out.push(
      db
        .insert(gitSyncImportRows)
        .values(rows.slice(i, i + perStatement))
        .onConflictDoUpdate({
          target: [gitSyncImportRows.operationId, gitSyncImportRows.path],
          set: { kind: sql`excluded.kind`, targetId: sql`excluded.target_id`, oid: sql`excluded.oid`, hash: sql`excluded.hash`, titleHeading: sql`excluded.title_heading`, head: sql`excluded.head`, place: sql`excluded.place` },
        }),
    );
  }
  return out;
}

/** The import's stored rows and progress deleted (its end, whatever the outcome; or a first slice starting it again). */
export function importStateDeletions(db: Db, operationId: string): BatchItem[] {
  return [db.delete(gitSyncImportRows).where(eq(gitSyncImportRows.operationId, operationId)), db.delete(gitSyncImportProgress).where(eq(gitSyncImportProgress.operationId, operationId))];
}

/**
 * One slice of a large import (GitImportProgress): the target's changes (from `target.from`) applied to the tree the
 * previous slice left, that tree's nodes, the slice's documents and its rows stored, and where the import stands, in
 * one batch; nothing any revision names yet. Answers the index of the next change.
 */
export async function continueGitImport(env: Env, target: GitImportTarget): Promise<{ next: number }> {
  const db = createDb(env.DB);
  const documents = chunkedDocumentWriter(db, target.spaceId, nowIso());
  const slice = await applySlice(env, db, target, documents);
  await documents.flush();
  const progress = { ...slice.progress, ...documentStats(documents, slice.progress) };
  const now = nowIso();
  await runBatch(db, [
    ...((target.from ?? 0) === 0 ? importStateDeletions(db, target.operationId) : []),
    ...importRowStatements(db, slice.rows),
    db
      .insert(gitSyncImportProgress)
      .values({ operationId: target.operationId, spaceId: target.spaceId, progress, updatedAt: now })
      .onConflictDoUpdate({ target: gitSyncImportProgress.operationId, set: { progress, updatedAt: now } }),
  ]);
  return { next: progress.next };
}

/** A queue consumer's wall-time limit (Cloudflare's): no slice of an import runs after its operation is this old. */
const CONSUMER_WALL_MS = 15 * 60 * 1000;

/**
 * Whether an import of the space is running (its slices may have stored what no revision names yet: history collection
 * waits). One older than a consumer can run is not.
 */
export async function importInProgress(db: Db, spaceId: string): Promise<boolean> {
  const since = new Date(Date.now() - CONSUMER_WALL_MS).toISOString();
  const row = await db
    .select({ id: gitSyncOperations.id })
    .from(gitSyncOperations)
    .where(and(eq(gitSyncOperations.spaceId, spaceId), eq(gitSyncOperations.direction, 'import'), eq(gitSyncOperations.state, 'running'), gt(gitSyncOperations.createdAt, since)))
    .get();
  return Boolean(row);
}

/**
 * The import's last call (or its only one): its slice applied, then the revision made and, unless standalone, the rows
 * every slice stored copied into git_sync_entries and the head moved, in one batch. It reads back only the few rows it
 * needs (the redirects' targets; every page's and file's id only when a reusable content's Markdown links to them).
 */
export async function applyGitImport(env: Env, target: GitImportTarget): Promise<GitImportOutput> {
  const db = createDb(env.DB);
  const now = nowIso();
  const documents = chunkedDocumentWriter(db, target.spaceId, now);
  const slice = await applySlice(env, db, target, documents);
  const { space, written, counts, rows } = slice;
  const idOf = await importIds(db, target, rows);
  const reusable = await reusableContentsOf(space.head.meta, target, idOf.pages, idOf.files);
  for (const { stored, replaces } of reusable.documents) await documents.add(stored, replaces);
  await documents.flush();
  const stats = documentStats(documents, slice.progress);
  // The revision names its nodes and documents by hash (all stored above): its batch carries none of their bodies.
  const revision = newRevision(db, target.spaceId, 'edits', [space.head.id], { pages: written.pages, files: written.files, meta: reusable.meta, ...counts }, [], slice.now);
  const statements: BatchItem[] = [
    ...revision.statements,
    db.insert(revisionGit).values({ revisionId: revision.id, spaceId: target.spaceId, ...target.git }),
    db.update(gitSyncOperations).set({ revisionId: revision.id }).where(eq(gitSyncOperations.id, target.operationId)),
  ];
  assertBeforeDeadline(target);
  if (target.standalone) {
    await guardedBatch(db, [...operationRunningGuard(db, target), ...statements, ...importStateDeletions(db, target.operationId)]);
    return { revision: revision.id, warnings: slice.progress.oversized, ...stats };
  }
  const redirects = redirectStatements(db, {
    config: { root: '', readme: '', summary: '', redirects: target.redirects },
    pageIdOf: idOf.pages,
    places: await siteSpacesOf(db, target.spaceId),
    previous: await previousRedirects(db, target.spaceId),
    now,
  });
  const reusableRows: Array<typeof gitSyncEntries.$inferInsert> = target.includes.map((plan) => ({
    spaceId: target.spaceId,
    path: plan.path,
    kind: 'reusable',
    targetId: plan.id,
    oid: plan.oid,
    hash: reusable.meta.reusableContents.find((c) => c.id === plan.id)?.document ?? null,
  }));
  // Each keeps its page and its source, for the site spaces placed later (redirects.ts placementRedirectStatements).
  const redirectRows = redirects.written.map((w) => ({ spaceId: target.spaceId, path: `redirect:${w.from}`, kind: 'redirect', targetId: w.pageId, oid: '', hash: null, text: w.source }));
  const results = await guardedBatch(db, [
    ...operationRunningGuard(db, target),
    ...statements,
    ...redirects.statements,
    // A one-call import clears what an earlier plan of the operation stored (its head moved: planned again in one slice).
    ...((target.from ?? 0) === 0 ? importStateDeletions(db, target.operationId) : []),
    ...importRowStatements(db, rows),
    ...syncedEntryStatements(db, target, [...reusableRows, ...redirectRows, ...configRows(target)]),
    ...importStateDeletions(db, target.operationId),
    db
      .update(spaces)
      .set({ revisionId: revision.id, updatedAt: now })
      .where(and(eq(spaces.id, target.spaceId), eq(spaces.revisionId, space.head.id))),
    contentUpdatedEvents(db, target.spaceId, revision.id, target.userId, now),
  ]);
  assertMoved(results[results.length - 2], 'space');
  await enqueueEvents(env, eventIdsOf(results[results.length - 1]));
  return { revision: revision.id, warnings: [...slice.progress.oversized, ...redirects.warnings], ...stats };
}

/**
 * The page and file ids by path the last call needs: the redirects' targets, and every path when a reusable content's
 * Markdown is converted (its links may name any page or file); read from the rows earlier slices stored, and this call's.
 */
async function importIds(db: Db, target: GitImportTarget, rows: ImportRow[]): Promise<{ pages: Map<string, string>; files: Map<string, string> }> {
  const everything = target.includes.some((plan) => plan.markdown !== undefined);
  const wanted = Object.values(target.redirects);
  const stored =
    everything || wanted.length > 0
      ? await db
          .select({ path: gitSyncImportRows.path, kind: gitSyncImportRows.kind, targetId: gitSyncImportRows.targetId })
          .from(gitSyncImportRows)
          .where(and(eq(gitSyncImportRows.operationId, target.operationId), everything ? undefined : sql`${gitSyncImportRows.path} in (select value from json_each(${JSON.stringify(wanted)}))`))
      : [];
  const pages = new Map<string, string>();
  const files = new Map<string, string>();
  for (const row of [...stored, ...rows]) (row.kind === 'page' ? pages : files).set(row.path, row.targetId);
  return { pages, files };
}

/** The redirects the last sync wrote (their sources). */
async function previousRedirects(db: Db, spaceId: string): Promise<string[]> {
  const rows = await db.select({ path: gitSyncEntries.path }).from(gitSyncEntries).where(and(eq(gitSyncEntries.spaceId, spaceId), eq(gitSyncEntries.kind, 'redirect')));
  return rows.map((r) => r.path.slice('redirect:'.length));
}

/** The documents' batches and deltas of the whole import: this call's and its earlier slices'. */
function documentStats(documents: ReturnType<typeof chunkedDocumentWriter>, progress: Pick<GitImportProgress, 'documentBatches' | 'documentDeltas'>) {
  return { documentBatches: progress.documentBatches + documents.stats.batches, documentDeltas: progress.documentDeltas + documents.stats.deltas };
}

/** The file (page key) of an import's page change: by its batch ref (a new page) or its id (a kept one). */
function fileOfChange(target: GitImportTarget, change: ContentChange): string {
  const id = change.operation === 'insert_page' ? change.ref : change.operation === 'update_page' ? change.page : undefined;
  const plan = target.pages.find((p) => (p.ref ?? p.page) === id);
  return plan ? `${target.pathPrefix}${plan.key}` : 'a page';
}

/**
 * The revision's reusable contents after an import: those of `.gitbook/includes/` converted (their links to pages
 * and files of the repository resolved to the ids this import gave them) or kept as they were, those an earlier
 * sync made whose files are gone removed, and the others (made in this deployment, never exported) kept.
 */
async function reusableContentsOf(
  meta: RevisionMeta,
  target: GitImportTarget,
  pageIdOf: Map<string, string>,
  fileIdOf: Map<string, string>,
): Promise<{ meta: RevisionMeta; documents: Array<{ stored: StoredDocument; replaces?: string }> }> {
  const gitOf = (path: string, oid: string): GitSyncBlob => ({ oid, path: `${target.pathPrefix}${path}` });
  const dropped = new Set(target.droppedIncludes);
  const byId = new Map(meta.reusableContents.filter((c) => !dropped.has(c.id)).map((c) => [c.id, c]));
  const documents: Array<{ stored: StoredDocument; replaces?: string }> = [];
  for (const plan of target.includes) {
    const before = byId.get(plan.id);
    if (plan.markdown === undefined && before) {
      byId.set(plan.id, { ...before, git: gitOf(plan.path, plan.oid) });
      continue;
    }
    const linked = rewriteLinks(plan.markdown ?? '', plan.path, (path) => {
      const page = pageIdOf.get(path);
      if (page) return `/pages/${page}`;
      const file = fileIdOf.get(path);
      return file ? `/files/${file}` : null;
    });
    const converted = markdownToDocument(linked, { resolveLink: defaultResolveLink });
    const stored = converted.document.nodes.length > 0 ? await toStoredDocument(converted.document) : undefined;
    if (stored) documents.push({ stored, replaces: before?.document });
    const entry: ReusableContentEntry = { id: plan.id, title: (converted.title ?? includeTitleOf(plan.path)).slice(0, 256), ...(stored ? { document: stored.hash } : {}), git: gitOf(plan.path, plan.oid) };
    byId.set(plan.id, entry);
  }
  return { meta: { ...meta, reusableContents: [...byId.values()] }, documents };
}

/**
 * After an export: the revision pushed records the commit, and the paths the sync leaves are what was pushed.
 * Pages, files and reusable contents whose blob or path the push gave them get their `git: {oid, path}` (GitBook
 * sets them at export, not at the next import): the records of a revision never change, so the head moves to a
 * revision of the same content with that metadata, recording the same commit (the integrations' loop guard sees
 * `git.oid` on it). Only when the head is still the exported revision; no `space_content_updated` event (nothing a
 * reader sees changed). Nothing to record: no new revision.
 */
export async function recordGitExport(
  env: Env,
  target: { spaceId: string; revisionId: string; rows?: Array<typeof gitSyncEntries.$inferInsert>; pathPrefix?: string; git: GitImportTarget['git'] },
): Promise<{ revision: string | null }> {
  const db = createDb(env.DB);
  // No rows (an export recorded after its run stopped, its rows not known): the entries the last sync left stay.
  const entries = (rows: Array<typeof gitSyncEntries.$inferInsert> | undefined) => (rows ? entryStatements(db, target.spaceId, rows) : []);
  const recordCommit = (revisionId: string) =>
    db.insert(revisionGit).values({ revisionId, spaceId: target.spaceId, ...target.git }).onConflictDoUpdate({ target: revisionGit.revisionId, set: target.git });
  const space = await loadSyncedSpace(db, target.spaceId);
  const tagged = space.head.id === target.revisionId && !space.deleted && target.rows ? await withExportedGit(db, space, target.rows, target.pathPrefix ?? '') : null;
  if (!tagged) {
    await runBatch(db, [recordCommit(target.revisionId), ...entries(target.rows)]);
    return { revision: null };
  }
  const now = nowIso();
  const revision = newRevision(db, target.spaceId, 'edits', [space.head.id], { ...tagged.written, meta: tagged.meta, pageCount: space.head.pageCount, fileCount: space.head.fileCount }, tagged.written.nodes, now);
  const results = await runBatch(db, [
    recordCommit(target.revisionId),
    ...revision.statements,
    recordCommit(revision.id),
    ...entries(target.rows),
    db
      .update(spaces)
      .set({ revisionId: revision.id, updatedAt: now })
      .where(and(eq(spaces.id, target.spaceId), eq(spaces.revisionId, space.head.id))),
  ]);
  assertMoved(results[results.length - 1], 'space');
  return { revision: revision.id };
}

/** The head's content with `git` set from the rows of an export, or null when every record already says it. */
async function withExportedGit(db: Db, space: SyncedSpace, rows: Array<typeof gitSyncEntries.$inferInsert>, pathPrefix: string) {
  const tree = new ContentTree(d1NodeStore(db), space.head);
  const gitOf = (row: (typeof rows)[number]): GitSyncBlob => ({ oid: row.oid ?? '', path: `${pathPrefix}${row.path}` });
  const same = (a: GitSyncBlob | undefined, b: GitSyncBlob) => a?.oid === b.oid && a?.path === b.path;
  const written = (row: (typeof rows)[number]) => Boolean(row.oid) && !row.path.startsWith('group:');
  let changed = false;
  const pageRows = rows.filter((r) => r.kind === 'page' && written(r));
  const pages = await tree.pagesById(pageRows.map((r) => r.targetId));
  for (const row of pageRows) {
    const record = pages.get(row.targetId);
    if (!record || same(record.git, gitOf(row))) continue;
    tree.pages.set(row.targetId, { ...record, git: gitOf(row) });
    changed = true;
  }
  // A file's last row names its path (its blob's other paths come before it): compared alone, a copy's row set `git` to
  // the copy and its own row, equal to the record as read, left it there (gitprobe17a: `image (102).png` after an
  // export for `image (103).png`).
  const fileRows = [...new Map(rows.filter((r) => r.kind === 'file' && written(r)).map((r) => [r.targetId, r])).values()];
  const files = await tree.files.getMany(fileRows.map((r) => r.targetId));
  for (const row of fileRows) {
    const entry = files.get(row.targetId);
    if (!entry || same(entry.git, gitOf(row))) continue;
    tree.files.set(row.targetId, { ...entry, git: gitOf(row) });
    changed = true;
  }
  const reusableGit = new Map(rows.filter((r) => r.kind === 'reusable' && written(r)).map((r) => [r.targetId, gitOf(r)]));
  const reusableContents = space.head.meta.reusableContents.map((c) => {
    const git = reusableGit.get(c.id);
    if (!git || same(c.git, git)) return c;
    changed = true;
    return { ...c, git };
  });
  if (!changed) return null;
  return { written: await tree.write(), meta: { ...space.head.meta, reusableContents } };
}
