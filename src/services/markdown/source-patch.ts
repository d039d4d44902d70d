/**
 * The author's own Markdown, kept where it differs from ours. Markdown writes most things several
 * ways (`-` or `*`, `|:---|` or `| --- |`, `\(`, blank lines, `[url](url)` or `<url>`), and GitBook's
 * model records none of them: a page read from a file and written back in GitBook's one syntax would
 * come back changed on many lines although nothing in it changed. So when a page is read from
 * Markdown, the lines where our writing differs from the source are kept in the document's `data`
 * (GitBook's JSONDocument allows any key there) as a line patch over our writing: writing the page
 * back applies it, and a file comes back byte for byte. A patch hunk applies only where our writing
 * still has exactly the lines it replaced (and their neighbours), so an edit of one paragraph
 * writes that paragraph our way and leaves the author's lines elsewhere untouched.
 *
 * Only our converter writes this key: JSON a client sends has it removed (`withoutSourcePatch`),
 * so a document's Markdown can never say something other than the document.
 */
import { diffArrays } from 'diff';
import { pageFrontmatter } from './from-markdown';
import { layoutFrontmatter } from './page-layout';
import { PAGE_FIELD_FRONTMATTER_KEYS } from './page-fields';

import { SOURCE_PATCH_KEY } from './source-patch-key';

export { SOURCE_PATCH_KEY, withoutSourcePatch } from './source-patch-key';

/** Our lines `remove` (at `at` in our writing, between `before` and `after`) were `add` in the source. */
export interface SourceHunk {
  at: number;
  remove: string[];
  add: string[];
  /** Our line before the hunk; null at the start. */
  before: string | null;
  /** Our line after the hunk; null at the end. */
  after: string | null;
}

/** The source's head (front matter, title, blank lines) and the lines where its body differs from ours. */
export interface SourcePatch {
  /** The source up to its first block, with the title it gives (its heading 1, or its front matter's `title:`) and the page fields of its front matter (null: it had none). */
  head?: { text: string; title: string | null; frontmatter: string | null };
  hunks: SourceHunk[];
  /** The source did not end with a newline: neither is its page written with one. */
  noFinalNewline?: true;
  /** Hunks apply only where they fit whole (`place`): set where the edit a document was sent with read otherwise. */
  strict?: true;
}

/** Beyond this many differing lines the page keeps our writing: the patch would cost more than it keeps. */
const MAX_EDIT_LINES = 2_000;
/** How far (in lines) a hunk is looked for from where the previous hunks put it. */
const SEARCH_WINDOW = 400;

/** The hunks turning `ours` into `source`, or null when they are the same or too far apart. */
export function sourceHunks(ours: string, source: string): SourceHunk[] | null {
  if (ours === source) return null;
  const a = ours.split('\n');
  const b = source.split('\n');
  const changes = diffArrays(a, b, { maxEditLength: MAX_EDIT_LINES });
  if (!changes) return null;
  const hunks: SourceHunk[] = [];
  let at = 0;
  let open: SourceHunk | null = null;
  for (const change of changes) {
    if (!change.added && !change.removed) {
      if (open) {
        open.after = a[at] ?? null;
        hunks.push(open);
        open = null;
      }
      at += change.count ?? change.value.length;
      continue;
    }
    open ??= { at, remove: [], add: [], before: at > 0 ? a[at - 1] : null, after: null };
    if (change.removed) {
      open.remove.push(...change.value);
      at += change.value.length;
    } else open.add.push(...change.value);
  }
  if (open) {
    open.after = a[at] ?? null;
    hunks.push(open);
  }
  return hunks;
}

/**
 * Our writing with every hunk that still fits put back to the source's lines. Hunks are matched
 * against `ours`; with `copyFrom` (the same writing with other link targets), lines come from it,
 * and a hunk whose lines it writes otherwise (a link of the source, which must now go elsewhere) is
 * left out.
 */
export function applySourceHunks(ours: string, hunks: readonly SourceHunk[], copyFrom?: string, strict = false): string {
  if (hunks.length === 0) return copyFrom ?? ours;
  const lines = ours.split('\n');
  const other = copyFrom?.split('\n');
  // Lines that do not align (never seen: link targets do not make lines) leave the writing asked for.
  if (other && other.length !== lines.length) return copyFrom!;
  const source = other ?? lines;
  const out: string[] = [];
  let copied = 0;
  let drift = 0;
  for (const [index, hunk] of hunks.entries()) {
    const next = hunks[index + 1];
    const placed = place(lines, hunk, hunk.at + drift, copied, strict, next && { hunk: next, at: next.at + drift });
    // Where the writing asked for differs on the hunk's lines (its links go elsewhere), it is kept.
    if (!placed || (other && !sameLines(lines, other, placed.at, hunk.remove.length))) continue;
    for (let i = copied; i < placed.at; i++) out.push(source[i]);
    out.push(...placed.add);
    copied = placed.at + hunk.remove.length;
    drift = placed.at - hunk.at;
  }
  for (let i = copied; i < lines.length; i++) out.push(source[i]);
  return out.join('\n');
}

