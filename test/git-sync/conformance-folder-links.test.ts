import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (GitBook's own docs): a page edited in GitBook had its links to folder pages written as
 * `../guides/README.md` where the file (and GitBook's export) has `../guides/`, on lines the edit did not touch.
 * GitBook links a folder's page by its folder, and a content-ref's label is the folder's name; a file that wrote
 * `README.md` keeps it (conformance-folder-layout).
 */

const PAGE = [
  '# Start',
  '',
  'Read [the guides](../guides/) first, or [install](../guides/#install).',
  '',
  'Head to [guides](../guides/#install) to learn more.',
  '',
  '{% content-ref url="../guides/" %}',
  '[guides](../guides/)',
  '{% endcontent-ref %}',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Start](basics/start.md)\n* [Guides](guides/README.md)\n  * [Setup](guides/setup.md)\n',
  'basics/start.md': PAGE,
  'guides/README.md': '# Guides\n\n## Install\n\nSteps.\n',
  'guides/setup.md': '# Setup\n\nMore.\n',
};

describe('links to a folder page', () => {
  it('are written as the folder, as GitBook writes them, when their page is edited', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-folder-links', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-folder-links'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const start = pages.find((p: any) => p.git?.path === 'basics/start.md');
    const cr = await openChangeRequest(space.id, token, 'Note');
    const markdown = await pageMarkdown(space.id, start.id, token, cr.number);
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: start.id, document: { markdown: `${markdown.replace(/\n+$/, '')}\n\nA note.\n` } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-folder-links'), commitMessage: `GITBOOK-${cr.number}: Note`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-folder-links', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tbasics/start.md');
    expect(await gitOutput('conformance-folder-links', 'show', 'refs/heads/main:basics/start.md')).toBe(`${PAGE}\nA note.\n`);
  });
});
