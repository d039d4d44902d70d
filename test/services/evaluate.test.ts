/**
 * Expressions and reusable content: their place in the document model (our validator and GitBook's
 * published schema), their Markdown form, and evaluating and dereferencing a document.
 */
import { describe, expect, it } from 'vitest';
import { dereferenceDocument, evaluateDocument, evaluateExpression, reusableContentIds } from '../../src/services/content/evaluate';
import {
  documentToMarkdown,
  markdownToDocument,
  parseDocument,
  type DocumentBlockParagraph,
  type DocumentInlineContent,
  type DocumentInlineExpression,
  type DocumentText,
  type JSONDocument,
  type TopLevelBlock,
} from '../../src/services/markdown';
import { gitbookValidator } from '../helpers/gitbook-schema';

// ---------------------------------------------------------------------------------------------
// Helpers

const jsonDocumentValidator = gitbookValidator('JSONDocument');

function collectKeys(nodes: unknown): string[] {
  if (!Array.isArray(nodes)) return [];
  return nodes.flatMap((node: { key?: string; nodes?: unknown; fragments?: unknown }) => [
    ...(node.key ? [node.key] : []),
    ...collectKeys(node.nodes),
    ...collectKeys(node.fragments),
  ]);
}

/** Valid for our schema and for GitBook's, with unique keys. */
function expectValid(document: unknown) {
  const ours = parseDocument(document);
  expect(ours.success ? 'valid' : ours.error).toBe('valid');
  const theirs = jsonDocumentValidator.validate(document);
  expect(theirs.valid ? 'valid' : theirs.errors.slice(-5).map((e) => `${e.instanceLocation}: ${e.error}`)).toBe('valid');
  const keys = collectKeys((document as JSONDocument).nodes);
  expect(new Set(keys).size).toBe(keys.length);
}

const text = (value: string, key?: string): DocumentText => ({
  object: 'text',
  ...(key ? { key } : {}),
  leaves: [{ object: 'leaf', text: value, marks: [] }],
});
const expression = (source: string, key?: string): DocumentInlineExpression => ({
  object: 'inline',
  type: 'expression',
  ...(key ? { key } : {}),
  isVoid: true,
  data: { expression: source },
});
const paragraph = (nodes: DocumentInlineContent[], key?: string): DocumentBlockParagraph => ({
  object: 'block',
  type: 'paragraph',
  ...(key ? { key } : {}),
  isVoid: false,
  data: {},
  nodes,
});
const include = (id: string, key?: string, space?: string): TopLevelBlock => ({
  object: 'block',
  type: 'reusable-content',
  ...(key ? { key } : {}),
  isVoid: true,
  data: { ref: { kind: 'reusable-content', reusableContent: id, ...(space ? { space } : {}) } },
});
const doc = (...nodes: TopLevelBlock[]): JSONDocument => ({ object: 'document', data: {}, nodes });

function textOf(nodes: readonly DocumentInlineContent[]): string {
  return nodes.map((n) => (n.object === 'text' ? n.leaves.map((l) => l.text).join('') : '')).join('');
}

