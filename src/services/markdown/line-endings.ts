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

/** `markdown` (written with `\n`) with the line endings of `previous`, line by line. */
export function withLineEndingsOf(markdown: string, previous: string): string {
  if (!previous.includes('\r\n')) return markdown;
  const old = previous.replace(/^\uFEFF/, '').split('\n');
  const crlf = old.map((line, i) => i < old.length - 1 && line.endsWith('\r'));
  const oldText = old.map((line, i) => (crlf[i] ? line.slice(0, -1) : line));
  const lines = markdown.split('\n');
  // The ending each line takes: the matched line's own, else (null) its neighbours'.
  const ending = matchedEndings(lines, oldText, crlf);
  let last: boolean | null = null;
  for (let i = 0; i < ending.length && last === null; i++) last = ending[i];
  return lines.map((line, i) => {
    if (i === lines.length - 1) return line;
    last = ending[i] ?? last;
    return last ? `${line}\r` : line;
  }).join('\n');
}

/** For each line of `lines`, whether the line of `old` it matches ended in CRLF, or null where it matches none. */
function matchedEndings(lines: readonly string[], old: readonly string[], crlf: readonly boolean[]): Array<boolean | null> {
  const out = new Array<boolean | null>(lines.length).fill(null);
  let head = 0;
  while (head < lines.length && head < old.length && lines[head] === old[head]) (out[head] = crlf[head]), head++;
  let tail = 0;
  while (tail < lines.length - head && tail < old.length - head && lines[lines.length - 1 - tail] === old[old.length - 1 - tail]) {
    out[lines.length - 1 - tail] = crlf[old.length - 1 - tail];
    tail++;
  }
  const changes = diffArrays(old.slice(head, old.length - tail), lines.slice(head, lines.length - tail), { maxEditLength: MAX_DIFFERING_LINES });
  if (!changes) return out;
  let [i, j] = [head, head];
  let removed = 0;
  for (const change of changes) {
    const count = change.count ?? change.value.length;
    if (!change.added && !change.removed) for (let k = 0; k < count; k++) out[j + k] = crlf[i + k];
    // Lines replacing others (an edited paragraph): each takes the ending of the one it replaces, in order.
    if (change.added) for (let k = 0; k < Math.min(count, removed); k++) out[j + k] = crlf[i - removed + k];
    removed = change.removed ? count : 0;
    if (!change.added) i += count;
    if (!change.removed) j += count;
  }
  return out;
}
