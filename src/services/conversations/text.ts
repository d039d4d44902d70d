/**
 * The plain text of a conversation message, which GitBook documents as "Markdown or HTML". HTML goes
 * through rehype-parse, Markdown through remark-parse; either way every block (paragraph, heading, list
 * item, table row, line of code) ends with a newline, so the sentence segmenter of the analyzers never
 * joins the last words of one block with the first of the next.
 *
 * The hast walk is ours rather than `hast-util-to-text`'s: that package is only installed as a
 * dependency of rehype-remark, not one of ours, and an analyzer needs nothing of the rendering rules it
 * implements beyond "blocks end lines, scripts are not text".
 *
 * The way back: `escapeMarkdown` writes user text (a sentence, a model's answer) as Markdown that can only
 * read back as that text, for the issues' `details` and the clusters' `summary` documents.
 */
import type { Element as HastElement, Nodes as HastNodes } from 'hast';
import type { Nodes as MdastNodes } from 'mdast';
import { toString } from 'mdast-util-to-string';
import rehypeParse from 'rehype-parse';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

/** Characters of a body that are analysed: the rest of a long message is ignored (it bounds the parse and the segmentation). */
export const MAX_ANALYZED_BODY_CHARS = 20_000;

/**
 * Elements whose presence makes a body HTML. Markdown allows inline HTML too, but a support tool that
 * sends HTML sends paragraphs, breaks or formatting: a body with one of these tags is read as HTML.
 */
const HTML_TAG = /<\/?(?:html|body|head|p|div|span|br|hr|a|b|i|u|s|em|strong|small|sup|sub|font|img|ul|ol|li|dl|dt|dd|h[1-6]|blockquote|pre|code|table|thead|tbody|tr|td|th|section|article|header|footer|main|aside|nav|figure|figcaption|script|style|template|noscript|iframe|details|summary|center)(?:\s[^<>]*)?\/?>/i;

/** Elements whose content is not text a reader wrote. */
const SKIPPED_ELEMENTS = new Set(['script', 'style', 'template', 'noscript', 'head', 'iframe', 'object', 'svg', 'math', 'select', 'textarea', 'button']);

/** Elements that end a line (HTML's block-level and table-row elements). */
const BLOCK_ELEMENTS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'html', 'legend',
  'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'ul',
]);

export function looksLikeHtml(body: string): boolean {
  return HTML_TAG.test(body);
}

/** The text of a message body (Markdown or HTML), one block per line, blank lines and runs of spaces removed. */
export function plainText(body: string): string {
  const bounded = body.slice(0, MAX_ANALYZED_BODY_CHARS);
  const html = looksLikeHtml(bounded);
  try {
    return normalizeLines(html ? htmlText(bounded) : markdownText(bounded));
  } catch {
    // Nesting deeper than the parsers' recursion takes (thousands of levels) overflows the stack: the text
    // as written then, tags dropped by pattern, rather than an analysis that fails on every delivery.
    return normalizeLines(html ? bounded.replace(/<[^<>]*>/g, '\n') : bounded);
  }
}

/** Collapses spaces within lines and drops empty lines; control characters become spaces. */
export function normalizeLines(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f\u00a0\u2028\u2029]/g, ' ')
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v]+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
}

function htmlText(html: string): string {
  const tree = unified().use(rehypeParse, { fragment: true }).parse(html);
  const out: string[] = [];
  walkHast(tree, out, false);
  return out.join('');
}

/** HTML renders a line break in its source as a space, except within `<pre>`. */
function walkHast(node: HastNodes, out: string[], pre: boolean): void {
  if (node.type === 'text') {
    out.push(pre ? node.value : node.value.replace(/\s+/g, ' '));
    return;
  }
  if (node.type === 'element') {
    walkElement(node, out, pre);
    return;
  }
  if (node.type === 'root') for (const child of node.children) walkHast(child, out, pre);
  // Comments and doctypes are not text.
}

function walkElement(element: HastElement, out: string[], pre: boolean): void {
  const name = element.tagName.toLowerCase();
  if (SKIPPED_ELEMENTS.has(name)) return;
  if (name === 'br') {
    out.push('\n');
    return;
  }
  if (name === 'img') {
    const alt = element.properties?.alt;
    if (typeof alt === 'string') out.push(` ${alt} `);
    return;
  }
  const block = BLOCK_ELEMENTS.has(name);
  if (block) out.push('\n');
  for (const child of element.children) walkHast(child, out, pre || name === 'pre');
  // Cells of a row stay on its line, apart.
  out.push(block ? '\n' : name === 'td' || name === 'th' ? ' ' : '');
}

