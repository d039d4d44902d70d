import { ApiError } from '../../lib/errors';
import { manifestToTree, treeToManifest, type RevisionMeta } from './convert';
import { childCount, childrenOf, ContentTree, ROOT, type ChildRef, type PageRecord, type TreeRecord } from './pages';
import { diffTries, memoryNodeStore, type NodeStore, type StoredNode } from './tree';
import { canonicalJson, firstFreeSlug, type FileEntry, type Manifest } from './revisions';

/**
 * Three-way merge of manifests at page level: `base` is the common ancestor, `main` the space's
 * content, `theirs` the change request's. For every page, its content (document and metadata) and
 * its location (parent, slug, order among the siblings both sides kept) are merged separately:
 * a side that changed wins over one that did not, equal changes agree, and different changes to the
 * same page are conflicts. Nothing is merged when there is any conflict.
 */

export interface MergeConflict {
  page: string;
  title: string;
  reason: string;
}

export class MergeConflictError extends ApiError {
  constructor(readonly conflicts: MergeConflict[]) {
    const named = conflicts.map((c) => `"${c.title}" (${c.page}): ${c.reason}`).join('; ');
    super(409, `Merge conflict on ${conflicts.length} page(s): ${named}`);
  }
}

function longestCommonSubsequence(a: string[], b: string[]): string[] {
  // Most sibling lists are untouched: skip the table for them, and trim what both ends share.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  if (start === a.length || start === b.length) return a.slice(0, start).concat(a.slice(a.length - end));
  const middle = lcsTable(a.slice(start, a.length - end), b.slice(start, b.length - end));
  return [...a.slice(0, start), ...middle, ...a.slice(a.length - end)];
}

/**
 * Sibling ids are unique, so the longest common subsequence of two orders is the longest increasing
 * run of `b`'s positions in `a`: O(n log n) by patience sorting.
 */
function lcsTable(a: string[], b: string[]): string[] {
  const position = new Map(a.map((id, i) => [id, i]));
  const seq = b.filter((id) => position.has(id));
  const tails: number[] = []; // index in seq of the smallest tail of each run length
  const previous = new Array<number>(seq.length).fill(-1);
  for (let i = 0; i < seq.length; i++) {
    const value = position.get(seq[i])!;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (position.get(seq[tails[mid]])! < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1];
    tails[lo] = i;
  }
  const out: string[] = [];
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = previous[i]) out.push(seq[i]);
  return out.reverse();
}

/** The content of a page, without timestamps (identical edits made at different times are equal) and its place. */
function contentOf(page: PageRecord): string {
  const { createdAt, updatedAt, slug, parent, children, chunks, ...rest } = page;
  return canonicalJson(rest);
}

const parentOf = (page: PageRecord) => page.parent ?? ROOT;

type Side = 'main' | 'theirs';

interface Choice {
  record: PageRecord;
  parent: string;
  /** Whose sibling order places the page. */
  placedBy: Side;
  /** Its parent is not the one it had in the base. */
  moved: boolean;
}

export interface MergeSide {
  pages: string | null;
  files: string | null;
  meta: RevisionMeta;
}

export interface MergeResult extends MergeSide {
  nodes: StoredNode[];
  /** Pages the result has more (or, negative, fewer) than the side it was written onto; likewise files. */
  pageDelta: number;
  fileDelta: number;
}

/**
 * Three-way merge of two versions of a space's content: `base` is their common ancestor. The result
 * is written onto `onto` (main for a merge, the change request for an update) and costs what the two
 * sides changed: only pages whose record or place differs from the base are read and decided, and
 * only the child lists of their parents are rebuilt.
 */
