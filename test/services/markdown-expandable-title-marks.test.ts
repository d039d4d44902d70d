import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, withoutSourcePatch } from '../../src/services/markdown/index';

/**
 * Found probing a real repository (probe22, logos-trad/devportal-docs-translations): an expandable whose title holds a
 * highlight, `<summary>Confirmation of<mark style="color:purple;">{x}</mark></summary>`, read as plain text: the app
 * showed no highlight. GitBook's API gives an expandable's title as one paragraph (`expandable-title` fragment), whose
 * text leaves carry marks as any paragraph's do; the title's `<mark>` is read as the body's is, and written back so.
 */
const PAGE = [
  '# Messages',
  '',
  '<details>',
  '',
  '<summary>Confirmation of<mark style="color:purple;">{x}</mark></summary>',
  '',
  'Body text.',
  '',
  '</details>',
  '',
].join('\n');

/** The leaves of the expandable's title paragraph, without keys. */
function titleLeaves(markdown: string) {
  const expandable = markdownToDocument(markdown).document.nodes[0] as any;
  const title = expandable.fragments.find((fragment: any) => fragment.fragment === 'expandable-title');
  expect(title.nodes).toHaveLength(1);
  return title.nodes[0].nodes.flatMap((node: any) => node.leaves.map(({ text, marks }: any) => ({ text, marks })));
}

describe("an expandable's title holding a `<mark>`", () => {
  it('is read with the color mark on the marked text', () => {
    expect(titleLeaves(PAGE)).toEqual([
      { text: 'Confirmation of', marks: [] },
      { text: '{x}', marks: [{ object: 'mark', type: 'color', data: { text: 'purple', background: 'default' } }] },
    ]);
  });

  it('is written back byte for byte, our way too (the source patch dropped)', () => {
    const conversion = markdownToDocument(PAGE);
    expect(documentToMarkdown(conversion.document, { title: conversion.title, frontmatter: {} })).toBe(PAGE);
    expect(documentToMarkdown(withoutSourcePatch(conversion.document), { title: conversion.title, frontmatter: {} })).toBe(PAGE);
  });

  it("keeps GitBook's other title markup as written: bold, a mark at the start (ours without the patch too)", () => {
    const titles: Array<[string, Array<{ text: string; marks: string[] }>]> = [
      ["<summary><strong>Why don't I see it?</strong></summary>", [{ text: "Why don't I see it?", marks: ['bold'] }]],
      ['<summary><mark style="color:blue;">Step 1</mark>- Open the page</summary>', [{ text: 'Step 1', marks: ['color'] }, { text: '- Open the page', marks: [] }]],
      ['<summary>A platform <strong>- coming soon</strong></summary>', [{ text: 'A platform ', marks: [] }, { text: '- coming soon', marks: ['bold'] }]],
    ];
    for (const [line, leaves] of titles) {
      const page = PAGE.replace('<summary>Confirmation of<mark style="color:purple;">{x}</mark></summary>', line);
      expect(titleLeaves(page).map(({ text, marks }: any) => ({ text, marks: marks.map((mark: any) => mark.type) })), line).toEqual(leaves);
      const conversion = markdownToDocument(page);
      expect(documentToMarkdown(withoutSourcePatch(conversion.document), { title: conversion.title, frontmatter: {} }), line).toBe(page);
    }
  });

  it('keeps a plain title plain, its text escaped as before', () => {
    const plain = PAGE.replace('<summary>Confirmation of<mark style="color:purple;">{x}</mark></summary>', '<summary>Fish &amp; chips</summary>');
    expect(titleLeaves(plain)).toEqual([{ text: 'Fish & chips', marks: [] }]);
    const conversion = markdownToDocument(plain);
    expect(documentToMarkdown(withoutSourcePatch(conversion.document), { title: conversion.title, frontmatter: {} })).toBe(plain);
  });
});
