import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * Found probing a real repository (probe21, BrighterCommand/Docs at d0aa839): its SUMMARY.md makes its groups with
 * `###` headings under `##` ones (`## 9`, `### Overview`, ..., `## 10`, `### Overview`, ...). The import reads each
 * heading as a group; an export that wrote the summary again (a page added in the app) kept none of the author's
 * headings: every `### X` became `## X`, and the second `Overview` `## Overview <a href="#overview-1" ...>`: 30 changed
 * lines for one added page. A heading of any level from 2 that still says its group is kept as written.
 */
const SUMMARY = [
  '# Summary',
  '',
  '* [Home](README.md)',
  '',
  '## 9',
  '',
  '### Overview',
  '',
  '* [Basics](9/basics.md)',
  '',
  '## 10',
  '',
  '### Overview',
  '',
  '* [Basics](10/basics.md)',
  '',
].join('\n');

describe('an export that writes again a summary of level-3 group headings', () => {
  it("keeps the author's headings, repeated titles included", async () => {
    const name = `summary-level-three-${Date.now().toString(36)}`;
    const { token, space, head } = await importedSpace(name, {
      'README.md': '# Home\n\nHello.\n',
      'SUMMARY.md': SUMMARY,
      '9/basics.md': '# Basics\n\nNine.\n',
      '10/basics.md': '# Basics\n\nTen.\n',
    });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p: any) => [p.type, p.title])).toEqual([
      ['document', 'Home'],
      ['group', '9'],
      ['group', 'Overview'],
      ['group', '10'],
      ['group', 'Overview'],
    ]);
    const cr = (await openChangeRequest(space.id, token, 'New page')).number;
    await applyChanges(space.id, cr, token, [{ operation: 'insert_page', title: 'New page', document: { markdown: '# New page\n\nWritten in the app.\n' } }]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: New page`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['SUMMARY.md', 'new-page.md']);
    expect(await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md')).toBe(`${SUMMARY}\n***\n\n* [New page](new-page.md)\n`);
  }, 240_000);
});
