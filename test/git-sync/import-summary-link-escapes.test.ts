import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found by a probe (gitprobe18c: a GitBook-exported summary whose link items' URLs hold `\_`, as GitBook writes them):
 * a summary item's URL is a CommonMark link destination, its backslash escapes undone as for a file's. The link page
 * kept the backslash (`…/abc\_def/edit`), which a browser reads as a `/`: a broken link. Read so, the author's line
 * still says what the space says, so an export of another page's edit leaves SUMMARY.md as it is.
 */
describe('a summary link item whose URL holds backslash escapes', () => {
  it('is a link page to the URL without them, and its line is kept by an export', async () => {
    const name = 'import-summary-link-escapes';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const summary = [
      '# Table of contents',
      '',
      '* [Home](README.md)',
      '  * [Sheet](https://docs.example.com/d/abc\\_def/edit#gid=4)',
      '  * [Tilde](<https://example.com/\\~user/a\\_b>)',
      '* [Guide](guide.md)',
      '',
    ].join('\n');
    const { head } = await createRepository(name, { files: { 'SUMMARY.md': summary, 'README.md': '# Home\n\nFirst words.\n', 'guide.md': '# Guide\n\nSteps.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const flat = (ps: any[]): any[] => ps.flatMap((p) => [p, ...flat(p.pages ?? [])]);
    const pages = flat(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages);
    expect(pages.map((p) => [p.type, p.title, p.target?.url ?? p.git?.path])).toEqual([
      ['document', 'Home', 'README.md'],
      ['link', 'Sheet', 'https://docs.example.com/d/abc_def/edit#gid=4'],
      ['link', 'Tilde', 'https://example.com/~user/a_b'],
      ['document', 'Guide', 'guide.md'],
    ]);

    const cr = await openChangeRequest(space.id, token, 'Words');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages[3].id, document: { markdown: '# Guide\n\nEdited steps.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Words` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tguide.md');

    // The push of that commit imported again: nothing changes, the link pages keep their ids.
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date().toISOString() });
    const again = flat(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages);
    expect(again.map((p) => p.id)).toEqual(pages.map((p) => p.id));
  }, 180_000);
});
