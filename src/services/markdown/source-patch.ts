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
import type { DocumentInlineContent } from './document';
import { defaultResolveLink, pageFrontmatter, readMarkdown } from './from-markdown';
import { defaultHrefFor } from './hrefs';
import { inlineHtml } from './html-table-writer';
import { layoutFrontmatter } from './page-layout';
import { PAGE_FIELD_FRONTMATTER_KEYS } from './page-fields';

import { SOURCE_PATCH_KEY } from './source-patch-key';
import { type CellWriting, cellsOf, type LineOrigin, restyleTables, type TableLine, unpaddedRow } from './table-lines';

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
  /** The hunks were taken over our writing with each table row written alone (table-lines.ts); before, over padded tables. */
  tableRows?: true;
  /** The hunks were taken over our writing with dividers written `***` (GitBook's); before, `---` (to-markdown `dashRulesPatch`). */
  starRules?: true;
}

/** How far (in lines) a hunk is looked for from where the previous hunks put it. */
const SEARCH_WINDOW = 400;

/**
 * The most a patch holds (characters of the lines it removes and adds): a page's Markdown is at most 256 K characters,
 * and its document, patch included, at most 1 MiB as stored; a page whose document with its patch were over that would
 * be imported empty. Beyond it, the page keeps no patch: an edit writes it whole our way (GitBook's form).
 */
export const MAX_PATCH_CHARS = 256 * 1024;

/**
 * The hunks turning `ours` into `source`, or null when they are the same or differ by more than `budget` characters
 * (`MAX_PATCH_CHARS`). Lines are aligned by what they say
 * (`lineKey`: their words, padding and link syntax aside), so a table the author padded, or whose links are written
 * by reference, lines up row by row with ours; then each run of aligned lines written otherwise is a hunk of its own,
 * line for line, and each run of lines only one side has (a reference definition, a blank line) another. Taken
 * whole, a hunk of a block the author wrote otherwise together with lines only the source has (definitions above a
 * table) fitted nowhere once the block was edited, and took those lines with it.
 */
export function sourceHunks(ours: string, source: string, budget = MAX_PATCH_CHARS): SourceHunk[] | null {
  // (The same lines may still hold a table the author wrote unpadded: `tableRowsAsWritten`.)
  if (ours === source && !/^[ \t>]*\|/m.test(source)) return null;
  const a = ours.split('\n');
  const b = source.split('\n');
  // Most of our lines are the source's as they stand: each line is keyed once.
  const keyOf = memoized(lineKey);
  const keys = b.map(keyOf);
  const pairs = slideBlankLines(alignLines(a.map(keyOf), keys), keys, a.length, b.length);
  const hunks: SourceHunk[] = [];
  const one = (at: number, end: number, from: number, to: number) => {
    if (end > at || to > from) hunks.push({ at, remove: a.slice(at, end), add: b.slice(from, to), before: at > 0 ? a[at - 1] : null, after: a[end] ?? null });
  };
  // A run of lines whose keys do not align: its lines alike in words are still matched, each pair a hunk of its own.
  const push = (at: number, end: number, from: number, to: number) => {
    let [i, j] = [at, from];
    for (const [x, y] of alikeLines(a, b, at, end, from, to)) {
      one(i, x, j, y);
      one(x, x + 1, y, y + 1);
      [i, j] = [x + 1, y + 1];
    }
    one(i, end, j, to);
  };
  const keptRow = tableRowsAsWritten(a, b, pairs);
  let i = 0;
  let j = 0;
  for (let k = 0; k <= pairs.length; k++) {
    const [pa, pb] = k < pairs.length ? pairs[k] : [a.length, b.length];
    push(i, pa, j, pb);
    if (k === pairs.length) break;
    if (keptRow(pb)) one(pa, pa + 1, pb, pb + 1);
    // A run of aligned lines written otherwise: one hunk, line for line.
    let n = 0;
    while (k + n < pairs.length && pairs[k + n][0] === pa + n && pairs[k + n][1] === pb + n && a[pa + n] !== b[pb + n]) n++;
    if (n > 0) {
      push(pa, pa + n, pb, pb + n);
      k += n - 1;
      [i, j] = [pa + n, pb + n];
    } else [i, j] = [pa + 1, pb + 1];
  }
  let size = 0;
  for (const hunk of hunks) for (const line of [...hunk.remove, ...hunk.add]) size += line.length + 1;
  return size > budget ? null : hunks;
}

/**
 * The aligned blank lines after a block the source writes on other lines than we do (not line for line), moved past the source's lines
 * that follow them, when those end with a blank line too: the block's lines stay together, one hunk. GitBook's
 * side-by-side `<table>` with one-line code cells is 3 lines of ours and 17 of the source; the blank line after ours
 * was aligned with the one inside the source's table (after `<tr><td>`), the table's hunk was cut in two there, the
 * edit of a cell fitted neither half, and the page was written whole our way.
 */
function slideBlankLines(pairs: Array<[number, number]>, bKeys: readonly string[], aLength: number, bLength: number): Array<[number, number]> {
  for (let k = 0; k < pairs.length; k++) {
    const [x, y] = pairs[k];
    const [px, py] = k > 0 ? pairs[k - 1] : [-1, -1];
    const [nx, ny] = k + 1 < pairs.length ? pairs[k + 1] : [aLength, bLength];
    const ours = x - px - 1;
    if (bKeys[y] !== '' || ours === 0 || y - py - 1 === ours || nx !== x + 1 || ny <= y + 1) continue;
    if (bKeys[ny - 1] === '') pairs[k] = [x, ny - 1];
  }
  return pairs;
}