/**
 * Where `hunk` goes in `lines` and the lines it puts there, or null. A hunk fits where our writing still has the lines
 * it replaced and both their neighbours. An edit next to a hunk (or inside it) changes a neighbour, and the hunk, taken
 * whole, fitted nowhere: the author's lines around an edited one came back our way (a `__bold__` item beside the edited
 * item written `**bold**`, a list written a blank line after its paragraph when the paragraph was edited, a `<br>`
 * item beside an edited one written with our break). So, near where it was, a hunk still goes where its lines are all
 * ours and one neighbour is; and a hunk replacing as many lines as it gives (line for line) puts back each of its lines
 * our writing still has, the edited ones left ours.
 */
function place(lines: string[], hunk: SourceHunk, expected: number, from: number, strict: boolean, next?: { hunk: SourceHunk; at: number }): { at: number; add: string[] } | null {
  // Never past the place the next hunk still fits at: a page repeating a block (the same table in two sections) had the
  // hunk of the edited one put on the other, and every hunk after it looked for too far on.
  const limit = next && next.at >= from && fits(lines, next.hunk, next.at) ? next.at : Infinity;
  const before = (test: typeof fits) => (all: string[], candidate: SourceHunk, at: number) => at + candidate.remove.length <= limit && test(all, candidate, at);
  const found = locate(lines, hunk, expected, from, before(fits), SEARCH_WINDOW);
  if (found >= 0) return { at: found, add: hunk.add };
  if (strict) return null;
  // One neighbour only: near where the hunk was (an insertion too: a diff may split one change into a removal and
  // an insertion a blank line apart, the insertion's neighbour the edited line).
  const beside = locate(lines, hunk, expected, from, before(fitsOneSide), NEAR_WINDOW);
  if (beside >= 0) return { at: beside, add: hunk.add };
  return hunk.remove.length === hunk.add.length && expected + hunk.remove.length <= limit ? lineForLine(lines, hunk, expected, from) : null;
}

/** Where `hunk` fits in `lines` by `test`, nearest to `expected` and not before `from`; -1 where it fits nowhere. */
function locate(lines: string[], hunk: SourceHunk, expected: number, from: number, test: typeof fits, window: number): number {
  for (let distance = 0; distance <= window; distance++) {
    const later = expected + distance;
    if (later >= from && test(lines, hunk, later)) return later;
    const earlier = expected - distance;
    if (distance > 0 && earlier >= from && test(lines, hunk, earlier)) return earlier;
    if (later > lines.length && earlier < from) break;
  }
  return -1;
}

/** How far a hunk fitting by one neighbour only is looked for: an edit moves what follows it by a few lines. */
const NEAR_WINDOW = 8;

function fitsOneSide(lines: string[], hunk: SourceHunk, at: number): boolean {
  if (at + hunk.remove.length > lines.length) return false;
  for (let i = 0; i < hunk.remove.length; i++) if (lines[at + i] !== hunk.remove[i]) return false;
  const { before, after } = neighboursFit(lines, hunk, at);
  return before || after;
}

/** Whether the line before and the line after the hunk's place (put at `at`) are the ones it had. */
function neighboursFit(lines: string[], hunk: SourceHunk, at: number): { before: boolean; after: boolean } {
  const end = at + hunk.remove.length;
  return {
    before: hunk.before === null ? at === 0 : lines[at - 1] === hunk.before,
    after: hunk.after === null ? end === lines.length : lines[end] === hunk.after,
  };
}

/**
 * A hunk of as many source lines as ours, at its place: each of our lines it replaced that is still ours gets its
 * source line back. Taken only where a neighbour still fits, or two of its lines do (one line alike could be chance).
 */
function lineForLine(lines: string[], hunk: SourceHunk, expected: number, from: number): { at: number; add: string[] } | null {
  const at = expected;
  const end = at + hunk.remove.length;
  if (at < from || end > lines.length) return null;
  const same = hunk.remove.map((line, i) => lines[at + i] === line);
  const count = same.filter(Boolean).length;
  const { before, after } = neighboursFit(lines, hunk, at);
  if (count === 0 && !(before && after)) return null;
  if (count < 2 && !before && !after) return null;
  return { at, add: hunk.add.map((line, i) => (same[i] ? line : (mergeLine(hunk.remove[i], line, lines[at + i]) ?? lines[at + i]))) };
}

