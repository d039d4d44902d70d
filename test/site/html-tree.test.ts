/**
 * The renderer's own `h` and `toHtml` (src/site/render/html-tree) make what hastscript and hast-util-to-html make for
 * what the renderer builds and its sanitizer lets through: every property the schema allows named and read as
 * property-information says, the same trees from the same calls, the same bytes from the same trees (escaped text and
 * attributes, booleans, numbers, token lists, void elements), and the renderer's pages written both ways alike.
 */
import { fromHtml } from 'hast-util-from-html';
import { sanitize } from 'hast-util-sanitize';
import { toHtml as referenceToHtml } from 'hast-util-to-html';
import { h as referenceH } from 'hastscript';
import type { Root } from 'hast';
import { find, html } from 'property-information';
import { describe, expect, it } from 'vitest';
import { RENDER_SCHEMA, renderDocument } from '../../src/site/render/document';
import { attributeOf, h, kindOf, toHtml } from '../../src/site/render/html-tree';

const allowed = [...new Set(Object.values(RENDER_SCHEMA.attributes ?? {}).flatMap((list) => list.map((entry) => (Array.isArray(entry) ? entry[0] : entry))))];

describe("the renderer's h and toHtml", () => {
  it('name and read every property the sanitizer allows as property-information does', () => {
    expect(allowed.length).toBeGreaterThan(60);
    for (const property of allowed) {
      const info = find(html, property);
      expect({ property, attribute: attributeOf(property), ...kindOf(property) }).toEqual({
        property: info.property,
        attribute: info.attribute,
        boolean: info.boolean,
        number: info.number,
        spaceSeparated: info.spaceSeparated,
        commaSeparated: info.commaSeparated,
      });
      expect(info.overloadedBoolean || info.commaOrSpaceSeparated).toBe(false);
    }
  });

  it('build the trees hastscript builds', () => {
    const calls: [string, ...unknown[]][] = [
      ['p', { className: ['doc-a', 'doc-b'] }, 'text', 3, null, ['nested', [{ type: 'text', value: 'node' }]]],
      ['P', { className: 'doc-a  doc-b\n' }],
      ['ol', { start: '3', className: [] }, [referenceH('li', 'one')]],
      ['details', { open: true, name: 'doc-tabs-1' }],
      ['details', { open: false }],
      ['details', { open: 'open' }],
      ['input', { type: 'checkbox', disabled: true, checked: '', ariaLabel: 'Done' }],
      ['a', { href: 'https://x.test/?a=1&b=2', rel: 'noopener noreferrer', ariaLabel: undefined, title: Number.NaN }],
      ['img', { src: 'https://x.test/i.png', width: '12', height: 30, alt: '' }],
      ['th', { scope: 'col', colSpan: 'x' }],
      ['ul', [referenceH('li', 'a')]],
      ['code', 'formula <x>'],
      ['div', { type: 'text', value: 'properties' }],
      ['div', { type: 'element', tagName: 'span', properties: {}, children: [] }],
      ['div', { type: 'root', children: [{ type: 'text', value: 'root' }] }],
      ['hr'],
    ];
    for (const [tag, ...rest] of calls) expect(h(tag, ...(rest as []))).toEqual(referenceH(tag, ...(rest as [])));
  });

  it('write the bytes hast-util-to-html writes', () => {
    const tree: Root = {
      type: 'root',
      children: [
        h('p', { className: ['doc-a', 'doc-b'], title: `"quoted" & 'single' \`tick\` \0 <lt>` }, 'a < b && c > d "e" \'f\''),
        h('details', { open: true, name: 'doc-tabs-2' }, [h('summary', 'Title')]),
        h('details', { open: false }),
        { type: 'element', tagName: 'details', properties: { open: '' }, children: [] },
        { type: 'element', tagName: 'details', properties: { open: 'open', hidden: undefined }, children: [] },
        h('input', { type: 'checkbox', disabled: true, checked: false }),
        h('img', { src: 'https://x.test/i.png?a=1&b=2', alt: '', width: 12 }),
        { type: 'element', tagName: 'br', properties: {}, children: [{ type: 'text', value: 'inside a void' }] },
        { type: 'element', tagName: 'a', properties: { rel: ['noopener', 'noreferrer'], dataFootnoteRef: true, accept: ['a', 'b', ''], ariaDescribedBy: ['x', 'y'] }, children: [] },
        h('ol', { start: 2 }, [h('li', '😀 \u00a0 emoji')]),
      ],
    };
    expect(toHtml(tree)).toBe(referenceToHtml(tree));
  });

  it('write pages of the renderer as hast-util-to-html writes them, read back and sanitized', async () => {
    const text = (value: string, marks: string[] = []) => ({ object: 'text', leaves: [{ object: 'leaf', text: value, marks: marks.map((type) => ({ object: 'mark', type })) }] });
    const block = (type: string, nodes: unknown[], data: Record<string, unknown> = {}) => ({ object: 'block', type, data, nodes });
    const document = {
      object: 'document',
      data: {},
      nodes: [
        block('heading-1', [text('Install & <run>')]),
        block('paragraph', [text('Bold "quote" ', ['bold']), text("it's `code`", ['code']), text(' & more')]),
        block('list-ordered', [block('list-item', [block('paragraph', [text('one')])])], { start: 3 }),
        block('hint', [block('paragraph', [text('Careful')])], { style: 'warning' }),
        block('code', [block('code-line', [text('const a = "<b>" && 1;')])], { syntax: 'javascript' }),
        block('tabs', [block('tabs-item', [block('paragraph', [text('Tab')])], { title: 'First' })]),
      ],
    };
    const { html: rendered } = await renderDocument(document as never, { pageUrl: () => null, file: () => null });
    expect(rendered).toContain('<h2 id="install-run" class="doc-heading">Install &#x26; &#x3C;run> <a href="#install-run" class="doc-anchor" aria-label="Link to section: Install &#x26; <run>">#</a></h2>');
    const tree = sanitize(fromHtml(rendered, { fragment: true }), RENDER_SCHEMA) as Root;
    expect(toHtml(tree)).toBe(referenceToHtml(tree));
  });
});
