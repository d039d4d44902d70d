import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found by a probe (gitprobe18c: a real repository's summary lists itself, `* [目录](SUMMARY.md)`): the item was imported
 * as a page whose file is the summary, which the export writes from the space's tree. An edit of that page made in the
 * app was dropped by the next export that wrote the summary (a page added beside it), the operation a success. The item
 * is no page, with a warning, its line kept, as an item naming a file listed before.
 */
describe('a summary whose item names the summary itself', () => {
  it('imports no page for it and keeps its line when the export writes the summary again', async () => {
    const name = 'summary-lists-itself';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const summary = '# Table of contents\n\n* [Home](README.md)\n* [Contents](SUMMARY.md)\n* [Guide](guide.md)\n';
    const { head } = await createRepository(name, { files: { 'SUMMARY.md': summary, 'README.md': '# Home\n\nHello.\n', 'guide.md': '# Guide\n\nSteps.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p: any) => [p.title, p.git?.path])).toEqual([
      ['Home', 'README.md'],
      ['Guide', 'guide.md'],
    ]);
    expect((await gitInfo(space.id, token)).body.operation.error).toContain('SUMMARY.md: the item "* [Contents](SUMMARY.md)" is no page (it is the summary itself); its line is kept');

    const cr = await openChangeRequest(space.id, token, 'Added');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Added', document: { markdown: '# Added\n\nNew page.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Added` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['A\tadded.md', 'M\tSUMMARY.md']);
    expect(await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md')).toBe(`${summary}* [Added](added.md)\n`);
  }, 180_000);
});
