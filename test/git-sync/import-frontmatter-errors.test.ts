import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, githubBody, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * Found on a real repository (hand-written, Chinese, gitprobe10b): its README begins with a line between two `---`
 * lines, which Markdown with front matter reads as YAML front matter holding one string, not a mapping. The
 * conversion refused it, and with it the whole import failed ("changes[0] (insert_page): YAML frontmatter must be a
 * mapping of keys to values", naming no file). Front matter that is a single value sets nothing (as an empty one),
 * and the page is imported; an export of an edit to it keeps its lines. Front matter that is not YAML still fails
 * the import (GitBook's Git Sync fails on it too), and the error names the file to fix.
 */

const HOME = ['---', 'A line between two rules', '---', '', '# Home', '', 'Welcome to the guide.', ''].join('\n');

describe('a page whose front matter is a single value, not a mapping', () => {
  it('is imported with no metadata from it, and an edit to it exported keeps its lines', async () => {
    const name = 'import-frontmatter-scalar';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const { head } = await createRepository(name, {
      files: { 'README.md': HOME, 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n', 'guide.md': '# Guide\n\nSteps.\n' },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p) => [p.title, p.git?.path])).toEqual([
      ['Home', 'README.md'],
      ['Guide', 'guide.md'],
    ]);
    expect(await pageMarkdown(space.id, pages[0].id, token)).toContain('Welcome to the guide.');

    const cr = await openChangeRequest(space.id, token, 'Welcome');
    const document = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pages[0].id}`, { token }), 200).body.document;
    const edited = JSON.parse(JSON.stringify(document).replace('Welcome to the guide.', 'Welcome to the whole guide.'));
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages[0].id, document: { document: edited } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Welcome` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tREADME.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:README.md')).toBe(HOME.replace('Welcome to the guide.', 'Welcome to the whole guide.'));
  });

  it('that is not YAML fails the import with an error naming the file', async () => {
    const name = 'import-frontmatter-invalid';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository(name, {
      files: {
        'README.md': '# Home\n\nWelcome.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Setup](guides/setup.md)\n',
        'guides/setup.md': '---\ndescription: Steps: in order: here\n---\n\n# Setup\n\nSteps.\n',
      },
    });
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { ...githubBody(name), force: true } }), 204);
    await runPending(space.id);
    const operation = (await gitInfo(space.id, token)).body.operation;
    expect(operation.state).toBe('failure');
    expect(operation.error).toMatch(/^guides\/setup\.md: Invalid YAML frontmatter/);
  });
});
