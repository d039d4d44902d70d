/**
 * Server-side rendering of a page's document (GitBook's JSON document model, services/markdown/document)
 * to HTML for the published site. No client-side framework: the output is static, semantic markup that
 * works without JavaScript.
 *
 * Pipeline: document -> hast (built with ./html-tree's `h`, hastscript's for these elements) -> hast-util-sanitize
 * (schema below: the default, GitHub-style schema extended with exactly the tags, classes and attributes built here)
 * -> HTML (./html-tree's `toHtml`, hast-util-to-html's for what the schema lets through, which escapes every text and
 * attribute value). Document text is only ever a hast
 * text node, so markup typed into a document is shown, never parsed; URLs are checked here (http(s) and
 * mailto only, or what the context signs) and again by the sanitizer.
 *
 * The caller passes a document already dereferenced (reusable content inlined) and evaluated
 * (services/content/evaluate: `evaluateDocument` turns every expression inline into a text node holding its
 * value). A reusable-content block or expression inline still present renders nothing, since its value
 * is unknown here.
 *
 * Headings: heading-1/2/3 become h2/h3/h4 (the page title is the layout's h1). Each has an id, the
 * heading's `data.id` when valid, else a slug of its text; ids are unique within the page (`-2`, `-3`...)
 * and never one of `RESERVED_IDS` (the layout's own ids); explicit ids are claimed first, so links to
 * them keep working. Ids are not prefixed (no `user-content-`): anchor links written in GitBook
 * (`#install`) must match, and the site runs no script that DOM clobbering could mislead.
 *
 * Class names and structure are listed with `RENDER_CSS` (./styles); every class starts with `doc-`.
 */
import type { Element, ElementContent, Root } from 'hast';
import { defaultSchema, sanitize, type Schema } from 'hast-util-sanitize';
import type { JSONDocument } from '../../services/markdown/document';
import { EXPLICIT_HEADING_ID, headingSlug } from '../../services/markdown/heading-ids';
import type { HighlightedCode } from './highlight';
import { HIGHLIGHT_LANGUAGES } from './highlight-languages';
import { h, toHtml } from './html-tree';

export { RENDER_CSS } from './styles';

export interface RenderedFile {
  url: string;
  name: string;
  contentType: string;
  size: number;
  dimensions?: { width: number; height: number };
}
export interface RenderContext {
  /** The site URL of a page (same space when `space` is absent), with `#anchor` when given; null when the page is not on the site (the link then renders as its text only). */
  pageUrl(ref: { page?: string; space?: string; anchor?: string }): string | null;
  /** The title of a page (same space when `space` is absent): a mention without a label of its own shows it, as GitBook's site does. */
  pageTitle?(ref: { page: string; space?: string }): string | null;
  /** A file of the page's revision, with its signed download URL; null when missing (the image/file renders as its alt/name only). */
  file(fileId: string): RenderedFile | null;
  /** Ids the layout uses itself, which headings must not take (default `RESERVED_IDS`). */
  reservedIds?: Iterable<string>;
}
export interface OutlineEntry {
  id: string;
  title: string;
  level: 1 | 2 | 3;
}
export interface RenderedDocument {
  html: string;
  outline: OutlineEntry[];
}

/** Ids a heading never gets (a heading "Main" gets `main-2`), so the layout can use them. */
export const RESERVED_IDS: readonly string[] = ['main', 'main-content', 'content', 'top', 'header', 'footer', 'nav', 'navigation', 'sidebar', 'toc', 'outline', 'search'];

/** Nesting deeper than this is not rendered (validation caps documents at 100 levels). */
const MAX_DEPTH = 120;

/** What the renderer may read of a node: the document is walked defensively, never trusted. */
interface AnyNode {
  object?: unknown;
  type?: unknown;
  key?: unknown;
  data?: Record<string, unknown> | null;
  nodes?: unknown;
  fragments?: unknown;
  leaves?: unknown;
  fragment?: unknown;
}
interface Leaf {
  text?: unknown;
  marks?: unknown;
}
interface Ref {
  kind?: unknown;
  [field: string]: unknown;
}

const HEADING_TAGS = { 'heading-1': 'h2', 'heading-2': 'h3', 'heading-3': 'h4' } as const;
const HEADING_LEVELS = { 'heading-1': 1, 'heading-2': 2, 'heading-3': 3 } as const;
const HINT_LABELS: Record<string, string> = { info: 'Info', warning: 'Warning', danger: 'Danger', success: 'Success' };
const HTTP_METHODS = new Set(['get', 'post', 'put', 'delete', 'patch', 'options', 'head', 'trace', 'hook']);
const NAMED_COLORS = new Set(['green', 'blue', 'red', 'orange', 'yellow', 'purple', 'primary', 'info', 'success', 'warning', 'danger']);
// ---------------------------------------------------------------------------------------------
// Public API

/**
 * The document as HTML. Its code blocks are highlighted by highlight.js's grammars, loaded by the first document that
 * has one: they are a third of the site's code, which a page without code never evaluates.
 */
export async function renderDocument(document: JSONDocument, context: RenderContext): Promise<RenderedDocument> {
  let highlight: Highlight = plainCode;
  if (hasCodeBlock(document)) highlight = (await import('./highlight')).highlightCode;
  const renderer = new Renderer(document, context, highlight);
  const children = renderer.blocks(asNodes(document?.nodes), 0, true);
  const root: Root = { type: 'root', children: [h('div', { className: ['doc'] }, children)] };
  const clean = sanitize(root, RENDER_SCHEMA) as Root;
  dropEmptyClasses(clean);
  return { html: toHtml(clean), outline: renderer.outline };
}

