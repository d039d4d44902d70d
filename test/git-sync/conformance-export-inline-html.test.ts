import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * Inline HTML GitBook's model has no mark for (`<center>` around a heading's text, seen in CN-GuoZiyang/HelloP2P; a
 * generic's `<T>`; a `<kbd>` left open) was read as code: the page read showed the tags as code, and a page written
 * again our way put backticks around them in the file. It is read as the text it is, as GitBook keeps HTML it does not
 * understand, and written back as the HTML it was: an edit of another word of the line keeps the author's tags.
 */

const CHAPTER = ['### <center>第一章 概述</center>', '', '#### 1.1 Hello简介', '', 'hello.c文件以ascii码的形式将C语言代码存在磁盘上。', ''].join('\n');
const INLINE = ['# Inline', '', 'Use <center>centred</center> words, a List<T> type and <kbd>open keys.', '', 'Closing words.', ''].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [第一章 概述](chapter1.md)\n* [Inline](inline.md)\n',
  'chapter1.md': CHAPTER,
  'inline.md': INLINE,
};

/** An `update_page` change with `from` replaced by `to` in the one leaf of the page's document that holds it, as GitBook's editor sends an edit. */
async function wordEdit(spaceId: string, token: string, cr: number, pageId: string, from: string, to: string) {
  const read = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr}/content/page/${pageId}`, { token }), 200).body;
  const document = structuredClone(read.document);
  let found = 0;
  const visit = (node: any) => {
    if (node?.object === 'leaf' && node.text.includes(from)) (node.text = node.text.replace(from, to)), found++;
    for (const key of ['nodes', 'leaves']) for (const child of node?.[key] ?? []) visit(child);
  };
  visit(document);
  expect(found, `leaves holding "${from}"`).toBe(1);
  return { operation: 'update_page', page: pageId, document: { document } };
}

/** The texts and marks of a page's leaves, in order. */
async function leavesOf(spaceId: string, token: string, pageId: string): Promise<Array<[string, string[]]>> {
  const read = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${pageId}`, { token }), 200).body;
  const out: Array<[string, string[]]> = [];
  const visit = (node: any) => {
    if (node?.object === 'leaf') out.push([node.text, node.marks.map((mark: any) => mark.type)]);
    for (const key of ['nodes', 'leaves']) for (const child of node?.[key] ?? []) visit(child);
  };
  visit(read.document);
  return out;
}

describe('inline HTML GitBook has no mark for', () => {
  it('reads as its text, and an edit of another word of its line keeps the tags as written', async () => {
    const name = `inline-html-${Date.now().toString(36)}`;
    const { token, space, byPath } = await importedSpace(name, FILES);
    const chapter = byPath('chapter1.md');
    const inline = byPath('inline.md');
    const leaves = await leavesOf(space.id, token, chapter.id);
    expect(leaves[0]).toEqual(['<center>第一章 概述</center>', []]);
    const inlineLeaves = await leavesOf(space.id, token, inline.id);
    expect(inlineLeaves.filter(([, marks]) => marks.includes('code'))).toEqual([]);
    expect(inlineLeaves.map(([text]) => text).join('')).toContain('Use <center>centred</center> words, a List<T> type and <kbd>open keys.');

    const cr = (await openChangeRequest(space.id, token, 'Edit')).number;
    await applyChanges(space.id, cr, token, [
      await wordEdit(space.id, token, cr, chapter.id, '概述', '总览'),
      await wordEdit(space.id, token, cr, inline.id, 'words, a', 'terms, a'),
    ]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: Edit`, timestamp: new Date().toISOString() });

    const show = (path: string) => gitOutput(name, 'show', `refs/heads/main:${path}`);
    expect(await show('chapter1.md')).toBe(CHAPTER.replace('概述', '总览'));
    expect(await show('inline.md')).toBe(INLINE.replace('words, a', 'terms, a'));
  }, 180_000);
});
