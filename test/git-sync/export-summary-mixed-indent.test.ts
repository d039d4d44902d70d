import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * Found probing a real repository (Curiouserw/gitbooks-devops-roadmap): its SUMMARY.md nests by 4 spaces in one part and
 * by 2 in another, and an item without a link holds nothing in one part (`* Basics`, no page) while one of the same title
 * holds pages in another. An export editing one line of one page wrote the summary again (the empty item took the
 * title's first key, which the export gives the page), and every 4-space line came back at 2 spaces (~560 lines).
 */
const SUMMARY = [
  '# Summary',
  '',
  '* [Intro](README.md)',
  '',
  '## Part one',
  '* Setup',
  '    * [Single](single.md)',
  '* Basics',
  '* Operations',
  '    * [Storage](storage.md)',
  '        * [Disks](disks.md)',
  '',
  '## Part two',
  '* Docker',
  '  * Basics',
  '    * [Roles](roles.md)',
  '  * [Proxy](proxy.md)',
  '',
].join('\n');
const PAGES = ['single', 'storage', 'disks', 'roles', 'proxy'];

async function imported(name: string) {
  const files: Record<string, string> = { 'README.md': '# Intro\n\nHello there.\n', 'SUMMARY.md': SUMMARY };
  for (const page of PAGES) files[`${page}.md`] = `# ${page}\n\nText of ${page}.\n`;
  return importedSpace(name, files);
}

describe('an export to a summary nesting by 4 spaces in one part and 2 in another, with an empty item without a link', () => {
  it('leaves SUMMARY.md alone when one line of a page is edited', async () => {
    const name = `summary-mixed-indent-${Date.now().toString(36)}`;
    const { token, space, head, byPath } = await imported(name);
    const cr = (await openChangeRequest(space.id, token, 'Edit')).number;
    await applyChanges(space.id, cr, token, [await leafEdit(space.id, token, cr, byPath('README.md').id, 'Hello there.', 'Hello here.')]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: Edit`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).trim().split('\n')).toEqual(['README.md']);
  }, 240_000);

  it('keeps every 4-space and 2-space line when a page added in the app writes the summary again', async () => {
    const name = `summary-mixed-indent-add-${Date.now().toString(36)}`;
    const { token, space, head } = await imported(name);
    const cr = (await openChangeRequest(space.id, token, 'New page')).number;
    await applyChanges(space.id, cr, token, [{ operation: 'insert_page', title: 'New page', document: { markdown: '# New page\n\nWritten in the app.\n' } }]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: New page`, timestamp: new Date().toISOString() });
    const diff = await gitOutput(name, 'diff', '-U0', head, 'refs/heads/main', '--', 'SUMMARY.md');
    // Only added lines: the new item, after GitBook's thematic break ending the group before it.
    expect(diff.split('\n').filter((line) => /^[-+](?![-+])/.test(line))).toEqual(['+', '+***', '+', '+* [New page](new-page.md)']);
  }, 240_000);
});
