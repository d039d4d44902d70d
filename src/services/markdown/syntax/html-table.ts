/**
 * GitBook writes a table as HTML when Markdown cannot hold it: column widths (`<th width="240">`), cards
 * (`<table data-view="cards">` with a hidden `data-card-target` column of links and a `data-card-cover` column of
 * files), a hidden header (`<table data-header-hidden>`), a full-width table, cells of several paragraphs. Hand
 * written repositories write the same HTML over several lines. This reads such an HTML block into its columns and
 * rows (cells as HTML elements); the converter makes GitBook's table block of it.
 */
import type { Element } from 'hast';
import { attribute, elementText, elementsOf, htmlElements } from './html';

export interface HtmlTableColumn {
  title: string;
  /** Not shown (`data-hidden`): a cards table's target and cover columns. */
  hidden: boolean;
  /** `data-type`: `content-ref`, `files`, `number`, ...; text when absent. */
  type: string;
  cardTarget: boolean;
  cardCover: boolean;
  /** `data-card-cover-dark`: the cover shown in dark mode (GitBook's `coverDefinitionDark`). */
  cardCoverDark: boolean;
  width?: number;
  align: 'left' | 'center' | 'right';
  /** `valign` of the column's cells (GitBook's `verticalAlignment` of a text column). */
  valign?: 'top' | 'middle' | 'bottom';
}

export interface HtmlTable {
  view: 'grid' | 'cards';
  headerHidden: boolean;
  fullWidth?: boolean;
  cardSize?: 'medium' | 'large';
  columns: HtmlTableColumn[];
  /** Each row's cells (`<td>`), as many as the row has. */
  rows: Element[][];
}

/** The table of an HTML block that is exactly one `<table>`, or null. */
export function readHtmlTable(html: string): HtmlTable | null {
  if (!/^\s*<table[\s>]/i.test(html)) return null;
  const elements = htmlElements(html);
  if (elements.length !== 1 || elements[0].tagName !== 'table') return null;
  const table = elements[0];
  const sections = elementsOf(table.children);
  if (sections.some((section) => !['thead', 'tbody', 'tfoot', 'tr', 'colgroup', 'caption'].includes(section.tagName))) return null;
  const rowsOf = (tags: string[]) =>
    sections.flatMap((section) => (section.tagName === 'tr' && tags.includes('tr') ? [section] : tags.includes(section.tagName) ? elementsOf(section.children).filter((row) => row.tagName === 'tr') : []));
  const cellsOf = (row: Element) => elementsOf(row.children).filter((cell) => cell.tagName === 'td' || cell.tagName === 'th');
  const head = rowsOf(['thead'])[0];
  const body = rowsOf(['tbody', 'tr', 'tfoot']).map(cellsOf);
  const headCells = head ? cellsOf(head) : [];
  const width = Math.max(headCells.length, ...body.map((cells) => cells.length), 0);
  if (width === 0) return null;
  const columns = Array.from({ length: width }, (_, i) => column(headCells[i], body.find((cells) => cells[i])?.[i]));
  const view = attribute(table, 'dataView') === 'cards' ? 'cards' : 'grid';
  const fullWidth = attribute(table, 'dataFullWidth');
  const cardSize = attribute(table, 'dataCardSize');
  return {
    view,
    headerHidden: !head || attribute(table, 'dataHeaderHidden') !== undefined,
    ...(fullWidth !== undefined ? { fullWidth: fullWidth !== 'false' } : {}),
    ...(view === 'cards' ? { cardSize: cardSize === 'large' ? 'large' : 'medium' } : {}),
    columns,
    rows: body,
  };
}

function column(cell: Element | undefined, firstCell: Element | undefined): HtmlTableColumn {
  const valign = valignOf(cell) ?? valignOf(firstCell);
  if (!cell) return { title: '', hidden: false, type: 'text', cardTarget: false, cardCover: false, cardCoverDark: false, align: 'left', ...(valign ? { valign } : {}) };
  const width = Number.parseFloat(attribute(cell, 'width') ?? '');
  return {
    title: elementText(cell).trim(),
    hidden: attribute(cell, 'dataHidden') !== undefined,
    type: attribute(cell, 'dataType') ?? 'text',
    cardTarget: attribute(cell, 'dataCardTarget') !== undefined,
    cardCover: attribute(cell, 'dataCardCover') !== undefined,
    cardCoverDark: attribute(cell, 'dataCardCoverDark') !== undefined,
    ...(Number.isFinite(width) && width > 0 ? { width } : {}),
    align: alignOf(cell),
    ...(valign ? { valign } : {}),
  };
}

/** GitBook writes a column's vertical alignment on its header and on each of its cells: `<td valign="top">`. */
function valignOf(cell: Element | undefined): HtmlTableColumn['valign'] {
  const value = (cell && attribute(cell, 'vAlign'))?.toLowerCase();
  return value === 'top' || value === 'middle' || value === 'bottom' ? value : undefined;
}

function alignOf(cell: Element): HtmlTableColumn['align'] {
  const style = /text-align\s*:\s*(left|center|right)/i.exec(attribute(cell, 'style') ?? '')?.[1];
  const align = (attribute(cell, 'align') ?? style ?? 'left').toLowerCase();
  return align === 'center' || align === 'right' ? align : 'left';
}

/** The column types whose cells GitBook stores as values, not as fragments of blocks. */
export type HtmlValueColumnKind = 'content-ref' | 'files' | 'image' | 'checkbox' | 'number';

