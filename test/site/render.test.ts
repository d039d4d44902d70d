/**
 * The document renderer (src/site/render): every block and inline of the document model to HTML,
 * checked by parsing the HTML back (hast-util-from-html) and by substrings.
 */
import type { Element, Root, RootContent } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import { describe, expect, it } from 'vitest';
import { evaluateDocument } from '../../src/services/content/evaluate';
import { markdownToDocument, type JSONDocument } from '../../src/services/markdown';
import { referencedFiles, renderDocument, RENDER_CSS, type RenderContext, type RenderedFile } from '../../src/site/render/document';

// ---------------------------------------------------------------------------------------------
// Helpers

const FILES: Record<string, RenderedFile> = {
  img1: { url: 'https://files.example.test/f/img1?sig=abc&exp=1', name: 'diagram.png', contentType: 'image/png', size: 2048, dimensions: { width: 640, height: 480 } },
  dark1: { url: '/files/dark1/download?sig=def', name: 'diagram-dark.png', contentType: 'image/png', size: 1024, dimensions: { width: 640, height: 480 } },
  pdf1: { url: '/files/pdf1/download?sig=xyz', name: 'manual.pdf', contentType: 'application/pdf', size: 1_572_864 },
};
const PAGES: Record<string, string> = { p1: '/s/site1/guides/install', p2: '/s/site1/reference' };

function context(overrides: Partial<RenderContext> = {}): RenderContext & { pageCalls: unknown[]; fileCalls: string[] } {
  const pageCalls: unknown[] = [];
  const fileCalls: string[] = [];
  return {
    pageCalls,
    fileCalls,
    pageUrl(ref) {
      pageCalls.push(ref);
      const base = ref.space && ref.space !== 'space1' ? (ref.space === 'space2' && ref.page === 'q1' ? '/s/site2/q' : null) : ref.page ? PAGES[ref.page] ?? null : null;
      return base === null ? null : ref.anchor ? `${base}#${ref.anchor}` : base;
    },
    file(id) {
      fileCalls.push(id);
      return FILES[id] ?? null;
    },
    ...overrides,
  };
}

const doc = (...nodes: unknown[]): JSONDocument => ({ object: 'document', data: {}, nodes: nodes as JSONDocument['nodes'] });
const text = (value: string, marks: unknown[] = []) => ({ object: 'text', leaves: [{ object: 'leaf', text: value, marks }] });
const para = (...nodes: unknown[]) => ({ object: 'block', type: 'paragraph', nodes: nodes.map((n) => (typeof n === 'string' ? text(n) : n)) });
const mark = (type: string, data?: unknown) => ({ object: 'mark', type, ...(data ? { data } : {}) });
const link = (ref: unknown, label = 'label') => ({ object: 'inline', type: 'link', data: { ref }, nodes: [text(label)] });
const heading = (level: 1 | 2 | 3, title: string, id?: string) => ({ object: 'block', type: `heading-${level}`, data: id ? { id } : {}, nodes: [text(title)] });
const codeBlock = (lines: Array<string | [string, boolean]>, data: Record<string, unknown> = {}) => ({
  object: 'block',
  type: 'code',
  data,
  nodes: lines.map((line) => {
    const [value, highlighted] = typeof line === 'string' ? [line, false] : line;
    return { object: 'block', type: 'code-line', data: highlighted ? { highlighted: true } : {}, nodes: [text(value)] };
  }),
});
const image = (ref: unknown, extra: Record<string, unknown> = {}, caption?: string) => ({
  object: 'block',
  type: 'image',
  isVoid: true,
  data: { ref, ...extra },
  fragments: caption === undefined ? [] : [{ object: 'fragment', fragment: 'caption', nodes: [para(caption)] }],
});
const images = (...nodes: unknown[]) => ({ object: 'block', type: 'images', isVoid: false, data: {}, nodes });

function render(document: JSONDocument, ctx: RenderContext = context()) {
  return renderDocument(document, ctx);
}

function parse(html: string): Root {
  return fromHtml(html, { fragment: true });
}

function all(tree: Root | Element, test: (el: Element) => boolean): Element[] {
  const out: Element[] = [];
  const visit = (nodes: RootContent[]) => {
    for (const node of nodes) {
      if (node.type !== 'element') continue;
      if (test(node)) out.push(node);
      visit(node.children);
      if (node.tagName === 'template' && 'content' in node) visit((node as unknown as { content: Root }).content.children);
    }
  };
  visit(tree.children);
  return out;
}
const byTag = (tree: Root | Element, tag: string) => all(tree, (el) => el.tagName === tag);
const byClass = (tree: Root | Element, name: string) => all(tree, (el) => classes(el).includes(name));
const classes = (el: Element) => ((el.properties.className as string[] | undefined) ?? []).map(String);

