import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, withSourcePatchOf, withoutSourcePatch } from '../../src/services/markdown/index';

/**
 * Found probing a real repository (probe22, trunk-io/docs `merge-queue/chrome-extension.md`): a paragraph ending with a
 * `\` hard break and a `<br>` line (`text.\` / `<br>`), which we write `text.<br><br>`. Its text edited at its end as
 * JSON (GitBook's editor), the paragraph came back our way, `text. edit<br><br>`: the author's breaks were lost for an
 * edit of their words. The edit is text before the first break; the author's break spellings stay as written.
 */
const PAGE = [
  '# Chrome Extension',
  '',
  'The extension overlays merge queue controls onto the pull request page.\\',
  '<br>',
  '',
  '<figure><img src="a.png" alt=""><figcaption></figcaption></figure>',
  '',
  'Next paragraph, kept.',
  '',
].join('\n');

/** The page's first leaf holding `from`, edited by `edit`, sent back as JSON and written. */
function editedAsJson(from: string, edit: (text: string) => string): string {
  const conversion = markdownToDocument(PAGE);
  const next = structuredClone(withoutSourcePatch(conversion.document));
  let found = false;
  const visit = (node: any): void => {
    if (found || !node || typeof node !== 'object') return;
    if (node.object === 'leaf' && node.text.includes(from)) return void ((node.text = edit(node.text)), (found = true));
    for (const key of ['nodes', 'leaves', 'fragments']) for (const child of node[key] ?? []) visit(child);
  };
  visit(next);
  expect(found, from).toBe(true);
  return documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title, frontmatter: {} });
}

describe("a paragraph ending in the author's `\\` and `<br>` breaks, edited as JSON", () => {
  it('keeps both breaks as written when the text is edited at its end, before the breaks', () => {
    const written = editedAsJson('The extension', (text) => text.replace(/(\S)(\s*)$/, '$1 Edited.$2'));
    expect(written).toBe(PAGE.replace('request page.\\', 'request page. Edited.\\'));
  });

  it('keeps both breaks as written when another word of the paragraph is edited', () => {
    const written = editedAsJson('The extension', (text) => text.replace('merge queue', 'queue'));
    expect(written).toBe(PAGE.replace('merge queue', 'queue'));
  });

  it('reads back as the edited document', () => {
    const written = editedAsJson('The extension', (text) => text.replace(/(\S)(\s*)$/, '$1 Edited.$2'));
    const paragraph = markdownToDocument(written).document.nodes[0] as any;
    expect(paragraph.nodes[0].leaves[0].text).toBe('The extension overlays merge queue controls onto the pull request page. Edited.\n\n');
  });
});
