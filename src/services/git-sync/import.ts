import type { ContentChange, PageMetadataInput } from '../content/batch';
import { DEEP_MARKDOWN_LINE, MAX_PAGE_MARKDOWN_CHARS } from '../content/batch';
import { newId } from '../../lib/ids';
import { headSignature, type RevisionTree, type SyncedSpace } from './content';
import {
  basename,
  cleanPath,
  contentTypeOf,
  flatten,
  gitBookConfigProblem,
  isDefaultConfig,
  isIncludePath,
  parseGitBookConfig,
  parseSummary,
  rewriteIncludes,
  rewriteLinks,
  slugOfPath,
  treeOfFolders,
  type GitBookConfig,
  MISSING_KEY_PREFIX,
  caseFolded,
  slugOfPlace,
  type LayoutPage,
  type UnreadSummaryLines,
} from './layout';
import { GIT_TRANSFER_LIMITS, type GitSession, type TreeFile } from './transport';
import { HELD_STREAM_BYTES, type AssetStore, type StoredAsset } from './assets';
import { firstFreeSlug, slugOfTitle, UNREADABLE_TITLE_SLUG, type FileEntry, type PageEntry } from '../content/revisions';
import { markdownParcels, type PageLinks } from './markdown-parcels';

/**
 * Import: the repository at one commit becomes one content batch on the space's head (services/git-sync/apply
 * writes it in the space's writer). The plan is made here, in the queue consumer:
 * - the layout (layout.ts) gives the page tree; a page whose path the last sync left (git_sync_entries) and
 *   that still exists keeps its id, and its Markdown is read and converted again only when its blob changed;
 * - files under `.gitbook/assets/` and the other files pages link to become files of the space; a file whose
 *   blob the space already has (same path and blob, or the same blob elsewhere) keeps its id and is not read;
 * - links between pages and to files are rewritten to the batch's refs (new pages and files) or ids (kept ones),
 *   so the content engine's Markdown converter resolves them;
 * - pages of the space that the repository no longer has are deleted (a page kept but whose parent goes is
 *   moved out first);
 * - Markdown files under `.gitbook/includes/` are the space's reusable contents (GitBook's `{% include %}`): one
 *   whose path the last sync left keeps its id, and is read again only when its blob changed; the pages' include
 *   tags are rewritten to their ids. They are converted in the writer (apply.ts), where the ids of new pages are
 *   known, so their links resolve.
 */

/**
 * The fields a page's front matter sets, each cleared ('' removes it): sent with a kept page whose file is read again.
 * The content batch applies what the file's front matter sets over the change's own fields, so a field the file no
 * longer has goes, as a fresh import of the file would not have it (a push that removed a page's `layout:` block left
 * the old layout, and the page read back with front matter its file no longer had).
 */
const FRONT_MATTER_CLEARED = { description: '', icon: '', emoji: '', hidden: '', noIndex: '', noRobotsIndex: '', condition: '', layout: '' } as unknown as PageMetadataInput;

export const GIT_IMPORT_LIMITS = {
  /** Files of the project directory considered at most; a larger repository is refused (the operation fails, saying so). */
  maxFiles: 20_000,
  /** Markdown pages at most. */
  maxPages: 5_000,
  /** Files (assets) read into the space at most per import. */
  maxAssets: 2_000,
  /** Bytes of Markdown (and configuration) read from blobs in one import: held while the import is planned. */
  maxReadBytes: 96 * 1024 * 1024,
  /** Bytes of files (assets) stored in one import: each is held one batch at a time, or streamed, never all at once. */
  maxAssetBytes: 1024 * 1024 * 1024,
};

export interface ImportPagePlan {
  /** The page's key: its file path from the content root, or `group:...` for a group. */
  key: string;
  oid: string;
  /** The page it is (kept), or the batch ref that creates it. */
  page?: string;
  ref?: string;
  /**
   * A kept page whose blob did not change: the document its file was last synced from (the last sync's hash). The page
   * keeps its document, edits not yet exported included, and its entry keeps saying what the file holds.
   */
  synced?: string | null;
}

/** The plans of the commit's pages by key, with whether each is converted from its file (`changed`). */
type PagePlans = Map<string, ImportPagePlan & { changed: boolean }>;

export interface ImportFilePlan {
  path: string;
  oid: string;
  /** The file: one the space has, or one of the plan's `newFiles`. */
  file: string;
  /** Another path of the file's blob (withCopiesMarked): recorded, but the file's `git` names another of its paths. */
  copy?: true;
}

/** A reusable content read from `.gitbook/includes/`: kept (same id), and its Markdown when its blob changed. */
export interface ImportIncludePlan {
  /** Its path from the content root. */
  path: string;
  oid: string;
  id: string;
  /** The Markdown to convert (absent: the blob did not change, the content stays as it is). */
  markdown?: string;
}

export interface ImportPlan {
  commit: { oid: string; message: string };
  config: GitBookConfig;
  /** `.gitbook.yaml` as read, where it says other than GitBook's defaults: kept, for an export to a target without one. */
  configFile: { oid: string; text: string } | null;
  /** What the plan's paths are under, from the repository's root (project directory and `root`, each with a `/`). */
  pathPrefix: string;
  /** The batch, each page's Markdown left out (`{ markdown: '' }`): `markdown` reads it, a parcel at a time. */
  changes: ContentChange[];
  markdown: ReturnType<typeof markdownParcels>;
  pages: ImportPagePlan[];
  files: ImportFilePlan[];
  /** Files this import stored in R2 (assets: never carried in the batch), with the ids the plan gave them. */
  newFiles: FileEntry[];
  includes: ImportIncludePlan[];
  /** Ids of reusable contents an earlier sync made whose files are gone. */
  droppedIncludes: string[];
  /** Ids of files an earlier sync recorded at a path the repository no longer has (deleted with git): they leave the space. */
  droppedFiles: string[];
  /** What was left out (a file over the cap on a file's bytes, a page over the limits), said in the operation's state. */
  warnings: string[];
  stats: { pages: number; convertedPages: number; files: number; readFiles: number; readBytes: number; assetBytes: number };
  /**
   * Wall time of the plan's slow steps: the pages' blobs fetched and read, the files fetched and stored; of the latter,
   * the time the read of blobs waited for room among the stores to R2 (the rest: waiting for the Git server's answers).
   */
  phases: { pagesMs: number; assetsMs: number; assetsStoreWaitMs: number; assetsStreamedMs: number };
}

const decoder = new TextDecoder();

/**
 * Whether a kept page whose file did not change takes its SUMMARY.md item's title: its file had no heading 1 when last
 * synced (the item titles it, as a fresh import does), and its title and front matter are still what that sync recorded.
 */
async function titledByItem(entry: SyncedSpace['entries'][number] | undefined, page: Omit<PageEntry, 'pages'>): Promise<boolean> {
  if (!entry || entry.titleHeading || !entry.head) return false;
  return (await headSignature(page)) === entry.head;
}