function textOf(node: Root | Element | RootContent): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element' || node.type === 'root') return node.children.map((c) => textOf(c as RootContent)).join('');
  return '';
}

// ---------------------------------------------------------------------------------------------

describe('renderDocument: text and marks', () => {
  it('renders paragraphs inside the .doc root, with alignment classes', async () => {
    const { html } = await render(doc(para('Hello'), { ...para('Centered'), data: { align: 'center' } }, { ...para('End'), data: { align: 'end' } }));
    expect(html).toBe('<div class="doc"><p>Hello</p><p class="doc-align-center">Centered</p><p class="doc-align-end">End</p></div>');
  });

  it('renders every mark as its element, nested on one leaf', async () => {
    const { html } = await render(
      doc(
        para(
          text('B', [mark('bold')]),
          text('I', [mark('italic')]),
          text('S', [mark('strikethrough')]),
          text('C', [mark('code')]),
          text('K', [mark('keyboard')]),
          text('sup', [mark('superscript')]),
          text('sub', [mark('subscript')]),
          text('all', [mark('bold'), mark('italic'), mark('code')]),
        ),
      ),
    );
    expect(html).toContain('<strong>B</strong>');
    expect(html).toContain('<em>I</em>');
    expect(html).toContain('<s>S</s>');
    expect(html).toContain('<code>C</code>');
    expect(html).toContain('<kbd>K</kbd>');
    expect(html).toContain('<sup>sup</sup>');
    expect(html).toContain('<sub>sub</sub>');
    expect(html).toContain('<strong><em><code>all</code></em></strong>');
  });

  it('maps color marks to classes of named colors only, never a style', async () => {
    const { html } = await render(
      doc(
        para(
          text('green', [mark('color', { text: 'green', background: 'default' })]),
          text('primary on yellow', [mark('color', { text: '$primary', background: 'yellow' })]),
          text('raw', [mark('color', { text: 'red;background:url(https://evil.test/x)', background: '#ff0000' })]),
        ),
      ),
    );
    expect(html).toContain('<span class="doc-color-green">green</span>');
    expect(html).toContain('<span class="doc-color-primary doc-bg-yellow">primary on yellow</span>');
    expect(html).toContain('raw');
    expect(html).not.toContain('style');
    expect(html).not.toContain('evil.test');
    expect(html).not.toContain('#ff0000');
  });

  it('turns a newline in text into a line break', async () => {
    expect((await render(doc(para('one\ntwo')))).html).toContain('<p>one<br>two</p>');
  });
});

describe('renderDocument: headings and outline', () => {
  it('renders heading-1/2/3 as h2/h3/h4 with ids, anchors and an outline', async () => {
    const { html, outline } = await render(doc(heading(1, 'Getting started'), heading(2, 'Install the CLI'), heading(3, 'On macOS')));
    const tree = parse(html);
    expect(byTag(tree, 'h2').map((h) => h.properties.id)).toEqual(['getting-started']);
    expect(byTag(tree, 'h3').map((h) => h.properties.id)).toEqual(['install-the-cli']);
    expect(byTag(tree, 'h4').map((h) => h.properties.id)).toEqual(['on-macos']);
    const anchor = byClass(tree, 'doc-anchor')[0];
    expect(anchor.tagName).toBe('a');
    expect(anchor.properties.href).toBe('#getting-started');
    expect(anchor.properties.ariaLabel).toBe('Link to section: Getting started');
    expect(textOf(anchor)).toBe('#');
    expect(outline).toEqual([
      { id: 'getting-started', title: 'Getting started', level: 1 },
      { id: 'install-the-cli', title: 'Install the CLI', level: 2 },
      { id: 'on-macos', title: 'On macOS', level: 3 },
    ]);
  });

  it('gives duplicate headings unique ids, keeps explicit ids, avoids the layout ids', async () => {
    const { html, outline } = await render(
      doc(
        heading(1, 'Setup'),
        heading(2, 'Setup'),
        heading(2, 'Setup'),
        heading(1, 'Anything', 'setup-2'), // explicit: claimed before the generated duplicates
        heading(1, 'Main'),
        heading(2, 'Ünïcødé Straße'),
        heading(2, '日本語の見出し'),
        heading(2, '!!!'),
        heading(2, 'Bad id', '"><script>alert(1)</script>'),
      ),
    );
    const ids = outline.map((entry) => entry.id);
    expect(ids).toEqual(['setup', 'setup-3', 'setup-4', 'setup-2', 'main-2', 'unicøde-straße', '日本語の見出し', 'section', 'bad-id']);
    expect(new Set(ids).size).toBe(ids.length);
    const tree = parse(html);
    expect(all(tree, (el) => el.properties.id !== undefined).map((el) => el.properties.id)).toEqual(ids);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('user-content-');
  });

  it('honours context.reservedIds', async () => {
    const { outline } = await render(doc(heading(1, 'Main'), heading(1, 'Search')), context({ reservedIds: ['search'] }));
    expect(outline.map((e) => e.id)).toEqual(['main', 'search-2']);
  });

  it('takes outline titles as plain text (marks and links) and leaves nested headings out of it', async () => {
    const { html, outline } = await render(
      doc(
        { object: 'block', type: 'heading-2', data: {}, nodes: [text('Use '), text('npm', [mark('code')]), link({ kind: 'url', url: 'https://npmjs.com' }, ' now')] },
        { object: 'block', type: 'hint', data: { style: 'info' }, nodes: [heading(2, 'Inside hint')] },
      ),
    );
    expect(outline).toEqual([{ id: 'use-npm-now', title: 'Use npm now', level: 2 }]);
    expect(html).toContain('<h3 id="inside-hint" class="doc-heading">');
  });
});

