import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * Found probing a real repository (probe21, CN-GuoZiyang/HelloP2P at f0bd59f): its SUMMARY.md is a loose list, a
 * blank line between each of its items. A page added in the app made the export write the summary again without any of
 * them: 14 removed lines for one added item. The author's blank lines stay, and the new item follows the list's style.
 */
const SUMMARY = '# Summary\n\n* [首页](README.md)\n\n* [摘要](abstract.md)\n\n* [第一章 概述](chapter1.md)\n\n* [结论](conclusion.md)\n';

describe('an export that writes again a summary written as a loose list', () => {
  it('keeps the blank lines between its items', async () => {
    const name = `summary-loose-list-${Date.now().toString(36)}`;
    const { token, space, head } = await importedSpace(name, {
      'README.md': '# 首页\n\n你好。\n',
      'SUMMARY.md': SUMMARY,
      'abstract.md': '# 摘要\n\nText.\n',
      'chapter1.md': '# 第一章 概述\n\nText.\n',
      'conclusion.md': '# 结论\n\nText.\n',
    });
    const cr = (await openChangeRequest(space.id, token, 'New page')).number;
    await applyChanges(space.id, cr, token, [{ operation: 'insert_page', title: 'New page', document: { markdown: '# New page\n\nWritten in the app.\n' } }]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: New page`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['SUMMARY.md', 'new-page.md']);
    expect(await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md')).toBe(`${SUMMARY}\n* [New page](new-page.md)\n`);
  }, 240_000);
});
