import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../src/services/markdown/round-trip';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (an SDK's documentation synced with GitBook) and in GitBook's own: GitBook writes a code
 * block with highlighted lines as HTML, `<pre class="language-bash"><code class="lang-bash">`, each highlighted line
 * in `<strong>`, the block's title and options as `data-*` attributes of the `<pre>`. The import kept it as a code
 * block of HTML holding that markup, so the published page showed `<pre class=...><code ...><strong>` as code in
 * place of the commands.
 */

const PRE = [
  '<pre class="language-bash" data-title="setup.sh" data-overflow="wrap"><code class="lang-bash"><strong>npm create vite@latest demo -- --template react-ts',
  '</strong>cd demo &#x26;&#x26; npm install',
  '<strong>npm run dev',
  '</strong></code></pre>',
].join('\n');

const PAGE = ['# Setup', '', 'Run:', '', PRE, '', 'Then open the app.', ''].join('\n');

const lineTexts = (block: any) => block.nodes.map((line: any) => [line.nodes.map((t: any) => t.leaves.map((l: any) => l.text).join('')).join(''), line.data.highlighted === true]);

describe("GitBook's HTML code blocks", () => {
  it('read as a code block: its language, title, options, lines and highlighted lines', () => {
    const { document } = markdownToDocument(PAGE);
    const code = document.nodes.find((node: any) => node.type === 'code') as any;
    expect(code.data).toMatchObject({ syntax: 'bash', title: 'setup.sh', overflow: 'wrap' });
    expect(lineTexts(code)).toEqual([
      ['npm create vite@latest demo -- --template react-ts', true],
      ['cd demo && npm install', false],
      ['npm run dev', true],
    ]);
  });

  it('reads a <pre><code> without language or highlights, keeps blank lines, and leaves other HTML as it was', () => {
    const plain = markdownToDocument('<pre><code>a\n\n  b\n</code></pre>\n').document.nodes[0] as any;
    expect(plain.type).toBe('code');
    expect(plain.data.syntax).toBeUndefined();
    expect(lineTexts(plain)).toEqual([['a', false], ['', false], ['  b', false]]);
    const other = markdownToDocument('<pre><code>a</code><p>b</p></pre>\n').document.nodes[0] as any;
    expect(other.data.syntax).toBe('html');
  });

  it('imports it from a repository, and an edit elsewhere in the page exports the block as it was written', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const files = { 'README.md': '# Home\n', 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Setup](setup.md)\n', 'setup.md': PAGE };
    const created = await createRepository('conformance-import-pre-code', { files });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-import-pre-code'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const setup = pages.find((p: any) => p.git?.path === 'setup.md');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${setup.id}?format=document`, { token }), 200);
    const code = read.body.document.nodes.find((node: any) => node.type === 'code');
    expect(code.data.syntax).toBe('bash');
    expect(lineTexts(code).map(([, highlighted]: [string, boolean]) => highlighted)).toEqual([true, false, true]);

    const cr = await openChangeRequest(space.id, token, 'Note');
    const markdown = await pageMarkdown(space.id, setup.id, token);
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: setup.id, document: { markdown: `${markdown.replace(/\n+$/, '')}\n\nA note.\n` } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-import-pre-code'), commitMessage: `GITBOOK-${cr.number}: Note`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-import-pre-code', 'diff', '--name-only', created.head, 'refs/heads/main')).trim()).toBe('setup.md');
    expect(await gitOutput('conformance-import-pre-code', 'show', 'refs/heads/main:setup.md')).toBe(`${PAGE}\nA note.\n`);
  });
});