export async function planImport(
  session: GitSession,
  commitOid: string,
  options: {
    projectDirectory?: string;
    maxFileBytes: number;
    assets: AssetStore;
    newFileId?: (oid: string) => Promise<string>;
    /** The pages of the head whose documents show any of these files or link to these pages, or null when not known (the link index lags). */
    fileReferrers?: (fileIds: string[]) => Promise<string[] | null>;
    /**
     * The request's `force` (GitBook's integrations send it at setup): the repository's content wins, and the space ends as
     * a fresh import of the commit makes it. The pages edited in the space since the last sync are read from their files
     * again (an unforced import keeps those edits, for the next export to write).
     */
    force?: boolean;
  },
  space: SyncedSpace,
  head: RevisionTree,
): Promise<ImportPlan> {
  const commit = await session.readCommit(commitOid);
  const projectDir = cleanPath(options.projectDirectory ?? '');
  const all = await session.listFiles(commitOid, projectDir);
  // The integration's projectDirectory naming no folder of the commit (moved in a push, misspelt) read as an empty
  // project: the import deleted every page. Only a repository with no file at all is an empty project.
  if (projectDir && all.length === 0 && (await session.listFiles(commitOid)).length > 0) {
    throw new Error(`the project directory "${projectDir}" is no folder of the repository; nothing was imported`);
  }
  if (all.length > GIT_IMPORT_LIMITS.maxFiles) throw new Error(`the repository has ${all.length} files under "${projectDir || '/'}"; the limit is ${GIT_IMPORT_LIMITS.maxFiles}`);
  let readBytes = 0;
  const read = async (file: TreeFile) => {
    const bytes = await session.readBlob(file.oid);
    readBytes += bytes.byteLength;
    if (readBytes > GIT_IMPORT_LIMITS.maxReadBytes) throw new Error(`the import reads more than ${GIT_IMPORT_LIMITS.maxReadBytes} bytes of Markdown and files; that is the limit`);
    return bytes;
  };
  // `.gitbook.yaml` and the summary say which files are the content and how they are ordered: one the server lacks
  // fails the import, naming it (a guess could read another folder, deleting the space's pages and redirects).
  // (Wanted alone before any other blob, a blob the server lacks looks like a server refusing blobs by id: the
  // session fetches the whole tree, which lacks it too, and reading it finds no object.)
  const readLayoutFile = async (file: TreeFile, path: string) => {
    const lacking = () => new Error(`${path}: ${lacksBlob(file.oid)}; it says what the content is, so nothing was imported`);
    if (session.missing.has(file.oid)) throw lacking();
    try {
      return decoder.decode(await read(file));
    } catch (error) {
      if (session.missing.has(file.oid) || (error as { code?: string }).code === 'NotFoundError') throw lacking();
      throw error;
    }
  };
  const configFile = all.find((f) => f.path === '.gitbook.yaml');
  const configText = configFile ? await readLayoutFile(configFile, '.gitbook.yaml') : null;
  const config = parseGitBookConfig(configText);
  const rootPrefix = config.root ? `${config.root}/` : '';
  const files = new Map<string, TreeFile>();
  // A symbolic link (mode 120000) is not a page or a file of the space: its blob is the path it points at.
  for (const file of all) if (file.path.startsWith(rootPrefix) && file.mode !== '120000') files.set(file.path.slice(rootPrefix.length), file);
  // A root naming no folder of the commit (moved, misspelt) read as an empty repository: the import deleted every page.
  if (config.root && files.size === 0) throw new Error(`.gitbook.yaml: its root "${config.root}" is no folder of the repository; nothing was imported`);
  // So is a root whose folder holds no Markdown page (docs moved to `.mdx` under another generator, the file left behind).
  if (config.root && ![...files.keys()].some((p) => /\.md$/i.test(p))) throw new Error(`.gitbook.yaml: its root "${config.root}" holds no Markdown page; nothing was imported`);

  const markdownPaths = [...files.keys()].filter((p) => /\.md$/i.test(p) && !p.startsWith('.gitbook/') && p !== config.summary);
  const warnings: string[] = [];
  const configProblem = gitBookConfigProblem(configText);
  if (configProblem) warnings.push(`.gitbook.yaml: ${configProblem}; read as GitBook's defaults (the content at the project's root, README.md, SUMMARY.md, no redirects)`);
  const includes = await planIncludes(files, space, read, (oids) => session.prefetchBlobs(oids), (oid) => session.missing.has(oid), warnings);
  if (markdownPaths.length > GIT_IMPORT_LIMITS.maxPages) throw new Error(`the repository has ${markdownPaths.length} Markdown files; the limit is ${GIT_IMPORT_LIMITS.maxPages}`);
  const summaryFile = files.get(config.summary);
  let layout: LayoutPage[];
  if (summaryFile) {
    const summaryDir = config.summary.includes('/') ? config.summary.slice(0, config.summary.lastIndexOf('/')) : '';
    const unread: UnreadSummaryLines = { keys: [], lines: [] };
    layout = parseSummary(await readLayoutFile(summaryFile, config.summary), summaryDir, caseFolded(files), undefined, unread, config.summary);
    warnings.push(...summaryWarnings(config.summary, layout, unread));
    const listed = new Set(flatten(layout).map((e) => e.page.path));
    if (files.has(config.readme) && !listed.has(config.readme)) layout.unshift({ path: config.readme, key: config.readme, title: 'Introduction', children: [] });
  } else {
    layout = treeOfFolders(markdownPaths, config.readme);
  }
  const flat = flatten(layout);

  // Pages: kept (same path, still in the space) or new.
  const entries = new Map(space.entries.map((e) => [e.path, e]));
  const syncedPages = new Set(space.entries.flatMap((e) => (e.kind === 'page' ? [e.targetId] : [])));
  const pagePlans = new Map<string, ImportPagePlan & { changed: boolean }>();
  let refCount = 0;
  for (const { page } of flat) {
    const blob = page.path ? files.get(page.path)! : null;
    // A page the summary led to before its file was there (`missing:<file>`) is that file's page once it is.
    const entry = entries.get(page.key) ?? (page.path ? entries.get(`${MISSING_KEY_PREFIX}${page.path}`) : undefined);
    const kept = entry && entry.kind === 'page' && head.pages.has(entry.targetId) ? entry.targetId : undefined;
    const oid = blob?.oid ?? '';
    const changed = !kept || entry!.oid !== oid;
    pagePlans.set(page.key, kept ? { key: page.key, oid, page: kept, changed, ...(changed ? {} : { synced: entry!.hash ?? null }) } : { key: page.key, oid, ref: `_gp${++refCount}`, changed });
  }
  const followedSlugs = await keepMovedPages(flat, pagePlans, space.entries, head, session);
  if (options.force) await rereadEditedSinceSync(flat, pagePlans, entries, head, followedSlugs);
  const copies = await mergedCopies(flat, pagePlans, files, space.entries, head, options.fileReferrers);
  if (copies.size > 0) await rereadIncludesShowingCopies(includes.plans, files, copies, read, session);
  // Pages made in the space since the last sync (no sync records them) stay for the next export to write, as edits do; a
  // forced import, or the first sync of a space, makes the space the commit's. They were deleted by any import: a push
  // imported between a merge and its export lost the merged pages (forced20).
  const madeSinceSync = new Set(options.force || space.entries.length === 0 ? [] : [...head.pages.keys()].filter((id) => !syncedPages.has(id)));
  // Pages of the space that are not kept go (the plans' pages are settled here; only what is read again changes below).
  const keptIds = new Set([...pagePlans.values()].flatMap((p) => (p.page ? [p.page] : [])).concat([...madeSinceSync]));
  const dropped = new Set([...head.pages.keys()].filter((id) => !keptIds.has(id)));
  await readAgainLinkingToRemoved(flat, pagePlans, dropped, options.fileReferrers);

  // Markdown of the pages to convert, and the files they link to: their blobs fetched first, in batches (a
  // session that fetched the tree without blobs fetches only these: the pages whose blobs changed).
  const pagesBegan = Date.now();
  await session.prefetchBlobs(flat.flatMap(({ page }) => (page.path && pagePlans.get(page.key)!.changed ? [files.get(page.path)!.oid] : [])));
  // Each page's text is read here for the files it links to, then let go: only its length is kept (markdown-parcels).
  const markdownChars = new Map<string, number>();
  const overLimits = new Set<string>();
  const linked = new Set<string>();
  const tooLarge = new Set<string>();
  const lacking = new Set<string>();
  for (const { page } of flat) {
    const plan = pagePlans.get(page.key)!;
    if (!page.path || !plan.changed) continue;
    const { oid } = files.get(page.path)!;
    if (session.missing.has(oid) || session.unreadable.has(oid)) {
      (session.missing.has(oid) ? lacking : tooLarge).add(page.key);
      continue;
    }
    const text = decoder.decode(await read(files.get(page.path)!));
    if (text.length > MAX_PAGE_MARKDOWN_CHARS || DEEP_MARKDOWN_LINE.test(text)) overLimits.add(page.key);
    else markdownChars.set(page.key, text.length);
    rewriteLinks(text, page.path, (path) => {
      if (files.has(path) && !/\.md$/i.test(path)) linked.add(path);
      return null;
    });
  }

  const pagesMs = Date.now() - pagesBegan;

  // Files: the assets folder, the files linked from converted pages, and those the last sync left that are still there.
  const filePlans = new Map<string, ImportFilePlan>();
  const byOid = new Map<string, string>();
  for (const e of space.entries) if (e.kind === 'file' && head.files.has(e.targetId)) byOid.set(e.oid, e.targetId);
  const wanted = new Set<string>([...files.keys()].filter((p) => p.startsWith('.gitbook/assets/')));
  for (const p of linked) wanted.add(p);
  for (const e of space.entries) if (e.kind === 'file' && files.has(e.path)) wanted.add(e.path);
  // Files new to the space: each blob stored in R2 once (by blob id, within this import too), read in batches or,
  // when large, streamed on its own: the batch carries only their entries.
  const stillThere = new Set([...wanted].map((path) => files.get(path)!.oid));
  // A file whose bytes were replaced with git (its old blob nowhere now) takes the new ones below, even when another file
  // of the space has them: given to that other file, the path left this one unrecorded with its old bytes, the pages
  // naming it kept showing them, and the next export wrote them back as a new file (gitprobe17a, an image replaced
  // with bytes another image had).
  const replacedHere = (entry: (typeof space.entries)[number] | undefined, oid: string) =>
    entry?.kind === 'file' && entry.oid !== oid && head.files.has(entry.targetId) && !stillThere.has(entry.oid);
  const toImport = [...wanted].sort().filter((path) => {
    const blob = files.get(path)!;
    const entry = entries.get(path);
    // A blob the space had as several files: one file, as a fresh import makes (the one that takes new bytes is imported).
    const merged = copies.get(blob.oid);
    if (merged?.renewed && merged.path === path) return true;
    if (merged) {
      filePlans.set(path, { path, oid: blob.oid, file: merged.id });
      return false;
    }
    const keptId = entry && entry.kind === 'file' && entry.oid === blob.oid && head.files.has(entry.targetId) ? entry.targetId : replacedHere(entry, blob.oid) ? undefined : byOid.get(blob.oid);
    if (keptId) filePlans.set(path, { path, oid: blob.oid, file: keptId });
    return !keptId;
  });
  const pathsOf = new Map<string, string[]>();
  for (const path of toImport) pathsOf.set(files.get(path)!.oid, [...(pathsOf.get(files.get(path)!.oid) ?? []), path]);
  // Other bytes at the path of a file the space has (an asset replaced with git): that file takes them, keeping its id,
  // so the pages naming it show them. Not when its old blob is still at another path of the repository (that path keeps it).
  const replacing = new Map<string, string>();
  const taken = new Set<string>();
  for (const [oid, merged] of copies) if (merged.renewed) (replacing.set(oid, merged.id), taken.add(merged.id));
  for (const path of toImport) {
    const entry = entries.get(path);
    if (entry?.kind === 'file' && head.files.has(entry.targetId) && !stillThere.has(entry.oid) && !taken.has(entry.targetId)) {
      replacing.set(files.get(path)!.oid, entry.targetId);
      taken.add(entry.targetId);
    }
  }
  // Over the limit, the files pages show come first: the rest (assets no converted page links to) wait for the next import,
  // where a blob-sorted cut left images a page shows unimported (probe20, Pentest-Everything: 3,156 assets).
  const shown = (oid: string) => pathsOf.get(oid)!.some((path) => linked.has(path));
  const oids = [...pathsOf.keys()].sort((a, b) => Number(shown(b)) - Number(shown(a)));
  for (const oid of oids.slice(GIT_IMPORT_LIMITS.maxAssets)) for (const path of pathsOf.get(oid)!) warnings.push(`${path}: not imported (more than ${GIT_IMPORT_LIMITS.maxAssets} files in one import)`);
  // In the order the blobs come (the same on every run), whatever order their stores end in.
  const newFileSlots: FileEntry[][] = [];
  let readFiles = 0;
  let assetBytes = 0;
  const assetsBegan = Date.now();
  let assetsStoreWaitMs = 0;
  // Of the assets phase, the large blobs fetched alone and stored as they stream (each awaited before the next blob).
  let assetsStreamedMs = 0;
  const storing = storePool(ASSET_STORES_AT_ONCE, ASSET_STORE_BYTES_AT_ONCE);
  const reading = session.forEachBlob(oids.slice(0, GIT_IMPORT_LIMITS.maxAssets), options.maxFileBytes, async (oid, blob) => {
    const paths = pathsOf.get(oid)!;
    // Named after the path its `git` names (withCopiesMarked), so an export elsewhere writes it under its name.
    const named = paths.reduce(namingPath);
    const size = blob === null ? null : 'bytes' in blob ? blob.bytes.byteLength : blob.size;
    if (session.missing.has(oid)) {
      for (const path of paths) warnings.push(`${path}: not imported (${lacksBlob(oid)})`);
      return;
    }
    if (size === null || size > options.maxFileBytes) {
      if (blob && 'stream' in blob) await blob.stream.cancel();
      for (const path of paths) warnings.push(`${path}: not imported (${size === null ? 'over' : `${size} bytes;`} the limit of a file is ${options.maxFileBytes} bytes, GIT_SYNC_MAX_FILE_BYTES)`);
      return;
    }
    assetBytes += size;
    if (assetBytes > GIT_IMPORT_LIMITS.maxAssetBytes) throw new Error(`the import stores more than ${GIT_IMPORT_LIMITS.maxAssetBytes} bytes of files; that is the limit`);
    readFiles++;
    const contentType = contentTypeOf(named);
    // An import planned again to continue (operations.ts) gives its new files the ids its first plan gave them.
    const id = replacing.get(oid) ?? (options.newFileId ? await options.newFileId(oid) : newId());
    for (const path of paths) filePlans.set(path, { path, oid, file: id });
    const slot: FileEntry[] = [];
    newFileSlots.push(slot);
    const record = (stored: StoredAsset) => slot.push({ id, name: named.slice(named.lastIndexOf('/') + 1), contentType, size: stored.size, hash: stored.hash, ...(stored.dimensions ? { dimensions: stored.dimensions } : {}) });
    // A large blob comes alone, on a request of its own. One the store holds whole (HELD_STREAM_BYTES: read, checked,
    // put once) is stored among the others while the next blob is fetched: awaited here, each such blob's fetch and put
    // followed one another (vngcloud/docs: 46 blobs of 1-4 MiB). A larger one is staged as it streams, awaited here, so
    // at most one is streaming into R2 while the pool holds its bounded bytes.
    if ('stream' in blob!) {
      const streaming = Date.now();
      const { size: streamed, stream } = blob!;
      if (streamed <= HELD_STREAM_BYTES) {
        // A store that failed meanwhile fails the import here, before this one starts: its answer is let go.
        await storing.add(() => options.assets.storeStream(oid, streamed, stream, contentType).then(record), streamed).catch(async (error: unknown) => {
          await stream.cancel().catch(() => undefined);
          throw error;
        });
      } else record(await options.assets.storeStream(oid, streamed, stream, contentType));
      assetsStreamedMs += Date.now() - streaming;
    }
    else {
      // The bytes stay counted in the read's budget until R2 has them: the next batch waits for room, not for this.
      const release = blob!.own?.();
      try {
        const waiting = Date.now();
        await storing.add(() => options.assets.storeBytes(blob!.bytes, contentType).then(record).finally(() => release?.()), size);
        assetsStoreWaitMs += Date.now() - waiting;
      } catch (error) {
        release?.();
        throw error;
      }
    }
  });
  // On a failure too, every store ends before the error goes on (a failed import then deletes what they stored).
  await reading.catch(async (error) => {
    await storing.drain().catch(() => undefined);
    throw error;
  });
  const draining = Date.now();
  await storing.drain();
  assetsStoreWaitMs += Date.now() - draining;
  const newFiles = newFileSlots.flat();
  const assetsMs = Date.now() - assetsBegan;
  const fileTarget = (path: string): string | null => {
    const plan = filePlans.get(path);
    return plan ? `/files/${plan.file}` : null;
  };
  const pageTarget = (path: string): string | null => {
    const plan = pagePlans.get(path);
    if (!plan) return null;
    return plan.page ? `/pages/${plan.page}` : plan.ref!;
  };

  const changes: ContentChange[] = [];

  // Pages of the space that are not kept (`dropped`): deleted (the topmost only), after moving out kept pages under them.
  const underDropped = (id: string) => {
    for (let parent = head.pages.get(id)?.parent ?? null; parent; parent = head.pages.get(parent)?.parent ?? null) if (dropped.has(parent)) return true;
    return false;
  };
  // A page made since the sync under another such page moves with it.
  const movesWithParent = (id: string) => madeSinceSync.has(id) && madeSinceSync.has(head.pages.get(id)?.parent ?? '');
  for (const id of keptIds) if (underDropped(id) && !movesWithParent(id)) changes.push({ operation: 'update_page', page: id, into: null });
  for (const id of dropped) if (!underDropped(id)) changes.push({ operation: 'delete_page', page: id });

  // The tree, parents first: new pages inserted, kept ones moved into place (and their document replaced when their blob changed).
  const settled = settledParents(flat.map(({ page, parent }) => ({ parent: parent ? (pagePlans.get(parent)!.page ?? pagePlans.get(parent)!.ref!) : '', id: pagePlans.get(page.key)!.page ?? pagePlans.get(page.key)!.ref! })), head);
  const slugsByParent = new Map<string, Set<string>>();
  for (const { page, parent } of flat) {
    const kept = pagePlans.get(page.key)!.page;
    const taken = slugsByParent.get(parent ?? '') ?? new Set<string>();
    // A followed page's new slug that a kept sibling has: it keeps its own (the batch refuses a slug twice under one parent).
    if (followedSlugs.has(page.key) && taken.has(followedSlugs.get(page.key)!)) followedSlugs.delete(page.key);
    const slug = kept ? (followedSlugs.get(page.key) ?? head.pages.get(kept)?.slug) : undefined;
    if (!slug) continue;
    taken.add(slug);
    slugsByParent.set(parent ?? '', taken);
  }
  const fileSlugs = await slugsFilesName(flat, pagePlans);
  // A link to an anchor leads to its page: kept (its id) or new (the ref the batch gives an id).
  const anchorTarget = ({ path, anchor }: { path: string; anchor: string }) => {
    const plan = pagePlans.get(path)!;
    return { kind: 'anchor' as const, page: plan.page ?? plan.ref!, anchor };
  };
  let convertedPages = 0;
  const withMarkdown: Array<{ index: number; chars: number }> = [];
  const pathOf = new Map<number, string>();
  for (const { page, parent, index } of flat) {
    const plan = pagePlans.get(page.key)!;
    const parentPlan = parent ? pagePlans.get(parent)! : null;
    const into = parentPlan ? (parentPlan.page ?? parentPlan.ref!) : undefined;
    let document: { markdown: string } | Record<string, never> | undefined;
    const chars = markdownChars.get(page.key);
    if (lacking.has(page.key)) {
      warnings.push(`${page.path}: imported as an empty page (${lacksBlob(files.get(page.path!)!.oid)})`);
      document = {};
    } else if (tooLarge.has(page.key)) {
      warnings.push(`${page.path}: imported as an empty page (its file alone is over ${GIT_TRANSFER_LIMITS.maxBatchBytes} bytes)`);
      document = {};
    } else if (overLimits.has(page.key)) {
      warnings.push(`${page.path}: imported as an empty page (over the limits of a page: ${MAX_PAGE_MARKDOWN_CHARS} characters, nesting)`);
      document = {};
    } else if (chars !== undefined) {
      // Read again, its links rewritten, when the writer reaches it (markdownParcels below).
      document = { markdown: '' };
      withMarkdown.push({ index: changes.length, chars });
      pathOf.set(changes.length, page.path!);
      convertedPages++;
    } else if (!plan.page || (options.force && !page.path && !page.group && !page.link && !page.anchorLink && head.pages.get(plan.page)?.document)) {
      // A forced import empties an item without a link (or to a missing file) given a body in the app: a fresh import has none.
      document = {};
    }
    if (plan.page) {
      // The navigation title follows the summary: set, changed, or removed (an empty one) with its quoted title.
      const was = head.pages.get(plan.page);
      const linkTitle = (page.linkTitle ?? '') !== (was?.linkTitle ?? '') ? { linkTitle: page.linkTitle ?? '' } : {};
      // A link is titled by its item; a page whose file changed by the item (or file name) unless the file's heading 1
      // names it (the writer takes the converted title first), as a fresh import titles it: a push that removed the
      // heading otherwise left the page the title of a heading it no longer has.
      // So is a page whose file has no heading 1 (its item titles it) when a push renamed only its item, unless the page
      // was retitled here since the last sync (an edit not yet exported stays one, as its document does).
      // A page no file holds (an item without a link, a group) retitled in the app takes its item's title again when forced.
      const titled = page.link || page.anchorLink || document || (was && was.title !== page.title.slice(0, 256) && ((options.force && !page.path) || (await titledByItem(entries.get(page.key), was))));
      // Already in place, under a parent whose pages are the same in the same order, and nothing of it changed: no change
      // (one would give it a new updatedAt, so a re-import would write every page's record and the whole page map again).
      const unchanged = !document && !('linkTitle' in linkTitle) && (!titled || was?.title === page.title.slice(0, 256)) && (!page.group || was?.type === 'group');
      if (unchanged && settled.has(parentPlan ? (parentPlan.page ?? parentPlan.ref!) : '')) continue;
      const cleared = document && 'markdown' in document ? FRONT_MATTER_CLEARED : {};
      // A page followed to its file's new name takes the slug a fresh import gives it.
      const slug = followedSlugs.has(page.key) ? { slug: followedSlugs.get(page.key)! } : {};
      changes.push({ operation: 'update_page', page: plan.page, into: into ?? null, at: index, ...cleared, ...(document ? { document } : {}), ...(titled ? { title: page.title.slice(0, 256) } : {}), ...slug, ...linkTitle, ...(page.group ? { type: 'group' } : {}) });
    } else {
      const taken = slugsByParent.get(parent ?? '') ?? new Set<string>();
      slugsByParent.set(parent ?? '', taken);
      const named = page.slug ?? (await slugOfPath(page.path, page.title));
      const slug = named ?? (await unreadableTitleSlug(page.title));
      // A slug a sibling has (`guides.md` beside `guides/README.md`) is numbered from 1, as GitBook numbers it; an
      // unreadable title's past the slugs the files of its siblings name.
      const nameless = !named;
      const useSlug = slug ? firstFreeSlug(slug, (candidate) => taken.has(candidate) || (nameless && !!fileSlugs.get(parent ?? '')?.has(candidate))) : undefined;
      if (useSlug) taken.add(useSlug);
      // The item's text is the title of a page whose file has no heading 1; the file's heading 1 wins over it (the
      // content batch reads it), as GitBook reads them: docs-sfp's authors wrote `* [AI-Powered Report](...)` over
      // `# AI Assisted Insight Report` and `* [Environments (Pro)](...)` over `# Environments`, and GitBook's next
      // commits (GITBOOK-223, GITBOOK-238) wrote those items with the heading's text, the page's title.

      changes.push({ operation: 'insert_page', ref: plan.ref, ...(into ? { into } : {}), at: index, title: page.title.slice(0, 256) || 'Untitled', ...(page.linkTitle ? { linkTitle: page.linkTitle } : {}), ...(useSlug ? { slug: useSlug } : {}), ...(page.link ? { link: { kind: 'url', url: page.link } } : {}), ...(page.anchorLink ? { link: anchorTarget(page.anchorLink) } : {}), ...(page.group ? { type: 'group' } : {}), document: document ?? {} });
    }
  }

  const markdown = markdownParcels(withMarkdown, async (at) => {
    const path = pathOf.get(at)!;
    const text = decoder.decode(await session.readBlob(files.get(path)!.oid));
    const included = rewriteIncludes(text, path, (p) => includes.idOf.get(p) ?? null);
    return [included, pageLinks(included, path, (p) => pageTarget(p) ?? fileTarget(p))];
  });

  return {
    commit: { oid: commitOid, message: commit.message },
    config,
    configFile: configFile && configText !== null && !isDefaultConfig(config) ? { oid: configFile.oid, text: configText } : null,
    pathPrefix: `${projectDir ? `${projectDir}/` : ''}${rootPrefix}`,
    changes,
    markdown,
    pages: [...pagePlans.values()].map(({ changed: _changed, ...p }) => p),
    files: withCopiesMarked([...filePlans.values()]),
    newFiles,
    includes: includes.plans,
    droppedIncludes: includes.dropped,
    droppedFiles: [...new Set([...droppedFilesOf(space.entries, files, head.files, filePlans, options.force === true), ...[...copies.values()].flatMap((merged) => merged.dropped)])],
    warnings,
    stats: { pages: flat.length, convertedPages, files: filePlans.size, readFiles, readBytes, assetBytes },
    phases: { pagesMs, assetsMs, assetsStoreWaitMs, assetsStreamedMs },
  };
}