describe('renderDocument: lists, quotes, dividers, hints', () => {
  it('renders ordered (with start), unordered and nested lists', async () => {
    const { document } = markdownToDocument('3. three\n4. four\n\n- a\n  - nested\n- b\n');
    const tree = parse((await render(document)).html);
    const ol = byTag(tree, 'ol')[0];
    expect(ol.properties.start).toBe(3);
    expect(byTag(ol, 'li').map(textOf)).toEqual(['three', 'four']);
    const uls = byTag(tree, 'ul');
    expect(uls).toHaveLength(2);
    expect(textOf(byTag(uls[1], 'li')[0])).toBe('nested');
  });

  it('renders task lists with disabled, labelled checkboxes', async () => {
    const { document } = markdownToDocument('- [x] done\n- [ ] todo\n');
    const tree = parse((await render(document)).html);
    const list = byClass(tree, 'doc-tasks')[0];
    expect(list.tagName).toBe('ul');
    const inputs = byTag(list, 'input');
    expect(inputs.map((i) => [i.properties.type, i.properties.disabled, i.properties.checked ?? false])).toEqual([
      ['checkbox', true, true],
      ['checkbox', true, false],
    ]);
    const labels = byTag(list, 'label');
    expect(labels.map(textOf)).toEqual([' done', ' todo']);
    expect(byTag(labels[0], 'input')).toHaveLength(1);
  });

  it('labels a task checkbox by aria-label when the item has no paragraph first', async () => {
    const items = { object: 'block', type: 'list-tasks', nodes: [{ object: 'block', type: 'list-item', data: { checked: true }, nodes: [codeBlock(['x'])] }] };
    const tree = parse((await render(doc(items))).html);
    expect(byTag(tree, 'input')[0].properties.ariaLabel).toBe('Done');
  });

  it('renders blockquotes and dividers', async () => {
    const { html } = await render(doc({ object: 'block', type: 'blockquote', nodes: [para('quoted')] }, { object: 'block', type: 'divider', isVoid: true, data: {} }));
    expect(html).toContain('<blockquote><p>quoted</p></blockquote><hr>');
  });

  it('renders hints as labelled notes of each style', async () => {
    const hint = (style: string) => ({ object: 'block', type: 'hint', data: { style }, nodes: [para(`a ${style}`)] });
    const tree = parse((await render(doc(hint('info'), hint('warning'), hint('danger'), hint('success'), hint('bogus')))).html);
    const asides = byTag(tree, 'aside');
    expect(asides.map((a) => [classes(a).join(' '), a.properties.role, a.properties.ariaLabel])).toEqual([
      ['doc-hint doc-hint-info', 'note', 'Info'],
      ['doc-hint doc-hint-warning', 'note', 'Warning'],
      ['doc-hint doc-hint-danger', 'note', 'Danger'],
      ['doc-hint doc-hint-success', 'note', 'Success'],
      ['doc-hint doc-hint-info', 'note', 'Info'],
    ]);
    expect(textOf(asides[1])).toBe('a warning');
  });
});

