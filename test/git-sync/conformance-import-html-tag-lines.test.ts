import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../src/services/markdown/round-trip';
import { documentToMarkdown } from '../../src/services/markdown/index';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (an app's documentation in Chinese and English, synced with GitBook): GitBook writes a
 * tag on the line right after an HTML block, with no blank line (`<figure>...</figure>` then `{% endtab %}`). In
 * CommonMark that HTML block runs to the next blank line and took the tag lines, so the tabs had no end: the page
 * showed `{% tabs %}` and `{% tab title="..." %}` as text and each figure as a code block of HTML.
 */

const FIGURE = (name: string) => `<figure><img src="https://example.com/${name}.png" alt=""><figcaption></figcaption></figure>`;

const TABS = ['{% tabs %}', '{% tab title="打开时" %}', FIGURE('on'), '{% endtab %}', '', '{% tab title="关闭时" %}', FIGURE('off'), '{% endtab %}', '{% endtabs %}'].join('\n');

const PAGE = ['# Display', '', 'Before.', '', TABS, '', 'After.', ''].join('\n');

const types = (nodes: any[]): any[] => nodes.map((node) => (node.nodes && node.type !== 'paragraph' ? { [node.type]: types(node.nodes) } : node.type));

describe('a tag line right after an HTML block', () => {
  it('ends the HTML block: tabs holding figures are read as such', () => {
    const { document } = markdownToDocument(PAGE);
    expect(types(document.nodes as any[])).toEqual([
      'paragraph',
      { tabs: [{ 'tabs-item': [{ images: ['image'] }] }, { 'tabs-item': [{ images: ['image'] }] }] },
      'paragraph',
    ]);
    const tabs = document.nodes[1] as any;
    expect(tabs.nodes.map((item: any) => item.data.title)).toEqual(['打开时', '关闭时']);
  });

  it('leaves a tag line inside <pre>, a comment or a fenced block as it was written', () => {
    const pre = markdownToDocument('<pre><code>{% endtab %}\n</code></pre>\n').document.nodes as any[];
    expect(pre.map((node) => node.type)).toEqual(['code']);
    expect(pre[0].nodes[0].nodes[0].leaves[0].text).toBe('{% endtab %}');
    // A comment is no content (GitBook shows none), and the tag line in it closes nothing: the source patch keeps it.
    const comment = markdownToDocument('Text.\n\n<!--\n{% endhint %}\n-->\n');
    expect((comment.document.nodes as any[]).map((node) => node.type)).toEqual(['paragraph']);
    expect(documentToMarkdown(comment.document)).toBe('Text.\n\n<!--\n{% endhint %}\n-->\n');
  });

  it('imports such a page, and an edit elsewhere exports its tabs as they were written', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const files = { 'README.md': '# Home\n', 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Display](display.md)\n', 'display.md': PAGE };
    const created = await createRepository('conformance-import-html-tag-lines', { files });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-import-html-tag-lines'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const display = pages.find((p: any) => p.git?.path === 'display.md');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${display.id}?format=document`, { token }), 200);
    expect(read.body.document.nodes.map((node: any) => node.type)).toEqual(['paragraph', 'tabs', 'paragraph']);

    const cr = await openChangeRequest(space.id, token, 'Note');
    const markdown = await pageMarkdown(space.id, display.id, token);
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: display.id, document: { markdown: `${markdown.replace(/\n+$/, '')}\n\nA note.\n` } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-import-html-tag-lines'), commitMessage: `GITBOOK-${cr.number}: Note`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-import-html-tag-lines', 'diff', '--name-only', created.head, 'refs/heads/main')).trim()).toBe('display.md');
    expect(await gitOutput('conformance-import-html-tag-lines', 'show', 'refs/heads/main:display.md')).toBe(`${PAGE}\nA note.\n`);
  });
});
