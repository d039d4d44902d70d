/**
 * The document renderer against hostile content (every value escaped, only safe URLs, no attribute or
 * element the renderer does not emit), deep nesting, large documents and the size of a typical page.
 */
import type { Element, Root, RootContent } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import { sanitize } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import { h } from 'hastscript';
import { describe, expect, it } from 'vitest';
import { markdownToDocument, type JSONDocument } from '../../src/services/markdown';
import { renderDocument, RENDER_SCHEMA, type RenderContext } from '../../src/site/render/document';
import { HIGHLIGHT_LANGUAGES, highlightCode, MAX_HIGHLIGHT_CHARS, resolveLanguage } from '../../src/site/render/highlight';
import { HIGHLIGHT_LANGUAGES as SCHEMA_LANGUAGES } from '../../src/site/render/highlight-languages';

const doc = (...nodes: unknown[]): JSONDocument => ({ object: 'document', data: {}, nodes: nodes as JSONDocument['nodes'] });
const text = (value: string, marks: unknown[] = []) => ({ object: 'text', leaves: [{ object: 'leaf', text: value, marks }] });
const para = (...nodes: unknown[]) => ({ object: 'block', type: 'paragraph', nodes: nodes.map((n) => (typeof n === 'string' ? text(n) : n)) });
const link = (ref: unknown, label = 'label') => ({ object: 'inline', type: 'link', data: { ref }, nodes: [text(label)] });

const quiet: RenderContext = { pageUrl: () => null, file: () => null };

function elements(tree: Root): Element[] {
  const out: Element[] = [];
  const visit = (nodes: RootContent[]) => {
    for (const node of nodes) {
      if (node.type !== 'element') continue;
      out.push(node);
      visit(node.children);
    }
  };
  visit(tree.children);
  return out;
}