/** A pipe table's line (a list item's indent or a quote's `>` before it). */
const TABLE_ROW = /^[ \t>]*\|.*\|[ \t]*$/;

/**
 * Whether the source's line `j` is a table row our writing has as it is, in a table the author wrote otherwise elsewhere
 * (a padded header above compact rows): such a row is kept as a hunk of its own (the same line), so it stays the
 * author's. Taken for ours, it was padded to the header's widths (or the table re-padded whole) by an edit elsewhere in
 * the page (zkLink's `| accountId | 4 bytes |`, YAMS' compact rows under a delimiter as wide as the header).
 */
function tableRowsAsWritten(a: readonly string[], b: readonly string[], pairs: ReadonlyArray<[number, number]>): (j: number) => boolean {
  const same = new Set<number>();
  for (const [x, y] of pairs) if (a[x] === b[y] && TABLE_ROW.test(b[y])) same.add(y);
  if (same.size === 0) return () => false;
  // For each source line of a table, whether its table (the run of table lines around it) has a line written otherwise.
  const otherwise = new Map<number, boolean>();
  for (let start = 0; start < b.length; ) {
    if (!TABLE_ROW.test(b[start])) {
      start++;
      continue;
    }
    let end = start;
    while (end < b.length && TABLE_ROW.test(b[end])) end++;
    let differs = false;
    for (let y = start; y < end && !differs; y++) differs = !same.has(y);
    // A table our rows written alone give whole, its lines not all as long (no padding: a compact `| :-: |` under an
    // empty header), is the author's too: taken for ours, its delimiter ours, an edit elsewhere in the page re-padded it
    // whole (found-gitprobe17b 1, MewsSystems partner-mewsletter-jul22.md).
    if (!differs) for (let y = start + 1; y < end && !differs; y++) differs = b[y].length !== b[start].length;
    for (let y = start; y < end; y++) otherwise.set(y, differs);
    start = end;
  }
  return (j) => same.has(j) && otherwise.get(j) === true;
}

/** The most lines a side of an unaligned run may have for its lines to be matched by likeness (`alikeLines`). */
const ALIKE_LINES = 24;

/** How alike two lines' words must be (twice the words in common over both lines' words) to be matched. */
const ALIKE = 2 / 3;

/**
 * Pairs of lines of `a[a0..a1)` and `b[b0..b1)` (both increasing) whose words are mostly the same (a paragraph holding
 * an entity the author wrote, below a line only the source has): the pairing with the most words in common. Matched
 * line for line, an edit of such a line keeps the author's lines beside it; in one hunk with them, the edit fitted
 * nowhere and they were lost (or, taken whole, the edit landed on one of them).
 */
function alikeLines(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number): Array<[number, number]> {
  const n = a1 - a0;
  const m = b1 - b0;
  if (n === 0 || m === 0 || (n === 1 && m === 1) || n > ALIKE_LINES || m > ALIKE_LINES) return [];
  const words = (line: string) => line.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (sameWordsBrokenOtherwise(a.slice(a0, a1), b.slice(b0, b1))) return [];
  const theirs = b.slice(b0, b1).map(words);
  const score = a.slice(a0, a1).map((line) => {
    const mine = words(line);
    return theirs.map((other) => {
      if (mine.length === 0 || other.length === 0) return 0;
      const left = new Map<string, number>();
      for (const word of other) left.set(word, (left.get(word) ?? 0) + 1);
      let common = 0;
      for (const word of mine) if ((left.get(word) ?? 0) > 0) (left.set(word, left.get(word)! - 1), common++);
      const dice = (2 * common) / (mine.length + other.length);
      return dice >= ALIKE ? dice : 0;
    });
  });
  // The most likeness over increasing pairs (a longest common subsequence weighted by likeness).
  const best = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) best[i][j] = Math.max(best[i + 1][j], best[i][j + 1], score[i][j] > 0 ? score[i][j] + best[i + 1][j + 1] : 0);
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (score[i][j] > 0 && best[i][j] === score[i][j] + best[i + 1][j + 1]) (pairs.push([a0 + i, b0 + j]), i++, j++);
    else if (best[i][j] === best[i + 1][j]) i++;
    else j++;
  }
  return pairs;
}

/**
 * Whether two runs of lines say the same words on another number of lines, tags aside: a line break written otherwise
 * (`<br>` in a list item, ours `\` and a continuation line). Paired by likeness, the continuation line alone took the
 * author's line, the line before it fitted nowhere once edited, and the item was written our way (gitprobe12b item 5a).
 * Kept one hunk, the edit is merged into the author's line.
 */
function sameWordsBrokenOtherwise(ours: readonly string[], theirs: readonly string[]): boolean {
  if (ours.length === theirs.length) return false;
  const words = (lines: readonly string[]) => lines.join(' ').replace(/<[^>]*>/g, ' ').match(/[\p{L}\p{N}]+/gu)?.join(' ') ?? '';
  const said = words(ours);
  return said !== '' && said === words(theirs);
}

/**
 * What a line says: its words (a link written inline or by reference, padding, escapes, emphasis and HTML comments
 * aside), or its other characters without spaces. A comment is no content (our writing has none): keyed with its
 * words, a paragraph holding one lined up with nothing, and an edit of it landed on the comment's line above. An end
 * tag is not its start tag (`</div>` is `end div`): keyed alike, a notebook output's `<div>` (ours an html code block)
 * lined up with the author's `</div>`, and the `<table>` between fell in two hunks that no edit of a cell fitted.
 */
