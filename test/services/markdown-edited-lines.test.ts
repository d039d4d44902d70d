import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, withSourcePatchOf, withoutSourcePatch, type JSONDocument } from '../../src/services/markdown/index';

/**
 * The writer's forms of what real repositories showed lost on an edited page (conformance-export-edited-lines tests the
 * same through Git Sync): GitBook's own form where our writing is used, the author's lines kept around an edit.
 */

/** Our writing alone: the document read from `markdown`, its patch (the author's lines) dropped. */
const ours = (markdown: string) => documentToMarkdown(withoutSourcePatch(markdownToDocument(markdown).document));

/** Nodes compared without their keys. */
const nodesOf = (document: JSONDocument) => JSON.stringify(document.nodes).replace(/"key":"[^"]*",?/g, '');

/** `markdown` read, its first leaf holding `from` edited to hold `to` as JSON (as GitBook's editor sends it), written back. */
function editedAsJson(markdown: string, from: string, to: string, fields?: Record<string, unknown>): string {
  const conversion = markdownToDocument(markdown);
  const next = structuredClone(withoutSourcePatch(conversion.document));
  const visit = (node: any): boolean => {
    if (node?.object === 'leaf' && node.text.includes(from)) return ((node.text = node.text.replace(from, to)), true);
    return ['nodes', 'leaves', 'fragments'].some((key) => (node?.[key] ?? []).some(visit));
  };
  expect(next.nodes.some(visit)).toBe(true);
  const frontmatter = fields ?? (conversion.frontmatter.description ? { description: conversion.frontmatter.description } : {});
  return documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title, frontmatter });
}

describe('line breaks', () => {
  it('are written as GitBook writes them: `\\` ending the line, `<br>` ending a paragraph or in a pipe table cell', () => {
    expect(ours('* first<br>second\n* third\n')).toBe('* first\\\n  second\n* third\n');
    expect(ours('* first<br><br>second\n')).toBe('* first\\\n  \\\n  second\n');
    expect(ours('* closing<br>\n* next\n')).toBe('* closing<br>\n* next\n');
    expect(ours('one<br>two\n')).toBe('one\\\ntwo\n');
    expect(ours('| a | b |\n| - | - |\n| x<br>y | z |\n')).toBe('| a      | b |\n| ------ | - |\n| x<br>y | z |\n');
    for (const markdown of ['* first<br>second\n* third\n', '* closing<br>\n', '1. a<br>b\n', '> q<br>r\n', '| a | b |\n| - | - |\n| x<br>y | z |\n']) {
      expect(nodesOf(markdownToDocument(ours(markdown)).document), markdown).toBe(nodesOf(markdownToDocument(markdown).document));
    }
  });
});

