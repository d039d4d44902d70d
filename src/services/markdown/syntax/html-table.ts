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
  width?: number;
  align: 'left' | 'center' | 'right';
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
  const columns = Array.from({ length: width }, (_, i) => column(headCells[i]));
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

function column(cell: Element | undefined): HtmlTableColumn {
  if (!cell) return { title: '', hidden: false, type: 'text', cardTarget: false, cardCover: false, align: 'left' };
  const width = Number.parseFloat(attribute(cell, 'width') ?? '');
  return {
    title: elementText(cell).trim(),
    hidden: attribute(cell, 'dataHidden') !== undefined,
    type: attribute(cell, 'dataType') ?? 'text',
    cardTarget: attribute(cell, 'dataCardTarget') !== undefined,
    cardCover: attribute(cell, 'dataCardCover') !== undefined,
    ...(Number.isFinite(width) && width > 0 ? { width } : {}),
    align: alignOf(cell),
  };
}

function alignOf(cell: Element): HtmlTableColumn['align'] {
  const style = /text-align\s*:\s*(left|center|right)/i.exec(attribute(cell, 'style') ?? '')?.[1];
  const align = (attribute(cell, 'align') ?? style ?? 'left').toLowerCase();
  return align === 'center' || align === 'right' ? align : 'left';
}
