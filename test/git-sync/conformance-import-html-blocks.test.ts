import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../src/services/markdown';
import { markdownToDocument } from '../../src/services/markdown/round-trip';
import { GITBOOK_0202, gitbookValidator } from '../helpers/gitbook-schema';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories (payment and product documentation sites synced with GitBook, a mobile-app platform's
 * docs): GitBook writes a table as HTML when Markdown cannot hold it (cards `<table data-view="cards">` with a hidden
 * target column of links, column widths `<th width="156">`), and hand-written repositories write the same HTML over
 * several lines. Each such table was imported as a code block of HTML. GitBook's icons `<i class="fa-bolt">:bolt:</i>`
 * and buttons `<a href="..." class="button primary">` were code-marked text, and a paragraph of one inline image
 * (`<img ... data-size="line">` alone on its line, an HTML block in CommonMark) a code block.
 */

const CARDS = [
  '<table data-view="cards"><thead><tr><th width="48"></th><th></th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody>',
  '<tr><td><h4><i class="fa-puzzle-piece" style="color:$primary;"></i></h4></td><td><strong>Setup</strong> &#x26; launch</td><td><a href="setup.md">Setup</a></td></tr>',
  '<tr><td><h4><i class="fa-bolt"></i></h4></td><td>Faster <code>runs</code></td><td><a href="speed.md">Speed</a></td></tr>',
  '</tbody></table>',
].join('\n');

const GRID =
  '<table data-full-width="true"><thead><tr><th width="156.5">Option</th><th align="center">Notes</th></tr></thead><tbody><tr><td><code>label</code></td><td><p>One <a href="setup.md">link</a>.</p><ul><li><em>first</em></li><li>second</li></ul></td></tr></tbody></table>';

const PAGE = [
  '# Overview',
  '',
  '<img src=".gitbook/assets/logo.svg" alt="Logo" data-size="line">',
  '',
  'See <i class="fa-bolt" style="color:$primary;">:bolt:</i> and <a href="setup.md" class="button primary" data-icon="rocket">Set up</a>.',
  '',
  CARDS,
  '',
  GRID,
  '',
  'After.',
  '',
].join('\n');

const cellText = (table: any, record: string, column: string) => {
  const name = table.data.records[record].values[column];
  return JSON.stringify(table.fragments.find((f: any) => f.fragment === name).nodes);
};

