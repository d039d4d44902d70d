import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories: a page edited in GitBook after its first import, then exported, had lines of its file
 * rewritten that the edit did not touch:
 * - lines linking pages that the same import created (the import names them by a batch ref until they have ids, and
 *   the author's lines were kept only where they link by id): `-` lists as `*`, trailing spaces dropped...;
 * - the author's `{% page-ref %}` (GitBook's older tag) written as `{% content-ref %}` (the same cause);
 * - a front matter `title:` that differs from the page's H1: both were replaced by an H1 of the title;
 * - a file without a final newline got one;
 * - a content-ref made in GitBook was written with the page's id as its label (`[/pages/<id>](other.md)`).
 */

const GUIDE = [
  '# Guide',
  '',
  '- Read [Other](other.md) first.  ',
  '- Then [the part on setup](other.md#setup), or https://example.com/setup.',
  '',
  '{% page-ref page="other.md" %}',
  '',
  'Some text.',
  '',
].join('\n');

const TITLED = ['---', 'title: Titled page', 'description: About it', '---', '', '# A different heading', '', 'Body.', ''].join('\n');

const PLAIN = ['# Plain', '', '- one', '- two', '', 'Last line without a newline.'].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Other](other.md)\n* [Titled page](titled.md)\n* [Plain](plain.md)\n',
  'guide.md': GUIDE,
  'other.md': '# Other\n\n## Setup\n\nSteps.\n',
  'titled.md': TITLED,
  'plain.md': PLAIN,
};

const NOTE = 'A note added in GitBook.';


/** The page's Markdown as read, with a paragraph added at its end, as an editor sends it (with a final newline). */
const withNote = (markdown: string) => `${markdown.replace(/\n+$/, '')}\n\n${NOTE}\n`;

describe('a page edited after its first import changes in its file only where it was edited', () => {
  it('keeps links to pages of the same import, page-ref tags, a front matter title beside its H1, a missing final newline', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-edited', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-edited'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const byPath = (path: string) => pages.find((p: any) => p.git?.path === path);
    const titled = byPath('titled.md');
    expect(titled.title).toBe('Titled page');

    const edited = ['guide.md', 'titled.md', 'plain.md'].map((path) => byPath(path));
    const changes = [];
    for (const page of edited) changes.push({ operation: 'update_page', page: page.id, document: { markdown: withNote(await pageMarkdown(space.id, page.id, token)) } });
    // A page made in GitBook linking to another by a content-ref (as our writing has it): written as GitBook writes one.
    const other = byPath('other.md');
    changes.push({ operation: 'insert_page', title: 'Links', document: { markdown: `# Links\n\n{% content-ref url="/pages/${other.id}" %}\n[/pages/${other.id}](/pages/${other.id})\n{% endcontent-ref %}\n` } } as any);
    const cr = await openChangeRequest(space.id, token, 'Add notes');
    await applyChanges(space.id, cr.number, token, changes);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-edited'), commitMessage: `GITBOOK-${cr.number}: Add notes`, timestamp: new Date().toISOString() });

    expect((await gitOutput('conformance-edited', 'diff', '--name-status', created.head, 'refs/heads/main')).trim().split('\n')).toEqual(['M\tSUMMARY.md', 'M\tguide.md', 'A\tlinks.md', 'M\tplain.md', 'M\ttitled.md']);
    const show = (path: string) => gitOutput('conformance-edited', 'show', `refs/heads/main:${path}`);
    // The content-ref's label is the href's last segment, as GitBook writes it (it was the page's id).
    expect(await show('links.md')).toBe('# Links\n\n{% content-ref url="other.md" %}\n[other.md](other.md)\n{% endcontent-ref %}\n');
    expect(await show('guide.md')).toBe(`${GUIDE}\n${NOTE}\n`);
    expect(await show('titled.md')).toBe(`${TITLED}\n${NOTE}\n`);
    // The file's own ending is kept: none (the editor's final newline is not written).
    expect(await show('plain.md')).toBe(`${PLAIN}\n\n${NOTE}`);
  });
});
