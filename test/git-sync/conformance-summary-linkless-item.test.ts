import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageTree } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * A SUMMARY.md item without a link, with linked items nested under it (`* Section`, then `    * [B](section/b.md)`):
 * its items were nested under the page before it. GitBook makes it an empty page of that title holding them: in
 * 00labs/huma-monorepo, `* Developer Guidlines` over four linked items was imported so, and GitBook's next commit
 * (`GitBook: [#45]`) wrote it back as `* [Developer Guidlines](developer-guidlines/README.md)` with the four items
 * under it and a new `developer-guidlines/README.md` holding only `# Developer Guidlines`. Here the page has no file
 * while it has no content, so the author's line stays as written.
 */

const SUMMARY = ['# Table of contents', '', '* [Home](README.md)', '* [A](a.md)', '* Section', '    * [B](section/b.md)', '    * [C](section/c.md)', '* [D](d.md)', ''].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': SUMMARY,
  'a.md': '# A\n\nFirst.\n',
  'section/b.md': '# B\n\nSecond.\n',
  'section/c.md': '# C\n\nThird.\n',
  'd.md': '# D\n\nFourth.\n',
};

describe('a SUMMARY.md item without a link, with items under it', () => {
  it('is an empty page holding its items, written back as its author wrote it', async () => {
    const name = 'conformance-summary-linkless';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    expect(await pageTree(space.id, token)).toEqual(['home: Home', 'a: A', 'section: Section', 'section/b: B', 'section/c: C', 'd: D']);
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const section = pages.find((p: any) => p.title === 'Section');
    expect(section.type).toBe('document');
    expect(section.git).toBeUndefined();

    // Nothing changed: no commit.
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'GITBOOK-0: nothing', timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim()).toBe(created.head);

    // A page added after it: the summary is written again, the item still without a link, its items under it.
    const cr = await openChangeRequest(space.id, token, 'E');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'E', document: { markdown: '# E\n\nFifth.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: E`, timestamp: new Date().toISOString() });
    const summary = await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md');
    expect(summary).toMatch(/^\* \[A\]\(a\.md\)\n\* Section\n {2,4}\* \[B\]\(section\/b\.md\)\n {2,4}\* \[C\]\(section\/c\.md\)\n\* \[D\]\(d\.md\)\n\* \[E\]\(e\.md\)\n$/m);
    expect((await gitOutput(name, 'diff', '--name-status', created.head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['A\te.md', 'M\tSUMMARY.md']);

    // Imported back: the same pages, the same ids.
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    expect(await pageTree(space.id, token)).toEqual(['home: Home', 'a: A', 'section: Section', 'section/b: B', 'section/c: C', 'd: D', 'e: E']);
    const again = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(again.find((p: any) => p.title === 'Section').id).toBe(section.id);
  });
});
