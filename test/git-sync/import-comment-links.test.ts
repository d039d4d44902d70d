import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { githubBody, gitOutput, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (devtron-labs/devtron-documentation: `<!-- [Application Metrics](app-metrics.md) -->`
 * in a page): the import rewrote the link inside the HTML comment to the batch's ref of the new page, the comment kept
 * that text, and the page's next export wrote `<!-- [Application Metrics](_gp83) -->` into the repository. A comment
 * is now left as written.
 */

const NAME = 'import-comment-links';
const HOME = '# Home\n\nFirst paragraph.\n\n<!-- [Metrics](metrics.md) and <!-- unclosed -->\n\n[Metrics](metrics.md)\n\nLast <!-- [x](metrics.md) --> line.\n';

describe('an HTML comment holding a link to a page', () => {
  it('is imported and exported as written', async () => {
    const { token, space, head, byPath } = await importedSpace(NAME, {
      'README.md': HOME,
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Metrics](metrics.md)\n',
      'metrics.md': '# Metrics\n\nText.\n',
    });
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, byPath('README.md').id, 'First paragraph.', 'First paragraph, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(NAME), commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() });
    expect((await gitOutput(NAME, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tREADME.md');
    expect(await gitOutput(NAME, 'show', 'refs/heads/main:README.md')).toBe(HOME.replace('First paragraph.', 'First paragraph, edited.'));
  });
});
