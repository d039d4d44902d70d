import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories: a file without a heading 1 (its title only in SUMMARY.md) got `# <title>` at its top
 * on its first edit in GitBook. Whether a file began with one is recorded per file at import (git_sync_entries) and
 * the export writes the page back without it where the file had none, with or without front matter; a file that
 * had one keeps it.
 */

const BARE = ['Text of a page whose title is in the summary only.', '', '- one', '- two', ''].join('\n');
const FRONT = ['---', 'description: A page with front matter and no heading', '---', '', 'Its body.', ''].join('\n');
const SETEXT = ['Setext title', '============', '', 'Body under a setext heading.', ''].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Bare page](bare.md)\n* [Front page](front.md)\n* [Setext title](setext.md)\n',
  'bare.md': BARE,
  'front.md': FRONT,
  'setext.md': SETEXT,
};

const NOTE = 'A note added in GitBook.';
const withNote = (markdown: string) => `${markdown.replace(/\n+$/, '')}\n\n${NOTE}\n`;

describe('a file without a heading 1 gets none when its page is edited in GitBook', () => {
  it('writes the edited pages back with their own head, titled or not', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-title-heading', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-title-heading'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const byPath = (path: string) => pages.find((p: any) => p.git?.path === path);
    expect(byPath('bare.md').title).toBe('Bare page');

    const changes = [];
    for (const path of ['README.md', 'bare.md', 'front.md', 'setext.md']) {
      const page = byPath(path);
      changes.push({ operation: 'update_page', page: page.id, document: { markdown: withNote(await pageMarkdown(space.id, page.id, token)) } });
    }
    const cr = await openChangeRequest(space.id, token, 'Add notes');
    await applyChanges(space.id, cr.number, token, changes);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-title-heading'), commitMessage: `GITBOOK-${cr.number}: Add notes`, timestamp: new Date().toISOString() });

    const show = (path: string) => gitOutput('conformance-title-heading', 'show', `refs/heads/main:${path}`);
    expect((await gitOutput('conformance-title-heading', 'diff', '--name-status', created.head, 'refs/heads/main')).trim().split('\n')).toEqual(['M\tREADME.md', 'M\tbare.md', 'M\tfront.md', 'M\tsetext.md']);
    expect(await show('bare.md')).toBe(`${BARE}\n${NOTE}\n`);
    expect(await show('front.md')).toBe(`${FRONT}\n${NOTE}\n`);
    expect(await show('setext.md')).toBe(`${SETEXT}\n${NOTE}\n`);
    expect(await show('README.md')).toBe(`# Home\n\nWelcome.\n\n${NOTE}\n`);

    // A second edit of the title-less page after that export: still none (the export recorded it again).
    const next = await openChangeRequest(space.id, token, 'Again');
    const bare = byPath('bare.md');
    await applyChanges(space.id, next.number, token, [{ operation: 'update_page', page: bare.id, document: { markdown: `${(await pageMarkdown(space.id, bare.id, token)).replace(/\n+$/, '')}\n\nSecond.\n` } }]);
    expectStatus(await merge(space.id, next.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-title-heading'), commitMessage: `GITBOOK-${next.number}: Again`, timestamp: new Date().toISOString() });
    expect(await show('bare.md')).toBe(`${BARE}\n${NOTE}\n\nSecond.\n`);
  });
});
