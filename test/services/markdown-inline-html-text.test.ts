import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, withSourcePatchOf, withoutSourcePatch } from '../../src/services/markdown/index';

/**
 * Inline HTML GitBook's model has no mark or inline for: `<center>` around a heading's text (CN-GuoZiyang/HelloP2P's
 * `### <center>第一章 概述</center>`), a generic's `<T>`, a `<kbd>` never closed, an element of the author's own. It was
 * read as code-marked text, so the page read showed the tags as code, and wherever the page was written our way (a line
 * the source patch could not keep, a page whose patch was dropped) backticks went around them in the file. GitBook keeps
 * HTML it does not understand as text and writes it back escaped (`\<u>GH Copilot features\</u>` in a GitBook-written
 * page): so it is read now, and the author's tags stay as written on a line whose edit is elsewhere.
 */

const HEADING = '### <center>第一章 概述</center>';
const PARAGRAPH = 'Use <center>centred</center> words, a List<T> type, <kbd>open keys and <my-tag a="1">own</my-tag>.';
const PAGE = ['# Chapter', '', HEADING, '', PARAGRAPH, '', '* An item <center>in a list</center>', '', 'Last words.', ''].join('\n');

type Leaf = { text: string; marks: Array<{ type: string }> };
const leavesOf = (node: any): Leaf[] => (node?.object === 'leaf' ? [node] : [...(node?.nodes ?? []), ...(node?.leaves ?? [])].flatMap(leavesOf));
const plainDocument = (markdown: string) => withoutSourcePatch(markdownToDocument(markdown).document);
const written = (document: any, title = 'Chapter') => documentToMarkdown(document, { title, frontmatter: {} });

/** The page read, `from` replaced by `to` in the leaf holding it, and written back with the page's source patch. */
function edited(markdown: string, from: string, to: string): string {
  const conversion = markdownToDocument(markdown);
  const next = structuredClone(withoutSourcePatch(conversion.document));
  const holding = leavesOf(next).filter((leaf) => leaf.text.includes(from));
  expect(holding, from).toHaveLength(1);
  holding[0].text = holding[0].text.replace(from, to);
  return documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title, frontmatter: {} });
}

describe('inline HTML GitBook has no mark for', () => {
  it('is read as the text it is, never as code', () => {
    const leaves = leavesOf(plainDocument(PAGE));
    expect(leaves.filter((leaf) => leaf.marks.length > 0)).toEqual([]);
    expect(leaves.map((leaf) => leaf.text)).toEqual(['<center>第一章 概述</center>', PARAGRAPH, 'An item <center>in a list</center>', 'Last words.']);
  });

  it('is written escaped where the page is written our way (GitBook\'s form), no backticks, and reads back the same', () => {
    const document = plainDocument(PAGE);
    const markdown = written(document);
    expect(markdown).not.toContain('`');
    expect(markdown).toContain('### \\<center>第一章 概述\\</center>\n');
    expect(markdown).toContain('List\\<T> type, \\<kbd>open keys');
    expect(withoutSourcePatch(markdownToDocument(markdown).document)).toEqual(document);
  });

  it('keeps its tags as written when another word of its line is edited', () => {
    expect(edited(PAGE, '概述', '总览')).toBe(PAGE.replace('概述', '总览'));
    expect(edited(PAGE, 'words, a', 'terms, a')).toBe(PAGE.replace('words, a', 'terms, a'));
    expect(edited(PAGE, 'in a list', 'in the list')).toBe(PAGE.replace('in a list', 'in the list'));
  });

  it('leaves the inline HTML GitBook reads as marks and line breaks as it was: <kbd>, <sup>, <sub>, <mark>, <br>', () => {
    const leaves = leavesOf(plainDocument('Press <kbd>Ctrl</kbd>, x<sup>2</sup>, H<sub>2</sub>O, <mark style="color:red;">red</mark><br>next.\n'));
    expect(leaves.map((leaf) => [leaf.text, ...leaf.marks.map((mark) => mark.type)])).toEqual([
      ['Press '],
      ['Ctrl', 'keyboard'],
      [', x'],
      ['2', 'superscript'],
      [', H'],
      ['2', 'subscript'],
      ['O, '],
      ['red', 'color'],
      ['\nnext.'],
    ]);
  });
});
