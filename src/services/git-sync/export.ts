import { and, eq, sql } from 'drizzle-orm';
import { rawAll, type Db } from '../../db/client';
import { changeRequests, revisions, users, type gitSyncEntries } from '../../db/schema/index';
import type { Env } from '../../env';
import { fileKey } from '../content/files';
import { isGroupPage, loadDocuments, slugOfTitle } from '../content/revisions';
import { frontmatterOf } from '../content/reads';
import type { PageRecord } from '../content/pages';
import { documentToMarkdown, withEndingOf } from '../markdown/index';
import { withLineEndingsOf } from '../markdown/line-endings';
import { headSignature, readRevisionTree, type SyncedSpace } from './content';
import {
  basename,
  childFolderOf,
  cleanPath,
  decodeTarget,
  dirname,
  flatten,
  folderTreeLines,
  isLinklessKey,
  isMissingKey,
  isPathlessKey,
  linklessSummaryItem,
  MISSING_KEY_PREFIX,
  parentOfPlace,
  parseGitBookConfig,
  parseSummary,
  placeOf,
  relativeFilePath,
  relativePath,
  relinkedForMoves,
  sameGroupHeading,
  slugOfPlace,
  titleHeadingLine,
  SUMMARY_GROUP_END,
  summaryGroupHeading,
  summaryIndent,
  summaryLineBreaks,
  summaryItem,
  summaryItemForm,
  caseFolded,
  summaryKeys as summaryKeysOf,
  type SummaryIndent,
  type UnreadSummaryLines,
} from './layout';
import type { GitOperationRequest } from './queue';
import type { GitSession, TreeFile } from './transport';

/**
 * Export: the space's head revision becomes one commit on the branch, whose parent is the remote's head.
 * - Only the paths GitBook owns are written: each page's Markdown file, SUMMARY.md (only when the tree it
 *   describes changed), and the space's files under `.gitbook/assets/`; every other file of the repository
 *   keeps its blob.
 * - A page or file unchanged since the last sync (its document hash is the one its blob was read from or
 *   written from: git_sync_entries) keeps its blob and path, so a round trip is byte-identical whatever the
 *   converter writes. A page new to Git gets `<its parent's folder>/<slug>.md` (`.../README.md` when it has
 *   child pages).
 * - Reusable contents are `.gitbook/includes/<slug>.md` (title in the front matter), and a page's include tags
 *   point at them by relative path, as GitBook writes them.
 * - Pages and reusable contents deleted since the last sync lose their files.
 * - The push is never forced: a remote that moved on since it was read refuses it, and the operation fails
 *   with nothing changed on either side. Nothing to change: no commit.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** A replaced page's text as its file has it, a byte order mark included (withLineBreaksOf). */
const decoderKeepingBom = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * `/pages/<id>(#anchor)` or `/files/<id>` where a link target starts (after `"`, `'`, `(`, `<`, `=` or a space), or where
 * an HTML table's link cell has it as its label (`<a href="/pages/<id>">/pages/<id></a>`).
 */
const INTERNAL_HREF = /(?<=["'(<=\s[>]|^)(?:\/pages\/([A-Za-z0-9_-]+)(#[^\s"')<>\]]*)?|\/files\/([A-Za-z0-9_-]+))(?=[\s"')<>\]]|$)/gm;

const relative = relativePath;

/**
 * `./<path>` where the file an export replaces linked the target so (`[x](./guide.md)`, common in hand-written
 * repositories): the import reads both spellings as the same page, and the author's untouched lines stay as they were.
 */
