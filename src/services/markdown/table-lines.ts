/**
 * Pipe tables' lines, written two ways. GitBook pads every cell to its column's width (`aligned`), so one edited
 * cell re-pads the whole table. A page read from Markdown is matched against our writing line by line
 * (source-patch.ts), so there each row is written alone (`rows`: `| a | b |`, the delimiter `| - | :-: |`), a line
 * that only its own cells decide, and each line is marked with the table it belongs to; once the author's lines are
 * put back, the rows still ours are written as the author's table has them (`restyleTables`): padded to its widths
 * (a cell wider than its column as it is: only the edited row changes), left unpadded in an unpadded table.
 */
import type { AlignType } from 'mdast';

/** Starts a table's first line in the `rows` writing; its other lines start with `ROW`. */
const HEADER = '\u0002';
const ROW = '\u0003';

export type TableMode = 'aligned' | 'rows';

/**
 * A cell's text as the caller finally writes it: Git Sync's export rewrites `/pages/<id>` to the page's path in the
 * repository after the page is written, and GitBook pads a column by the cell written. Measured as `/pages/<id>`, a
 * cell linking to a page padded its column to another width than its text (gitprobe12b item 3, gitprobe12c item 4).
 */
export type CellWriting = (text: string) => string;

const asItIs: CellWriting = (text) => text;

/** A table's cells (already written as Markdown) as lines, in one of the two writings. */
export function tableText(matrix: string[][], align: readonly AlignType[] | null | undefined, mode: TableMode, writtenAs: CellWriting = asItIs): string {
  const columns = Math.max(align?.length ?? 0, ...matrix.map((row) => row.length));
  const rows = matrix.map((row) => Array.from({ length: columns }, (_, i) => row[i] ?? ''));
  const codes = Array.from({ length: columns }, (_, i) => align?.[i] ?? null);
  if (mode === 'aligned') return alignedLines(rows, codes, measuredAs(codeUnits, writtenAs)).join('\n');
  const line = (cells: string[]) => `|${cells.map((cell) => (cell === '' ? ' ' : ` ${cell} `)).join('|')}|`;
  const [header = [], ...body] = rows;
  return [HEADER + line(header), ROW + line(codes.map((code) => delimiterCell(code, 1))), ...body.map((row) => ROW + line(row))].join('\n');
}

function delimiterCell(code: AlignType, width: number): string {
  const before = code === 'left' || code === 'center' ? ':' : '';
  const after = code === 'right' || code === 'center' ? ':' : '';
  return before + '-'.repeat(Math.max(1, width - before.length - after.length)) + after;
}

/** How a cell's width is measured: in UTF-16 code units (GitBook's) or in display columns (other formatters'). */
type Measure = (text: string) => number;

/**
 * GitBook's measure: a JavaScript string's length (markdown-table's default), one for a Hangul syllable or a CJK
 * character, two for an emoji. Seen in GitBook's own commits (Incheol-Jung's GITBOOK-572 re-padded 20 tables of
 * Hangul cells to the widths of their delimiter rows counted this way; beefree's GITBOOK commits pad a cell holding
 * `🙂` to one more than its code points).
 */
const codeUnits: Measure = (text) => text.length;

/** `measure` of a cell as it is finally written. */
function measuredAs(measure: Measure, writtenAs: CellWriting): Measure {
  return writtenAs === asItIs ? measure : (text) => measure(writtenAs(text));
}

/** GitBook's writing (markdown-table's): every cell padded to its column's widest, measured by `measure`. */
function alignedLines(rows: string[][], codes: readonly AlignType[], measure: Measure = codeUnits): string[] {
  const widths = codes.map((code, i) => Math.max(delimiterCell(code, 1).length, ...rows.map((row) => measure(row[i] ?? ''))));
  const line = (cells: string[]) => `|${cells.map((cell, i) => ` ${pad(cell, widths[i], codes[i], measure)} `).join('|')}|`;
  const [header = [], ...body] = rows;
  return [line(header), line(codes.map((code, i) => delimiterCell(code, widths[i]))), ...body.map(line)];
}

function pad(cell: string, width: number, code: AlignType, measure: Measure): string {
  const size = Math.max(0, width - measure(cell));
  if (code === 'right') return ' '.repeat(size) + cell;
  if (code === 'center') return ' '.repeat(Math.ceil(size / 2)) + cell + ' '.repeat(Math.floor(size / 2));
  return cell + ' '.repeat(size);
}

