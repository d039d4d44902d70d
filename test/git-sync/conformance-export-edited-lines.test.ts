import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories: a page edited in GitBook (as JSON, one line changed) was exported with more lines
 * changed than the edit. Lines next to the edited one came back in our syntax (`__bold__` as `**bold**`, an item's
 * `<br>` as a bare line ending), a blank line was put between a paragraph and the list that follows it, front matter
 * holding GitBook's default layout lost it (one naming one part of the layout got every default written), and a cards
 * table came back as a pipe table. Each page here is edited on one line; the export must change that line only.
 */

const CARDS =
  '<table data-view="cards"><thead><tr><th></th><th></th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody>' +
  '<tr><td><strong>Tools</strong></td><td>Every tool &#x26; its scope.</td><td><a href="breaks.md">breaks.md</a></td></tr>' +
  '<tr><td><strong>Registry</strong></td><td>The registry.</td><td><a href="https://example.com/registry">https://example.com/registry</a></td></tr></tbody></table>';

const PAGES: Record<string, string> = {
  'breaks.md': '# Breaks\n\nSteps:\n\n* Open the panel<br>then pick a file\n* Press the button\n* Wait<br>\n\nDone.\n',
  'emphasis.md': '# Emphasis\n\nA **strong** start.\n\n* one __first__\n* two __second__\n* three __third__\n\nThe end.\n',
  'tight.md': '# Tight\n\nBefore the list:\n* alpha\n* beta\n\nAfter.\n',
  'layout.md': [
    '---',
    'description: Old words',
    'layout:',
    '  width: default',
    '  cover:',
    '    visible: true',
    '    size: hero',
    '  title:',
    '    visible: true',
    '  description:',
    '    visible: true',
    '  tableOfContents:',
    '    visible: true',
    '  outline:',
    '    visible: true',
    '  pagination:',
    '    visible: true',
    '---',
    '',
    '# Layout',
    '',
    'Body text.',
    '',
  ].join('\n'),
  'partial.md': '---\nlayout:\n  title:\n    visible: false\n---\n\n# Partial\n\nBody text.\n',
  'cards.md': `# Cards\n\nPick one:\n\n${CARDS}\n\nMore.\n`,
};

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': `# Table of contents\n\n* [Home](README.md)\n${Object.keys(PAGES)
    .map((path) => `* [${path}](${path})`)
    .join('\n')}\n`,
  ...PAGES,
};

/** The document with the first leaf holding `from` changed to hold `to` (what GitBook's editor sends). */
function edited(document: any, from: string, to: string): any {
  const copy = structuredClone(document);
  let done = false;
  const visit = (node: any) => {
    if (done || !node || typeof node !== 'object') return;
    if (node.object === 'leaf' && typeof node.text === 'string' && node.text.includes(from)) {
      node.text = node.text.replace(from, to);
      done = true;
      return;
    }
    for (const key of ['nodes', 'leaves', 'fragments']) for (const child of node[key] ?? []) visit(child);
  };
  visit(copy);
  expect(done, from).toBe(true);
  return copy;
}

describe('an edited page exported: only the edited line changes', () => {
  it('keeps the lines around the edit, the front matter and the cards table as the author wrote them', async () => {
    const name = 'conformance-export-edited-lines';
    const { token, space, head, byPath } = await importedSpace(name, FILES);
    const cr = await openChangeRequest(space.id, token, 'One line each');
    const edits: Array<[string, string, string, Record<string, unknown>?]> = [
      ['breaks.md', 'Press the button', 'Press the blue button'],
      ['emphasis.md', 'two ', 'deux '],
      ['tight.md', 'Before the list:', 'Right before the list:'],
      ['layout.md', 'Body text.', 'Body text, edited.', { description: 'New words' }],
      ['partial.md', 'Body text.', 'Body text, edited.', { description: 'Added' }],
      ['cards.md', 'The registry.', 'The registry of agents.'],
    ];
    const changes = [];
    for (const [path, from, to, fields] of edits) {
      const page = byPath(path);
      const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${page.id}`, { token }), 200).body;
      changes.push({ operation: 'update_page', page: page.id, document: { document: edited(read.document, from, to) }, ...fields });
    }
    await applyChanges(space.id, cr.number, token, changes);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: One line each`, timestamp: new Date().toISOString() });

    expect((await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(Object.keys(PAGES).sort());
    const exported = async (path: string) => gitOutput(name, 'show', `refs/heads/main:${path}`);
    // The `<br>` items beside the edited one keep their `<br>`.
    expect(await exported('breaks.md')).toBe(PAGES['breaks.md'].replace('Press the button', 'Press the blue button'));
    // The edited item keeps its `__`, and so do its neighbours.
    expect(await exported('emphasis.md')).toBe(PAGES['emphasis.md'].replace('two ', 'deux '));
    // No blank line between the edited paragraph and its list.
    expect(await exported('tight.md')).toBe(PAGES['tight.md'].replace('Before the list:', 'Right before the list:'));
    // The default layout written out stays; only the description changes.
    expect(await exported('layout.md')).toBe(PAGES['layout.md'].replace('Old words', 'New words').replace('Body text.', 'Body text, edited.'));
    // The layout naming one part stays so, not every default written out; the new field is added.
    expect(await exported('partial.md')).toBe(PAGES['partial.md'].replace('    visible: false\n', '    visible: false\ndescription: Added\n').replace('Body text.', 'Body text, edited.'));
    // The cards table stays GitBook's HTML table.
    expect(await exported('cards.md')).toBe(PAGES['cards.md'].replace('The registry.', 'The registry of agents.'));
    const fsck = await gitOutput(name, 'fsck', '--strict');
    expect(fsck).not.toMatch(/error|warning/i);
  }, 180_000);
});
