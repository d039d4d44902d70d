/**
 * GitBook's HTML form of a table, the writer's side of syntax/html-table.ts: the form GitBook writes a table in when
 * Markdown's pipe table cannot hold it (cards, column widths, a hidden header, a full-width flag, hidden target and
 * cover columns, link and file columns, cells of lists or headings). One line, as GitBook writes it:
 * `<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th></tr>
 * </thead><tbody><tr><td><strong>Title</strong></td><td><a href="page.md">page.md</a></td></tr></tbody></table>`,
 * attributes in GitBook's order, text escaped as GitBook escapes it (`&#x26;`, `&#x3C;`). Written as a pipe table,
 * an edited cards table lost its cards, widths and links.
 */
import type { AnyBlock, ContentRef, DocumentBlockCode, DocumentBlockTable, DocumentInlineContent, DocumentMark, DocumentTextLeaf } from './document';
import { mentionLabelOf } from './hrefs';
import { preCodeHtml } from './pre-code-html';

type HrefFor = (ref: ContentRef) => string;

/** Whether a table needs GitBook's HTML form: anything of it a pipe table has no syntax for. */
export function needsHtmlTable(block: DocumentBlockTable): boolean {
  const { view, definition } = block.data;
  const data = block.data as DocumentBlockTable['data'] & { fullWidth?: unknown };
  const ids = Object.keys(definition);
  if (view.type === 'cards' || data.fullWidth !== undefined) return true;
  const widths = view.columnWidths;
  if (widths && typeof widths === 'object' && Object.keys(widths).length > 0) return true;
  if (ids.some((id) => !view.columns.includes(id)) || ids.some((id) => definition[id].type !== 'text' || verticalAlignmentOf(definition[id]) !== '')) return true;
  if (view.hideHeader && ids.some((id) => definition[id].title !== '')) return true;
  return block.fragments.some((fragment) => (fragment.nodes as unknown as AnyBlock[]).some((node) => node.type !== 'paragraph'));
}