function issuesOf(input: unknown): string {
  const result = parseDocument(input);
  expect(result.success).toBe(false);
  return result.success ? '' : result.issues.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Validation

describe('parseDocument: expressions and reusable content', () => {
  it('accepts expressions in paragraphs and headings, and top-level reusable content', () => {
    const document = {
      object: 'document',
      data: {},
      nodes: [
        paragraph([text('Version '), expression('space.vars.version'), text('')], 'p1'),
        { object: 'block', type: 'heading-2', data: {}, nodes: [text(''), expression('page.vars.title'), text('')] },
        include('rc1', 'rc'),
        // Extra GitBook fields (a content token in `meta`) are kept, as for every node.
        { ...include('rc2', undefined, 'space-2'), meta: { token: 't' } },
      ],
    };
    expectValid(document);
    const parsed = parseDocument(document);
    expect(parsed.success && parsed.document.nodes[3]).toMatchObject({ meta: { token: 't' }, data: { ref: { space: 'space-2' } } });
  });

  it('rejects malformed expressions, naming the path', () => {
    const inParagraph = (inline: unknown) => ({ object: 'document', data: {}, nodes: [paragraph([text('a'), inline as DocumentInlineContent])] });
    expect(issuesOf(inParagraph({ object: 'inline', type: 'expression', isVoid: true, data: {} }))).toMatch(
      /^document\.nodes\[0\]\.nodes\[1\]\.data\.expression: /,
    );
    expect(issuesOf(inParagraph({ object: 'inline', type: 'expression', isVoid: true, data: { expression: 42 } }))).toMatch(
      /^document\.nodes\[0\]\.nodes\[1\]\.data\.expression: /,
    );
    expect(issuesOf(inParagraph({ object: 'inline', type: 'expression', isVoid: false, data: { expression: 'x' } }))).toMatch(
      /^document\.nodes\[0\]\.nodes\[1\]\.isVoid: /,
    );
    // GitBook's links hold only text and inline images.
    const link = { object: 'inline', type: 'link', data: { ref: { kind: 'url', url: 'u' } }, nodes: [expression('vars.x')] };
    expect(issuesOf(inParagraph(link))).toMatch(/^document\.nodes\[0\]\.nodes\[1\]\.nodes\[0\]\./);
    // An unknown inline type lists expression among the accepted ones.
    expect(issuesOf(inParagraph({ object: 'inline', type: 'sparkle', data: {} }))).toContain('expected one of: link, inline-image, expression');
  });

  it('rejects malformed reusable-content blocks, and reusable content outside the top level, naming the path', () => {
    const bad = (block: unknown) => ({ object: 'document', data: {}, nodes: [block] });
    expect(issuesOf(bad({ object: 'block', type: 'reusable-content', isVoid: true, data: {} }))).toMatch(/^document\.nodes\[0\]\.data\.ref: /);
    expect(
      issuesOf(bad({ object: 'block', type: 'reusable-content', isVoid: true, data: { ref: { kind: 'page', page: 'p1' } } })),
    ).toMatch(/^document\.nodes\[0\]\.data\.ref\.kind: /);
    expect(
      issuesOf(bad({ object: 'block', type: 'reusable-content', isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: '' } } })),
    ).toMatch(/^document\.nodes\[0\]\.data\.ref\.reusableContent: /);
    expect(issuesOf(bad({ ...include('rc1'), isVoid: false }))).toMatch(/^document\.nodes\[0\]\.isVoid: /);
    expect(issuesOf(bad({ object: 'block', type: 'hint', data: { style: 'info' }, nodes: [include('rc1')] }))).toMatch(
      /^document\.nodes\[0\]\.nodes\[0\]\.type: unsupported block type "reusable-content" here/,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Markdown

describe('Markdown: {% include %} and expressions', () => {
  it('reads an include line as a reusable-content block, and writes it back unchanged', () => {
    const markdown = 'Intro\n\n{% include "rc1" %}\n\n## After\n\n{% include "rc-2" %}\n';
    const { document } = markdownToDocument(markdown);
    expectValid(document);
    expect(document.nodes.map((b) => b.type)).toEqual(['paragraph', 'reusable-content', 'heading-1', 'reusable-content']);
    expect(document.nodes[1]).toMatchObject({ data: { ref: { kind: 'reusable-content', reusableContent: 'rc1' } } });
    expect(document.nodes[3]).toMatchObject({ data: { ref: { reusableContent: 'rc-2' } } });
    expect(documentToMarkdown(document)).toBe(markdown);
    expect(markdownToDocument(documentToMarkdown(document)).document).toEqual(document);
  });

  it('an include line needs no blank lines around it', () => {
    const { document } = markdownToDocument('Before\n{% include "rc1" %}\nAfter');
    expect(document.nodes.map((b) => b.type)).toEqual(['paragraph', 'reusable-content', 'paragraph']);
  });

  it('document -> Markdown -> document keeps a reusable-content block', () => {
    const document = doc(paragraph([text('a', 'k2')], 'k1'), include('rc "quoted"', 'k3'));
    const markdown = documentToMarkdown(document);
    expect(markdown).toBe('a\n\n{% include "rc &quot;quoted&quot;" %}\n');
    expect(markdownToDocument(markdown).document).toEqual(document);
  });

  it('an include where GitBook allows none leaves a hint, and stays text in a list item', () => {
    const hinted = markdownToDocument('{% hint style="info" %}\nBefore\n\n{% include "rc1" %}\n\nAfter\n{% endhint %}').document;
    expectValid(hinted);
    expect(hinted.nodes.map((b) => b.type)).toEqual(['hint', 'reusable-content', 'hint']);

    const listed = markdownToDocument('- item\n\n  {% include "rc1" %}').document;
    expectValid(listed);
    const [list] = listed.nodes;
    const item = list.type === 'list-unordered' ? list.nodes[0] : undefined;
    expect(item?.nodes.map((b) => (b.type === 'paragraph' ? textOf(b.nodes) : b.type))).toEqual(['item', '{% include "rc1" %}']);
  });

  it('what is not an include stays text: escaped, in code, unquoted, inline, or an end tag', () => {
    const { document } = markdownToDocument(
      '\\{% include "rc1" %}\n\n```\n{% include "rc2" %}\n```\n\n{% include rc3 %}\n\nSee {% include "rc4" %} here\n\n{% endinclude %}',
    );
    expectValid(document);
    expect(document.nodes.map((b) => b.type)).toEqual(['paragraph', 'code', 'paragraph', 'paragraph', 'paragraph']);
    expect(document.nodes.map((b) => (b.type === 'paragraph' ? textOf(b.nodes) : b.type))).toEqual([
      '{% include "rc1" %}',
      'code',
      '{% include rc3 %}',
      'See {% include "rc4" %} here',
      '{% endinclude %}',
    ]);
  });

  it('a paragraph whose text looks like an include is escaped, so it stays text', () => {
    const document = doc(paragraph([text('{% include "rc1" %}')]));
    const markdown = documentToMarkdown(document);
    expect(markdown).toBe('\\{% include "rc1" %}\n');
    expect(markdownToDocument(markdown).document.nodes.map((b) => b.type)).toEqual(['paragraph']);
  });

  it('writes an expression as GitBook does, <code class="expression">, and reads it back as the expression', () => {
    const document = doc(
      paragraph([text('Version '), expression('space.vars.x'), text(' and '), expression('  page.vars.y '), text('.')]),
      { object: 'block', type: 'heading-1', data: {}, nodes: [expression('vars.title')] },
    );
    expectValid(document);
    const markdown = documentToMarkdown(document);
    expect(markdown).toBe(
      'Version <code class="expression">space.vars.x</code> and <code class="expression">page.vars.y</code>.\n\n## <code class="expression">vars.title</code>\n',
    );
    expect(markdown).not.toContain('`');
    const back = markdownToDocument(markdown).document.nodes[0];
    const expressions = back.type === 'paragraph' ? back.nodes.filter((n) => n.object === 'inline').map((n) => (n.data as { expression?: unknown } | undefined)?.expression) : [];
    expect(expressions).toEqual(['space.vars.x', 'page.vars.y']);
    expect(back.type === 'paragraph' && textOf(back.nodes)).toBe('Version  and .');
  });

  it('Markdown characters in an expression are escaped: the expression reads back as itself', () => {
    const source = 'a *b* [c](d) `e` <f> _g_';
    const markdown = documentToMarkdown(doc(paragraph([text('x '), expression(source), text('')])));
    expect(markdown).not.toContain(`>${source}<`);
    const [back] = markdownToDocument(markdown).document.nodes;
    expect(back.type === 'paragraph' ? back.nodes.map((n) => n.object) : []).toEqual(['text', 'inline', 'text']);
    expect(back.type === 'paragraph' && back.nodes[1]).toMatchObject({ type: 'expression', data: { expression: source } });
  });
});

// ---------------------------------------------------------------------------------------------
// Evaluation

describe('evaluateDocument', () => {
  const variables = { x: 'one', count: 3, flag: false, 'dash-ed': 'd', under_score: 'u' };
  const page = { title: 'Page title', x: 'page x' };

  it('reads space variables (both spellings) and page variables, with surrounding whitespace', () => {
    expect(evaluateExpression('space.vars.x', variables, page)).toBe('one');
    expect(evaluateExpression('  vars.x\n', variables, page)).toBe('one');
    expect(evaluateExpression('page.vars.x', variables, page)).toBe('page x');
    expect(evaluateExpression('space.vars.count', variables)).toBe('3');
    expect(evaluateExpression('vars.flag', variables)).toBe('false');
    expect(evaluateExpression('vars.dash-ed', variables)).toBe('d');
    expect(evaluateExpression('vars.under_score', variables)).toBe('u');
  });

  it('an unknown variable or an unsupported expression is empty, and nothing is executed', () => {
    for (const source of [
      'space.vars.missing',
      'page.vars.missing',
      'page.vars.title', // no page variables given
      'vars.constructor',
      'vars.__proto__',
      'vars.toString',
      'space.vars.x + 1',
      '1 + 1',
      'x',
      'globalThis',
      '',
      'space.vars',
      'page.vars.x.y',
    ]) {
      expect([source, evaluateExpression(source, variables)]).toEqual([source, '']);
    }
  });

  it('replaces every expression by a text node holding its value, in blocks, lists and table cells, and copies', () => {
    // A table as the converter makes it, with an expression put into its one cell.
    const [table] = markdownToDocument('| A |\n|---|\n| cell |').document.nodes;
    if (table.type !== 'table') throw new Error('expected a table');
    table.fragments[0].nodes = [paragraph([text('cell '), expression('vars.count', 'e3'), text('')], 'c1')];
    const list: TopLevelBlock = {
      object: 'block',
      type: 'list-unordered',
      key: 'l',
      data: {},
      nodes: [{ object: 'block', type: 'list-item', key: 'li', nodes: [paragraph([expression('page.vars.title', 'e4')], 'lp')] }],
    };
    const document = doc(
      paragraph([text('v', 't1'), expression('space.vars.x', 'e1'), text(' / ', 't2'), expression('vars.nope', 'e2'), text('', 't3')], 'p'),
      table,
      list,
    );
    const before = structuredClone(document);

    const evaluated = evaluateDocument(document, variables, page);
    expectValid(evaluated);
    expect(document).toEqual(before);
    expect(JSON.stringify(evaluated)).not.toContain('"expression"');
    const [p, t, l] = evaluated.nodes;
    if (p.type !== 'paragraph' || t.type !== 'table' || l.type !== 'list-unordered') throw new Error('blocks changed type');
    expect(p.nodes[1]).toEqual(text('one', 'e1'));
    expect(p.nodes[3]).toEqual(text('', 'e2'));
    expect(textOf(p.nodes)).toBe('vone / ');
    const [cellBlock] = t.fragments[0].nodes;
    expect(cellBlock.type === 'paragraph' && textOf(cellBlock.nodes)).toBe('cell 3');
    expect(l.nodes[0].nodes[0]).toEqual(paragraph([text('Page title', 'e4')], 'lp'));
    expect(documentToMarkdown(evaluated)).toContain('vone /');
  });

  it('without page variables a page variable is empty', () => {
    const evaluated = evaluateDocument(doc(paragraph([expression('page.vars.title')])), variables);
    expect(evaluated.nodes[0]).toEqual(paragraph([text('')]));
  });
});

// ---------------------------------------------------------------------------------------------
// Reusable content

describe('dereferenceDocument and reusableContentIds', () => {
  const content = doc(paragraph([text('Shared', 'k2')], 'k1'), {
    object: 'block',
    type: 'hint',
    key: 'k3',
    data: { style: 'info' },
    nodes: [paragraph([text('Hinted', 'k5')], 'k4')],
  });

  it('lists the ids of top-level includes, each once, in order', () => {
    const document = doc(include('b', 'x1'), paragraph([text('p')], 'x2'), include('a', 'x3', 'other-space'), include('b', 'x4'));
    expect(reusableContentIds(document)).toEqual(['b', 'a']);
    expect(reusableContentIds(doc(paragraph([text('none')])))).toEqual([]);
  });

  it('inlines known content with keys unique in the result, keeps unknown includes, copies', () => {
    const document = doc(
      paragraph([text('Intro', 'k2')], 'k1'),
      include('rc1', 'k3'),
      include('missing', 'k4'),
      include('rc1', 'k5', 'another-space'),
      paragraph([text('End', 'k3-k1')], 'k6'),
    );
    const before = structuredClone(document);
    const result = dereferenceDocument(document, new Map([['rc1', content]]));
    expectValid(result);
    expect(document).toEqual(before);

    expect(result.nodes.map((b) => b.type)).toEqual(['paragraph', 'paragraph', 'hint', 'reusable-content', 'paragraph', 'hint', 'paragraph']);
    expect(result.nodes[3]).toEqual(include('missing', 'k4'));
    expect(collectKeys(result.nodes)).toEqual([
      'k1',
      'k2',
      // `k3-k1` is already used by the last paragraph: the included one gets a counter.
      'k3-k1-2',
      'k3-k2',
      'k3-k3',
      'k3-k4',
      'k3-k5',
      'k4',
      'k5-k1',
      'k5-k2',
      'k5-k3',
      'k5-k4',
      'k5-k5',
      'k6',
      'k3-k1',
    ]);
    // The included nodes are copies: changing the result does not change the reusable content.
    (result.nodes[1] as DocumentBlockParagraph).nodes = [];
    expect((content.nodes[0] as DocumentBlockParagraph).nodes).toHaveLength(1);
    expect(result.nodes[1]).not.toBe(content.nodes[0]);
  });

  it('includes without keys still give unique keys, and content without keys stays without', () => {
    const result = dereferenceDocument(doc(include('rc1'), include('rc1'), include('bare')), new Map([['rc1', content], ['bare', doc(paragraph([text('x')]))]]));
    expectValid(result);
    expect(collectKeys(result.nodes).filter((key) => key.endsWith('-k1'))).toEqual(['reusable-0-k1', 'reusable-1-k1']);
    expect(result.nodes[result.nodes.length - 1]).toEqual(paragraph([text('x')]));
  });

  it('resolves one level only: an include inside included content stays an include', () => {
    const selfIncluding = doc(paragraph([text('again')], 'a'), include('loop', 'b'));
    const result = dereferenceDocument(doc(include('loop', 'top')), new Map([['loop', selfIncluding]]));
    expectValid(result);
    expect(result.nodes).toEqual([paragraph([text('again')], 'top-a'), include('loop', 'top-b')]);
    expect(reusableContentIds(result)).toEqual(['loop']);
  });

  it('an empty map leaves the document as it was', () => {
    const document = doc(paragraph([text('p')], 'p'), include('rc1', 'i'));
    expect(dereferenceDocument(document, new Map())).toEqual(document);
  });
});