export async function mergeTrees(store: NodeStore, base: MergeSide, main: MergeSide, theirs: MergeSide, onto: Side): Promise<MergeResult> {
  const versions = { trees: { base: new ContentTree(store, base), main: new ContentTree(store, main), theirs: new ContentTree(store, theirs) } };
  const [dM, dT] = await Promise.all([diffTries<TreeRecord>(store, base.pages, main.pages), diffTries<TreeRecord>(store, base.pages, theirs.pages)]);

  // What each side did to every child list it changed: the lists in base and on that side.
  const lists = new Map<string, ChildRef[]>();
  const listOf = async (side: 'base' | Side, parent: string, record?: TreeRecord) => {
    const key = `${side}/${parent}`;
    if (!lists.has(key)) lists.set(key, record ? await childrenOf(store, record) : await versions.trees[side].children(parent));
    return lists.get(key)!;
  };
  const reorderedBy = async (side: Side, diff: Map<string, { before?: TreeRecord; after?: TreeRecord }>) => {
    const moved = new Set<string>();
    for (const [parent, change] of diff) {
      if (!change.before || !change.after) continue;
      const before = await listOf('base', parent, change.before);
      const after = await listOf(side, parent, change.after);
      const inBefore = new Set(before.map(([id]) => id));
      const kept = after.filter(([id]) => inBefore.has(id)).map(([id]) => id);
      const inKept = new Set(kept);
      const common = new Set(longestCommonSubsequence(before.map(([id]) => id).filter((id) => inKept.has(id)), kept));
      for (const id of kept) if (!common.has(id)) moved.add(id);
    }
    return moved;
  };
  const reorderedM = await reorderedBy('main', dM);
  const reorderedT = await reorderedBy('theirs', dT);

  const ids = new Set([...dM.keys(), ...dT.keys(), ...reorderedM, ...reorderedT]);
  ids.delete(ROOT);
  const unchanged = [...ids].filter((id) => !dM.has(id) && !dT.has(id));
  const baseRecords = await versions.trees.base.pagesById(unchanged);
  const recordOf = (id: string, side: 'base' | Side): PageRecord | undefined => {
    const change = side === 'main' ? dM.get(id) : side === 'theirs' ? dT.get(id) : undefined;
    if (change) return change.after as PageRecord | undefined;
    const either = dM.get(id) ?? dT.get(id);
    return either ? (either.before as PageRecord | undefined) : baseRecords.get(id);
  };

  const conflicts: MergeConflict[] = [];
  const chosen = new Map<string, Choice>();
  const removed = new Set<string>();
  const conflict = (id: string, page: PageRecord, reason: string) => conflicts.push({ page: id, title: page.title, reason });

  for (const id of ids) {
    const b = recordOf(id, 'base');
    const m = recordOf(id, 'main');
    const t = recordOf(id, 'theirs');
    if (!b) {
      // Added: on one side, or (after an update) the same page on both.
      if (m && t && contentOf(m) !== contentOf(t)) conflict(id, t, 'added on both sides with different content');
      const page = (m ?? t)!;
      chosen.set(id, { record: page, parent: parentOf(page), placedBy: m ? 'main' : 'theirs', moved: page.parent !== null });
      continue;
    }
    if (!m || !t) {
      removed.add(id);
      const kept = m ?? t;
      if (!kept) continue; // deleted on both sides
      const keptSide: Side = m ? 'main' : 'theirs';
      const changed = contentOf(kept) !== contentOf(b) || kept.parent !== b.parent || kept.slug !== b.slug;
      if (changed) conflict(id, kept, `deleted in ${keptSide === 'main' ? 'the change request' : 'the space'} but changed in ${keptSide === 'main' ? 'the space' : 'the change request'}`);
      continue; // deleted on one side, untouched on the other: deleted
    }
    const contentM = contentOf(m);
    const contentT = contentOf(t);
    const contentB = contentOf(b);
    let record = m;
    if (contentT !== contentB) {
      if (contentM !== contentB && contentM !== contentT) conflict(id, t, 'edited differently on both sides');
      record = contentM === contentT ? m : t;
    }
    const movedM = m.parent !== b.parent || m.slug !== b.slug || reorderedM.has(id);
    const movedT = t.parent !== b.parent || t.slug !== b.slug || reorderedT.has(id);
    if (movedM && movedT && (m.parent !== t.parent || m.slug !== t.slug)) conflict(id, t, 'moved or renamed differently on both sides');
    const placed = movedT ? t : m;
    chosen.set(id, {
      record: { ...record, slug: placed.slug, parent: placed.parent },
      parent: parentOf(placed),
      placedBy: movedT ? 'theirs' : 'main',
      moved: placed.parent !== b.parent,
    });
  }

  for (const [id, choice] of chosen) {
    if (choice.parent !== ROOT && removed.has(choice.parent)) conflict(id, choice.record, 'its parent page was deleted on the other side');
  }
  conflicts.push(...(await cycles(chosen, versions.trees.main)));
  if (conflicts.length > 0) throw new MergeConflictError(conflicts);

  // Every list a side changed, and every list a decided page left or joined, is rebuilt.
  const parents = new Set<string>([...dM.keys(), ...dT.keys()].filter((id) => id === ROOT || !removed.has(id)));
  for (const id of ids) {
    for (const side of ['base', 'main', 'theirs'] as const) {
      const record = recordOf(id, side);
      if (record) parents.add(parentOf(record));
    }
  }
  for (const id of removed) parents.delete(id);

  const target = versions.trees[onto];
  const finalRecords = new Map<string, TreeRecord>();
  for (const parent of parents) {
    const [mainList, theirsList] = await Promise.all([listOf('main', parent, dM.get(parent)?.after), listOf('theirs', parent, dT.get(parent)?.after)]);
    const list = rebuildList(parent, mainList, theirsList, ids, chosen);
    const record = parent === ROOT ? await versions.trees.main.rootRecord() : (chosen.get(parent)?.record ?? (await versions.trees.main.page(parent)));
    if (!record) continue; // a parent deleted on both sides
    finalRecords.set(parent, await target.setChildren(record, list));
    for (const [id, slug] of list) {
      const choice = chosen.get(id);
      if (choice) choice.record = { ...choice.record, slug };
    }
  }

  let pageDelta = 0;
  const existing = await target.pages.getMany([...ids]);
  const merged = new Map<string, PageRecord>();
  for (const id of ids) {
    const choice = chosen.get(id);
    if (choice) {
      const record = (finalRecords.get(id) as PageRecord | undefined) ?? choice.record;
      // A page keeps the child list of the side that placed its children, unless it was rebuilt above.
      const own = finalRecords.has(id) ? record : { ...choice.record, ...childFields(recordOf(id, 'main') ?? recordOf(id, 'theirs')!) };
      merged.set(id, { ...own, slug: choice.record.slug, parent: choice.parent === ROOT ? null : choice.parent });
      if (!existing.has(id)) pageDelta++;
    } else if (existing.has(id)) {
      target.pages.delete(id);
      pageDelta--;
    }
  }
  for (const [parent, record] of finalRecords) if (!ids.has(parent) && parent !== ROOT) merged.set(parent, record as PageRecord);
  // A computed page has no child pages of its own (content batches refuse them): one side made a page
  // computed while the other put pages under it.
  const computedParents = [...merged.values()].filter((record) => record.computed && childCount(record) > 0);
  if (computedParents.length > 0) {
    throw new MergeConflictError(
      computedParents.map((record) => ({
        page: record.id,
        title: record.title,
        reason: `it is computed (an API reference generated from an OpenAPI spec) on one side and has ${childCount(record)} child page(s) on the other: a computed page has none of its own`,
      })),
    );
  }
  for (const [id, record] of merged) target.pages.set(id, record);
  if (finalRecords.has(ROOT)) target.pages.set(ROOT, finalRecords.get(ROOT)!);

  const fileDelta = await mergeFiles(store, base.files, onto === 'main' ? theirs.files : main.files, target);
  const written = await target.write();
  return {
    pages: written.pages,
    files: written.files,
    nodes: written.nodes,
    pageDelta,
    fileDelta,
    meta: {
      variables: mergeRecords(base.meta.variables, main.meta.variables, theirs.meta.variables, 'variable'),
      reusableContents: mergeById(base.meta.reusableContents, main.meta.reusableContents, theirs.meta.reusableContents, 'reusable content'),
    },
  };
}

