/**
 * What GitBook does to a page's document when it is read "evaluated" or "dereferenced": expressions
 * (`{{ space.vars.version }}`) become their value, and reusable-content blocks become the content
 * they point at. Both return a copy; the stored document is never changed.
 *
 * Expressions are not JavaScript here: Workers forbid `eval` and `new Function`, and a page should
 * not run code anyway. Only variable reads are understood; anything else evaluates to ''.
 */
import type {
  DocumentBlockReusableContent,
  DocumentInlineExpression,
  DocumentText,
  JSONDocument,
  TopLevelBlock,
} from '../markdown/document';

/** A revision's or a page's variables, by name. */
export type Variables = Record<string, string | number | boolean>;

/** A node of the document tree as far as walking it is concerned: children are `nodes` and `fragments`. */
interface TreeNode {
  object?: string;
  type?: string;
  key?: string;
  nodes?: TreeNode[];
  fragments?: TreeNode[];
}

// ---------------------------------------------------------------------------------------------
// Expressions

// `vars.x` is read as the revision variable `space.vars.x`.
const SPACE_VARIABLE = /^(?:space\.)?vars\.([A-Za-z_$][\w$-]*)$/;
const PAGE_VARIABLE = /^page\.vars\.([A-Za-z_$][\w$-]*)$/;

/** Replaces every expression inline, wherever inlines occur (paragraphs, headings, captions, cells). */
export function evaluateDocument(document: JSONDocument, variables: Variables, pageVariables: Variables = {}): JSONDocument {
  const copy = structuredClone(document);
  const replace = (nodes: TreeNode[] | undefined) => {
    if (!Array.isArray(nodes)) return;
    nodes.forEach((node, index) => {
      if (isExpression(node)) nodes[index] = evaluatedText(node, variables, pageVariables) as TreeNode;
      replace(node.nodes);
      replace(node.fragments);
    });
  };
  replace(copy.nodes as TreeNode[]);
  return copy;
}

/** The value of one expression; '' for an unknown variable or an expression we cannot evaluate. */
export function evaluateExpression(expression: string, variables: Variables, pageVariables: Variables = {}): string {
  const source = expression.trim();
  const space = SPACE_VARIABLE.exec(source);
  if (space) return lookup(variables, space[1]);
  const page = PAGE_VARIABLE.exec(source);
  return page ? lookup(pageVariables, page[1]) : '';
}

/** Own properties only: `vars.constructor` must not read `Object.prototype`. */
function lookup(variables: Variables, name: string): string {
  return Object.hasOwn(variables, name) ? String(variables[name]) : '';
}

function isExpression(node: TreeNode): node is TreeNode & DocumentInlineExpression {
  return node.object === 'inline' && node.type === 'expression';
}

function evaluatedText(node: DocumentInlineExpression, variables: Variables, pageVariables: Variables): DocumentText {
  const text = evaluateExpression(node.data.expression, variables, pageVariables);
  // The key moves to the text node: it still names the same place in the document.
  return { object: 'text', ...(node.key !== undefined ? { key: node.key } : {}), leaves: [{ object: 'leaf', text, marks: [] }] };
}

// ---------------------------------------------------------------------------------------------
// Reusable content

function isReusableContent(block: TopLevelBlock): block is DocumentBlockReusableContent {
  return block.type === 'reusable-content';
}

/** Ids of the reusable contents the document's top-level blocks include, each once, in order. */
export function reusableContentIds(document: JSONDocument): string[] {
  return [...new Set(document.nodes.filter(isReusableContent).map((block) => block.data.ref.reusableContent))];
}

/**
 * Replaces each top-level reusable-content block whose content is in `reusable` by that content's
 * blocks; the others stay. Only one level is resolved: blocks of the included content that include
 * further content stay blocks, so a content that includes itself cannot loop.
 */
export function dereferenceDocument(document: JSONDocument, reusable: Map<string, JSONDocument>): JSONDocument {
  const keys = new KeyAllocator(document.nodes as TreeNode[]);
  const nodes = document.nodes.flatMap((block, index): TopLevelBlock[] => {
    const content = isReusableContent(block) ? reusable.get(block.data.ref.reusableContent) : undefined;
    if (!content) return [structuredClone(block)];
    // The same content may be included twice: its keys are prefixed by the including block's.
    const prefix = `${block.key ?? `reusable-${index}`}-`;
    return content.nodes.map((inserted) => keys.rekey(structuredClone(inserted) as TreeNode, prefix) as TopLevelBlock);
  });
  return { ...document, data: structuredClone(document.data), nodes };
}

/** Hands out keys not used anywhere else in the result, so editors can still address every node. */
class KeyAllocator {
  private readonly used = new Set<string>();

  constructor(nodes: TreeNode[]) {
    this.collect(nodes);
  }

  /** Gives `node` and its descendants `<prefix><key>`, with a counter if that is taken. */
  rekey(node: TreeNode, prefix: string): TreeNode {
    if (node.key !== undefined) node.key = this.allocate(`${prefix}${node.key}`);
    for (const child of [...(node.nodes ?? []), ...(node.fragments ?? [])]) this.rekey(child, prefix);
    return node;
  }

  private allocate(wanted: string): string {
    let key = wanted;
    for (let n = 2; this.used.has(key); n++) key = `${wanted}-${n}`;
    this.used.add(key);
    return key;
  }

  private collect(nodes: TreeNode[] | undefined) {
    if (!Array.isArray(nodes)) return;
    for (const node of nodes) {
      if (node.key !== undefined) this.used.add(node.key);
      this.collect(node.nodes);
      this.collect(node.fragments);
    }
  }
}
