import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, noise, runGitOperation } from '../helpers/git-sync';

/**
 * One page naming two byte-identical copies of an asset (GitBook's re-upload copies `image (3) (2).png` and
 * `image (5) (3) (1).png`, one blob: superstreamlabs' GitBook-exported docs, gitprobe12c): the import makes one file of
 * the two, and the export chose one copy per page, so an edit anywhere in the page wrote the line naming the second
 * copy with the first. Each reference keeps the copy its own line named.
 */

const PAGE = [
  '# Compare',
  '',
  'Intro text here.',
  '',
  '![](<../.gitbook/assets/shot (3) (2).png>)',
  '',
  'Between the images.',
  '',
  '<figure><img src="../.gitbook/assets/shot (5) (3) (1).png" alt=""><figcaption></figcaption></figure>',
  '',
  '![Again](<../.gitbook/assets/shot (3) (2).png>)',
  '',
  '![Last](<../.gitbook/assets/shot (5) (3) (1).png>)',
  '',
].join('\n');

describe('an edited page naming two copies of one asset', () => {
  it('keeps each untouched line naming its own copy', async () => {
    const name = 'conformance-export-copies-per-line';
    const bytes = { base64: btoa(String.fromCharCode(...noise(64, 13))) };
    const { token, space, head, byPath } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Compare](guide/compare.md)\n',
      'guide/compare.md': PAGE,
      '.gitbook/assets/shot (3) (2).png': bytes,
      '.gitbook/assets/shot (5) (3) (1).png': bytes,
    });
    const page = byPath('guide/compare.md');
    const cr = await openChangeRequest(space.id, token, 'Compare');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, page.id, 'Intro text here.', 'Intro text here, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Compare` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tguide/compare.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:guide/compare.md')).toBe(PAGE.replace('Intro text here.', 'Intro text here, edited.'));
  });
});