/** Every file id a document references (images, dark images, files, file links, file table cells), each once. */
export function referencedFiles(document: JSONDocument): string[] {
  const files = new Set<string>();
  const addRef = (ref: unknown) => {
    const r = ref as Ref | undefined;
    if (r && typeof r === 'object' && r.kind === 'file' && typeof r.file === 'string' && r.file) files.add(r.file);
  };
  walk(document, (node) => {
    const data = node.data;
    if (!data || typeof data !== 'object') return;
    if (node.type === 'image' || node.type === 'inline-image') {
      addRef(data.ref);
      addRef(data.refDark);
    } else if (node.type === 'file' || node.type === 'link') {
      addRef(data.ref);
    } else if (node.type === 'table') {
      const definition = (data.definition ?? {}) as Record<string, { type?: unknown }>;
      const records = (data.records ?? {}) as Record<string, { values?: Record<string, unknown> }>;
      if (typeof definition !== 'object' || typeof records !== 'object') return;
      for (const record of Object.values(records)) {
        for (const [column, value] of Object.entries(record?.values ?? {})) {
          if (definition[column]?.type === 'files' && Array.isArray(value)) {
            for (const id of value) if (typeof id === 'string' && id) files.add(id);
          } else if (definition[column]?.type === 'content-ref') addRef(value);
        }
      }
    }
  });
  return [...files];
}

// ---------------------------------------------------------------------------------------------
// Rendering

type Child = ElementContent;

class Renderer {
  readonly outline: OutlineEntry[] = [];
  private tabGroups = 0;
  private readonly taken = new Set<string>();
  private readonly explicit = new Set<string>();

  constructor(
    document: JSONDocument,
    private readonly context: RenderContext,
    private readonly highlightCode: Highlight,
  ) {
    for (const id of context.reservedIds ?? RESERVED_IDS) this.taken.add(id);
    // Explicit ids are claimed before any generated one, so a slug never steals an id links point at.
    walk(document, (node) => {
      if (typeof node.type === 'string' && node.type in HEADING_TAGS) {
        const id = node.data?.id;
        if (typeof id === 'string' && EXPLICIT_HEADING_ID.test(id) && !this.taken.has(id)) this.explicit.add(id);
      }
    });
  }

  blocks(nodes: AnyNode[], depth: number, topLevel = false): Child[] {
    if (depth > MAX_DEPTH) return [];
    const out: Child[] = [];
    for (const node of nodes) {
      try {
        const rendered = this.block(node, depth, topLevel);
        if (rendered) out.push(...(Array.isArray(rendered) ? rendered : [rendered]));
      } catch {
        // A malformed block is skipped; the rest of the page still renders.
      }
    }
    return out;
  }

  private block(node: AnyNode, depth: number, topLevel: boolean): Child | Child[] | null {
    if (!node || typeof node !== 'object' || node.object !== 'block') return null;
    const data = (node.data && typeof node.data === 'object' ? node.data : {}) as Record<string, unknown>;
    switch (node.type) {
      case 'paragraph':
        return h('p', { className: alignClass(data.align) }, this.inlines(asNodes(node.nodes)));
      case 'heading-1':
      case 'heading-2':
      case 'heading-3':
        return this.heading(node, data, node.type, topLevel);
      case 'list-ordered': {
        const start = typeof data.start === 'number' && Number.isSafeInteger(data.start) && data.start !== 1 ? data.start : undefined;
        return h('ol', { start }, this.listItems(node, depth, false));
      }
      case 'list-unordered':
        return h('ul', this.listItems(node, depth, false));
      case 'list-tasks':
        return h('ul', { className: ['doc-tasks'] }, this.listItems(node, depth, true));
      case 'divider':
        return h('hr');
      case 'blockquote':
        return h('blockquote', this.blocks(asNodes(node.nodes), depth + 1));
      case 'hint': {
        const style = typeof data.style === 'string' && Object.hasOwn(HINT_LABELS, data.style) ? data.style : 'info';
        return h(
          'aside',
          { className: ['doc-hint', `doc-hint-${style}`], role: 'note', ariaLabel: HINT_LABELS[style] },
          this.blocks(asNodes(node.nodes), depth + 1),
        );
      }
      case 'code':
        return this.code(node, data);
      case 'images':
        return this.images(node, data);
      case 'image':
        // A stray image outside an images block still renders as one.
        return this.images({ nodes: [node] }, {});
      case 'file':
        return this.file(node, data);
      case 'table':
        return this.table(node, data, depth);
      case 'openapi-operation':
        return this.openapiOperation(data, topLevel);
      case 'openapi-schemas':
        return this.openapiSchemas(data, topLevel);
      case 'swagger':
      case 'openapi-webhook':
        return this.openapiReference(node.type, data);
      case 'tabs':
        return this.tabs(node, depth);
      case 'expandable':
        return this.expandable(node, data, depth);
      case 'stepper':
        return h('ol', { className: ['doc-stepper'] }, this.items(node, 'stepper-step', depth, () => ['doc-step']));
      case 'columns':
        return h('div', { className: ['doc-columns', ...(data.fullWidth === true ? ['doc-full-width'] : [])] }, this.columns(node, depth));
      case 'updates':
        return h('section', { className: ['doc-updates'] }, this.updates(node, depth));
      case 'embed':
        return this.embed(node, data);
      case 'content-ref':
        return this.contentRef(data);
      case 'math':
        return typeof data.formula === 'string' ? h('div', { className: ['doc-math', 'doc-math-block'], role: 'math' }, [h('code', data.formula)]) : null;
      case 'drawing':
        return this.drawing(data);
      case 'prompt':
        return h('div', { className: ['doc-prompt'], role: 'region', ariaLabel: 'Prompt' }, this.blocks(asNodes(node.nodes), depth + 1));
      case 'integration': {
        const name = [data.integration, data.block].filter((part) => typeof part === 'string' && part).join('/');
        return name ? h('div', { className: ['doc-integration'] }, [h('p', { className: ['doc-openapi-note'] }, `Integration block: ${name}`)]) : null;
      }
      case 'if': // a condition on the visitor, which a published page cannot evaluate: gated content is never shown
      case 'reusable-content': // not dereferenced by the caller: nothing to show
      default:
        return null;
    }
  }

  // --- GitBook's interactive blocks, without script: tabs and expandables are <details>