/**
 * The type a column is read as: the one its `data-type` says when every filled cell holds what that type stores (a
 * content-ref cell one link, a files cell links to files, an image cell one link to a file or URL, a checkbox cell
 * `true` or `false`, a number cell a number), else text, so that nothing a cell holds is lost.
 */
export function htmlColumnKind(column: HtmlTableColumn, cells: ReadonlyArray<Element | undefined>, refKind: (href: string) => string): HtmlValueColumnKind | 'text' {
  const filled = cells.filter((cell): cell is Element => cell !== undefined && elementText(cell).trim() + cellLinks(cell).join('') !== '');
  const onlyLinks = (cell: Element) => elementsOf(cell.children).every((child) => child.tagName === 'a') && cellLinks(cell).length > 0;
  const textIs = (pattern: RegExp) => filled.every((cell) => elementsOf(cell.children).length === 0 && pattern.test(elementText(cell).trim()));
  switch (column.type) {
    case 'content-ref':
      return filled.every((cell) => onlyLinks(cell) && cellLinks(cell).length === 1) ? 'content-ref' : 'text';
    case 'files':
      return filled.every((cell) => onlyLinks(cell) && cellLinks(cell).every((href) => refKind(href) === 'file')) ? 'files' : 'text';
    case 'image':
      // GitBook's image value (DocumentTableImageRecord) is an uploaded file or a URL.
      return filled.every((cell) => onlyLinks(cell) && cellLinks(cell).length === 1 && ['file', 'url'].includes(refKind(cellLinks(cell)[0]))) ? 'image' : 'text';
    case 'checkbox':
      return textIs(/^(?:true|false)$/) ? 'checkbox' : 'text';
    case 'number':
      return textIs(NUMBER) ? 'number' : 'text';
    default:
      return 'text';
  }
}

const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;

/** A cell's value in a column of one of those types (null for an empty cell, as GitBook stores one). */
export function htmlCellValue(kind: HtmlValueColumnKind, cell: Element | undefined, resolve: (href: string) => unknown, resolveFile: (href: string) => string): unknown {
  const links = cell ? cellLinks(cell) : [];
  const text = cell ? elementText(cell).trim() : '';
  switch (kind) {
    case 'content-ref':
      return links[0] !== undefined ? resolve(links[0]) : null;
    case 'image':
      // `{ ref }`, GitBook's DocumentTableImageRecord: a bare reference also matches its ContentRef alternative, and
      // a value of `oneOf` must match exactly one.
      return links[0] !== undefined ? { ref: resolve(links[0]) } : null;
    case 'files':
      return links.map(resolveFile);
    case 'checkbox':
      return text === '' ? null : text === 'true';
    case 'number':
      return text === '' ? null : Number(text);
  }
}

/** The `href` of each link of a cell. */
export function cellLinks(cell: Element): string[] {
  const out: string[] = [];
  const visit = (node: Element['children'][number]) => {
    if (node.type !== 'element') return;
    const href = node.tagName === 'a' ? attribute(node, 'href') : undefined;
    if (href !== undefined) out.push(href);
    else node.children.forEach(visit);
  };
  cell.children.forEach(visit);
  return out;
}

/**
 * A hand-written table often spans several HTML blocks with Markdown between them, a blank line on each side so that
 * CommonMark reads it as Markdown (the side-by-side code of style guides):
 *
 *     <table>
 *     <thead><tr><th>Bad</th><th>Good</th></tr></thead>
 *     <tbody>
 *     <tr><td>
 *
 *     ```go
 *     ...
 *     ```
 *
 *     </td><td>
 *     ...
 *     </td></tr>
 *     </tbody></table>
 *
 * The pieces are read as one table: each run of Markdown between the HTML blocks stands in the HTML as an element
 * `<gitbook-flow data-part="N">`, which the converter replaces by that run's blocks in the cell it falls in.
 */
export const FLOW_PART_TAG = 'gitbook-flow';

/** How many `<table>` an HTML block leaves open (negative when it closes more than it opens). */
export function openTables(html: string): number {
  return (html.match(/<table[\s>]/gi)?.length ?? 0) - (html.match(/<\/table\s*>/gi)?.length ?? 0);
}

/**
 * The table of HTML blocks with runs of Markdown between them (`pieces`: an HTML block's source, or the index of a
 * run), or null when they are no one table or a run falls outside the body's cells (a header's or between rows).
 */
export function readSplitHtmlTable(pieces: ReadonlyArray<string | number>): HtmlTable | null {
  const html = pieces.map((piece) => (typeof piece === 'string' ? piece : `<${FLOW_PART_TAG} data-part="${piece}"></${FLOW_PART_TAG}>`)).join('\n');
  const table = readHtmlTable(html);
  if (!table) return null;
  const runs = pieces.filter((piece) => typeof piece === 'number').length;
  const inCells = table.rows.flat().reduce((count, cell) => count + flowParts(cell).length, 0);
  return inCells === runs ? table : null;
}

/** The index of a run of Markdown an element stands for, or null for any other element. */
export function flowPartOf(element: Element): number | null {
  if (element.tagName !== FLOW_PART_TAG) return null;
  const part = Number(attribute(element, 'dataPart'));
  return Number.isInteger(part) ? part : null;
}

/** The runs a cell holds where the converter reads blocks: in the cell itself or in its lists' items. */
function flowParts(element: Element): number[] {
  return elementsOf(element.children).flatMap((child) => {
    const part = flowPartOf(child);
    if (part !== null) return [part];
    return ['ul', 'ol', 'li'].includes(child.tagName) ? flowParts(child) : [];
  });
}
