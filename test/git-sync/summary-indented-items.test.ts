import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, githubBody, gitOutput, runGitOperation } from '../helpers/git-sync';

/**
 * A SUMMARY.md whose items are all indented (its top level at 2 spaces, nested items at 4) keeps its author's lines
 * when the export writes it again: a page added in the app adds one line, at the top level's indent. The export took
 * the smallest indent (2) for one level, read every top-level line as nested, and wrote the whole summary again
 * (gitprobe17c: a real summary with its top level at 10 spaces, rewritten whole, 363 lines, when one page was added).
 */

const FILES = {
  'SUMMARY.md': '# Summary\n\n  * [Home](README.md)\n  * [Guide](guide.md)\n    * [Step](guide/step.md)\n  * [Last](last.md)\n',
  'README.md': '# Home\n\nHello.\n',
  'guide.md': '# Guide\n\nRead on.\n',
  'guide/step.md': '# Step\n\nOne step.\n',
  'last.md': '# Last\n\nThe end.\n',
};

async function tree(spaceId: string, token: string): Promise<string[]> {
  const lines: string[] = [];
  const walk = (pages: any[], depth: number) => pages.forEach((p) => (lines.push(`${'  '.repeat(depth)}${p.title}`), walk(p.pages ?? [], depth + 1)));
  walk(expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages, 0);
  return lines;
}

describe('Git Sync export: a summary indented as a whole', () => {
  it('keeps its lines; a new page is one line at its top level’s indent, read back in its place', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const name = 'summary-indented-items';
    await createRepository(name, { files: FILES });
    const space = await createSpace(org.id, token);
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    expect(await tree(space.id, token)).toEqual(['Home', 'Guide', '  Step', 'Last']);

    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const cr = await openChangeRequest(space.id, token, 'Add a page');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Upgrade', document: { markdown: '# Upgrade\n\nAgain.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Add a page` });
    const head1 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(name, 'diff', '--name-status', head0, head1)).trim().split('\n').sort()).toEqual(['A\tupgrade.md', 'M\tSUMMARY.md']);
    const diff = await gitOutput(name, 'diff', '--unified=0', head0, head1, '--', 'SUMMARY.md');
    expect(diff.split('\n').filter((line) => /^[-+][^-+]/.test(line))).toEqual(['+  * [Upgrade](upgrade.md)']);

    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    expect(await tree(fresh.id, token)).toEqual(['Home', 'Guide', '  Step', 'Last', 'Upgrade']);
  }, 180_000);
});
