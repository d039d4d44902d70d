/**
 * The HTML GitBook-format repositories write in their Markdown, read as the blocks and marks GitBook's JSON has for it
 * (issue 40: never as code or text holding the HTML). Found in real repositories: paragraphs with `<strong>`, `<em>`,
 * `<code>` and `<a href>` (navixy-public-docs, iot-logic-api), `<a data-mention>` in table cells (cipp-docs), HTML
 * tables with `valign` columns (navixy), `data-type="checkbox"` and `"number"` columns (cipp, predicthq) and cards
 * with `data-type="image"` covers, dark ones too (public-docs, zenlytic-docs). Every document is checked against
 * GitBook's JSONDocument schema (@gitbook/api 0.202.0), and written back in GitBook's form.
 */
import { describe, expect, it } from 'vitest';
import { documentToMarkdown, type JSONDocument } from '../../src/services/markdown';
import { convertChecked, writtenFromJson } from '../helpers/gitbook-documents';

// Each document is checked against our schema and GitBook's JSONDocument (0.202.0).
const convert = convertChecked;
const written = writtenFromJson;

/** `[marks:text]` per leaf, `{type data}` per inline: what a paragraph holds, at a glance. */
function inlines(nodes: any[]): string {
  return nodes
    .map((node) => {
      if (node.object === 'text') return node.leaves.map((l: any) => (l.marks.length ? `[${l.marks.map((m: any) => m.type).join(',')}:${l.text}]` : l.text)).join('');
      return `{${node.type} ${JSON.stringify(node.data?.ref ?? node.data)}${node.nodes ? ` ${inlines(node.nodes)}` : ''}}`;
    })
    .join('');
}

const resolveLink = (href: string) => (href.startsWith('/pages/') ? { kind: 'page' as const, page: href.slice(7) } : href.startsWith('/files/') ? { kind: 'file' as const, file: href.slice(7) } : null);

describe('inline HTML in a paragraph', () => {
  it('reads <strong>, <b>, <em>, <i>, <code>, <s>, <del> as the marks they are, and writes them as Markdown', () => {
    const document = convert('A <strong>bold</strong>, <b>b</b>, <em>it <code>x</code></em>, <i>i</i>, <s>gone</s> and <del>del</del>.\n');
    expect(inlines((document.nodes[0] as any).nodes)).toBe('A [bold:bold], [bold:b], [italic:it ][italic,code:x], [italic:i], [strikethrough:gone] and [strikethrough:del].');
    expect(written(document)).toBe('A **bold**, **b**, _it `x`_, _i_, ~~gone~~ and ~~del~~.\n');
  });

  it('reads <a href> as a link (its content marked), <a data-mention> as a mention', () => {
    const document = convert('See <a href="https://example.com">the <strong>site</strong></a> and <a data-mention href="/pages/p1">Setup</a>.\n', { resolveLink });
    expect(inlines((document.nodes[0] as any).nodes)).toBe('See {link {"kind":"url","url":"https://example.com"} the [bold:site]} and {mention {"kind":"page","page":"p1"} Setup}.');
    expect(written(document)).toBe('See [the **site**](https://example.com) and [Setup](/pages/p1 "mention").\n');
  });

  it('keeps the content of elements GitBook has no mark for (<u>, <span>), and leaves other tags as their text', () => {
    const document = convert('An <u>underlined</u> <span class="x">word</span>, a List<T>.\n');
    expect(inlines((document.nodes[0] as any).nodes)).toBe('An underlined word, a List<T>.');
  });
});

