import { describe, expect, it } from 'vitest';
import { leafEditedAsJson } from '../helpers/json-edit';
import { defaultHrefFor, defaultResolveLink, documentToMarkdown, markdownToDocument, type ContentRef, withSourcePatchOf } from '../../src/services/markdown/index';

/**
 * Found probing a real repository (patchkeep23, secoda/gitbook): list items written `1.  text \` or `*   text` (the
 * marker, then 2-3 spaces) over an indented `<figure>` continuation. Our writing says `1. ` and indents the
 * continuation 3 spaces, so each item takes two hunks: its marker's line, and its continuation's indent. Either
 * alone reads as another document (the figure leaves the item, or joins it); together they read as ours. With a
 * line elsewhere that no longer read as the document (here a tag written as text in a paragraph), the hunks kept
 * were found by halves, which cut such a pair apart: the item's marker came back `1. ` after a one-line edit.
 */
const PAGE = [
  '# Profiling',
  '',
  'Intro words.',
  '',
  '{% content-ref url="refund.md" %} [refund.md](refund.md) {% endcontent-ref %}',
  '',
  '1.  Click Run in the table \\',
  '',
  '',
  '    <figure><img src="https://example.com/a.png" alt=""><figcaption></figcaption></figure>',
  '2.  See the chart \\',
  '',
  '',
  '    <figure><img src="https://example.com/b.png" alt=""><figcaption></figcaption></figure>',
  '3. Done.',
  '',
  '*   Pick a column',
  '',
  '    <figure><img src="https://example.com/c.png" alt=""><figcaption></figcaption></figure>',
  '',
].join('\n');

const resolveLink = (href: string): ContentRef | null => (href.replace(/#.*$/, '') === 'refund.md' ? { kind: 'page', page: 'refund-page-id' } : defaultResolveLink(href));

function editedPage(from: string, to: string): string {
  const conversion = markdownToDocument(PAGE, { resolveLink });
  const next = leafEditedAsJson(conversion.document, from, to);
  return documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title, frontmatter: {}, hrefFor: (ref) => (ref.kind === 'page' ? 'refund.md' : defaultHrefFor(ref)) });
}

describe('a page edited as JSON whose list items take two hunks each (marker spacing, continuation indent)', () => {
  it("keeps each item's marker and its figure's indent as the author wrote them", () => {
    const written = editedPage('Intro words.', 'Intro words, edited.').split('\n');
    const source = PAGE.split('\n');
    const changed = source.flatMap((line, i) => (written[i] === line ? [] : [i]));
    // The edited line, and at most the tag's line written our way.
    expect(changed.filter((i) => i !== 4), JSON.stringify(written)).toEqual([2]);
    expect(written.length).toBe(source.length);
  });
});
