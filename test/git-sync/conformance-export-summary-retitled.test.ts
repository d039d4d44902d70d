import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * GitBook's SUMMARY.md item says its page's title (GitbookIO/git-sync-normalization, GitBook's own output: every item says
 * its file's heading 1). A page with a heading 1 retitled in the app had its heading rewritten but its item kept the old
 * title: the summary was written again only when the tree changed. And a page whose item the author titled otherwise
 * (`* [Getting started](start.md)` over `# Start`) lost that text when only its front matter changed and the summary was
 * written again for another page.
 */

const SUMMARY = ['# Table of contents', '', '* [Home](README.md)', '* [Setup](setup.md)', '* [Getting set up](other.md)', '* [Getting started](start.md)', ''].join('\n');
const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': SUMMARY,
  'setup.md': '# Setup\n\nText.\n',
  'other.md': '# Other\n\nText.\n',
  'start.md': '# Start\n\nText.\n',
};

async function exportChanges(name: string, spaceId: string, token: string, changes: unknown[]) {
  const cr = await openChangeRequest(spaceId, token, 'Edit');
  await applyChanges(spaceId, cr.number, token, changes);
  expectStatus(await merge(spaceId, cr.number, token), 200);
  await runGitOperation(spaceId, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() });
}

describe("SUMMARY.md's item titles", () => {
  it("follow a page's title when it is retitled in the app, and keep the author's text when only front matter changed", async () => {
    const name = 'conformance-export-summary-retitled';
    const { token, space, head, byPath } = await importedSpace(name, FILES);
    const show = (path: string) => gitOutput(name, 'show', `refs/heads/main:${path}`);
    await exportChanges(name, space.id, token, [
      { operation: 'update_page', page: byPath('setup.md').id, title: 'Installation' },
      { operation: 'update_page', page: byPath('other.md').id, title: 'Another page' },
    ]);
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['M\tSUMMARY.md', 'M\tother.md', 'M\tsetup.md']);
    expect(await show('setup.md')).toBe('# Installation\n\nText.\n');
    const retitled = SUMMARY.replace('[Setup]', '[Installation]').replace('[Getting set up]', '[Another page]');
    expect(await show('SUMMARY.md')).toBe(retitled);

    // A description for start.md and a new page (the summary written again): start.md's item keeps the author's text.
    await exportChanges(name, space.id, token, [
      { operation: 'update_page', page: byPath('start.md').id, description: 'How to start.' },
      { operation: 'insert_page', title: 'New', document: { markdown: '# New\n\nMade in the app.\n' } },
    ]);
    expect(await show('start.md')).toBe('---\ndescription: How to start.\n---\n\n# Start\n\nText.\n');
    expect(await show('SUMMARY.md')).toBe(`${retitled}* [New](new.md)\n`);
  }, 240_000);
});
