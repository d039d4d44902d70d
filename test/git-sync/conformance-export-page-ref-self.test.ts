import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * A folder's README referencing its own page as `{% page-ref page="./" %}` (GitBook's sync of 2021:
 * KonduitAI/deeplearning4j-gitbook-sync, gitprobe12b): an edit elsewhere in the page wrote that untouched line
 * `page="README.md"`. The import reads both as the page; the line keeps the author's spelling.
 */

const PAGE = ['# Backends', '', 'First paragraph here.', '', '{% page-ref page="./" %}', '', '{% page-ref page="one.md" %}', ''].join('\n');

describe('a page-ref to its own folder', () => {
  it('keeps `./` on the untouched line of an edited page', async () => {
    const name = 'conformance-export-page-ref-self';
    const { token, space, head, byPath } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Backends](backends/README.md)\n  * [One](backends/one.md)\n',
      'backends/README.md': PAGE,
      'backends/one.md': '# One\n\nThe first.\n',
    });
    const page = byPath('backends/README.md');
    const cr = await openChangeRequest(space.id, token, 'Backends');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, page.id, 'First paragraph here.', 'First paragraph, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Backends` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tbackends/README.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:backends/README.md')).toBe(PAGE.replace('First paragraph here.', 'First paragraph, edited.'));
  });
});
