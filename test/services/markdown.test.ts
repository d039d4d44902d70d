/**
 * Conversion between GitBook's rich-text document and Markdown. These tests run inside workerd, so
 * they also prove that unified, remark, mdast utilities and yaml work in the Workers runtime.
 * Every document produced here is checked twice: against our zod schema and against GitBook's own
 * published JSON schema (`JSONDocument` in @gitbook/api's OpenAPI document).
 */
import { describe, expect, it } from 'vitest';
import {
  assignKeys,
  createPathLinkResolver,
  defaultHrefFor,
  defaultResolveLink,
  documentToMarkdown,
  markdownToDocument,
  MarkdownConversionError,
  parseDocument,
  withoutSourcePatch,
  type ContentRef,
  type DocumentBlockParagraph,
  type DocumentInlineContent,
  type DocumentMark,
  type DocumentText,
  type JSONDocument,
  type MarkdownStyle,
  type TopLevelBlock,
} from '../../src/services/markdown';
import { GITBOOK_0202, gitbookValidator } from '../helpers/gitbook-schema';

// ---------------------------------------------------------------------------------------------
// Helpers

const jsonDocumentValidator = gitbookValidator('JSONDocument', GITBOOK_0202.components);

/** The document is valid for our schema and for GitBook's, and its keys are unique. */
function expectValid(document: JSONDocument) {
  const ours = parseDocument(document);
  expect(ours.success ? 'valid' : ours.error).toBe('valid');
  const theirs = jsonDocumentValidator.validate(document);
  expect(theirs.valid ? 'valid' : theirs.errors.slice(-5).map((e) => `${e.instanceLocation}: ${e.error}`)).toBe('valid');
  const keys = collectKeys(document.nodes);
  expect(new Set(keys).size).toBe(keys.length);
}

function collectKeys(nodes: unknown): string[] {
  if (!Array.isArray(nodes)) return [];
  return nodes.flatMap((node: { key?: string; nodes?: unknown; fragments?: unknown }) => [
    ...(node.key ? [node.key] : []),
    ...collectKeys(node.nodes),
    ...collectKeys(node.fragments),
  ]);
}

function convert(markdown: string, options?: Parameters<typeof markdownToDocument>[1]) {
  const result = markdownToDocument(markdown, options);
  expectValid(result.document);
  return result;
}

function blocks(markdown: string): TopLevelBlock[] {
  return convert(markdown).document.nodes;
}

/** Strips keys and heading ids (tested on their own), so that hand-written expectations need not spell them. */
function unkeyed<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (name, v) => (name === 'key' || name === 'meta' ? undefined : v)));
}

type SimpleMark = 'bold' | 'italic' | 'strikethrough' | 'code' | 'keyboard' | 'superscript' | 'subscript';
const mark = (type: SimpleMark): DocumentMark => ({ object: 'mark', type });
const leaf = (text: string, ...marks: SimpleMark[]) => ({
  object: 'leaf' as const,
  text,
  marks: marks.map(mark),
});
const text = (...leaves: Array<ReturnType<typeof leaf> | string>): DocumentText => ({
  object: 'text',
  leaves: leaves.map((l) => (typeof l === 'string' ? leaf(l) : l)),
});
const paragraph = (...nodes: Array<DocumentInlineContent | string>): DocumentBlockParagraph => ({
  object: 'block',
  type: 'paragraph',
  isVoid: false,
  data: {},
  nodes: nodes.map((n) => (typeof n === 'string' ? text(n) : n)),
});
const link = (ref: ContentRef, ...nodes: Array<DocumentText | string>): DocumentInlineContent => ({
  object: 'inline',
  type: 'link',
  isVoid: false,
  data: { ref },
  nodes: nodes.map((n) => (typeof n === 'string' ? text(n) : n)),
});
const item = (nodes: unknown[], data: Record<string, unknown> = {}) => ({ object: 'block', type: 'list-item', isVoid: false, data, nodes });
const codeLine = (line: string) => ({ object: 'block', type: 'code-line', isVoid: false, data: {}, nodes: [text(line)] });

function textOf(nodes: readonly DocumentInlineContent[]): string {
  return nodes.map((n) => (n.object === 'text' ? n.leaves.map((l) => l.text).join('') : n.type === 'link' ? textOf(n.nodes) : '')).join('');
}

// ---------------------------------------------------------------------------------------------
// Markdown -> document

describe('markdownToDocument: blocks', () => {
  it('paragraphs carry text leaves with canonical marks', () => {
    const [p] = blocks('Plain **bold** *italic* `code` ~~gone~~ ***both*** **`bold code`** and ~~*mixed*~~.');
    expect(unkeyed(p)).toEqual(
      paragraph(
        text(
          'Plain ',
          leaf('bold', 'bold'),
          ' ',
          leaf('italic', 'italic'),
          ' ',
          leaf('code', 'code'),
          ' ',
          leaf('gone', 'strikethrough'),
          ' ',
          leaf('both', 'bold', 'italic'),
          ' ',
          leaf('bold code', 'bold', 'code'),
          ' and ',
          leaf('mixed', 'italic', 'strikethrough'),
          '.',
        ),
      ),
    );
  });

  it('line breaks, soft or hard, are newlines in the leaf (GitBook keeps the line, and writes it back as one)', () => {
    const [p] = blocks('one\ntwo  \nthree\\\nfour');
    expect(unkeyed(p)).toEqual(paragraph('one\ntwo\nthree\nfour'));
  });

  it("headings follow GitBook's levels: ## is heading 1, ### heading 2, #### heading 3 (# further down a heading 1, ##### a heading 3)", () => {
    const types = blocks('Intro\n\n# One\n\n## Two\n\n### Three\n\n#### Four\n\n###### Six').map((b) => b.type);
    expect(types).toEqual(['paragraph', 'heading-1', 'heading-1', 'heading-2', 'heading-3', 'heading-3']);
    const heading = blocks('Intro\n\n### A *nice* title')[1];
    expect(unkeyed(heading)).toEqual({
      object: 'block',
      type: 'heading-2',
      isVoid: false,
      data: {},
      nodes: [text('A ', leaf('nice', 'italic'), ' title')],
    });
  });

  it('unordered, ordered (with start) and task lists, nested', () => {
    const [unordered, ordered, tasks] = blocks('- a\n- b\n  1. inner\n\n---\n\n3. three\n4. four\n\n---\n\n- [ ] todo\n- [x] done').filter(
      (b) => b.type !== 'divider',
    );
    expect(unkeyed(unordered)).toEqual({
      object: 'block',
      type: 'list-unordered',
      isVoid: false,
      data: {},
      nodes: [
        item([paragraph('a')]),
        item([paragraph('b'), { object: 'block', type: 'list-ordered', isVoid: false, data: {}, nodes: [item([paragraph('inner')])] }]),
      ],
    });
    expect(unkeyed(ordered)).toMatchObject({ type: 'list-ordered', data: { start: 3 }, nodes: [{ type: 'list-item' }, { type: 'list-item' }] });
    expect(unkeyed(tasks)).toEqual({
      object: 'block',
      type: 'list-tasks',
      isVoid: false,
      data: {},
      nodes: [item([paragraph('todo')], { checked: false }), item([paragraph('done')], { checked: true })],
    });
  });

  it('code blocks keep their syntax and one code-line per line', () => {
    const [code] = blocks('```ts\nconst a = 1;\n\nexport { a };\n```');
    expect(unkeyed(code)).toEqual({
      object: 'block',
      type: 'code',
      isVoid: false,
      data: { syntax: 'ts' },
      nodes: [codeLine('const a = 1;'), codeLine(''), codeLine('export { a };')],
    });
    expect(unkeyed(blocks('    indented\n    code')[0])).toMatchObject({ type: 'code', data: {}, nodes: [codeLine('indented'), codeLine('code')] });
  });

  it('GitBook code tags set the title, line numbers and overflow of the fence inside', () => {
    const [code] = blocks('{% code title="app.js" lineNumbers="true" overflow="wrap" %}\n```js\nrun()\n```\n{% endcode %}');
    expect(unkeyed(code)).toMatchObject({
      type: 'code',
      data: { syntax: 'js', title: 'app.js', lineNumbers: true, overflow: 'wrap' },
      nodes: [codeLine('run()')],
    });
  });

  it('a title in the fence info string is the code block title', () => {
    expect(unkeyed(blocks('```py title="main.py"\nprint()\n```')[0])).toMatchObject({ type: 'code', data: { syntax: 'py', title: 'main.py' } });
  });

  it('quotes, nested', () => {
    const [quote] = blocks('> outer\n>\n> > inner\n>\n> - listed');
    expect(unkeyed(quote)).toEqual({
      object: 'block',
      type: 'blockquote',
      isVoid: false,
      data: {},
      nodes: [
        paragraph('outer'),
        { object: 'block', type: 'blockquote', isVoid: false, data: {}, nodes: [paragraph('inner')] },
        { object: 'block', type: 'list-unordered', isVoid: false, data: {}, nodes: [item([paragraph('listed')])] },
      ],
    });
  });

  it('dividers', () => {
    expect(unkeyed(blocks('a\n\n***\n\nb')[1])).toEqual({ object: 'block', type: 'divider', isVoid: true, data: {} });
  });
});

