import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * Files written on Windows (CRLF line breaks) or beginning with a byte order mark, as real repositories have them
 * (Navixy/navixy-public-docs: 22 Markdown files with CRLF, 14 pages with a BOM; KelvinTegelaar/CIPP: one of each): one
 * paragraph of such a page edited in GitBook, and the commit rewrote every line of its file with LF, or dropped the BOM
 * from its first line. The export now keeps the file's line breaks and BOM: only the edited line changes.
 */

const NAME = 'conformance-export-line-breaks';
const WINDOWS = '# Guide\r\n\r\n* [Home](README.md)\r\n* Second item\r\n\r\nFirst paragraph.\r\n\r\n| Name | Value |\r\n| ---- | ----- |\r\n| one  | two   |\r\n';
const BOM = '\uFEFF# Notes\n\nSome text here.\n\nSecond paragraph.\n';
/** Some lines CRLF, others LF (a page pasted together): each line keeps its own. */
const MIXED = '# Mixed\r\n\r\nA first paragraph.\r\n\r\nA second paragraph.\n\nA third one.\r\n';
/** Old-Mac line breaks, a lone CR, and CR then CRLF (two breaks: a blank line between), as a hand-written repository has them. */
const OLD_MAC = '# Setup\r\r\nA first line.\r\r\n| Name | Value |\r\n|---|---|\r\n| a | b |\r\r\nA second line.\r\rA third line.\r\r\n* one\r* two\r\r\n';

describe('an edited page written back', () => {
  it("keeps its file's CRLF line breaks and byte order mark", async () => {
    const { token, space, head, byPath } = await importedSpace(NAME, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Notes](notes.md)\n* [Mixed](mixed.md)\n* [Setup](mac.md)\n',
      'guide.md': WINDOWS,
      'notes.md': BOM,
      'mixed.md': MIXED,
      'mac.md': OLD_MAC,
    });
    const cr = await openChangeRequest(space.id, token, 'Edits');
    await applyChanges(space.id, cr.number, token, [
      await leafEdit(space.id, token, cr.number, byPath('guide.md').id, 'First paragraph.', 'First paragraph, edited.'),
      await leafEdit(space.id, token, cr.number, byPath('notes.md').id, 'Second paragraph.', 'Second paragraph, edited.'),
      await leafEdit(space.id, token, cr.number, byPath('mixed.md').id, 'A second paragraph.', 'A second paragraph, edited.'),
      await leafEdit(space.id, token, cr.number, byPath('mac.md').id, 'A second line.', 'A second line, edited.'),
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(NAME), commitMessage: `GITBOOK-${cr.number}: Edits`, timestamp: new Date().toISOString() });

    expect((await gitOutput(NAME, 'diff', '--numstat', head, 'refs/heads/main')).trim().split('\n')).toEqual(['1\t1\tguide.md', '1\t1\tmac.md', '1\t1\tmixed.md', '1\t1\tnotes.md']);
    expect(await gitOutput(NAME, 'show', 'refs/heads/main:guide.md')).toBe(WINDOWS.replace('First paragraph.', 'First paragraph, edited.'));
    expect(await gitOutput(NAME, 'show', 'refs/heads/main:notes.md')).toBe(BOM.replace('Second paragraph.', 'Second paragraph, edited.'));
    expect(await gitOutput(NAME, 'show', 'refs/heads/main:mixed.md')).toBe(MIXED.replace('A second paragraph.', 'A second paragraph, edited.'));
    // Its lines written with LF, or CRLF throughout, the edit changed the whole file (oim-docs, found-gitprobe17a 2).
    expect(await gitOutput(NAME, 'show', 'refs/heads/main:mac.md')).toBe(OLD_MAC.replace('A second line.', 'A second line, edited.'));
  });
});
