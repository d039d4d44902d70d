import { describe, expect, it } from 'vitest';
import { documentToMarkdown } from '../../src/services/markdown/index';
import { markdownToDocument } from '../../src/services/markdown/round-trip';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories after an edit: a code block GitBook wrote as HTML for its highlighted lines
 * (`<pre class="language-x"><code class="lang-x"><strong>...`), once edited, was exported as a fence, which has no
 * syntax for highlighted lines: they were lost. A block with highlighted lines is written in GitBook's HTML form.
 */

const PRE = [
  '<pre class="language-bash" data-title="setup.sh"><code class="lang-bash"><strong>npm install',
  '</strong>test -f a &#x26;&#x26; npm run dev',
  '<strong>echo &#x3C;done>',
  '</strong></code></pre>',
].join('\n');

const PAGE = ['# Setup', '', 'Run:', '', PRE, '', 'Then open the app.', ''].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Setup](setup.md)\n',
  'setup.md': PAGE,
};

const lineText = (text: string) => ({ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] });

describe('a code block with highlighted lines, edited', () => {
  it('is written in HTML with its highlights, its options and its code escaped as GitBook does', () => {
    const { document } = markdownToDocument(PAGE);
    const code = document.nodes.find((node: any) => node.type === 'code') as any;
    const edited = { ...code, data: { ...code.data, lineNumbers: true }, nodes: code.nodes.map((line: any, i: number) => (i === 1 ? { ...line, nodes: [lineText('npm start')] } : line)) };
    const written = documentToMarkdown({ object: 'document', data: {}, nodes: [edited] });
    expect(written).toBe(
      ['<pre class="language-bash" data-title="setup.sh" data-line-numbers><code class="lang-bash"><strong>npm install', '</strong>npm start', '<strong>echo &#x3C;done>', '</strong></code></pre>', ''].join('\n'),
    );
    const again = markdownToDocument(written).document.nodes[0] as any;
    expect(again.nodes.map((line: any) => line.data.highlighted === true)).toEqual([true, false, true]);
    expect(again.data).toMatchObject({ syntax: 'bash', title: 'setup.sh', lineNumbers: true });
  });

  it('keeps its highlighted lines when its code is edited as a JSON document and exported', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-export-pre-code', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-export-pre-code'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const setup = pages.find((p: any) => p.git?.path === 'setup.md');
    const cr = await openChangeRequest(space.id, token, 'Edit the code');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${setup.id}`, { token }), 200).body;
    const nodes = read.document.nodes.map((node: any) =>
      node.type === 'code' ? { ...node, nodes: node.nodes.map((line: any, i: number) => (i === 1 ? { ...line, nodes: [lineText('test -f a && npm start')] } : line)) } : node,
    );
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: setup.id, document: { document: { ...read.document, nodes } } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-export-pre-code'), commitMessage: `GITBOOK-${cr.number}: Edit the code`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-export-pre-code', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tsetup.md');
    expect(await gitOutput('conformance-export-pre-code', 'show', 'refs/heads/main:setup.md')).toBe(PAGE.replace('&#x26;&#x26; npm run dev', '&#x26;&#x26; npm start'));
  });
});