describe('a page edited as JSON', () => {
  it('keeps the lines beside the edit and the edited line\'s own markers', () => {
    const list = '# T\n\nA **strong** start.\n\n* one __first__\n* two __second__\n* three __third__\n';
    expect(editedAsJson(list, 'two ', 'deux ')).toBe(list.replace('two ', 'deux '));
    const breaks = '# T\n\n* Open<br>then pick\n* Press the button\n* Wait<br>\n';
    expect(editedAsJson(breaks, 'Press', 'Push')).toBe(breaks.replace('Press', 'Push'));
    const tight = '# T\n\nBefore the list:\n* alpha\n* beta\n\nAfter.\n';
    expect(editedAsJson(tight, 'Before', 'Right before')).toBe(tight.replace('Before', 'Right before'));
    const wrapped = '# T\n\nline one\nline two\nline three\n';
    expect(editedAsJson(wrapped, 'line two', 'line two, longer')).toBe(wrapped.replace('line two', 'line two, longer'));
  });

  it('keeps only the hunks that fit whole where one placed beside the edit would change what the page reads as', () => {
    // Without its blank line, a list starting at 2 would not interrupt the paragraph: it would read as the paragraph's text.
    const source = '# T\n\nIntro **x** and **y**:\n* one\n* two\n\nA __b__ end.\n';
    const conversion = markdownToDocument(source);
    const next = structuredClone(withoutSourcePatch(conversion.document));
    next.nodes[1] = { ...next.nodes[1], type: 'list-ordered', data: { start: 2 } } as (typeof next.nodes)[number];
    const written = documentToMarkdown(withSourcePatchOf(conversion.document, next), { title: conversion.title });
    expect(written).toBe('# T\n\nIntro **x** and **y**:\n\n2. one\n3. two\n\nA __b__ end.\n');
    expect(nodesOf(markdownToDocument(written).document)).toBe(nodesOf(next));
  });

  it('keeps a block repeated further on as written when its first copy is edited', () => {
    // The same table twice (as our writing has them): the edited one's hunk was put on the other, which came back in the first one's form.
    const table = (separator: string) => `| Name | Description |\n${separator}\n| x | first value |\n`;
    const source = `# T\n\n## A\n\n${table('|---|---|')}\n## B\n\n${table('|-|-|')}\n## C\n\nText __b__ and **c** and **d**.\n`;
    const written = editedAsJson(source, 'first value', 'first value, edited');
    expect(written.slice(written.indexOf('## B'))).toBe(source.slice(source.indexOf('## B')));
  });

  it('keeps a front matter layout as written, setting only what changed', () => {
    const full = ['---', 'description: Old', 'layout:', '  width: default', '  cover:', '    visible: true', '    size: hero', '  title:', '    visible: true', '---', '', '# T', '', 'Body.', ''].join('\n');
    expect(editedAsJson(full, 'Body', 'Text', { description: 'New' })).toBe(full.replace('Old', 'New').replace('Body', 'Text'));
    const partial = '---\nlayout:\n  title:\n    visible: false\n---\n\n# T\n\nBody.\n';
    // The page's fields as Git Sync's export passes them (frontmatterOf): its layout in GitBook's full form.
    const layout = { width: 'default', cover: { visible: true, size: 'hero' }, title: { visible: false }, description: { visible: true }, tableOfContents: { visible: true }, outline: { visible: true }, pagination: { visible: true }, metadata: { visible: true } };
    expect(editedAsJson(partial, 'Body', 'Text', { description: 'New', layout })).toBe(partial.replace('---\n\n', 'description: New\n---\n\n').replace('Body', 'Text'));
    expect(editedAsJson(partial, 'Body', 'Text', { layout: { ...layout, outline: { visible: false } } })).toBe(partial.replace('    visible: false\n', '    visible: false\n  outline:\n    visible: false\n').replace('Body', 'Text'));
  });
});

describe('icons, buttons and HTML tables', () => {
  it("write an icon's color and a button's icon", () => {
    const icon = 'See <i class="fa-rocket" style="color:$primary;">:rocket:</i> here.\n';
    expect(ours(icon)).toBe(icon);
    const button = '<a href="https://example.com" class="button primary" data-icon="github">Go</a> or <button type="button" class="button secondary" data-icon="sparkle" data-action="ask" data-query="how?">Ask</button>\n';
    expect(ours(button)).toBe(button);
  });

  it("write a table Markdown cannot hold in GitBook's HTML form, read back as the same table", () => {
    const tables = [
      '<table data-view="cards"><thead><tr><th></th><th></th><th data-hidden data-card-cover data-type="files"></th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody><tr><td><strong>Tools</strong></td><td>Every tool &#x26; its <code>scope</code>.</td><td><a href="/files/cover">/files/cover</a></td><td><a href="https://example.com/tools">https://example.com/tools</a></td></tr></tbody></table>\n',
      '<table data-card-size="large" data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody><tr><td>One</td><td><a href="/pages/guide#setup">#setup</a></td></tr></tbody></table>\n',
      '<table data-full-width="true" data-header-hidden><thead><tr><th width="139.5"></th><th align="center"></th></tr></thead><tbody><tr><td><strong>Provider</strong></td><td align="center"><p>Methods:</p><ul><li>EXECUTE</li><li>QUERY</li></ul></td></tr><tr><td>a<br>b</td><td align="center"></td></tr></tbody></table>\n',
      '<table><thead><tr><th width="200">Name</th><th>Notes</th></tr></thead><tbody><tr><td><em>x</em> &#x3C; y</td><td><a href="https://example.com">link</a></td></tr></tbody></table>\n',
    ];
    for (const table of tables) {
      expect(ours(table)).toBe(table);
      expect(nodesOf(markdownToDocument(ours(table)).document)).toBe(nodesOf(markdownToDocument(table).document));
    }
  });
});