describe('markdownToDocument: hints', () => {
  it.each(['info', 'warning', 'danger', 'success'])('style %s', (style) => {
    const [hint] = blocks(`{% hint style="${style}" %}\nMind the **gap**.\n{% endhint %}`);
    expect(unkeyed(hint)).toEqual({
      object: 'block',
      type: 'hint',
      isVoid: false,
      data: { style },
      nodes: [paragraph(text('Mind the ', leaf('gap', 'bold'), '.'))],
    });
  });

  it('hold nested lists and several paragraphs, with or without blank lines around the tags', () => {
    for (const markdown of [
      '{% hint style="success" %}\nSteps:\n- one\n  - one.a\n- two\n\nDone.\n{% endhint %}',
      '{% hint style="success" %}\n\nSteps:\n\n- one\n  - one.a\n- two\n\nDone.\n\n{% endhint %}',
    ]) {
      const [hint, ...rest] = blocks(markdown);
      expect(rest).toEqual([]);
      expect(unkeyed(hint)).toEqual({
        object: 'block',
        type: 'hint',
        isVoid: false,
        data: { style: 'success' },
        nodes: [
          paragraph('Steps:'),
          {
            object: 'block',
            type: 'list-unordered',
            isVoid: false,
            data: {},
            nodes: [
              item([paragraph('one'), { object: 'block', type: 'list-unordered', isVoid: false, data: {}, nodes: [item([paragraph('one.a')])] }]),
              item([paragraph('two')]),
            ],
          },
          paragraph('Done.'),
        ],
      });
    }
  });

  it('an ordered list right before the closing tag does not swallow it', () => {
    const types = blocks('{% hint style="info" %}\n1. a\n2. b\n{% endhint %}\nAfter.').map((b) => b.type);
    expect(types).toEqual(['hint', 'paragraph']);
  });

  it('inside a list item (indented tags) and inside a quote', () => {
    const [list] = blocks('- item\n\n  {% hint style="warning" %}\n  nested\n  {% endhint %}\n- next');
    expect(unkeyed(list)).toMatchObject({
      type: 'list-unordered',
      nodes: [{ nodes: [{ type: 'paragraph' }, { type: 'hint', data: { style: 'warning' }, nodes: [paragraph('nested')] }] }, {}],
    });
    // GitBook allows no hint inside a quote: the hint moves out, after the quote.
    expect(blocks('> quoted\n>\n> {% hint style="info" %}\n> hinted\n> {% endhint %}').map((b) => b.type)).toEqual(['blockquote', 'hint']);
  });

  it('blocks a hint cannot hold are moved out between two parts of the hint, never dropped', () => {
    const result = blocks('{% hint style="danger" %}\nBefore\n\n```sh\nrm -rf /\n```\n\nAfter\n{% endhint %}');
    expect(result.map((b) => b.type)).toEqual(['hint', 'code', 'hint']);
    expect(result.map((b) => (b.type === 'hint' ? b.data.style : b.type))).toEqual(['danger', 'code', 'danger']);
  });

  it('an unknown style falls back to info; an empty hint holds an empty paragraph', () => {
    expect(unkeyed(blocks('{% hint style="tip" %}\nx\n{% endhint %}')[0])).toMatchObject({ type: 'hint', data: { style: 'info' } });
    expect(unkeyed(blocks('{% hint style="info" %}\n{% endhint %}')[0])).toMatchObject({ type: 'hint', nodes: [paragraph('')] });
  });

  it('tags inside code stay code, unmatched or escaped tags stay text', () => {
    const [code] = blocks('```\n{% hint style="info" %}\nx\n{% endhint %}\n```');
    expect(code.type).toBe('code');
    expect(code.type === 'code' && code.nodes.length).toBe(3);
    const unmatched = blocks('{% hint style="info" %}\nNever closed');
    expect(unmatched.map((b) => (b.type === 'paragraph' ? textOf(b.nodes) : b.type))).toEqual(['{% hint style="info" %}', 'Never closed']);
    expect(blocks('\\{% hint style="info" %}\n\n\\{% endhint %}').map((b) => b.type)).toEqual(['paragraph', 'paragraph']);
    // Tags that cross (one opened inside the other, closed outside it) are not blocks: their lines stay text.
    const crossed = blocks('{% hint style="info" %}\n{% tabs %}\n{% endhint %}\n{% endtabs %}');
    expect(crossed.map((b) => b.type)).toEqual(['hint', 'paragraph']);
  });
});

describe('markdownToDocument: images and files', () => {
  it('a paragraph of images is an images block; /files/<id> is a file reference, anything else a URL', () => {
    const [images] = blocks('![Diagram](/files/file-1 "The caption")\n![](https://cdn.example.com/a.png)');
    expect(unkeyed(images)).toEqual({
      object: 'block',
      type: 'images',
      isVoid: false,
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'image',
          isVoid: true,
          data: { ref: { kind: 'file', file: 'file-1' }, alt: 'Diagram' },
          fragments: [{ object: 'fragment', fragment: 'caption', nodes: [paragraph('The caption')] }],
        },
        { object: 'block', type: 'image', isVoid: true, data: { ref: { kind: 'url', url: 'https://cdn.example.com/a.png' } }, fragments: [] },
      ],
    });
  });

  it('images within text, in links and in list items are inline images', () => {
    const [p] = blocks('See ![icon](/files/ic "tip") and [![badge](https://b.example/x.svg)](https://ci.example)');
    expect(unkeyed(p)).toEqual(
      paragraph(
        'See ',
        { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: { kind: 'file', file: 'ic' }, alt: 'icon', caption: 'tip' } },
        ' and ',
        link({ kind: 'url', url: 'https://ci.example' }, text(''), {
          object: 'inline',
          type: 'inline-image',
          isVoid: true,
          data: { ref: { kind: 'url', url: 'https://b.example/x.svg' }, alt: 'badge' },
        } as never, text('')),
        '',
      ),
    );
    expect(unkeyed(blocks('> ![quoted](/files/f8)')[0])).toMatchObject({
      type: 'blockquote',
      nodes: [{ type: 'paragraph', nodes: [{}, { type: 'inline-image', data: { ref: { kind: 'file', file: 'f8' }, alt: 'quoted' } }, {}] }],
    });
    const [list] = blocks('- ![only](/files/f2)');
    expect(unkeyed(list)).toMatchObject({ nodes: [{ nodes: [{ type: 'paragraph', nodes: [{}, { type: 'inline-image', data: { ref: { kind: 'file', file: 'f2' } } }, {}] }] }] });
  });

  it('reference-style images and links read their definitions', () => {
    const [images, p] = blocks('![logo][l]\n\nSee [the docs][d].\n\n[l]: /files/logo "Logo"\n[d]: /pages/p-docs');
    expect(unkeyed(images)).toMatchObject({ type: 'images', nodes: [{ data: { ref: { kind: 'file', file: 'logo' }, alt: 'logo' } }] });
    expect(unkeyed(p)).toEqual(paragraph('See ', link({ kind: 'page', page: 'p-docs' }, 'the docs'), '.'));
  });

  it('file tags become file blocks with their caption', () => {
    const [file] = blocks('{% file src="/files/report" %}\nQuarterly *report*\n{% endfile %}');
    expect(unkeyed(file)).toEqual({
      object: 'block',
      type: 'file',
      isVoid: true,
      data: { ref: { kind: 'file', file: 'report' } },
      fragments: [{ object: 'fragment', fragment: 'caption', nodes: [paragraph(text('Quarterly ', leaf('report', 'italic')))] }],
    });
    expect(unkeyed(blocks('{% file src="/files/bare" %}\n{% endfile %}')[0])).toEqual({
      object: 'block',
      type: 'file',
      isVoid: true,
      data: { ref: { kind: 'file', file: 'bare' } },
    });
  });

  it('a file tag whose source is not an uploaded file, or where no file fits, becomes a link', () => {
    const [external] = blocks('{% file src="https://example.com/a.pdf" %}\nThe PDF\n{% endfile %}');
    expect(unkeyed(external)).toEqual(paragraph('', link({ kind: 'url', url: 'https://example.com/a.pdf' }, 'The PDF'), ''));
    const [hint] = blocks('{% hint style="info" %}\n{% file src="/files/f3" %}\n{% endfile %}\n{% endhint %}');
    expect(unkeyed(hint)).toMatchObject({ type: 'hint', nodes: [paragraph('', link({ kind: 'file', file: 'f3' }, 'f3'), '')] });
  });
});

