/**
 * GitBook's HTML form of a code block, which its Git Sync writes when a block has highlighted lines (a fenced
 * block has no syntax for them): `<pre class="language-bash" data-title="x"><code class="lang-bash">` and the code,
 * each highlighted line wrapped in `<strong>` (its newline inside), then `</code></pre>`.
 *
 *     <pre class="language-yaml" data-overflow="wrap"><code class="lang-yaml"><strong>scopes:
 *     </strong>    - space:content:read
 *     </code></pre>
 */
import type { Element, ElementContent } from 'hast';
import { attribute, elementText, htmlElements } from './html';

/** A footnote's label as mdast identifies it (whitespace collapsed, case folded), `[^Note 1]` -> `note 1`. */
export function footnoteIdentifier(label: string): string {
  return label.replace(/[\t\n\r ]+/g, ' ').trim().toLowerCase().toUpperCase().toLowerCase();
}

export interface PreCodeLine {
  text: string;
  highlighted: boolean;
  /**
   * GitBook's annotations of the line, `<a data-footnote-ref href="#user-content-fn-1">text</a>`: where each one's text
   * is in `text` and the footnote (`[^1]: ...`) that holds its note.
   */
  notes?: PreCodeNote[];
}

export interface PreCodeNote {
  from: number;
  to: number;
  label: string;
}

export interface PreCode {
  syntax: string | undefined;
  /** The block's options as `{% code %}` names them (`title`, `overflow`, `lineNumbers`...). */
  attributes: Record<string, string>;
  lines: PreCodeLine[];
}

/** `data-*` attributes of the `<pre>` (hast's property names) and the option each one is. */
const OPTIONS: Record<string, string> = { dataTitle: 'title', dataOverflow: 'overflow', dataLineNumbers: 'lineNumbers', dataFullWidth: 'fullWidth', dataExpandable: 'expandable' };

/** The code block of an HTML block that is one `<pre><code>...</code></pre>`, or null for any other HTML. */
export function readPreCode(html: string): PreCode | null {
  if (!/^\s*<pre[\s>]/i.test(html)) return null;
  const elements = htmlElements(html);
  return elements.length === 1 && elements[0].tagName === 'pre' ? preCodeOf(elements[0]) : null;
}

/** The code block of a `<pre>` element holding one `<code>` (a table cell's code, GitBook's form of it), or null. */
export function preCodeOf(pre: Element): PreCode | null {
  const inside = pre.children.filter((child) => !(child.type === 'text' && child.value.trim() === ''));
  const code = inside.length === 1 && inside[0].type === 'element' && inside[0].tagName === 'code' ? inside[0] : null;
  if (!code) return null;
  const attributes: Record<string, string> = {};
  for (const [property, option] of Object.entries(OPTIONS)) {
    const value = attribute(pre, property);
    // A flag written bare (`data-line-numbers`) is on.
    if (value !== undefined) attributes[option] = value === '' && option !== 'title' ? 'true' : value;
  }
  return { syntax: languageOf(pre, 'language-') ?? languageOf(code, 'lang-'), attributes, lines: linesOf(code.children) };
}

function languageOf(element: Element, prefix: string): string | undefined {
  const className = element.properties?.className;
  const classes = Array.isArray(className) ? className.map(String) : [];
  const found = classes.find((name) => name.startsWith(prefix) && name.length > prefix.length);
  return found?.slice(prefix.length);
}

/**
 * The code's lines: a line is highlighted when it starts inside a `<strong>`. The newline before `</code>` ends the
 * last line and starts none.
 */
function linesOf(children: readonly ElementContent[]): PreCodeLine[] {
  const pieces: Array<{ text: string; strong: boolean; note?: string }> = [];
  const read = (nodes: readonly ElementContent[], strong: boolean) => {
    for (const child of nodes) {
      if (child.type === 'text') pieces.push({ text: child.value, strong });
      else if (child.type !== 'element') continue;
      else if (!strong && (child.tagName === 'strong' || child.tagName === 'b')) read(child.children, true);
      else pieces.push({ text: elementText(child), strong, ...noteOf(child) });
    }
  };
  read(children, false);
  const lines: PreCodeLine[] = [{ text: '', highlighted: false }];
  for (const piece of pieces) {
    const parts = piece.text.split('\n');
    parts.forEach((part, i) => {
      if (i > 0) lines.push({ text: '', highlighted: false });
      const line = lines[lines.length - 1];
      // A line is highlighted when it starts in a strong piece; the empty rest after a strong piece's last
      // newline starts the next line, which is not.
      if (line.text === '' && piece.strong && (part !== '' || i < parts.length - 1)) line.highlighted = true;
      if (piece.note !== undefined && parts.length === 1) (line.notes ??= []).push({ from: line.text.length, to: line.text.length + part.length, label: piece.note });
      line.text += part;
    });
  }
  if (lines.length > 1 && lines[lines.length - 1].text === '' && !lines[lines.length - 1].highlighted) lines.pop();
  return lines;
}

/** GitBook's annotation in code, `<a data-footnote-ref href="#user-content-fn-1">`: the footnote's label. */
function noteOf(element: Element): { note: string } | Record<string, never> {
  if (element.tagName !== 'a' || attribute(element, 'dataFootnoteRef') === undefined) return {};
  const label = /^#user-content-fn-(.+)$/.exec(attribute(element, 'href') ?? '')?.[1];
  return label ? { note: footnoteIdentifier(label) } : {};
}
