import { describe, expect, it } from 'vitest';
import { documentToMarkdown } from '../../src/services/markdown/index';
import { markdownToDocument } from '../../src/services/markdown/round-trip';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories after an edit: GitBook writes a hard break as a trailing `\`, and a `<figure>` right
 * after it ends the paragraph, which then reads as text ending in `\`. Our writing doubled that backslash (`\\`, a
 * hard break to the writer) and put a blank line before the image, so the diff split the change in two: the hunk
 * holding the image's line, judged alone, named no file and was dropped with the whole patch. The page, edited
 * anywhere, came back with `\\` and `![](...)` in place of the author's lines.
 */

const FIGURE = [
  '# Figure',
  '',
  'A line with a break\\',
  '<figure><img src=".gitbook/assets/shot.png" alt=""><figcaption></figcaption></figure>',
  '',
  'Closing paragraph.',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Figure](figure.md)\n* [Again](again.md)\n',
  'figure.md': FIGURE,
  'again.md': FIGURE.replace('# Figure', '# Again'),
  '.gitbook/assets/shot.png': { base64: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==' },
};

const paragraph = (text: string) => ({ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] });

describe('a trailing backslash before a figure', () => {
  it('is written once: a backslash ending a paragraph is text', () => {
    const { document } = markdownToDocument('A line with a break\\\n');
    expect(documentToMarkdown({ ...document, data: {} })).toBe('A line with a break\\\n');
    expect(documentToMarkdown({ object: 'document', data: {}, nodes: [paragraph('two\\\\') as any] })).toBe('two\\\\\\\\\n');
  });

  it('keeps its lines on export when the page is edited as JSON elsewhere, or as Markdown on that line', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-export-hard-break', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-export-hard-break'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const figure = pages.find((p: any) => p.git?.path === 'figure.md');
    const again = pages.find((p: any) => p.git?.path === 'again.md');
    const cr = await openChangeRequest(space.id, token, 'Notes');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${figure.id}`, { token }), 200).body;
    const markdown = await pageMarkdown(space.id, again.id, token, cr.number);
    expect(markdown).toContain('A line with a break\\\n<figure>');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'update_page', page: figure.id, document: { document: { ...read.document, nodes: [...read.document.nodes, paragraph('A note.')] } } },
      { operation: 'update_page', page: again.id, document: { markdown: markdown.replace('with a break', 'with a hard break') } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-export-hard-break'), commitMessage: `GITBOOK-${cr.number}: Notes`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-export-hard-break', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tagain.md\nM\tfigure.md');
    expect(await gitOutput('conformance-export-hard-break', 'show', 'refs/heads/main:figure.md')).toBe(`${FIGURE}\nA note.\n`);
    expect(await gitOutput('conformance-export-hard-break', 'show', 'refs/heads/main:again.md')).toBe(FILES['again.md'].replace('with a break', 'with a hard break'));
  });
});
