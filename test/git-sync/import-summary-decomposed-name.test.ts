import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found by a probe (gitprobe17b: a page committed under a decomposed name in real repositories, their summary typing it
 * composed): git names a file by its bytes, and macOS writes `é` as `e` + U+0301 where a summary typed by hand or by
 * GitBook has the composed U+00E9. The summary's item named no file: the page was imported empty with a warning, its
 * file's text in no page. An item finds its file in either spelling, as it does in other case; the export leaves both
 * the file's name and the summary as they are.
 */
const DECOMPOSED = 'cafe\u0301/cre\u0300me.md';
describe('a summary item naming a file in the other Unicode spelling', () => {
  it('is that file\'s page, and an export keeps both spellings', async () => {
    const name = 'import-summary-decomposed-name';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const summary = '# Table of contents\n\n* [Home](README.md)\n* [Crème](caf\u00e9/cr\u00e8me.md)\n';
    const { head } = await createRepository(name, { files: { 'README.md': '# Home\n\nFirst words.\n', [DECOMPOSED]: '# Crème\n\nWritten on a Mac.\n', 'SUMMARY.md': summary } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p) => [p.title, p.git?.path])).toEqual([
      ['Home', 'README.md'],
      ['Crème', DECOMPOSED],
    ]);
    const md = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pages[1].id}?format=markdown`, { token }), 200).body.markdown;
    expect(md).toContain('Written on a Mac.');

    const cr = await openChangeRequest(space.id, token, 'Words');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages[0].id, document: { markdown: '# Home\n\nEdited words.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Words` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tREADME.md');
  }, 120_000);
});
