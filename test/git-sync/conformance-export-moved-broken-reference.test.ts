import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * GitBook writes a link whose target is gone as `broken-reference`, bare at every depth (`](broken-reference)` in
 * files of subfolders as of the root: 494 such links in the GitBook-exported repositories of /work/probe, no
 * `../broken-reference`). It is no path: a page moved to another folder keeps it as it is. The export rebased it
 * as a relative link (`](../broken-reference)`), which a fresh import then read as a link to a path
 * (gitprobe18b, monicahq/docs-gitbook: a page holding one moved into a group's folder).
 */
describe('Git Sync export: a moved page holding a broken-reference link', () => {
  it('keeps `broken-reference` as GitBook writes it; its other relative links are rebased', { timeout: 120_000 }, async () => {
    const name = 'conformance-export-moved-broken-reference';
    const { token, space, head, byPath } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Setup](setup.md)\n\n## Guides\n\n* [Usage](guides/usage.md)\n',
      'setup.md': '# Setup\n\nSee [the old page](broken-reference), [its mention](broken-reference "mention") and [home](README.md).\n',
      'guides/usage.md': '# Usage\n\nUse it.\n',
    });
    const setup = byPath('setup.md');
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const guides = pages.find((page) => page.type === 'group');
    const cr = await openChangeRequest(space.id, token, 'Move');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: setup.id, into: guides.id }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Move` });
    const changed = (await gitOutput(name, 'diff', '--no-renames', '--name-status', head, 'refs/heads/main')).trim().split('\n').sort();
    expect(changed).toEqual(['A\tguides/setup.md', 'D\tsetup.md', 'M\tSUMMARY.md']);
    const moved = 'guides/setup.md';
    expect(await gitOutput(name, 'show', `refs/heads/main:${moved}`)).toBe(
      '# Setup\n\nSee [the old page](broken-reference), [its mention](broken-reference "mention") and [home](../README.md).\n',
    );
  });
});