describe('HTML tables', () => {
  it("reads a column's valign as its verticalAlignment and writes it back on the header and each cell", () => {
    const table = '<table data-header-hidden><thead><tr><th valign="top"></th><th></th></tr></thead><tbody><tr><td valign="top">One</td><td>Two</td></tr></tbody></table>\n';
    const document = convert(table);
    const data = (document.nodes[0] as any).data;
    expect(data.definition.c1).toMatchObject({ type: 'text', verticalAlignment: 'top' });
    expect(data.definition.c2.verticalAlignment).toBeUndefined();
    expect(written(document)).toBe(table);
  });

  it('reads checkbox and number columns as their values, and writes them back', () => {
    const table =
      '<table><thead><tr><th>Action</th><th width="120" data-type="checkbox">Bulk</th><th data-type="number">Radius</th></tr></thead><tbody><tr><td>View</td><td>true</td><td>4.5</td></tr><tr><td>Edit</td><td>false</td><td></td></tr></tbody></table>\n';
    const document = convert(table);
    const data = (document.nodes[0] as any).data;
    expect([data.definition.c2.type, data.definition.c3.type]).toEqual(['checkbox', 'number']);
    expect(Object.values(data.records).map((record: any) => [record.values.c2, record.values.c3])).toEqual([
      [true, 4.5],
      [false, null],
    ]);
    expect(written(document)).toBe(table);
  });

  it('keeps a checkbox or number column whose cells hold something else as text', () => {
    const document = convert('<table><thead><tr><th data-type="checkbox">A</th><th data-type="number">B</th></tr></thead><tbody><tr><td>maybe</td><td>n/a</td></tr></tbody></table>\n');
    const data = (document.nodes[0] as any).data;
    expect([data.definition.c1.type, data.definition.c2.type]).toEqual(['text', 'text']);
    expect(JSON.stringify((document.nodes[0] as any).fragments)).toContain('maybe');
  });

  it("reads cards' image covers (light and dark) as image columns and writes them back", () => {
    const table =
      '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="image">Cover image</th><th data-hidden data-card-cover-dark data-type="image">Cover image (dark)</th></tr></thead><tbody><tr><td><strong>Start</strong></td><td><a href="/pages/p1">/pages/p1</a></td><td><a href="/files/f1">/files/f1</a></td><td><a href="https://example.com/dark.png">https://example.com/dark.png</a></td></tr></tbody></table>\n';
    const document = convert(table, { resolveLink });
    const data = (document.nodes[0] as any).data;
    expect(data.view).toMatchObject({ type: 'cards', columns: ['c1'], targetDefinition: 'c2', coverDefinition: 'c3', coverDefinitionDark: 'c4' });
    expect([data.definition.c3.type, data.definition.c4.type]).toEqual(['image', 'image']);
    expect(data.records.r1.values).toMatchObject({ c3: { ref: { kind: 'file', file: 'f1' } }, c4: { ref: { kind: 'url', url: 'https://example.com/dark.png' } } });
    expect(written(document)).toBe(table);
  });

  it('reads a mention and a link in a cell, and a cell of a paragraph and a list, as blocks', () => {
    const table =
      '<table><thead><tr><th>What</th></tr></thead><tbody><tr><td><p>Use the <a data-mention href="/pages/p1">wizard</a>:</p><ul><li><a href="https://example.com">site</a></li><li>two</li></ul></td></tr></tbody></table>\n';
    const document = convert(table, { resolveLink });
    const cell = (document.nodes[0] as any).fragments[0].nodes;
    expect(cell.map((block: any) => block.type)).toEqual(['paragraph', 'list-unordered']);
    expect(inlines(cell[0].nodes)).toBe('Use the {mention {"kind":"page","page":"p1"} wizard}:');
    expect(inlines(cell[1].nodes[0].nodes[0].nodes)).toBe('{link {"kind":"url","url":"https://example.com"} site}');
    expect(written(document)).toBe(table);
  });
});

describe('inline pictures and earlier OpenAPI blocks', () => {
  it('reads <picture> with a dark-mode <source> as an inline image with refDark, and writes it back so', () => {
    const line = 'Open the **Actions menu** <picture><source srcset="/files/dark" media="(prefers-color-scheme: dark)"><img src="/files/light" alt=""></picture> and choose it.\n';
    const document = convert(line, { resolveLink });
    const nodes = (document.nodes[0] as any).nodes;
    expect(nodes[1]).toMatchObject({ object: 'inline', type: 'inline-image', isVoid: true, data: { ref: { kind: 'file', file: 'light' }, refDark: { kind: 'file', file: 'dark' }, alt: '' } });
    expect(inlines(nodes)).toBe('Open the [bold:Actions menu] {inline-image {"kind":"file","file":"light"}} and choose it.');
    expect(written(document)).toBe(line);
  });

  it('reads {% swagger src path method %} as the swagger block, and leaves a hand-written API method as text', () => {
    const document = convert('{% swagger src="/files/spec" path="/teams" method="get" %}\n[spec.json](/files/spec)\n{% endswagger %}\n', { resolveLink });
    expect(document.nodes[0]).toMatchObject({ type: 'swagger', data: { ref: { kind: 'file', file: 'spec' }, path: '/teams', method: 'get' } });
    const manual = convert('{% swagger path="/teams" method="get" summary="Teams" %}\n{% swagger-description %}\nLists teams\n{% endswagger-description %}\n{% endswagger %}\n');
    expect(manual.nodes[0]).toMatchObject({ type: 'paragraph' });
  });
});

