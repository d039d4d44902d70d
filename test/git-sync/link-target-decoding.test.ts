import { describe, expect, it } from 'vitest';
import { decodeTarget, parseSummary, type UnreadSummaryLines } from '../../src/services/git-sync/layout';

/**
 * One reading of a link's destination (layout.ts `decodeTarget`) for the import, the summary and the export's spellings
 * (issue 40): three copies differed in which escapes they undid and in a malformed `%` (one kept every escape of the
 * destination, one dropped the link, one decoded only `%20`).
 */
describe('decodeTarget', () => {
  it('undoes angle brackets, backslash escapes of punctuation and each run of percent escapes', () => {
    expect(decodeTarget('a%20b.md')).toBe('a b.md');
    expect(decodeTarget('<a b.md>')).toBe('a b.md');
    expect(decodeTarget(' down\\_time/ ')).toBe('down_time/');
    expect(decodeTarget('image%20%2891%29.png')).toBe('image (91).png');
    expect(decodeTarget('%E2%9C%85-done.md#step-1')).toBe('✅-done.md');
    expect(decodeTarget('../guide.md?plain=1')).toBe('../guide.md');
    expect(decodeTarget('/abs/page.md')).toBe('/abs/page.md');
  });

  it('keeps a % that starts no escape, and a run that is no UTF-8, decoding the rest', () => {
    expect(decodeTarget('50%-off%20sale.md')).toBe('50%-off sale.md');
    expect(decodeTarget('100%.md')).toBe('100%.md');
    expect(decodeTarget('%E2%9C.md')).toBe('%E2%9C.md');
    expect(decodeTarget('%E2%9C%20x.md')).toBe('%E2%9C%20x.md');
  });

  it('keeps a backslash before what is not punctuation, and is null for no file', () => {
    expect(decodeTarget('a\\b.md')).toBe('a\\b.md');
    for (const target of ['https://example.com/a.md', 'mailto:a@b.c', '//host/a.md', '#anchor', '  ', '<>']) expect(decodeTarget(target)).toBeNull();
  });
});

describe('parseSummary of items that lead to no file', () => {
  const files = new Set(['README.md', 'c (1).md', 'x(1).md', 'old/b.md']);
  const summary = [
    '* [Home](README.md)',
    '* [Moved](old/README.md)',
    '  * [B](old/b.md)',
    '* A note',
    '* [Spec](spec.yaml)',
    '* [Out](../CHANGELOG.md)',
    '* [C](<c (1).md>)',
    '* [X](x(1).md "Nav")',
    '* [B again](old/b.md)',
  ].join('\n');

  it('reads a missing Markdown file as an empty page holding its items, and says where the other lines were', () => {
    const unread: UnreadSummaryLines = { keys: [], lines: [] };
    const pages = parseSummary(summary, '', (path) => files.has(path), undefined, unread);
    expect(pages.map((p) => [p.key, p.title, p.children.map((c) => c.key)])).toEqual([
      ['README.md', 'Home', []],
      ['missing:old/README.md', 'Moved', ['old/b.md']],
      ['c (1).md', 'C', []],
      ['x(1).md', 'X', []],
    ]);
    expect(pages[1].missing).toBe('old/README.md');
    expect(pages[3].linkTitle).toBe('Nav');
    expect(unread.keys).toEqual(['README.md', 'missing:old/README.md', 'old/b.md', 'c (1).md', 'x(1).md']);
    expect(unread.lines).toEqual([
      { at: 3, line: '* A note', why: null },
      { at: 3, line: '* [Spec](spec.yaml)', why: 'it leads to no Markdown file' },
      { at: 3, line: '* [Out](../CHANGELOG.md)', why: 'it leads out of the content root' },
      { at: 5, line: '* [B again](old/b.md)', why: 'its file is listed before' },
    ]);
  });

  it('reads a long line without a closing parenthesis in linear time (no backtracking on spaces)', () => {
    const line = `* [A](${'a '.repeat(20_000)}`;
    expect(parseSummary(line, '', () => true)).toEqual([]);
  });
});