/** Everything that could run or load something: scripts, handlers, styles, dangerous URLs. */
function assertInert(html: string) {
  const tree = fromHtml(html, { fragment: true });
  for (const el of elements(tree)) {
    expect(['script', 'style', 'iframe', 'object', 'embed', 'svg', 'math', 'form', 'base', 'meta', 'link', 'template']).not.toContain(el.tagName);
    for (const [name, value] of Object.entries(el.properties)) {
      expect(name.toLowerCase().startsWith('on'), `${el.tagName} has ${name}`).toBe(false);
      expect(name).not.toBe('style');
      if (['href', 'src', 'srcSet', 'action', 'formAction', 'poster', 'cite'].includes(name)) {
        const url = String(Array.isArray(value) ? value.join(',') : value).trim().toLowerCase();
        expect(url, `${el.tagName}.${name}`).toMatch(/^(https?:\/\/|mailto:|\/(?!\/)|#)/);
      }
    }
  }
  return tree;
}

/** The tags the renderer emits. */
const ALLOWED_TAGS = ['div', 'p', 'h2', 'h3', 'h4', 'a', 'strong', 'em', 's', 'code', 'kbd', 'sup', 'sub', 'span', 'br', 'ul', 'ol', 'li', 'label', 'input', 'blockquote', 'hr', 'aside', 'figure', 'figcaption', 'pre', 'img', 'picture', 'source', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'section'];

const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><svg onload=alert(1)>',
  "' onmouseover='alert(1)",
  '</code></pre><script>alert(1)</script>',
  '<!-- comment --><style>body{}</style>',
  '&lt;script&gt; &amp; &#x3C;',
  'javascript:alert(1)',
];

describe('hostile content', () => {
  it("allows as classes exactly the languages lowlight's grammars name their spans after (the list the schema holds without loading them)", () => {
    expect([...SCHEMA_LANGUAGES]).toEqual([...HIGHLIGHT_LANGUAGES]);
  });

  it('escapes markup in text, marks, headings, hints, code, captions, table cells and titles', async () => {
    for (const payload of HOSTILE) {
      const document = doc(
        { object: 'block', type: 'heading-1', data: {}, nodes: [text(payload)] },
        para(text(payload), text(payload, [{ object: 'mark', type: 'bold' }, { object: 'mark', type: 'code' }])),
        { object: 'block', type: 'hint', data: { style: 'danger' }, nodes: [para(payload)] },
        { object: 'block', type: 'code', data: { syntax: 'html', title: payload }, nodes: [{ object: 'block', type: 'code-line', data: {}, nodes: [text(payload)] }] },
        { object: 'block', type: 'code', data: { syntax: payload }, nodes: [{ object: 'block', type: 'code-line', data: {}, nodes: [text(payload)] }] },
        {
          object: 'block',
          type: 'images',
          isVoid: false,
          data: { align: payload },
          nodes: [{ object: 'block', type: 'image', isVoid: true, data: { ref: { kind: 'url', url: 'https://img.test/a.png' }, alt: payload }, fragments: [{ object: 'fragment', fragment: 'caption', nodes: [para(payload)] }] }],
        },
        {
          object: 'block',
          type: 'table',
          isVoid: true,
          data: { view: { type: 'grid', columns: ['c'] }, definition: { c: { id: 'c', title: payload, type: 'text', textAlignment: payload } }, records: { r: { orderIndex: 'a', values: { c: 'f' } } } },
          fragments: [{ object: 'fragment', fragment: 'f', nodes: [para(payload)] }],
        },
        { object: 'block', type: 'openapi-operation', isVoid: true, data: { method: 'post', path: payload } },
        { object: 'block', type: 'openapi-operation', isVoid: true, data: { method: payload, path: '/skipped' } },
      );
      const { html, outline } = await renderDocument(document, quiet);
      const tree = assertInert(html);
      // The payload is shown as text, intact, in every place that shows text.
      const texts = elements(tree)
        .filter((el) => ['p', 'h2', 'code', 'figcaption', 'th'].includes(el.tagName))
        .map((el) => el.children.map((c) => (c.type === 'text' ? c.value : '')).join(''));
      expect(texts.some((t) => t.includes(payload))).toBe(true);
      expect(outline[0].title).toBe(payload.replace(/\s+/g, ' ').trim());
      // Outside attribute values (where `<` is inert text), no markup of the payload survives.
      const stripped = html.replace(/="[^"]*"/g, '=""');
      for (const [, tag, attributes] of stripped.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)) {
        expect(ALLOWED_TAGS).toContain(tag);
        for (const [, name] of attributes.matchAll(/\s([^\s=]+)/g)) expect(name).not.toMatch(/^on|^style$/i);
      }
      expect(html).not.toContain('/skipped');
      const img = elements(tree).find((el) => el.tagName === 'img')!;
      expect(img.properties.alt).toBe(payload);
    }
  });

  it('links only to http(s), mailto, site paths and anchors', async () => {
    const bad = [
      'javascript:alert(1)',
      ' JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      '//evil.test/x',
      'https://user:pass@evil.test/',
      'relative/path',
    ];
    const document = doc(para(...bad.map((url) => link({ kind: 'url', url }, `bad ${url}`)), link({ kind: 'url', url: 'https://ok.test/"onmouseover="x' }, 'ok')));
    const { html } = await renderDocument(document, quiet);
    const tree = assertInert(html);
    const anchors = elements(tree).filter((el) => el.tagName === 'a');
    expect(anchors.map((a) => a.properties.href)).toEqual(['https://ok.test/%22onmouseover=%22x']);
    const shown = (function textOf(nodes: RootContent[]): string {
      return nodes.map((n) => (n.type === 'text' ? n.value : n.type === 'element' ? textOf(n.children) : '')).join('');
    })(tree.children);
    for (const url of bad) expect(shown).toContain(`bad ${url}`);
  });

  it('does not trust URLs the context returns', async () => {
    const ctx: RenderContext = {
      pageUrl: () => 'javascript:alert(1)',
      file: (id) => ({ url: id === 'proto' ? '//evil.test/f' : 'data:image/png;base64,AAAA', name: '<b>x</b>', contentType: 'image/png', size: 1 }),
    };
    const document = doc(
      para(link({ kind: 'page', page: 'p' }, 'page'), link({ kind: 'file', file: 'f' }, 'file')),
      { object: 'block', type: 'images', isVoid: false, data: {}, nodes: [{ object: 'block', type: 'image', isVoid: true, data: { ref: { kind: 'file', file: 'proto' }, alt: 'alt' }, fragments: [] }] },
      { object: 'block', type: 'file', isVoid: true, data: { ref: { kind: 'file', file: 'f' } } },
    );
    const { html } = await renderDocument(document, ctx);
    assertInert(html);
    expect(html).not.toMatch(/<a |<img /);
    expect(html).toContain('page');
    expect(html).toContain('alt');
  });

  it('never emits a raw expression source', async () => {
    const document = doc(para('v', { object: 'inline', type: 'expression', isVoid: true, data: { expression: '<script>alert(1)</script>' } }));
    expect((await renderDocument(document, quiet)).html).toBe('<div class="doc"><p>v</p></div>');
  });

  it('keeps Markdown content inert (HTML in Markdown is text, not markup)', async () => {
    const { document } = markdownToDocument(
      '<div onclick="alert(1)">hi</div>\n\n[x](javascript:alert(1)) ![y](javascript:alert(2)) <img src=x onerror=alert(1)>\n\n<script>alert(3)</script>\n',
    );
    const { html } = await renderDocument(document, quiet);
    assertInert(html);
    expect(html).not.toMatch(/<div onclick|<script|<img src="?x/);
  });

  it('the sanitizer schema drops what the renderer never emits', async () => {
    const hostile: Root = {
      type: 'root',
      children: [
        h('div', { className: ['doc', 'evil'], style: 'color:red', onClick: 'alert(1)', id: 'x' }, [
          h('script', 'alert(1)'),
          h('a', { href: 'javascript:alert(1)', target: '_blank', className: ['doc-anchor'] }, 'a'),
          h('img', { src: 'data:image/png;base64,AA', alt: 'a', onError: 'x' }),
          h('source', { srcSet: 'javascript:alert(1)', media: 'print' }),
          h('h2', { id: 'ok-id', className: ['doc-heading', 'x'] }, 'h'),
          h('h2', { id: 'bad id"' }, 'h'),
          h('span', { className: ['hljs-keyword', 'javascript', 'title_', 'other'] }, 's'),
          h('iframe', { src: 'https://x.test' }),
        ]),
      ],
    };
    const html = toHtml(sanitize(hostile, RENDER_SCHEMA));
    expect(html).toBe(
      '<div class="doc"><a class="doc-anchor">a</a><img alt="a"><source><h2 id="ok-id" class="doc-heading">h</h2><h2>h</h2><span class="hljs-keyword javascript title_">s</span></div>',
    );
  });
});

describe('limits', () => {
  it('renders 100-deep nesting and survives far deeper documents without overflowing the stack', async () => {
    const nest = (depth: number) => {
      let node: unknown = para('deepest');
      for (let i = 0; i < depth; i++) node = { object: 'block', type: 'blockquote', nodes: [node] };
      return doc(node);
    };
    const hundred = (await renderDocument(nest(100), quiet)).html;
    expect(hundred.match(/<blockquote>/g)).toHaveLength(100);
    expect(hundred).toContain('deepest');
    const deep = (await renderDocument(nest(50_000), quiet)).html;
    expect(deep.length).toBeLessThan(20_000);
    expect(deep).not.toContain('deepest');
  });

  it('renders a large document (5,000 blocks) quickly', async () => {
    const nodes = Array.from({ length: 5000 }, (_, i) => (i % 10 === 0 ? { object: 'block', type: 'heading-2', data: {}, nodes: [text('Repeated heading')] } : para(`Paragraph ${i} with some words.`)));
    const started = Date.now();
    const { html, outline } = await renderDocument(doc(...nodes), quiet);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outline).toHaveLength(500);
    expect(new Set(outline.map((o) => o.id)).size).toBe(500);
    expect(outline.at(-1)!.id).toBe('repeated-heading-500');
    expect(html.length).toBeGreaterThan(100_000);
  });

  it('renders a typical page (about 2,000 words, code, a table, images) under 100 KB', async () => {
    const words = (n: number, seed: number) =>
      Array.from({ length: n }, (_, i) => ['configure', 'the', 'service', 'deploy', 'token', 'request', 'with', 'a', 'page', 'space'][(i * 7 + seed) % 10]).join(' ');
    const sections: string[] = [];
    for (let s = 0; s < 8; s++) {
      sections.push(`## Section ${s + 1}\n\n${words(120, s)} **${words(5, s)}** and [a link](https://example.test/${s}).\n\n${words(110, s + 1)}\n`);
      sections.push(`- ${words(8, s)}\n- ${words(9, s)}\n- ${words(7, s)}\n`);
      if (s % 2 === 0) {
        sections.push(
          '```typescript\n' +
            Array.from({ length: 15 }, (_, i) => `const value${i}: Record<string, number> = { a: ${i}, b: "${words(3, i)}" }; // note ${i}`).join('\n') +
            '\n```\n',
        );
      }
      if (s % 3 === 0) sections.push(`{% hint style="info" %}\n${words(30, s)}\n{% endhint %}\n`);
      if (s === 4) sections.push(`| Name | Type | Description |\n| --- | --- | --- |\n${Array.from({ length: 10 }, (_, i) => `| field${i} | \`string\` | ${words(12, i)} |`).join('\n')}\n`);
      if (s % 4 === 1) sections.push(`![Screenshot ${s}](/files/img${s})\n`);
    }
    const markdown = `# Typical page\n\n${sections.join('\n')}`;
    const { document } = markdownToDocument(markdown);
    const wordCount = markdown.split(/\s+/).filter(Boolean).length;
    expect(wordCount).toBeGreaterThan(1900);
    const ctx: RenderContext = {
      pageUrl: () => null,
      file: (id) => ({ url: `https://docs.example.test/files/${id}/download?sig=${'a'.repeat(64)}&expires=1790000000`, name: `${id}.png`, contentType: 'image/png', size: 48_000, dimensions: { width: 1280, height: 720 } }),
    };
    const { html, outline } = await renderDocument(document, ctx);
    const bytes = new TextEncoder().encode(html).length;
    expect(bytes).toBeLessThan(100_000);
    expect(bytes).toBeGreaterThan(15_000);
    expect(outline).toHaveLength(8);
    expect(html).toContain('hljs-keyword');
    expect(html).toContain('<table>');
    expect(html.match(/<img /g)).toHaveLength(2);
  });
});