function withDotIfWritten(path: string, previous: string): string {
  if (!previous || path.startsWith('.')) return path;
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:^|[("'<=\\s])\\./${escaped}(?=[)#"'>\\s]|$)`, 'm').test(previous) ? `./${path}` : path;
}

/**
 * Where each link of the file an export replaces (a page's file at `from`) leads, from the content root, with its
 * destination as written. GitBook and authors spell one destination many ways: `./guide.md`, `_` escaped as `\_`
 * (GitBook's own exports: `[Deploy](down\_time/)`), a folder's page as `folder/`, `folder/README.md` or `./`, and
 * `../../x.md` where one `../` leads there (the import stops a path at the root; GitBook-exported Airstack docs link
 * so). Keys: a file's path, or `<folder>/` for a folder.
 */
function spellingsIn(previous: string, from: string): Map<string, string[]> {
  const spellings = new Map<string, string[]>();
  const add = (key: string, written: string) => {
    const known = spellings.get(key);
    if (!known) spellings.set(key, [written]);
    else if (!known.includes(written)) known.push(written);
  };
  for (const { written, resolved, key } of linksIn(previous, from)) {
    add(key, written);
    // A folder's page linked without the slash (`](notes/extras)`, hand-written: AxonIQ's reference guide) is that folder's
    // spelling too: written `notes/extras/` on the untouched lines of an edited page, it changed lines nobody edited.
    if (key === resolved && !/\.[A-Za-z0-9]+$/.test(basename(resolved))) add(`${resolved}/`, written);
  }
  return spellings;
}

/**
 * The links of the file an export replaces (a page's file at `from`), in the order the file has them: each destination as
 * written (spaces as `%20`, no anchor), the path it leads to from the content root, and its key (spellingsIn).
 */
function linksIn(previous: string, from: string): Array<{ written: string; resolved: string; key: string }> {
  const links: Array<{ written: string; resolved: string; key: string }> = [];
  // `page=`: a page-ref (`{% page-ref page="./" %}` in a folder's README names its own page, GitBook's sync of 2021).
  for (const match of previous.matchAll(/\]\(\s*<([^>\n]+)>|\]\(\s*([^)\s]+)|\b(?:href|src|url|page)\s*=\s*["']([^"'\n]+)["']/g)) {
    const written = (match[1] ?? match[2] ?? match[3]).trim().replace(/[#?].*$/, '').replace(/ /g, '%20');
    const path = decodeTarget(written);
    if (path === null) continue;
    // A root-absolute link (`/developers/start.md`, hand-written: phantasma's docs) leads from the content root, as the
    // import reads it; written relative on the untouched lines of an edited page, it changed 40 of 60 edited files.
    const resolved = cleanPath(written.startsWith('/') ? path : `${dirname(from)}/${path}`);
    links.push({ written, resolved, key: /(?:^|\/)\.{0,2}$/.test(path) ? `${resolved}/` : resolved });
  }
  return links;
}

/**
 * How the replaced file spelled a link to `target` (a folder's page: also its folder), or null (spellingsIn). A file
 * may spell one target several ways (`../../guides/a.md` on one line, `../guides/a.md` on another: devtron's docs);
 * the spelling its own line had is the one written after the same text (`lineBefore`, the line up to the link).
 */
function spelledAsBefore(spellings: Map<string, string[]>, target: string, isPage: boolean, previous: string, lineBefore: string): string | null {
  // Both spellings of a folder's page: a file may link it `kinds/README.md` on one line and `kinds/` on another.
  const folder = isPage && /(?:^|\/)README\.md$/i.test(target) ? (spellings.get(`${dirname(target)}/`) ?? []) : [];
  const known = [...(spellings.get(target) ?? []), ...folder];
  if (!known.length) return null;
  if (known.length === 1) return known[0];
  const context = contextOf(lineBefore);
  return known.find((spelling) => previous.includes(`${context}${spelling}`)) ?? known[0];
}

/** The text before a link on its line, as the replaced file has it too: an earlier link of the line still holds its `/pages/<id>` here. */
const contextOf = (lineBefore: string) => lineBefore.slice(-48).replace(/^.*\/(?:pages|files)\/[^\s"')]*/, '');

/**
 * How the replaced file spelled, after the same text (`lineBefore`), a link naming a file the repository does not have
 * that leads to `target` by the page's place instead (`[Ask API](ask-api.md)` in `reference/corpus/README.md`, read as
 * the page of `reference/ask-api.md`: clarity-fintech's docs), or null. Written from `target`, the untouched line changed
 * to `../ask-api.md`. The same file name is asked, so only a link the import could have read as this page is kept.
 */
function missingFileSpelling(links: ReturnType<typeof linksIn>, exists: (path: string) => boolean, target: string, previous: string, lineBefore: string): string | null {
  const context = contextOf(lineBefore);
  const named = links.find((link) => link.key === link.resolved && basename(link.resolved) === basename(target) && !exists(link.resolved) && previous.includes(`${context}${link.written}`));
  return named?.written ?? null;
}

/**
 * The line breaks and byte order mark of the file an edited page replaces: a file written with CRLF throughout (on
 * Windows) keeps CRLF on every line, and one that began with a BOM keeps it. Written with LF and no BOM, every line of
 * such a file differed in the commit, whatever the edit.
 */
function withLineBreaksOf(markdown: string, previous: string): string {
  const bom = previous.startsWith('\uFEFF') && !markdown.startsWith('\uFEFF') ? '\uFEFF' : '';
  const crlf = previous.includes('\r\n') && !/(?:^|[^\r])\n/.test(previous) && !/\r(?!\n)/.test(previous);
  // Some lines CRLF, others LF (or a lone CR): each line keeps its own (line-endings.ts).
  return bom + (crlf ? markdown.replace(/\r?\n/g, '\r\n') : withLineEndingsOf(markdown, previous));
}

/**
 * A path as the file an export replaces spelled it. A quoted attribute (`<img src="...">`) holds a space as it is, as
 * GitBook writes it, and a Markdown link `%20`; unless the file wrote `%20` in the attribute, or percent-encoded more
 * than spaces (`image%20%2891%29.png`, as GitBook's earlier exporter did): the import reads every spelling as the file.
 */
function hrefAsWritten(path: string, quote: string | null, previous: string): string {
  const written = quote ? path.replace(/%20/g, ' ') : path;
  // `path` may be another link's spelling of the file (spelledAsBefore: `shot%20%2812%29.png`), where this attribute
  // wrote it plain (`src="shot (12).png"`): every spelling is tried from the decoded path.
  const decoded = decodeTarget(path) ?? path;
  const encoded = decoded
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
  return [written, path, encoded, decoded].find((spelling) => previous.includes(`${quote ?? '('}${spelling}`)) ?? written;
}

/**
 * An anchor as the file an export replaces wrote it after `path`: GitBook escapes `_` in anchors as in paths
 * (`#\_overview`, ssvlabs' GitBook-exported docs); written bare, the untouched lines of an edited page changed.
 */
function anchorAsWritten(anchor: string | undefined, path: string, previous: string): string {
  if (!anchor?.includes('_')) return anchor ?? '';
  const escaped = anchor.replace(/(?<!\\)_/g, '\\_');
  return previous.includes(`${path}${escaped}`) ? escaped : anchor;
}

export async function runExport(
  env: Env,
  db: Db,
  session: GitSession,
  input: {
    spaceId: string;
    request: GitOperationRequest;
    remoteHead: string | null;
    space: SyncedSpace;
    beforePush?: (commit: string) => Promise<void>;
    /** Nothing is committed or pushed, nor the branch checked: the rows, and whether the branch already holds every file (an export whose push landed). */
    recordOnly?: boolean;
  },
): Promise<{ commit: string | null; rows: Array<typeof gitSyncEntries.$inferInsert>; pathPrefix: string; unchanged?: boolean }> {
  const { request, remoteHead, space } = input;
  // With the submodules: the commit's tree is made of this list, and a submodule left out of it was deleted.
  const remoteFiles: TreeFile[] = remoteHead ? await session.listFiles(remoteHead, '', { submodules: true }) : [];
  const projectDir = cleanPath(request.repoProjectDirectory ?? '');
  const projectPrefix = projectDir ? `${projectDir}/` : '';
  const byPath = new Map(remoteFiles.map((f) => [f.path, f]));
  const configFile = byPath.get(`${projectPrefix}.gitbook.yaml`);
  // A target without `.gitbook.yaml` (a new branch, an empty repository) gets the one the space was imported with, where
  // that one is not GitBook's default (a fresh repository gets none from GitBook: elsa-gitbook, dsa-notes, beefree and
  // cipp-docs' first GitBook commits hold no .gitbook.yaml): its root, readme, summary and redirects were lost.
  const keptConfig = configFile ? undefined : input.space.entries.find((e) => e.kind === 'config' && e.text);
  const config = parseGitBookConfig(configFile ? decoder.decode(await session.readBlob(configFile.oid)) : (keptConfig?.text ?? null));
  const contentPrefix = `${projectPrefix}${config.root ? `${config.root}/` : ''}`;
  const full = (path: string) => `${contentPrefix}${path}`;

  const entries = space.entries;
  if (remoteHead && !request.force && !input.recordOnly) await assertNothingUnimported(db, session, { spaceId: input.spaceId, space, remoteHead, remoteFiles, byPath, full, configPath: `${projectPrefix}.gitbook.yaml`, contentPrefix });
  const tree = await readRevisionTree(db, space.head);
  const pageEntry = new Map(entries.filter((e) => e.kind === 'page').map((e) => [e.targetId, e]));
  const fileEntry = new Map(entries.filter((e) => e.kind === 'file').map((e) => [e.targetId, e]));

  // Paths: kept from the last sync, or made from the tree (a new page, or one that moved or was renamed since).
  const pathOf = new Map<string, string | null>();
  const taken = new Set(entries.map((e) => e.path));
  const hasChildren = new Set(tree.order.flatMap((o) => (o.parent ? [o.parent] : [])));
  // The folder a page's children were synced in, and the one they go in now (a group's: its slug).
  const folderThen = (id: string): string | null => {
    const entry = pageEntry.get(id);
    if (!entry) return null;
    if (!isPathlessKey(entry.path)) return childFolderOf(entry.path);
    return entry.path.startsWith('group:') && entry.place ? slugOfPlace(entry.place) : null;
  };
  const folderNow = (id: string) => {
    const path = pathOf.get(id);
    return path ? childFolderOf(path) : slugFolder(tree, id);
  };
  // GitBook moves a page's file when the page moves or is renamed (docs-sfp: GITBOOK-247 moved a page into another
  // group, GITBOOK-154 renamed one, GITBOOK-248 renamed a group and its pages' folder): a page whose parent or slug is
  // not the one its file was synced with moves, and so does one whose parent's folder moved with its file in it. An
  // entry synced before places were recorded (place NULL) keeps its file, and so does the first page (`README.md`).
  // A page that gained its first child pages, or lost its last, moves too: `a.md` -> `a/README.md` and back (GITBOOK-197,
  // GITBOOK-45: `release/README.md` -> `release.md` beside its folder), in the folder its author keeps it in
  // (`content/a.md` under `## Guides` stays in `content/`, not the group's slug folder `guides/`).
  const hadChildren = new Set(entries.flatMap((e) => (e.kind === 'page' && e.place ? [parentOfPlace(e.place)] : [])));
  const moveOf = (entry: (typeof entries)[number], id: string, parent: string | null, slug: string): 'place' | 'children' | null => {
    if (entry.place === null || entry.path === config.readme || isPathlessKey(entry.path)) return null;
    if (entry.place !== placeOf(parent, slug)) return 'place';
    const then = parent ? folderThen(parent) : null;
    if (!!parent && !!then && then !== folderNow(parent) && entry.path.startsWith(`${then}/`)) return 'place';
    const isReadme = basename(entry.path).toLowerCase() === 'readme.md';
    return hadChildren.has(id) !== hasChildren.has(id) && isReadme !== hasChildren.has(id) ? 'children' : null;
  };
  /** The folder a page's file is kept in by its author: its file's, or the one holding its own folder for `a/README.md`. */
  const authorFolderOf = (path: string) => (basename(path).toLowerCase() === 'readme.md' ? dirname(dirname(path)) : dirname(path));
  // Files moved by this export: their path when synced -> their path now (from the content root).
  const moved = new Map<string, string>();
  for (const { id, parent, index } of tree.order) {
    const entry = pageEntry.get(id);
    const page = tree.pages.get(id)!;
    // An item without a link keeps having no file until it has content; then it gets one like a new page.
    const itemWithContent = !!entry && isLinklessKey(entry.path) && !!page.document;
    const move = entry && !itemWithContent ? moveOf(entry, id, parent, page.slug) : null;
    if (entry && !itemWithContent && !move) {
      pathOf.set(id, isPathlessKey(entry.path) ? null : entry.path);
      continue;
    }
    // A link page and a group have no file: SUMMARY.md holds them (a group's pages go in its slug's folder).
    if (page.link || isGroupPage(page) || (entry && isPathlessKey(entry.path) && !itemWithContent)) {
      pathOf.set(id, null);
      continue;
    }
    const synced = entry && !isPathlessKey(entry.path) ? entry.path : null;
    const folder = move === 'children' && synced ? authorFolderOf(synced) : parent ? folderNow(parent) : '';
    const prefix = folder ? `${folder}/` : '';
    const free = (path: string) => path === synced || (!taken.has(path) && !(synced && byPath.has(full(path))));
    let path: string;
    if (!parent && index === 0 && !taken.has(config.readme)) path = config.readme;
    else path = hasChildren.has(id) ? `${prefix}${page.slug}/README.md` : `${prefix}${page.slug}.md`;
    // Numbered from 1, as GitBook names a second file of one slug (`create-the-map-1.md` beside `create-the-map/`).
    for (let n = 1; !free(path); n++) path = hasChildren.has(id) ? `${prefix}${page.slug}-${n}/README.md` : `${prefix}${page.slug}-${n}.md`;
    taken.add(path);
    pathOf.set(id, path);
    if (synced && path !== synced) moved.set(synced, path);
  }

  // The file a page's summary item names that the repository does not have (its key `missing:<file>`), or undefined.
  const missingFileOf = (id: string) => {
    const path = pageEntry.get(id)?.path;
    return path && isMissingKey(path) ? path.slice(MISSING_KEY_PREFIX.length) : undefined;
  };
  // Where a link page's item leads, from the content root: its URL, or its page's file and the anchor.
  const linkDestination = (link: NonNullable<PageRecord['link']>) => (link.kind === 'url' ? link.url : `${pathOf.get(link.page) ?? ''}#${link.anchor}`);
  // The keys a summary gives the pages without a file (groups, links), as the import reads them back.
  const summaryKeys = summaryKeysOf(
    tree.order.flatMap(({ id }) => {
      const page = tree.pages.get(id)!;
      const linkless = !page.link && !isGroupPage(page);
      const missing = missingFileOf(id);
      return pathOf.get(id) === null ? [{ id, title: page.title, ...(page.link ? { link: linkDestination(page.link) } : {}), linkless, ...(missing ? { missing } : {}) }] : [];
    }),
  );
  const summaryKeyOf = (id: string) => summaryKeys.get(id)!;

  // Files: kept, or new under .gitbook/assets/.
  const filePath = new Map<string, string>();
  for (const [id, file] of tree.files) {
    const entry = fileEntry.get(id);
    if (entry) {
      filePath.set(id, entry.path);
      continue;
    }
    const name = file.name.replace(/[/\\]/g, '-');
    let path = `.gitbook/assets/${name}`;
    for (let n = 1; taken.has(path) || byPath.has(full(path)); n++) path = `.gitbook/assets/${numberedName(name, n)}`;
    taken.add(path);
    filePath.set(id, path);
  }

  // One blob under several paths (GitBook keeps `a.png` and `a (1).png` when an image is uploaded twice) is one file with
  // an entry for each path: a page keeps naming the copy its file named, or its edit changes the image's line too.
  const copiesOf = new Map<string, string[]>();
  for (const e of entries) if (e.kind === 'file') copiesOf.set(e.targetId, [...(copiesOf.get(e.targetId) ?? []), e.path]);
  // `nth`: which reference to the file this is in the page written, of how many. A page may name several copies (GitBook's
  // re-upload copies `image (3) (2).png` and `image (5) (3) (1).png` in one page: superstreamlabs' docs): the k-th
  // reference takes the copy of the k-th reference to any of them in the file replaced, when the counts agree.
  const fileCopyNamed = (id: string, from: string, previous: string, nth?: { index: number; count: number }): string | undefined => {
    const path = filePath.get(id);
    const copies = copiesOf.get(id) ?? [];
    if (!path || copies.length < 2 || !previous) return path;
    const inOrder = nth ? linksOf(previous, from).flatMap((link) => (copies.includes(link.resolved) ? [link.resolved] : [])) : [];
    if (nth && inOrder.length === nth.count) return inOrder[nth.index];
    // Read through the file's own link spellings too: GitBook's exporter percent-encoded parentheses (wandb's
    // `image%20%2888%29%20%282%29.png`), so no spelling of the copy's path was found and the line named another copy.
    const named = (copy: string) => previous.includes(relative(from, copy)) || previous.includes(relative(from, copy).replace(/%20/g, ' ')) || spellingsOf(previous, from).has(copy);
    return named(path) ? path : (copies.find(named) ?? path);
  };

  // Reusable contents: kept paths, or new under .gitbook/includes/.
  const reusableEntry = new Map(entries.filter((e) => e.kind === 'reusable').map((e) => [e.targetId, e]));
  const includePath = new Map<string, string>();
  for (const content of space.head.meta.reusableContents) {
    const entry = reusableEntry.get(content.id);
    if (entry) {
      includePath.set(content.id, entry.path);
      continue;
    }
    const slug = (await slugOfTitle(content.title)) || 'reusable-content';
    let path = `.gitbook/includes/${slug}.md`;
    for (let n = 2; taken.has(path) || byPath.has(full(path)); n++) path = `.gitbook/includes/${slug}-${n}.md`;
    taken.add(path);
    includePath.set(content.id, path);
  }
  // GitBook's include tags name the reusable content's file, relative to the page.
  const withIncludePaths = (markdown: string, from: string) =>
    markdown.replace(/(\{%\s*include\s+")([^"]+)("\s*%\})/g, (whole, before: string, id: string, after: string) => {
      const path = includePath.get(id.replace(/&quot;/g, '"'));
      return path ? `${before}${relativeFilePath(from, path)}${after}` : whole;
    });

  // Pages are written with the space's own hrefs (`/pages/<id>`, `/files/<id>`), the ones the import wrote and the
  // source's kept lines hold (GitBook's `<figure>`, HTML the converter does not read), then each of them whose page
  // or file the repository has becomes its path relative to the page; others (another space's pages) stay.
  // The replaced file's spellings, read once per page: its links are rewritten one at a time.
  let spellingsRead: { previous: string; from: string; spellings: Map<string, string[]>; links: ReturnType<typeof linksIn> } | null = null;
  const readSpellings = (previous: string, from: string) => {
    if (spellingsRead?.previous !== previous || spellingsRead.from !== from) spellingsRead = { previous, from, spellings: spellingsIn(previous, from), links: linksIn(previous, from) };
    return spellingsRead;
  };
  const spellingsOf = (previous: string, from: string) => readSpellings(previous, from).spellings;
  const linksOf = (previous: string, from: string) => readSpellings(previous, from).links;
  // How many times the page written references each file (`/files/<id>`): fileCopyNamed's `nth`.
  const fileReferences = (markdown: string) => {
    const counts = new Map<string, number>();
    for (const match of markdown.matchAll(INTERNAL_HREF)) {
      // A label (`<a href="/files/<id>">/files/<id></a>`) is no reference of the file replaced (linksIn).
      const label = markdown[match.index - 1] === '[' || markdown[match.index - 1] === '>';
      if (match[3] !== undefined && !label) counts.set(match[3], (counts.get(match[3]) ?? 0) + 1);
    }
    return counts;
  };
  const withRepositoryPaths = (markdown: string, from: string, previous = '') => {
    // Counted only in a page naming a file that has copies (most pages name none).
    let counts: Map<string, number> | undefined;
    const seen = new Map<string, number>();
    const nthOf = (file: string) => {
      if (!previous || (copiesOf.get(file)?.length ?? 0) < 2) return undefined;
      counts ??= fileReferences(markdown);
      const index = seen.get(file) ?? 0;
      seen.set(file, index + 1);
      return { index, count: counts.get(file) ?? 0 };
    };
    return markdown.replace(INTERNAL_HREF, (whole, page: string | undefined, anchor: string | undefined, file: string | undefined, at: number) => {
      const label = markdown[at - 1] === '[' || markdown[at - 1] === '>';
      const target = file !== undefined ? fileCopyNamed(file, from, previous, label ? undefined : nthOf(file)) : pathOf.get(page!);
      if (!target) return whole;
      // A folder's page is linked as its folder (`../guides/`), as GitBook writes it, unless the file replaced wrote
      // `../guides/README.md` (both are found in repositories; the import reads both as the page).
      const relativePath = relative(from, target);
      const lineBefore = markdown.slice(markdown.lastIndexOf('\n', at - 1) + 1, at);
      const path =
        (!label && spelledAsBefore(spellingsOf(previous, from), target, file === undefined, previous, lineBefore)) ||
        (!label && file === undefined && previous && missingFileSpelling(linksOf(previous, from), (p) => byPath.has(full(p)), target, previous, lineBefore)) ||
        withDotIfWritten(file === undefined && !previous.includes(relativePath) ? relativePath.replace(/(?<=\/)README\.md$/i, '') : relativePath, previous);
      const quote = markdown[at - 1] === '"' || markdown[at - 1] === "'" ? markdown[at - 1] : null;
      const written = hrefAsWritten(path, quote, previous);
      const href = `${written}${anchorAsWritten(anchor, written, previous)}`;
      // GitBook writes a destination with spaces in angle brackets (`](<../.gitbook/assets/a (1).png>)`, a new link too:
      // sun0lee-esg GITBOOK-121, bb330fc), its older exporter every image's (`](<../assets/image(77).png>)`): kept so
      // where the file had it, and so for a link the file did not spell (`%20` only where it did).
      const spaced = path.replace(/%20/g, ' ');
      const newLink = spaced !== path && written === path && !previous.includes(`(${path}`);
      if (markdown[at - 1] === '(' && (newLink || previous.includes(`(<${spaced}`))) return `<${spaced}${anchor ?? ''}>`;
      // A content-ref's label is its href: GitBook writes the href's last segment (`[inline.md](../blocks/inline.md)`).
      // (a folder's: its name, `[guides](guides/)`); so it labels an HTML table's link cell (`<a href="x.md">x.md</a>`).
      return label ? (href.match(/[^/]+(?=\/?$)/)?.[0] ?? href) : href;
    });
  };
  const out = new Map(byPath);
  // A file written here keeps the executable bit the repository gave it (100755): only its content is GitBook's.
  const modeAt = (...paths: Array<string | undefined>): string => (paths.map((p) => (p === undefined ? undefined : byPath.get(p))).find(Boolean)?.mode === '100755' ? '100755' : '100644');
  // The redirects an import wrote stay recorded: the next import removes those .gitbook.yaml no longer has.
  const rows: Array<typeof gitSyncEntries.$inferInsert> = entries.filter((e) => e.kind === 'redirect' || e.kind === 'config');
  if (keptConfig) out.set(`${projectPrefix}.gitbook.yaml`, { path: `${projectPrefix}.gitbook.yaml`, oid: await session.writeBlob(encoder.encode(keptConfig.text!)), mode: modeAt(`${projectPrefix}.gitbook.yaml`) });
  // Paths the last sync left that the space no longer has.
  const reusableById = new Map(space.head.meta.reusableContents.map((c) => [c.id, c]));
  for (const e of entries) {
    if (e.kind === 'redirect' || e.kind === 'config') continue;
    const gone = e.kind === 'page' ? !tree.pages.has(e.targetId) : e.kind === 'reusable' ? !reusableById.has(e.targetId) : !tree.files.has(e.targetId);
    if (gone && !isPathlessKey(e.path)) out.delete(full(e.path));
  }
  for (const from of moved.keys()) out.delete(full(from));
  // Files that stay as they were synced, with the links of those that lead to a moved file written for its new path
  // (and a moved file's own links for its new folder): the rest of each stays byte for byte.
  if (moved.size > 0) {
    await session.prefetchBlobs(entries.flatMap((e) => ((e.kind === 'page' || e.kind === 'reusable') && byPath.has(full(e.path)) ? [byPath.get(full(e.path))!.oid] : [])));
  }
  const relinked = async (oid: string, from: string, to: string): Promise<string> => {
    if (moved.size === 0) return oid;
    const text = decoder.decode(await session.readBlob(oid));
    const written = relinkedForMoves(text, from, to, moved);
    return written === text ? oid : session.writeBlob(encoder.encode(written));
  };

  // Pages whose document or head changed (or that are new) are written; the others keep their blob. An entry synced
  // before heads were recorded (head NULL) is compared by its document alone.
  const headOf = new Map(await Promise.all(tree.order.map(async ({ id }) => [id, await headSignature(tree.pages.get(id)!)] as const)));
  const unchanged = (id: string, entry: (typeof entries)[number] | undefined): boolean =>
    !!entry && entry.hash === (tree.pages.get(id)!.document ?? null) && (entry.head === null || entry.head === headOf.get(id)) && byPath.has(full(entry.path));
  const changed = tree.order.filter(({ id }) => pathOf.get(id) !== null && !unchanged(id, pageEntry.get(id)));
  // With the documents their files were last synced from (same query): a file keeps its own ending when edited.
  const documents = await loadDocuments(db, changed.flatMap(({ id }) => [tree.pages.get(id)!.document, pageEntry.get(id)?.hash].filter((hash): hash is string => !!hash)));
  // The files the changed pages replace, fetched in batches first: read one by one below, each was a request of its own
  // (201 of an export of 201 edited pages' 207).
  const replacedFiles = changed.flatMap(({ id }) => {
    const entry = pageEntry.get(id);
    const replaced = entry && byPath.get(full(entry.path));
    return replaced ? [replaced.oid] : [];
  });
  await session.prefetchBlobs(replacedFiles);
  // Pages written again whose heading 1 changed (retitled in the app), and those whose heading 1 stayed: SUMMARY.md's item
  // follows the title, as GitBook writes it (git-sync-normalization: each item says its page's heading 1).
  const retitled = new Set<string>();
  const headingKept = new Set<string>();
  for (const { id, parent } of tree.order) {
    const page = tree.pages.get(id)!;
    const path = pathOf.get(id);
    const entry = pageEntry.get(id);
    const place = placeOf(parent, page.slug);
    if (path === null || path === undefined) {
      rows.push({ spaceId: input.spaceId, path: entry?.path ?? summaryKeyOf(id), kind: 'page', targetId: id, oid: '', hash: page.document ?? null, head: headOf.get(id), place });
      continue;
    }
    const keep = unchanged(id, entry);
    let oid: string;
    if (keep) {
      oid = await relinked(byPath.get(full(entry!.path))!.oid, entry!.path, path);
    } else {
      const document = page.document ? documents.get(page.document) : undefined;
      // All the page's fields, as a page read writes them: `hidden`, `layout`, `if`... were lost with only two of them.
      const frontmatter = frontmatterOf(page);
      const synced = entry?.hash ? documents.get(entry.hash) : undefined;
      // A file that had no heading 1 (its title in SUMMARY.md only) is written back without one.
      const title = entry?.titleHeading === false ? undefined : page.title;
      const replaced = entry && byPath.get(full(entry.path));
      const previous = replaced ? decoderKeepingBom.decode(await session.readBlob(replaced.oid)) : '';
      // A table's columns are padded by its cells as written here, a page's path for its `/pages/<id>`.
      const cellsWrittenAs = (cell: string) => withRepositoryPaths(cell, path, previous);
      const written = documentToMarkdown(document ?? { object: 'document', data: {}, nodes: [] }, { title, frontmatter, cellsWrittenAs });
      // Lines the source patch kept as they were hold the links they had: those to a moved file lead to its new path.
      // (And those labelled with a moved file's old name are labelled with its new one.)
      const markdown = relinkedForMoves(withRepositoryPaths(withIncludePaths(withEndingOf(written, synced), path), path, previous), path, path, moved, previous);
      if (previous && entry?.titleHeading !== false) (titleHeadingLine(previous) === titleHeadingLine(markdown) ? headingKept : retitled).add(id);
      oid = await session.writeBlob(encoder.encode(withLineBreaksOf(markdown, previous)));
    }
    out.set(full(path), { path: full(path), oid, mode: modeAt(entry && full(entry.path), full(path)) });
    rows.push({ spaceId: input.spaceId, path, kind: 'page', targetId: id, oid, hash: page.document ?? null, titleHeading: entry?.titleHeading ?? true, head: headOf.get(id), place });
  }

  for (const [id, file] of tree.files) {
    const path = filePath.get(id)!;
    const entry = fileEntry.get(id);
    let oid: string;
    if (entry && byPath.has(full(entry.path))) {
      oid = byPath.get(full(entry.path))!.oid;
    } else {
      // Never held: its id computed as it passes, its bytes read again into the push as it is sent (writeStreamedBlob).
      const object = await env.FILES.get(fileKey(file.hash));
      if (!object) continue;
      oid = await session.writeStreamedBlob(object.size, object.body, async () => (await env.FILES.get(fileKey(file.hash)))?.body ?? null);
    }
    out.set(full(path), { path: full(path), oid, mode: modeAt(entry && full(entry.path), full(path)) });
    // The other copies of its blob stay recorded (before its own path, which the last row of a file gives) for the next export.
    for (const copy of copiesOf.get(id) ?? []) {
      if (copy !== path && out.get(full(copy))?.oid === oid) rows.push({ spaceId: input.spaceId, path: copy, kind: 'file', targetId: id, oid, hash: null });
    }
    rows.push({ spaceId: input.spaceId, path, kind: 'file', targetId: id, oid, hash: null });
  }

  // Reusable contents whose document changed (or that are new) are written; the others keep their blob.
  const includeDocuments = await loadDocuments(
    db,
    space.head.meta.reusableContents.flatMap((c) => {
      const entry = reusableEntry.get(c.id);
      return c.document && !(entry && entry.hash === c.document && byPath.has(full(entry.path))) ? [c.document] : [];
    }),
  );
  for (const content of space.head.meta.reusableContents) {
    const path = includePath.get(content.id)!;
    const entry = reusableEntry.get(content.id);
    let oid: string;
    if (entry && entry.hash === (content.document ?? null) && byPath.has(full(entry.path))) {
      oid = await relinked(byPath.get(full(entry.path))!.oid, entry.path, path);
    } else {
      const document = (content.document ? includeDocuments.get(content.document) : undefined) ?? { object: 'document' as const, data: {}, nodes: [] };
      oid = await session.writeBlob(encoder.encode(withRepositoryPaths(withIncludePaths(documentToMarkdown(document, { frontmatter: { title: content.title } }), path), path)));
    }
    out.set(full(path), { path: full(path), oid, mode: modeAt(entry && full(entry.path), full(path)) });
    rows.push({ spaceId: input.spaceId, path, kind: 'reusable', targetId: content.id, oid, hash: content.document ?? null });
  }

  // SUMMARY.md: written again only when the tree it describes is not the space's.
  const summaryPath = full(config.summary);
  const summaryFile = byPath.get(summaryPath);
  // A page's place, and its navigation title where it has one (the summary's quoted link title).
  const treeLine = (key: string, parent: string, index: number, linkTitle?: string) => `${key}<${parent}#${index}${linkTitle ? ` "${linkTitle}"` : ''}`;
  const wantedTree = tree.order.map(({ id, parent, index }) =>
    treeLine(pathOf.get(id) ?? summaryKeyOf(id), parent ? (pathOf.get(parent) ?? summaryKeyOf(parent)) : '', index, tree.pages.get(id)!.linkTitle),
  );
  let summaryMatches = false;
  // The text of each item of the summary the repository has, by page key: kept where the page's title did not change.
  const itemText = new Map<string, string>();
  // Each item's line as the author wrote it, by page key, and the indentation of one level: a line saying what ours
  // says is kept as it was (`-` bullets, 4 spaces, `./` and escapes), so SUMMARY.md changes only where the tree did.
  const authorsLine = new Map<string, string>();
  // How deep each of those lines nests, as the import read it: a summary indenting one part by 4 spaces and another by
  // 2 (Curiouserw/gitbooks-devops-roadmap) measured by one unit had its 4-space lines read a level too deep, and written again.
  const authorsDepth = new Map<string, number>();
  const summaryDir = config.summary.includes('/') ? dirname(config.summary) : '';
  let indent: SummaryIndent = { unit: 2, base: 0 };
  // The author's line breaks and ending, kept: a summary written on Windows had every line rewritten with LF.
  let breaks = summaryLineBreaks('');
  let authorsTitle: string | undefined;
  // Heading lines (the title's and the groups') the author wrote with no blank line under them, or none above them:
  // written again, a heading the export keeps keeps its spacing (an author writing `## Group` right above its items got a
  // blank line under each group's heading from every export that wrote the summary again).
  const tightBelow = new Set<string>();
  const tightAbove = new Set<string>();
  // Item lines the author wrote after a blank line, and whether most items are (a loose list): written again, the blank
  // lines stay (an export that wrote hellop2p's summary again took the blank line out from between each of its items).
  const looseAbove = new Set<string>();
  let looseSummary = false;
  // The author's item lines that are no page (a link to no Markdown file, a note without a link...), and where they were.
  const unread: UnreadSummaryLines = { keys: [], lines: [] };
  if (summaryFile) {
    const summaryText = decoder.decode(await session.readBlob(summaryFile.oid));
    indent = summaryIndent(summaryText);
    breaks = summaryLineBreaks(summaryText);
    authorsTitle = /^\s*(#[ \t]+\S.*?)[ \t]*(?:\r?\n|$)/.exec(summaryText)?.[1];
    const summaryLines = summaryText.split(/\r?\n/);
    let items = 0;
    summaryLines.forEach((line, i) => {
      if (/^\s*[*+-]\s/.test(line)) {
        items++;
        // A blank line between it and the item before it (not a heading's or the title's blank line).
        if (i > 1 && !summaryLines[i - 1].trim() && /^\s*[*+-]\s/.test(summaryLines[i - 2])) looseAbove.add(line);
      }
      if (!/^#{1,6}[ \t]/.test(line)) return;
      if (summaryLines[i + 1]?.trim()) tightBelow.add(line);
      if (i > 0 && summaryLines[i - 1].trim()) tightAbove.add(line);
    });
    // A loose list (a blank line between the items, hellop2p's): new items are written so too.
    looseSummary = items > 1 && looseAbove.size * 2 > items;
    // An item naming its file in other case (`README.md` for `README.MD`) is that file's, as the import read it (caseFolded);
    // one naming a symbolic link or a submodule is no file's, as the import read it too: the summary was written again.
    const inContent = [...out.values()].flatMap((f) => (f.path.startsWith(contentPrefix) && f.mode !== '120000' && f.mode !== '160000' ? [f.path.slice(contentPrefix.length)] : []));
    const layout = parseSummary(summaryText, summaryDir, caseFolded(new Set(inContent)), authorsLine, unread, config.summary, authorsDepth);
    for (const { page } of flatten(layout)) if (page.path) itemText.set(page.path, page.title);
    const listed = new Set(flatten(layout).map((e) => e.page.path));
    if (out.has(full(config.readme)) && !listed.has(config.readme)) layout.unshift({ path: config.readme, key: config.readme, title: '', children: [] });
    const have = flatten(layout).map(({ page, parent, index }) => treeLine(page.key, parent ?? '', index, page.linkTitle));
    summaryMatches = have.length === wantedTree.length && have.every((line, i) => line === wantedTree[i]);
    // A page whose file has no heading 1 has its title in its item only: renamed in the app, the summary says the new one.
    // Compared by the tree alone, the rename exported no commit, and the next push titled the page by its old item again.
    const titledByItem = ({ id }: { id: string }) => {
      const entry = pageEntry.get(id);
      const path = pathOf.get(id);
      const text = path ? itemText.get(path) : undefined;
      return entry?.titleHeading !== false || !text || text === tree.pages.get(id)!.title;
    };
    if (summaryMatches) summaryMatches = tree.order.every(titledByItem);
    // A page retitled in the app whose item says another title: its item says the new one. Compared by the tree alone, the
    // summary kept the old title (stale until the next change of the tree).
    const itemFollows = (id: string) => !retitled.has(id) || itemText.get(pathOf.get(id) ?? '') === tree.pages.get(id)!.title;
    if (summaryMatches) summaryMatches = [...retitled].every(itemFollows);
  } else {
    // Without a summary, the repository's folders are its tree: a summary is written only once the space's differs,
    // or on the space's first export (nothing synced yet), where GitBook always writes one: its first commit to a
    // repository holding only GitHub's README or LICENSE adds SUMMARY.md even for one page (elsa-gitbook,
    // dsa-notes, beefree: each first GITBOOK commit).
    const paths = [...out.values()].flatMap((f) => (f.path.startsWith(contentPrefix) && f.mode !== '120000' && f.mode !== '160000' ? [f.path.slice(contentPrefix.length)] : []));
    const have = folderTreeLines(paths.filter((p) => /\.md$/i.test(p) && !p.startsWith('.gitbook/') && p !== config.summary), config.readme);
    // A target with nothing yet (an empty repository, a new branch) gets one too, as GitBook's first commit to one has.
    summaryMatches = entries.length > 0 && remoteHead !== null && have.length === wantedTree.length && have.every((line, i) => line === wantedTree[i]);
  }
  if (!summaryMatches) {
    // An item's text where the author wrote other than the page's title (`* [Setup](install.md)` for "# Installing"):
    // kept while the page keeps its file and its title (its head, which holds the title, is the one last synced).
    // (A page whose file moved keeps its item's text too: its path changed, not its title.)
    const authorsText = (id: string): string | undefined => {
      const entry = pageEntry.get(id);
      // (A page written again with its heading 1 as it was keeps it too: its front matter changed, not its title.)
      const sameTitle = entry?.head === headOf.get(id) || headingKept.has(id);
      return entry && entry.head !== null && sameTitle && !retitled.has(id) ? itemText.get(entry.path) || undefined : undefined;
    };
    // The summary's own title as its author wrote it (`# Summary`), GitBook's where it has none.
    const lines = [authorsTitle ?? '# Table of contents', ...(authorsTitle !== undefined && [...tightBelow].some((line) => line.trim() === authorsTitle) ? [] : [''])];
    const unreadAfter = unreadLinesByKey(unread, new Set(tree.order.map(({ id }) => pathOf.get(id) ?? summaryKeyOf(id))));
    lines.push(...(unreadAfter.get(null) ?? []));
    const pushItem = (key: string, ours: string) => {
      const theirs = authorsLine.get(key);
      // The author's line of this page names its file, maybe in other case (parseSummary): kept as written then too.
      const kept = theirs !== undefined && summaryItemForm(theirs, indent, summaryDir, true, authorsDepth.get(key)) === summaryItemForm(ours, indent, summaryDir, true);
      if ((kept ? looseAbove.has(theirs) : looseSummary) && lines[lines.length - 1] !== '') lines.push('');
      lines.push(kept ? theirs : ours);
      lines.push(...(unreadAfter.get(key) ?? []));
    };
    const depthOf = new Map<string, number>();
    let inGroup = false;
    for (const { id, parent } of tree.order) {
      const page = tree.pages.get(id)!;
      const path = pathOf.get(id);
      const depth = parent ? (depthOf.get(parent) ?? 0) + 1 : 0;
      // A page of the top level after a group: GitBook ends the group with a thematic break before it.
      const startsGroup = !parent && isGroupPage(page);
      if (!parent && inGroup && !startsGroup) lines.push('', SUMMARY_GROUP_END, '');
      if (!parent) inGroup = startsGroup;
      if (page.link) {
        depthOf.set(id, depth);
        const destination = page.link.kind === 'url' ? page.link.url : `${relative(config.summary, pathOf.get(page.link.page) ?? '')}#${page.link.anchor}`;
        pushItem(summaryKeyOf(id), summaryItem(depth, page.title, destination, page.linkTitle, indent));
        continue;
      }
      if (path === null && !isGroupPage(page)) {
        // An item without a link, or to a file the repository lacks (its page has no file): written as its author wrote it.
        depthOf.set(id, depth);
        const missing = missingFileOf(id);
        pushItem(summaryKeyOf(id), missing ? summaryItem(depth, page.title, relative(config.summary, missing), page.linkTitle, indent) : linklessSummaryItem(depth, page.title, indent));
        continue;
      }
      if (path === null) {
        depthOf.set(id, -1);
        // The author's heading where it still says this group (its slug unchanged since the sync, anchor or not).
        const theirs = authorsLine.get(summaryKeyOf(id));
        const place = pageEntry.get(id)?.place;
        const kept = theirs !== undefined && sameGroupHeading(theirs, page.title, page.slug, place ? slugOfPlace(place) : null);
        // GitBook's blank line on either side of a heading (one, where one is there already), the author's spacing for theirs.
        if (lines[lines.length - 1] !== '' && !(kept && tightAbove.has(theirs))) lines.push('');
        lines.push(kept ? theirs : summaryGroupHeading(page.title, page.slug, await slugOfTitle(page.title)));
        if (!(kept && tightBelow.has(theirs))) lines.push('');
        lines.push(...(unreadAfter.get(summaryKeyOf(id)) ?? []));
        continue;
      }
      depthOf.set(id, depth);
      pushItem(path!, summaryItem(depth, authorsText(id) ?? page.title, relative(config.summary, path!), page.linkTitle, indent));
    }
    // The author's blank lines at its end stay there, after any item added last.
    if (breaks.blankAtEnd > 0) {
      while (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
      lines.push(...Array<string>(breaks.blankAtEnd).fill(''));
    }
    out.set(summaryPath, { path: summaryPath, oid: await session.writeBlob(encoder.encode(`${lines.join(breaks.eol)}${breaks.final ? breaks.eol : ''}`)), mode: modeAt(summaryPath) });
    // Its groups are known to the next import by the keys the summary gives them (`group:<title>`), no longer by
    // the folders they were imported from (`group:minter`): recorded so, their pages keep their ids.
    for (const row of rows) if (row.kind === 'page' && summaryKeys.has(row.targetId)) row.path = summaryKeys.get(row.targetId)!;
  }

  const files = [...out.values()];
  const same = files.length === remoteFiles.length && files.every((f) => byPath.get(f.path)?.oid === f.oid);
  if ((same && remoteHead) || input.recordOnly) return { commit: null, rows, pathPrefix: contentPrefix, unchanged: same };
  const commit = await session.commitAndPush({
    files,
    parent: remoteHead,
    message: request.commitMessage ?? 'GitBook: export',
    author: (await mergedChangeRequestAuthor(db, input.spaceId, space.head.id)) ?? GITBOOK_IDENTITY,
    committer: GITBOOK_IDENTITY,
    ref: request.ref.startsWith('refs/') ? request.ref : `refs/heads/${request.ref}`,
    beforePush: input.beforePush,
  });
  return { commit, rows, pathPrefix: contentPrefix };
}

/**
 * Refuses to commit on a branch that moved past the commit the space last synced with a change the space has not imported:
 * the commit would be recorded as the space's, so the import of that push (its webhook) would find the branch at the
 * space's own commit and change nothing. Any change counts under the content root (`repoProjectDirectory` and `.gitbook.yaml`'s
 * `root`), `.gitbook.yaml` included: a page or file added, `SUMMARY.md` alone, a file the space synced; a change elsewhere
 * (code beside the docs) does not. The two commits' trees are compared (trees only, or on a server without partial fetches
 * the blobs the two differ by). Where the last
 * synced commit is gone from the remote (a force-push), the export is refused: what changed since cannot be told. Where it
 * cannot be had otherwise (no revision of the head's line records one, a server without protocol v2), the files the space
 * synced are compared instead (assertNoUnimportedChanges).
 */
async function assertNothingUnimported(
  db: Db,
  session: GitSession,
  at: { spaceId: string; space: SyncedSpace; remoteHead: string; remoteFiles: TreeFile[]; byPath: Map<string, TreeFile>; full: (path: string) => string; configPath: string; contentPrefix: string },
) {
  const synced = at.space.headGitOid ?? (await lastSyncedCommit(db, at.spaceId, at.space.head.id));
  if (synced === at.remoteHead) return;
  if (!synced && at.space.entries.length === 0) return assertNoDocumentationUnread(at.remoteFiles, at.contentPrefix);
  if (!synced) return assertNoUnimportedChanges(at.space.entries, at.byPath, at.full);
  const trees = await session.fetchTreesOf(synced);
  if (trees === 'gone') {
    // What the branch changed since cannot be told (a force-push): the push's import reads the branch as it is now.
    throw new Error(
      `the branch no longer holds the commit the space last synced (${synced.slice(0, 7)}: its history was rewritten, a force-push): what changed since cannot be compared, so nothing was pushed and the space is unchanged; import the branch, then export again`,
    );
  }
  if (trees === 'unavailable') return assertNoUnimportedChanges(at.space.entries, at.byPath, at.full, synced);
  const inContent = (path: string) => path === at.configPath || path.startsWith(at.contentPrefix);
  const before = new Map((await session.listFiles(synced, '', { submodules: true })).filter((f) => inContent(f.path)).map((f) => [f.path, f]));
  const changes: string[] = [];
  for (const file of at.remoteFiles) {
    if (!inContent(file.path)) continue;
    const was = before.get(file.path);
    if (!was) changes.push(`${file.path} added`);
    else if (was.oid !== file.oid || was.mode !== file.mode) changes.push(`${file.path} changed`);
  }
  for (const path of before.keys()) if (!at.byPath.has(path)) changes.push(`${path} deleted`);
  if (changes.length === 0) return;
  const named = changes.slice(0, 3).join(', ') + (changes.length > 3 ? ` and ${changes.length - 3} more` : '');
  throw new Error(
    `the branch moved on since the space's last sync (${synced.slice(0, 7)}) with changes the space has not imported yet (${named}): nothing was pushed and the space is unchanged; import the branch, then export again`,
  );
}

/**
 * Refuses an unforced export from a space that never synced with the repository (its setup import failed or never ran)
 * onto a branch whose content root already holds documentation: a summary or a page other than the root's README. The
 * space's tree would be written over it, and the summary emptied of every item the space never read. A new repository
 * (no commit, or only the README a Git host creates) takes the export; a setup that writes the space over the branch
 * sends `force`, as GitBook's integrations do.
 */
function assertNoDocumentationUnread(remoteFiles: TreeFile[], contentPrefix: string) {
  const documentation = remoteFiles
    .filter((f) => f.path.startsWith(contentPrefix) && /\.md$/i.test(f.path))
    .map((f) => f.path)
    .filter((path) => path.slice(contentPrefix.length).toLowerCase() !== 'readme.md');
  if (documentation.length === 0) return;
  const named = documentation.slice(0, 3).join(', ') + (documentation.length > 3 ? ` and ${documentation.length - 3} more` : '');
  throw new Error(
    `the branch holds documentation the space has never imported (${named}): nothing was pushed and the space is unchanged; import the branch first, or export with \`force\` to write the space over it`,
  );
}

/**
 * The commit the space last synced with: the one recorded by the nearest revision of its head's line (the head, then each
 * first parent: a merge's is the space's revision it merged into) that records one. A standalone import's revision (a pull
 * request's) is on no such line. Null when none is.
 */
async function lastSyncedCommit(db: Db, spaceId: string, headId: string): Promise<string | null> {
  const rows = await rawAll<{ oid: string }>(
    db,
    sql`with recursive line(id, depth) as (
      select ${headId}, 0
      union all
      select r.parents ->> 0, line.depth + 1 from line join revisions r on r.id = line.id and r.space_id = ${spaceId}
      where not exists (select 1 from revision_git g where g.revision_id = line.id) and line.depth < 100000
    )
    select g.oid from line join revision_git g on g.revision_id = line.id and g.space_id = ${spaceId} order by line.depth limit 1`,
  );
  return rows[0]?.oid ?? null;
}

/**
 * Refuses to commit on a branch whose files the space last synced (its pages', files' and reusable contents') have
 * changed or gone since, the space not having imported them: the commit would be recorded as the space's, so the import
 * of that push (its webhook) finds the branch at the space's own commit and changes nothing, and the pushed text never
 * reaches the space (a page whose file it kept was recorded with the pushed blob, a page it wrote was written over).
 * The push's import runs first, then an export commits on what it read. A forced export (a setup) commits on them as before.
 */
function assertNoUnimportedChanges(entries: SyncedSpace['entries'], byPath: Map<string, TreeFile>, full: (path: string) => string, synced?: string) {
  const moved = entries
    .filter((e) => (e.kind === 'page' || e.kind === 'file' || e.kind === 'reusable') && e.oid && !isPathlessKey(e.path))
    .filter((e) => byPath.get(full(e.path))?.oid !== e.oid)
    .map((e) => e.path);
  if (moved.length === 0) return;
  const named = moved.slice(0, 3).join(', ') + (moved.length > 3 ? ` and ${moved.length - 3} more` : '');
  // The last synced commit could not be read (a server without protocol v2): only the space's own files were compared.
  const compared = synced ? `; the commit the space last synced (${synced.slice(0, 7)}) could not be fetched, so only the files the space synced were compared` : '';
  throw new Error(`the branch has changes the space has not imported yet (${named})${compared}: nothing was pushed and the space is unchanged; import the branch, then export again`);
}

/**
 * The author's summary lines that are no page, by the key of the page they follow in the summary written again (null:
 * before the first), each after the nearest page before it that is still written (`written`: the keys written).
 */
function unreadLinesByKey(unread: UnreadSummaryLines, written: Set<string>): Map<string | null, string[]> {
  const after = new Map<string | null, string[]>();
  for (const { at, line } of unread.lines) {
    let before = at - 1;
    while (before >= 0 && !written.has(unread.keys[before])) before--;
    const key = before >= 0 ? unread.keys[before] : null;
    after.set(key, [...(after.get(key) ?? []), line]);
  }
  return after;
}

/** Who commits every export, as GitBook's `gitbook-bot` does. */
const GITBOOK_IDENTITY = { name: 'GitBook', email: 'gitbook@users.noreply.docs-platform.invalid' };

/**
 * The author of an export's commit when the head merged a change request: the user who opened it, as GitBook's
 * commits name theirs (`GITBOOK-12: ...` authored by the GitBook user, committed by `gitbook-bot`); null for a
 * head no change request made. Git's identity line cannot hold `<`, `>` or a line break (git writes a name without
 * them, and `fsck --strict` rejects a commit with them): dropped, as git drops them.
 */
async function mergedChangeRequestAuthor(db: Db, spaceId: string, revisionId: string): Promise<{ name: string; email: string } | null> {
  const row = await db
    .select({ name: users.displayName, email: users.email })
    .from(revisions)
    .innerJoin(changeRequests, and(eq(changeRequests.id, revisions.mergedFrom), eq(changeRequests.spaceId, spaceId)))
    .innerJoin(users, eq(users.id, changeRequests.createdBy))
    .where(and(eq(revisions.id, revisionId), eq(revisions.spaceId, spaceId)))
    .get();
  const clean = (text: string) => text.replace(/[<>\r\n\0]/g, '').trim();
  const name = row ? clean(row.name) : '';
  const email = row ? clean(row.email) : '';
  return name && email ? { name, email } : null;
}

function slugFolder(tree: Awaited<ReturnType<typeof readRevisionTree>>, id: string): string {
  return tree.order.find((o) => o.id === id)?.path ?? '';
}

/**
 * A new file's name when `.gitbook/assets/` already holds its name: GitBook's own, ` (n)` before the extension
 * (`diagram (1).png`, then `diagram (2).png`; its repositories hold `image (83) (1).png` beside `image (83).png`).
 */
function numberedName(name: string, n: number): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}
