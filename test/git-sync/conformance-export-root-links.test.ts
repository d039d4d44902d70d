import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * Two spellings of a link an export wrote differently on the untouched lines of an edited page, each found on a real
 * repository by gitprobe11b/11c: a root-absolute path (`/start/quick.md`, hand-written: phantasma's docs, 40 of 60
 * edited files changed 2-5 lines) was written relative (`../start/quick.md`), and an anchor GitBook escaped
 * (`#\_abc12def`, GitBook-exported ssvlabs docs) was written bare. The import reads both as the same page and anchor.
 */

const INTRO = [
  '# Intro',
  '',
  'Intro text here.',
  '',
  '- [Quick start](/start/quick.md) gets you going.',
  '- [SDKs](/start/sdks/) list them all.',
  '',
  'See [the step](../start/setup.md#\\_abc12def) for more.',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Intro](guide/intro.md)\n* [Quick start](start/quick.md)\n* [Setup](start/setup.md)\n* [SDKs](start/sdks/README.md)\n',
  'guide/intro.md': INTRO,
  'start/quick.md': '# Quick start\n\nGo.\n',
  'start/setup.md': '# Setup\n\n## Step <a href="#_abc12def" id="_abc12def"></a>\n\nDo it.\n',
  'start/sdks/README.md': '# SDKs\n\nAll of them.\n',
};

describe('link spellings an export keeps', () => {
  it('keeps root-absolute links and escaped anchors on the untouched lines of an edited page', async () => {
    const name = 'conformance-export-root-links';
    const { token, space, head, byPath } = await importedSpace(name, FILES);
    const intro = byPath('guide/intro.md');
    // The import read each link as a page of the space (not a URL), so the export writes them from the page's place.
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${intro.id}`, { token }), 200).body;
    expect(JSON.stringify(read.document).match(/"kind":"(page|anchor)"/g)).toHaveLength(3);
    const cr = await openChangeRequest(space.id, token, 'Intro');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, intro.id, 'Intro text here.', 'Intro text here, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Intro`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tguide/intro.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:guide/intro.md')).toBe(INTRO.replace('Intro text here.', 'Intro text here, edited.'));
  });
});