describe('markdownToDocument: tables', () => {
  it('a GFM table becomes a grid table with text columns, ordered records and cell fragments', () => {
    const [table] = blocks('| Name | Qty | Note |\n|:-----|----:|:----:|\n| **apple** | 3 | `fresh` |\n| pear \\| quince | 10 |');
    expect(unkeyed(table)).toEqual({
      object: 'block',
      type: 'table',
      isVoid: true,
      data: {
        view: { type: 'grid', columns: ['c1', 'c2', 'c3'], hideHeader: false },
        definition: {
          c1: { id: 'c1', title: 'Name', type: 'text', textAlignment: 'left' },
          c2: { id: 'c2', title: 'Qty', type: 'text', textAlignment: 'right' },
          c3: { id: 'c3', title: 'Note', type: 'text', textAlignment: 'center' },
        },
        records: {
          r1: { orderIndex: '0000', values: { c1: 'r1-c1', c2: 'r1-c2', c3: 'r1-c3' } },
          r2: { orderIndex: '0001', values: { c1: 'r2-c1', c2: 'r2-c2', c3: 'r2-c3' } },
        },
      },
      fragments: [
        { object: 'fragment', fragment: 'r1-c1', nodes: [paragraph(text(leaf('apple', 'bold')))] },
        { object: 'fragment', fragment: 'r1-c2', nodes: [paragraph('3')] },
        { object: 'fragment', fragment: 'r1-c3', nodes: [paragraph(text(leaf('fresh', 'code')))] },
        { object: 'fragment', fragment: 'r2-c1', nodes: [paragraph('pear | quince')] },
        { object: 'fragment', fragment: 'r2-c2', nodes: [paragraph('10')] },
        { object: 'fragment', fragment: 'r2-c3', nodes: [paragraph('')] },
      ],
    });
  });

  it('an empty header row hides the header', () => {
    expect(unkeyed(blocks('|  |  |\n|--|--|\n| a | b |')[0])).toMatchObject({ data: { view: { hideHeader: true } } });
  });
});

describe('markdownToDocument: links', () => {
  it('default resolution: /pages/<id>, /files/<id>, anything else a URL', () => {
    const [p] = blocks('[a](https://example.com/x?y=1) [b](/pages/page-1) [c](/files/file-1) [d](/pages/page-1#setup) [e](mailto:x@example.com) [f](other.md)');
    const refs = p.type === 'paragraph' ? p.nodes.flatMap((n) => (n.object === 'inline' && n.type === 'link' ? [n.data.ref] : [])) : [];
    expect(refs).toEqual([
      { kind: 'url', url: 'https://example.com/x?y=1' },
      { kind: 'page', page: 'page-1' },
      { kind: 'file', file: 'file-1' },
      { kind: 'anchor', page: 'page-1', anchor: 'setup' },
      { kind: 'url', url: 'mailto:x@example.com' },
      { kind: 'url', url: 'other.md' },
    ]);
  });

  it('links keep the marks of their text; autolinks are links', () => {
    const [p] = blocks('**[bold link](/pages/p1)** <https://auto.example> www.example.com');
    expect(unkeyed(p)).toEqual(
      paragraph(
        '',
        link({ kind: 'page', page: 'p1' }, text(leaf('bold link', 'bold'))),
        ' ',
        link({ kind: 'url', url: 'https://auto.example' }, 'https://auto.example'),
        ' ',
        link({ kind: 'url', url: 'http://www.example.com' }, 'www.example.com'),
        '',
      ),
    );
  });

  it('a custom resolver decides page and file references', () => {
    const resolveLink = (href: string): ContentRef | null =>
      href === 'guide' ? { kind: 'page', page: 'g1' } : href.startsWith('asset:') ? { kind: 'file', file: href.slice(6) } : null;
    const [p] = convert('[x](guide) [y](/pages/ignored) ![z](asset:f7)', { resolveLink }).document.nodes;
    const targets = p.type === 'paragraph' ? p.nodes.filter((n) => n.object === 'inline' && n.type !== 'expression').map((n) => n.data?.ref) : [];
    expect(targets).toEqual([{ kind: 'page', page: 'g1' }, { kind: 'url', url: '/pages/ignored' }, { kind: 'file', file: 'f7' }]);
  });

  it('the path resolver reads slug paths, relative .md paths, READMEs and anchors', () => {
    const resolve = createPathLinkResolver({
      pages: [
        { id: 'home', path: '' },
        { id: 'guides', path: 'guides' },
        { id: 'install', path: 'guides/install' },
        { id: 'api', path: 'reference/api' },
      ],
      base: 'guides',
    });
    expect(resolve('/guides/install')).toEqual({ kind: 'page', page: 'install' });
    expect(resolve('install.md')).toEqual({ kind: 'page', page: 'install' });
    expect(resolve('./install.md#linux')).toEqual({ kind: 'anchor', page: 'install', anchor: 'linux' });
    expect(resolve('../reference/api.md')).toEqual({ kind: 'page', page: 'api' });
    expect(resolve('README.md')).toEqual({ kind: 'page', page: 'guides' });
    expect(resolve('../README.md')).toEqual({ kind: 'page', page: 'home' });
    expect(resolve('/reference/api/')).toEqual({ kind: 'page', page: 'api' });
    expect(resolve('#top')).toEqual({ kind: 'anchor', anchor: 'top' });
    expect(resolve('/pages/p9')).toEqual({ kind: 'page', page: 'p9' });
    expect(resolve('/files/f9')).toEqual({ kind: 'file', file: 'f9' });
    expect(resolve('missing.md')).toBeNull();
    expect(resolve('https://example.com/guides/install')).toBeNull();
    const [p] = convert('[Install](install.md)', { resolveLink: resolve }).document.nodes;
    expect(unkeyed(p)).toEqual(paragraph('', link({ kind: 'page', page: 'install' }, 'Install'), ''));
  });
});

