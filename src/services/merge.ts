import { ApiError } from '../lib/errors';
import { canonicalJson, type FileEntry, type Manifest, type PageEntry } from './revisions';

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

interface FlatPage {
  entry: Omit<PageEntry, 'pages'>;
  parent: string | null;
  index: number;
}

type Side = 'main' | 'theirs';

function flatten(pages: PageEntry[]): Map<string, FlatPage> {
  const out = new Map<string, FlatPage>();
  const walk = (list: PageEntry[], parent: string | null) =>
    list.forEach((page, index) => {
      const { pages: children, ...entry } = page;
      out.set(page.id, { entry, parent, index });
      walk(children, page.id);
    });
  walk(pages, null);
  return out;
}

/** Content of a page, without timestamps (identical edits made at different times are equal) and location. */
function contentOf(page: FlatPage): string {
  const { createdAt, updatedAt, slug, ...rest } = page.entry;
  return canonicalJson(rest);
}

/**
 * Pages that `side` reordered among the siblings it shares with `base` (same parent on both): those
 * outside a longest common subsequence of the two orders. Moving one page to the front thus moves
 * that page only, not every sibling it passed.
 */
function reordered(base: Map<string, FlatPage>, side: Map<string, FlatPage>): Set<string> {
  const siblings = (pages: Map<string, FlatPage>, other: Map<string, FlatPage>) => {
    const byParent = new Map<string | null, Array<[string, number]>>();
    for (const [id, page] of pages) {
      if (other.get(id)?.parent !== page.parent) continue;
      const list = byParent.get(page.parent) ?? [];
      list.push([id, page.index]);
      byParent.set(page.parent, list);
    }
    return new Map([...byParent].map(([parent, list]) => [parent, list.sort((x, y) => x[1] - y[1]).map(([id]) => id)]));
  };
  const before = siblings(base, side);
  const after = siblings(side, base);
  const moved = new Set<string>();
  for (const [parent, order] of after) {
    const kept = new Set(longestCommonSubsequence(before.get(parent) ?? [], order));
    for (const id of order) if (!kept.has(id)) moved.add(id);
  }
  return moved;
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

const wasMoved = (page: FlatPage, base: FlatPage, reorderedIds: Set<string>, id: string) =>
  page.parent !== base.parent || page.entry.slug !== base.entry.slug || reorderedIds.has(id);

interface Choice {
  entry: Omit<PageEntry, 'pages'>;
  parent: string | null;
  /** Whose sibling order places the page. */
  placedBy: Side;
  index: number;
}

export function mergeManifests(base: Manifest, main: Manifest, theirs: Manifest): Manifest {
  const B = flatten(base.pages);
  const M = flatten(main.pages);
  const T = flatten(theirs.pages);
  const reorderedM = reordered(B, M);
  const reorderedT = reordered(B, T);
  const conflicts: MergeConflict[] = [];
  const chosen = new Map<string, Choice>();
  const conflict = (id: string, page: FlatPage, reason: string) => conflicts.push({ page: id, title: page.entry.title, reason });

  const ids = [...new Set([...M.keys(), ...T.keys(), ...B.keys()])];
  for (const id of ids) {
    const b = B.get(id);
    const m = M.get(id);
    const t = T.get(id);
    if (!b) {
      // Added: on one side, or (after an update) the same page on both.
      if (m && t && contentOf(m) !== contentOf(t)) conflict(id, t, 'added on both sides with different content');
      const page = m ?? t!;
      chosen.set(id, { entry: page.entry, parent: page.parent, placedBy: m ? 'main' : 'theirs', index: page.index });
      continue;
    }
    if (!m || !t) {
      const kept = (m ?? t) as FlatPage | undefined;
      if (!kept) continue; // deleted on both sides
      const keptSide: Side = m ? 'main' : 'theirs';
      const changed = contentOf(kept) !== contentOf(b) || kept.parent !== b.parent || kept.entry.slug !== b.entry.slug;
      if (changed) conflict(id, kept, `deleted in ${keptSide === 'main' ? 'the change request' : 'the space'} but changed in ${keptSide === 'main' ? 'the space' : 'the change request'}`);
      continue; // deleted on one side, untouched on the other: deleted
    }
    const contentM = contentOf(m);
    const contentT = contentOf(t);
    const contentB = contentOf(b);
    let entry = m.entry;
    if (contentT !== contentB) {
      if (contentM !== contentB && contentM !== contentT) conflict(id, t, 'edited differently on both sides');
      entry = contentM === contentT ? m.entry : t.entry;
    }
    const movedM = wasMoved(m, b, reorderedM, id);
    const movedT = wasMoved(t, b, reorderedT, id);
    if (movedM && movedT && (m.parent !== t.parent || m.entry.slug !== t.entry.slug)) conflict(id, t, 'moved or renamed differently on both sides');
    const placed = movedT ? t : m;
    chosen.set(id, { entry: { ...entry, slug: placed.entry.slug }, parent: placed.parent, placedBy: movedT ? 'theirs' : 'main', index: placed.index });
  }

  for (const [id, choice] of chosen) {
    if (choice.parent !== null && !chosen.has(choice.parent)) conflict(id, { entry: choice.entry } as FlatPage, 'its parent page was deleted on the other side');
  }
  conflicts.push(...cycles(chosen));
  if (conflicts.length > 0) throw new MergeConflictError(conflicts);

  return {
    pages: buildTree(chosen),
    files: mergeFiles(base.files, main.files, theirs.files),
    variables: mergeRecords(base.variables, main.variables, theirs.variables, 'variable'),
    reusableContents: mergeById(base.reusableContents, main.reusableContents, theirs.reusableContents, 'reusable content'),
  };
}

function cycles(chosen: Map<string, Choice>): MergeConflict[] {
  const out: MergeConflict[] = [];
  for (const [id, choice] of chosen) {
    const seen = new Set([id]);
    for (let parent = choice.parent; parent !== null; parent = chosen.get(parent)?.parent ?? null) {
      if (seen.has(parent)) {
        out.push({ page: id, title: choice.entry.title, reason: 'the two sides moved pages under each other' });
        break;
      }
      seen.add(parent);
    }
  }
  return out;
}

/** Children in main's order, then pages placed by the change request inserted at their index there. */
function buildTree(chosen: Map<string, Choice>): PageEntry[] {
  const children = new Map<string | null, Array<[string, Choice]>>();
  for (const item of chosen) {
    const list = children.get(item[1].parent) ?? [];
    list.push(item);
    children.set(item[1].parent, list);
  }
  const build = (parent: string | null): PageEntry[] => {
    const items = children.get(parent) ?? [];
    const list = items.filter(([, c]) => c.placedBy === 'main').sort((x, y) => x[1].index - y[1].index);
    for (const item of items.filter(([, c]) => c.placedBy === 'theirs').sort((x, y) => x[1].index - y[1].index)) {
      list.splice(Math.min(item[1].index, list.length), 0, item);
    }
    // Pages main placed keep their slug; a page the change request placed gives way on a collision.
    const slugs = new Map<string, string>();
    const taken = new Set<string>();
    for (const [id, choice] of [...list.filter(([, c]) => c.placedBy === 'main'), ...list.filter(([, c]) => c.placedBy === 'theirs')]) {
      let slug = choice.entry.slug;
      for (let n = 2; taken.has(slug); n++) slug = `${choice.entry.slug.slice(0, 95)}-${n}`;
      slugs.set(id, slug);
      taken.add(slug);
    }
    const pages = list.map(([id, choice]) => ({ ...choice.entry, slug: slugs.get(id)!, pages: build(id) }) as PageEntry);
    return pages;
  };
  return build(null);
}

/** Files never change in place: a file is kept unless one side removed it. */
function mergeFiles(base: FileEntry[], main: FileEntry[], theirs: FileEntry[]): FileEntry[] {
  const inBase = new Set(base.map((f) => f.id));
  const inMain = new Set(main.map((f) => f.id));
  const inTheirs = new Set(theirs.map((f) => f.id));
  const keep = (f: FileEntry) => (inBase.has(f.id) ? inMain.has(f.id) && inTheirs.has(f.id) : true);
  return [...main.filter(keep), ...theirs.filter((f) => !inMain.has(f.id) && keep(f))];
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