describe('renderDocument: code blocks', () => {
  it('highlights on the server with hljs classes and keeps the text intact', async () => {
    const source = ['const greeting = "<b>hi</b> & bye";', '/* a comment', 'over two lines */', 'function f() { return 1 }'];
    const { html } = await render(doc(codeBlock(source, { syntax: 'javascript' })));
    const tree = parse(html);
    const code = byTag(tree, 'code')[0];
    expect(classes(code)).toEqual(['hljs', 'language-javascript']);
    expect(textOf(code)).toBe(source.join('\n'));
    expect(byClass(code, 'hljs-keyword').length).toBeGreaterThanOrEqual(2);
    expect(byClass(code, 'hljs-string').map(textOf)).toEqual(['"<b>hi</b> & bye"']);
    // The comment spans two lines: one span per line, each inside its line.
    const lines = byClass(code, 'doc-code-line');
    expect(lines).toHaveLength(4);
    expect(byClass(lines[1], 'hljs-comment').map(textOf)).toEqual(['/* a comment']);
    expect(byClass(lines[2], 'hljs-comment').map(textOf)).toEqual(['over two lines */']);
    expect(html).toContain('&#x3C;b>hi&#x3C;/b> &#x26; bye');
    expect(html).not.toContain('<b>');
  });

  it('renders titles as captions, line numbers, highlighted lines and wrapping', async () => {
    const { html } = await render(doc(codeBlock(['a = 1', ['b = 2', true], 'c = 3'], { syntax: 'python', title: 'main.py', lineNumbers: true, overflow: 'wrap' })));
    const tree = parse(html);
    const figure = byClass(tree, 'doc-code')[0];
    expect(figure.tagName).toBe('figure');
    expect(byTag(figure, 'figcaption').map(textOf)).toEqual(['main.py']);
    const pre = byTag(figure, 'pre')[0];
    expect(classes(pre)).toEqual(['doc-code-pre', 'doc-code-wrap', 'doc-code-numbered']);
    expect(pre.properties.tabIndex).toBe(0);
    expect(byClass(pre, 'doc-code-line').map((l) => classes(l).includes('doc-code-line-highlighted'))).toEqual([false, true, false]);
    // Line numbers come from CSS counters, so copied code has none.
    expect(textOf(pre)).toBe('a = 1\nb = 2\nc = 3');
    expect(RENDER_CSS).toContain('.doc-code-numbered .doc-code-line::before');
  });

  it('leaves unknown and absent syntaxes plain and escaped', async () => {
    const { html } = await render(doc(codeBlock(['<script>alert(1)</script>'], { syntax: 'no-such-language' }), codeBlock(['plain <i>text</i>'])));
    const tree = parse(html);
    const codes = byTag(tree, 'code');
    expect(classes(codes[0])).toEqual(['language-no-such-language']);
    expect(classes(codes[1])).toEqual([]);
    expect(all(tree, (el) => classes(el).some((c) => c.startsWith('hljs'))).length).toBe(0);
    expect(codes.map(textOf)).toEqual(['<script>alert(1)</script>', 'plain <i>text</i>']);
    expect(byTag(tree, 'script')).toHaveLength(0);
    expect(byTag(tree, 'i')).toHaveLength(0);
  });

  it('highlights Markdown-converted code in common languages (aliases too)', async () => {
    const { document } = markdownToDocument('```sh\necho "$HOME"\n```\n\n```json\n{"a": [1, true]}\n```\n\n```tsx\nconst x: number = 1\n```\n');
    const tree = parse((await render(document)).html);
    expect(byTag(tree, 'code').map((c) => classes(c).join(' '))).toEqual(['hljs language-sh', 'hljs language-json', 'hljs language-tsx']);
    expect(byClass(tree, 'hljs-literal').map(textOf)).toContain('true');
  });
});

