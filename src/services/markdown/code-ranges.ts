import type { Nodes } from 'mdast';

/**
 * The character ranges (`[start, end)`) of a parsed page's code, fenced and indented blocks and inline spans (a
 * `{% code %}` block's fence included), as offsets from `from` in the text the tree was parsed from (ranges that end
 * before it left out). What is written there is text, never a link, so nothing that rewrites links may touch it.
 * Read from the tree the page was converted from: that page's own reading (its GFM tables' cells split before
 * their code spans, as the document has them), where the Markdown was once parsed a second time, plainly, for these.
 */
export function codeRangesOf(tree: Nodes, from = 0): Array<readonly [number, number]> {
  const ranges: Array<readonly [number, number]> = [];
  const visit = (node: Nodes) => {
    if ((node.type === 'code' || node.type === 'inlineCode') && node.position) {
      const start = node.position.start.offset ?? 0;
      const end = node.position.end.offset ?? Infinity;
      if (end > from) ranges.push([Math.max(start - from, 0), end - from]);
    } else if ('children' in node) {
      for (const child of node.children) visit(child as Nodes);
    }
  };
  visit(tree);
  return ranges;
}
