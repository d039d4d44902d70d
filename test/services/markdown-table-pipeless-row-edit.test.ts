import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, withSourcePatchOf, withoutSourcePatch } from '../../src/services/markdown/index';

/**
 * A table written without outer pipes, as API-reference generators write one (a header row starting with a space,
 * ` Members | Descriptions`, under a `-----|-----` delimiter). An edit of one cell rewrote its row with the header's
 * leading space in front, as if that space were the table's indent: the edited line changed beyond the edit.
 */

const leavesOf = (node: any): Array<{ text: string }> =>
  node?.object === 'leaf' ? [node] : [...(node?.nodes ?? []), ...(node?.leaves ?? []), ...(node?.fragments ?? [])].flatMap(leavesOf);

/** The page read, `from` replaced by `to` in the one leaf holding it, written back with the page's source patch. */
function edited(markdown: string, from: string, to: string): string {
  const conversion = markdownToDocument(markdown);
  const next = structuredClone(withoutSourcePatch(conversion.document));
  const holding = leavesOf(next).filter((leaf) => leaf.text.includes(from));
  expect(holding, from).toHaveLength(1);
  holding[0].text = holding[0].text.replace(from, to);
  return documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title, frontmatter: {} });
}

const page = (rows: string[]) => ['# Widgets', '', 'What a widget holds.', '', ...rows, '', 'The end.', ''].join('\n');

describe('an edited row of a table written without outer pipes', () => {
  it('changes only where edited, whatever the header row starts with', () => {
    const rows = [
      ' Member                     | Meaning                 ',
      '----------------------------|-------------------------',
      '`int size` [`size`](#size)  | How many parts it has.',
      '`string name` [`name`](#nm) | What it is called.',
    ];
    expect(edited(page(rows), 'How many parts', 'How many pieces')).toBe(page([rows[0], rows[1], rows[2].replace('parts', 'pieces'), rows[3]]));
    expect(edited(page(rows), 'What it is called', 'Its name')).toBe(page([rows[0], rows[1], rows[2], rows[3].replace('What it is called', 'Its name')]));
  });

  it('keeps the indent its rows have inside a list item', () => {
    const rows = ['  Member | Meaning', '  -------|--------', '  `size` | How many parts it has.', '  `name` | What it is called.'];
    const markdown = ['# Widgets', '', '* The members:', '', ...rows, ''].join('\n');
    const out = edited(markdown, 'How many parts', 'How many pieces');
    expect(out).toBe(markdown.replace('How many parts', 'How many pieces'));
  });
});
