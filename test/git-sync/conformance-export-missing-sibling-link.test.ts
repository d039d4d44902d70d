import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * A link naming a file beside its page that the repository does not have (`[Ask API](ask-api.md)` in
 * `reference/corpus/README.md`, the file being `reference/ask-api.md`: clarity-fintech's docs, gitprobe12a): an edit
 * elsewhere in the page wrote that untouched line `[Ask API](../ask-api.md)`. The line keeps the author's spelling.
 */

const PAGE = ['# Corpus', '', 'First paragraph here.', '', 'Query it with the [Ask API](ask-api.md).', '', 'See [the other page](other.md).', ''].join('\n');

describe('a link naming a missing sibling file', () => {
  it('keeps its spelling on the untouched line of an edited page', async () => {
    const name = 'conformance-export-missing-sibling-link';
    const { token, space, head, byPath } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Ask API](reference/ask-api.md)\n* [Corpus](reference/corpus/README.md)\n* [Other](reference/corpus/other.md)\n',
      'reference/ask-api.md': '# Ask API\n\nAsk.\n',
      'reference/corpus/README.md': PAGE,
      'reference/corpus/other.md': '# Other\n\nText.\n',
    });
    const page = byPath('reference/corpus/README.md');
    const cr = await openChangeRequest(space.id, token, 'Corpus');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, page.id, 'First paragraph here.', 'First paragraph, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Corpus` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\treference/corpus/README.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:reference/corpus/README.md')).toBe(PAGE.replace('First paragraph here.', 'First paragraph, edited.'));
  });
});
