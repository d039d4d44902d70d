import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, withSourcePatchOf, withoutSourcePatch } from '../../src/services/markdown/index';

/**
 * Found probing a real repository (probe23a, angular-package/gitbook `definitions/`): a quoted definition in italics whose
 * words are links, each link's text in italics of its own (`_"the_ [_word_](url)_, more"_`), where we write the
 * italics around the link (`_"the_ _[word](url), more"_`). Edited as JSON in the linked word, the line came back our
 * way: the author's `[_word_]` became `_[word]`, their ` __ ` became ` \_\_ `. The edit touched the word, the author's
 * difference only the underscores around it; an underscore at a word's edge is emphasis, not part of the word, so the
 * two no longer meet and the author's line is kept with the edit.
 */
const PAGE = [
  '# Sturdy',
  '',
  '> _"_[_strong_](https://example.com/strong) _and_ [_lasting_](https://example.com/lasting) __ [_firm_](https://example.com/firm)_"_',
  '',
  '> _"able to_ [_bear_](https://example.com/bear)_, carry or hold"_',
  '',
  'Kept: `snake_case` and my_variable_name stay one word.',
  '',
].join('\n');

/** The page's first leaf saying `from` exactly, changed to `to`, sent back as JSON and written. */
function editedAsJson(from: string, to: string): string {
  const conversion = markdownToDocument(PAGE);
  const next = structuredClone(withoutSourcePatch(conversion.document));
  let found = false;
  const visit = (node: any): void => {
    if (found || !node || typeof node !== 'object') return;
    if (node.object === 'leaf' && node.text === from) return void ((node.text = to), (found = true));
    for (const key of ['nodes', 'leaves', 'fragments']) for (const child of node[key] ?? []) visit(child);
  };
  visit(next);
  expect(found, from).toBe(true);
  return documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title, frontmatter: {} });
}

describe("an edited link whose text the author wrote in italics of its own, in an italic line", () => {
  it('keeps the line as written but for the edited word, when the first link is edited', () => {
    expect(editedAsJson('strong', 'sturdy')).toBe(PAGE.replace('[_strong_]', '[_sturdy_]'));
  });

  it('keeps the line as written but for the edited word, when a link after plain italics is edited', () => {
    expect(editedAsJson('bear', 'carry')).toBe(PAGE.replace('[_bear_]', '[_carry_]'));
  });

  it('reads back as the edited document', () => {
    const written = editedAsJson('firm', 'solid');
    expect(written).toBe(PAGE.replace('[_firm_]', '[_solid_]'));
    const quote = JSON.stringify(markdownToDocument(written).document.nodes[0]);
    expect(quote).toContain('"text":"solid"');
  });

  it('edits a word joined by underscores as one word', () => {
    expect(editedAsJson('Kept: ', 'Still kept: ')).toBe(PAGE.replace('Kept: ', 'Still kept: '));
  });
});