/** Words, runs of spaces, and each other character alone (`**` is two tokens): what a line is merged by. */
const TOKENS = /[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu;

/**
 * An edited line with the author's own writing kept around the edit: `base` is our writing of the line as it was read,
 * `source` the author's, `ours` our writing of it now. Where the author's differences from our writing (`__` for
 * `**`, `*` for `_`, an escape) and the edit touch different words, both are taken (`* one __b__` edited to `two`
 * comes back `* two __b__`, not `* two **b**`); where they touch the same ones, null (the line stays ours).
 */
function mergeLine(base: string, source: string, ours: string): string | null {
  const tokens = (line: string) => line.match(TOKENS) ?? [];
  const original = tokens(base);
  const authors = changesOf(original, tokens(source));
  const edits = changesOf(original, tokens(ours));
  if (!authors || !edits) return null;
  for (const a of authors) for (const e of edits) if (overlaps(a, e)) return null;
  // From the end; at one place, a replacement before an insertion (which goes before what the replacement left).
  const all = [...authors, ...edits].sort((a, b) => b.start - a.start || b.end - b.start - (a.end - a.start));
  const out = [...original];
  for (const change of all) out.splice(change.start, change.end - change.start, ...change.insert);
  return out.join('');
}

interface TokenChange {
  start: number;
  end: number;
  insert: string[];
}

function changesOf(from: string[], to: string[]): TokenChange[] | null {
  const changes = diffArrays(from, to, { maxEditLength: 200 });
  if (!changes) return null;
  const out: TokenChange[] = [];
  let at = 0;
  let open: TokenChange | null = null;
  for (const change of changes) {
    if (!change.added && !change.removed) {
      if (open) out.push(open);
      open = null;
      at += change.value.length;
      continue;
    }
    open ??= { start: at, end: at, insert: [] };
    if (change.removed) {
      at += change.value.length;
      open.end = at;
    } else open.insert.push(...change.value);
  }
  if (open) out.push(open);
  return out;
}

/**
 * Two changes of a line that touch the same tokens, or insert at one place, or one inserting inside the other (at its
 * edge, the insertion goes before or after it: `line\` whose `\` the author left out, edited at its end).
 */
function overlaps(a: TokenChange, b: TokenChange): boolean {
  const insertion = (change: TokenChange) => change.start === change.end;
  if (insertion(a) && insertion(b)) return a.start === b.start;
  if (insertion(a)) return b.start < a.start && a.start < b.end;
  if (insertion(b)) return a.start < b.start && b.start < a.end;
  return a.start < b.end && b.start < a.end;
}

function sameLines(a: string[], b: string[], from: number, count: number): boolean {
  for (let i = from; i < from + count; i++) if (a[i] !== b[i]) return false;
  return true;
}

function fits(lines: string[], hunk: SourceHunk, at: number): boolean {
  const end = at + hunk.remove.length;
  if (end > lines.length) return false;
  if (hunk.before === null ? at !== 0 : lines[at - 1] !== hunk.before) return false;
  if (hunk.after === null ? end !== lines.length : lines[end] !== hunk.after) return false;
  for (let i = 0; i < hunk.remove.length; i++) if (lines[at + i] !== hunk.remove[i]) return false;
  return true;
}

/** The patch a document's `data` holds, its shape checked; undefined when there is none or it is malformed. */
export function sourcePatchOf(data: Record<string, unknown> | undefined): SourcePatch | undefined {
  const raw = data?.[SOURCE_PATCH_KEY] as Partial<SourcePatch> | undefined;
  if (!raw || typeof raw !== 'object' || !Array.isArray(raw.hunks)) return undefined;
  const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((line) => typeof line === 'string');
  const line = (value: unknown) => value === null || typeof value === 'string';
  const hunks = raw.hunks.filter(
    (h): h is SourceHunk => !!h && Number.isInteger(h.at) && h.at >= 0 && strings(h.remove) && strings(h.add) && line(h.before) && line(h.after),
  );
  const head = raw.head;
  const nullOrString = (value: unknown) => value === null || typeof value === 'string';
  const headOk = head && typeof head.text === 'string' && nullOrString(head.title) && nullOrString(head.frontmatter);
  return { hunks, ...(headOk ? { head } : {}), ...(raw.noFinalNewline === true ? { noFinalNewline: true as const } : {}), ...(raw.strict === true ? { strict: true as const } : {}) };
}


export { PAGE_FIELD_FRONTMATTER_KEYS } from './page-fields';

/** The page fields a front matter mapping sets, as one comparable string. */
export function frontmatterKey(frontmatter: Record<string, unknown>): string {
  const page = pageFrontmatter(frontmatter);
  // The default layout written out is the same page as no layout at all.
  const fields: Record<string, unknown> = { ...page, layout: layoutFrontmatter(page.layout) };
  return JSON.stringify(PAGE_FIELD_FRONTMATTER_KEYS.map((key) => fields[key] ?? null));
}