describe('markdownToDocument: title, frontmatter and what GitBook cannot hold', () => {
  it('title from frontmatter (the leading heading then stays), else from a leading heading 1 (removed)', () => {
    const withFrontmatter = convert('---\ntitle: From YAML\ndescription: Short\ntags: [a, b]\n---\n# Heading\n\nBody');
    expect(withFrontmatter.title).toBe('From YAML');
    expect(withFrontmatter.description).toBe('Short');
    expect(withFrontmatter.frontmatter).toEqual({ title: 'From YAML', description: 'Short', tags: ['a', 'b'] });
    expect(withFrontmatter.document.nodes.map((b) => b.type)).toEqual(['heading-1', 'paragraph']);

    const fromHeading = convert('# The *Title*\n\nBody');
    expect(fromHeading.title).toBe('The Title');
    expect(fromHeading.frontmatter).toEqual({});
    expect(fromHeading.document.nodes.map((b) => b.type)).toEqual(['paragraph']);

    const none = convert('Body\n\n# Later heading');
    expect(none.title).toBeUndefined();
    expect(none.document.nodes.map((b) => b.type)).toEqual(['paragraph', 'heading-1']);
  });

  it('a numeric frontmatter title is still the title', () => {
    expect(convert('---\ntitle: 2024\n---\nBody').title).toBe('2024');
  });

  it('invalid frontmatter is an error, not silently ignored', () => {
    expect(() => markdownToDocument('---\ntitle: [unclosed\n---\nBody')).toThrow(MarkdownConversionError);
    expect(() => markdownToDocument('---\n- a list\n---\nBody')).toThrow(/mapping/);
  });

  it('raw HTML GitBook does not write is kept visible: blocks as html code blocks, inline HTML as its text', () => {
    const [html, p] = blocks('<div class="x">\n  <b>hi</b>\n</div>\n\nSome <t>Ctrl</t> key');
    expect(unkeyed(html)).toEqual({
      object: 'block',
      type: 'code',
      isVoid: false,
      data: { syntax: 'html' },
      nodes: [codeLine('<div class="x">'), codeLine('  <b>hi</b>'), codeLine('</div>')],
    });
    expect(unkeyed(p)).toEqual(paragraph(text('Some <t>Ctrl</t> key')));
  });

  it('footnotes that follow no word (no annotation: markdown-gitbook-constructs.test.ts) stay as text; unused link definitions render nothing', () => {
    const result = blocks('Claim [^n].\n\n[^n]: The *source*.\n\n[unused]: https://example.com "T"\n\n[//]: # (a comment)');
    expect(result.map((b) => (b.type === 'paragraph' ? textOf(b.nodes) : b.type))).toEqual(['Claim [^n].', '[^n]: The source.']);
  });

  it('empty input gives an empty document', () => {
    expect(convert('').document).toEqual({ object: 'document', data: {}, nodes: [] });
  });
});

describe('markdownToDocument: keys and determinism', () => {
  const sample = '# T\n\nA [l](/pages/x) ![i](/files/y)\n\n| a |\n|---|\n| b |\n\n![c](/files/z "cap")\n\n- x\n  - y';

  it('gives every block, inline, text and fragment a key, unique in the document', () => {
    const { document } = convert(sample);
    const keys = collectKeys(document.nodes);
    expect(keys.length).toBeGreaterThan(15);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is deterministic: the same Markdown gives the same document', () => {
    expect(JSON.stringify(convert(sample))).toBe(JSON.stringify(convert(sample)));
  });
});

// ---------------------------------------------------------------------------------------------
// Document -> Markdown

/** One of every supported block and mark, in the exact form the converter emits. */
function everyBlockDocument(): JSONDocument {
  const block = (type: string, extra: Record<string, unknown>) => ({ object: 'block', type, isVoid: false, data: {}, ...extra });
  const doc = {
    object: 'document',
    data: {},
    nodes: [
      paragraph('Before the heading (a leading heading 1 would be read back as the title).'),
      block('heading-1', { meta: { id: 'heading-one' }, nodes: [text('Heading one')] }),
      paragraph(
        text(
          'Plain ',
          leaf('bold', 'bold'),
          ' ',
          leaf('italic', 'italic'),
          ' ',
          leaf('both', 'bold', 'italic'),
          ' ',
          leaf('code', 'code'),
          ' ',
          leaf('struck', 'strikethrough'),
          ' line\nbreak ',
        ),
        link({ kind: 'url', url: 'https://example.com' }, 'url'),
        ' ',
        link({ kind: 'page', page: 'page-1' }, text(leaf('page', 'bold'))),
        ' ',
        link({ kind: 'file', file: 'file-1' }, 'file'),
        ' ',
        link({ kind: 'anchor', page: 'page-1', anchor: 'part' }, 'anchor'),
        ' ',
        { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: { kind: 'file', file: 'icon' }, alt: 'icon' } },
        '',
      ),
      block('heading-2', { data: { id: 'custom-anchor' }, meta: { id: 'custom-anchor' }, nodes: [text('Heading two')] }),
      block('heading-3', { meta: { id: 'heading-three' }, nodes: [text('Heading three')] }),
      paragraph(
        text(
          leaf('Ctrl', 'keyboard'),
          ' x',
          leaf('2', 'superscript'),
          ' H',
          leaf('2', 'subscript'),
          'O ',
          { object: 'leaf', text: 'orange', marks: [{ object: 'mark', type: 'color', data: { text: 'orange', background: 'purple' } }] },
          ' ',
        ),
        { object: 'inline', type: 'inline-math', isVoid: true, data: { formula: 'e = mc^2' } },
        ' ',
        { object: 'inline', type: 'expression', isVoid: true, data: { expression: 'space.vars.version' } },
        ' ',
        { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: { kind: 'url', url: 'https://cdn.example/i.png' }, alt: 'icon', size: 'line' } },
        '',
      ),
      block('list-unordered', {
        nodes: [item([paragraph('one')]), item([paragraph('two'), block('list-ordered', { nodes: [item([paragraph('two.a')])] })])],
      }),
      block('list-ordered', { data: { start: 4 }, nodes: [item([paragraph('four')]), item([paragraph('five')])] }),
      block('list-tasks', { nodes: [item([paragraph('todo')], { checked: false }), item([paragraph('done')], { checked: true })] }),
      block('code', { data: { syntax: 'python' }, nodes: [codeLine('def f():'), codeLine('    return "```"')] }),
      block('code', { data: { syntax: 'js', title: 'a.js', lineNumbers: true }, nodes: [codeLine('a()')] }),
      block('blockquote', { nodes: [paragraph('quoted'), block('blockquote', { nodes: [paragraph('deeper')] })] }),
      block('hint', {
        data: { style: 'warning' },
        nodes: [paragraph('Careful:'), block('list-unordered', { nodes: [item([paragraph('a')]), item([paragraph('b')])] })],
      }),
      block('images', {
        nodes: [
          {
            object: 'block',
            type: 'image',
            isVoid: true,
            data: { ref: { kind: 'file', file: 'shot' }, alt: 'Screenshot' },
            fragments: [{ object: 'fragment', fragment: 'caption', nodes: [paragraph('The caption')] }],
          },
          { object: 'block', type: 'image', isVoid: true, data: { ref: { kind: 'url', url: 'https://cdn.example/x.png' } }, fragments: [] },
        ],
      }),
      {
        object: 'block',
        type: 'file',
        isVoid: true,
        data: { ref: { kind: 'file', file: 'report' } },
        fragments: [{ object: 'fragment', fragment: 'caption', nodes: [paragraph('Report')] }],
      },
      { object: 'block', type: 'divider', isVoid: true, data: {} },
      {
        object: 'block',
        type: 'table',
        isVoid: true,
        data: {
          view: { type: 'grid', columns: ['c1', 'c2'], hideHeader: false },
          definition: {
            c1: { id: 'c1', title: 'Key', type: 'text', textAlignment: 'left' },
            c2: { id: 'c2', title: 'Value', type: 'text', textAlignment: 'center' },
          },
          records: {
            r1: { orderIndex: '0000', values: { c1: 'r1-c1', c2: 'r1-c2' } },
            r2: { orderIndex: '0001', values: { c1: 'r2-c1', c2: 'r2-c2' } },
          },
        },
        fragments: [
          { object: 'fragment', fragment: 'r1-c1', nodes: [paragraph(text(leaf('a', 'bold')))] },
          { object: 'fragment', fragment: 'r1-c2', nodes: [paragraph('1 | 2')] },
          { object: 'fragment', fragment: 'r2-c1', nodes: [paragraph('b')] },
          { object: 'fragment', fragment: 'r2-c2', nodes: [paragraph('', link({ kind: 'page', page: 'p2' }, 'see'), '')] },
        ],
      },
      { object: 'block', type: 'embed', isVoid: true, data: { url: 'https://www.youtube.com/watch?v=x' } },
      {
        object: 'block',
        type: 'embed',
        isVoid: true,
        data: { url: 'https://github.com/GitbookIO' },
        fragments: [{ object: 'fragment', fragment: 'caption', nodes: [paragraph('Our code')] }],
      },
      { object: 'block', type: 'math', isVoid: true, data: { formula: '(a = b) / 2' } },
      { object: 'block', type: 'drawing', isVoid: true, data: { ref: { kind: 'file', file: 'drawing-1' } } },
      {
        object: 'block',
        type: 'expandable',
        isVoid: true,
        data: {},
        fragments: [
          { object: 'fragment', fragment: 'expandable-title', type: 'expandable-title', nodes: [paragraph('More details')] },
          { object: 'fragment', fragment: 'expandable-body', type: 'expandable-body', nodes: [paragraph('Hidden'), block('list-unordered', { nodes: [item([paragraph('x')])] })] },
        ],
      },
      block('tabs', {
        nodes: [
          block('tabs-item', { data: { title: 'Ruby' }, nodes: [block('code', { data: { syntax: 'ruby' }, nodes: [codeLine('puts 1')] })] }),
          block('tabs-item', { data: { title: 'Text' }, nodes: [paragraph('Second tab')] }),
        ],
      }),
      block('stepper', {
        nodes: [
          block('stepper-step', { nodes: [block('heading-3', { meta: { id: 'first-step' }, nodes: [text('First step')] }), paragraph('Do this.')] }),
          block('stepper-step', { nodes: [paragraph('Then that.')] }),
        ],
      }),
      block('columns', {
        nodes: [
          block('column', { data: { width: { unit: '%', value: 50 } }, nodes: [paragraph('Left')] }),
          block('column', { data: { width: { unit: '%', value: 50 } }, nodes: [paragraph('Right')] }),
        ],
      }),
      block('updates', {
        data: { format: 'full' },
        nodes: [block('update', { data: { date: '2025-01-02T00:00:00.000Z', tags: [{ kind: 'tag', tag: 'release' }] }, nodes: [paragraph('Released.')] })],
      }),
      { object: 'block', type: 'content-ref', isVoid: true, data: { ref: { kind: 'page', page: 'p3' } } },
      block('if', { data: { expression: 'visitor.claims.plan == "pro"' }, nodes: [paragraph('Only for pro.')] }),
      { object: 'block', type: 'swagger', isVoid: true, data: { ref: { kind: 'url', url: 'https://api.example/openapi.yaml' }, path: '/pets', method: 'get' } },
      { object: 'block', type: 'openapi-operation', isVoid: true, data: { ref: { kind: 'openapi', spec: 'petstore' }, path: '/pets', method: 'post' } },
      { object: 'block', type: 'openapi-schemas', isVoid: true, data: { ref: { kind: 'openapi', spec: 'petstore' }, schemas: ['Pet', 'Tag'], grouped: true } },
      { object: 'block', type: 'openapi-webhook', isVoid: true, data: { ref: { kind: 'openapi', spec: 'petstore' }, name: 'newPet', method: 'post' } },
      // Props are empty here: GitBook's schema (`PlainObject`, a oneOf whose first member matches any value)
      // rejects every string, number or boolean prop; see the integration test below for props read from Markdown.
      { object: 'block', type: 'integration', isVoid: true, data: { integration: 'mermaid', block: 'diagram', props: {} } },
      { object: 'block', type: 'reusable-content', isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: 'rc-1' } } },
      block('prompt', { data: { description: 'Ask the assistant' }, nodes: [block('code', { data: {}, nodes: [codeLine('Summarize this page')] })] }),
    ],
  } as JSONDocument;
  return assignKeys(doc);
}