function childFields(record: PageRecord): Pick<PageRecord, 'children' | 'chunks'> {
  return { ...(record.children ? { children: record.children } : {}), ...(record.chunks ? { chunks: record.chunks } : {}) };
}

/**
 * A parent's merged child list: main's order, then the pages the change request placed inserted at
 * their index there. Pages main placed keep their slug; a page the change request placed gives way.
 */
function rebuildList(parent: string, mainList: ChildRef[], theirsList: ChildRef[], decided: Set<string>, chosen: Map<string, Choice>): ChildRef[] {
  const here = (id: string, side: Side) => {
    const choice = chosen.get(id);
    return choice !== undefined && choice.parent === parent && choice.placedBy === side;
  };
  const list: ChildRef[] = mainList.filter(([id]) => (decided.has(id) ? here(id, 'main') : true));
  const mainPlaced = list.length;
  theirsList.forEach(([id, slug], index) => {
    if (decided.has(id) && here(id, 'theirs')) list.splice(Math.min(index, list.length), 0, [id, slug]);
  });
  const placedByMain = new Set(list.slice(0, mainPlaced).map(([id]) => id));
  const slugOf = ([id, slug]: ChildRef) => chosen.get(id)?.record.slug ?? slug;
  const taken = new Set<string>();
  const slugs = new Map<string, string>();
  for (const entry of [...list.filter(([id]) => placedByMain.has(id)), ...list.filter(([id]) => !placedByMain.has(id))]) {
    const wanted = slugOf(entry);
    const slug = firstFreeSlug(wanted, (candidate) => taken.has(candidate));
    slugs.set(entry[0], slug);
    taken.add(slug);
  }
  return list.map(([id]) => [id, slugs.get(id)!]);
}