/** Columns a string takes in a monospaced font: East Asian wide and fullwidth characters two, combining marks none. */
export function displayWidth(text: string): number {
  // Most cells are printable ASCII: one column a character.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let width = 0;
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (/\p{Mn}|\p{Me}|\u200B|\u200D|\uFE0F/u.test(character)) continue;
    width += isWide(code) ? 2 : 1;
  }
  return width;
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0x303e) ||
    (code >= 0x3041 && code <= 0x33ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xa000 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

/** A line of the `rows` writing that is a table's: which table (counted from 0) and what precedes its first `|` (a list item's indent). */
export interface TableLine {
  table: number;
  prefix: string;
}

/** The `rows` writing without its marks, and for each line the table it is part of (null: none). */
export function unmarkTables(text: string): { text: string; tables: Array<TableLine | null> } {
  if (!text.includes(HEADER)) return { text, tables: [] };
  let table = -1;
  const tables: Array<TableLine | null> = [];
  const lines = text.split('\n').map((line) => {
    const header = line.indexOf(`${HEADER}|`);
    const row = header < 0 ? line.indexOf(`${ROW}|`) : -1;
    const at = header >= 0 ? header : row;
    if (at < 0 || (table < 0 && header < 0)) {
      tables.push(null);
      return line;
    }
    if (header >= 0) table++;
    tables.push({ table, prefix: line.slice(0, at) });
    return line.slice(0, at) + line.slice(at + 1);
  });
  return { text: lines.join('\n'), tables };
}

/**
 * Where a line of patched writing came from: our writing (`ours`, its line there; `was`, the author's row it replaces,
 * edited) or the author's (`table`: the table of the lines it replaced, -1 for none); `unchanged`: our line, as the
 * author's was when read (no evidence of padding).
 */
export type LineOrigin = { ours: number; was?: string } | { table: number; unchanged?: true };

/**
 * The patched writing with each table's lines still ours written in the author's style: every line of a table the
 * author has no line of (a new table, or one whose delimiter row is ours) padded as GitBook pads; in a table the author
 * padded (the lines kept are all as wide, column by column), our rows padded to its widths, a cell wider than its
 * column written as it is (re-padded whole, an edit that widened one cell rewrote every row and the author's
 * `|----|` delimiter: found-gitprobe15a 5, found-gitprobe15c 5); in a table whose rows are not all padded alike, our
 * rows padded like the author's row nearest them; in an unpadded table, our rows as they are (`| a | b |`).
 */
export function restyleTables(lines: string[], origins: readonly LineOrigin[], tables: ReadonlyArray<TableLine | null>, writtenAs: CellWriting = asItIs): string[] {
  if (tables.length === 0) return lines;
  const out = [...lines];
  const tableOf = (i: number) => {
    const origin = origins[i];
    return 'ours' in origin ? (tables[origin.ours]?.table ?? -1) : origin.table;
  };
  for (let start = 0; start < out.length; ) {
    const table = tableOf(start);
    let end = start + 1;
    while (end < out.length && table >= 0 && tableOf(end) === table) end++;
    if (table >= 0) restyle(out, origins, start, end, writtenAs);
    start = end;
  }
  return out;
}

/** What precedes a row's first `|`: a list item's indent, a quote's `>`. */
const indentOf = (line: string) => /^[ \t>]*/.exec(line)![0];

function restyle(out: string[], origins: readonly LineOrigin[], start: number, end: number, writtenAs: CellWriting): void {
  const indices = Array.from({ length: end - start }, (_, i) => start + i);
  const ours = indices.filter((i) => 'ours' in origins[i]);
  if (indices.length < 2 || ours.length === 0) return;
  // The author's rows: those a hunk gave tell how the table is padded; our rows left as they were read are written as they are.
  const authors = indices.filter((i) => !('ours' in origins[i]) && !origins[i].unchanged);
  // Our rows go where the author's are (a table in an item indented by four, ours by two, would leave the item).
  const prefix = indentOf(out[authors[0] ?? start]);
  const rows = indices.map((i) => cellsOf(unindented(out[i])));
  const codes = rows[1].map(alignmentOf);
  if (codes.some((code) => code === undefined)) return;
  const write = (lines: string[]) => lines.forEach((line, k) => (out[start + k] = prefix + line));
  if ('ours' in origins[start + 1]) return write(alignedLines(withoutDelimiter(rows), codes as AlignType[], measuredAs(codeUnits, writtenAs)));
  // How the author padded: their rows kept, and the rows edited as they were read (a wide cell's row may be the only one).
  const evidence = [...authors.filter((i) => i !== start + 1).map((i) => out[i]), ...ours.flatMap((i) => ('was' in origins[i] && origins[i].was !== undefined ? [origins[i].was] : []))];
  const padded = paddedWidths(unindented(out[start + 1]), evidence.map(unindented), writtenAs);
  const theirs = indices.filter((i) => !('ours' in origins[i]));
  for (const i of ours) {
    // An edited row keeps what its author's line began with: in a table without outer pipes, a header's leading space
    // is its first cell's, no indent of the table's (` Members | Descriptions`), and put before the other rows changed them.
    const origin = origins[i];
    const indent = 'was' in origin && origin.was !== undefined ? indentOf(origin.was) : prefix;
    // Padded to the table's widths, or else (rows not all padded alike) to its nearest row of the author's; unpadded in an unpadded table.
    const like = padded ?? neighbourWidths(out, theirs, start + 1, i, writtenAs);
    const cells = rows[i - start];
    if (!like || cells.length !== like.widths.length) {
      out[i] = indent + unindented(out[i]);
      continue;
    }
    // Only the edited row changes: a cell wider than its column is written as it is, the other rows and the delimiter left as the author wrote them.
    out[i] = `${indent}|${cells.map((cell, c) => ` ${pad(cell.trim(), like.widths[c] - 2, codes[c] as AlignType, like.measure)} `).join('|')}|`;
  }
}

/** A line without its indent (a table inside a list item or a block quote is indented). */
function unindented(line: string): string {
  return line.slice(indentOf(line).length);
}

/** A row written tight: each cell its text between single spaces (`| a | b |`), as an unpadded table's rows are. */
function tight(row: string): boolean {
  return cellsOf(row).every((cell) => cell === ' ' || cell === '' || (cell.startsWith(' ') && cell.endsWith(' ') && cell.trim() === cell.slice(1, -1)));
}

/**
 * The cells' widths of the author's body row nearest to our row `at` (the header only where the table has no other),
 * for a table whose rows are not all padded alike (the header to the delimiter, the rows one narrower in a column):
 * the edited row padded like its neighbours. Null where that row is tight (compact rows, under a padded header or
 * not: the edited row stays unpadded) or has no outer pipes.
 */
function neighbourWidths(out: readonly string[], theirs: readonly number[], delimiter: number, at: number, writtenAs: CellWriting): { widths: number[]; measure: Measure } | null {
  const body = theirs.filter((i) => i > delimiter);
  const [nearest] = (body.length > 0 ? body : theirs.filter((i) => i < delimiter)).sort((x, y) => Math.abs(x - at) - Math.abs(y - at) || y - x);
  if (nearest === undefined) return null;
  const row = unindented(out[nearest]);
  if (!row.startsWith('|') || !row.endsWith('|') || tight(row)) return null;
  const measure = measuredAs(codeUnits, writtenAs);
  return { widths: cellsOf(row).map(measure), measure };
}

/**
 * A table row of the author's as the `rows` writing writes one (`| a | b |`): its cells' padding left out, their text
 * (escapes, links) as the author wrote it. What an edited row is merged with: padding is the table's, put back after.
 */
export function unpaddedRow(line: string): string {
  const prefix = indentOf(line);
  const row = line.slice(prefix.length);
  if (!row.startsWith('|') || !row.trimEnd().endsWith('|')) return line;
  return `${prefix}|${cellsOf(row).map((cell) => (cell.trim() === '' ? ' ' : ` ${cell.trim()} `)).join('|')}|`;
}

function withoutDelimiter(rows: string[][]): string[][] {
  return rows.filter((_, i) => i !== 1).map((row) => row.map((cell) => cell.trim()));
}

/** A row's cells as written between its pipes (an escaped `\|` is a cell's). */
export function cellsOf(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < line.length; i++) {
    const character = line[i];
    if (character === '\\' && i + 1 < line.length) {
      cell += character + line[++i];
      continue;
    }
    if (character === '|') {
      cells.push(cell);
      cell = '';
    } else cell += character;
  }
  cells.push(cell);
  // The text before the first pipe and after the last (nothing, in a row with outer pipes) is no cell.
  if (cells[0].trim() === '' && line.trimStart().startsWith('|')) cells.shift();
  if (cells.length > 1 && cells.at(-1)!.trim() === '' && line.trimEnd().endsWith('|')) cells.pop();
  return cells;
}