function lineKey(line: string): string {
  // Each replacement only where it can match (the words' pass, the costly one, over ASCII without Unicode classes).
  let text = line;
  if (text.includes('<!--')) text = text.replace(/<!--.*?-->/g, ' ');
  if (text.includes('</')) text = text.replace(/<\/(?=[A-Za-z])/g, ' end ');
  if (text.includes('](')) text = text.replace(/\]\([^)]*\)/g, ']');
  const words = text.replace(ASCII.test(text) ? ASCII_NON_WORDS : NON_WORDS, ' ').trim();
  if (words !== '') return words;
  // Any delimiter row of a table is the same line (`|---|:-:|` and `| - | :-: |`).
  return /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/.test(line) && line.includes('|') ? '|-|' : line.replace(/\s+/g, '');
}

const ASCII = /^[\x00-\x7F]*$/;
/** Runs of characters that are no letter or digit; in ASCII, letters and digits are `A-Za-z0-9`. */
const NON_WORDS = /[^\p{L}\p{N}]+/gu;
const ASCII_NON_WORDS = /[^A-Za-z0-9]+/g;

function memoized(key: (line: string) => string): (line: string) => string {
  const known = new Map<string, string>();
  return (line) => {
    let found = known.get(line);
    if (found === undefined) known.set(line, (found = key(line)));
    return found;
  };
}

/** Below this many lines on both sides together, a stretch is aligned by a shortest edit script (Myers, jsdiff). */
const EXACT_LINES = 3_000;

/**
 * Pairs of lines (index in `a`, index in `b`, both increasing) with equal keys: common ends first, then short stretches
 * by a shortest edit script, long ones anchored on the keys each side has once (patience diff) and their gaps aligned
 * the same way. Time and memory stay near linear in the page's length: a shortest edit script over a whole page
 * costs its length times its differences (beyond 2,000 differing lines, the page used to be written whole our way).
 * A gap no anchor splits and too long for an edit script is left unaligned: its lines are one hunk.
 */
function alignLines(a: readonly string[], b: readonly string[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  const align = (a0: number, a1: number, b0: number, b1: number): void => {
    const tail: Array<[number, number]> = [];
    while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) pairs.push([a0++, b0++]);
    while (a1 > a0 && b1 > b0 && a[a1 - 1] === b[b1 - 1]) tail.push([--a1, --b1]);
    if (a0 < a1 && b0 < b1) {
      if (a1 - a0 + (b1 - b0) <= EXACT_LINES || !anchored(a0, a1, b0, b1)) exact(a0, a1, b0, b1);
    }
    pairs.push(...tail.reverse());
  };
  const exact = (a0: number, a1: number, b0: number, b1: number) => {
    const changes = diffArrays(a.slice(a0, a1), b.slice(b0, b1), { maxEditLength: EXACT_LINES });
    if (!changes) return;
    let [i, j] = [a0, b0];
    for (const change of changes) {
      const count = change.count ?? change.value.length;
      if (!change.added && !change.removed) for (let k = 0; k < count; k++) pairs.push([i + k, j + k]);
      if (!change.added) i += count;
      if (!change.removed) j += count;
    }
  };
  // The keys found once on each side, in order on both (a longest increasing subsequence), each gap aligned again.
  const anchored = (a0: number, a1: number, b0: number, b1: number): boolean => {
    const anchors = uniqueAnchors(a, b, a0, a1, b0, b1);
    if (anchors.length === 0) return false;
    let [i, j] = [a0, b0];
    for (const [x, y] of anchors) {
      align(i, x, j, y);
      pairs.push([x, y]);
      [i, j] = [x + 1, y + 1];
    }
    align(i, a1, j, b1);
    return true;
  };
  align(0, a.length, 0, b.length);
  return pairs;
}

function uniqueAnchors(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number): Array<[number, number]> {
  const counts = new Map<string, [number, number, number]>();
  for (let i = a0; i < a1; i++) {
    const entry = counts.get(a[i]) ?? [0, 0, -1];
    entry[0]++;
    entry[2] = i;
    counts.set(a[i], entry);
  }
  const candidates: Array<[number, number]> = [];
  const inB = new Map<string, number>();
  for (let j = b0; j < b1; j++) {
    const entry = counts.get(b[j]);
    if (!entry || entry[0] !== 1) continue;
    entry[1]++;
    inB.set(b[j], j);
  }
  for (const [key, [inA, inBCount, at]] of counts) if (inA === 1 && inBCount === 1) candidates.push([at, inB.get(key)!]);
  candidates.sort((x, y) => x[0] - y[0]);
  return longestIncreasing(candidates);
}

/** The longest run of pairs whose second members increase too (patience sorting, n log n). */
function longestIncreasing(pairs: Array<[number, number]>): Array<[number, number]> {
  const tops: number[] = [];
  const previous = new Array<number>(pairs.length);
  for (let k = 0; k < pairs.length; k++) {
    let [low, high] = [0, tops.length];
    while (low < high) {
      const mid = (low + high) >> 1;
      if (pairs[tops[mid]][1] < pairs[k][1]) low = mid + 1;
      else high = mid;
    }
    previous[k] = low > 0 ? tops[low - 1] : -1;
    tops[low] = k;
  }
  const out: Array<[number, number]> = [];
  for (let k = tops.length ? tops[tops.length - 1] : -1; k >= 0; k = previous[k]) out.push(pairs[k]);
  return out.reverse();
}

/**
 * Our writing with every hunk that still fits put back to the source's lines. Hunks are matched
 * against `ours`; with `copyFrom` (the same writing with other link targets), lines come from it,
 * and a hunk whose lines it writes otherwise (a link of the source, which must now go elsewhere) is
 * left out. With `tables` (which of our lines are a table's: table-lines.ts), our rows left in a table
 * are written in the style of the author's rows around them.
 */