  /**
   * Tabs as exclusive <details> sharing a `name` (only one open at a time, the first by default): they
   * switch in the browser with no script, and every tab's content stays in the page for search and print.
   */
  private tabs(node: AnyNode, depth: number): Child | null {
    const group = `doc-tabs-${this.tabGroups++}`;
    const items = asNodes(node.nodes).filter((item) => item && item.object === 'block' && item.type === 'tabs-item');
    if (!items.length) return null;
    return h(
      'div',
      { className: ['doc-tabs'] },
      items.map((item, index) => {
        const title = typeof item.data?.title === 'string' && item.data.title.trim() ? item.data.title.trim() : `Tab ${index + 1}`;
        return h('details', { className: ['doc-tab'], name: group, open: index === 0 }, [
          h('summary', { className: ['doc-tab-title'] }, title),
          h('div', { className: ['doc-tab-body'] }, this.blocks(asNodes(item.nodes), depth + 2)),
        ]);
      }),
    );
  }

  private expandable(node: AnyNode, data: Record<string, unknown>, depth: number): Child {
    const title = fragmentParagraphs(node, 'expandable-title');
    const body = asNodes(asNodes(node.fragments).find((f) => f && f.object === 'fragment' && f.fragment === 'expandable-body')?.nodes);
    return h('details', { className: ['doc-expandable'], open: data.defaultExpanded === true }, [
      h('summary', title.length ? this.paragraphsInline(title) : ['Details']),
      h('div', { className: ['doc-expandable-body'] }, this.blocks(body, depth + 2)),
    ]);
  }

  /** The items of a stepper (steps) as list items, each holding its blocks. */
  private items(node: AnyNode, type: string, depth: number, className: (item: AnyNode) => string[]): Child[] {
    return asNodes(node.nodes)
      .filter((item) => item && item.object === 'block' && item.type === type)
      .map((item) => h('li', { className: className(item) }, this.blocks(asNodes(item.nodes), depth + 2)));
  }

  private columns(node: AnyNode, depth: number): Child[] {
    return asNodes(node.nodes)
      .filter((column) => column && column.object === 'block' && column.type === 'column')
      .map((column) => {
        // A width is a class in steps of 10%, never a style attribute (the CSP allows no inline style).
        const width = column.data?.width as { unit?: unknown; value?: unknown } | undefined;
        const percent = width && width.unit === '%' && typeof width.value === 'number' ? Math.round(width.value / 10) * 10 : null;
        const className = ['doc-column', ...(percent && percent > 0 && percent <= 100 ? [`doc-column-${percent}`] : [])];
        return h('div', { className }, this.blocks(asNodes(column.nodes), depth + 2));
      });
  }

  private updates(node: AnyNode, depth: number): Child[] {
    return asNodes(node.nodes)
      .filter((update) => update && update.object === 'block' && update.type === 'update')
      .map((update) => {
        const date = typeof update.data?.date === 'string' ? update.data.date : '';
        const day = /^\d{4}-\d{2}-\d{2}/.exec(date)?.[0];
        const tags = Array.isArray(update.data?.tags) ? (update.data.tags as Array<{ tag?: unknown }>).map((tag) => tag?.tag).filter((tag): tag is string => typeof tag === 'string' && tag !== '') : [];
        return h('article', { className: ['doc-update'] }, [
          day ? h('p', { className: ['doc-update-date'] }, [h('time', { dateTime: day }, day), ...tags.map((tag) => h('span', { className: ['doc-update-tag'] }, tag))]) : null,
          ...this.blocks(asNodes(update.nodes), depth + 2),
        ]);
      });
  }

  /** An embed is a card linking to its URL (http(s) only): the site's CSP allows no frame. */
  private embed(node: AnyNode, data: Record<string, unknown>): Child | null {
    const url = typeof data.url === 'string' ? httpUrl(data.url) : null;
    if (!url) return null;
    const caption = fragmentParagraphs(node, 'caption');
    return h('div', { className: ['doc-embed'] }, [
      h('a', { href: url, rel: ['noopener', 'noreferrer'], className: ['doc-embed-link'] }, [h('span', { className: ['doc-embed-host'] }, new URL(url).host), ' ', h('span', { className: ['doc-embed-url'] }, url)]),
      ...(caption.length ? [h('p', { className: ['doc-embed-caption'] }, this.paragraphsInline(caption))] : []),
    ]);
  }

  /** A content reference is a card: the page (or anchor, file, URL) it points at. */
  private contentRef(data: Record<string, unknown>): Child | null {
    const ref = (data.ref ?? {}) as Ref;
    const target = this.refUrl(ref);
    if (!target) return null;
    const label = typeof ref.page === 'string' && target.url.startsWith('/') ? decodeURIComponent(target.url.split('#')[0].split('/').filter(Boolean).pop() ?? target.url) : target.url;
    const properties = target.external ? { href: target.url, rel: ['noopener', 'noreferrer'], className: ['doc-content-ref'] } : { href: target.url, className: ['doc-content-ref'] };
    return h('a', properties, [h('span', { className: ['doc-content-ref-title'] }, label)]);
  }

  private drawing(data: Record<string, unknown>): Child | null {
    const alt = typeof data.alt === 'string' ? data.alt : 'Drawing';
    const picture = this.picture(data.ref, undefined, alt, ['doc-image']);
    return picture ? h('figure', { className: ['doc-figure', 'doc-drawing'] }, [picture]) : null;
  }

  /** A legacy OpenAPI block or a webhook: named, its details being in the API's specification. */
  private openapiReference(type: unknown, data: Record<string, unknown>): Child | null {
    const method = typeof data.method === 'string' ? data.method.toUpperCase() : '';
    const name = type === 'openapi-webhook' ? (typeof data.name === 'string' ? data.name : '') : typeof data.path === 'string' ? data.path : '';
    if (!name) return null;
    return h('section', { className: ['doc-openapi'] }, [
      h('p', [method ? h('span', { className: ['doc-http-method'] }, method) : null, ' ', h('code', name)]),
      h('p', { className: ['doc-openapi-note'] }, type === 'openapi-webhook' ? 'A webhook described in the API’s OpenAPI specification.' : 'An operation described in the API’s OpenAPI specification.'),
    ]);
  }

  // --- headings

  private heading(node: AnyNode, data: Record<string, unknown>, type: keyof typeof HEADING_TAGS, topLevel: boolean): Child {
    const inlines = asNodes(node.nodes);
    const title = plainText(inlines).replace(/\s+/g, ' ').trim();
    // The id markdownToDocument stored (meta.id, GitBook's field) is the one links were written against.
    const stored = (node as { meta?: { id?: unknown } }).meta?.id;
    const id = this.headingId(typeof data.id === 'string' ? data.id : typeof stored === 'string' ? stored : undefined, title);
    if (topLevel) this.outline.push({ id, title, level: HEADING_LEVELS[type] });
    return h(HEADING_TAGS[type], { id, className: ['doc-heading', ...alignClass(data.align)] }, [
      ...this.inlines(inlines),
      ...anchorLink(id, title),
    ]);
  }