describe('renderDocument: images and files', () => {
  it('renders file images with signed URLs, dimensions, alt and caption', async () => {
    const ctx = context();
    const { html } = await render(doc(images(image({ kind: 'file', file: 'img1' }, { alt: 'A diagram' }, 'The architecture'))), ctx);
    const tree = parse(html);
    const img = byTag(tree, 'img')[0];
    expect(img.properties).toMatchObject({ src: FILES.img1.url, alt: 'A diagram', width: 640, height: 480, loading: 'lazy', decoding: 'async' });
    expect(byTag(tree, 'figcaption').map(textOf)).toEqual(['The architecture']);
    expect(byClass(tree, 'doc-images')[0].tagName).toBe('div');
    expect(ctx.fileCalls).toEqual(['img1']);
  });

  it('takes alt from the caption when there is none, and renders refDark as a dark-scheme source', async () => {
    const { html } = await render(doc(images(image({ kind: 'file', file: 'img1' }, { refDark: { kind: 'file', file: 'dark1' } }, 'Caption text'))));
    const tree = parse(html);
    const picture = byTag(tree, 'picture')[0];
    const source = byTag(picture, 'source')[0];
    expect(source.properties).toMatchObject({ media: '(prefers-color-scheme: dark)', srcSet: FILES.dark1.url });
    expect(byTag(picture, 'img')[0].properties.alt).toBe('Caption text');
  });

  it('renders external http(s) images, and only those', async () => {
    const { html } = await render(
      doc(
        images(
          image({ kind: 'url', url: 'https://cdn.example.test/a b.png' }, { alt: 'ok' }),
          image({ kind: 'url', url: 'javascript:alert(1)' }, { alt: 'js' }),
          image({ kind: 'url', url: 'data:image/svg+xml,<svg onload=alert(1)>' }, { alt: 'data' }),
          image({ kind: 'url', url: '//evil.test/x.png' }, { alt: 'protocol-relative' }),
        ),
      ),
    );
    const tree = parse(html);
    expect(byTag(tree, 'img').map((i) => i.properties.src)).toEqual(['https://cdn.example.test/a%20b.png']);
    expect(byClass(tree, 'doc-image-missing').map(textOf)).toEqual(['js', 'data', 'protocol-relative']);
    expect(html).not.toMatch(/javascript:|data:|evil\.test/);
  });

  it('degrades a missing file image to its alt text, or nothing', async () => {
    const { html } = await render(doc(images(image({ kind: 'file', file: 'gone' }, { alt: 'Lost image' }), image({ kind: 'file', file: 'gone2' }))));
    expect(html).toBe('<div class="doc"><div class="doc-images doc-images-center"><figure class="doc-figure doc-image-missing"><figcaption>Lost image</figcaption></figure></div></div>');
  });

  it('renders inline images, in text and in links', async () => {
    const inlineImage = { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: { kind: 'file', file: 'img1' }, alt: 'icon', size: 'line' } };
    const linked = { object: 'inline', type: 'link', data: { ref: { kind: 'url', url: 'https://example.test' } }, nodes: [inlineImage] };
    const missing = { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: { kind: 'file', file: 'nope' }, alt: 'missing icon' } };
    const tree = parse((await render(doc(para('See ', inlineImage, ' and ', linked, ' ', missing)))).html);
    const imgs = byTag(tree, 'img');
    expect(imgs).toHaveLength(2);
    expect(classes(imgs[0])).toEqual(['doc-inline-image', 'doc-inline-image-line']);
    expect(byTag(byTag(tree, 'a')[0], 'img')).toHaveLength(1);
    expect(textOf(tree)).toContain('missing icon');
  });

  it('renders file blocks as download links with name and size', async () => {
    const caption = [{ object: 'fragment', fragment: 'caption', nodes: [para('The user manual')] }];
    const { html } = await render(
      doc(
        { object: 'block', type: 'file', isVoid: true, data: { ref: { kind: 'file', file: 'pdf1' } }, fragments: caption },
        { object: 'block', type: 'file', isVoid: true, data: { ref: { kind: 'file', file: 'missing' } }, fragments: caption },
        { object: 'block', type: 'file', isVoid: true, data: { ref: { kind: 'file', file: 'missing' } } },
      ),
    );
    const tree = parse(html);
    const link = byClass(tree, 'doc-file-link')[0];
    expect(link.properties.href).toBe(FILES.pdf1.url);
    expect(textOf(link)).toBe('manual.pdf');
    expect(byClass(tree, 'doc-file-meta').map(textOf)).toEqual(['(PDF, 1.5 MB)']);
    expect(byClass(tree, 'doc-file-caption').map(textOf)).toEqual(['The user manual', 'The user manual']);
    expect(byClass(tree, 'doc-file')).toHaveLength(2);
    expect(byClass(tree, 'doc-file-missing')).toHaveLength(1);
  });
});