export function applySourceHunks(ours: string, hunks: readonly SourceHunk[], copyFrom?: string, strict = false, tables: ReadonlyArray<TableLine | null> = [], writtenAs?: CellWriting): string {
  if (hunks.length === 0 && tables.length === 0) return copyFrom ?? ours;
  const lines = ours.split('\n');
  const other = copyFrom?.split('\n');
  // Lines that do not align (never seen: link targets do not make lines) leave the writing asked for.
  if (other && other.length !== lines.length) return copyFrom!;
  const source = other ?? lines;
  const out: string[] = [];
  const origins: LineOrigin[] = [];
  // Our lines a placed hunk had as its neighbours, still the same: as they were when the page was read, which is as
  // the author wrote them (a padded table's row wider than its padding, which no hunk holds). Taken for our rows,
  // such a row did not fit the author's widths, and an edit elsewhere in the page re-padded the table whole.
  const unchanged = new Set<number>();
  // A neighbour that had a hunk of its own (a padded table's row, read compact) was not as the author wrote it: its
  // hunk left out (its own neighbours edited), it is our row, padded like the author's, never kept compact.
  const patched = new Set(hunks.flatMap((hunk) => hunk.remove.map((_, k) => hunk.at + k)));
  const copy = (from: number, to: number) => {
    for (let i = from; i < to; i++) (out.push(source[i]), origins.push(unchanged.has(i) ? { table: tables[i]?.table ?? -1, unchanged: true } : { ours: i }));
  };
  let copied = 0;
  let drift = 0;
  const nextDiffering = nextDifferingHunks(hunks);
  for (const [index, hunk] of hunks.entries()) {
    const next = hunks[nextDiffering[index]];
    const placed = place(lines, hunk, hunk.at + drift, copied, strict, next && { hunk: next, at: next.at + drift }, tables);
    // Where the writing asked for differs on the hunk's lines (its links go elsewhere), it is kept.
    if (!placed || (other && !sameLines(lines, other, placed.at, hunk.remove.length))) continue;
    if (placed.at > 0 && lines[placed.at - 1] === hunk.before && !patched.has(hunk.at - 1)) unchanged.add(placed.at - 1);
    if (lines[placed.at + hunk.remove.length] === hunk.after && !patched.has(hunk.at + hunk.remove.length)) unchanged.add(placed.at + hunk.remove.length);
    copy(copied, placed.at);
    const table = tableAround(tables, placed.at, hunk.remove.length);
    placed.add.forEach((line, i) => {
      out.push(line);
      origins.push(placed.ours?.[i] ? { ours: placed.at + i, was: hunk.add[i] } : { table });
    });
    copied = placed.at + hunk.remove.length;
    drift = placed.at - hunk.at;
  }
  copy(copied, lines.length);
  return restyleTables(out, origins, tables, writtenAs).join('\n');
}

/**
 * A table row kept as written, at its place: the author's where it is unchanged; edited, our row stays, with the row
 * it was as evidence of how the author padded the table (a compact row under a compact header: without it, the header
 * alone looked padded, and the edited row re-padded the table whole).
 */
function keptRow(lines: string[], hunk: SourceHunk, at: number, from: number, limit: number, tables: ReadonlyArray<TableLine | null>): Placed | null {
  if (at < from || at + 1 > limit) return null;
  if (fitsOneSide(lines, hunk, at)) return { at, add: hunk.add };
  const { before, after } = neighboursFit(lines, hunk, at);
  return tables[at] && (before || after) ? { at, add: [lines[at]], ours: [true] } : null;
}

/**
 * For each hunk, the index of the next one that says where the source differs (a row kept as written fits wherever
 * the row is unchanged), however many rows kept as written come between. Looked for among the next seven only, a
 * table of nine rows written as the author wrote them but its delimiter hid the hunk after it: nothing bounded the
 * delimiter's hunk, which went to the same table repeated further on (clarity-fintech's realms.md wrote `| - |`).
 */
function nextDifferingHunks(hunks: readonly SourceHunk[]): number[] {
  const next = new Array<number>(hunks.length);
  let found = hunks.length;
  for (let index = hunks.length - 1; index >= 0; index--) {
    next[index] = found;
    if (!keepsRow(hunks[index])) found = index;
  }
  return next;
}

/** A table row kept as written (`tableRowsAsWritten`): the same line removed and added. */
function keepsRow(hunk: SourceHunk): boolean {
  return hunk.remove.length === 1 && hunk.add.length === 1 && hunk.remove[0] === hunk.add[0];
}