  private headingId(explicitId: string | undefined, title: string): string {
    if (explicitId && this.explicit.has(explicitId)) {
      this.explicit.delete(explicitId);
      this.taken.add(explicitId);
      return explicitId;
    }
    const base = (explicitId && EXPLICIT_HEADING_ID.test(explicitId) ? explicitId : headingSlug(title)) || 'section';
    let id = base;
    for (let n = 2; this.taken.has(id) || this.explicit.has(id); n++) id = `${base}-${n}`;
    this.taken.add(id);
    return id;
  }

  // --- lists

  private listItems(list: AnyNode, depth: number, tasks: boolean): Child[] {
    const items: Child[] = [];
    for (const item of asNodes(list.nodes)) {
      if (!item || item.object !== 'block' || item.type !== 'list-item') continue;
      const children = asNodes(item.nodes);
      if (!tasks) {
        items.push(h('li', this.blocks(children, depth + 2)));
        continue;
      }
      const checked = item.data?.checked === true;
      const box = h('input', { type: 'checkbox', disabled: true, checked });
      const [first, ...rest] = children;
      if (first && first.object === 'block' && first.type === 'paragraph') {
        // The checkbox is labelled by the item's first paragraph.
        const label = h('label', [box, ' ', ...this.inlines(asNodes(first.nodes))]);
        items.push(h('li', { className: ['doc-task'] }, [h('p', [label]), ...this.blocks(rest, depth + 2)]));
      } else {
        box.properties.ariaLabel = checked ? 'Done' : 'Not done';
        items.push(h('li', { className: ['doc-task'] }, [box, ...this.blocks(children, depth + 2)]));
      }
    }
    return items;
  }

  // --- code

  private code(node: AnyNode, data: Record<string, unknown>): Child {
    // One code-line block per line; a newline inside a line's text makes more lines, each with its flag.
    const texts: string[] = [];
    const highlighted: boolean[] = [];
    for (const line of asNodes(node.nodes)) {
      if (!line || line.object !== 'block' || line.type !== 'code-line') continue;
      const text = leavesText(asNodes(line.nodes));
      const flag = line.data?.highlighted === true;
      for (const part of text.split('\n')) {
        texts.push(part);
        highlighted.push(flag);
      }
    }
    const syntax = typeof data.syntax === 'string' ? data.syntax : undefined;
    const { language, lines } = this.highlightCode(texts.join('\n'), syntax);
    const codeChildren: Child[] = [];
    lines.forEach((line, index) => {
      if (index > 0) codeChildren.push({ type: 'text', value: '\n' });
      codeChildren.push(h('span', { className: highlighted[index] ? ['doc-code-line', 'doc-code-line-highlighted'] : ['doc-code-line'] }, line));
    });
    const languageClass = language ?? safeLanguageName(syntax);
    const code = h('code', { className: language ? ['hljs', `language-${language}`] : languageClass ? [`language-${languageClass}`] : [] }, codeChildren);
    const preClass = ['doc-code-pre', data.overflow === 'wrap' ? 'doc-code-wrap' : 'doc-code-scroll'];
    if (data.lineNumbers === true) preClass.push('doc-code-numbered');
    const pre = h('pre', { className: preClass, tabIndex: 0 }, [code]);
    const blockClass = ['doc-code', ...(data.fullWidth === true ? ['doc-full-width'] : [])];
    const title = typeof data.title === 'string' ? data.title.trim() : '';
    if (title) return h('figure', { className: blockClass }, [h('figcaption', { className: ['doc-code-title'] }, title), pre]);
    return h('div', { className: blockClass }, [pre]);
  }

  // --- images and files

  private images(node: AnyNode, data: Record<string, unknown>): Child | null {
    const figures: Child[] = [];
    for (const image of asNodes(node.nodes)) {
      if (!image || image.object !== 'block' || image.type !== 'image') continue;
      const figure = this.image(image);
      if (figure) figures.push(figure);
    }
    if (!figures.length) return null;
    const align = data.align === 'left' || data.align === 'right' ? data.align : 'center';
    const className = ['doc-images', `doc-images-${align}`];
    if (data.fullWidth === true) className.push('doc-full-width');
    if (data.withFrame === true) className.push('doc-images-framed');
    return h('div', { className }, figures);
  }

  private image(image: AnyNode): Child | null {
    const data = (image.data ?? {}) as Record<string, unknown>;
    const caption = fragmentParagraphs(image, 'caption');
    const captionText = caption.map((p) => plainText(asNodes(p.nodes))).join(' ').replace(/\s+/g, ' ').trim();
    const alt = (typeof data.alt === 'string' && data.alt.trim()) || captionText;
    const picture = this.picture(data.ref, data.refDark, alt, ['doc-image']);
    const figcaption = caption.length ? h('figcaption', this.paragraphsInline(caption)) : null;
    if (!picture) {
      // The image cannot be shown: its alt text (or caption) stands in.
      if (!alt) return null;
      return h('figure', { className: ['doc-figure', 'doc-image-missing'] }, [figcaption ?? h('figcaption', alt)]);
    }
    return h('figure', { className: ['doc-figure'] }, figcaption ? [picture, figcaption] : [picture]);
  }

  /** An img (in a picture with a dark-scheme source when there is a dark variant), or null when the image has no safe URL. */
  private picture(ref: unknown, refDark: unknown, alt: string, className: string[], inline = false): Element | null {
    const light = this.imageSource(ref);
    if (!light) return null;
    const img = h('img', {
      src: light.url,
      alt,
      width: light.width,
      height: light.height,
      loading: 'lazy',
      decoding: 'async',
      className,
    });
    const dark = refDark ? this.imageSource(refDark) : null;
    if (!dark) return img;
    return h('picture', { className: inline ? ['doc-inline-picture'] : [] }, [
      h('source', { media: '(prefers-color-scheme: dark)', srcSet: dark.url.replace(/,/g, '%2C') }),
      img,
    ]);
  }

