import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * How GitBook writes a summary item's title, escaping only what CommonMark would read otherwise (as mdast-util-to-markdown
 * does): `<` before a letter, `/`, `!` or `?` would open an HTML tag, so it is `\<` (gugbab2/Backend-GitBook, GITBOOK-687:
 * `[...지혜\<Git 편>]`), while `<>` before a space stays (secoda/gitbook, GITBOOK-533: `[Slack <> Questions workflow]`);
 * `&` before a space stays (flxbl-io/docs-sfp, GITBOOK-178: `[Authentication & Security Architecture]`), and before a
 * letter or `#` would start a character reference, so it is `\&` (GitBook's page text: `Q\&A`). Our export wrote both
 * raw, so `[Q&A <Setup>]` read back as a title with an HTML tag in it. An author's item, unchanged, keeps its text.
 */
const FILES = {
  'README.md': '# Home\n\nHi.\n',
  'rd.md': '# R&D <Lab>\n\nText.\n',
  'SUMMARY.md': '# Summary\n\n* [Home](README.md)\n* [R&D <Lab>](rd.md)\n',
};

describe('a summary item written anew', () => {
  it('escapes `<` and `&` where CommonMark would read a tag or a character reference, as GitBook does', async () => {
    const name = `summary-title-escapes-${Date.now().toString(36)}`;
    const { token, space } = await importedSpace(name, FILES);
    const cr = (await openChangeRequest(space.id, token, 'New page')).number;
    const title = 'Q&A <Setup> & <> #&#1';
    await applyChanges(space.id, cr, token, [{ operation: 'insert_page', title, document: { markdown: 'New.\n' } }]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: New page`, timestamp: new Date().toISOString() });
    const lines = (await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md')).split('\n');
    expect(lines.slice(0, 4)).toEqual(['# Summary', '', '* [Home](README.md)', '* [R&D <Lab>](rd.md)']);
    expect(lines[4]).toMatch(/^\* \[Q\\&A \\<Setup> & <> #\\&#1\]\([^)]+\.md\)$/);
  }, 240_000);
});
