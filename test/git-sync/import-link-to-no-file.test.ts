import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { githubBody, gitOutput, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * A page's relative link to no file of the repository (`../#execute` into a folder without a README, `gone.md`) stays
 * the URL it is written as. Resolved by slug path, it led to another page (the grandparent), and the page's first edit
 * exported the line as `../../../#execute` (found in Mintbase's SDK reference by gitprobe15b). A link to a file of
 * the repository still leads to its page, and a page with no such link at all is read by the same rule.
 */

const NESTED = '# C\n\nSee [execute](../#execute) and [gone](gone.md) or [home](../../README.md#top).\n\nEdit me.\n';
const LONE = '# Lone\n\nOnly [here](./) and [up](../).\n\nEdit me too.\n';
const FILES = {
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [A](a/README.md)\n  * [C](a/b/c/README.md)\n  * [Lone](a/b/lone.md)\n',
  'README.md': '# Home\n\nWelcome.\n',
  'a/README.md': '# A\n\nThe A page.\n',
  'a/b/c/README.md': NESTED,
  'a/b/lone.md': LONE,
};

describe('Git Sync import: a relative link to no file of the repository', () => {
  it('stays a URL, read back and exported as written; a link to a file leads to its page', async () => {
    const name = 'import-link-to-no-file';
    const { token, space, byPath } = await importedSpace(name, FILES);
    const all: any[] = [];
    const visit = (list: any[]) => list.forEach((page) => (all.push(page), visit(page.pages ?? [])));
    visit(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages);
    const at = (path: string) => byPath(path) ?? all.find((page) => page.git?.path === path);
    const [, a, c, lone] = ['README.md', 'a/README.md', 'a/b/c/README.md', 'a/b/lone.md'].map(at);

    const refsOf = async (pageId: string) => {
      const document = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body.document;
      const refs: any[] = [];
      const walk = (node: any) => {
        if (node?.data?.ref) refs.push(node.data.ref);
        for (const key of ['nodes', 'fragments']) for (const child of node?.[key] ?? []) walk(child);
      };
      walk(document);
      return refs;
    };
    expect(await refsOf(c.id)).toEqual([
      { kind: 'url', url: '../#execute' },
      { kind: 'url', url: 'gone.md' },
      { kind: 'anchor', anchor: 'top', page: a.id },
    ]);
    expect(await refsOf(lone.id)).toEqual([{ kind: 'url', url: './' }, { kind: 'page', page: a.id }]);

    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, c.id, 'Edit me.', 'Edited.')]);
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, lone.id, 'Edit me too.', 'Edited too.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit` });
    const head1 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const diff = await gitOutput(name, 'diff', '--unified=0', head0, head1);
    expect(diff.split('\n').filter((line) => /^[-+][^-+]/.test(line))).toEqual(['-Edit me.', '+Edited.', '-Edit me too.', '+Edited too.']);
  }, 240_000);
});
