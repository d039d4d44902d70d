/**
 * Syntax highlighting of code blocks on the server, with lowlight 3 (highlight.js grammars as hast) and
 * its `common` set of 37 languages. Nothing runs in the visitor's browser and nothing is evaluated here:
 * highlight.js only matches regular expressions (no `eval`, no `new Function`), so it runs in workerd.
 *
 * The output is hast (spans with `hljs-*` classes around text nodes), split into one node list per line
 * so the renderer can mark highlighted lines and number them. Text is never unescaped or interpreted:
 * the concatenated text of the lines is exactly the input. An unknown or absent syntax, or code too large
 * to highlight within a page's budget, comes back as plain text lines.
 */
import type { ElementContent } from 'hast';
import { common, createLowlight } from 'lowlight';

const lowlight = createLowlight(common);

/** Beyond this many characters, code is not highlighted (highlighting costs CPU per character). */
export const MAX_HIGHLIGHT_CHARS = 100_000;

/** GitBook's syntax names that highlight.js knows under another name. */
const SYNTAX_ALIASES: Record<string, string> = {
  markup: 'xml',
  svg: 'xml',
  'c#': 'csharp',
  'c++': 'cpp',
  golang: 'go',
  shellsession: 'shell',
  console: 'shell',
  zsh: 'bash',
  yml: 'yaml',
  jsonc: 'json',
  json5: 'json',
  text: 'plaintext',
  txt: 'plaintext',
  plain: 'plaintext',
};

/** Names of the grammars' sub-language spans (`<span class="javascript">` inside HTML). */
export const HIGHLIGHT_LANGUAGES: readonly string[] = lowlight.listLanguages();

export interface HighlightedCode {
  /** The highlight.js language used, or null when the code is plain text. */
  language: string | null;
  /** One node list per line of `code` (split on `\n`); spans never cross a line. */
  lines: ElementContent[][];
}

/** The highlight.js grammar for a document's `syntax`, or null. */
export function resolveLanguage(syntax: string | undefined): string | null {
  if (!syntax) return null;
  const name = syntax.trim().toLowerCase();
  if (!name) return null;
  const wanted = Object.hasOwn(SYNTAX_ALIASES, name) ? SYNTAX_ALIASES[name] : name;
  if (wanted === 'plaintext') return null;
  return lowlight.registered(wanted) ? wanted : null;
}

export function highlightCode(code: string, syntax: string | undefined): HighlightedCode {
  const language = code.length <= MAX_HIGHLIGHT_CHARS ? resolveLanguage(syntax) : null;
  if (language) {
    try {
      const tree = lowlight.highlight(language, code);
      return { language, lines: splitLines(tree.children as ElementContent[]) };
    } catch {
      // A grammar that fails on some input leaves the code plain, never the page broken.
    }
  }
  return { language: null, lines: code.split('\n').map((line) => (line ? [{ type: 'text', value: line }] : [])) };
}

/**
 * Splits highlighted nodes at newlines: a span that covers several lines (a block comment, a template
 * string) becomes one span per line with the same classes, so every line is a well-formed subtree.
 */
export function splitLines(nodes: readonly ElementContent[]): ElementContent[][] {
  const lines: ElementContent[][] = [[]];
  for (const node of nodes) {
    if (node.type === 'text') {
      node.value.split('\n').forEach((part, index) => {
        if (index > 0) lines.push([]);
        if (part) lines[lines.length - 1].push({ type: 'text', value: part });
      });
    } else if (node.type === 'element') {
      splitLines(node.children).forEach((children, index) => {
        if (index > 0) lines.push([]);
        if (children.length) lines[lines.length - 1].push({ ...node, children });
      });
    }
    // Comments and other node types are not produced by lowlight; anything else is dropped.
  }
  return lines;
}
