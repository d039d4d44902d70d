import { diffArrays } from 'diff';
import { applyDeltaOps, deltaBytes, isWholePacked, packedText, packingText, type DeltaOp } from './packed-documents';

/**
 * Delta documents (issue 42, storage: a one-page edit at most the size of the page's Markdown). An edited page's new
 * document is stored as the difference from the whole document its previous version is stored against: that one
 * itself when it is whole, else its base. So a chain is one delta long whatever the number of edits: a read fetches
 * the delta and its base in one statement (`storedBodySql`), and unpacks one Brotli stream more than a whole
 * document. The delta grows with what the edits changed since the base; once it is no longer at most half the whole
 * packed document, the document is stored whole and becomes the base of the next edits.
 *
 * The difference is taken over the text a document is packed from (its canonical JSON with the numbered node keys
 * elided, which a conversion renumbers after any inserted block), cut into tokens after each `,`, `{`, `}`, `[` or
 * `]`, by jsdiff's `diffArrays` (Myers' algorithm, bounded by `MAX_EDIT_TOKENS`: a larger change is stored whole).
 * The tokens are compared, the characters stored: operations copy, skip or insert text (`DeltaOp`).
 */

/** A delta is kept when at most this share of the document packed whole. */
const MAX_DELTA_SHARE = 0.5;
/**
 * Tokens inserted or removed at most, and time spent diffing at most: a rewritten page is stored whole without diffing
 * it further (the bound keeps an edit's CPU to a few milliseconds; which form a document is stored in never changes
 * what it reads as).
 */
const MAX_EDIT_TOKENS = 1000;
const DIFF_TIMEOUT_MS = 50;

/** The whole document a new version may be stored against: its name and its packed body. */
export interface DeltaBase {
  hash: string;
  packed: Uint8Array;
}

const TOKEN = /[^,{}[\]]*[,{}[\]]|[^,{}[\]]+$/g;
const tokensOf = (text: string) => text.match(TOKEN) ?? [];

/** The operations that make `target` from `base` (both texts a document is packed from), or null past the bound. */
export function deltaOps(base: string, target: string): DeltaOp[] | null {
  const from = tokensOf(base);
  const to = tokensOf(target);
  // What both share at their ends is copied without diffing it: most edits change one place of a page.
  let head = 0;
  while (head < from.length && head < to.length && from[head] === to[head]) head++;
  let tail = 0;
  while (tail < from.length - head && tail < to.length - head && from[from.length - 1 - tail] === to[to.length - 1 - tail]) tail++;
  const middle = diffArrays(from.slice(head, from.length - tail), to.slice(head, to.length - tail), { maxEditLength: MAX_EDIT_TOKENS, timeout: DIFF_TIMEOUT_MS });
  if (!middle) return null;
  const changes: Array<{ value: string[]; added?: boolean; removed?: boolean }> = [{ value: from.slice(0, head) }, ...middle, { value: from.slice(from.length - tail) }];
  const ops: DeltaOp[] = [];
  const push = (op: DeltaOp) => {
    const last = ops[ops.length - 1];
    if (typeof op === 'string' && typeof last === 'string') ops[ops.length - 1] = last + op;
    else if (typeof op === 'number' && typeof last === 'number' && Math.sign(op) === Math.sign(last)) ops[ops.length - 1] = last + op;
    else ops.push(op);
  };
  for (const change of changes) {
    const text = change.value.join('');
    if (text.length === 0) continue;
    push(change.added ? text : change.removed ? -text.length : text.length);
  }
  // A skip at the end changes nothing.
  if (typeof ops[ops.length - 1] === 'number' && (ops[ops.length - 1] as number) < 0) ops.pop();
  return ops;
}

/**
 * The document `json` (canonical JSON) as a delta against `base`, when that is at most MAX_DELTA_SHARE of `whole` (its
 * packed form); null otherwise, or when the base is not a whole document. The delta is applied here before it is
 * answered, so no document is ever stored in a form that does not give its JSON back.
 */
export function deltaAgainst(json: string, base: DeltaBase, whole: Uint8Array): Uint8Array | null {
  if (!isWholePacked(base.packed)) return null;
  const from = packedText(base.packed).text;
  const to = packingText(json);
  const ops = deltaOps(from, to.text);
  if (!ops || applyDeltaOps(from, ops) !== to.text) return null;
  const delta = deltaBytes(ops, to.elided);
  return delta.length <= whole.length * MAX_DELTA_SHARE ? delta : null;
}