/**
 * The files the last sync recorded at paths the repository no longer has, whose blob is at none of its paths: deleted
 * there with git (GitBook's export of a page that drops an image deletes the asset), so they leave the space. Otherwise
 * the space kept them, unrecorded, and the next export wrote them back into the repository. A file made in the app
 * (never synced) stays: the export adds it; unless the import is forced.
 */
function droppedFilesOf(entries: Array<{ kind: string; path: string; targetId: string }>, files: Map<string, unknown>, headFiles: { has(id: string): boolean; keys(): IterableIterator<string> }, plans: Map<string, ImportFilePlan>, force: boolean): string[] {
  const kept = new Set([...plans.values()].map((plan) => plan.file));
  // Forced (the repository wins, as a fresh import of the commit): every file it does not hold goes, uploads made in the app too.
  if (force) return [...headFiles.keys()].filter((id) => !kept.has(id));
  const dropped = new Set<string>();
  for (const e of entries) if (e.kind === 'file' && !files.has(e.path) && headFiles.has(e.targetId) && !kept.has(e.targetId)) dropped.add(e.targetId);
  return [...dropped];
}

/**
 * What the links of a page's Markdown lead to, for its conversion to resolve (markdown-parcels PageLinks). The text itself
 * is not rewritten: a path replaced by a batch ref where the converter then read no link (a Markdown link inside an HTML
 * block, which CommonMark keeps as raw text; code) stayed as text, and the next export wrote `[App Details](_gp81)` into
 * the repository.
 */