  private imageSource(ref: unknown): { url: string; width?: number; height?: number } | null {
    const r = ref as Ref | undefined;
    if (!r || typeof r !== 'object') return null;
    if (r.kind === 'url') {
      const url = typeof r.url === 'string' ? httpUrl(r.url) : null;
      return url ? { url } : null;
    }
    if (r.kind === 'file' && typeof r.file === 'string') {
      const file = this.file_(r.file);
      if (!file) return null;
      const dims = file.dimensions;
      const sized = dims && positiveInt(dims.width) && positiveInt(dims.height);
      return sized ? { url: file.url, width: dims.width, height: dims.height } : { url: file.url };
    }
    return null;
  }

  /** The context's file with a URL we are willing to put in a page (http(s), or a path on this site). */
  private file_(fileId: string): RenderedFile | null {
    const file = this.context.file(fileId);
    if (!file || typeof file.url !== 'string') return null;
    const url = siteOrHttpUrl(file.url);
    return url ? { ...file, url } : null;
  }

  private file(node: AnyNode, data: Record<string, unknown>): Child | null {
    const ref = data.ref as Ref | undefined;
    const file = ref && ref.kind === 'file' && typeof ref.file === 'string' ? this.file_(ref.file) : null;
    const caption = fragmentParagraphs(node, 'caption');
    const captionChildren = caption.length ? [h('p', { className: ['doc-file-caption'] }, this.paragraphsInline(caption))] : [];
    if (!file) {
      // A missing file shows its caption (its only name here), or nothing.
      return captionChildren.length ? h('div', { className: ['doc-file', 'doc-file-missing'] }, captionChildren) : null;
    }
    const name = typeof file.name === 'string' && file.name ? file.name : 'Download';
    const meta = [file.contentType ? shortType(file.contentType, name) : '', formatSize(file.size)].filter(Boolean).join(', ');
    return h('div', { className: ['doc-file'] }, [
      h('p', [
        h('a', { href: file.url, className: ['doc-file-link'] }, [name]),
        ...(meta ? [' ', h('span', { className: ['doc-file-meta'] }, `(${meta})`)] : []),
      ]),
      ...captionChildren,
    ]);
  }

  // --- tables

  private table(node: AnyNode, data: Record<string, unknown>, depth: number): Child | null {
    const view = (data.view ?? {}) as { type?: unknown; columns?: unknown; hideHeader?: unknown };
    const definition = (data.definition && typeof data.definition === 'object' ? data.definition : {}) as Record<string, Record<string, unknown>>;
    const records = (data.records && typeof data.records === 'object' ? data.records : {}) as Record<string, { orderIndex?: unknown; values?: unknown }>;
    const listed = Array.isArray(view.columns) ? (view.columns as unknown[]).filter((c): c is string => typeof c === 'string') : Object.keys(definition);
    const columns = listed.filter((c) => Object.hasOwn(definition, c) && definition[c] && typeof definition[c] === 'object');
    if (!columns.length) return null;
    const fragments = new Map<string, AnyNode>();
    for (const fragment of asNodes(node.fragments)) {
      if (fragment && fragment.object === 'fragment' && typeof fragment.fragment === 'string') fragments.set(fragment.fragment, fragment);
    }
    const rows = Object.entries(records)
      .filter(([, record]) => record && typeof record === 'object')
      .sort(([idA, a], [idB, b]) => compareStrings(String(a.orderIndex ?? ''), String(b.orderIndex ?? '')) || compareStrings(idA, idB));
    const align = (column: string) => {
      const value = definition[column].textAlignment;
      return value === 'center' || value === 'right' ? [`doc-align-${value}`] : [];
    };
    const body = rows.map(([, record]) => {
      const values = (record.values && typeof record.values === 'object' ? record.values : {}) as Record<string, unknown>;
      return h(
        'tr',
        columns.map((column) => {
          const value = Object.hasOwn(values, column) ? values[column] : undefined;
          return h('td', { className: align(column) }, this.cell(value, definition[column], fragments, depth));
        }),
      );
    });
    const children: Child[] = [];
    if (view.hideHeader !== true) {
      const titles = columns.map((column) => {
        const title = definition[column].title;
        return h('th', { scope: 'col', className: align(column) }, typeof title === 'string' ? title : '');
      });
      children.push(h('thead', [h('tr', titles)]));
    }
    children.push(h('tbody', body));
    // The cards view is rendered as a table too: the same records and columns, readable without script.
    const className = ['doc-table', ...(view.type === 'cards' ? ['doc-table-cards'] : []), ...(data.fullWidth === true ? ['doc-full-width'] : [])];
    return h('div', { className, role: 'region', ariaLabel: 'Table', tabIndex: 0 }, [h('table', children)]);
  }

  private cell(value: unknown, column: Record<string, unknown>, fragments: Map<string, AnyNode>, depth: number): Child[] {
    if (typeof value === 'string') {
      const fragment = fragments.get(value);
      if (fragment) return this.blocks(asNodes(fragment.nodes), depth + 2);
      return column.type === 'text' ? [] : [{ type: 'text', value }];
    }
    if (typeof value === 'number' && Number.isFinite(value)) return [{ type: 'text', value: String(value) }];
    if (typeof value === 'boolean') return [{ type: 'text', value: value ? 'Yes' : 'No' }];
    if (column.type === 'files' && Array.isArray(value)) {
      const links: Child[] = [];
      for (const id of value) {
        const file = typeof id === 'string' ? this.file_(id) : null;
        if (!file) continue;
        if (links.length) links.push({ type: 'text', value: ', ' });
        links.push(h('a', { href: file.url }, file.name || 'Download'));
      }
      return links;
    }
    if (value && typeof value === 'object' && typeof (value as Ref).kind === 'string') {
      const href = this.refUrl(value as Ref);
      return href ? [h('a', href.external ? { href: href.url, rel: ['noopener', 'noreferrer'] } : { href: href.url }, href.url)] : [];
    }
    return [];
  }

  // --- computed API reference blocks