const EVERY_BLOCK_MARKDOWN = `Before the heading (a leading heading 1 would be read back as the title).

## Heading one

Plain **bold** _italic_ _**both**_ \`code\` ~~struck~~ line\\
break [url](https://example.com) [**page**](/pages/page-1) [file](/files/file-1) [anchor](/pages/page-1#part) ![icon](/files/icon)

### Heading two <a href="#custom-anchor" id="custom-anchor"></a>

#### Heading three

<kbd>Ctrl</kbd> x<sup>2</sup> H<sub>2</sub>O <mark style="color:orange;background-color:purple;">orange</mark> $$e = mc^2$$ <code class="expression">space.vars.version</code> <img src="https://cdn.example/i.png" alt="icon" data-size="line">

* one
* two
  1. two.a

4. four
5. five

* [ ] todo
* [x] done

\`\`\`\`python
def f():
    return "\`\`\`"
\`\`\`\`

{% code title="a.js" lineNumbers="true" %}
\`\`\`js
a()
\`\`\`
{% endcode %}

> quoted
>
> > deeper

{% hint style="warning" %}
Careful:

* a
* b
{% endhint %}

<div><figure><img src="/files/shot" alt="Screenshot"><figcaption><p>The caption</p></figcaption></figure> <figure><img src="https://cdn.example/x.png" alt=""><figcaption></figcaption></figure></div>

{% file src="/files/report" %}
Report
{% endfile %}

***

| Key   |       Value      |
| ----- | :--------------: |
| **a** |      1 \\| 2      |
| b     | [see](/pages/p2) |

{% embed url="https://www.youtube.com/watch?v=x" %}

{% embed url="https://github.com/GitbookIO" %}
Our code
{% endembed %}

$$
(a = b) / 2
$$

<img src="/files/drawing-1" alt="" class="gitbook-drawing">

<details>

<summary>More details</summary>

Hidden

* x

</details>

{% tabs %}
{% tab title="Ruby" %}
\`\`\`ruby
puts 1
\`\`\`
{% endtab %}

{% tab title="Text" %}
Second tab
{% endtab %}
{% endtabs %}

{% stepper %}
{% step %}
#### First step

Do this.
{% endstep %}

{% step %}
Then that.
{% endstep %}
{% endstepper %}

{% columns %}
{% column width="50%" %}
Left
{% endcolumn %}

{% column width="50%" %}
Right
{% endcolumn %}
{% endcolumns %}

{% updates format="full" %}
{% update date="2025-01-02" tags="release" %}
Released.
{% endupdate %}
{% endupdates %}

{% content-ref url="/pages/p3" %}
[/pages/p3](/pages/p3)
{% endcontent-ref %}

{% if visitor.claims.plan == "pro" %}
Only for pro.
{% endif %}

{% openapi src="https://api.example/openapi.yaml" path="/pets" method="get" %}
[https://api.example/openapi.yaml](https://api.example/openapi.yaml)
{% endopenapi %}

{% openapi-operation spec="petstore" path="/pets" method="post" %}
[OpenAPI petstore](/openapi/petstore)
{% endopenapi-operation %}

{% openapi-schemas spec="petstore" schemas="Pet,Tag" grouped="true" %}
[OpenAPI petstore](/openapi/petstore)
{% endopenapi-schemas %}

{% openapi-webhook spec="petstore" name="newPet" method="post" %}
[OpenAPI petstore](/openapi/petstore)
{% endopenapi-webhook %}

{% @mermaid/diagram %}

{% include "rc-1" %}

{% prompt description="Ask the assistant" %}
\`\`\`
Summarize this page
\`\`\`
{% endprompt %}
`;