function pageLinks(markdown: string, path: string, target: (path: string) => string | null): PageLinks {
  const targets: Record<string, string> = {};
  rewriteLinks(markdown, path, (p) => {
    const to = target(p);
    if (to !== null) targets[p] = to;
    return null;
  });
  // Given with no targets too: the conversion then knows the page is a file of the repository, and a relative link to
  // no file of it stays a URL (content/batch.ts).
  return { path, targets };
}

/**
 * The parents ('' for the top level) whose children are, after the import, the same pages in the same order as in the
 * space's head: nothing moves into, out of or within them.
 */
function settledParents(children: Array<{ parent: string; id: string }>, head: RevisionTree): Set<string> {
  const listsOf = (entries: Array<{ parent: string; id: string }>) => {
    const lists = new Map<string, string[]>();
    for (const { parent, id } of entries) lists.set(parent, [...(lists.get(parent) ?? []), id]);
    return lists;
  };
  const before = listsOf([...head.order].sort((a, b) => a.index - b.index).map((o) => ({ parent: o.parent ?? '', id: o.id })));
  const after = listsOf(children);
  return new Set([...after].filter(([parent, ids]) => before.get(parent)?.join('\n') === ids.join('\n')).map(([parent]) => parent));
}

/** Small files stored at once by an import (each store is an R2 put, written only where no object is: their round trips overlap). */
const ASSET_STORES_AT_ONCE = 6;
/**
 * Bytes those stores hold at most together: each holds its file until R2 has it, so the count alone would let six
 * files be held beside the batch being read. One file larger than this is stored alone. Twice HELD_STREAM_BYTES: two
 * large blobs held whole (fetched alone, before the batches) are stored while the next is fetched; at 2 MiB, each of
 * vngcloud/docs's 46 blobs of 1-4 MiB waited for the one before, and its 517 files of 256 KiB-1 MiB were stored two or
 * three at a time. The batches' blobs count in the read's budget too (GIT_TRANSFER_LIMITS.bytesInFlight, 12 MiB).
 */