  private openapiOperation(data: Record<string, unknown>, topLevel: boolean): Child | null {
    const method = typeof data.method === 'string' ? data.method.toLowerCase() : '';
    const path = typeof data.path === 'string' ? data.path : '';
    if (!HTTP_METHODS.has(method) || !path) return null;
    const title = `${method.toUpperCase()} ${path}`;
    const id = this.headingId(undefined, `${method} ${path}`);
    if (topLevel) this.outline.push({ id, title, level: 1 });
    return h('section', { className: ['doc-openapi', 'doc-openapi-operation'] }, [
      h('h2', { id, className: ['doc-heading'] }, [
        h('span', { className: ['doc-http-method', `doc-http-${method}`] }, method.toUpperCase()),
        ' ',
        h('code', path),
        ...anchorLink(id, title),
      ]),
      h('p', { className: ['doc-openapi-note'] }, 'The parameters, request body and responses of this operation are described in the API’s OpenAPI specification.'),
    ]);
  }

  private openapiSchemas(data: Record<string, unknown>, topLevel: boolean): Child | null {
    const schemas = Array.isArray(data.schemas) ? data.schemas.filter((s): s is string => typeof s === 'string' && s.length > 0) : [];
    const id = this.headingId(undefined, 'models');
    if (topLevel) this.outline.push({ id, title: 'Models', level: 1 });
    return h('section', { className: ['doc-openapi', 'doc-openapi-schemas'] }, [
      h('h2', { id, className: ['doc-heading'] }, ['Models', ...anchorLink(id, 'Models')]),
      schemas.length ? h('ul', schemas.map((name) => h('li', [h('code', name)]))) : null,
      h('p', { className: ['doc-openapi-note'] }, 'The fields of these models are described in the API’s OpenAPI specification.'),
    ]);
  }

  // --- inlines

  /** The inline content of caption paragraphs, one line each. */
  private paragraphsInline(paragraphs: AnyNode[]): Child[] {
    const out: Child[] = [];
    paragraphs.forEach((paragraph, index) => {
      if (index > 0) out.push(h('br'));
      out.push(...this.inlines(asNodes(paragraph.nodes)));
    });
    return out;
  }

  inlines(nodes: AnyNode[]): Child[] {
    const out: Child[] = [];
    for (const node of nodes) {
      try {
        out.push(...this.inline(node));
      } catch {
        // A malformed inline is skipped.
      }
    }
    return out;
  }

  private inline(node: AnyNode): Child[] {
    if (!node || typeof node !== 'object') return [];
    if (node.object === 'text') return textLeaves(node);
    if (node.object !== 'inline') return [];
    const data = (node.data && typeof node.data === 'object' ? node.data : {}) as Record<string, unknown>;
    switch (node.type) {
      case 'link':
        return [this.link(node, data)].flat();
      case 'inline-image': {
        const alt = (typeof data.alt === 'string' && data.alt.trim()) || (typeof data.caption === 'string' ? data.caption.trim() : '');
        const className = ['doc-inline-image', ...(data.size === 'line' ? ['doc-inline-image-line'] : [])];
        const image = this.picture(data.ref, data.refDark, alt, className, true);
        return image ? [image] : alt ? [{ type: 'text', value: alt }] : [];
      }
      case 'expression': {
        // `evaluateDocument` replaces expressions by text; one left here was not evaluated. A value
        // carried by the node is shown as text; otherwise nothing (the expression source never is).
        const value = (data as { value?: unknown }).value;
        return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? [{ type: 'text', value: String(value) }] : [];
      }
      case 'inline-math':
        return typeof data.formula === 'string' ? [h('code', { className: ['doc-math'] }, data.formula)] : [];
      case 'emoji':
        return [{ type: 'text', value: emojiText(data.code) }];
      case 'annotation':
        // The annotated text; the note itself has no place in static text.
        return this.inlines(asNodes(node.nodes));
      case 'mention': {
        const target = this.refUrl((data.ref ?? {}) as Ref);
        // The author's label (`[Label](ref "mention")` keeps it as its text), else the target page's title as it is now
        // (GitBook's mention holds no label: a renamed page relabels its mentions), else its URL.
        const label = target ? plainText(asNodes(node.nodes)).trim() || this.mentionedTitle((data.ref ?? {}) as Ref) || target.url : '';
        return target ? [h('a', target.external ? { href: target.url, rel: ['noopener', 'noreferrer'] } : { href: target.url }, label)] : [];
      }
      case 'button': {
        const label = typeof data.label === 'string' ? data.label : '';
        const target = data.ref ? this.refUrl(data.ref as Ref) : null;
        if (!label) return [];
        if (!target) return [{ type: 'text', value: label }];
        return [h('a', { href: target.url, className: ['doc-button'], ...(target.external ? { rel: ['noopener', 'noreferrer'] } : {}) }, label)];
      }
      default:
        return [];
    }
  }

  private link(node: AnyNode, data: Record<string, unknown>): Child | Child[] {
    const children: Child[] = [];
    for (const child of asNodes(node.nodes)) {
      // A link holds text and inline images only: nothing may nest a link in a link.
      if (child && (child.object === 'text' || (child.object === 'inline' && child.type === 'inline-image'))) children.push(...this.inline(child));
    }
    const target = this.refUrl((data.ref ?? {}) as Ref);
    if (!target) return children;
    const label = children.length ? children : [{ type: 'text' as const, value: target.url.replace(/^mailto:/, '') }];
    const properties = target.external ? { href: target.url, rel: ['noopener', 'noreferrer'] } : { href: target.url };
    return h('a', properties, label);
  }

  /** The title of the page a reference names (a page or an anchor of one), when the context knows it. */
  private mentionedTitle(ref: Ref): string {
    if ((ref.kind !== 'page' && ref.kind !== 'anchor') || typeof ref.page !== 'string' || !ref.page) return '';
    const title = this.context.pageTitle?.({ page: ref.page, ...(typeof ref.space === 'string' && ref.space ? { space: ref.space } : {}) });
    return typeof title === 'string' ? title.trim() : '';
  }