/** Pages the two sides moved under each other: walking up from a moved page comes back to it. */
async function cycles(chosen: Map<string, Choice>, main: ContentTree): Promise<MergeConflict[]> {
  const out: MergeConflict[] = [];
  const parentCache = new Map<string, string>();
  const parentOfId = async (id: string): Promise<string> => {
    const choice = chosen.get(id);
    if (choice) return choice.parent;
    if (!parentCache.has(id)) parentCache.set(id, (await main.page(id))?.parent ?? ROOT);
    return parentCache.get(id)!;
  };
  for (const [id, choice] of chosen) {
    if (!choice.moved) continue; // a cycle passes through a page whose parent changed
    const seen = new Set([id]);
    for (let parent = choice.parent; parent !== ROOT; parent = await parentOfId(parent)) {
      if (seen.has(parent) || seen.size > 10_000) {
        out.push({ page: id, title: choice.record.title, reason: 'the two sides moved pages under each other' });
        break;
      }
      seen.add(parent);
    }
  }
  return out;
}

/** Files never change in place: the other side's additions and removals are applied onto the target. */
async function mergeFiles(store: NodeStore, base: string | null, other: string | null, target: ContentTree): Promise<number> {
  let delta = 0;
  const changes = await diffTries<FileEntry>(store, base, other);
  const present = await target.files.getMany(changes.keys());
  for (const [id, change] of changes) {
    if (change.after && !present.has(id)) {
      if (change.before) continue; // removed by the target side
      target.files.set(id, change.after);
      delta++;
    } else if (!change.after && present.has(id)) {
      target.files.delete(id);
      delta--;
    }
  }
  return delta;
}

/** The same merge on whole manifests, in memory (tests and the benchmark of the pure steps). */
export async function mergeManifests(base: Manifest, main: Manifest, theirs: Manifest): Promise<Manifest> {
  const store = memoryNodeStore();
  const [b, m, t] = await Promise.all([base, main, theirs].map((manifest) => manifestToTree(store, manifest)));
  const result = await mergeTrees(store, b, m, t, 'main');
  for (const node of result.nodes) store.nodes.set(node.hash, node.body);
  return treeToManifest(store, result);
}

function pick<T>(base: T | undefined, main: T | undefined, theirs: T | undefined, what: string): T | undefined {
  const [b, m, t] = [base, main, theirs].map((v) => (v === undefined ? undefined : canonicalJson(v)));
  if (t === b) return main;
  if (m === b || m === t) return theirs;
  throw new MergeConflictError([{ page: '-', title: what, reason: 'changed differently on both sides' }]);
}

function mergeRecords<V>(base: Record<string, V>, main: Record<string, V>, theirs: Record<string, V>, what: string): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of new Set([...Object.keys(main), ...Object.keys(theirs), ...Object.keys(base)])) {
    const value = pick(base[key], main[key], theirs[key], `${what} ${key}`);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function mergeById<V extends { id: string }>(base: V[], main: V[], theirs: V[], what: string): V[] {
  const byId = (list: V[]) => Object.fromEntries(list.map((v) => [v.id, v]));
  return Object.values(mergeRecords(byId(base), byId(main), byId(theirs), what));
}
