/**
 * GitBook's HTML form of a code block, `<pre><code>` (syntax/pre-code.ts reads it): for the Markdown writer
 * (to-markdown.ts) and the HTML table writer (html-table-writer.ts), without the parser.
 */
import type { DocumentBlockCode } from './document';

/** The `data-*` attribute of a `<pre>` for each code block option GitBook's HTML form writes (syntax/pre-code.ts reads them). */
const PRE_CODE_OPTIONS = [
  ['title', 'data-title'],
  ['overflow', 'data-overflow'],
  ['lineNumbers', 'data-line-numbers'],
  ['fullWidth', 'data-full-width'],
  ['expandable', 'data-expandable'],
] as const;

/**
 * A code block with highlighted lines in GitBook's HTML form, the only one that has them (a fence has no syntax for
 * them): `<pre class="language-x" data-title="..."><code class="lang-x">`, each highlighted line in `<strong>` with
 * its newline, then `</code></pre>`. Written as a fence, an edited block lost its highlights on export.
 * Also GitBook's form of a code block in an HTML table's cell (html-table-writer.ts).
 */
export function preCodeHtml(block: DocumentBlockCode, note?: NoteNumber): string {
  const syntax = block.data.syntax;
  const options = PRE_CODE_OPTIONS.flatMap(([option, attribute]) => {
    const value = block.data[option];
    if (value === undefined || value === '' || value === false) return [];
    // GitBook writes the line numbers' flag bare.
    if (option === 'lineNumbers' && value === true) return [` ${attribute}`];
    return [` ${attribute}="${escapePreCode(String(value)).replace(/"/g, '&#x22;')}"`];
  });
  const lines = block.nodes.map((line) => {
    const text = `${(line.nodes as unknown as LineContent[]).map((node) => lineContentHtml(node, note)).join('')}\n`;
    return line.data?.highlighted === true ? `<strong>${text}</strong>` : text;
  });
  const pre = syntax ? `<pre class="language-${syntaxAttribute(syntax)}"${options.join('')}>` : `<pre${options.join('')}>`;
  return `${pre}<code${syntax ? ` class="lang-${syntaxAttribute(syntax)}"` : ''}>${lines.join('')}</code></pre>`;
}

/** Code as GitBook escapes it in a `<pre>`: `&` and `<` as hexadecimal references. */
function escapePreCode(text: string): string {
  return text.replace(/&/g, '&#x26;').replace(/</g, '&#x3C;');
}

/** A language name as an attribute value (the table writer's and this one's callers escape alike). */
function syntaxAttribute(syntax: string): string {
  return syntax.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The number a writer gives an annotation's note (its footnote, `[^1]: ...`), or none where notes are not written. */
export type NoteNumber = (annotation: { fragments?: unknown[] }) => number | null;

type LineContent = { object: 'text'; leaves: Array<{ text: string }> } | { object: 'inline'; type: string; nodes?: LineContent[]; fragments?: unknown[] };

/**
 * A code line's text, escaped; an annotation as GitBook writes one in code, `<a data-footnote-ref
 * href="#user-content-fn-1">text</a>`, with its note as the footnote `[^1]` (syntax/pre-code.ts reads it back).
 */
function lineContentHtml(node: LineContent, note: NoteNumber | undefined): string {
  if (node.object === 'text') return escapePreCode(node.leaves.map((leaf) => leaf.text).join(''));
  const text = (node.nodes ?? []).map((child) => lineContentHtml(child, undefined)).join('');
  const number = node.type === 'annotation' && note ? note(node) : null;
  return number === null ? text : `<a data-footnote-ref href="#user-content-fn-${number}">${text}</a>`;
}

/** Whether a code block holds an inline (an annotation): only GitBook's HTML form writes one. */
export function hasInlines(block: DocumentBlockCode): boolean {
  return block.nodes.some((line) => (line.nodes as unknown as LineContent[]).some((node) => node.object === 'inline'));
}