  /** Where a content reference points on the site, or null when it cannot be linked. */
  private refUrl(ref: Ref): { url: string; external: boolean } | null {
    const str = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
    switch (ref.kind) {
      case 'url': {
        const raw = str(ref.url)?.trim();
        if (!raw) return null;
        if (raw.startsWith('#')) return raw.length > 1 ? { url: raw, external: false } : null;
        const url = linkUrl(raw);
        return url ? { url, external: !url.startsWith('mailto:') } : null;
      }
      case 'page': {
        const page = str(ref.page);
        if (!page) return null;
        return this.internal(this.context.pageUrl({ page, ...(str(ref.space) ? { space: str(ref.space) } : {}) }));
      }
      case 'anchor': {
        const anchor = str(ref.anchor);
        const page = str(ref.page);
        const space = str(ref.space);
        // An anchor on this page needs no site URL.
        if (!page && !space) return anchor ? { url: `#${anchor}`, external: false } : null;
        return this.internal(this.context.pageUrl({ ...(page ? { page } : {}), ...(space ? { space } : {}), ...(anchor ? { anchor } : {}) }));
      }
      case 'file': {
        const id = str(ref.file);
        const file = id ? this.file_(id) : null;
        return file ? { url: file.url, external: false } : null;
      }
      case 'space': {
        // The context may know the site URL of another space's root; null otherwise.
        const space = str(ref.space);
        return space ? this.internal(this.context.pageUrl({ space })) : null;
      }
      default:
        // Collections, users, OpenAPI specs and reusable contents have no page on the site.
        return null;
    }
  }

  private internal(url: string | null | undefined): { url: string; external: boolean } | null {
    if (typeof url !== 'string') return null;
    const safe = siteOrHttpUrl(url);
    return safe ? { url: safe, external: false } : null;
  }
}

// ---------------------------------------------------------------------------------------------
// Text

function textLeaves(node: AnyNode): Child[] {
  const out: Child[] = [];
  const leaves = Array.isArray(node.leaves) ? (node.leaves as Leaf[]) : [];
  for (const leaf of leaves) {
    if (!leaf || typeof leaf.text !== 'string' || !leaf.text) continue;
    // A hard line break is a newline in a leaf's text.
    let content: Child[] = [];
    leaf.text.split('\n').forEach((part, index) => {
      if (index > 0) content.push(h('br'));
      if (part) content.push({ type: 'text', value: part });
    });
    const marks = Array.isArray(leaf.marks) ? (leaf.marks as Array<{ type?: unknown; data?: Record<string, unknown> }>) : [];
    const has = (type: string) => marks.some((mark) => mark && mark.type === type);
    // Innermost first: code and keyboard hold the text, color wraps everything.
    if (has('code')) content = [h('code', content)];
    if (has('keyboard')) content = [h('kbd', content)];
    if (has('superscript')) content = [h('sup', content)];
    else if (has('subscript')) content = [h('sub', content)];
    if (has('strikethrough')) content = [h('s', content)];
    if (has('italic')) content = [h('em', content)];
    if (has('bold')) content = [h('strong', content)];
    const color = marks.find((mark) => mark && mark.type === 'color');
    if (color) {
      const className = colorClasses(color.data);
      if (className.length) content = [h('span', { className }, content)];
    }
    out.push(...content);
  }
  return out;
}

/** Classes for a color mark's named colors; values outside GitBook's palette are ignored (never a raw style). */
function colorClasses(data: Record<string, unknown> | undefined): string[] {
  const name = (value: unknown) => (typeof value === 'string' ? value.replace(/^\$/, '') : '');
  const text = name(data?.text);
  const background = name(data?.background);
  return [...(NAMED_COLORS.has(text) ? [`doc-color-${text}`] : []), ...(NAMED_COLORS.has(background) ? [`doc-bg-${background}`] : [])];
}

/** The plain text of inline content (texts, link texts, evaluated values, inline image alts). */
function plainText(nodes: AnyNode[]): string {
  let out = '';
  for (const node of nodes) {
    if (!node || typeof node !== 'object') continue;
    if (node.object === 'text') out += leavesText([node]);
    else if (node.object === 'inline' && node.type === 'link') out += plainText(asNodes(node.nodes));
    else if (node.object === 'inline' && node.type === 'expression' && typeof node.data?.value === 'string') out += node.data.value;
  }
  return out;
}

function leavesText(texts: AnyNode[]): string {
  let out = '';
  for (const text of texts) {
    // An annotation in a code line: its text (gitmd10: the annotated word was dropped).
    if (text?.object === 'inline' && Array.isArray(text.nodes)) out += leavesText(asNodes(text.nodes));
    if (!text || !Array.isArray(text.leaves)) continue;
    for (const leaf of text.leaves as Leaf[]) if (leaf && typeof leaf.text === 'string') out += leaf.text;
  }
  return out;
}

/** `1f600` (or `1f468-200d-1f4bb`) -> the emoji; anything else -> nothing. */
function emojiText(code: unknown): string {
  if (typeof code !== 'string' || !/^[0-9a-f]{2,6}(?:-[0-9a-f]{2,6}){0,7}$/i.test(code)) return '';
  const points = code.split('-').map((part) => Number.parseInt(part, 16));
  return points.every((point) => point <= 0x10ffff) ? String.fromCodePoint(...points) : '';
}

function anchorLink(id: string, title: string): Child[] {
  return [{ type: 'text', value: ' ' }, h('a', { href: `#${id}`, className: ['doc-anchor'], ariaLabel: title ? `Link to section: ${title}` : 'Link to this section' }, '#')];
}

// ---------------------------------------------------------------------------------------------
// Helpers

function asNodes(value: unknown): AnyNode[] {
  return Array.isArray(value) ? (value as AnyNode[]) : [];
}

function alignClass(align: unknown): string[] {
  return align === 'center' || align === 'end' ? [`doc-align-${align}`] : [];
}

function fragmentParagraphs(node: AnyNode, name: string): AnyNode[] {
  const fragment = asNodes(node.fragments).find((f) => f && f.object === 'fragment' && f.fragment === name);
  return asNodes(fragment?.nodes).filter((p) => p && p.object === 'block' && p.type === 'paragraph');
}

/** Visits every node (blocks, inlines, texts, fragments) without recursion, so depth cannot overflow the stack. */
type Highlight = (code: string, syntax: string | undefined) => HighlightedCode;

