import { expect } from 'vitest';
import { MAX_TEXT_FILTER_LENGTH } from '../../src/lib/text-filter';
import { expectError, type ApiResponse } from './harness';

/**
 * 64 distinct lower-case letters outside ASCII whose upper case is one letter (Greek, Cyrillic,
 * Latin-1): the most `replace()` levels a filter can need (one per letter, see lib/text-filter).
 */
export const FOLDABLE_LETTERS = [...'αβγδεζηθικλμνξοπρστυφχψωабвгдежзийклмнопрстуфхцчшщъыьэюяàáâãäåæç'];

/**
 * The hostile-input cases of a "contains" text filter (members' `search`, teams' `title`, ...): lengths
 * 0, 1, 49, 50, 51 (around D1's 50-byte LIKE pattern limit), the maximum, 512 and 10,000 characters; the
 * LIKE metacharacters `%`, `_` and `\`, quotes and emoji, which must match only themselves; and the
 * maximum number of non-ASCII letters to fold. Nothing answers 5xx; too long is a 400 naming the parameter.
 *
 * `create` makes an item (of one organization) whose filtered text is the given one and returns its id;
 * `list` lists that organization's items with the filter set to the given value, and returns the response.
 */
export async function expectHostileTextFilter(options: {
  param: string;
  create: (text: string) => Promise<string>;
  list: (value: string | undefined) => Promise<ApiResponse>;
}) {
  expect(FOLDABLE_LETTERS).toHaveLength(MAX_TEXT_FILTER_LENGTH);
  expect(new Set(FOLDABLE_LETTERS).size).toBe(FOLDABLE_LETTERS.length);
  const tag = Math.random().toString(36).slice(2, 10);
  const long = `${tag}${'0123456789'.repeat(6)}`.slice(0, 51);
  const texts = {
    percent: `${tag} 100% sure`,
    underscore: `${tag} under_score`,
    backslash: `${tag} back\\slash`,
    quotes: `${tag} it's "quoted"`,
    emoji: `${tag} party 😀🎉`,
    long,
    folded: FOLDABLE_LETTERS.join('').toUpperCase(),
  };
  const ids: Record<string, string> = {};
  for (const [name, text] of Object.entries(texts)) ids[name] = await options.create(text);

  const listed = async (value: string | undefined) => {
    const res = await options.list(value);
    expect(res.status, `${options.param}=${value?.slice(0, 80)}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
    expect(res.body.count).toBe(res.body.items.length);
    return res.body.items.map((item: { id: string }) => item.id).sort();
  };
  const only = (...names: string[]) => names.map((n) => ids[n]).sort();

  // Length 0 is no filter at all.
  const everything = await listed(undefined);
  expect(await listed('')).toEqual(everything);
  expect(everything).toEqual(expect.arrayContaining(Object.values(ids)));
  // Length 1, and the characters LIKE would have taken as wildcards or escapes: themselves only.
  expect(await listed('%')).toEqual(only('percent'));
  expect(await listed('_')).toEqual(only('underscore'));
  expect(await listed('\\')).toEqual(only('backslash'));
  expect(await listed("'")).toEqual(only('quotes'));
  expect(await listed('"quoted"')).toEqual(only('quotes'));
  expect(await listed('😀')).toEqual(only('emoji'));
  // As LIKE patterns these would have matched `0123...` and `it's`.
  expect(await listed('%%')).toEqual([]);
  expect(await listed('0%2')).toEqual([]);
  expect(await listed('it_s')).toEqual([]);
  // Around D1's LIKE pattern limit, and the maximum length: found.
  for (const length of [49, 50, 51]) expect(await listed(long.slice(0, length)), `length ${length}`).toEqual(only('long'));
  expect(await listed(long.toUpperCase())).toEqual(only('long'));
  expect(await listed('😀'.repeat(MAX_TEXT_FILTER_LENGTH / 2))).toEqual([]);
  // Every foldable letter at once, in lower case, finds their upper-case forms.
  expect(await listed(FOLDABLE_LETTERS.join(''))).toEqual(only('folded'));
  expect(await listed(FOLDABLE_LETTERS.join('').slice(0, MAX_TEXT_FILTER_LENGTH - 1))).toEqual(only('folded'));
  // Longer than the maximum: a 400 naming the parameter.
  for (const length of [MAX_TEXT_FILTER_LENGTH + 1, 512, 10_000]) {
    expectError(await options.list('x'.repeat(length)), 400, options.param);
    expectError(await options.list('é'.repeat(length)), 400, options.param);
  }
}
