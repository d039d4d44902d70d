import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * One page linked two ways in one file (`../guide/setup.md` on one line, `setup.md` on another: devtron's docs, found by
 * gitpatch11's wide edit): the export wrote the file's first spelling on every line, so an edit elsewhere in the page
 * changed lines nobody edited. Each line keeps its own spelling now.
 */

const INTRO = [
  '# Intro',
  '',
  'Intro text here.',
  '',
  'First see [the setup](../guide/setup.md) page.',
  '',
  '| Step | Where |',
  '| --- | --- |',
  '| Install | [Setup](setup.md) and [Setup again](../guide/setup.md#install) |',
  '',
  'Then [Setup](./setup.md#run) once more.',
  '',
].join('\n');

describe('one target spelled two ways in one file', () => {
  it('keeps each line its own spelling on the untouched lines of an edited page', async () => {
    const name = 'conformance-export-mixed-spellings';
    const { token, space, head, byPath } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Intro](guide/intro.md)\n* [Setup](guide/setup.md)\n',
      'guide/intro.md': INTRO,
      'guide/setup.md': '# Setup\n\n## Install\n\nThis.\n\n## Run\n\nThat.\n',
    });
    const intro = byPath('guide/intro.md');
    const cr = await openChangeRequest(space.id, token, 'Intro');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, intro.id, 'Intro text here.', 'Intro text here, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Intro` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tguide/intro.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:guide/intro.md')).toBe(INTRO.replace('Intro text here.', 'Intro text here, edited.'));
  });
});
