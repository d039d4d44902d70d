/**
 * GitBook writes a block tag on the line right after an HTML block, with no blank line between them:
 *
 *     {% tab title="On" %}
 *     <figure><img src="on.png" alt=""><figcaption></figcaption></figure>
 *     {% endtab %}
 *
 * In CommonMark such an HTML block (any but `<pre>`, `<script>`, `<style>`, `<textarea>`, comments and
 * declarations) runs to the next blank line, so it took the `{% endtab %}` line, and the tabs were no pair: their
 * tags stayed text and the figures code. GitBook reads a tag line there as a tag. Here the HTML nodes of a parsed
 * tree are split at such lines into HTML nodes and tag lines, before tags are paired.
 */
import type { Html, Nodes, Parent, Root } from 'mdast';
import type { LiquidTagNode } from './liquid-tag';
import { parseTag } from './tags';

/** HTML blocks that end at their own end condition (CommonMark's kinds 1 to 5), not at a blank line. */
const SELF_ENDING_HTML = /^\s*<(?:(?:pre|script|style|textarea)(?:\s|>|$)|!--|\?|![A-Za-z]|!\[CDATA\[)/i;

/** The containers of flow content: an HTML node among their children is an HTML block. */
const FLOW_PARENTS = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition']);

const TAG_LINE = /^\s*\{%.*%\}\s*$/;

type Position = NonNullable<Html['position']>;

export function splitHtmlAtTagLines(tree: Root, source: string): void {
  let lineStarts: number[] | null = null;
  const startOfLine = (line: number) => {
    lineStarts ??= [0, ...[...source.matchAll(/\n/g)].map((match) => match.index! + 1)];
    return lineStarts[line - 1] ?? source.length;
  };
  const visit = (node: Nodes) => {
    if (!('children' in node)) return;
    const parent = node as Parent;
    if (FLOW_PARENTS.has(parent.type) && parent.children.some((child) => child.type === 'html' && mayHoldTagLines(child.value))) {
      parent.children = parent.children.flatMap((child): unknown[] => (child.type === 'html' ? split(child, startOfLine, source) : [child])) as Parent['children'];
    }
    for (const child of parent.children) visit(child as Nodes);
  };
  visit(tree);
}

const mayHoldTagLines = (html: string) => html.includes('{%') && !SELF_ENDING_HTML.test(html);

function split(node: Html, startOfLine: (line: number) => number, source: string): Array<Html | LiquidTagNode> {
  if (!mayHoldTagLines(node.value)) return [node];
  const lines = node.value.split('\n');
  const isTag = lines.map((line) => TAG_LINE.test(line) && parseTag(line) !== null);
  if (!isTag.some(Boolean)) return [node];
  const firstLine = node.position?.start.line;
  // Where line `index` of the value starts in the source (after a container's prefix), for the pieces' positions.
  const place = (index: number, text: string, end: boolean): Position['start'] | undefined => {
    if (firstLine === undefined) return undefined;
    const lineStart = startOfLine(firstLine + index);
    const found = source.indexOf(text, lineStart);
    const at = found < 0 ? lineStart : found;
    const offset = end ? at + text.length : at;
    return { line: firstLine + index, column: offset - lineStart + 1, offset };
  };
  const pieces: Array<Html | LiquidTagNode> = [];
  let from = 0;
  const flushHtml = (to: number) => {
    const chunk = lines.slice(from, to);
    if (chunk.join('').trim() !== '') {
      const start = place(from, chunk[0], false);
      const end = place(to - 1, chunk[chunk.length - 1], true);
      pieces.push({ type: 'html', value: chunk.join('\n'), ...(start && end ? { position: { start, end } } : {}) });
    }
  };
  lines.forEach((line, index) => {
    if (!isTag[index]) return;
    flushHtml(index);
    const value = line.trim();
    const start = place(index, value, false);
    const end = place(index, value, true);
    pieces.push({ type: 'gitbookLiquidTag', value, ...(start && end ? { position: { start, end } } : {}) });
    from = index + 1;
  });
  flushHtml(lines.length);
  return pieces;
}
