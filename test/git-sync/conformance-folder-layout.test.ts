import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (a documentation laid out by its folders, without SUMMARY.md):
 * - an export with nothing changed made a commit adding a SUMMARY.md to a repository without one.
 */

const FILES = {
  'README.md': '# Intro\n\nWelcome.\n',
  'guides/README.md': '# Guides\n\nSee [setup](setup.md).\n',
  'guides/setup.md': '# Setup\n\n- one\n- two\n',
  'reference/api.md': '# API\n\nRead [the guides](../guides/README.md) first.\n',
};

const NOTE = 'A note added in GitBook.';


describe('a repository laid out by its folders', () => {
  it('gets no summary from an export with nothing changed, and an edit changes only the edited lines', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-folders', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-folders'), force: true });
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-folders'), commitMessage: 'GitBook: No commit message' });
    expect((await gitOutput('conformance-folders', 'rev-parse', 'refs/heads/main')).trim()).toBe(created.head);

    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const all: any[] = [];
    const walk = (list: any[]) => list.forEach((p) => (all.push(p), walk(p.pages ?? [])));
    walk(pages);
    const edited = ['guides/setup.md', 'reference/api.md'].map((path) => all.find((p) => p.git?.path === path));
    const changes = [];
    for (const page of edited) changes.push({ operation: 'update_page', page: page.id, document: { markdown: `${(await pageMarkdown(space.id, page.id, token)).trimEnd()}\n\n${NOTE}\n` } });
    const cr = await openChangeRequest(space.id, token, 'Add notes');
    await applyChanges(space.id, cr.number, token, changes);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-folders'), commitMessage: `GITBOOK-${cr.number}: Add notes` });

    expect((await gitOutput('conformance-folders', 'diff', '--name-status', created.head, 'refs/heads/main')).trim().split('\n')).toEqual(['M\tguides/setup.md', 'M\treference/api.md']);
    const show = (path: string) => gitOutput('conformance-folders', 'show', `refs/heads/main:${path}`);
    expect(await show('guides/setup.md')).toBe(`${FILES['guides/setup.md']}\n${NOTE}\n`);
    expect(await show('reference/api.md')).toBe(`${FILES['reference/api.md']}\n${NOTE}\n`);
  });
});
