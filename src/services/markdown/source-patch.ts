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
export function applySourceHunks(ours: string, hunks: readonly SourceHunk[], copyFrom?: string): string {
  if (hunks.length === 0) return copyFrom ?? ours;
  const lines = ours.split('\n');
  const other = copyFrom?.split('\n');
  // Lines that do not align (never seen: link targets do not make lines) leave the writing asked for.
  if (other && other.length !== lines.length) return copyFrom!;
  const source = other ?? lines;
  const out: string[] = [];
  let copied = 0;
  let drift = 0;
  for (const hunk of hunks) {
    const found = locate(lines, hunk, hunk.at + drift, copied);
    // Where the writing asked for differs on the hunk's lines (its links go elsewhere), it is kept.
    if (found < 0 || (other && !sameLines(lines, other, found, hunk.remove.length))) continue;
    for (let i = copied; i < found; i++) out.push(source[i]);
    out.push(...hunk.add);
    copied = found + hunk.remove.length;
    drift = found - hunk.at;
  }
  for (let i = copied; i < lines.length; i++) out.push(source[i]);
  return out.join('\n');
}

/** Where `hunk` fits in `lines`, nearest to `expected` and not before `from`; -1 where it fits nowhere. */
function locate(lines: string[], hunk: SourceHunk, expected: number, from: number): number {
  for (let distance = 0; distance <= SEARCH_WINDOW; distance++) {
    const later = expected + distance;
    if (later >= from && fits(lines, hunk, later)) return later;
    const earlier = expected - distance;
    if (distance > 0 && earlier >= from && fits(lines, hunk, earlier)) return earlier;
    if (later > lines.length && earlier < from) break;
  }
  return -1;
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
  return { hunks, ...(headOk ? { head } : {}), ...(raw.noFinalNewline === true ? { noFinalNewline: true as const } : {}) };
}


export { PAGE_FIELD_FRONTMATTER_KEYS } from './page-fields';

/** The page fields a front matter mapping sets, as one comparable string. */
export function frontmatterKey(frontmatter: Record<string, unknown>): string {
  const page = pageFrontmatter(frontmatter);
  // The default layout written out is the same page as no layout at all.
  const fields: Record<string, unknown> = { ...page, layout: layoutFrontmatter(page.layout) };
  return JSON.stringify(PAGE_FIELD_FRONTMATTER_KEYS.map((key) => fields[key] ?? null));
}
