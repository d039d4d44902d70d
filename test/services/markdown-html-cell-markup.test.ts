import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, withSourcePatchOf, withoutSourcePatch } from '../../src/services/markdown/index';

/**
 * An author's HTML `<table>` (ours a pipe table) whose cell is edited as JSON, as GitBook's editor sends it, in a way that
 * adds or removes markup (a mark, a link), or in a cell whose words repeat: only that cell changes, written as GitBook
 * writes an HTML cell, and the rest of the table keeps the author's HTML. Merged as text, our `**` or `[...](...)`
 * stood in the author's cell, the page no longer read as its document, and the table was written whole as a pipe table
 * (left for issue 40 by session 18).
 */

const leaf = (text: string, marks: string[] = []) => ({ object: 'leaf', text, marks: marks.map((type) => ({ object: 'mark', type })) });

/** The page read, the text node holding `holding` replaced by `text`'s leaves (or a link around them), and written back. */
function edited(markdown: string, holding: string, replace: (leaves: any[]) => any[]): string {
  const conversion = markdownToDocument(markdown);
  const next = structuredClone(withoutSourcePatch(conversion.document));
  let found = false;
  const visit = (node: any): void => {
    if (found || !node || typeof node !== 'object') return;
    for (const key of ['nodes', 'fragments']) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      const at = list.findIndex((child: any) => child?.object === 'text' && child.leaves.some((l: any) => l.text.includes(holding)));
      if (at >= 0) {
        list.splice(at, 1, ...replace(list[at].leaves));
        found = true;
        return;
      }
      list.forEach(visit);
    }
  };
  visit(next);
  expect(found, holding).toBe(true);
  return documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title, frontmatter: {} });
}

const TABLE = [
  '<table>',
  '  <thead>',
  '    <tr>',
  '      <th style="text-align:left">Name</th>',
  '      <th style="text-align:left">Notes</th>',
  '    </tr>',
  '  </thead>',
  '  <tbody>',
  '    <tr>',
  '      <td style="text-align:left">Alpha</td>',
  '      <td style="text-align:left">The first of <b>two</b> rows.</td>',
  '    </tr>',
  '    <tr>',
  '      <td style="text-align:left">Beta</td>',
  '      <td style="text-align:left">Second of the two.</td>',
  '    </tr>',
  '  </tbody>',
  '</table>',
];
const PAGE = ['# Notes', '', 'Intro text.', '', ...TABLE, '', 'After.', ''].join('\n');

describe("an edit of an author's HTML table cell that touches markup", () => {
  it('a mark added: only that cell changes, in HTML', () => {
    const written = edited(PAGE, 'Second of the two.', () => [{ object: 'text', leaves: [leaf('Second of the '), leaf('two', ['bold']), leaf('.')] }]);
    expect(written).toBe(PAGE.replace('>Second of the two.<', '>Second of the <strong>two</strong>.<'));
  });

  it('a link added: only that cell changes, in HTML', () => {
    const written = edited(PAGE, 'Second of the two.', () => [
      { object: 'text', leaves: [leaf('Second of the ')] },
      { object: 'inline', type: 'link', data: { ref: { kind: 'url', url: 'https://example.com/two' } }, nodes: [{ object: 'text', leaves: [leaf('two')] }] },
      { object: 'text', leaves: [leaf('.')] },
    ]);
    expect(written).toBe(PAGE.replace('>Second of the two.<', '>Second of the <a href="https://example.com/two">two</a>.<'));
  });

  it("a mark removed from a cell holding the author's `<b>`: only that cell changes", () => {
    const written = edited(PAGE, 'The first of ', () => [{ object: 'text', leaves: [leaf('The first of two rows.')] }]);
    expect(written).toBe(PAGE.replace('>The first of <b>two</b> rows.<', '>The first of two rows.<'));
  });

  it('an edit of a word the cell repeats (a link\'s text, then the same word): only that word changes', () => {
    const page = ['# Notes', '', 'Intro.', '', '<table>', '  <tr>', '    <th>Name</th>', '    <th>Notes</th>', '  </tr>', '  <tr>', '    <td>Beta</td>', '    <td><a href="https://x.example">beta</a> beta</td>', '  </tr>', '</table>', '', 'After.', ''].join('\n');
    const written = edited(page, ' beta', (leaves) => [{ object: 'text', leaves: leaves.map((l: any) => (l.text === ' beta' ? leaf(' gamma') : l)) }]);
    expect(written).toBe(page.replace('</a> beta<', '</a> gamma<'));
  });
});
