import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';
import { expectStatus } from '../helpers/harness';

/**
 * A hand-written page linking other pages by reference (`[text][label]`, the definitions `[label]: ./other.md` at the
 * end of the file after a comment), edited on a paragraph holding such a link (found on a real repository, talus-docs,
 * found-gitprobe15c 4). The import counted the reference's line as holding no link to the page its definition names,
 * dropped the author's line, and the page, no longer reading as its document, kept no patch: the edit wrote it whole
 * our way (references inline, definitions and comment gone, a misspelt hint attribute normalised, blank lines added
 * before tight lists and inside `<details>`, a loose list tightened). Only the edited line may change.
 */
const PAGE = [
  '# Entry',
  '',
  'This page builds on the [Other guide][other-guide] by adding more words to it.',
  '',
  '## Groups',
  '',
  'Groups let you:',
  '- start one way',
  '- start another way',
  '',
  '{% hint sytle="success" %}',
  'Without groups, nothing happens.',
  '{% endhint %}',
  '',
  'We extend it by:',
  '1. adding a step',
  '2. adding another step',
  '',
  '<details>',
  '<summary>Full diagram</summary>',
  '',
  '```mermaid',
  'graph TD',
  '  A --> B',
  '```',
  '</details>',
  '',
  'To use it:',
  '',
  '1. **Store**: keep it.',
  '',
  '2. **Run**: run it.',
  '   - one way',
  '   - another way',
  '',
  '3. **Read**: read it.',
  '',
  'See the [Construction guide][construction]. ',
  '',
  '<!-- List of references -->',
  '[construction]: ./construction.md',
  '[other-guide]: ./other.md',
  '',
].join('\n');

/** The definition apart from every reference, after a paragraph holding none. */
const APART = '# Apart\n\nRead [the other guide][other] first, then this one.\n\nA paragraph of its own.\n\n[other]: other.md\n';

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Entry](guides/entry.md)\n* [Apart](guides/apart.md)\n* [Other](guides/other.md)\n* [Construction](guides/construction.md)\n',
  'guides/entry.md': PAGE,
  'guides/apart.md': APART,
  'guides/other.md': '# Other\n\nWords.\n',
  'guides/construction.md': '# Construction\n\nWords.\n',
};

describe('a page linking by reference, edited on the line of a reference', () => {
  it('keeps the reference, its definitions and every line nobody edited', async () => {
    const name = 'conformance-export-reference-links';
    const { token, space, head, byPath } = await importedSpace(name, FILES);
    const cr = await openChangeRequest(space.id, token, 'One line');
    await applyChanges(space.id, cr.number, token, [
      await leafEdit(space.id, token, cr.number, byPath('guides/entry.md').id, 'This page builds on the ', 'This page builds further on the '),
      await leafEdit(space.id, token, cr.number, byPath('guides/apart.md').id, ' first, then this one.', ' first, then this page.'),
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: One line`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--numstat', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['1\t1\tguides/apart.md', '1\t1\tguides/entry.md']);
    expect(await gitOutput(name, 'show', 'refs/heads/main:guides/entry.md')).toBe(PAGE.replace('This page builds on', 'This page builds further on'));
    expect(await gitOutput(name, 'show', 'refs/heads/main:guides/apart.md')).toBe(APART.replace('this one.', 'this page.'));
  }, 180_000);
});