/** The table the lines a hunk replaces (or, for an insertion, the lines around it) belong to; -1 for none. */
function tableAround(tables: ReadonlyArray<TableLine | null>, at: number, count: number): number {
  if (count > 0) {
    for (let i = at; i < at + count; i++) if (tables[i]) return tables[i]!.table;
    return -1;
  }
  const before = tables[at - 1];
  return before && tables[at]?.table === before.table ? before.table : -1;
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
function place(lines: string[], hunk: SourceHunk, expected: number, from: number, strict: boolean, next: { hunk: SourceHunk; at: number } | undefined, tables: ReadonlyArray<TableLine | null>): Placed | null {
  // Never past the place the next hunk still fits at: a page repeating a block (the same table in two sections) had the
  // hunk of the edited one put on the other, and every hunk after it looked for too far on. By one neighbour too (the
  // edited line its other): the blank lines the author left out around an edited list item went to the same list
  // repeated further on (zkLink 3-transfer.md, gitprobe12c items 8 and 9).
  const limit = next && next.at >= from && (fits(lines, next.hunk, next.at) || fitsOneSide(lines, next.hunk, next.at)) ? next.at : Infinity;
  const before = (test: typeof fits) => (all: string[], candidate: SourceHunk, at: number) => at + candidate.remove.length <= limit && test(all, candidate, at);
  // A table row kept as written (`tableRowsAsWritten`) only marks its line the author's, where it is: looked for
  // further, it fitted the same row of a table repeated further on, and the hunks after it were looked for past it.
  if (keepsRow(hunk)) return keptRow(lines, hunk, expected, from, limit, tables);
  // At its own place by one neighbour (the other edited) before anywhere else by both: a table's delimiter above an
  // edited first row fitted whole the same table further on (same header, same first row), went there, and the edited
  // table was written with our `| - | - |` (dnscontrol SSHFP.md, found-gitprobe15c 5).
  if (!strict && expected >= from && before(fitsOneSide)(lines, hunk, expected) && neighboursFit(lines, hunk, expected).before) return { at: expected, add: hunk.add };
  const found = locate(lines, hunk, expected, from, before(fits), SEARCH_WINDOW);
  if (found >= 0) return { at: found, add: hunk.add };
  if (strict) return null;
  // One neighbour only: near where the hunk was (an insertion too: a diff may split one change into a removal and
  // an insertion a blank line apart, the insertion's neighbour the edited line).
  const beside = locate(lines, hunk, expected, from, before(fitsOneSide), NEAR_WINDOW);
  if (beside >= 0) return { at: beside, add: hunk.add };
  if (expected + hunk.remove.length > limit) return null;
  return hunk.remove.length === hunk.add.length ? lineForLine(lines, hunk, expected, from, tables) : mergedBlock(lines, hunk, expected, from);
}

/**
 * A hunk giving other lines than it replaces (GitBook's `<table>` with a code block in a cell, written on 7 lines where
 * ours opens the code on the table's line), at its place, whose lines of ours were edited: the edit merged into the
 * source's lines as text (`mergeLine`, line breaks as spaces are), where it touches none of the author's differences.
 * Taken only where a neighbour still fits and our lines there are as many as the hunk replaced. Not merged, an edit of
 * a table's first code line wrote the page whole our way (the patch left read as another document).
 */
function mergedBlock(lines: string[], hunk: SourceHunk, at: number, from: number): Placed | null {
  const end = at + hunk.remove.length;
  if (hunk.remove.length === 0 || at < from || end > lines.length) return null;
  const { before, after } = neighboursFit(lines, hunk, at);
  if (!before && !after) return null;
  // An author's HTML table is edited cell by cell first: merged as text, an edit that gave a cell markup (a mark, a link)
  // put our `**` in the author's cell, and one in a cell repeating a word (`<a>beta</a> beta`) went to the other; the cell
  // then read otherwise, and the table was written whole as a pipe table.
  const ours = lines.slice(at, end);
  const block = () => mergeLine(hunk.remove.join('\n'), hunk.add.join('\n'), ours.join('\n'));
  const merged = /<t[dh][\s>]/i.test(hunk.add.join('\n')) ? (htmlCellsEdited(hunk.remove, hunk.add, ours) ?? block()) : block();
  return merged === null ? null : { at, add: merged.split('\n') };
}

/** A cell's text an HTML cell holds as it is: no Markdown or HTML syntax, so it reads the same in both. */
const PLAIN_CELL = /^[^<>&\\|*_`[\]!{}$~]*$/;

/**
 * An HTML `<table>` of the author's (ours a pipe table) whose cells were edited: each edited cell's text replaced in the
 * author's cell at the same row and column (`cellAt`), or else where the author's table has it, alone between tags,
 * once. Merged token by token, the edit fell among the author's tags (`</td>\n    <td>` for our ` | `) and the table
 * was written whole as a pipe table, the `</div>` around it dropped (RunLLM's notebook outputs, gitprobe12c item 3).
 * Null where a cell's text is not plain or not found.
 */
function htmlCellsEdited(base: readonly string[], source: readonly string[], ours: readonly string[]): string | null {
  let text = source.join('\n');
  if (!/<t[dh][\s>]/i.test(text)) return null;
  const rows = pipeRowIndexes(base);
  for (let i = 0; i < base.length; i++) {
    if (base[i] === ours[i]) continue;
    const [was, now] = [cellsOf(base[i].trim()), cellsOf(ours[i].trim())];
    if (!base[i].trim().startsWith('|') || was.length !== now.length) return null;
    for (let c = 0; c < was.length; c++) {
      const [from, to] = [was[c].trim(), now[c].trim()];
      if (from === to) continue;
      // Where the edit cannot be merged as text, the author's cell at the same row and column is written again as HTML.
      const asHtml = () => cellEditedAsHtml(text, rows, i, c, from, to);
      if (from === '') {
        const edited = asHtml();
        if (edited === null) return null;
        text = edited;
        continue;
      }
      if (!PLAIN_CELL.test(from) || !PLAIN_CELL.test(to)) {
        // Links or marks in it: the edit merged into the author's cell at the same row and column, alone (merged into
        // the whole table, a text several cells begin with fitted nowhere: X-CASH get-started.md, found-gitprobe17c 2).
        // An edit that adds or removes markup (a link, a mark) is ours in Markdown: merged as text, `**` stood in the
        // author's HTML cell, and the table was written whole as a pipe table.
        const cell = cellRange(text, rows, i, c);
        const merged = cell ? mergedInHtmlCell(from, to, text.slice(cell.start, cell.end).trim()) : null;
        if (cell && merged !== null) {
          const inner = text.slice(cell.start, cell.end);
          const lead = inner.length - inner.trimStart().length;
          text = text.slice(0, cell.start + lead) + merged + text.slice(cell.start + lead + inner.trim().length);
          continue;
        }
        const edited = asHtml();
        if (edited === null) return null;
        text = edited;
        continue;
      }
      const at = cellAt(text, rows, i, c, from) ?? onlyCellSaying(text, from);
      if (at === null) {
        const edited = asHtml();
        if (edited === null) return null;
        text = edited;
        continue;
      }
      text = text.slice(0, at) + to + text.slice(at + from.length);
    }
  }
  return text;
}

/**
 * An edit of our cell's Markdown (`from` to `to`, no markup added or removed) merged into the author's HTML cell's content
 * `authors`, where what it gives says the edited cell's text; null otherwise. A merge whose text is not the edited cell's
 * (a word the cell repeats, `<a>beta</a> beta`, merged at the other) is none.
 */
function mergedInHtmlCell(from: string, to: string, authors: string): string | null {
  if (!authors || touchesMarkup(from, to)) return null;
  const said = cellAsHtml(to);
  const saysSo = (merged: string | null) => (merged !== null && said !== null && sameCellText(merged, said) ? merged : null);
  return saysSo(mergeLine(from, authors, to)) ?? saysSo(editedInHtmlText(from, to, authors));
}

/**
 * An edited row of our pipe table (`base` as it was read, `ours` now) whose author's line is one cell of their HTML table
 * (`<td><a href="https://x.example/beta">beta</a> beta</td>`, a table written a cell a line): the edited cell merged into
 * that cell's content (mergedInHtmlCell), else written as GitBook writes an HTML cell. Merged token by token with the whole
 * row, an edit of a word the cell repeats went to the other one (the link's text, the word also in its URL), the cell then
 * read otherwise, and the table was written whole as a pipe table. Null where the line is no such cell, or more than one
 * of our cells changed.
 */
function htmlCellLineEdited(base: string, source: string, ours: string): string | null {
  if (!/<t[dh][\s>]/i.test(source) || !base.trim().startsWith('|')) return null;
  const [was, now] = [cellsOf(base.trim()), cellsOf(ours.trim())];
  if (was.length !== now.length) return null;
  const edited = was.flatMap((cell, c) => (cell.trim() === now[c].trim() ? [] : [c]));
  if (edited.length !== 1) return null;
  const [from, to] = [was[edited[0]].trim(), now[edited[0]].trim()];
  const before = cellAsHtml(from);
  const cells = [...source.matchAll(HTML_CELL)].filter((cell) => before !== null && sameCellText(cell[3], before));
  if (cells.length !== 1) return null;
  const [cell] = cells;
  const inner = cell[3];
  const authors = inner.trim();
  const merged = mergedInHtmlCell(from, to, authors) ?? cellAsHtml(to);
  if (merged === null) return null;
  const start = cell.index! + cell[1].length + (inner.length - inner.trimStart().length);
  return source.slice(0, start) + merged + source.slice(start + authors.length);
}

/** What our writing of a cell marks up, and an HTML cell's `&` (an entity): no part of a text the two share. */
const MARKUP = /[[\]()<>*_`!~|\\&]/;

/**
 * An edit of our cell's text (`from` to `to`) made in the author's HTML cell, where the words it replaces, with the
 * text around them up to our markup, stand once in the cell's text outside its tags: a link's text edited (`[Wrench](…)`
 * for the author's `<a href=…>Wrench</a>`) could not be merged token by token (the author's tags hold the text after
 * the URL, ours before it). Null where the edit touches markup or is not found once.
 */
function editedInHtmlText(from: string, to: string, cell: string): string | null {
  const { start, end, removed, inserted } = differingMiddle(from, to);
  if (MARKUP.test(removed) || MARKUP.test(inserted)) return null;
  const before = from.slice(0, start).split(MARKUP).at(-1) ?? '';
  const after = from.slice(from.length - end).split(MARKUP)[0] ?? '';
  const needle = before + removed + after;
  if (needle.trim() === '') return null;
  const found: number[] = [];
  for (const segment of cell.matchAll(/(?<=^|>)[^<>]+/g)) {
    for (let at = segment[0].indexOf(needle); at >= 0; at = segment[0].indexOf(needle, at + 1)) found.push(segment.index! + at);
  }
  if (found.length !== 1) return null;
  const at = found[0] + before.length;
  return cell.slice(0, at) + inserted + cell.slice(at + removed.length);
}

/** Where two texts differ: the length of their common start and end, and what the middle of each is. */
function differingMiddle(from: string, to: string): { start: number; end: number; removed: string; inserted: string } {
  let start = 0;
  while (start < from.length && start < to.length && from[start] === to[start]) start++;
  let end = 0;
  while (end < from.length - start && end < to.length - start && from[from.length - 1 - end] === to[to.length - 1 - end]) end++;
  return { start, end, removed: from.slice(start, from.length - end), inserted: to.slice(start, to.length - end) };
}

/** Whether an edit of our cell's Markdown (`from` to `to`) adds or removes markup: a link, a mark, an escape. */
function touchesMarkup(from: string, to: string): boolean {
  const { removed, inserted } = differingMiddle(from, to);
  return MARKUP.test(removed) || MARKUP.test(inserted);
}

/**
 * Our pipe table cell's Markdown (written with the space's hrefs) as GitBook writes an HTML table's cell (html-table-writer):
 * its inline HTML. Null where it does not read as one paragraph.
 */
function cellAsHtml(markdown: string): string | null {
  if (markdown === '') return '';
  const nodes = readMarkdown(`---\ntitle: cell\n---\n${markdown}`, { resolveLink: defaultResolveLink }).conversion.document.nodes as ReadonlyArray<{ type?: string; nodes?: unknown }>;
  if (nodes.length !== 1 || nodes[0].type !== 'paragraph') return null;
  return inlineHtml((nodes[0].nodes ?? []) as DocumentInlineContent[], defaultHrefFor);
}

/**
 * The author's HTML table `text` with its cell at our row `line`, column `column` edited from `from` to `to` (our cell's
 * Markdown) in HTML: our HTML of the edit merged into the author's cell where it touches none of the author's own writing
 * (`<b>` for our `<strong>`, attributes), else the cell's content written our way; the rest of the table as written.
 * Null where the author's table has no such cell, or a cell is not one paragraph.
 */
function cellEditedAsHtml(text: string, rows: ReturnType<typeof pipeRowIndexes>, line: number, column: number, from: string, to: string): string | null {
  const cell = cellRange(text, rows, line, column);
  if (!cell) return null;
  const [was, now] = [cellAsHtml(from), cellAsHtml(to)];
  if (was === null || now === null) return null;
  const inner = text.slice(cell.start, cell.end);
  const authors = inner.trim();
  const tokenMerged = authors && was ? mergeLine(was, authors, now) : null;
  const merged = tokenMerged !== null && sameCellText(tokenMerged, now) ? tokenMerged : now;
  const lead = authors ? inner.length - inner.trimStart().length : 0;
  return text.slice(0, cell.start + lead) + merged + text.slice(cell.start + lead + authors.length);
}

/** Whether two HTML cells say the same text (tags aside, entities read, spaces collapsed). */
function sameCellText(a: string, b: string): boolean {
  const text = (html: string) =>
    html
      .replace(/<[^>]*>/g, ' ')
      .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' })[name]!)
      .replace(/\s+/g, ' ')
      .trim();
  return text(a) === text(b);
}

/** Each line's row number among a pipe table's rows (its delimiter row, and lines no row, -1); null where the lines hold no one table. */
function pipeRowIndexes(lines: readonly string[]): { of: number[]; count: number; emptyHeader: boolean; emptyLast: boolean } | null {
  const of = lines.map(() => -1);
  let count = 0;
  let first = -1;
  let last = -1;
  lines.forEach((line, i) => {
    if (!TABLE_ROW.test(line) || lineKey(line) === '|-|') return;
    if (first < 0) first = i;
    last = i;
    of[i] = count++;
  });
  if (count === 0 || lines.slice(first, last + 1).some((line) => !TABLE_ROW.test(line))) return null;
  const empty = (line: string) => cellsOf(line.trim()).every((cell) => cell.trim() === '');
  return { of, count, emptyHeader: empty(lines[first]), emptyLast: count > 1 && empty(lines[last]) };
}

/** An HTML table's rows (`<tr>…</tr>`), each with its cells' inner text and where that text starts. */
const HTML_ROW = /<tr\b[^>]*>([\s\S]*?)<\/tr\s*>/gi;
const HTML_CELL = /(<t([dh])\b[^>]*>)([\s\S]*?)<\/t\2\s*>/gi;

/**
 * Where the text `from` of our table's row `line`, column `column` starts in the author's one HTML table: the cell of
 * the same row and column, as many rows (ours may add an empty header row) and cells in each as ours. A notebook's
 * data frame says `False` or `0` in many cells: looked for by its text alone, such a cell was found more than once and
 * the table written whole as a pipe table (RunLLM customer-churn-predictor.md).
 */
function cellAt(text: string, rows: ReturnType<typeof pipeRowIndexes>, line: number, column: number, from: string): number | null {
  const cell = cellRange(text, rows, line, column);
  if (!cell || text.slice(cell.start, cell.end).trim() !== from) return null;
  return cell.start + text.slice(cell.start, cell.end).indexOf(from);
}

/**
 * Where the inner text of the author's HTML cell at our row `line`, column `column` is, in their one table of as many
 * rows as ours: an empty header row of ours aside, or an empty last row (GitBook's old exporter left a `<tr>` unclosed
 * before `</tbody>`, which reads as one).
 */
function cellRange(text: string, rows: ReturnType<typeof pipeRowIndexes>, line: number, column: number): { start: number; end: number } | null {
  if (!rows || rows.of[line] < 0 || (text.match(/<table\b/gi) ?? []).length !== 1) return null;
  const htmlRows = [...text.matchAll(HTML_ROW)];
  const skipped = rows.count - htmlRows.length;
  const shift = skipped === 0 ? 0 : skipped === 1 && rows.emptyHeader ? 1 : skipped === 1 && rows.emptyLast ? 0 : null;
  const row = shift === null ? undefined : htmlRows[rows.of[line] - shift];
  const cell = row ? [...row[1].matchAll(HTML_CELL)][column] : undefined;
  if (!row || !cell) return null;
  const start = row.index! + row[0].indexOf('>') + 1 + cell.index! + cell[1].length;
  return { start, end: start + cell[3].length };
}

/** Where the only cell of the author's table saying `from`, alone between tags, starts; null where none or several do. */
function onlyCellSaying(text: string, from: string): number | null {
  const found = [...text.matchAll(new RegExp(`(>[ \\t]*)${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[ \\t]*<)`, 'g'))];
  return found.length === 1 ? found[0].index! + found[0][1].length : null;
}

/** Where a hunk goes and the lines it puts there; `ours[i]`: the line there is our writing's own (an edited table row, written in its table's style). */
interface Placed {
  at: number;
  add: string[];
  ours?: boolean[];
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
function lineForLine(lines: string[], hunk: SourceHunk, expected: number, from: number, tables: ReadonlyArray<TableLine | null>): Placed | null {
  const at = expected;
  const end = at + hunk.remove.length;
  if (at < from || end > lines.length) return null;
  const same = hunk.remove.map((line, i) => lines[at + i] === line);
  const count = same.filter(Boolean).length;
  // Table rows still ours at their place, both neighbours edited (a row between two edited rows): the author's rows, as
  // they were. Left out, such a row was restyled from the rows around it, and in a table without outer pipes went out
  // as `| Kind | one |` among the author's `Mail    | text`.
  if (count > 0 && count === hunk.remove.length && hunk.add.length === count && same.every((_, i) => tables[at + i])) return { at, add: hunk.add };
  const { before, after } = neighboursFit(lines, hunk, at);
  if (count === 0 && !(before && after)) return null;
  if (count < 2 && !before && !after) return null;
  // An edited table row (the author's, merged with the edit, or ours) is padded afterwards as its table is.
  // A row whose author's line is one cell of their HTML table: that cell edited alone, the line the author's still.
  const htmlCells = hunk.add.map((line, i) => (!same[i] && tables[at + i] ? htmlCellLineEdited(hunk.remove[i], line, lines[at + i]) : null));
  const ours = hunk.add.map((_, i) => !same[i] && !!tables[at + i] && htmlCells[i] === null);
  // An edited table row is merged with the author's cells, not their padding (re-padded after): merged with it, an
  // edit beside a padded cell fell in its padding, read as another cell, and the author's escapes (`pull\_opened`) went.
  const add = hunk.add.map((line, i) => (same[i] ? line : (htmlCells[i] ?? mergeLine(hunk.remove[i], tables[at + i] ? unpaddedRow(line) : line, lines[at + i]) ?? lines[at + i])));
  return { at, add, ...(ours.some(Boolean) ? { ours } : {}) };
}

/** Words, runs of spaces, and each other character alone (`**` is two tokens): what a line is merged by. */
const TOKENS = /[\p{L}\p{N}]+(?:_+[\p{L}\p{N}]+)*|\s+|[^\p{L}\p{N}\s]/gu;

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
  for (const a of authors) for (const e of edits) if (overlaps(a, e) && !endsLineBefore(e, a)) return null;
  for (const a of authors) keepReferenceLabel(original, a, edits);
  // From the end; at one place, a replacement before an insertion (which goes before what the replacement left).
  const all = [...authors, ...edits].sort((a, b) => b.start - a.start || b.end - b.start - (a.end - a.start));
  const out = [...original];
  for (const change of all) out.splice(change.start, change.end - change.start, ...change.insert);
  return out.join('');
}

/**
 * A link the author wrote by reference (`[text]` or `[text][]`, where we write `[text](url)`) whose text the edit
 * changes: the reference keeps its label (`[new text][text]`), which names the definition. Merged as it was, the
 * line read `[new text]`, a reference to no definition (text, not a link): the page failed its check and was
 * written whole our way (uber-go-guide's `builtin-name.md`).
 */
function keepReferenceLabel(original: readonly string[], author: TokenChange, edits: readonly TokenChange[]): void {
  const { start, end, insert } = author;
  if (original[start] !== '(' || original[end - 1] !== ')' || original[start - 1] !== ']') return;
  if (!(insert.length === 0 || (insert.length === 2 && insert[0] === '[' && insert[1] === ']'))) return;
  let open = start - 2;
  for (let depth = 0; open >= 0; open--) {
    if (original[open] === ']') depth++;
    else if (original[open] === '[' && depth-- === 0) break;
  }
  if (open < 0) return;
  // The text's tokens are open + 1 .. start - 2; an insertion touches it right after `[` up to right before `]`.
  const touchesText = (edit: TokenChange) => (edit.start === edit.end ? edit.start > open && edit.start < start : edit.start < start - 1 && edit.end > open + 1);
  if (!edits.some(touchesText)) return;
  author.insert = ['[', ...original.slice(open + 1, start - 1), ']'];
}

interface TokenChange {
  start: number;
  end: number;
  insert: string[];
}

/**
 * Whether `edit` inserts text where `author` inserts lines that begin with a line break, or with a `\` hard break:
 * the text ends the line before them (applied after the author's, it goes before them). A two-line setext heading
 * (`First line` / `second line` / `---`, ours `## First line second line`) edited at its end was both inserting at the
 * end, and was written as our one `##` line (found-gitprobe16a 5, aimlapi); a paragraph ending `text.\` / `<br>` (ours
 * `text.<br><br>`) edited at its text's end was written `text. edit<br><br>` (probe22, trunk-io/docs).
 */
function endsLineBefore(edit: TokenChange, author: TokenChange): boolean {
  return edit.start === edit.end && author.start === author.end && edit.start === author.start && beginsWithLineBreak(author.insert) && !edit.insert.some((token) => token.includes('\n'));
}

/** Tokens that begin with a line break, or a `\` hard break (the backslash, then the line break). */
function beginsWithLineBreak(tokens: readonly string[]): boolean {
  const first = tokens[0] ?? '';
  return /^\s*\n/.test(first) || (first === '\\' && /^\r?\n/.test(tokens[1] ?? ''));
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
  return { hunks, ...(headOk ? { head } : {}), ...(raw.noFinalNewline === true ? { noFinalNewline: true as const } : {}), ...(raw.strict === true ? { strict: true as const } : {}), ...(raw.tableRows === true ? { tableRows: true as const } : {}), ...(raw.starRules === true ? { starRules: true as const } : {}) };
}


export { PAGE_FIELD_FRONTMATTER_KEYS } from './page-fields';

/** The page fields a front matter mapping sets, as one comparable string. */
export function frontmatterKey(frontmatter: Record<string, unknown>): string {
  const page = pageFrontmatter(frontmatter);
  // The default layout written out is the same page as no layout at all.
  const fields: Record<string, unknown> = { ...page, layout: layoutFrontmatter(page.layout) };
  return JSON.stringify(PAGE_FIELD_FRONTMATTER_KEYS.map((key) => fields[key] ?? null));
}