const ASSET_STORE_BYTES_AT_ONCE = 2 * HELD_STREAM_BYTES;

/**
 * Up to `limit` stores running at once, holding at most `maxBytes` together (one larger store runs alone): `add`
 * waits until the store fits, then starts it; the first failure is thrown by the next `add` or by `drain` (which
 * waits for every store), and none is left unawaited.
 */
function storePool(limit: number, maxBytes: number) {
  const running = new Map<Promise<void>, number>();
  let held = 0;
  let failure: { error: unknown } | null = null;
  const rethrow = () => {
    if (failure) throw failure.error;
  };
  return {
    async add(store: () => Promise<unknown>, bytes: number): Promise<void> {
      rethrow();
      while (running.size > 0 && (running.size >= limit || held + bytes > maxBytes)) await Promise.race(running.keys());
      rethrow();
      held += bytes;
      const done: Promise<void> = store().then(
        () => void running.delete(done),
        (error) => {
          running.delete(done);
          failure ??= { error };
        },
      ).finally(() => {
        held -= bytes;
      });
      running.set(done, bytes);
    },
    async drain(): Promise<void> {
      await Promise.all(running.keys());
      rethrow();
    },
  };
}

/**
 * The reusable contents of `.gitbook/includes/`: those the last sync left (git_sync_entries of kind `reusable`, still
 * in the head's meta) keep their ids and are read only when their blob changed; new ones get an id.
 */