/** The table in GitBook's HTML form. */
export function htmlTable(block: DocumentBlockTable, hrefFor: HrefFor): string {
  const { view, definition, records } = block.data;
  const data = block.data as DocumentBlockTable['data'] & { fullWidth?: unknown };
  const columns = columnOrder(block);
  const hidden = new Set(Object.keys(definition).filter((id) => !view.columns.includes(id)));
  const widths = (view.columnWidths && typeof view.columnWidths === 'object' ? view.columnWidths : {}) as Record<string, unknown>;
  const attributes = [
    view.type === 'cards' && view.cardSize === 'large' ? ' data-card-size="large"' : '',
    typeof data.fullWidth === 'boolean' ? ` data-full-width="${data.fullWidth}"` : '',
    view.type !== 'cards' && view.hideHeader ? ' data-header-hidden' : '',
    view.type === 'cards' ? ' data-view="cards"' : '',
  ].join('');
  const head = columns
    .map((id) => {
      const column = definition[id] as (typeof definition)[string] & { textAlignment?: string };
      const width = typeof widths[id] === 'number' ? ` width="${widths[id]}"` : '';
      const align = column.textAlignment === 'center' || column.textAlignment === 'right' ? ` align="${column.textAlignment}"` : '';
      const flags = [
        verticalAlignmentOf(column),
        hidden.has(id) ? ' data-hidden' : '',
        view.targetDefinition === id ? ' data-card-target' : '',
        view.coverDefinition === id ? ' data-card-cover' : '',
        view.coverDefinitionDark === id ? ' data-card-cover-dark' : '',
        column.type !== 'text' ? ` data-type="${attributeText(column.type)}"` : '',
      ].join('');
      return `<th${width}${align}${flags}>${escapeText(column.title)}</th>`;
    })
    .join('');
  const rows = Object.entries(records)
    .sort(([idA, a], [idB, b]) => (a.orderIndex === b.orderIndex ? compare(idA, idB) : compare(a.orderIndex, b.orderIndex)))
    .map(([, record]) => {
      const cells = columns.map((id) => {
        const column = definition[id] as (typeof definition)[string] & { textAlignment?: string };
        const align = column.type === 'text' && (column.textAlignment === 'center' || column.textAlignment === 'right') ? ` align="${column.textAlignment}"` : '';
        return `<td${align}${verticalAlignmentOf(column)}>${cellHtml(block, column.type, record.values[id], hrefFor)}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('');
  return `<table${attributes}><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

/** The definition's order (the source's, hidden columns where they were) when the view lists its columns in it. */
function columnOrder(block: DocumentBlockTable): string[] {
  const { view, definition } = block.data;
  const all = Object.keys(definition);
  const listed = view.columns.filter((id) => definition[id]);
  const inOrder = all.filter((id) => listed.includes(id)).every((id, i) => listed[i] === id);
  return inOrder ? all : [...listed, ...all.filter((id) => !listed.includes(id))];
}

function cellHtml(block: DocumentBlockTable, type: string, value: unknown, hrefFor: HrefFor): string {
  if (value === null || value === undefined) return '';
  if (type === 'content-ref' && typeof value === 'object' && 'kind' in (value as object)) return linkTo(value as ContentRef, hrefFor);
  if (type === 'image' && typeof value === 'object') return linkTo(imageRecordRef(value as Record<string, unknown>), hrefFor);
  if (type === 'files' && Array.isArray(value)) return value.map((file) => linkTo({ kind: 'file', file: String(file) } as ContentRef, hrefFor)).join('');
  if (type === 'text' && typeof value === 'string') {
    const fragment = block.fragments.find((candidate) => candidate.fragment === value);
    return fragment ? blocksHtml(fragment.nodes as unknown as AnyBlock[], hrefFor) : '';
  }
  if (Array.isArray(value)) return escapeText(value.map(String).join(', '));
  return escapeText(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/**
 * `valign` as GitBook writes a column's vertical alignment, on its header and on each of its cells:
 * `<th valign="top">`, `<td valign="top">`; nothing for a column without one.
 */
function verticalAlignmentOf(column: Readonly<Record<string, unknown>>): string {
  const value = column.verticalAlignment;
  return value === 'top' || value === 'middle' || value === 'bottom' ? ` valign="${value}"` : '';
}

/** An image column's value: a file or URL reference, or GitBook's `{ ref, objectFit?, alt? }` around one. */
function imageRecordRef(value: Record<string, unknown>): ContentRef {
  return ('kind' in value ? value : value.ref) as ContentRef;
}

/**
 * A link cell, labelled as GitBook labels one: its target's last segment (`tools.md`, a folder's name) or, to an
 * anchor, `#anchor`. Git Sync's export writes the label again once the href is the target's path.
 */
function linkTo(ref: ContentRef, hrefFor: HrefFor): string {
  const href = hrefFor(ref);
  return `<a href="${attributeText(href)}">${escapeText(linkLabel(href))}</a>`;
}

/**
 * The label GitBook gives a link cell to `href`: a URL itself, an anchor `#anchor`, a path its last segment. A page or
 * file of the space by id (`/pages/<id>`) is labelled with its href, which Git Sync's export writes as that last
 * segment once it is the target's path.
 */
function linkLabel(href: string): string {
  const hash = href.indexOf('#');
  if (hash > 0) return href.slice(hash);
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || /^\/(?:pages|files)\//.test(href)) return href;
  return href.match(/[^/]+(?=\/?$)/)?.[0] ?? href;
}

/** A cell's blocks: one paragraph as its inline HTML, more as `<p>` each; headings and lists as their elements. */
function blocksHtml(blocks: readonly AnyBlock[], hrefFor: HrefFor): string {
  if (blocks.length === 1 && blocks[0].type === 'paragraph') return inlineHtml((blocks[0].nodes ?? []) as DocumentInlineContent[], hrefFor);
  return blocks.map((block) => blockHtml(block, hrefFor)).join('');
}

function blockHtml(block: AnyBlock, hrefFor: HrefFor): string {
  const inline = () => inlineHtml((block.nodes ?? []) as DocumentInlineContent[], hrefFor);
  const heading = /^heading-([1-3])$/.exec(block.type);
  // The reader's levels (html-table cells): `<h2>` (and `<h1>`) a heading 1, `<h3>` a heading 2, `<h4>` a heading 3.
  if (heading) return `<h${Number(heading[1]) + 1}>${inline()}</h${Number(heading[1]) + 1}>`;
  if (block.type === 'list-unordered' || block.type === 'list-ordered' || block.type === 'list-tasks') {
    const tag = block.type === 'list-ordered' ? 'ol' : 'ul';
    const items = ((block.nodes ?? []) as AnyBlock[]).map((item) => `<li>${blocksHtml((item.nodes ?? []) as AnyBlock[], hrefFor)}</li>`);
    return `<${tag}>${items.join('')}</${tag}>`;
  }
  // GitBook's form of a cell's code block (gitmd10: it was written as an empty `<p>`).
  if (block.type === 'code') return preCodeHtml(block as unknown as DocumentBlockCode);
  return `<p>${inline()}</p>`;
}

/** Marks as HTML elements, outermost first, as a cell's reader reads them back. */
const MARK_TAGS: ReadonlyArray<[string, string]> = [
  ['strikethrough', 's'],
  ['italic', 'em'],
  ['bold', 'strong'],
  ['keyboard', 'kbd'],
  ['superscript', 'sup'],
  ['subscript', 'sub'],
  ['code', 'code'],
];

export function inlineHtml(nodes: readonly DocumentInlineContent[], hrefFor: HrefFor): string {
  return nodes
    .map((node) => {
      if (node.object === 'text') return node.leaves.map(leafHtml).join('');
      const inline = node as { type: string; data?: Record<string, any>; nodes?: DocumentInlineContent[] };
      const data = inline.data ?? {};
      switch (inline.type) {
        case 'link':
          return `<a href="${attributeText(data.ref ? hrefFor(data.ref) : '')}">${inlineHtml(inline.nodes ?? [], hrefFor)}</a>`;
        case 'mention': {
          // GitBook's form of a mention in HTML (`<a data-mention href="page.md">page.md</a>`): read back as one. Without
          // a label of the author's, the target's file name (hrefs.ts mentionLabelOf).
          const href = data.ref ? hrefFor(data.ref) : '';
          return `<a data-mention href="${attributeText(href)}">${inlineHtml(inline.nodes ?? [], hrefFor) || escapeText(mentionLabelOf(href))}</a>`;
        }
        case 'annotation':
          return inlineHtml(inline.nodes ?? [], hrefFor);
        case 'icon':
          return iconHtml(data);
        case 'button':
          return buttonHtml(data, data.ref ? hrefFor(data.ref) : '');
        case 'inline-image': {
          const size = data.size === 'line' || data.size === 'original' ? ` data-size="${data.size}"` : '';
          return `<img src="${attributeText(data.ref ? hrefFor(data.ref) : '')}" alt="${attributeText(String(data.alt ?? ''))}"${size}>`;
        }
        case 'expression':
          return `<code class="expression">${escapeText(String(data.expression ?? ''))}</code>`;
        case 'inline-math':
          return escapeText(`$$${String(data.formula ?? '')}$$`);
        case 'emoji':
          // GitBook's span (beefree builder-addons/addons/README.md's cards): our reader takes both, GitBook writes this.
          return `<span data-gb-custom-inline data-tag="emoji" data-code="${attributeText(String(data.code ?? ''))}">${escapeText(emojiText(String(data.code ?? '')))}</span>`;
        default:
          return '';
      }
    })
    .join('');
}

function leafHtml(leaf: DocumentTextLeaf): string {
  let html = escapeText(leaf.text).replace(/\n/g, '<br>');
  for (const [type, tag] of [...MARK_TAGS].reverse()) if (leaf.marks.some((mark) => mark.type === type)) html = `<${tag}>${html}</${tag}>`;
  const color = leaf.marks.find((mark): mark is DocumentMark & { type: 'color' } => mark.type === 'color');
  if (color) html = `${openColorMark(color)}${html}</mark>`;
  return html;
}

/** `<mark style="color:orange;background-color:purple;">`, as the Markdown writer writes a color mark. */
export function openColorMark(mark: DocumentMark & { type: 'color' }): string {
  const data = (mark as { data: { text?: string; background?: string } }).data;
  const style = [data.text && data.text !== 'default' ? `color:${data.text};` : '', data.background && data.background !== 'default' ? `background-color:${data.background};` : ''].join('');
  return `<mark style="${escapeAttribute(style)}">`;
}

/**
 * GitBook's icon: `<i class="fa-bolt" style="color:$primary;">:bolt:</i>`, its color (a text color, `$primary`...) in
 * the style attribute. Written without it, an edited line lost the icon's color.
 */
export function iconHtml(data: Record<string, any>): string {
  const icon = String(data.icon ?? '');
  const color = typeof data.color === 'string' && data.color !== 'default' ? ` style="color:${escapeAttribute(data.color)};"` : '';
  return `<i class="fa-${escapeAttribute(icon)}"${color}>:${escapeHtml(icon)}:</i>`;
}

/**
 * An inline image with a dark-mode variant, as GitBook writes one and syntax/inline-html.ts readPicture reads it:
 * `<picture><source srcset="dark.svg" media="(prefers-color-scheme: dark)"><img src="light.svg" alt=""></picture>`.
 */
export function pictureHtml(picture: { src: string; darkSrc: string; alt: string; size?: string }): string {
  const size = picture.size ? ` data-size="${escapeAttribute(picture.size)}"` : '';
  const img = `<img src="${escapeAttribute(picture.src)}" alt="${escapeAttribute(picture.alt)}"${size}>`;
  return `<picture><source srcset="${escapeAttribute(picture.darkSrc)}" media="(prefers-color-scheme: dark)">${img}</picture>`;
}

/**
 * GitBook's button: `<a href="..." class="button primary" data-icon="rocket">Label</a>`, or, for one that runs an
 * action (the assistant, the search, an option), `<button type="button" class="button primary" data-action="ask"
 * data-query="...">`, as the parser reads them (from-markdown.ts iconOrButton). The icon was dropped on export.
 */
export function buttonHtml(data: Record<string, any>, href: string): string {
  const kind = data.kind === 'secondary' ? 'secondary' : 'primary';
  const icon = typeof data.icon === 'string' && data.icon !== '' ? ` data-icon="${escapeAttribute(data.icon)}"` : '';
  const label = escapeHtml(String(data.label ?? ''));
  const action = data.action && typeof data.action === 'object' && !data.ref ? (data.action as Record<string, unknown>) : null;
  if (action && typeof action.action === 'string') {
    const attributes = (['action', 'query', 'slug'] as const)
      .filter((name) => typeof action[name] === 'string')
      .map((name) => ` data-${name}="${escapeAttribute(String(action[name]))}"`)
      .join('');
    return `<button type="button" class="button ${kind}"${icon}${attributes}>${label}</button>`;
  }
  return `<a href="${escapeAttribute(href)}" class="button ${kind}"${icon}>${label}</a>`;
}

/** `1f600` (or `1f468-200d-1f4bb`) -> the emoji itself. */
export function emojiText(code: string): string {
  const points = code.split('-').map((part) => Number.parseInt(part, 16));
  return points.every((point) => Number.isInteger(point) && point > 0 && point <= 0x10ffff) ? String.fromCodePoint(...points) : '';
}

/** Text as GitBook's HTML tables escape it. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&#x26;').replace(/</g, '&#x3C;');
}

function attributeText(text: string): string {
  return text.replace(/&/g, '&#x26;').replace(/"/g, '&#x22;');
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, '&quot;');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