describe('documentToMarkdown', () => {
  it('writes every supported block and mark', () => {
    const document = everyBlockDocument();
    expectValid(document);
    const markdown = documentToMarkdown(document);
    expect(markdown).toBe(EVERY_BLOCK_MARKDOWN);
  });

  it('writes hrefs through hrefFor', () => {
    const document = assignKeys({
      object: 'document',
      data: {},
      nodes: [paragraph('', link({ kind: 'page', page: 'p1' }, 'Page'), ' ', link({ kind: 'url', url: 'https://x.example' }, 'Out'), '')],
    } as JSONDocument);
    const hrefFor = (ref: ContentRef) => (ref.kind === 'page' ? `/docs/${ref.page}` : defaultHrefFor(ref));
    expect(documentToMarkdown(document, { hrefFor })).toBe('[Page](/docs/p1) [Out](https://x.example)\n');
  });

  it('default hrefs for every kind of reference', () => {
    expect(
      ([
        { kind: 'url', url: 'https://a.example' },
        { kind: 'file', file: 'f' },
        { kind: 'page', page: 'p' },
        { kind: 'page', page: 'p', space: 's' },
        { kind: 'anchor', anchor: 'x' },
        { kind: 'anchor', anchor: 'x', page: 'p' },
        { kind: 'space', space: 's' },
        { kind: 'collection', collection: 'c' },
        { kind: 'user', user: 'u' },
        { kind: 'reusable-content', reusableContent: 'r' },
        { kind: 'openapi', spec: 'o' },
      ] as ContentRef[]).map(defaultHrefFor),
    ).toEqual(['https://a.example', '/files/f', '/pages/p', '/spaces/s/pages/p', '#x', '/pages/p#x', '/spaces/s', '/collections/c', '/users/u', '/reusable-contents/r', '/openapi/o']);
  });

  it('writes the title and frontmatter when asked, so that they read back', () => {
    const { document } = convert('Body\n');
    const markdown = documentToMarkdown(document, { title: 'My *page*', frontmatter: { description: 'About' } });
    expect(markdown).toBe('---\ndescription: About\n---\n\n# My \\*page\\*\n\nBody\n');
    const back = convert(markdown);
    expect([back.title, back.description, back.document]).toEqual(['My *page*', 'About', document]);
  });

  it("marks without Markdown syntax are GitBook's HTML (<kbd>, <mark style>), and read back", () => {
    const document = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          nodes: [
            {
              object: 'text',
              leaves: [
                { object: 'leaf', text: 'Ctrl', marks: [{ object: 'mark', type: 'keyboard' }] },
                { object: 'leaf', text: ' red', marks: [{ object: 'mark', type: 'color', data: { text: 'red', background: 'default' } }] },
              ],
            },
          ],
        },
      ],
    };
    const parsed = parseDocument(document);
    expect(parsed.success).toBe(true);
    const markdown = documentToMarkdown(document as JSONDocument);
    expect(markdown).toBe('<kbd>Ctrl</kbd><mark style="color:red;"> red</mark>\n');
    expect(unkeyed(convert(markdown).document.nodes)).toEqual(unkeyed(document.nodes.map((node) => ({ ...node, isVoid: false, data: {} }))));
  });

  it('escapes text that would read back as something else', () => {
    const document = assignKeys({
      object: 'document',
      data: {},
      nodes: [paragraph('*not emphasis* # 1. [x](y) <b> {% hint style="info" %}'), paragraph('{% endhint %}')],
    } as JSONDocument);
    const markdown = documentToMarkdown(document);
    expect(convert(markdown).document).toEqual(document);
  });

  it('writes non-text table columns in GitBook\'s HTML form, their values as text', () => {
    const table = {
      object: 'block',
      type: 'table',
      isVoid: true,
      data: {
        view: { type: 'grid', columns: ['n', 'c', 's', 'r'], hideHeader: false },
        definition: {
          n: { id: 'n', title: 'Number', type: 'number' },
          c: { id: 'c', title: 'Done', type: 'checkbox' },
          s: { id: 's', title: 'Tags', type: 'select', multiple: true, options: [] },
          r: { id: 'r', title: 'Ref', type: 'content-ref' },
        },
        records: { b: { orderIndex: 'b', values: { n: 2, c: false } }, a: { orderIndex: 'a', values: { n: 1, c: true, s: ['x', 'y'], r: { kind: 'page', page: 'p' } } } },
      },
      fragments: [],
    };
    const document = { object: 'document', data: {}, nodes: [table] } as unknown as JSONDocument;
    expect(parseDocument(document).success).toBe(true);
    // GitBook's HTML form, which names each column's type (`<th data-type="number">`); values as text.
    expect(documentToMarkdown(document)).toBe(
      '<table><thead><tr><th data-type="number">Number</th><th data-type="checkbox">Done</th><th data-type="select">Tags</th><th data-type="content-ref">Ref</th></tr></thead>' +
        '<tbody><tr><td>1</td><td>true</td><td>x, y</td><td><a href="/pages/p">/pages/p</a></td></tr><tr><td>2</td><td>false</td><td></td><td></td></tr></tbody></table>\n',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Round trips

const CORPUS: Record<string, string> = {
  prose: 'Plain text with **bold**, *italic*, `code`, ~~strike~~, ***both***, **bold `code`** and a\nsoft break.\n\nSecond paragraph with a hard  \nbreak and an escaped \\*star\\*.',
  nestedMarks: '**bold *italic inside* bold** *italic **bold inside** italic* a**b**c ~~**x** y~~ **a** **b**',
  headings: 'Intro\n\n# One\n\n## Two *em*\n\n### Three `code`\n\n#### Four\n\nSetext\n======',
  lists: '- a\n- b\n  - b1\n  - b2\n    1. deep\n- c\n\n7. seven\n8. eight\n\n* loose\n\n* list\n\n- [ ] task\n- [x] done\n\n1. [ ] ordered task',
  listBlocks: '1. Step one\n\n   ```bash\n   npm install\n   ```\n\n   > note\n\n2. Step two\n\n   | a | b |\n   |---|---|\n   | 1 | 2 |',
  code: '```js\nconst x = "`";\n```\n\n~~~\nplain\n~~~\n\n    indented\n\n````md\n```\nnested fence\n```\n````\n\n```\n```',
  quotes: '> one\n>\n> > two\n> > > three\n>\n> - item\n> # heading in quote',
  hints:
    '{% hint style="info" %}\nInfo with [link](/pages/p1).\n{% endhint %}\n\n{% hint style="warning" %}\n- a\n- b\n  - c\n{% endhint %}\n\n{% hint style="danger" %}\n## Heading\n\n1. x\n\n---\n{% endhint %}\n\n{% hint style="success" %}\nok\n{% endhint %}',
  hintsOddities: '{% hint style="info" %}\ncode inside\n\n```\nx\n```\n{% endhint %}\n\n> {% hint style="info" %}\n> quoted hint\n> {% endhint %}\n\n{% hint style="weird" %}\nunknown style\n{% endhint %}\n\n{% hint style="info" %}\nunclosed',
  images: '![a](/files/f1)\n\n![b](https://x.example/b.png "Caption B") ![c](/files/f3)\n\nText ![inline](/files/f4) text\n\n[![linked](/files/f5)](https://x.example)\n\n- ![in list](/files/f6 "cap")',
  files: '{% file src="/files/f1" %}\nCaption **bold**\n{% endfile %}\n\n{% file src="/files/f2" %}\n{% endfile %}\n\n{% file src="https://x.example/doc.pdf" %}\nExternal\n{% endfile %}\n\n- {% file src="/files/f3" %}\n  {% endfile %}',
  tables: '| Left | Center | Right | Plain |\n|:-----|:------:|------:|-------|\n| **b** | `c` | [l](/pages/p) | a \\| b |\n| | x | | ![i](/files/f) |\n\n|  |  |\n|--|--|\n| no | header |\n\n| a |\n|---|\n| b | extra |',
  links: '[url](https://example.com) [page](/pages/p1) [file](/files/f1) [anchor](/pages/p1#sec) [space](/spaces/s1/pages/p2) [rel](../x.md) [empty]() [](/pages/p3) <https://auto.example> www.gfm.example [ref][r] [titled](https://t.example "Title")\n\n[r]: /pages/p4',
  html: '<div>\n<p>block html</p>\n</div>\n\nInline <span class="x">html</span> and <!-- comment -->.\n\n<details>\n<summary>More</summary>\n\nHidden *markdown*\n\n</details>',
  footnotes: 'Text[^1] and[^note].\n\n[^1]: First.\n[^note]: Second\n    with more.\n\n[unused]: https://u.example',
  escapes: '\\# not heading\n\n1986\\. not a list\n\n\\- not a list\n\n\\> not a quote\n\n\\{% hint style="info" %}\n\n&copy; &amp; &lt;b&gt; \\<tag> \\`tick\\` \\_u\\_ \\[x](y)\n\n\\| pipe',
  unicode: 'Émoji 🎉 ünïcödé — “quotes” 中文 **粗体** *斜体*',
  dividers: 'a\n\n***\n\nb\n\n___\n\nc\n\n- - -',
  mixed:
    '---\ntitle: Mixed\n---\n# Kept heading\n\nIntro paragraph.\n\n{% code title="x.sh" overflow="wrap" %}\n```sh\necho hi\n```\n{% endcode %}\n\n> {% hint style="info" %}\n> in quote\n> {% endhint %}\n\n- list\n\n  {% hint style="success" %}\n  hint in list\n  {% endhint %}',
};

describe('round trips', () => {
  // Also document -> Markdown -> document for every document the corpus produces (`second` is `first` read back;
  // the title goes along: without it, a document opening with a heading 1 would lose it to the title). A
  // separate test once did the same conversions again over the whole corpus, for a sixth of this file's time.
  it.each(Object.entries(CORPUS))('%s: Markdown -> document -> Markdown is a fixed point after one pass', (_name, markdown) => {
    const first = convert(markdown);
    const once = documentToMarkdown(first.document, { title: first.title });
    const second = convert(once);
    expect(second.title).toBe(first.title);
    // The same content; the source patch each carries is of the Markdown it was read from.
    expect(withoutSourcePatch(second.document)).toEqual(withoutSourcePatch(first.document));
    expect(documentToMarkdown(second.document, { title: second.title })).toBe(once);
  });

  it('document -> Markdown -> document is the same document for every supported block', () => {
    const document = everyBlockDocument();
    const back = convert(documentToMarkdown(document)).document;
    expect(back).toEqual(document);
  });

  it('a large document (2,000 paragraphs and more) converts both ways', () => {
    const parts: string[] = [];
    for (let i = 0; i < 2000; i++) {
      parts.push(`Paragraph ${i} with **bold ${i}**, a [link](/pages/p${i}) and \`code\`.`);
      if (i % 100 === 0) parts.push(`## Section ${i}\n\n- item ${i}\n- item ${i + 1}\n\n{% hint style="info" %}\nHint ${i}\n{% endhint %}`);
    }
    const markdown = parts.join('\n\n');
    // Checked with our schema only: the generic JSON-schema validator takes seconds on this size.
    const { document } = markdownToDocument(markdown);
    expect(parseDocument(document).success).toBe(true);
    expect(document.nodes.filter((b) => b.type === 'paragraph')).toHaveLength(2000);
    expect(document.nodes.filter((b) => b.type === 'hint')).toHaveLength(20);
    const written = documentToMarkdown(document);
    expect(markdownToDocument(written).document).toEqual(document);
  });
});

// ---------------------------------------------------------------------------------------------
// Validation of posted documents

describe('the GitBook schema check', () => {
  it('is not vacuous: it rejects what GitBook would', () => {
    const bad = [
      { object: 'document', data: {}, nodes: [{ object: 'block', type: 'hint', data: { style: 'loud' }, nodes: [] }] },
      { object: 'document', data: {}, nodes: [{ object: 'block', type: 'hint', data: { style: 'info' }, nodes: [{ object: 'block', type: 'code', data: {}, nodes: [] }] }] },
      { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'x' }] }] }] },
      { object: 'document', data: {}, nodes: [{ object: 'block', type: 'image', isVoid: true, data: { ref: { kind: 'url', url: 'x' } }, fragments: [] }] },
    ];
    for (const document of bad) expect(jsonDocumentValidator.validate(document).valid).toBe(false);
    expect(jsonDocumentValidator.validate(everyBlockDocument()).valid).toBe(true);
  });
});