/**
 * Characters parsed at once. Markdown parsing takes more than linear time on some input (a long list,
 * deep block quotes, runs of emphasis delimiters: 20,000 characters of them take seconds), so a body is
 * parsed in chunks cut between paragraphs, else between lines, else between words: at most ten small
 * parses. A construct cut in two (a list, a code block) only loses its formatting, never its text.
 */
export const MARKDOWN_CHUNK_CHARS = 2_000;

function markdownText(markdown: string): string {
  const parser = unified().use(remarkParse);
  const out: string[] = [];
  for (const chunk of markdownChunks(markdown)) {
    walkMdast(parser.parse(chunk), out);
    out.push('\n');
  }
  return out.join('');
}

export function markdownChunks(markdown: string): string[] {
  const chunks: string[] = [];
  let rest = markdown;
  while (rest.length > MARKDOWN_CHUNK_CHARS) {
    const window = rest.slice(0, MARKDOWN_CHUNK_CHARS);
    const cut = [window.lastIndexOf('\n\n'), window.lastIndexOf('\n'), window.lastIndexOf(' ')].find((i) => i > MARKDOWN_CHUNK_CHARS / 2);
    const end = cut === undefined ? MARKDOWN_CHUNK_CHARS : cut + 1;
    chunks.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  chunks.push(rest);
  return chunks;
}

/** Block nodes print their phrasing and a newline; code prints its lines; raw HTML is not text (its tags would be words). */
function walkMdast(node: MdastNodes, out: string[]): void {
  switch (node.type) {
    case 'paragraph':
    case 'heading':
    case 'tableCell':
      out.push(phrasingText(node), node.type === 'tableCell' ? ' ' : '\n');
      return;
    case 'code':
      out.push(node.value, '\n');
      return;
    case 'html':
    case 'definition':
    case 'thematicBreak':
      return;
    case 'tableRow':
      for (const child of node.children) walkMdast(child, out);
      out.push('\n');
      return;
    default:
      if ('children' in node) for (const child of node.children) walkMdast(child as MdastNodes, out);
      else if ('value' in node) out.push(node.value, '\n');
  }
}

/**
 * `mdast-util-to-string` of each inline node, except that a hard break is a line break, a soft one (a
 * line break within a paragraph's text) a space as Markdown renders it, and inline HTML nothing.
 */
function phrasingText(node: MdastNodes): string {
  if (node.type === 'break') return '\n';
  if (node.type === 'html') return '';
  if (!('children' in node)) return toString(node, { includeHtml: false }).replace(/\s*\n\s*/g, ' ');
  return node.children.map((child) => phrasingText(child as MdastNodes)).join('');
}

/**
 * ASCII punctuation that can mean something in CommonMark, GFM or GitBook's Markdown: headings (`#`),
 * lists and breaks (`-`, `+`, `*`, `=`, `1.`), frontmatter (`---`), emphasis, code, tables, HTML and
 * entities (`<`, `&`), links (`[`, `(`), block tags (`{%`) and math (`$`). Escaping all of them everywhere
 * is simpler to trust than escaping where each one would matter.
 */
const MARKDOWN_SIGNIFICANT = /[\\`*_{}[\]()<>#+\-.!|~=&:@$^]/g;
/**
 * Words GFM would link even escaped (its autolink literals are found in the parsed text: URLs, `www.`,
 * e-mail addresses): they become code spans, which nothing links, and which read back as the same text.
 */
const AUTOLINKED = /https?:\/\/|www\.|mailto:|xmpp:|@[\w-]+\.[\w-]/i;

/** Text as Markdown that reads back as exactly this text (spaces collapsed): user text never becomes structure, HTML or a link. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .split(' ')
    .map((word) => (AUTOLINKED.test(word) ? codeSpan(word) : word.replace(MARKDOWN_SIGNIFICANT, '\\$&')))
    .join(' ');
}

/** A code span of a word (no spaces): fenced by more backticks than it holds, padded when it starts or ends with one. */
function codeSpan(word: string): string {
  const longest = (word.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0);
  const fence = '`'.repeat(longest + 1);
  const pad = word.startsWith('`') || word.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${word}${pad}${fence}`;
}

/** The text of Markdown (`escapeMarkdown`'s, or any): one block per line. */
export function markdownPlainText(markdown: string): string {
  try {
    return normalizeLines(markdownText(markdown.slice(0, MAX_ANALYZED_BODY_CHARS)));
  } catch {
    return normalizeLines(markdown);
  }
}

/** At most `max` characters: a longer text is cut after a word (when one ends in its second half) and ends with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  if (space > cut.length / 2) cut = cut.slice(0, space);
  // Never leave half of a surrogate pair.
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}
