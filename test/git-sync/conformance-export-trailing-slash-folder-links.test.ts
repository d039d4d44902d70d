import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * A link to a folder's page written with its trailing slash (`[Kinds](kinds/)`, `guide/kinds/README.md` the page) in a
 * page of a folder, in a table row and in a paragraph, the same page written `kinds/README.md` by another link: the export of an edit elsewhere in the page wrote it
 * `kinds/README.md` on the table's row nobody edited (gitprobe15a, a GITBOOK-exported repository's table of fields).
 */

const PAGE = [
  '# Structure',
  '',
  'Intro text here.',
  '',
  'Start with [the kinds](kinds/README.md).',
  '',
  '| Field  | Meaning                                        |',
  '| ------ | ---------------------------------------------- |',
  '| `kind` | The kind. See the [kinds page](kinds/) for more. |',
  '| `id`   | The id.                                        |',
  '',
  'Also see the [kinds page](kinds/).',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Structure](guide/structure.md)\n* [Kinds](guide/kinds/README.md)\n  * [One](guide/kinds/one.md)\n',
  'guide/structure.md': PAGE,
  'guide/kinds/README.md': '# Kinds\n\nAll kinds.\n',
  'guide/kinds/one.md': '# One\n\nThe first kind.\n',
};

describe('a link to a folder with its trailing slash', () => {
  it('keeps its spelling on the untouched lines of an edited page, in a table row too', async () => {
    const name = 'conformance-export-trailing-slash-folder';
    const { token, space, head, byPath } = await importedSpace(name, FILES);
    const structure = byPath('guide/structure.md');
    const cr = await openChangeRequest(space.id, token, 'Intro');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, structure.id, 'Intro text here.', 'Intro text here, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Intro`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tguide/structure.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:guide/structure.md')).toBe(PAGE.replace('Intro text here.', 'Intro text here, edited.'));
  });
});