describe('parseDocument', () => {
  const valid = () => everyBlockDocument() as unknown as { nodes: Array<Record<string, unknown>> };

  it('accepts documents without keys and with extra GitBook fields', () => {
    const doc = {
      object: 'document',
      data: { schemaVersion: 1 },
      nodes: [{ object: 'block', type: 'heading-1', data: {}, meta: { id: 'x' }, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'x', marks: [] }] }] }],
    };
    expect(parseDocument(doc)).toMatchObject({ success: true });
  });

  it('rejects an unknown block type, naming its path', () => {
    const doc = valid();
    (doc.nodes[6].nodes as Array<Record<string, unknown>>)[1] = { object: 'block', type: 'callout', nodes: [] };
    const result = parseDocument(doc);
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.error).toContain('document.nodes[6].nodes[1].type');
      expect(result.error).toContain('"callout"');
    }
  });

  it('rejects a block where GitBook does not allow it (code inside a hint), naming its path', () => {
    const doc = valid();
    const hint = doc.nodes.find((n) => n.type === 'hint') as { nodes: unknown[] };
    hint.nodes.push(doc.nodes.find((n) => n.type === 'code'));
    const result = parseDocument(doc);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.issues).toEqual([expect.stringMatching(/^document\.nodes\[12\]\.nodes\[2\]\.type: unsupported block type "code" here/)]);
  });

  it('rejects unknown inlines, marks and references, and malformed fields, with paths', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'inline', type: 'sparkle', data: {} }] }] }, /nodes\[0\]\.nodes\[0\]\.type: unsupported inline type "sparkle"/],
      [
        { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'x', marks: [{ object: 'mark', type: 'blink' }] }] }] }] },
        /nodes\[0\]\.nodes\[0\]\.leaves\[0\]\.marks\[0\]\.type: unsupported mark type "blink"/,
      ],
      [
        { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'inline', type: 'link', data: { ref: { kind: 'ftp', x: 1 } }, nodes: [] }] }] },
        /nodes\[0\]\.nodes\[0\]\.data\.ref\.kind: unsupported content reference kind "ftp"/,
      ],
      [{ object: 'document', data: {}, nodes: [{ object: 'block', type: 'hint', data: { style: 'loud' }, nodes: [] }] }, /nodes\[0\]\.data\.style/],
      [{ object: 'document', data: {}, nodes: [{ object: 'block', type: 'file', isVoid: true, data: { ref: { kind: 'url', url: 'x' } } }] }, /nodes\[0\]\.data\.ref\.kind/],
      [{ object: 'document', nodes: [] }, /^document\.data: /],
      [{ object: 'page', data: {}, nodes: [] }, /^document\.object: /],
      ['not a document', /^document: /],
    ];
    for (const [input, pattern] of cases) {
      const result = parseDocument(input);
      expect(result.success).toBe(false);
      if (!result.success) expect(result.issues.join('\n')).toMatch(pattern);
    }
  });

  it('rejects duplicate keys, naming both places', () => {
    const doc = { object: 'document', data: {}, nodes: [paragraph('a'), paragraph('b')].map((p) => ({ ...p, key: 'same' })) };
    const result = parseDocument(doc);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toContain('document.nodes[1].key: duplicate key "same" (already used at document.nodes[0])');
  });
});

// ---------------------------------------------------------------------------------------------
// Hostile input: bounded work, clear errors

describe('hostile Markdown', () => {
  const timed = (markdown: string) => {
    const start = Date.now();
    let error: unknown = null;
    try {
      const { document } = markdownToDocument(markdown);
      documentToMarkdown(document);
    } catch (caught) {
      error = caught;
    }
    return { ms: Date.now() - start, error };
  };

  it('nesting deeper than GitBook could show is a MarkdownConversionError, not a stack overflow', () => {
    for (const markdown of ['>'.repeat(3000) + ' deep', '{% tabs %}\n{% tab title="a" %}\n'.repeat(500) + 'x\n' + '{% endtab %}\n{% endtabs %}\n'.repeat(500)]) {
      const { error } = timed(markdown);
      expect(error).toBeInstanceOf(MarkdownConversionError);
      expect((error as Error).message).toMatch(/nested too deeply/);
    }
  });

  it('input longer than 4 MiB is refused with a MarkdownConversionError', () => {
    expect(timed('a'.repeat(4 * 1024 * 1024 + 1)).error).toBeInstanceOf(MarkdownConversionError);
  });

  it('unclosed tags, inline HTML and long tag lines convert in linear time', () => {
    const cases = [
      '{% hint style="info" %}\n'.repeat(5000),
      '<b>'.repeat(5000) + 'x',
      '<mark style="color:red;">'.repeat(5000) + 'x',
      '<details>\n\n'.repeat(5000),
      `{% ${'a'.repeat(100_000)}\n`,
      `{% hint ${'a'.repeat(100_000)} %}\n`,
    ];
    // Quadratic work on these sizes takes minutes: the test's time limit is the bound (no timing assertion,
    // which a loaded machine would fail; `npm run bench` measures the conversion's CPU).
    for (const markdown of cases) expect(timed(markdown).error).toBeNull();
  }, 60_000);
});

