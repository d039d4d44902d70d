import { slugify } from '../content/revisions';

/**
 * What the derived indexes take from a page's document: its text cut into heading-delimited sections
 * (search), and the references it makes (links). Both are functions of the document alone.
 */

type Node = {
  object?: string;
  type?: string;
  leaves?: Array<{ text?: string }>;
  nodes?: Node[];
  fragments?: Node[];
  data?: Record<string, unknown>;
  meta?: Record<string, unknown>;
};

export interface Section {
  /** The heading's anchor; empty for the text before the first heading. */
  anchor: string;
  title: string;
  body: string;
}

const HEADINGS = new Set(['heading-1', 'heading-2', 'heading-3']);
const BLOCK_SEPARATOR = '\n';

/** The plain text of a node and everything under it (words of adjacent blocks stay apart). */
function textOf(node: Node): string {
  if (node.object === 'text') return (node.leaves ?? []).map((l) => l.text ?? '').join('');
  const parts: string[] = [];
  for (const child of [...(node.nodes ?? []), ...(node.fragments ?? [])]) parts.push(textOf(child));
  // A table's cell text lives in its records' values.
  if (node.type === 'table' && node.data && typeof node.data.records === 'object' && node.data.records) {
    for (const record of Object.values(node.data.records as Record<string, { values?: Record<string, unknown> }>)) {
      for (const value of Object.values(record.values ?? {})) if (typeof value === 'string') parts.push(value);
    }
  }
  return parts.filter(Boolean).join(node.object === 'block' || node.object === 'document' ? BLOCK_SEPARATOR : '');
}

/** Heading-delimited sections of a document; anchors are unique within the page. */
export function sectionsOf(document: { nodes?: Node[] } | null | undefined): Section[] {
  const sections: Section[] = [{ anchor: '', title: '', body: '' }];
  const used = new Set<string>();
  for (const node of document?.nodes ?? []) {
    if (node.type && HEADINGS.has(node.type)) {
      const title = textOf(node).trim();
      // The heading's own id, else the one the Markdown converter gave it (meta.id, as the site renders it).
      const explicit = typeof node.data?.id === 'string' ? (node.data.id as string) : typeof node.meta?.id === 'string' ? (node.meta.id as string) : '';
      let anchor = explicit || slugify(title) || 'section';
      for (let n = 2; used.has(anchor); n++) anchor = `${explicit || slugify(title) || 'section'}-${n}`;
      used.add(anchor);
      sections.push({ anchor, title, body: '' });
      continue;
    }
    const current = sections[sections.length - 1];
    const text = textOf(node).trim();
    if (text) current.body = current.body ? `${current.body}\n${text}` : text;
  }
  return sections.filter((s, i) => i > 0 || s.body !== '');
}

/** A reference a document makes, as GitBook's ContentRef. */
export type LinkTarget =
  | { kind: 'page'; page: string; space?: string }
  | { kind: 'file'; file: string }
  | { kind: 'url'; url: string }
  | { kind: 'anchor'; anchor: string; page?: string; space?: string }
  | { kind: 'space'; space: string };

/** The one key of a target: two links to the same place are one target. */
export function targetKey(target: LinkTarget): string {
  switch (target.kind) {
    case 'page':
      return target.space ? `space:${target.space}/page:${target.page}` : `page:${target.page}`;
    case 'anchor':
      return `${target.space ? `space:${target.space}/` : ''}page:${target.page ?? ''}#${target.anchor}`;
    case 'file':
      return `file:${target.file}`;
    case 'space':
      return `space:${target.space}`;
    case 'url':
      return `url:${target.url}`;
  }
}

const str = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 2048 ? v : undefined);

function asTarget(ref: Record<string, unknown>): LinkTarget | undefined {
  const space = str(ref.space);
  switch (ref.kind) {
    case 'page':
      return str(ref.page) ? { kind: 'page', page: ref.page as string, ...(space ? { space } : {}) } : undefined;
    case 'anchor':
      return str(ref.anchor) ? { kind: 'anchor', anchor: ref.anchor as string, ...(str(ref.page) ? { page: ref.page as string } : {}), ...(space ? { space } : {}) } : undefined;
    case 'file':
      return str(ref.file) ? { kind: 'file', file: ref.file as string } : undefined;
    case 'url':
      return str(ref.url) ? { kind: 'url', url: ref.url as string } : undefined;
    case 'space':
      return space ? { kind: 'space', space } : undefined;
    default:
      return undefined;
  }
}

/** The file ids of a table block's `files` columns (GitBook's DocumentTableDefinitionFiles: a cards table's cover), in record order. */
function tableFiles(node: Record<string, unknown>): string[] {
  if (node.type !== 'table' || !node.data || typeof node.data !== 'object') return [];
  const { definition, records } = node.data as { definition?: unknown; records?: unknown };
  if (!definition || typeof definition !== 'object' || !records || typeof records !== 'object') return [];
  const columns = Object.entries(definition as Record<string, { type?: unknown }>).flatMap(([id, column]) => (column && column.type === 'files' ? [id] : []));
  if (columns.length === 0) return [];
  const ordered = Object.values(records as Record<string, { orderIndex?: unknown; values?: Record<string, unknown> }>).sort((a, b) => String(a?.orderIndex ?? '').localeCompare(String(b?.orderIndex ?? '')));
  return ordered.flatMap((record) => columns.flatMap((id) => {
    const value = record?.values?.[id];
    return Array.isArray(value) ? value.filter((file): file is string => !!str(file)) : [];
  }));
}

/** Every reference of a document (links, images, files, embeds), each target once, in document order. */
export function linksOf(document: unknown): LinkTarget[] {
  const found = new Map<string, LinkTarget>();
  const stack: unknown[] = [document];
  const ordered: unknown[] = [];
  // Depth-first, in document order, without recursion (documents may be deep).
  while (stack.length > 0) {
    const value = stack.pop();
    if (!value || typeof value !== 'object') continue;
    ordered.push(value);
    const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  const add = (target: LinkTarget | undefined) => {
    if (target && !found.has(targetKey(target))) found.set(targetKey(target), target);
  };
  for (const value of ordered) {
    if (Array.isArray(value)) continue;
    // A table's `files` columns (a cards table's cover) hold file ids, not refs: each a file the page shows.
    for (const file of tableFiles(value as Record<string, unknown>)) add({ kind: 'file', file });
    const ref = (value as { ref?: unknown }).ref;
    if (!ref || typeof ref !== 'object' || Array.isArray(ref)) continue;
    add(asTarget(ref as Record<string, unknown>));
  }
  return [...found.values()];
}

/** The page or file of this space a link from page `pageId` needs to be `ok` (none for URLs and other spaces). */
export function dependency(target: LinkTarget, pageId: string): { page?: string; file?: string } {
  if (target.kind === 'file') return { file: target.file };
  if ((target.kind === 'page' || target.kind === 'anchor') && !target.space) return { page: target.kind === 'page' ? target.page : (target.page ?? pageId) };
  return {};
}
