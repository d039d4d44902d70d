import { describe, expect, it } from 'vitest';
import { createPathLinkResolver, documentToMarkdown, markdownToDocument } from '../../src/services/markdown/index';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories (a Go style guide's 3,000-line README, pages titled `Avoid \`init()\``): a page edited
 * in GitBook and exported must change in its file only where it was edited. Two ways it did not:
 * - a reference definition to an anchor of the page itself (`[Install the tool]: #install-the-tool`) counted as a
 *   link to the space's content, whose lines are always written our way; the patch left then read as another
 *   document and was dropped whole: every line written our way (`-` lists as `*`, definitions inlined...);
 * - a title line that is not ours (`# Use \`cli\` flags`: titles are plain text) was rewritten on export, which
 *   passes the page's fields as `{}` when it has none, and a source without front matter did not fit `{}`;
 * - a line linking another page by id (`[Home](/pages/<id>)`) was always written our way (trailing spaces dropped,
 *   a bare URL as `<https://...>`), although an id does not go stale as a relative path does;
 * - the export wrote only `description` and `icon` of the page's fields: `hidden`, `layout`, `if`... were lost
 *   from the front matter, which was then written our way.
 */

const PAGE = [
  '---',
  'description: >-',
  '  Flags of the command line, folded',
  '  over two lines.',
  'hidden: true',
  'layout:',
  '  title:',
  '    visible: true',
  '  outline:',
  '    visible: false',
  '---',
  '',
  '# Use `cli` flags',
  '',
  '- [Install](#install-the-tool)',
  '- [Configure](#configure)',
  '',
  '## Install the tool',
  '',
  'Run it, then read [Install the tool] again.',
  '',
  'Back to [Home](README.md) first.',
  '',
  '## Configure',
  '',
  '- one',
  '- two',
  '',
  '[Install the tool]: #install-the-tool',
  '',
].join('\n');


describe('an edited page keeps the lines of its file it was not edited on', () => {
  it('reads back byte for byte: anchors of the page, a title line that is not ours, a line linking a page by id', () => {
    // As Git Sync's import reads a page: its links to other pages of the repository as `/pages/<id>`.
    // Written our way, the line with the link would lose its trailing space and write the URL as `<https://...>`.
    const body = PAGE.slice(PAGE.indexOf('# Use')).replace('[Home](README.md) first.', '[Home](/pages/home0000000000000000) or https://example.com/docs first. ');
    const read = markdownToDocument(body, { resolveLink: createPathLinkResolver({ lookup: () => undefined }) });
    expect(read.title).toBe('Use cli flags');
    // As Git Sync's export writes a page with none of the page fields: `{}`.
    expect(documentToMarkdown(read.document, { title: read.title, frontmatter: {} })).toBe(body);
    // A page given a description no longer fits the source's head: its front matter is written.
    expect(documentToMarkdown(read.document, { title: read.title, frontmatter: { description: 'Flags' } })).toMatch(/^---\ndescription: Flags\n---\n\n# Use cli flags\n/);
  });

  it('an edit made through a change request is the only change of the exported commit', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-lines', {
      files: { 'README.md': '# Home\n\nWelcome.\n', 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Flags](flags.md)\n', 'flags.md': PAGE },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-lines'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const flags = pages.find((p: any) => p.git?.path === 'flags.md');
    // The page read as Markdown is the file, and an edit appends to it.
    const markdown = await pageMarkdown(space.id, flags.id, token);
    const home = pages.find((p: any) => p.git?.path === 'README.md');
    expect(markdown).toBe(PAGE.replace('(README.md)', `(/pages/${home.id})`));
    const cr = await openChangeRequest(space.id, token, 'Add a note');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: flags.id, document: { markdown: `${markdown}A note added in GitBook.\n` } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-lines'), commitMessage: `GITBOOK-${cr.number}: Add a note`, timestamp: new Date().toISOString() });

    expect((await gitOutput('conformance-lines', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tflags.md');
    const diff = await gitOutput('conformance-lines', 'diff', '-U0', created.head, 'refs/heads/main', '--', 'flags.md');
    const changed = diff.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line));
    expect(changed).toEqual(['+A note added in GitBook.']);
    expect(await gitOutput('conformance-lines', 'show', 'refs/heads/main:flags.md')).toBe(`${PAGE}A note added in GitBook.\n`);
    // The page kept the fields its front matter gave it.
    const page = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${flags.id}`, { token }), 200).body;
    expect(page).toMatchObject({ description: 'Flags of the command line, folded over two lines.', hidden: true });
  });
});
