import { describe, expect, it } from 'vitest';
import { leafEditedAsJson } from '../helpers/json-edit';
import { defaultResolveLink, documentToMarkdown, markdownToDocument, type ContentRef, withSourcePatchOf } from '../../src/services/markdown/index';

/**
 * Found probing a real repository (probe22, logos-trad/devportal-docs-translations): a page holding a GitBook tag as text
 * in a paragraph (`{% content-ref url="refund.md" %} [refund.md](refund.md) {% endcontent-ref %}` on one line), read
 * with its links resolved as Git Sync reads them, then one paragraph edited as JSON (GitBook's editor). The patch kept
 * for that line says the tag's `url` by id, which the document's text does not: the patch no longer read as the
 * document, so withSourcePatchOf kept none of it, and the export wrote the whole page our way (24 lines of the page
 * changed: trailing spaces, escapes), for a one-line edit. The hunks that still read as the document are kept.
 */
const PAGE = [
  '# Request management',
  '',
  'If your request is one of those below, go to the dedicated page: ',
  '',
  '{% content-ref url="refund.md" %} [refund.md](refund.md) {% endcontent-ref %}',
  '',
  'Otherwise you can use the following messages: ',
  '',
  'For more information, visit \\[this website](URL).',
  '',
  '* Kept as written',
  '',
].join('\n');

const resolveLink = (href: string): ContentRef | null => (href.replace(/#.*$/, '') === 'refund.md' ? { kind: 'page', page: 'refund-page-id' } : defaultResolveLink(href));

function editedPage(from: string, to: string): string {
  const conversion = markdownToDocument(PAGE, { resolveLink });
  const next = leafEditedAsJson(conversion.document, from, to);
  return documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title, frontmatter: {}, hrefFor: (ref) => (ref.kind === 'page' ? 'refund.md' : '') });
}

describe('a page edited as JSON whose source patch holds a line that no longer reads as the document', () => {
  it("keeps the author's other lines", () => {
    const written = editedPage('go to the dedicated page:', 'go to the page:').split('\n');
    const source = PAGE.split('\n');
    expect(written.length).toBe(source.length);
    const changed = source.flatMap((line, i) => (written[i] === line ? [] : [i]));
    // The edited line (written our way: its trailing space goes), and at most the tag's line written our way.
    expect(changed.filter((i) => i !== 4)).toEqual([2]);
    expect(written[2]).toBe('If your request is one of those below, go to the page:');
    expect(written[6]).toBe('Otherwise you can use the following messages: ');
    expect(written[8]).toBe('For more information, visit \\[this website](URL).');
  });
});
