import { diffArrays } from 'diff';
import { applyDeltaOps, deltaBytes, isWholePacked, packedText, packingText, type DeltaOp } from './packed-documents';

/**
 * Delta documents (issue 42, storage: a one-page edit at most the size of the page's Markdown). An edited page's new
 * document is stored as the difference from the whole document its previous version is stored against: that one
 * itself when it is whole, else its base. So a chain is one delta long whatever the number of edits: a read fetches
 * the delta and its base in one statement (`storedBodySql`), and unpacks one stream more than a whole
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
 * Tokens inserted or removed at most: a page rewritten further is stored whole without diffing it further (the bound
 * keeps an edit's diff to milliseconds, Myers' algorithm costing its length times the edits; a bound in tokens, not in
 * time, so that the form a document is stored in does not depend on the machine's load).
 */
const MAX_EDIT_TOKENS = 400;

/** The whole document a new version may be stored against: its name and its packed body. */
export interface DeltaBase {
  hash: string;
  packed: Uint8Array;
}

/**
 * The bases of the documents this isolate stored last (the SpaceWriter's: an editor's next save of a page finds its
 * previous document's base here, without reading it from D1), by document, bounded by their bytes. Documents are
 * content-addressed, so an entry is never stale; what it names may be gone from D1 (collected, or never stored by a
 * batch that failed), so a delta is written only if its base is stored (`insertDocuments`), else the whole document.
 */
const MAX_REMEMBERED_BYTES = 4 * 1024 * 1024;
const remembered = new Map<string, DeltaBase>();
let rememberedBytes = 0;

export function rememberedBase(hash: string): DeltaBase | undefined {
  return remembered.get(hash);
}

export function rememberBase(hash: string, base: DeltaBase): void {
  if (remembered.has(hash)) return;
  remembered.set(hash, base);
  rememberedBytes += base.packed.length;
  for (const [oldest, entry] of remembered) {
    if (rememberedBytes <= MAX_REMEMBERED_BYTES) break;
    remembered.delete(oldest);
    rememberedBytes -= entry.packed.length;
  }
}

const TOKEN = /[^,{}[\]]*[,{}[\]]|[^,{}[\]]+$/g;
const tokensOf = (text: string) => text.match(TOKEN) ?? [];

/**
 * A lower bound of the tokens an edit script from `a` to `b` inserts or removes, whatever their alignment: those one
 * side has more of than the other. Linear: past the bound, no diff is needed to know it.
 */
function editsAtLeast(a: string[], b: string[]): number {
  const counts = new Map<string, number>();
  for (const token of a) counts.set(token, (counts.get(token) ?? 0) + 1);
  let inserted = 0;
  for (const token of b) {
    const left = counts.get(token) ?? 0;
    if (left > 0) counts.set(token, left - 1);
    else inserted++;
  }
  let removed = 0;
  for (const left of counts.values()) removed += left;
  return inserted + removed;
}

/** The operations that make `target` from `base` (both texts a document is packed from), or null past the bound. */
export function deltaOps(base: string, target: string): DeltaOp[] | null {
  const from = tokensOf(base);
  const to = tokensOf(target);
  // What both share at their ends is copied without diffing it: most edits change one place of a page.
  let head = 0;
  while (head < from.length && head < to.length && from[head] === to[head]) head++;
  let tail = 0;
  while (tail < from.length - head && tail < to.length - head && from[from.length - 1 - tail] === to[to.length - 1 - tail]) tail++;
  const a = from.slice(head, from.length - tail);
  const b = to.slice(head, to.length - tail);
  if (editsAtLeast(a, b) > MAX_EDIT_TOKENS) return null;
  const middle = diffArrays(a, b, { maxEditLength: MAX_EDIT_TOKENS });
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
  // No document is empty text: a caller that let a document's JSON go (an import's packed copy) would store a delta
  // that reads back as '' (found-gitprobe16a item 1: the revision read then failed, 500).
  if (json === '' || !isWholePacked(base.packed)) return null;
  const from = packedText(base.packed).text;
  const to = packingText(json);
  const ops = deltaOps(from, to.text);
  if (!ops || applyDeltaOps(from, ops) !== to.text) return null;
  const delta = deltaBytes(ops, to.elided);
  return delta.length <= whole.length * MAX_DELTA_SHARE ? delta : null;
}
