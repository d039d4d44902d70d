/**
 * What the parser's shortcuts must leave unchanged (their speed is measured by `npm run bench`, never here):
 * - remark-gfm's literal autolinks are looked for only in a tree whose text outside links holds `@`, `http(s)://` or
 *   `www.` (from-markdown.ts): every form still links, wherever it sits, and the transform the shortcut wraps is
 *   still the one remark-gfm registers (renamed by an upgrade, the shortcut would silently stop applying);
 * - beginsWithTitleHeading reads only the lines it needs: it answers as the whole split did, on every shape of head.
 */
import { gfmAutolinkLiteralFromMarkdown } from 'mdast-util-gfm-autolink-literal';
import { describe, expect, it } from 'vitest';
import { beginsWithTitleHeading, markdownToDocument } from '../../src/services/markdown';
import { LITERAL_AUTOLINK_TRANSFORM } from '../../src/services/markdown/from-markdown';

/** Every link's url and text in a document, in order. */
function linksOf(markdown: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const visit = (node: any): void => {
    if (node?.type === 'link') out.push([node.data.ref.url ?? JSON.stringify(node.data.ref), (node.nodes ?? []).map((n: any) => (n.leaves ?? []).map((l: any) => l.text).join('')).join('')]);
    for (const child of node?.nodes ?? []) visit(child);
  };
  markdownToDocument(`# Page\n\n${markdown}`).document.nodes.forEach(visit);
  return out;
}

describe('literal autolinks, looked for only where a text may hold one', () => {
  it('wraps the transform remark-gfm registers, by its name', () => {
    expect(gfmAutolinkLiteralFromMarkdown().transforms?.map((transform) => transform.name)).toEqual([LITERAL_AUTOLINK_TRANSFORM]);
  });

  it('links every form, in any case and anywhere in the text', () => {
    expect(linksOf('See WWW.Example.com, HTTPS://secure.example/path and http://plain.example.')).toEqual([
      ['http://WWW.Example.com', 'WWW.Example.com'],
      ['HTTPS://secure.example/path', 'HTTPS://secure.example/path'],
      ['http://plain.example', 'http://plain.example'],
    ]);
    // As remark-gfm reads them (the address is linked, its `mailto:` or `xmpp:` prefix left as text).
    expect(linksOf('Write to team@example.com, mailto:help@example.org or xmpp:chat@example.net.')).toEqual([
      ['mailto:team@example.com', 'team@example.com'],
      ['mailto:help@example.org', 'help@example.org'],
      ['mailto:chat@example.net', 'chat@example.net'],
    ]);
    // Deep in the tree (a list in a quote, emphasis), and in a page whose only other mark is in a link.
    expect(linksOf('> - an *item with www.deep.example*\n\n[www.label.example](https://target.example)')).toEqual([
      ['http://www.deep.example', 'www.deep.example'],
      ['https://target.example', 'www.label.example'],
    ]);
  });

  it('leaves a page without those marks, and marks in code or a link, as they are', () => {
    expect(linksOf('Plain text, `code@example.com` and `www.code.example`.\n\n```\nhttps://block.example\n```')).toEqual([]);
    expect(linksOf('[a@b.example text](https://t.example)')).toEqual([['https://t.example', 'a@b.example text']]);
  });
});

/** beginsWithTitleHeading as it was: the whole text split into lines. */
function splitWhole(markdown: string): boolean {
  const lines = markdown.replace(/^\uFEFF/, '').split(/\r\n?|\n/);
  let at = 0;
  if (/^---[ \t]*$/.test(lines[0] ?? '')) {
    const end = lines.findIndex((line, i) => i > 0 && /^(?:---|\.\.\.)[ \t]*$/.test(line));
    if (end > 0) at = end + 1;
  }
  while (at < lines.length && lines[at].trim() === '') at++;
  const first = lines[at] ?? '';
  const atx = /^ {0,3}#[ \t]+(.*)$/.exec(first);
  if (atx) return atx[1].replace(/(?:^|[ \t]+)#+[ \t]*$/, '').trim() !== '';
  return /^ {0,3}\S/.test(first) && !/^ {0,3}(?:[-*+>#|]|\d+[.)]|```|~~~|<|\{%)/.test(first) && /^ {0,3}=+[ \t]*$/.test(lines[at + 1] ?? '');
}

describe('beginsWithTitleHeading', () => {
  it('answers as the whole split did, on every combination of head lines and line endings', () => {
    const parts = ['---', '...', '', '   ', '# Title', '#', 'Title', '===', '- item', '# Title #'];
    const endings = ['\n', '\r\n', '\r'];
    let checked = 0;
    let headings = 0;
    // Every sequence of up to three parts, each ending in each line ending (and without one at the end), with a BOM or not.
    const walk = (text: string, depth: number) => {
      for (const candidate of [text, `\uFEFF${text}`]) {
        const expected = splitWhole(candidate);
        expect(beginsWithTitleHeading(candidate), JSON.stringify(candidate)).toBe(expected);
        checked++;
        if (expected) headings++;
      }
      if (depth === 3) return;
      for (const part of parts) for (const ending of endings) walk(`${text}${part}${ending}`, depth + 1);
    };
    walk('', 0);
    expect(checked).toBeGreaterThan(50_000);
    expect(headings).toBeGreaterThan(1000);
    expect(beginsWithTitleHeading('---\ntitle: x\n---\n\n# Title\n\nBody.\n')).toBe(true);
    expect(beginsWithTitleHeading('---\nunclosed: front matter\n# Title\n')).toBe(false);
    // Tens of thousands of heads: seconds on a loaded machine.
  }, 120_000);
});
