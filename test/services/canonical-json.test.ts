import { describe, expect, it } from 'vitest';
import { documentRefs } from '../../src/services/content/packed-documents';
import { canonicalJson, documentHash } from '../../src/services/content/revisions';
import { defaultResolveLink, markdownToDocument } from '../../src/services/markdown/index';

/**
 * canonicalJson names every document and tree node (its SHA-256 is the id): the direct writer (issue 40: a page's
 * conversion spent a tenth of its time in the replacer that rebuilt each object sorted) must give the replacer's text
 * byte for byte, or every id an import or an edit makes would change. The replacer is written here as it was.
 */
const replacerJson = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });

describe('canonicalJson', () => {
  it("writes the sorted replacer's text for every kind of JSON value", () => {
    const cases: unknown[] = [
      null,
      'text with "quotes", a \\ backslash, a line\nbreak, \u0001 and a lone surrogate \ud800',
      0,
      -0,
      1.5e-7,
      2 ** 70,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      [],
      {},
      [1, 'two', null, undefined, () => 3, Symbol('s'), [[]], { b: 1, a: 2 }],
      // Unsorted keys, undefined members (left out), nested objects and arrays.
      { zeta: 1, alpha: { y: [3, { d: 4, c: undefined }], x: null }, Beta: 'b', _u: 'u', é: 'e', '': 'empty' },
      // Array-index keys come first in numeric order, whatever the sort says; past 2^32 - 2 they are names.
      { b: 1, 10: 'ten', 9: 'nine', a: 2, '01': 'padded', 4294967294: 'last index', 4294967295: 'a name', '-1': 'negative' },
      // An own `__proto__` (JSON.parse makes one) is a member like any other.
      JSON.parse('{"z":1,"__proto__":{"x":1},"a":2}'),
      Object.assign(Object.create(null), { b: 1, a: 2 }),
      { object: 'document', data: { ref: { kind: 'url', url: 'https://example.com/a?b=c#d' } }, nodes: [{ key: 'k1', object: 'block', type: 'paragraph', nodes: [] }] },
    ];
    for (const value of cases) expect(canonicalJson(value), JSON.stringify(value)).toBe(replacerJson(value));
  });

  it('answers what the replacer answers for values that are not plain data: toJSON, class instances, cycles', () => {
    class Point {
      constructor(
        public y: number,
        public x: number,
      ) {}
    }
    const date = new Date(Date.UTC(2026, 10, 30));
    for (const value of [date, { when: date, b: 1 }, new Point(2, 1), [new Point(1, 2)], { map: new Map([[1, 2]]) }, { toJSON: () => ({ b: 1, a: 2 }) }]) {
      expect(canonicalJson(value)).toBe(replacerJson(value));
    }
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    // Each fails as the replacer failed: a cycle past the stack (the replacer's copies hid it from JSON's own check), a BigInt.
    const failure = (write: (value: unknown) => string, value: unknown) => {
      try {
        write(value);
        return 'none';
      } catch (error) {
        return (error as Error).constructor.name;
      }
    };
    expect(failure(canonicalJson, cycle)).toBe(failure(replacerJson, cycle));
    expect(failure(canonicalJson, cycle)).toBe('RangeError');
    expect(failure(canonicalJson, { big: 1n })).toBe(failure(replacerJson, { big: 1n }));
  });

  it('gives a converted page the id the replacer gave it, and the same refs', async () => {
    const markdown = [
      '---',
      'description: A page with a bit of everything',
      '---',
      '',
      '# Title',
      '',
      ...Array.from({ length: 300 }, (_, i) => `Paragraph ${i} with **bold**, a [link](https://example.com/${i}) and \`code\`.\n`),
      '| a | b |',
      '| - | - |',
      '| 1 | 2 |',
      '',
      '{% hint style="info" %}',
      'A hint.',
      '{% endhint %}',
      '',
    ].join('\n');
    const { document } = markdownToDocument(markdown, { resolveLink: defaultResolveLink });
    const json = canonicalJson(document);
    expect(json).toBe(replacerJson(document));
    expect(await documentHash(json)).toBe(await documentHash(replacerJson(document)));
    // Every node's key numbered k1..kN: one run (keyRuns gathers a prefix's numbers in one array per prefix).
    const refs = JSON.parse(documentRefs(document)) as { keys: string; runs?: Array<[string, number, number]> };
    const keys = [...json.matchAll(/"key":"(k\d+)"/g)].map((m) => Number(m[1].slice(1)));
    expect(refs.runs).toEqual([['k', 1, Math.max(...keys)]]);
    expect(refs.keys).toBe(' ');
  });
});
