/**
 * Writing text nodes without trying every unsafe pattern on each. mdast-util-to-markdown's `safe` runs
 * all of its unsafe patterns (about a hundred with GFM, math and front matter) over every text node:
 * each one a scope check and a regular expression over the text. Every pattern matches at its
 * `character` (the regular expression is built around it), so a pattern whose character is not in
 * the text, nor in the characters around it that `safe` looks at, cannot match: leaving it out
 * changes nothing but the time. This is the library's own `text` handler (handle/text.js), given
 * only the patterns the text can match: the writing is the same, byte for byte.
 */
import type { Options as StringifyOptions } from 'remark-stringify';

type Handle = NonNullable<NonNullable<StringifyOptions['handlers']>['text']>;
type State = Parameters<Handle>[2];
type Unsafe = State['unsafe'][number];

/**
 * A writing's patterns by character, and the subsets of them already made, keyed by the characters
 * present: a bit each, in two 32-bit words (the patterns have 63 characters between them).
 */
interface PatternIndex {
  /** Character code (every pattern's is ASCII) -> its bit, or -1 where no pattern has it. */
  bitOf: Int8Array;
  subsets: Map<number, Map<number, Unsafe[]>>;
}

/** Null for a list that cannot be indexed: a pattern of several characters, beyond ASCII, or more than 64 characters. */
const indexes = new WeakMap<Unsafe[], PatternIndex | null>();

function indexOf(patterns: Unsafe[]): PatternIndex | null {
  const known = indexes.get(patterns);
  if (known !== undefined) return known;
  const bitOf = new Int8Array(128).fill(-1);
  let bits = 0;
  let index: PatternIndex | null = null;
  if (patterns.every((pattern) => pattern.character.length === 1 && pattern.character.charCodeAt(0) < 128)) {
    for (const pattern of patterns) {
      const code = pattern.character.charCodeAt(0);
      if (bitOf[code] < 0) bitOf[code] = bits++;
    }
    if (bits <= 64) index = { bitOf, subsets: new Map() };
  }
  indexes.set(patterns, index);
  return index;
}

/** Sets the bits of the pattern characters in `value` into `words`. */
function addCharacters(bitOf: Int8Array, value: string, words: Int32Array): void {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const bit = code < 128 ? bitOf[code] : -1;
    if (bit >= 0) words[bit >> 5] |= 1 << (bit & 31);
  }
}

const present = new Int32Array(2);

/** The patterns (in their order) whose character occurs in `before + value + after`. */
function patternsFor(patterns: Unsafe[], before: string, value: string, after: string): Unsafe[] {
  const index = indexOf(patterns);
  if (!index) return patterns;
  present[0] = 0;
  present[1] = 0;
  addCharacters(index.bitOf, before, present);
  addCharacters(index.bitOf, value, present);
  addCharacters(index.bitOf, after, present);
  const [low, high] = present;
  let byHigh = index.subsets.get(low);
  if (!byHigh) index.subsets.set(low, (byHigh = new Map()));
  let subset = byHigh.get(high);
  if (!subset) {
    subset = patterns.filter((pattern) => {
      const bit = index.bitOf[pattern.character.charCodeAt(0)];
      return (present[bit >> 5] & (1 << (bit & 31))) !== 0;
    });
    byHigh.set(high, subset);
  }
  return subset;
}

/** mdast-util-to-markdown's `text` handler, with `safe` given only the patterns the text can match. */
export const writeText: Handle = (node, parent, state, info) => {
  const siblings = parent ? parent.children : [];
  const at = state.indexStack[state.indexStack.length - 1];
  const patterns = state.unsafe;
  // `safe` matches over `before + value + after`.
  state.unsafe = patternsFor(patterns, info.before, node.value, info.after);
  try {
    return state.safe(node.value, { ...info, afterNode: siblings[at + 1], beforeNode: siblings[at - 1] });
  } finally {
    state.unsafe = patterns;
  }
};
