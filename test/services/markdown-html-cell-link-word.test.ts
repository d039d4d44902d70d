import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, withSourcePatchOf, withoutSourcePatch } from '../../src/services/markdown/index';

/**
 * An author's HTML `<table>` written a cell a line, whose cell repeats a word that is also in its link's URL
 * (`<td><a href="https://x.example/beta">beta</a> beta</td>`), the second one edited as JSON: merged token by token
 * with our whole row, the edit went to the link's text, the page no longer read as its document, and the whole table
 * was written as a pipe table (left for issue 40 by session 20). Only that cell changes now.
 */

function edited(markdown: string, replace: (leaves: any[]) => any[] | null): string {
  const conversion = markdownToDocument(markdown);
  const next = structuredClone(withoutSourcePatch(conversion.document));
  let found = 0;
  const visit = (node: any): void => {
    if (!node || typeof node !== 'object') return;
    if (node.object === 'text') {
      const leaves = replace(node.leaves);
      if (leaves) (node.leaves = leaves), found++;
    }
    for (const key of ['nodes', 'fragments']) if (Array.isArray(node[key])) node[key].forEach(visit);
  };
  visit(next);
  expect(found).toBe(1);
  return documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title, frontmatter: {} });
}

const leaf = (text: string, marks: string[] = []) => ({ object: 'leaf', text, marks: marks.map((type) => ({ object: 'mark', type })) });
const page = (cell: string) =>
  ['# Notes', '', 'Intro.', '', '<table>', '  <tr>', '    <th>Name</th>', '    <th>Notes</th>', '  </tr>', '  <tr>', '    <td>Beta</td>', `    <td>${cell}</td>`, '  </tr>', '</table>', '', 'After.', ''].join('\n');
/** The text node saying `text` alone, given `leaves`. */
const saying = (text: string, leaves: any[]) => (old: any[]) => (old.length === 1 && old[0].text === text ? leaves : null);

describe("an edit of a word an author's HTML cell repeats, the word also in the cell's link URL", () => {
  it('changes only that word, in that cell', () => {
    const cell = '<a href="https://x.example/beta">beta</a> beta';
    expect(edited(page(cell), saying(' beta', [leaf(' gamma')]))).toBe(page('<a href="https://x.example/beta">beta</a> gamma'));
  });

  it('the word first, the link after: only that word changes', () => {
    const cell = 'beta <a href="https://x.example/beta">beta</a>';
    expect(edited(page(cell), saying('beta ', [leaf('gamma ')]))).toBe(page('gamma <a href="https://x.example/beta">beta</a>'));
  });

  it('a mark added to that word: only that cell changes, written as GitBook writes an HTML cell', () => {
    const cell = '<a href="https://x.example/beta">beta</a> beta';
    expect(edited(page(cell), saying(' beta', [leaf(' '), leaf('beta', ['bold'])]))).toBe(page('<a href="https://x.example/beta">beta</a> <strong>beta</strong>'));
  });
});