describe('renderDocument: tables', () => {
  const cell = (name: string, value: string) => ({ object: 'fragment', fragment: name, nodes: [para(value)] });
  const table = (view: Record<string, unknown> = {}) => ({
    object: 'block',
    type: 'table',
    isVoid: true,
    data: {
      view: { type: 'grid', columns: ['c2', 'c1'], ...view },
      definition: {
        c1: { id: 'c1', title: 'Name <b>', type: 'text' },
        c2: { id: 'c2', title: 'Count', type: 'text', textAlignment: 'right' },
      },
      records: {
        rB: { orderIndex: 'b0', values: { c1: 'fB1', c2: 'fB2' } },
        rA: { orderIndex: 'a0', values: { c1: 'fA1', c2: 'fA2' } },
        rC: { orderIndex: 'a5', values: { c1: 'fC1' } },
      },
    },
    fragments: [cell('fA1', 'alpha'), cell('fA2', '1'), cell('fB1', 'beta'), cell('fB2', '2'), cell('fC1', 'gamma')],
  });

  it('renders grid tables with a header, columns in view order and rows in orderIndex order', async () => {
    const tree = parse((await render(doc(table()))).html);
    const wrapper = byClass(tree, 'doc-table')[0];
    expect(wrapper.properties).toMatchObject({ role: 'region', tabIndex: 0 });
    const th = byTag(tree, 'th');
    expect(th.map(textOf)).toEqual(['Count', 'Name <b>']);
    expect(th.map((t) => t.properties.scope)).toEqual(['col', 'col']);
    expect(classes(th[0])).toEqual(['doc-align-right']);
    const rows = byTag(byTag(tree, 'tbody')[0], 'tr').map((tr) => byTag(tr, 'td').map(textOf));
    expect(rows).toEqual([
      ['1', 'alpha'],
      ['', 'gamma'],
      ['2', 'beta'],
    ]);
  });

  it('hides the header when asked and renders the cards view as a table too', async () => {
    const tree = parse((await render(doc(table({ hideHeader: true, type: 'cards' })))).html);
    expect(byTag(tree, 'thead')).toHaveLength(0);
    expect(classes(byClass(tree, 'doc-table')[0])).toContain('doc-table-cards');
    expect(byTag(tree, 'tr')).toHaveLength(3);
  });

  it('renders Markdown tables', async () => {
    const { document } = markdownToDocument('| Key | Value |\n| --- | :---: |\n| `a` | **1** |\n| b | 2 |\n');
    const tree = parse((await render(document)).html);
    expect(byTag(tree, 'th').map(textOf)).toEqual(['Key', 'Value']);
    expect(byTag(tree, 'td').map(textOf)).toEqual(['a', '1', 'b', '2']);
    expect(byTag(tree, 'strong').map(textOf)).toEqual(['1']);
  });
});

describe('renderDocument: links', () => {
  it('renders http(s) and mailto links with rel, no target', async () => {
    const tree = parse((await render(doc(para(link({ kind: 'url', url: 'https://example.test/a?b=1' }, 'web'), link({ kind: 'url', url: 'mailto:team@example.test' }, 'mail'))))).html);
    const [web, mail] = byTag(tree, 'a');
    expect(web.properties).toEqual({ href: 'https://example.test/a?b=1', rel: ['noopener', 'noreferrer'] });
    expect(mail.properties).toEqual({ href: 'mailto:team@example.test' });
  });

  it('resolves page and anchor links through the context', async () => {
    const ctx = context();
    const tree = parse(
      (await render(
        doc(
          para(
            link({ kind: 'page', page: 'p1' }, 'install'),
            link({ kind: 'anchor', page: 'p2', anchor: 'errors' }, 'errors'),
            link({ kind: 'anchor', anchor: 'local' }, 'here'),
            link({ kind: 'page', page: 'q1', space: 'space2' }, 'other space'),
            link({ kind: 'page', page: 'unpublished' }, 'hidden page'),
            link({ kind: 'file', file: 'pdf1' }, 'the manual'),
            link({ kind: 'file', file: 'nope' }, 'gone file'),
            link({ kind: 'user', user: 'u1' }, 'a user'),
            link({ kind: 'collection', collection: 'c1' }, 'a collection'),
            link({ kind: 'openapi', spec: 's1' }, 'a spec'),
          ),
        ),
        ctx,
      )).html,
    );
    expect(byTag(tree, 'a').map((a) => [textOf(a), a.properties.href])).toEqual([
      ['install', '/s/site1/guides/install'],
      ['errors', '/s/site1/reference#errors'],
      ['here', '#local'],
      ['other space', '/s/site2/q'],
      ['the manual', FILES.pdf1.url],
    ]);
    expect(textOf(tree)).toContain('hidden page');
    expect(textOf(tree)).toContain('gone file');
    expect(textOf(tree)).toContain('a user');
    expect(ctx.pageCalls).toEqual([{ page: 'p1' }, { page: 'p2', anchor: 'errors' }, { page: 'q1', space: 'space2' }, { page: 'unpublished' }]);
  });

  it('resolves links written in Markdown (page ids)', async () => {
    const { document } = markdownToDocument('See [install](/pages/p1#step-2) and [site](https://example.test).');
    const tree = parse((await render(document)).html);
    expect(byTag(tree, 'a').map((a) => a.properties.href)).toEqual(['/s/site1/guides/install#step-2', 'https://example.test/']);
  });
});