async function planIncludes(
  files: Map<string, TreeFile>,
  space: SyncedSpace,
  read: (file: TreeFile) => Promise<Uint8Array>,
  prefetch: (oids: string[]) => Promise<void>,
  missing: (oid: string) => boolean,
  warnings: string[],
): Promise<{ plans: ImportIncludePlan[]; idOf: Map<string, string>; dropped: string[] }> {
  const existing = new Set(space.head.meta.reusableContents.map((c) => c.id));
  const synced = new Map(space.entries.filter((e) => e.kind === 'reusable' && existing.has(e.targetId)).map((e) => [e.path, e]));
  const plans: ImportIncludePlan[] = [];
  const includeFiles = [...files].filter(([p]) => isIncludePath(p));
  await prefetch(includeFiles.filter(([p, blob]) => synced.get(p)?.oid !== blob.oid).map(([, blob]) => blob.oid));
  for (const [path, blob] of [...files].filter(([p]) => isIncludePath(p)).sort(([a], [b]) => a.localeCompare(b))) {
    const entry = synced.get(path);
    const id = entry?.targetId ?? newId();
    const lacking = missing(blob.oid) && !(entry && entry.oid === blob.oid);
    if (lacking) warnings.push(`${path}: imported as an empty reusable content (${lacksBlob(blob.oid)})`);
    plans.push(entry && entry.oid === blob.oid ? { path, oid: blob.oid, id } : { path, oid: blob.oid, id, markdown: lacking ? '' : decoder.decode(await read(blob)) });
  }
  const kept = new Set(plans.map((p) => p.id));
  const dropped = [...synced.values()].filter((e) => !kept.has(e.targetId)).map((e) => e.targetId);
  return { plans, idOf: new Map(plans.map((p) => [p.path, p.id])), dropped };
}

/** Warnings of one summary at most: a summary of a renamed folder may list hundreds of files it no longer has. */
const MAX_SUMMARY_WARNINGS = 20;

/**
 * What the operation says of a summary's items that lead to no file, as it says it of redirects: those to a Markdown file
 * the repository lacks (empty pages), and those that are no page (their lines stay in the summary an export writes).
 */
/**
 * The plans of a file whose blob is at several paths (GitBook's `shot.png` and `shot (1).png`), all but one marked
 * `copy`: the file's `git` names the last path in path order (the one a fresh import held in one slice named), the same
 * on every import. Each import set it to whichever path differed from the one last recorded, so it named the other path
 * at every second import, unlike a fresh import; and a large import's slices each set one.
 */
function withCopiesMarked(plans: ImportFilePlan[]): ImportFilePlan[] {
  const named = new Map<string, string>();
  for (const { file, path } of plans) named.set(file, namingPath(named.get(file) ?? path, path));
  return plans.map((plan) => (named.get(plan.file) === plan.path ? plan : { ...plan, copy: true }));
}

/** Of two paths of one blob, the one its file is named after and its `git.path` names: the later in path order. */
function namingPath(a: string, b: string): string {
  return b > a ? b : a;
}

/**
 * A page whose file git's rename detection follows keeps its id, as a page moved or renamed in the app does: links to it,
 * comments and history stay (the import took it for a new page and deleted the old one). Followed, as `git diff -M` pairs
 * them, where only one pairing is possible:
 * - the same blob at a new path, exactly one vanished page and exactly one new page having it (moved, renamed, or both);
 * - else a new page at the place in the space a vanished one had (same parent, same slug), whatever its text;
 * - else a similar blob (RENAME_SIMILARITY) where exactly one page vanished and exactly one appeared under the same parent.
 * The page then takes the new file's path (its slug, answered by key when it changes: what a fresh import names it), and
 * its file is read again, since its links are relative to where it now is.
 */