describe('highlight', () => {
  it('resolves syntaxes and aliases to lowlight grammars, unknown to null', async () => {
    expect(['js', 'javascript', 'ts', 'typescript', 'tsx', 'html', 'markup', 'sh', 'bash', 'yml', 'python', 'go', 'golang', 'json', 'c#', 'rust'].map(resolveLanguage)).toEqual([
      'js',
      'javascript',
      'ts',
      'typescript',
      'tsx',
      'html',
      'xml',
      'sh',
      'bash',
      'yaml',
      'python',
      'go',
      'go',
      'json',
      'csharp',
      'rust',
    ]);
    expect([undefined, '', 'text', 'cobol-2099', '__proto__', 'constructor'].map(resolveLanguage)).toEqual([null, null, null, null, null, null]);
  });

  it('keeps the text of every line, also for code too large to highlight', async () => {
    const code = 'let a = `x\ny`;\n\n/* c */';
    const { language, lines } = highlightCode(code, 'js');
    expect(language).toBe('js');
    expect(lines).toHaveLength(4);
    const flatten = (nodes: unknown[]): string =>
      (nodes as Array<{ type: string; value?: string; children?: unknown[] }>).map((n) => (n.type === 'text' ? n.value : flatten(n.children ?? []))).join('');
    expect(lines.map(flatten).join('\n')).toBe(code);
    const big = 'x = 1\n'.repeat(Math.ceil(MAX_HIGHLIGHT_CHARS / 6) + 1);
    const plain = highlightCode(big, 'python');
    expect(plain.language).toBeNull();
    expect(plain.lines.map(flatten).join('\n')).toBe(big);
  });
});
