import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * Found probing a real repository (fluent/fluentd-docs-gitbook, branch 1.0): its SUMMARY.md ends with a blank line. A
 * page added in the app went in at the end and took that blank line's place: the file lost its last line. It stays.
 */
const SUMMARY = '# Summary\n\n* [Intro](README.md)\n* [Guide](guide.md)\n\n';

describe('an export adding a page at the end of a summary that ends with a blank line', () => {
  it('keeps the blank line after the new item', async () => {
    const name = `summary-trailing-blank-${Date.now().toString(36)}`;
    const { token, space } = await importedSpace(name, { 'README.md': '# Intro\n\nHello.\n', 'SUMMARY.md': SUMMARY, 'guide.md': '# Guide\n\nText.\n' });
    const cr = (await openChangeRequest(space.id, token, 'New page')).number;
    await applyChanges(space.id, cr, token, [{ operation: 'insert_page', title: 'New page', document: { markdown: '# New page\n\nWritten in the app.\n' } }]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: New page`, timestamp: new Date().toISOString() });
    expect(await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md')).toBe('# Summary\n\n* [Intro](README.md)\n* [Guide](guide.md)\n* [New page](new-page.md)\n\n');
  }, 240_000);
});
