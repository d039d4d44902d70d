import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, PNG_1x1 } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (hand-written, its lists of links spelled `[x](./folder/page.md)`): a page edited in GitBook
 * had every such link of its untouched lines written `folder/page.md`, so the commit changed lines nobody edited. The
 * import reads both spellings as the page; the export now writes a link as the file it replaces spelled it (`./`).
 */

const HOME = [
  '# Home',
  '',
  '- [Guide](./guide.md)',
  '- [Setup step](./setup/install.md#step-2)',
  '- [Folder](./setup/README.md)',
  '',
  '![Diagram](./images/diagram.png)',
  '',
  'Closing paragraph.',
  '',
].join('\n');

const FILES = {
  'README.md': HOME,
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Setup](setup/README.md)\n  * [Install](setup/install.md)\n',
  'guide.md': '# Guide\n\nSee [home](./README.md).\n',
  'setup/README.md': '# Setup\n',
  'setup/install.md': '# Install\n\n## Step 2\n\nText.\n',
  'images/diagram.png': { base64: PNG_1x1 },
};

describe('links spelled with ./', () => {
  it('keep their ./ in the lines of an edited page that nobody edited', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-export-dot-links', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-export-dot-links'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const home = pages.find((p: any) => p.git?.path === 'README.md');
    const cr = await openChangeRequest(space.id, token, 'Note');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: home.id, document: { markdown: HOME.replace('Closing paragraph.', 'Closing paragraph, edited.') } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-export-dot-links'), commitMessage: `GITBOOK-${cr.number}: Note`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-export-dot-links', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tREADME.md');
    expect(await gitOutput('conformance-export-dot-links', 'show', 'refs/heads/main:README.md')).toBe(HOME.replace('Closing paragraph.', 'Closing paragraph, edited.'));
  });
});