async function keepMovedPages(
  flat: Array<{ page: LayoutPage; parent: string | null }>,
  plans: Map<string, ImportPagePlan & { changed: boolean }>,
  entries: SyncedSpace['entries'],
  head: RevisionTree,
  session: Pick<GitSession, 'prefetchBlobs' | 'readBlob'>,
): Promise<Map<string, string>> {
  const slugs = new Map<string, string>();
  const claimed = new Set([...plans.values()].flatMap((p) => (p.page ? [p.page] : [])));
  const vanished = entries.filter((e) => e.kind === 'page' && e.oid && !plans.has(e.path) && head.pages.has(e.targetId) && !claimed.has(e.targetId));
  if (vanished.length === 0) return slugs;
  const added = flat.filter(({ page }) => page.path && plans.get(page.key)!.ref);
  const follow = async ({ page }: { page: LayoutPage }, id: string) => {
    plans.set(page.key, { key: page.key, oid: plans.get(page.key)!.oid, page: id, changed: true });
    const slug = page.slug ?? (await slugOfPath(page.path, page.title));
    if (slug && slug !== head.pages.get(id)?.slug) slugs.set(page.key, slug);
  };
  const followed = new Set<string>();
  const vanishedByOid = groupedBy(vanished, (e) => e.oid!);
  for (const [oid, pages] of groupedBy(added, ({ page }) => plans.get(page.key)!.oid)) {
    const ids = vanishedByOid.get(oid);
    if (pages.length !== 1 || ids?.length !== 1) continue;
    await follow(pages[0], ids[0].targetId);
    followed.add(ids[0].targetId);
  }
  // Edited as well as moved: one vanished and one new page under the same parent (the parent kept), if their blobs are alike.
  const parentOf = new Map(head.order.map((o) => [o.id, o.parent ?? '']));
  const left = vanished.filter((e) => !followed.has(e.targetId));
  const newParent = ({ parent }: { parent: string | null }) => (parent ? (plans.get(parent)!.page ?? null) : '');
  const pairs: Array<[(typeof added)[number], (typeof vanished)[number]]> = [];
  for (const [parent, pages] of groupedBy(added.filter((a) => plans.get(a.page.key)!.ref && newParent(a) !== null), (a) => newParent(a)!)) {
    let gone = left.filter((e) => parentOf.get(e.targetId) === parent);
    // At the same place in the space (the slug the vanished page had, under the same parent): GitBook's own move of `x.md`
    // to `x/README.md` once the page has children, often with its text rewritten in the same commit (found-gitprobe18a 4).
    const slugOf = new Map<string, string | null>();
    for (const page of pages) slugOf.set(page.page.key, page.page.slug ?? (await slugOfPath(page.page.path, page.page.title)));
    const placed = pages.filter((page) => {
      const slug = slugOf.get(page.page.key);
      const same = gone.filter((e) => head.pages.get(e.targetId)?.slug === slug);
      return !!slug && same.length === 1 && pages.filter((p) => slugOf.get(p.page.key) === slug).length === 1;
    });
    for (const page of placed) {
      const id = gone.find((e) => head.pages.get(e.targetId)?.slug === slugOf.get(page.page.key))!.targetId;
      await follow(page, id);
      gone = gone.filter((e) => e.targetId !== id);
    }
    const rest = pages.filter((page) => !placed.includes(page));
    if (rest.length === 1 && gone.length === 1) pairs.push([rest[0], gone[0]]);
  }
  if (pairs.length === 0) return slugs;
  const oids = pairs.flatMap(([a, e]) => [plans.get(a.page.key)!.oid, e.oid!]);
  try {
    await session.prefetchBlobs(oids);
    for (const [page, gone] of pairs) {
      if (similarity(await session.readBlob(gone.oid!), await session.readBlob(plans.get(page.page.key)!.oid)) >= RENAME_SIMILARITY) await follow(page, gone.targetId);
    }
  } catch {
    // The old blob is not to be had (a full fetch of the commit alone): the page is a new one, as before.
  }
  return slugs;
}

/**
 * A forced import (force: the repository wins): the kept pages edited in the space since the last sync are read from their
 * files again, as a fresh import reads them, where an unforced import keeps the edits for the next export to write. Edited:
 * its document is not the one its file was synced with, or its head (title, front matter fields) not the one recorded, or
 * not recorded at all; a page given another slug in the app takes the one it was synced with again.
 */
async function rereadEditedSinceSync(
  flat: Array<{ page: LayoutPage }>,
  plans: Map<string, ImportPagePlan & { changed: boolean }>,
  entries: Map<string, SyncedSpace['entries'][number]>,
  head: RevisionTree,
  slugs: Map<string, string>,
): Promise<void> {
  for (const { page } of flat) {
    const plan = plans.get(page.key)!;
    const was = plan.page ? head.pages.get(plan.page) : undefined;
    const entry = entries.get(page.key) ?? (page.path ? entries.get(`${MISSING_KEY_PREFIX}${page.path}`) : undefined);
    if (!was || !entry || entry.targetId !== plan.page) continue;
    const syncedSlug = entry.place ? slugOfPlace(entry.place) : null;
    if (syncedSlug && syncedSlug !== was.slug && !slugs.has(page.key)) slugs.set(page.key, syncedSlug);
    if (plan.changed || !page.path) continue;
    const edited = (was.document ?? null) !== (entry.hash ?? null) || !entry.head || (await headSignature(was)) !== entry.head;
    if (edited) readAgain(plans, page.key);
  }
}

function groupedBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

/** git's default rename threshold (`-M50%`): at least half of the larger file is in the other. */
const RENAME_SIMILARITY = 0.5;

/**
 * How alike two files are, as git's rename detection scores them (diffcore-delta, by line here): the bytes of the lines
 * the two share (each line counted as often as both have it) over the larger file's size.
 */
export function similarity(a: Uint8Array, b: Uint8Array): number {
  const larger = Math.max(a.byteLength, b.byteLength);
  if (larger === 0) return 1;
  const counts = new Map<string, number>();
  for (const line of linesOf(a)) counts.set(line, (counts.get(line) ?? 0) + 1);
  let shared = 0;
  for (const line of linesOf(b)) {
    const n = counts.get(line) ?? 0;
    if (n === 0) continue;
    counts.set(line, n - 1);
    shared += line.length;
  }
  return shared / larger;
}

function linesOf(bytes: Uint8Array): string[] {
  return (decoder.decode(bytes).match(/[^\n]*\n|[^\n]+$/g) ?? []);
}

/**
 * Blobs the space holds as several files (two asset paths given the same bytes by a push: `b.png` now a copy of `a.png`),
 * by blob: the one file a fresh import makes of them, at its naming path (the later: namingPath) and the files that go.
 * `renewed`: that file takes the blob's bytes (its own were replaced). The pages showing a file that goes are converted again
 * (they then show the one kept), so a blob is merged only when those pages are known (the link index is at the head) and
 * each is a page of the commit with a file; else the files stay as they are.
 */
