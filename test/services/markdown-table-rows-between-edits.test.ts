import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, withSourcePatchOf, withoutSourcePatch } from '../../src/services/markdown/index';

/**
 * A padded pipe table whose rows are read compact (`| a | b |`), one source-patch hunk a row. Two rows edited with one
 * row between them: that row's hunk has both its neighbours edited and is left out, and the row was taken for a line
 * "as the author wrote it" (it is the context of the edited rows' hunks), so it went out compact: a row no edit
 * touched rewritten in the export.
 */

const leavesOf = (node: any): Array<{ text: string }> =>
  node?.object === 'leaf' ? [node] : [...(node?.nodes ?? []), ...(node?.leaves ?? []), ...(node?.fragments ?? [])].flatMap(leavesOf);

function edited(markdown: string, edits: Array<[string, string]>): string {
  const conversion = markdownToDocument(markdown);
  const next = structuredClone(withoutSourcePatch(conversion.document));
  for (const [from, to] of edits) {
    const holding = leavesOf(next).filter((leaf) => leaf.text.includes(from));
    expect(holding, from).toHaveLength(1);
    holding[0].text = holding[0].text.replace(from, to);
  }
  return documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title, frontmatter: {} });
}

const page = (rows: string[]) => ['# Accounts', '', 'The fields.', '', ...rows, '', 'Next steps.', ''].join('\n');

describe('a padded table with two rows edited around one that is not', () => {
  const rows = [
    '| Field   | Format                            | Rule       |',
    '| ------- | --------------------------------- | ---------- |',
    '| Mail    | `text`                            | -          |',
    '| Kind    | One of `A` or `B`                 |            |',
    '| Region  | `ISO 3166-1`                      |            |',
    '| Group   | Read [the groups](groups.md#list) |            |',
    '| Number  | As the `kind` says                |            |',
  ];

  it('writes the row between them as the author wrote it', () => {
    const out = edited(page(rows), [
      ['One of', 'Either'],
      ['Read ', 'See '],
    ]);
    expect(out).toBe(
      page([
        rows[0],
        rows[1],
        rows[2],
        '| Kind    | Either `A` or `B`                 |            |',
        rows[4],
        '| Group   | See [the groups](groups.md#list)  |            |',
        rows[6],
      ]),
    );
  });

  it('and so with two rows between them', () => {
    const out = edited(page(rows), [
      ['text', 'string'],
      ['Read ', 'See '],
    ]);
    expect(out).toBe(page([rows[0], rows[1], '| Mail    | `string`                          | -          |', rows[3], rows[4], '| Group   | See [the groups](groups.md#list)  |            |', rows[6]]));
  });

  it('and so in a table without outer pipes, with uneven padding, escaped pipes or trailing spaces', () => {
    // Each row between two edited rows was left out (both its neighbours edited) and written again from the rows
    // around it: `| Kind | one |` among `Mail    | text`, `| Kind|one |` re-padded, a trailing space dropped.
    const tables = [
      ['Field   | Format', '------- | ------', 'Mail    | text', 'Kind    | one', 'Zone    | iso'],
      ['|Field|Format|', '|:--|--:|', '|Mail  |  text|', '| Kind|one |', '|Zone | iso|'],
      ['| Field   | Format    |', '| ------- | --------- |', '| Mail    | text      |', '| Kind    | `x \\| y` |', '| Zone    | iso       |'],
      ['| Field   | Format   |', '| ------- | -------- |', '| Mail    | text     |', '| Kind    | one      |  ', '| Zone    | iso      |'],
    ];
    for (const table of tables) {
      const out = edited(page(table), [
        ['text', 'txt'],
        ['iso', 'isa'],
      ]).split('\n');
      expect(out, table[3]).toContain(table[3]);
      expect(out.filter((line) => line.includes('|'))).toHaveLength(5);
    }
  });
});
