import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, noise, runGitOperation } from '../helpers/git-sync';

/**
 * Copies of one asset (GitBook's uploads: `image (88) (2).png`, `image (88) (2) (3).png`, one blob) linked percent-encoded
 * (`image%20%2888%29%20%282%29%20%283%29.png`, GitBook-exported wandb/gitbook; gitpatch11's wide edit): the export
 * looked for the copy a page names by its path with spaces or `%20` only, found none, and wrote the line nobody edited
 * with another copy's path, another file of the repository.
 */

const PAGE = [
  '# Home',
  '',
  'First paragraph.',
  '',
  '![](.gitbook/assets/image%20%2888%29%20%282%29%20%283%29.png)',
  '',
].join('\n');

describe('copies of an asset linked percent-encoded', () => {
  it('keep naming the copy the page named, on the lines of an edited page nobody edited', async () => {
    const name = 'conformance-export-encoded-copies';
    const bytes = { base64: btoa(String.fromCharCode(...noise(64, 9))) };
    const { token, space, head, byPath } = await importedSpace(name, {
      'README.md': PAGE,
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
      '.gitbook/assets/image (88) (2).png': bytes,
      '.gitbook/assets/image (88) (2) (3).png': bytes,
    });
    const home = byPath('README.md');
    const cr = await openChangeRequest(space.id, token, 'First');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, home.id, 'First paragraph.', 'First paragraph, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: First` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tREADME.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:README.md')).toBe(PAGE.replace('First paragraph.', 'First paragraph, edited.'));
  });
});