describe("the source's Markdown style", () => {
  it("is recorded where it differs from GitBook's export, so that hand-written Markdown comes back as written", () => {
    const markdown = '- one *two* __three__\n- four\n\nCall f\\(x\\) now.\n\n## Title <a id="title"></a>\n';
    const { document } = convert(markdown);
    expect(document.data).toEqual({ markdownStyle: { bullet: '-', emphasis: '*', strong: '_', escapedParentheses: true, headingAnchors: 'id' } });
    expect(documentToMarkdown(document)).toBe(markdown);
  });

  it("records nothing for GitBook's own style, and a document without a record is written in GitBook's style", () => {
    const markdown = '* one _two_ **three**\n* four\n\nCall f(x) now.\n\n## Title <a href="#title" id="title"></a>\n';
    const { document } = convert(markdown);
    expect(document.data).toEqual({});
    expect(documentToMarkdown(document)).toBe(markdown);
    expect(documentToMarkdown({ ...convert('- a *b*\n').document, data: {} })).toBe('* a _b_\n');
  });

  it('ignores a recorded style with values it does not know', () => {
    const { document } = convert('- a\n');
    expect(documentToMarkdown({ ...document, data: { markdownStyle: { bullet: '>', emphasis: 7 } as unknown as MarkdownStyle } })).toBe('* a\n');
  });
});

describe('front matter', () => {
  it("reads GitBook's page fields, each of its type, and keeps every key in frontmatter", () => {
    const markdown = [
      '---',
      'description: What this page is about',
      'icon: book-open',
      'cover: .gitbook/assets/cover.png',
      'coverY: 12',
      'hidden: true',
      'if: visitor.claims.pro',
      'layout:',
      '  width: wide',
      '  tableOfContents:',
      '    visible: false',
      'vars:',
      '  version: 2',
      'custom: kept',
      '---',
      '',
      '# Title',
      '',
      'Body',
    ].join('\n');
    const result = convert(markdown);
    expect(result.page).toEqual({
      description: 'What this page is about',
      icon: 'book-open',
      cover: '.gitbook/assets/cover.png',
      coverY: 12,
      hidden: true,
      if: 'visitor.claims.pro',
      // Read onto GitBook's defaults: the fields a page's layout has.
      layout: { width: 'wide', cover: true, coverSize: 'hero', title: true, description: true, tableOfContents: false, outline: true, pagination: true, metadata: true },
      vars: { version: 2 },
    });
    expect(result.frontmatter.custom).toBe('kept');
    // Written back with its front matter, the page is the same Markdown (without a final newline, as its source).
    expect(documentToMarkdown(result.document, { title: result.title, frontmatter: result.frontmatter })).toBe(markdown);
  });

  it('leaves out fields of the wrong type', () => {
    expect(convert('---\nhidden: "yes"\nlayout: wide\ncoverY: top\n---\n\nx').page).toEqual({});
  });
});

describe("the author's own Markdown, kept where ours differs (source patch)", () => {
  const HAND_WRITTEN = [
    '---',
    'description: "Quoted, as some editors write it"',
    'cover: .gitbook/assets/cover.png',
    '---',
    '# Hand written',
    '',
    '',
    '- a dash bullet with [http://localhost:8024](http://localhost:8024)',
    '- and a second one',
    '',
    '| Name | Value |',
    '|:-----|:------|',
    '| a    | b     |',
    '',
    'Text with \\(escaped\\) parentheses and *stars*.',
    '',
    'Last paragraph.',
    '',
  ].join('\n');

  it('writes a hand-written page back byte for byte, head and body', () => {
    const { document, title, frontmatter } = markdownToDocument(HAND_WRITTEN);
    expect(documentToMarkdown(withoutSourcePatch(document), { title, frontmatter })).not.toBe(HAND_WRITTEN);
    expect(documentToMarkdown(document, { title, frontmatter })).toBe(HAND_WRITTEN);
    // The page fields a read writes back are the ones front matter set: the source's head comes back.
    expect(documentToMarkdown(document, { title, frontmatter: { description: 'Quoted, as some editors write it' } })).toBe(HAND_WRITTEN);
  });

  it('an edited block is written our way, the rest as the author wrote it', () => {
    const { document, title, frontmatter } = markdownToDocument(HAND_WRITTEN);
    const last = document.nodes.at(-1) as DocumentBlockParagraph;
    (last.nodes[0] as DocumentText).leaves = [{ object: 'leaf', text: 'Changed *paragraph*.', marks: [] }];
    const written = documentToMarkdown(document, { title, frontmatter });
    expect(written).toBe(HAND_WRITTEN.replace('Last paragraph.', 'Changed \\*paragraph\\*.'));
  });

  it('a changed title or page field is written in the head as written, and keeps the body', () => {
    const { document, frontmatter } = markdownToDocument(HAND_WRITTEN);
    const written = documentToMarkdown(document, { title: 'Renamed', frontmatter: { ...frontmatter, description: 'New' } });
    // Only the heading's line changes: the author's blank lines around it (none before, two after) stay.
    expect(written.split('\n').slice(0, 7)).toEqual(['---', 'description: New', 'cover: .gitbook/assets/cover.png', '---', '# Renamed', '', '']);
    expect(written.slice(written.indexOf('- a dash'))).toBe(HAND_WRITTEN.slice(HAND_WRITTEN.indexOf('- a dash')));
  });

  it("a line linking to the space's content is written with the link's current target, by id", () => {
    const source = '- a [page](../guide/page.md), see [http://x.example](http://x.example)\n- another\n\nText with \\(escaped\\) parentheses.\n';
    // The relative link read as a link to a page: its source path would go stale when the page moves.
    const resolveLink = (href: string): ContentRef | null => (href.endsWith('.md') ? { kind: 'page', page: 'p1' } : null);
    const { document } = markdownToDocument(source, { resolveLink });
    // The author's line is kept with the link written by id, which the export names by its current path.
    expect(documentToMarkdown(document)).toBe('- a [page](/pages/p1), see [http://x.example](http://x.example)\n- another\n\nText with \\(escaped\\) parentheses.\n');
    const hrefFor = (ref: ContentRef) => (ref.kind === 'page' ? `https://docs.example/${ref.page}` : defaultHrefFor(ref));
    expect(documentToMarkdown(document, { hrefFor })).toBe('- a [page](https://docs.example/p1), see <http://x.example>\n- another\n\nText with \\(escaped\\) parentheses.\n');
  });

  it('a link definition is kept only with the reference that uses it', () => {
    const source = 'See [the guide][g] and [http://x.example](http://x.example).\n\n[g]: ../guide.md\n';
    const resolveLink = (href: string): ContentRef | null => (href.endsWith('.md') ? { kind: 'page', page: 'p1' } : defaultResolveLink(href));
    const { document } = markdownToDocument(source, { resolveLink });
    const written = documentToMarkdown(document);
    // Read again, it is the same document: no definition left behind as text.
    expect(withoutSourcePatch(markdownToDocument(written, { resolveLink }).document)).toEqual(withoutSourcePatch(document));
    expect(written).toBe('See [the guide][g] and [http://x.example](http://x.example).\n\n[g]: /pages/p1\n');
  });

  it("a client's document cannot carry a patch: the Markdown of a document never says something else", () => {
    const forged = {
      object: 'document',
      data: { markdownSource: { hunks: [{ at: 0, remove: ['Hello'], add: ['Something else entirely'], before: null, after: '' }] } },
      nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Hello', marks: [] }] }] }],
    };
    const parsed = parseDocument(forged);
    expect(parsed.success).toBe(true);
    if (!parsed.success) return;
    expect(parsed.document.data).not.toHaveProperty('markdownSource');
    expect(documentToMarkdown(parsed.document)).toBe('Hello\n');
  });

  it('a malformed patch in stored data is ignored, never thrown on', () => {
    const { document } = markdownToDocument('Plain.\n');
    for (const markdownSource of [null, 'x', { hunks: 'x' }, { hunks: [{ at: -1, remove: [1], add: null }] }, { hunks: [], head: { text: 3 } }]) {
      expect(documentToMarkdown({ ...document, data: { markdownSource } })).toBe('Plain.\n');
    }
  });
});
