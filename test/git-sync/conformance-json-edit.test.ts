import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories: a page of an import edited with a JSON document (a client's `update_page` with
 * `{document}`, not Markdown) was written whole our way on the next export: `-` bullets as `*`, the author's blank
 * lines and escapes gone. The lines of the blocks the edit did not change are kept, as for an edit sent as Markdown.
 */

const GUIDE = [
  '# Guide',
  '',
  'Intro with a hard break\\',
  'and an escaped \\(parenthesis\\).',
  '',
  '- first item',
  '- second item',
  '',
  '| Name | Value |',
  '|:-----|------:|',
  '| a    |     1 |',
  '',
  'Closing paragraph.',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
  'guide.md': GUIDE,
};

const paragraph = (text: string) => ({ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] });

describe('a page edited as a JSON document changes in its file only where it was edited', () => {
  it('keeps the lines of the blocks the edit left alone', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-json-edit', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-json-edit'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const guide = pages.find((p: any) => p.git?.path === 'guide.md');

    const cr = await openChangeRequest(space.id, token, 'Edit as JSON');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${guide.id}`, { token }), 200).body;
    const document = { ...read.document, nodes: [...read.document.nodes, paragraph('A note added in GitBook.')] };
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: guide.id, document: { document } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-json-edit'), commitMessage: `GITBOOK-${cr.number}: Edit as JSON`, timestamp: new Date().toISOString() });

    expect((await gitOutput('conformance-json-edit', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tguide.md');
    expect(await gitOutput('conformance-json-edit', 'show', 'refs/heads/main:guide.md')).toBe(`${GUIDE}\nA note added in GitBook.\n`);
  });

  it('writes the changed blocks our way and keeps the others', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('conformance-json-replace', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-json-replace'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const guide = pages.find((p: any) => p.git?.path === 'guide.md');
    const cr = await openChangeRequest(space.id, token, 'Replace');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${guide.id}`, { token }), 200).body;
    // The table (the author's alignment row) replaced by a paragraph, the rest sent back as read.
    const nodes = read.document.nodes.map((node: any) => (node.type === 'table' ? paragraph('No table any more.') : node));
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: guide.id, document: { document: { ...read.document, nodes } } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-json-replace'), commitMessage: `GITBOOK-${cr.number}: Replace`, timestamp: new Date().toISOString() });
    expect(await gitOutput('conformance-json-replace', 'show', 'refs/heads/main:guide.md')).toBe(GUIDE.replace('| Name | Value |\n|:-----|------:|\n| a    |     1 |\n', 'No table any more.\n'));
  });
});
