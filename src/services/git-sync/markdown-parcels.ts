import type { ContentChange } from '../content/batch';
import type { GitImportTarget } from './apply';
import type { ImportPagePlan } from './import';

/**
 * An import's Markdown held neither by the SpaceWriter nor by the plan (issue 40: memory bounded whatever the number of
 * pages). The queue consumer's plan reads each page's blob once to find what it links to, then lets its text go: its
 * changes carry `{ markdown: '' }`, and the writer reads the Markdown over RPC a parcel at a time as its conversion
 * reaches each page (apply.ts markdownReader): each parcel is read again from the session's blobs (kept compressed in its
 * packs) and its links rewritten then. Neither side holds more than a parcel of Markdown text at once.
 */

/** The Markdown of the changes from index `from` on that have some, in order: at least one, up to MARKDOWN_PARCEL_CHARS. */
export type MarkdownSource = (from: number) => Promise<Array<[index: number, markdown: string, links?: PageLinks]>>;

/**
 * What a page's links to files of the repository lead to, for its conversion to resolve (import.ts): the page's path and,
 * by the path from the content root of each file it links to, the batch ref, `/pages/<id>` or `/files/<id>` that names it.
 */
export interface PageLinks {
  path: string;
  targets: Record<string, string>;
}

/** Characters of Markdown one parcel carries at most (unless its one page alone is larger: a page is under MAX_PAGE_MARKDOWN_CHARS). */
export const MARKDOWN_PARCEL_CHARS = 256 * 1024;

export const hasMarkdown = (change: ContentChange): change is Extract<ContentChange, { document?: unknown }> & { document: { markdown: string } } =>
  (change.operation === 'insert_page' || change.operation === 'update_page') && !!change.document && 'markdown' in change.document;

/**
 * The Markdown of `pages` (change index, its length in characters when first read), read by `read` a parcel at a time:
 * the parcel from `from` on is the pages up to MARKDOWN_PARCEL_CHARS by their lengths (at least one), read when asked.
 * `held` is the most characters one parcel carried (the tests read it).
 */
/**
 * What one SpaceWriter call of an import applies at most (GitImportProgress in apply.ts): Markdown characters (converting
 * costs 5-10 ms of CPU per KiB on a loaded 2-core machine, so a slice is seconds against a Durable Object request's 30 s
 * of CPU) and changes (each a few tree edits). A larger import is applied in several calls, the head moved by the last.
 */
export const IMPORT_SLICE = { chars: 1024 * 1024, changes: 1000 };

/**
 * Where the writer calls of an import of `changes` changes end (the last is `changes`): each slice at most `slice.chars`
 * of Markdown (unless its one page alone is more) and `slice.changes` changes.
 */
export function sliceEnds(pages: ReadonlyArray<{ index: number; chars: number }>, changes: number, slice = IMPORT_SLICE): number[] {
  const charsAt = new Map(pages.map((p) => [p.index, p.chars]));
  const ends: number[] = [];
  let start = 0;
  let chars = 0;
  for (let index = 0; index < changes; index++) {
    const size = charsAt.get(index) ?? 0;
    if (index > start && (chars + size > slice.chars || index - start >= slice.changes)) {
      ends.push(index);
      start = index;
      chars = 0;
    }
    chars += size;
  }
  ends.push(changes);
  return ends;
}

export function markdownParcels(
  pages: Array<{ index: number; chars: number }>,
  read: (index: number) => Promise<[markdown: string, links?: PageLinks]>,
): MarkdownSource & { held: number; sliceEnds: (changes: number, slice?: typeof IMPORT_SLICE) => number[] } {
  const ordered = [...pages].sort((a, b) => a.index - b.index);
  const source = async (from: number) => {
    const parcel: Array<[number, string, PageLinks?]> = [];
    let chars = 0;
    for (const { index, chars: size } of ordered) {
      if (index < from) continue;
      if (parcel.length > 0 && chars + size > MARKDOWN_PARCEL_CHARS) break;
      const [markdown, links] = await read(index);
      parcel.push(links ? [index, markdown, links] : [index, markdown]);
      chars += markdown.length;
    }
    source.held = Math.max(source.held, chars);
    return parcel;
  };
  source.held = 0;
  source.sliceEnds = (changes: number, slice = IMPORT_SLICE) => sliceEnds(ordered, changes, slice);
  return source;
}

/**
 * The writer calls of an import whose changes end at `ends` (sliceEnds), each target carrying only its slice (issue 40:
 * a call's request does not grow with the import): its changes, the plans of the pages whose rows it makes (a page goes
 * to the slice of its last change, so no later one touches its record; a page no change touches to a slice in turn) and
 * a share of the file plans; the first carries the refs of every new page and the new files, the last the includes,
 * redirects and `.gitbook.yaml`. The whole target's lists are only read.
 */
export function importSlices(target: GitImportTarget, ends: number[]): GitImportTarget[] {
  const sliceOfChange = (index: number) => ends.findIndex((end) => index < end);
  const lastChange = new Map<string, number>();
  target.changes.forEach((change, index) => {
    const id = change.operation === 'insert_page' ? change.ref : 'page' in change ? change.page : undefined;
    if (typeof id === 'string') lastChange.set(id, index);
  });
  const pages = ends.map((): ImportPagePlan[] => []);
  target.pages.forEach((plan, i) => {
    const index = lastChange.get(plan.ref ?? plan.page ?? '');
    pages[index === undefined ? i % ends.length : sliceOfChange(index)].push(plan);
  });
  const files = ends.map((_, k) => target.files.filter((_, i) => i % ends.length === k));
  const refs = target.changes.flatMap((c) => (c.operation === 'insert_page' && c.ref !== undefined ? [c.ref] : []));
  return ends.map((end, k) => {
    const from = k === 0 ? 0 : ends[k - 1];
    const last = k === ends.length - 1;
    return {
      ...target,
      from,
      changes: target.changes.slice(from, end),
      refs: k === 0 ? refs : [],
      pages: pages[k],
      files: files[k],
      newFiles: k === 0 ? target.newFiles : [],
      droppedFiles: k === 0 ? target.droppedFiles : [],
      includes: last ? target.includes : [],
      droppedIncludes: last ? target.droppedIncludes : [],
      redirects: last ? target.redirects : {},
      config: last ? target.config : null,
    };
  });
}
