import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * Found probing real repositories (probe22): a page added in the app made the export write the summary again, and
 * - 0xn3va/cheat-sheets writes its items with `-`: the new item came with `*` among them (in CommonMark a list of its own);
 * - logos-trad/devportal-docs-translations' summaries end without a line break: their last line was rewritten with one;
 * - a summary written on Windows (CRLF, as Navixy's pages are) had every one of its lines rewritten with LF.
 * The summary written again keeps its author's bullet, line breaks and ending: only the new item's line is added.
 */
const FILES = {
  'README.md': '# Home\n\nHi.\n',
  'a.md': '# A\n\nText.\n',
  'a/one.md': '# One\n\nText.\n',
  'a/two.md': '# Two\n\nText.\n',
  'b.md': '# B\n\nText.\n',
};
const LINES = ['# Summary', '', '* [Home](README.md)', '* [A](a.md)', '  * [One](a/one.md)', '  * [Two](a/two.md)', '* [B](b.md)'];
const NEW_ITEM = '  * [New page](a/new-page.md)';
const withNewItem = (lines: string[]) => [...lines.slice(0, 5), NEW_ITEM.replace('  *', lines[4].replace(/\[.*$/, '').trimEnd()), ...lines.slice(5)];

async function exportedSummary(name: string, summary: string): Promise<string> {
  const { token, space, head, byPath } = await importedSpace(name, { ...FILES, 'SUMMARY.md': summary });
  const cr = (await openChangeRequest(space.id, token, 'New page')).number;
  await applyChanges(space.id, cr, token, [{ operation: 'insert_page', title: 'New page', into: byPath('a.md').id, at: 1, document: { markdown: '# New page\n\nNew.\n' } }]);
  expectStatus(await merge(space.id, cr, token), 200);
  await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: New page`, timestamp: new Date().toISOString() });
  expect((await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['SUMMARY.md', 'a/new-page.md']);
  return gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md');
}

describe('an export that writes the summary again', () => {
  it("writes a new item with the author's bullet", async () => {
    const dashed = LINES.map((line) => line.replace(/^( *)\* /, (_, spaces: string) => `${spaces.repeat(2)}- `));
    const written = await exportedSummary(`summary-style-dash-${Date.now().toString(36)}`, `${dashed.join('\n')}\n`);
    expect(written).toBe(`${withNewItem(dashed).join('\n')}\n`);
    expect(written).toContain('\n    - [New page](a/new-page.md)\n');
  }, 240_000);

  it("keeps the summary's CRLF line breaks", async () => {
    const written = await exportedSummary(`summary-style-crlf-${Date.now().toString(36)}`, `${LINES.join('\r\n')}\r\n`);
    expect(written).toBe(`${withNewItem(LINES).join('\r\n')}\r\n`);
  }, 240_000);

  it('keeps a summary ending without a line break so', async () => {
    const written = await exportedSummary(`summary-style-no-eol-${Date.now().toString(36)}`, LINES.join('\n'));
    expect(written).toBe(withNewItem(LINES).join('\n'));
  }, 240_000);
});