describe('GitBook HTML blocks and inlines on import', () => {
  it('reads a cards table, a grid table with widths, icons, buttons and a lone inline image as GitBook blocks', () => {
    // Pages by their path, as the import's links are (an external URL in a card's target is a `url` ref, which GitBook's
    // schema cannot tell from an image record's: the documents checked against it here link to pages).
    const resolveLink = (href: string) => (href.endsWith('.md') ? { kind: 'page' as const, page: href.slice(0, -3) } : null);
    const { document } = markdownToDocument(PAGE, { resolveLink });
    const nodes = document.nodes as any[];
    expect(nodes.map((node) => node.type)).toEqual(['paragraph', 'paragraph', 'table', 'table', 'paragraph']);
    expect(nodes[0].nodes.find((n: any) => n.object === 'inline')).toMatchObject({ type: 'inline-image', data: { ref: { url: '.gitbook/assets/logo.svg' }, alt: 'Logo', size: 'line' } });
    const inlines = nodes[1].nodes.filter((n: any) => n.object === 'inline');
    expect(inlines).toMatchObject([
      { type: 'icon', data: { icon: 'bolt', color: '$primary' } },
      { type: 'button', data: { label: 'Set up', kind: 'primary', icon: 'rocket', ref: { kind: 'page', page: 'setup' } } },
    ]);

    const cards = nodes[2];
    expect(cards.data.view).toEqual({ type: 'cards', columns: ['c1', 'c2'], cardSize: 'medium', targetDefinition: 'c3' });
    expect(cards.data.definition.c3).toEqual({ id: 'c3', title: '', type: 'content-ref' });
    expect(Object.values(cards.data.records).map((r: any) => r.values.c3)).toEqual([
      { kind: 'page', page: 'setup' },
      { kind: 'page', page: 'speed' },
    ]);
    expect(JSON.parse(cellText(cards, 'r1', 'c1'))[0]).toMatchObject({ type: 'heading-3', nodes: [{}, { type: 'icon', data: { icon: 'puzzle-piece', color: '$primary' } }, {}] });
    expect(JSON.parse(cellText(cards, 'r1', 'c2'))[0].nodes[0].leaves).toEqual([
      { object: 'leaf', text: 'Setup', marks: [{ object: 'mark', type: 'bold' }] },
      { object: 'leaf', text: ' & launch', marks: [] },
    ]);
    expect(cellText(cards, 'r2', 'c2')).toContain('"text":"runs","marks":[{"object":"mark","type":"code"}]');

    const grid = nodes[3];
    expect(grid.data).toMatchObject({ fullWidth: true, view: { type: 'grid', columns: ['c1', 'c2'], hideHeader: false, columnWidths: { c1: 156.5 } } });
    expect(grid.data.definition).toMatchObject({ c1: { title: 'Option', type: 'text', textAlignment: 'left' }, c2: { title: 'Notes', type: 'text', textAlignment: 'center' } });
    const notes = JSON.parse(cellText(grid, 'r1', 'c2'));
    expect(notes.map((block: any) => block.type)).toEqual(['paragraph', 'list-unordered']);
    expect(notes[0].nodes[1]).toMatchObject({ type: 'link', data: { ref: { kind: 'page', page: 'setup' } } });
    expect(notes[1].nodes).toHaveLength(2);

    // Valid for our schema; the tables for GitBook's too (its API's 0.202 JSONDocument; its button schema asks for
    // `additionalProperties: false` beside `label` and `kind`, which no button meets).
    expect(parseDocument(document).success).toBe(true);
    const tables = markdownToDocument(`${CARDS}\n\n${GRID}\n`, { resolveLink }).document;
    const theirs = gitbookValidator('JSONDocument', GITBOOK_0202.components).validate(tables);
    expect(theirs.errors.slice(-3).map((e) => `${e.instanceLocation} ${e.error}`)).toEqual([]);
  });

  it('reads an assistant or search button (`<button data-action>`) as a button with its action', () => {
    const source = 'Ask: <button type="button" class="button secondary" data-action="ask" data-query="How do I start?" data-icon="sparkles">Ask the docs</button> <button class="button primary" data-action="search">Search</button>\n';
    const inlines = (markdownToDocument(source).document.nodes[0] as any).nodes.filter((n: any) => n.object === 'inline');
    expect(inlines.map((n: any) => n.data)).toEqual([
      { label: 'Ask the docs', kind: 'secondary', action: { action: 'ask', query: 'How do I start?' }, icon: 'sparkles' },
      { label: 'Search', kind: 'primary', action: { action: 'search' } },
    ]);
  });

  it('keeps any other HTML as code, and reads an <i> or <a> that is no icon or button as italic and a link', () => {
    const nodes = markdownToDocument('<div class="note">\n<p>Hi</p>\n</div>\n\nPlain <i>it</i> and <a href="x.md">link</a>.\n').document.nodes as any[];
    expect(nodes.map((node) => [node.type, node.data.syntax])).toEqual([['code', 'html'], ['paragraph', undefined]]);
    expect(nodes[1].nodes.map((n: any) => n.type ?? n.leaves.map((leaf: any) => [leaf.text, ...leaf.marks.map((mark: any) => mark.type)]))).toEqual([
      [['Plain '], ['it', 'italic'], [' and ']],
      'link',
      [['.']],
    ]);
  });

  it('imports such a page with its links as pages, and an edit elsewhere exports the HTML as it was written', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const files = {
      'README.md': '# Home\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Overview](overview.md)\n* [Setup](setup.md)\n* [Speed](speed.md)\n',
      'overview.md': PAGE,
      'setup.md': '# Setup\n\nSteps.\n',
      'speed.md': '# Speed\n\nFast.\n',
      '.gitbook/assets/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
    };
    const created = await createRepository('conformance-import-html-blocks', { files });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-import-html-blocks'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const overview = pages.find((p: any) => p.git?.path === 'overview.md');
    const setup = pages.find((p: any) => p.git?.path === 'setup.md');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${overview.id}?format=document`, { token }), 200);
    const nodes = read.body.document.nodes;
    expect(nodes.map((node: any) => node.type)).toEqual(['paragraph', 'paragraph', 'table', 'table', 'paragraph']);
    expect(nodes[0].nodes[1]).toMatchObject({ type: 'inline-image', data: { ref: { kind: 'file' } } });
    expect(nodes[1].nodes[3]).toMatchObject({ type: 'button', data: { ref: { kind: 'page', page: setup.id } } });
    expect(nodes[2].data.records[Object.keys(nodes[2].data.records)[0]].values.c3).toEqual({ kind: 'page', page: setup.id });

    const cr = await openChangeRequest(space.id, token, 'Note');
    const markdown = await pageMarkdown(space.id, overview.id, token);
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: overview.id, document: { markdown: `${markdown.replace(/\n+$/, '')}\n\nA note.\n` } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-import-html-blocks'), commitMessage: `GITBOOK-${cr.number}: Note`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-import-html-blocks', 'diff', '--name-only', created.head, 'refs/heads/main')).trim()).toBe('overview.md');
    expect(await gitOutput('conformance-import-html-blocks', 'show', 'refs/heads/main:overview.md')).toBe(`${PAGE}\nA note.\n`);
  });
});
