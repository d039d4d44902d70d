import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * A footnote's definition (`[^1]: Some words`) is no link reference definition: its text is no destination. A page
 * moved to another folder had its first word rebased as a relative link (`[^1]: ../guides/Some words`), the
 * footnote's text changed in the file and in every space importing it (gitprobe18b, layer-3/docs-gitbook: a page
 * moved into another group).
 */
describe('Git Sync export: a moved page holding a footnote', () => {
  it("keeps the footnote's definition as written; a link reference definition still leads to its page", { timeout: 120_000 }, async () => {
    const name = 'conformance-export-moved-footnote';
    const start = '# Start\n\nSend it to your account.[^1] See [the home][home].\n\n[home]: ../README.md\n\n[^1]: Trading account address\n';
    const { token, space, head } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n\n## Guides\n\n* [Start](guides/start.md)\n\n## Trading\n\n* [Orders](trading/orders.md)\n',
      'guides/start.md': start,
      'trading/orders.md': '# Orders\n\nPlace them.\n',
    });
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const page = pages.flatMap((p) => p.pages ?? []).find((p) => p.git?.path === 'guides/start.md');
    const trading = pages.find((p) => p.type === 'group' && p.title === 'Trading');
    const cr = await openChangeRequest(space.id, token, 'Move');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: page.id, into: trading.id }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Move` });
    const changed = (await gitOutput(name, 'diff', '--no-renames', '--name-status', head, 'refs/heads/main')).trim().split('\n').sort();
    expect(changed).toEqual(['A\ttrading/start.md', 'D\tguides/start.md', 'M\tSUMMARY.md']);
    expect(await gitOutput(name, 'show', 'refs/heads/main:trading/start.md')).toBe(start);
  });
});