async function mergedCopies(
  flat: Array<{ page: LayoutPage }>,
  plans: Map<string, ImportPagePlan & { changed: boolean }>,
  files: Map<string, { oid: string }>,
  entries: SyncedSpace['entries'],
  head: RevisionTree,
  referrers?: (fileIds: string[]) => Promise<string[] | null>,
): Promise<Map<string, { id: string; path: string; renewed: boolean; dropped: string[] }>> {
  const merges = new Map<string, { id: string; path: string; renewed: boolean; dropped: string[] }>();
  if (!referrers) return merges;
  const atPath = entries.filter((e) => e.kind === 'file' && head.files.has(e.targetId) && files.has(e.path));
  const pathsOfFile = groupedBy(atPath, (e) => e.targetId);
  for (const [oid, group] of groupedBy(atPath, (e) => files.get(e.path)!.oid)) {
    const ids = new Set(group.map((e) => e.targetId));
    // Each file wholly this blob's (a file also at a path of other bytes stays as the import makes it).
    if (ids.size < 2 || [...ids].some((id) => pathsOfFile.get(id)!.some((e) => files.get(e.path)!.oid !== oid))) continue;
    const naming = group.reduce((a, b) => (namingPath(a.path, b.path) === b.path ? b : a));
    merges.set(oid, { id: naming.targetId, path: naming.path, renewed: naming.oid !== oid, dropped: [...ids].filter((id) => id !== naming.targetId) });
  }
  if (merges.size === 0) return merges;
  const pages = await referrers([...merges.values()].flatMap((merged) => merged.dropped));
  const keyOf = keptPageKeys(flat, plans);
  if (pages === null || pages.some((id) => !keyOf.has(id))) return new Map();
  for (const id of pages) readAgain(plans, keyOf.get(id)!);
  return merges;
}

/**
 * The reusable contents kept as they were that show a blob the import merges into one file (mergedCopies): read again, so
 * their images and file links name the file kept, as the pages showing them are (they showed the file that goes).
 */
async function rereadIncludesShowingCopies(
  plans: ImportIncludePlan[],
  files: Map<string, TreeFile>,
  copies: Map<string, unknown>,
  read: (file: TreeFile) => Promise<Uint8Array>,
  session: Pick<GitSession, 'prefetchBlobs' | 'missing'>,
): Promise<void> {
  const kept = plans.filter((plan) => plan.markdown === undefined && !session.missing.has(plan.oid));
  if (kept.length === 0) return;
  await session.prefetchBlobs(kept.map((plan) => plan.oid));
  for (const plan of kept) {
    if (session.missing.has(plan.oid)) continue;
    const text = decoder.decode(await read(files.get(plan.path)!));
    let shows = false;
    rewriteLinks(text, plan.path, (path) => {
      if (copies.has(files.get(path)?.oid ?? '')) shows = true;
      return null;
    });
    if (shows) plan.markdown = text;
  }
}

/**
 * Pages the import removes from the space (none of the commit's pages keeps them): the kept pages whose documents link to
 * them are read again, their links then as a fresh import reads them (to a page of the commit, or as written), where they
 * kept the removed page's id (probe20, wandb/gitbook). Only when those pages are known (the link index is at the head).
 */
async function readAgainLinkingToRemoved(
  flat: Array<{ page: LayoutPage }>,
  plans: PagePlans,
  removed: Set<string>,
  referrers?: (ids: string[]) => Promise<string[] | null>,
): Promise<void> {
  if (!referrers || removed.size === 0) return;
  const keyOf = keptPageKeys(flat, plans);
  for (const id of (await referrers([...removed])) ?? []) if (keyOf.has(id)) readAgain(plans, keyOf.get(id)!);
}

/** The kept pages that come from a file, by id: their plans' keys. */
function keptPageKeys(flat: Array<{ page: LayoutPage }>, plans: PagePlans): Map<string, string> {
  return new Map(flat.flatMap(({ page }) => (page.path && plans.get(page.key)?.page ? [[plans.get(page.key)!.page!, page.key] as const] : [])));
}

/** The kept page of plan `key` converted from its file again (its document and head as the file gives them). */
function readAgain(plans: PagePlans, key: string): void {
  const plan = plans.get(key)!;
  if (!plan.changed) plans.set(key, { key, oid: plan.oid, page: plan.page, changed: true });
}

/** The slugs new pages take from their files (or SUMMARY.md), by parent key ('' at the top). */
async function slugsFilesName(flat: Array<{ page: LayoutPage; parent: string | null }>, plans: Map<string, ImportPagePlan>): Promise<Map<string, Set<string>>> {
  const named = new Map<string, Set<string>>();
  for (const { page, parent } of flat) {
    if (plans.get(page.key)!.page) continue;
    const slug = page.slug ?? (await slugOfPath(page.path, page.title));
    if (!slug) continue;
    const set = named.get(parent ?? '') ?? new Set<string>();
    set.add(slug);
    named.set(parent ?? '', set);
  }
  return named;
}

/**
 * The slug the content batch would give a page whose file names none, when its title is unreadable (limax reads no
 * Hangul: `undefined`): chosen here, numbered past the slugs its siblings' files name, since GitBook named those files
 * by the same numbering (`undefined-1.md`) and the batch, numbering first, took the slug a later file names.
 */
async function unreadableTitleSlug(title: string): Promise<string | null> {
  return (await slugOfTitle(title)) === UNREADABLE_TITLE_SLUG ? UNREADABLE_TITLE_SLUG : null;
}

function summaryWarnings(summaryPath: string, layout: LayoutPage[], unread: UnreadSummaryLines): string[] {
  const said = [
    ...flatten(layout).flatMap(({ page }) => (page.missing ? [`${summaryPath}: the item "${page.title}" leads to "${page.missing}", which is no file of the repository: imported as an empty page`] : [])),
    ...flatten(layout).flatMap(({ page }) => (page.writtenAs ? [`${summaryPath}: the item "${page.title}" leads to "${page.writtenAs}", which is no file of the repository: read as "${page.path}", the one file of that name in other case`] : [])),
    ...unread.lines.flatMap(({ line, why }) => (why ? [`${summaryPath}: the item "${line.trim()}" is no page (${why}); its line is kept`] : [])),
  ];
  return said.length > MAX_SUMMARY_WARNINGS ? [...said.slice(0, MAX_SUMMARY_WARNINGS), `${summaryPath}: ${said.length - MAX_SUMMARY_WARNINGS} more items lead to no file`] : said;
}

/** Why a file was left out when the repository's server does not have its blob (a partial or damaged copy). */
const lacksBlob = (oid: string) => `the repository's server does not have its blob ${oid}`;

/** The title of a reusable content without one in its front matter: its file name. */
export function includeTitleOf(path: string): string {
  return basename(path).replace(/\.md$/i, '').replace(/[-_]+/g, ' ').replace(/^./, (c) => c.toUpperCase());
}
