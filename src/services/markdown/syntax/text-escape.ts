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

/** A writing's patterns by character, and the subsets of them already made (keyed by the characters present). */
interface PatternIndex {
  /** Character code (every pattern's is ASCII) -> its bit in a subset key, or -1 where no pattern has it. */
  bitOf: Int16Array;
  words: number;
  subsets: Map<string, Unsafe[]>;
}

/** Null for a list that cannot be indexed: a pattern of several characters or beyond ASCII (none has been seen). */
const indexes = new WeakMap<Unsafe[], PatternIndex | null>();

function indexOf(patterns: Unsafe[]): PatternIndex | null {
  const known = indexes.get(patterns);
  if (known !== undefined) return known;
  const bitOf = new Int16Array(128).fill(-1);
  let bits = 0;
  let index: PatternIndex | null = null;
  if (patterns.every((pattern) => pattern.character.length === 1 && pattern.character.charCodeAt(0) < 128)) {
    for (const pattern of patterns) {
      const code = pattern.character.charCodeAt(0);
      if (bitOf[code] < 0) bitOf[code] = bits++;
    }
    index = { bitOf, words: Math.ceil(bits / 32), subsets: new Map() };
  }
  indexes.set(patterns, index);
  return index;
}

/** The patterns (in their order) whose character occurs in `value`. */
function patternsFor(patterns: Unsafe[], value: string): Unsafe[] {
  const index = indexOf(patterns);
  if (!index) return patterns;
  const present = new Int32Array(index.words);
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const bit = code < 128 ? index.bitOf[code] : -1;
    if (bit >= 0) present[bit >> 5] |= 1 << (bit & 31);
  }
  const key = present.join(',');
  let subset = index.subsets.get(key);
  if (!subset) {
    const has = (pattern: Unsafe) => {
      const bit = index.bitOf[pattern.character.charCodeAt(0)];
      return (present[bit >> 5] & (1 << (bit & 31))) !== 0;
    };
    subset = patterns.filter(has);
    index.subsets.set(key, subset);
  }
  return subset;
}

/** mdast-util-to-markdown's `text` handler, with `safe` given only the patterns the text can match. */
export const writeText: Handle = (node, parent, state, info) => {
  const siblings = parent ? parent.children : [];
  const at = state.indexStack[state.indexStack.length - 1];
  const patterns = state.unsafe;
  // `safe` matches over `before + value + after`.
  state.unsafe = patternsFor(patterns, info.before + node.value + info.after);
  try {
    return state.safe(node.value, { ...info, afterNode: siblings[at + 1], beforeNode: siblings[at - 1] });
  } finally {
    state.unsafe = patterns;
  }
};
