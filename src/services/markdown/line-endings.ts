/**
 * Each line's own ending, for a file whose lines end some in CRLF and some in LF (a page pasted together from files
 * written on Windows and elsewhere). The reader reads both as `\n`, so an edited page is written with LF: the commit
 * of a one-line edit changed every CRLF line of the file. Here the lines of the new writing that the file had are
 * matched with its lines (by text, the CR aside), and each keeps the ending it had; an edited line takes the ending of
 * the line it replaces, and a new line the ending of the line before it (the line after it at the start).
 */
import { diffArrays } from 'diff';

/** Beyond this many differing lines, unmatched lines take their neighbours' ending without a line diff. */
const MAX_DIFFERING_LINES = 2_000;

/**
 * `markdown` (written with `\n`) with the line endings of `previous`, line by line: CRLF, LF, or a lone CR where the
 * file breaks its lines with one (old-Mac `\r`, `\r\r\n`: read as two breaks, a blank line between), unless the
 * writing holds lone CRs of its own (kept by the source patch: a progress bar's, no line break).
 */
export function withLineEndingsOf(markdown: string, previous: string): string {
  if (!previous.includes('\r')) return markdown;
  const breaks = markdown.includes('\r') ? /\r?\n/g : /\r\n?|\n/g;
  const { lines: oldText, endings: oldEndings } = linesWithEndings(previous.replace(/^\uFEFF/, ''), breaks);
  if (!oldEndings.some((ending) => ending !== '\n')) return markdown;
  const lines = markdown.split('\n');
  // The ending each line takes: the matched line's own, else (null) its neighbours'.
  const ending = matchedEndings(lines, oldText, oldEndings);
  let last: string | null = null;
  for (let i = 0; i < ending.length && last === null; i++) last = ending[i];
  return lines.map((line, i) => {
    if (i === lines.length - 1) return line;
    last = ending[i] ?? last;
    return `${line}${last ?? '\n'}`;
  }).join('');
}

/** A text's lines as `breaks` splits it, each with the break that ends it (the last line has none). */
function linesWithEndings(text: string, breaks: RegExp): { lines: string[]; endings: string[] } {
  const lines: string[] = [];
  const endings: string[] = [];
  let from = 0;
  for (const found of text.matchAll(breaks)) {
    lines.push(text.slice(from, found.index));
    endings.push(found[0]);
    from = found.index + found[0].length;
  }
  lines.push(text.slice(from));
  return { lines, endings };
}

/** For each line of `lines`, the ending of the line of `old` it matches, or null where it matches none. */
function matchedEndings(lines: readonly string[], old: readonly string[], endings: readonly string[]): Array<string | null> {
  const out = new Array<string | null>(lines.length).fill(null);
  let head = 0;
  while (head < lines.length && head < old.length && lines[head] === old[head]) (out[head] = endings[head]), head++;
  let tail = 0;
  while (tail < lines.length - head && tail < old.length - head && lines[lines.length - 1 - tail] === old[old.length - 1 - tail]) {
    out[lines.length - 1 - tail] = endings[old.length - 1 - tail];
    tail++;
  }
  const changes = diffArrays(old.slice(head, old.length - tail), lines.slice(head, lines.length - tail), { maxEditLength: MAX_DIFFERING_LINES });
  if (!changes) return out;
  let [i, j] = [head, head];
  let removed = 0;
  for (const change of changes) {
    const count = change.count ?? change.value.length;
    if (!change.added && !change.removed) for (let k = 0; k < count; k++) out[j + k] = endings[i + k];
    // Lines replacing others (an edited paragraph): each takes the ending of the one it replaces, in order.
    if (change.added) for (let k = 0; k < Math.min(count, removed); k++) out[j + k] = endings[i - removed + k];
    removed = change.removed ? count : 0;
    if (!change.added) i += count;
    if (!change.removed) j += count;
  }
  return out;
}
