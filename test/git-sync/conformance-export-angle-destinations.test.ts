import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest, PNG_1x1 } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * GitBook's older exporter wrote every image destination in angle brackets, spaces or not
 * (`![](<../.gitbook/assets/shot.png>)`, `![](<../assets/image(77).png>)`: RunLLM's and w3b3d3v's GitBook-exported
 * docs, gitprobe12c). The export kept the brackets only around a path with a space, so an edit anywhere in such a page
 * changed every bracketed image line nobody edited (w3b3d3v: 19 of 54 files of a wide edit). They are kept now.
 */

const PAGE = [
  '# Struct',
  '',
  'Intro text here.',
  '',
  '![](<../.gitbook/assets/shot.png>)',
  '',
  'Between the images.',
  '',
  '![](<../.gitbook/assets/image(77).png>)',
  '',
  '![A chart](<../.gitbook/assets/chart (1).png>)',
  '',
  '![](../.gitbook/assets/plain.png)',
  '',
].join('\n');

describe('image destinations in angle brackets', () => {
  it('keep their brackets on the untouched lines of an edited page, with or without spaces', async () => {
    const name = 'conformance-export-angle-destinations';
    // Each asset its own bytes: copies of one blob are another case (conformance-export-asset-copies).
    const png = (n: number) => ({ base64: btoa(`image ${n}`) });
    const { token, space, head, byPath } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Struct](guide/struct.md)\n',
      'guide/struct.md': PAGE,
      '.gitbook/assets/shot.png': { base64: PNG_1x1 },
      '.gitbook/assets/image(77).png': png(1),
      '.gitbook/assets/chart (1).png': png(2),
      '.gitbook/assets/plain.png': png(3),
    });
    const page = byPath('guide/struct.md');
    const cr = await openChangeRequest(space.id, token, 'Struct');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, page.id, 'Intro text here.', 'Intro text here, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Struct` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tguide/struct.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:guide/struct.md')).toBe(PAGE.replace('Intro text here.', 'Intro text here, edited.'));
  });
});