describe('images blocks in a <div>', () => {
  it("reads a <div>'s align, data-full-width and data-with-frame as the images block's, a gallery's figures and a <picture>'s dark image, and writes them back", () => {
    const markdown = [
      '<div data-with-frame="true"><figure><img src="/files/a" alt="A frame"><figcaption><p>Framed</p></figcaption></figure></div>',
      '<div align="left"><figure><img src="/files/b" alt="" width="229"><figcaption></figcaption></figure> <figure><img src="/files/c" alt=""><figcaption></figcaption></figure></div>',
      '<div data-full-width="false"><figure><picture><source srcset="/files/d2" media="(prefers-color-scheme: dark)"><img src="/files/d" alt="D"></picture><figcaption></figcaption></figure></div>',
      '',
    ].join('\n\n');
    const document = convert(markdown, { resolveLink });
    expect(document.nodes.map((block: any) => [block.type, block.data, block.nodes.length])).toEqual([
      ['images', { withFrame: true }, 1],
      ['images', { align: 'left' }, 2],
      ['images', { fullWidth: false }, 1],
    ]);
    expect((document.nodes[2] as any).nodes[0].data).toEqual({ ref: { kind: 'file', file: 'd' }, refDark: { kind: 'file', file: 'd2' }, alt: 'D' });
    expect(written(document)).toBe(markdown.replace(/\n\n$/, '\n'));
  });
});

describe('aligned paragraphs', () => {
  it('reads <p align> as a paragraph with its TextAlignment, its content as inlines, and writes it back', () => {
    const markdown = '<p align="center"><img src="/files/a" alt="" data-size="original"><br></p>\n\n<p align="center"><strong>Download Links</strong>:</p>\n\n<p align="right">Right <a href="https://example.com">link</a></p>\n';
    const document = convert(markdown, { resolveLink });
    expect(document.nodes.map((block: any) => [block.type, block.data.align, inlines(block.nodes)])).toEqual([
      ['paragraph', 'center', '{inline-image {"kind":"file","file":"a"}}\n'],
      ['paragraph', 'center', '[bold:Download Links]:'],
      ['paragraph', 'end', 'Right {link {"kind":"url","url":"https://example.com"} link}'],
    ]);
    expect(written(document)).toBe(markdown);
  });

  it('leaves a <p align> holding blocks as it was', () => {
    expect(convert('<p align="center">\n<table><tr><td>x</td></tr></table>\n</p>\n').nodes[0]).toMatchObject({ type: 'code' });
  });
});

describe('a file tag without its end tag', () => {
  it('reads {% file src %} alone (earlier exports) as the file block, kept as written when another line is edited', () => {
    const markdown = 'Reports:\n\n{% file src="/files/report" %}\n\nMore text.\n';
    const document = convert(markdown, { resolveLink });
    expect(document.nodes.map((block: any) => block.type)).toEqual(['paragraph', 'file', 'paragraph']);
    expect((document.nodes[1] as any).data.ref).toEqual({ kind: 'file', file: 'report' });
    const last = document.nodes[2] as any;
    const edited = { ...document, nodes: [...document.nodes.slice(0, 2), { ...last, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Less text.', marks: [] }] }] }] } as JSONDocument;
    expect(documentToMarkdown(edited)).toBe('Reports:\n\n{% file src="/files/report" %}\n\nLess text.\n');
  });
});
