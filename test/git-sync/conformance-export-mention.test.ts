import { describe, expect, it } from 'vitest';
import { documentToMarkdown } from '../../src/services/markdown/index';
import { markdownToDocument } from '../../src/services/markdown/round-trip';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories after an edit: GitBook's mention, a link titled "mention" (`[Page](page.md "mention")`),
 * was read as a plain link, so a line we wrote again lost its title. It reads as GitBook's inline `mention`
 * (`@gitbook/api`'s DocumentInlineMention: void, `data.ref`), its label kept, and is written back titled "mention".
 */

const MENTION = ['# Mention', '', 'See [Setup](setup.md "mention") for more.', '', 'Closing paragraph.', ''].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Mention](mention.md)\n* [Setup](setup.md)\n',
  'mention.md': MENTION,
  'setup.md': '# Setup\n\nText.\n',
};

const text = (value: string) => ({ object: 'text', leaves: [{ object: 'leaf', text: value, marks: [] }] });

describe("GitBook's mention", () => {
  it('reads as an inline mention and is written back as a link titled "mention"', () => {
    const { document } = markdownToDocument('See [Setup](/pages/abc "mention") now.\n', { resolveLink: (href) => (href === '/pages/abc' ? { kind: 'page', page: 'abc' } : null) });
    const inline = (document.nodes[0] as any).nodes[1];
    expect(inline).toMatchObject({ object: 'inline', type: 'mention', isVoid: true, data: { ref: { kind: 'page', page: 'abc' } } });
    expect(documentToMarkdown({ ...document, data: {} })).toBe('See [Setup](/pages/abc "mention") now.\n');
    // A mention a client sends with no text is labelled with its href.
    const sent = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'inline', type: 'mention', isVoid: true, data: { ref: { kind: 'page', page: 'abc' } } }] }] };
    expect(documentToMarkdown(sent as any)).toBe('[/pages/abc](/pages/abc "mention")\n');
  });

  it('keeps its title on a line the export writes again', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-export-mention', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-export-mention'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const mention = pages.find((p: any) => p.git?.path === 'mention.md');
    const cr = await openChangeRequest(space.id, token, 'Edit');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${mention.id}`, { token }), 200).body;
    // The line with the mention edited as JSON: "See" becomes "Read".
    const nodes = read.document.nodes.map((node: any, i: number) => (i === 0 ? { ...node, nodes: [text('Read '), ...node.nodes.slice(1)] } : node));
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: mention.id, document: { document: { ...read.document, nodes } } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-export-mention'), commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-export-mention', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tmention.md');
    expect(await gitOutput('conformance-export-mention', 'show', 'refs/heads/main:mention.md')).toBe(MENTION.replace('See [', 'Read ['));
  });
});
