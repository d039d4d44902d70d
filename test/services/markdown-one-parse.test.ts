import { describe, expect, it } from 'vitest';
import { defaultResolveLink, documentToMarkdown, markdownToDocument, type ContentRef } from '../../src/services/markdown/index';

/**
 * An imported page is parsed once (issue 40): where its code is comes from the tree it was converted from, and the
 * read-back of a patched body is skipped where the body is the source with link targets written by id only.
 * Each case here fails when one of those shortcuts is wrong.
 */

/** `other.md` (as the import's refs and relative paths name it) and `/pages/p1` are the page p1. */
const resolveLink = (href: string): ContentRef | null => {
  const page = /^(?:\.\/)?(?:other\.md|\/pages\/p1)(?:#(.+))?$/.exec(href);
  if (page) return page[1] ? { kind: 'anchor', anchor: page[1], page: 'p1' } : { kind: 'page', page: 'p1' };
  return defaultResolveLink(href);
};

function roundTrip(markdown: string) {
  const conversion = markdownToDocument(markdown, { resolveLink });
  const written = documentToMarkdown(conversion.document, { title: conversion.title });
  const again = markdownToDocument(written, { resolveLink });
  return { conversion, written, readsBack: JSON.stringify(again.document.nodes) === JSON.stringify(conversion.document.nodes) };
}

describe('Markdown import parses a page once', () => {
  it('keeps a code span holding `](` as written on a line whose link is written by id (code found in the page\'s own tree, after its front matter)', () => {
    const markdown = ['---', 'description: A page', '---', '', '# Title', '', '## Use `[code](other.md)` and [the guide](other.md) ##', ''].join('\n');
    const { written, readsBack } = roundTrip(markdown);
    // The author's heading line kept (its closing `##`), its link by id, the code span's text untouched.
    expect(written).toContain('## Use `[code](other.md)` and [the guide](/pages/p1) ##\n');
    expect(readsBack).toBe(true);
  });

  it('keeps a link in a fenced code block as text, the block in a list item beside a line whose link is written by id', () => {
    // The item's lines (indented as the author indents them, ours by two) are one group of hunks, written by id
    // together: the code's line holds `](` too.
    const markdown = ['# Title', '', '*   See [the guide](other.md)', '', '    ```md', '    [guide](other.md)', '    ```', '', 'End.', ''].join('\n');
    const { written, readsBack } = roundTrip(markdown);
    expect(written).toBe(['# Title', '', '*   See [the guide](/pages/p1)', '', '    ```md', '    [guide](other.md)', '    ```', '', 'End.', ''].join('\n'));
    expect(readsBack).toBe(true);
  });

  it("reads a table's code spans as GFM does: a cell's lone backtick opens no span across rows, so a later row's link is a link", () => {
    // Parsed plainly (a table is a paragraph there), the backtick of `A |` opened a code span up to the next row's
    // first backtick, and `[Interval](other.md...)` read as code: its line was not written by id, and the author's
    // table was dropped for ours (cells padded). Read as the document reads it, the author's lines stay.
    const markdown = ['# Fields', '', '| Name | Type | Notes |', '|---|---|---|', '| `A` | string | Interval in `A |', '| `B` | [Interval](other.md#interval) | Not with `A`. |', ''].join('\n');
    const { written, readsBack } = roundTrip(markdown);
    expect(written).toBe(['# Fields', '', '| Name | Type | Notes |', '|---|---|---|', '| `A` | string | Interval in `A |', '| `B` | [Interval](/pages/p1#interval) | Not with `A`. |', ''].join('\n'));
    expect(readsBack).toBe(true);
  });

  it('keeps the author\'s lines when the patched body differs from the source by link targets only (a definition\'s among them)', () => {
    const markdown = ['# Title', '', 'See [the guide][g] and [home](other.md)  ', 'now.', '', '[g]: other.md', ''].join('\n');
    const { written, readsBack } = roundTrip(markdown);
    expect(written).toBe(['# Title', '', 'See [the guide][g] and [home](/pages/p1)  ', 'now.', '', '[g]: /pages/p1', ''].join('\n'));
    expect(readsBack).toBe(true);
  });

  it("reads the patched body back where a target written by id is an HTML attribute (unknown HTML, whose text the document holds)", () => {
    // The author's `<custom-thing href="other.md">` lines, written by id with the link line beside them, would read as
    // other text: the patch is dropped, the page written our way (its HTML as escaped text, `other.md` as it was).
    const markdown = ['# Title', '', 'See [home](other.md)  ', 'now.', '', '<custom-thing href="other.md">x</custom-thing>  ', '<custom-thing href="other.md">y</custom-thing>', '', 'See [more](other.md).', ''].join('\n');
    const { conversion, written, readsBack } = roundTrip(markdown);
    expect(conversion.document.data?.markdownSource).toBeUndefined();
    expect(written).toContain('\\<custom-thing href="other.md">x\\</custom-thing>');
    expect(readsBack).toBe(true);
  });

  it('reads the patched body back where a definition is kept beside a reference written our way', () => {
    // A definition in a list item (the first of two for `g`) is no content since definitions render nothing: the item
    // is empty, its line kept by the patch. (When the list item's definition was read as text, this page's patch
    // read otherwise and was dropped.)
    const markdown = ['# Title', '', 'See [the guide][g]  ', 'now.', '', '- [g]: other.md', '', '[g]: other.md', ''].join('\n');
    const { conversion, written, readsBack } = roundTrip(markdown);
    expect(conversion.document.data?.markdownSource).toBeDefined();
    expect(written).toContain('See [the guide](/pages/p1)\\\nnow.\n\n- [g]: other.md\n');
    expect(readsBack).toBe(true);
  });
});
