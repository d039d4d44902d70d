import type { JSONDocument } from '../markdown';
import { EXPLICIT_HEADING_ID, headingSlug } from '../markdown/heading-ids';

/**
 * What of a page a translator sees: its text leaves, one segment each, and nothing else. A segment is the
 * leaf's text without its surrounding whitespace (put back around the translation, so `Hello ` + **world**
 * keeps its space). Never sent: code blocks (their lines are code), leaves marked `code` (inline code),
 * expressions (`{{ space.vars.x }}`), URLs and every reference (they are `data`, not text), keys and ids,
 * and leaves whose text is a URL or an email address (or the URL of the link around them). A heading
 * without `data.id` is given the slug of its source text as one, so anchors keep resolving.
 * Sent besides leaves: an image's `alt` and an inline image's `alt`/`caption` (shown to readers), and a
 * table column's title. The document keeps its structure and marks: only the strings change.
 *
 * References that name the source space explicitly (`space: <source>`) are pointed at the result space:
 * result pages keep the source's page ids (services/translations/run.ts), so a link to a page of the source
 * becomes a link to its translation, and a link without `space` already resolves in the result space.
 */

interface Slot {
  text: string;
  set(translated: string): void;
}

/** A document (or a page's title and description) cut into segments, and how to put translations back. */
export interface Segmented {
  texts: string[];
  /** Writes translations (one per text, in order) into the copy the segments were taken from. */
  apply(translated: string[]): void;
}

/** `value` cut into its leading whitespace, the text between, and its trailing whitespace (linear: no backtracking regex). */
export function splitEdges(value: string): [lead: string, core: string, trail: string] {
  const start = value.length - value.trimStart().length;
  const end = value.trimEnd().length;
  if (end <= start) return [value, '', ''];
  return [value.slice(0, start), value.slice(start, end), value.slice(end)];
}

/** A slot for a string with surrounding whitespace kept outside what is translated; none for blank text. */
function slot(value: string, write: (next: string) => void): Slot | null {
  const [lead, core, trail] = splitEdges(value);
  if (!/[\p{L}\p{N}]/u.test(core)) return null;
  return { text: core, set: (translated) => write(`${lead}${translated}${trail}`) };
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const hasCodeMark = (leaf: Node) => Array.isArray(leaf.marks) && leaf.marks.some((m) => isNode(m) && m.type === 'code');

const URL_TEXT = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.|mailto:)\S+$/i;
const EMAIL_TEXT = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Text a translator must not change: a URL or an email address, or the URL of the link around it. */
const isAddress = (text: string, linkUrl: string | undefined) => URL_TEXT.test(text) || EMAIL_TEXT.test(text) || (linkUrl !== undefined && text === linkUrl);

const HEADINGS = new Set(['heading-1', 'heading-2', 'heading-3']);
function leafText(node: Node): string {
  let out = '';
  if (node.object === 'text' && Array.isArray(node.leaves)) {
    for (const leaf of node.leaves) if (isNode(leaf) && typeof leaf.text === 'string') out += leaf.text;
  }
  for (const child of [node.nodes]) if (Array.isArray(child)) for (const c of child) if (isNode(c)) out += leafText(c);
  return out;
}

/**
 * A heading without an id gets the slug of its source text as `data.id`, so `#anchor` links written
 * against the source keep resolving in the translation (the renderer uses `data.id` when present).
 */
function pinHeadingId(node: Node): void {
  if (node.object !== 'block' || typeof node.type !== 'string' || !HEADINGS.has(node.type)) return;
  const data = isNode(node.data) ? node.data : (node.data = {});
  if (typeof (data as Node).id === 'string' && (data as Node).id) return;
  const id = headingSlug(leafText(node).replace(/\s+/g, ' ').trim());
  if (EXPLICIT_HEADING_ID.test(id)) (data as Node).id = id;
}

/** The URL a link inline points at, if it is a URL link. */
function linkUrlOf(node: Node): string | undefined {
  if (node.object !== 'inline' || node.type !== 'link' || !isNode(node.data) || !isNode(node.data.ref)) return undefined;
  const url = node.data.ref.url;
  return typeof url === 'string' ? url : undefined;
}

/** Visits a node and its children (`nodes`, `fragments`), collecting the slots of its text. */
function collect(node: Node, slots: Slot[], linkUrl?: string): void {
  if (node.object === 'block' && node.type === 'code') return;
  if (node.object === 'inline' && node.type === 'expression') return;
  if (node.object === 'text' && Array.isArray(node.leaves)) {
    for (const leaf of node.leaves) {
      if (!isNode(leaf) || typeof leaf.text !== 'string' || hasCodeMark(leaf)) continue;
      if (isAddress(leaf.text.trim(), linkUrl)) continue;
      const s = slot(leaf.text, (next) => (leaf.text = next));
      if (s) slots.push(s);
    }
    return;
  }
  pinHeadingId(node);
  linkUrl = linkUrlOf(node) ?? linkUrl;
  const data = isNode(node.data) ? node.data : undefined;
  if (data && (node.type === 'image' || node.type === 'inline-image')) {
    for (const field of ['alt', 'caption'] as const) {
      const value = data[field];
      const s = typeof value === 'string' ? slot(value, (next) => (data[field] = next)) : null;
      if (s) slots.push(s);
    }
  }
  if (data && node.type === 'table' && isNode(data.definition)) {
    for (const column of Object.values(data.definition)) {
      if (!isNode(column) || typeof column.title !== 'string') continue;
      const s = slot(column.title, (next) => (column.title = next));
      if (s) slots.push(s);
    }
  }
  for (const child of [node.nodes, node.fragments]) {
    if (Array.isArray(child)) for (const c of child) if (isNode(c)) collect(c, slots, linkUrl);
  }
}

/** Points every reference naming `from` as its space at `to` (links, anchors, files, reusable contents, the space itself). */
export function rewriteSpaceRefs(value: unknown, from: string, to: string): void {
  if (Array.isArray(value)) {
    for (const item of value) rewriteSpaceRefs(item, from, to);
    return;
  }
  if (!isNode(value)) return;
  if (typeof value.kind === 'string' && value.space === from) value.space = to;
  for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) rewriteSpaceRefs(child, from, to);
}

function segmented(slots: Slot[]): Segmented {
  return {
    texts: slots.map((s) => s.text),
    apply(translated) {
      if (translated.length !== slots.length) throw new Error(`the translator answered ${translated.length} texts for ${slots.length}`);
      slots.forEach((s, i) => s.set(translated[i]));
    },
  };
}

/** The segments of a document; `copy` is the document the translations are written into (a deep copy). */
export function segmentDocument(document: JSONDocument): { copy: JSONDocument; segments: Segmented } {
  const copy = structuredClone(document);
  const slots: Slot[] = [];
  for (const node of copy.nodes as unknown[]) if (isNode(node)) collect(node, slots);
  return { copy, segments: segmented(slots) };
}

/** The segments of a page's title and description, written into `target`. */
export function segmentFields(target: { title: string; description?: string }): Segmented {
  const slots: Slot[] = [];
  const title = slot(target.title, (next) => (target.title = next));
  if (title) slots.push(title);
  const description = typeof target.description === 'string' ? slot(target.description, (next) => (target.description = next)) : null;
  if (description) slots.push(description);
  return segmented(slots);
}

/** Words of the text sent to the translator (runs of non-space characters): what `stats` counts. */
export function countWords(texts: string[]): number {
  let words = 0;
  for (const text of texts) words += text.split(/\s+/).filter(Boolean).length;
  return words;
}
