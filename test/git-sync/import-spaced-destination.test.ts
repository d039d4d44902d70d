import { describe, expect, it } from 'vitest';
import { rewriteLinks } from '../../src/services/git-sync/layout';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, githubBody, gitOutput, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * `[Guide](guide/README.md#- how to help)`: a destination with a space, not in angle brackets, is no link in
 * CommonMark (nor for GitBook, nor GitHub): the text stays as written. The import read `](guide/README.md#-` as a link
 * anyway and rewrote its path to its batch ref for the new page, which nothing resolved: the page's text said
 * `(_gp2#- how to help)`, and the next export wrote that into the repository (found by gitprobe11a on a real
 * repository with anchors written as headings' text).
 */

const README = [
  '# Home',
  '',
  'Read the [guide](guide/README.md) first.',
  '',
  '> To help, see [the guide](guide/README.md#- how to help) again.',
  '',
  'Last paragraph here.',
  '',
].join('\n');

const FILES = {
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide/README.md)\n',
  'README.md': README,
  'guide/README.md': '# Guide\n\nHow to help.\n',
};

describe('Git Sync import: a destination with a space is no link', () => {
  it('leaves it as written, and rewrites the links around it', () => {
    const refs = (path: string) => (path === 'guide/README.md' ? '_gp1' : null);
    expect(rewriteLinks(README, 'README.md', refs)).toBe(README.replace('[guide](guide/README.md)', '[guide](_gp1)'));
    expect(rewriteLinks('[a](guide/README.md "Title") and [b](guide/README.md#x)', 'README.md', refs)).toBe('[a](_gp1 "Title") and [b](_gp1#x)');
  });

  it('imports the text as written, and an export of an edit elsewhere changes only the edited line', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'import-spaced-destination';
    await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const home = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages.find((p: any) => p.git?.path === 'README.md');
    const markdown = await pageMarkdown(space.id, home.id, token);
    expect(markdown).not.toContain('_gp');
    expect(markdown).toContain('guide/README.md#- how to help');

    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, home.id, 'Last paragraph here.', 'Last paragraph, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit` });
    const head1 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const diff = await gitOutput(name, 'diff', '--unified=0', head0, head1);
    expect(diff.split('\n').filter((line) => /^[-+][^-+]/.test(line))).toEqual(['-Last paragraph here.', '+Last paragraph, edited.']);
  }, 180_000);
});