/** What a document without code blocks would get from the highlighter: plain lines (never called for code). */
const plainCode: Highlight = (code) => ({ language: null, lines: code.split('\n').map((line) => (line ? [{ type: 'text', value: line }] : [])) });

function hasCodeBlock(document: JSONDocument): boolean {
  let found = false;
  walk(document, (node) => {
    if (node.type === 'code') found = true;
  });
  return found;
}

function walk(document: { nodes?: unknown } | null | undefined, visit: (node: AnyNode) => void) {
  const stack: AnyNode[] = [...asNodes(document?.nodes)].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    visit(node);
    const children = [...asNodes(node.nodes), ...asNodes(node.fragments)];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** `class=""` is noise: elements built without a class (or whose classes the sanitizer dropped) get none. */
function dropEmptyClasses(root: Root) {
  const stack: Array<Root | Element> = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'element' && Array.isArray(node.properties.className) && node.properties.className.length === 0) delete node.properties.className;
    for (const child of node.children) if (child.type === 'element') stack.push(child);
  }
}

/** Plain code-unit order, as fractional `orderIndex` keys are meant to be compared. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function positiveInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value < 100_000;
}

/** An absolute http(s) URL, normalized (spaces and quotes percent-encoded), or null. */
function httpUrl(raw: string): string | null {
  try {
    const url = new URL(raw.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username || url.password) return null;
    return url.href;
  } catch {
    return null;
  }
}

/** A link target written in a document: http(s) or mailto only. */
function linkUrl(raw: string): string | null {
  if (/^mailto:/i.test(raw)) {
    try {
      const url = new URL(raw);
      return url.protocol === 'mailto:' && url.pathname ? url.href : null;
    } catch {
      return null;
    }
  }
  return httpUrl(raw);
}

/** A URL the context gave (a site path or a signed file URL): a path on this site or http(s), else null. */
function siteOrHttpUrl(raw: string): string | null {
  const value = raw.trim();
  if (value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')) {
    return /[\s"'<>\\]/.test(value) ? null : value;
  }
  if (value.startsWith('#')) return value;
  return httpUrl(value);
}

function safeLanguageName(syntax: string | undefined): string | null {
  const name = syntax?.trim().toLowerCase();
  return name && /^[a-z0-9][a-z0-9_+-]{0,30}$/.test(name) ? name : null;
}

function formatSize(size: unknown): string {
  if (typeof size !== 'number' || !Number.isFinite(size) || size < 0) return '';
  if (size < 1024) return `${size} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** "PDF", "PNG"...: the file's extension, else the content type's subtype, upper-cased and short. */
function shortType(contentType: string, name: string): string {
  const extension = /\.([a-z0-9]{1,8})$/i.exec(name)?.[1];
  const subtype = /^[a-z]+\/([a-z0-9.+-]{1,20})/i.exec(contentType)?.[1];
  const value = extension ?? subtype?.replace(/^x-/, '').replace(/\+.*$/, '');
  return value ? value.toUpperCase() : '';
}

// ---------------------------------------------------------------------------------------------
// Sanitizer schema: the default (GitHub's) extended with exactly what the renderer emits.

const DOC_CLASS = /^doc(?:-[a-z0-9-]+)?$/;
const HEADING_ATTRIBUTES: NonNullable<Schema['attributes']>[string] = [['id', /^[^\s"'<>&]{1,120}$/u], ['className', DOC_CLASS]];
const defaults = defaultSchema.attributes ?? {};

export const RENDER_SCHEMA: Schema = {
  ...defaultSchema,
  // Ids are made here (slugs of heading text or validated `data.id`), unique per page and never the
  // layout's: no `user-content-` prefix, so `#anchor` links written in GitBook keep working.
  clobber: ['name'],
  clobberPrefix: 'user-content-',
  tagNames: [...(defaultSchema.tagNames ?? []), 'aside', 'figure', 'figcaption', 'label', 'section', 'article', 'time'],
  attributes: {
    ...defaults,
    // `id` only on headings; classes only the renderer's own.
    '*': (defaults['*'] ?? []).filter((name) => name !== 'id' && name !== 'media'),
    a: ['href', ['className', 'doc-anchor', 'doc-file-link', 'doc-embed-link', 'doc-content-ref', 'doc-button'], ['rel', 'noopener', 'noreferrer'], 'ariaLabel'],
    article: [['className', DOC_CLASS]],
    details: [['className', DOC_CLASS], ['name', /^doc-tabs-\d+$/], 'open'],
    summary: [['className', DOC_CLASS]],
    time: [['dateTime', /^\d{4}-\d{2}-\d{2}$/]],
    aside: [['className', DOC_CLASS], ['role', 'note'], 'ariaLabel'],
    code: [['className', 'hljs', 'doc-math', /^language-[a-z0-9_+-]+$/]],
    div: [['className', DOC_CLASS], ['role', 'region', 'math'], 'ariaLabel'],
    figure: [['className', DOC_CLASS]],
    figcaption: [['className', DOC_CLASS]],
    h2: HEADING_ATTRIBUTES,
    h3: HEADING_ATTRIBUTES,
    h4: HEADING_ATTRIBUTES,
    img: ['src', 'alt', ['loading', 'lazy'], ['decoding', 'async'], ['className', DOC_CLASS]],
    input: [['disabled', true], ['type', 'checkbox'], 'checked', 'ariaLabel'],
    li: [['className', DOC_CLASS]],
    p: [['className', DOC_CLASS]],
    picture: [['className', DOC_CLASS]],
    pre: [['className', DOC_CLASS]],
    section: [['className', DOC_CLASS]],
    source: ['srcSet', ['media', '(prefers-color-scheme: dark)']],
    span: [['className', DOC_CLASS, /^hljs-[a-z0-9_-]+$/, /^[a-z][a-z0-9]*_+$/, ...HIGHLIGHT_LANGUAGES]],
    ol: ['start', ['className', DOC_CLASS]],
    td: [['className', DOC_CLASS]],
    th: [['className', DOC_CLASS], ['scope', 'col']],
    ul: [['className', DOC_CLASS]],
  },
  protocols: {
    ...defaultSchema.protocols,
    href: ['http', 'https', 'mailto'],
    src: ['http', 'https'],
    // Not checked by default: a srcset is a URL too.
    srcSet: ['http', 'https'],
  },
};