function alignmentOf(cell: string): AlignType | undefined {
  const text = cell.trim();
  if (!/^:?-+:?$/.test(text)) return undefined;
  if (text.startsWith(':') && text.endsWith(':')) return 'center';
  if (text.startsWith(':')) return 'left';
  return text.endsWith(':') ? 'right' : null;
}

/**
 * The width of each column (its cell with its padding) of a padded table, and the measure its author padded by: the
 * author's delimiter row has outer pipes, and most of the author's rows kept have theirs at the same widths, measured
 * in code units as GitBook pads (`codeUnits`) or else in display columns (a table padded by another formatter, wide
 * characters two columns each); null for an unpadded table. Measured in display columns only, a table of Hangul cells
 * GitBook padded had every row re-padded by a one-cell edit (Incheol-Jung, hashcode-equals.md).
 */
function paddedWidths(delimiter: string, rows: string[], writtenAs: CellWriting): { widths: number[]; measure: Measure } | null {
  const outer = (line: string) => line.startsWith('|') && line.endsWith('|');
  if (!outer(delimiter) || rows.length === 0) return null;
  const alignedBy = (unwritten: Measure) => {
    const measure = measuredAs(unwritten, writtenAs);
    const widths = cellsOf(delimiter).map(measure);
    const aligned = rows.filter((row) => {
      const cells = cellsOf(row).map(measure);
      return outer(row) && cells.length === widths.length && cells.every((width, i) => width === widths[i]);
    });
    return { widths, measure, aligned: aligned.length };
  };
  const [units, display] = [alignedBy(codeUnits), alignedBy(displayWidth)];
  const best = display.aligned > units.aligned ? display : units;
  return best.aligned * 2 > rows.length ? { widths: best.widths, measure: best.measure } : null;
}
