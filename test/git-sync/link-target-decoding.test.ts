import { describe, expect, it } from 'vitest';
import { decodeTarget } from '../../src/services/git-sync/layout';

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
