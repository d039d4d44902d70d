import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * Found probing a real repository (probe21, Ambrose1/ambrose-knowledge at d3c0d54): its SUMMARY.md writes each group's
 * items right under the group's heading, with no blank line between them (`## 编程` then `- [编程概览](...)`). A page
 * added in the app made the export write the summary again, and every group heading got a blank line under it: eight
 * lines of the diff that no one changed. The author's spacing around a heading the export keeps is kept; GitBook's
 * (a blank line on either side) is for the headings it writes.
 */
const SUMMARY = '# 目录\n\n- [首页](README.md)\n\n## 编程\n- [Python](programming/python.md)\n- [Go](programming/go.md)\n\n## 工具\n- [Git](tools/git.md)\n';

describe('an export that writes SUMMARY.md again', () => {
  it('keeps a group heading as tight to its items as the author wrote it', async () => {
    const name = `summary-heading-spacing-${Date.now().toString(36)}`;
    const { token, space, head } = await importedSpace(name, {
      'README.md': '# 首页\n\n你好。\n',
      'SUMMARY.md': SUMMARY,
      'programming/python.md': '# Python\n\nText.\n',
      'programming/go.md': '# Go\n\nText.\n',
      'tools/git.md': '# Git\n\nText.\n',
    });
    const cr = (await openChangeRequest(space.id, token, 'New page')).number;
    await applyChanges(space.id, cr, token, [{ operation: 'insert_page', title: 'New page', document: { markdown: '# New page\n\nWritten in the app.\n' } }]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: New page`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['SUMMARY.md', 'new-page.md']);
    // Only the new page's lines are added, after the last group (GitBook's thematic break before it), with the author's bullet.
    expect(await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md')).toBe(`${SUMMARY}\n***\n\n- [New page](new-page.md)\n`);
  }, 120_000);
});
