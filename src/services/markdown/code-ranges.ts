import type { Nodes } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const parser = unified().use(remarkParse);

/**
 * The character ranges (`[start, end)`) of `markdown`'s code: fenced and indented blocks and inline spans, as
 * CommonMark reads them (a `{% code %}` block's fence included). What is written there is text, never a link,
 * so nothing that rewrites links may touch it.
 */
export function codeRanges(markdown: string): Array<readonly [number, number]> {
  const ranges: Array<readonly [number, number]> = [];
  const visit = (node: Nodes) => {
    if ((node.type === 'code' || node.type === 'inlineCode') && node.position) {
      ranges.push([node.position.start.offset ?? 0, node.position.end.offset ?? markdown.length]);
    } else if ('children' in node) {
      for (const child of node.children) visit(child);
    }
  };
  visit(parser.parse(markdown));
  return ranges;
}