describe('renderDocument: expressions, reusable content, unknown and API blocks', () => {
  it('shows evaluated expressions as their values and unevaluated ones as nothing', async () => {
    const expression = (source: string) => ({ object: 'inline', type: 'expression', isVoid: true, data: { expression: source } });
    const document = doc(para('Version ', expression('space.vars.version'), '.'));
    expect((await render(evaluateDocument(document, { version: '2.4 <beta>' }))).html).toBe('<div class="doc"><p>Version 2.4 &#x3C;beta>.</p></div>');
    expect((await render(document)).html).toBe('<div class="doc"><p>Version .</p></div>');
  });

  it('renders nothing for a remaining reusable-content block and skips unknown or malformed blocks', async () => {
    const { html } = await render(
      doc(
        para('before'),
        { object: 'block', type: 'reusable-content', isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: 'rc1' } } },
        { object: 'block', type: 'callout', isVoid: true, data: { url: 'https://evil.test' } },
        { object: 'block', type: 'paragraph', nodes: null },
        { object: 'block', type: 'code', data: null, nodes: 'nope' },
        { object: 'block', type: 'table', isVoid: true, data: { view: null, records: 3 } },
        { object: 'block', type: 'list-ordered', data: { start: 'x' }, nodes: [null, 1, { object: 'block', type: 'list-item' }] },
        null,
        'text',
        para('after'),
      ),
    );
    expect(html).not.toContain('evil.test');
    expect(html).toMatch(/^<div class="doc"><p>before<\/p>.*<p>after<\/p><\/div>$/);
  });

  it("renders GitBook's other blocks without script: tabs and expandables as <details>, steppers, columns, updates", async () => {
    const block = (type: string, data: Record<string, unknown>, nodes: unknown[]) => ({ object: 'block', type, isVoid: false, data, nodes });
    const { html } = await render(
      doc(
        block('tabs', {}, [block('tabs-item', { title: 'Ruby' }, [para('first')]), block('tabs-item', { title: 'Go' }, [para('second')])]),
        {
          object: 'block',
          type: 'expandable',
          isVoid: true,
          data: {},
          fragments: [
            { object: 'fragment', fragment: 'expandable-title', type: 'expandable-title', nodes: [para('More')] },
            { object: 'fragment', fragment: 'expandable-body', type: 'expandable-body', nodes: [para('hidden')] },
          ],
        },
        block('stepper', {}, [block('stepper-step', {}, [para('one')]), block('stepper-step', {}, [para('two')])]),
        block('columns', {}, [block('column', { width: { unit: '%', value: 50 } }, [para('left')]), block('column', {}, [para('right')])]),
        block('updates', { format: 'full' }, [block('update', { date: '2025-01-02T00:00:00.000Z', tags: [{ kind: 'tag', tag: 'release' }] }, [para('shipped')])]),
        block('if', { expression: 'visitor.claims.pro' }, [para('gated')]),
      ),
    );
    expect(html).toContain(
      '<div class="doc-tabs"><details class="doc-tab" name="user-content-doc-tabs-0" open><summary class="doc-tab-title">Ruby</summary><div class="doc-tab-body"><p>first</p></div></details><details class="doc-tab" name="user-content-doc-tabs-0"><summary class="doc-tab-title">Go</summary>',
    );
    expect(html).toContain('<details class="doc-expandable"><summary>More</summary><div class="doc-expandable-body"><p>hidden</p></div></details>');
    expect(html).toContain('<ol class="doc-stepper"><li class="doc-step"><p>one</p></li><li class="doc-step"><p>two</p></li></ol>');
    expect(html).toContain('<div class="doc-columns"><div class="doc-column doc-column-50"><p>left</p></div><div class="doc-column"><p>right</p></div></div>');
    expect(html).toContain('<article class="doc-update"><p class="doc-update-date"><time datetime="2025-01-02">2025-01-02</time><span class="doc-update-tag">release</span></p><p>shipped</p></article>');
    // A condition on the visitor cannot be evaluated on a published page: what it gates is not shown.
    expect(html).not.toContain('gated');
  });

  it('renders embeds and content references as links (http(s) only), math as its formula, emoji and buttons', async () => {
    const { html } = await render(
      doc(
        { object: 'block', type: 'embed', isVoid: true, data: { url: 'https://www.youtube.com/watch?v=x' } },
        { object: 'block', type: 'embed', isVoid: true, data: { url: 'javascript:alert(1)' } },
        { object: 'block', type: 'content-ref', isVoid: true, data: { ref: { kind: 'url', url: 'javascript:alert(2)' } } },
        { object: 'block', type: 'content-ref', isVoid: true, data: { ref: { kind: 'url', url: 'https://example.com/guide' } } },
        { object: 'block', type: 'math', isVoid: true, data: { formula: 'a < b' } },
        para(
          { object: 'inline', type: 'inline-math', isVoid: true, data: { formula: 'x^2' } },
          { object: 'inline', type: 'emoji', isVoid: true, data: { code: '1f600' } },
          { object: 'inline', type: 'button', isVoid: true, data: { label: 'Go', kind: 'primary', ref: { kind: 'url', url: 'javascript:alert(3)' } } },
        ),
        // A mention read from GitBook's Markdown (`[Status](url "mention")`) keeps its label as its text; one without shows its URL.
        para(
          { object: 'inline', type: 'mention', isVoid: true, data: { ref: { kind: 'url', url: 'https://status.example.com/' } }, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Status', marks: [] }] }] },
          { object: 'inline', type: 'mention', isVoid: true, data: { ref: { kind: 'url', url: 'https://example.com/bare' } } },
        ),
      ),
    );
    expect(html).toContain('<a href="https://status.example.com/" rel="noopener noreferrer">Status</a><a href="https://example.com/bare" rel="noopener noreferrer">https://example.com/bare</a>');
    expect(html).toContain('<div class="doc-embed"><a href="https://www.youtube.com/watch?v=x" rel="noopener noreferrer" class="doc-embed-link"><span class="doc-embed-host">www.youtube.com</span>');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('alert');
    expect(html).toContain('<a href="https://example.com/guide" rel="noopener noreferrer" class="doc-content-ref"><span class="doc-content-ref-title">https://example.com/guide</span></a>');
    expect(html).toContain('<div class="doc-math doc-math-block" role="math"><code>a &#x3C; b</code></div>');
    expect(html).toContain('<code class="doc-math">x^2</code>😀Go');
  });

  it('renders computed API reference blocks as an honest heading and note', async () => {
    const { html, outline } = await render(
      doc(
        { object: 'block', type: 'openapi-operation', isVoid: true, data: { ref: { kind: 'openapi', spec: 'petstore' }, method: 'get', path: '/pets/{petId}' } },
        { object: 'block', type: 'openapi-schemas', isVoid: true, data: { ref: { kind: 'openapi', spec: 'petstore' }, schemas: ['Pet', 'Error'], grouped: true } },
      ),
    );
    const tree = parse(html);
    const h2 = byTag(tree, 'h2');
    expect(h2.map(textOf)).toEqual(['GET /pets/{petId} #', 'Models #']);
    expect(byClass(tree, 'doc-http-get').map(textOf)).toEqual(['GET']);
    expect(byTag(tree, 'li').map(textOf)).toEqual(['Pet', 'Error']);
    expect(byClass(tree, 'doc-openapi-note')).toHaveLength(2);
    expect(outline).toEqual([
      { id: 'get-pets-petid', title: 'GET /pets/{petId}', level: 1 },
      { id: 'models', title: 'Models', level: 1 },
    ]);
  });
});

describe('referencedFiles', () => {
  it('lists every file id a document references, once', async () => {
    const document = doc(
      images(image({ kind: 'file', file: 'img1' }, { refDark: { kind: 'file', file: 'dark1' } }), image({ kind: 'url', url: 'https://x.test/a.png' })),
      { object: 'block', type: 'file', isVoid: true, data: { ref: { kind: 'file', file: 'pdf1' } } },
      para(link({ kind: 'file', file: 'linked' }), { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: { kind: 'file', file: 'inline1' } } }),
      { object: 'block', type: 'hint', data: { style: 'info' }, nodes: [para(link({ kind: 'file', file: 'img1' }))] },
      {
        object: 'block',
        type: 'table',
        isVoid: true,
        data: {
          view: { type: 'grid', columns: ['f'] },
          definition: { f: { id: 'f', title: 'Files', type: 'files' } },
          records: { r: { orderIndex: 'a', values: { f: ['tablefile'] } } },
        },
        fragments: [],
      },
    );
    expect(referencedFiles(document).sort()).toEqual(['dark1', 'img1', 'inline1', 'linked', 'pdf1', 'tablefile']);
    expect(referencedFiles(doc(para('none')))).toEqual([]);
  });
});
