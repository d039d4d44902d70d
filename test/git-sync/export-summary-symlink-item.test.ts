import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found by a probe (gitprobe17b: a symbolic link committed in a real repository, its summary listing it): the import
 * reads no page from a symbolic link (its blob is the path it points at), so the item is a page without a file, as an
 * item naming no file is. The export read the summary against every path of the tree, the link's too: the tree it read
 * was not the space's, and an edit of another page wrote SUMMARY.md again (a blank line added under its title).
 */
describe('export of a repository whose summary lists a symbolic link', () => {
  it('leaves SUMMARY.md and the link as they are while it exports an edit of another page', async () => {
    const name = 'export-summary-symlink-item';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const summary = '# Table of contents\n\n## Introduction\n\n* [Home](README.md)\n* [Other](intro/other.md)\n\n## Modules\n\n* [Core](modules/core.md)\n* [Linked](linked.md)\n';
    const { head } = await createRepository(name, {
      files: { 'README.md': '# Home\n\nFirst words.\n', 'intro/other.md': '# Other\n\nMore.\n', 'modules/core.md': '# Core\n\nCore words.\n', 'linked.md': { symlink: 'README.md' }, 'SUMMARY.md': summary },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const flat = (ps: any[]): any[] => ps.flatMap((p) => [p, ...flat(p.pages ?? [])]);
    const pages = flat(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages);
    expect(pages.map((p) => [p.type, p.title, p.git?.path ?? null])).toEqual([
      ['group', 'Introduction', null],
      ['document', 'Home', 'README.md'],
      ['document', 'Other', 'intro/other.md'],
      ['group', 'Modules', null],
      ['document', 'Core', 'modules/core.md'],
      ['document', 'Linked', null],
    ]);

    const cr = await openChangeRequest(space.id, token, 'Words');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages[1].id, document: { markdown: '# Home\n\nEdited words.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Words` });

    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tREADME.md');
    expect(await gitOutput(name, 'ls-tree', 'refs/heads/main', 'linked.md')).toMatch(/^120000 blob /);
  }, 120_000);
});
