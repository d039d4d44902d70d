import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';
import { expectFreshImportAgrees } from '../helpers/git-sync-agreement';

/**
 * Found probing the first page's rename (task fidelity20): a page whose file has no heading 1 (the README, or any page)
 * has its title in its SUMMARY.md item only. Renamed in the app, the export compared the summary's tree alone, wrote no
 * commit, and the next push titled the page by its old item again. The item says the new title now; the file is unchanged.
 */

const FILES = {
  'README.md': 'Welcome, without a heading.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Bare page](bare.md)\n* [Guide](guide.md)\n',
  'bare.md': 'A page whose title is in the summary only.\n',
  'guide.md': '# Guide\n\nText.\n',
};

describe('a page titled by its summary item, renamed in the app', () => {
  it('has its item renamed by the export, and keeps the title through the next push', async () => {
    const name = `item-title-${Date.now().toString(36)}`;
    const { org, token, space, head, byPath } = await importedSpace(name, FILES);
    const cr = (await openChangeRequest(space.id, token, 'Rename')).number;
    await applyChanges(space.id, cr, token, [
      { operation: 'update_page', page: byPath('README.md').id, title: 'Welcome aboard' },
      { operation: 'update_page', page: byPath('bare.md').id, title: 'Bare page, renamed' },
    ]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: Rename`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).trim()).toBe('SUMMARY.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md')).toBe('# Table of contents\n\n* [Welcome aboard](README.md)\n* [Bare page, renamed](bare.md)\n* [Guide](guide.md)\n');
    await expectFreshImportAgrees(org.id, token, space.id, name);

    // A push of another file keeps the titles.
    await control('commit', { name, message: 'Edit guide', files: { 'guide.md': '# Guide\n\nText, edited.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date().toISOString() });
    const title = async (id: string) => expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${id}`, { token }), 200).body.title;
    expect(await title(byPath('README.md').id)).toBe('Welcome aboard');
    expect(await title(byPath('bare.md').id)).toBe('Bare page, renamed');
  }, 120_000);
});
