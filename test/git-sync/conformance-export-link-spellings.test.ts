import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest, PNG_1x1 } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real GitBook-exported repository (Cyrillic, its README a list of links to its pages): one paragraph of the
 * README edited in GitBook, and the commit also rewrote three lines nobody edited. GitBook's own exports escape `_` in a
 * link's destination (`[Deploy](down\_time/)`) and link a folder's own page as `./`; the export wrote them `down_time/`
 * and `README.md`. Airstack's GitBook-exported pages link with one `../` too many (`../../web-sdk/overview.md` from
 * `quickstart/node.md`; `<img src="../.gitbook/assets/...">` from the root), which the import reads stopped at the root:
 * the export wrote them with the right count. The export now writes a link as the file it replaces spelled it.
 */

const NAME = 'conformance-export-link-spellings';
const HOME = [
  '# Home',
  '',
  '* [Home](./)',
  '* [Down time](down\\_time/)',
  '  * [Scheme](down\\_time/scheme\\_one.md#step-2)',
  '',
  '![Shot](.gitbook/assets/shot\\_one.png)',
  '',
  'First paragraph.',
  '',
].join('\n');

const FILES = {
  'README.md': HOME,
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Down time](down\\_time/README.md)\n  * [Scheme](down\\_time/scheme\\_one.md)\n* [Setup](guides/setup.md)\n',
  'down_time/README.md': '# Down time\n\nSee [the scheme](./scheme\\_one.md) and [home](../).\n\nLast line.\n',
  'down_time/scheme_one.md': '# Scheme\n\n## Step 2\n\nText.\n',
  'guides/setup.md': '# Setup\n\nSee [the scheme](../../down\\_time/scheme\\_one.md).\n\n<figure><img src="../../.gitbook/assets/shot_one.png" alt=""><figcaption></figcaption></figure>\n\nLast step.\n',
  '.gitbook/assets/shot_one.png': { base64: PNG_1x1 },
};

describe('links spelled as GitBook writes them', () => {
  it('keep their spelling (escaped underscores, ./ for the own folder) in the untouched lines of edited pages', async () => {
    const { token, space, head, byPath } = await importedSpace(NAME, FILES);
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const downTime = pages.find((p: any) => p.git?.path === 'down_time/README.md');
    const cr = await openChangeRequest(space.id, token, 'Edits');
    await applyChanges(space.id, cr.number, token, [
      await leafEdit(space.id, token, cr.number, byPath('README.md').id, 'First paragraph.', 'First paragraph, edited.'),
      await leafEdit(space.id, token, cr.number, downTime.id, 'Last line.', 'Last line, edited.'),
      await leafEdit(space.id, token, cr.number, byPath('guides/setup.md').id, 'Last step.', 'Last step, edited.'),
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(NAME), commitMessage: `GITBOOK-${cr.number}: Edits`, timestamp: new Date().toISOString() });

    expect((await gitOutput(NAME, 'diff', '--name-status', head, 'refs/heads/main')).trim().split('\n')).toEqual(['M\tREADME.md', 'M\tdown_time/README.md', 'M\tguides/setup.md']);
    expect(await gitOutput(NAME, 'show', 'refs/heads/main:README.md')).toBe(HOME.replace('First paragraph.', 'First paragraph, edited.'));
    expect(await gitOutput(NAME, 'show', 'refs/heads/main:down_time/README.md')).toBe(FILES['down_time/README.md'].replace('Last line.', 'Last line, edited.'));
    expect(await gitOutput(NAME, 'show', 'refs/heads/main:guides/setup.md')).toBe(FILES['guides/setup.md'].replace('Last step.', 'Last step, edited.'));
  });
});
