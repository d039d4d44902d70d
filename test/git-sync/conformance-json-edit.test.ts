import { beforeAll, describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

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

/**
 * One repository for the file: the second edit is made on the space the first one exported (a second round of
 * GitBook edits on the same page), as an author would, and its file is compared with what the first one wrote.
 */
let imported: Awaited<ReturnType<typeof importedSpace>>;
beforeAll(async () => {
  imported = await importedSpace('conformance-json-edit', FILES);
});

/** The guide page as the change request `number` reads it: a client's JSON document. */
async function guideDocument(number: number) {
  const { space, token, byPath } = imported;
  return expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${number}/content/page/${byPath('guide.md').id}`, { token }), 200).body.document;
}

describe('a page edited as a JSON document changes in its file only where it was edited', () => {
  const NOTED = `${GUIDE}\nA note added in GitBook.\n`;

  it('keeps the lines of the blocks the edit left alone', async () => {
    const { space, token, head, byPath } = imported;
    const cr = await openChangeRequest(space.id, token, 'Edit as JSON');
    const read = await guideDocument(cr.number);
    const document = { ...read, nodes: [...read.nodes, paragraph('A note added in GitBook.')] };
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: byPath('guide.md').id, document: { document } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-json-edit'), commitMessage: `GITBOOK-${cr.number}: Edit as JSON`, timestamp: new Date().toISOString() });

    expect((await gitOutput('conformance-json-edit', 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tguide.md');
    expect(await gitOutput('conformance-json-edit', 'show', 'refs/heads/main:guide.md')).toBe(NOTED);
  });

  it('writes the changed blocks our way and keeps the others', async () => {
    const { space, token, byPath } = imported;
    const before = (await gitOutput('conformance-json-edit', 'rev-parse', 'refs/heads/main')).trim();
    expect(await gitOutput('conformance-json-edit', 'show', 'refs/heads/main:guide.md')).toBe(NOTED);
    const cr = await openChangeRequest(space.id, token, 'Replace');
    const read = await guideDocument(cr.number);
    // The table (the author's alignment row) replaced by a paragraph, the rest sent back as read.
    const nodes = read.nodes.map((node: any) => (node.type === 'table' ? paragraph('No table any more.') : node));
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: byPath('guide.md').id, document: { document: { ...read, nodes } } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-json-edit'), commitMessage: `GITBOOK-${cr.number}: Replace`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-json-edit', 'diff', '--name-status', before, 'refs/heads/main')).trim()).toBe('M\tguide.md');
    expect(await gitOutput('conformance-json-edit', 'show', 'refs/heads/main:guide.md')).toBe(NOTED.replace('| Name | Value |\n|:-----|------:|\n| a    |     1 |\n', 'No table any more.\n'));
  });
});
