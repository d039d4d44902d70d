/**
 * An imported page's source patch is worked out over one writing of its document (issue 40: writing the page again to
 * apply the hunks left, to see whether they only pad its tables as GitBook pads them, was a tenth of its conversion).
 * The hunks are applied to the writing already made (`patchedWriting` over `patchBaseOf`), which must be what writing
 * the page again gives (`writeBody`), on every page of the corpus and as the patch's own and stricter placing asks.
 */
import { describe, expect, it } from 'vitest';
import { defaultHrefFor, defaultResolveLink, documentToMarkdown, markdownToDocument, type ContentRef, type JSONDocument } from '../../src/services/markdown';
import { SOURCE_PATCH_KEY, sourcePatchOf } from '../../src/services/markdown/source-patch';
import { patchBaseOf, patchedWriting, writeBody } from '../../src/services/markdown/to-markdown';
import CORPUS from 'virtual:text-files/../shared/corpus/gitbook-format?md';

const FILES = Object.entries(CORPUS).filter(([path]) => /\/gitbook-format\/[^/]+\//.test(path));

/** A page linking to another page of the import (`next.md`, by id once imported) above a table of the author's. */
function imported(table: string[]) {
  const markdown = ['# Title', '', 'See [the next page](next.md).', '', ...table, '', 'The end.', ''].join('\n');
  const resolveLink = (href: string): ContentRef | null => (href === 'next.md' ? { kind: 'page', page: 'p1' } : defaultResolveLink(href));
  const conversion = markdownToDocument(markdown, { resolveLink });
  return { conversion, written: documentToMarkdown(conversion.document, { title: conversion.title }) };
}

describe("an imported page's hunks left after its links are written by id", () => {
  it('are dropped where they only pad the tables as GitBook pads them (no patch: the page is our writing)', () => {
    const table = ['| Option | Default |', '| ------ | ------- |', '| `a`    | 1       |', '| `bb`   | 22      |'];
    const { conversion, written } = imported(table);
    expect(conversion.document.data?.[SOURCE_PATCH_KEY]).toBeUndefined();
    expect(written).toBe(['# Title', '', 'See [the next page](/pages/p1).', '', ...table, '', 'The end.', ''].join('\n'));
  });

  it('are kept where the author padded the table otherwise (wider columns, or not alike)', () => {
    for (const table of [
      ['| Option   | Default |', '| -------- | ------- |', '| `a`      | 1       |'],
      ['| Option |  Default |', '|---|---|', '| `a` |   1 |'],
    ]) {
      const { conversion, written } = imported(table);
      expect(sourcePatchOf(conversion.document.data)?.hunks.length).toBe(table.length);
      expect(written).toBe(['# Title', '', 'See [the next page](/pages/p1).', '', ...table, '', 'The end.', ''].join('\n'));
    }
  });
});

describe('hunks applied to the writing already made', () => {
  it('give what writing the page again gives, on every page of the corpus', () => {
    let patched = 0;
    for (const [path, markdown] of FILES) {
      const { document } = markdownToDocument(markdown);
      const patch = sourcePatchOf(document.data);
      if (!patch || patch.hunks.length === 0) continue;
      patched++;
      // Over hrefs that are the default ones (sourcePatch records them as it writes).
      const base = patchBaseOf(document as JSONDocument, (ref) => defaultHrefFor(ref));
      for (const strict of [false, true]) expect(patchedWriting(base, patch.hunks, strict), `${path} (strict ${strict})`).toBe(writeBody(document, undefined, patch.hunks, strict));
      // A part of the hunks, as withSourcePatchOf's search for those that fit applies them.
      const half = patch.hunks.slice(0, Math.ceil(patch.hunks.length / 2));
      expect(patchedWriting(base, half), path).toBe(writeBody(document, undefined, half));
    }
    expect(patched).toBeGreaterThan(50);
  }, 180_000);
});
