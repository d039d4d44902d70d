import rehypeRaw from 'rehype-raw';
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { escapeHtml } from '../../lib/escape-html';

/**
 * A version's content as GitBook's renderer reads it (`OpenAPISpecContent.filesystem`): a list of files
 * (`Filesystem` of @gitbook/openapi-parser), the entry first, which it dereferences itself. GitBook's document
 * only says `object`; its renderer casts the value to that list.
 *
 * Every non-empty `description` of the documents' own objects also carries `x-gitbook-description-html`: its
 * Markdown as sanitized HTML. The renderer injects that property, or else the raw `description`, as HTML
 * (react-openapi's `resolveDescription` and `Markdown`), so without it a spec author's `<script>` would run
 * in the visitors of every site showing the spec; an author's own `x-gitbook-description-html` is never kept.
 * The pipeline is the one GitBook's renderer applies to the specs it fetches itself (remark-gfm, raw HTML
 * parsed, then rehype-sanitize's default schema). Example data (`example`, `examples`, `default`, `enum`,
 * `const`, an Example Object's `value`) is kept as written.
 *
 * Rendering is bounded: a description longer than MAX_RENDERED_DESCRIPTION, those past MAX_RENDERED_TOTAL
 * characters of a version, and one the parser cannot take (a runtime limit: nesting, the stack) are written
 * as escaped text in a paragraph instead.
 */
export interface FilesystemEntry {
  dir: './';
  isEntrypoint: boolean;
  references: string[];
  filename: string;
  specification: unknown;
}

export const DESCRIPTION_HTML = 'x-gitbook-description-html';
export const MAX_RENDERED_DESCRIPTION = 16 * 1024;
export const MAX_RENDERED_TOTAL = 1024 * 1024;

/** Keys whose value is example data, never a document object. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const', 'value', 'x-example', 'x-examples']);
/** Keys whose value maps names (of schemas, properties, responses, media types...) to objects: no key there is a keyword. */
const NAME_MAPS = new Set([
  'properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions', 'schemas', 'responses', 'parameters', 'requestBodies',
  'headers', 'securitySchemes', 'securityDefinitions', 'links', 'callbacks', 'pathItems', 'paths', 'webhooks', 'content', 'encoding',
  'variables', 'scopes', 'mapping',
]);

const markdownToHtml = unified().use(remarkParse).use(remarkGfm).use(remarkRehype, { allowDangerousHtml: true }).use(rehypeRaw).use(rehypeSanitize).use(rehypeStringify);

/** The bundle `{ [filename]: document }` as GitBook's list, entry first, descriptions rendered. */
export function toGitbookFilesystem(files: Record<string, unknown>, entry: string, render: (markdown: string) => string = descriptionRenderer()): FilesystemEntry[] {
  const names = [entry, ...Object.keys(files).filter((name) => name !== entry)];
  return names.map((filename) => ({
    dir: './',
    isEntrypoint: filename === entry,
    references: [],
    filename,
    specification: walk(files[filename], 'object', render),
  }));
}

/** A description as escaped text: what a description is when it is not rendered. */
export const plainDescription = (markdown: string) => `<p>${escapeHtml(markdown)}</p>`;

/** Renders each distinct description once (specs repeat them), within the bounds above. */
export function descriptionRenderer(): (markdown: string) => string {
  const cache = new Map<string, string>();
  let budget = MAX_RENDERED_TOTAL;
  return (markdown) => {
    let html = cache.get(markdown);
    if (html !== undefined) return html;
    html = plainDescription(markdown);
    if (markdown.length <= MAX_RENDERED_DESCRIPTION && markdown.length <= budget) {
      budget -= markdown.length;
      try {
        html = String(markdownToHtml.processSync(markdown));
      } catch {
        // A runtime limit met by this description (its nesting, the stack): escaped text instead.
      }
    }
    cache.set(markdown, html);
    return html;
  };
}

function defineOwn(target: Record<string, unknown>, key: string, value: unknown) {
  // Not `target[key] = value`: a key `__proto__` would set the prototype instead of a property.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A copy of `node`: an `object` of the document (its keys are keywords: its description is rendered, example
 * data kept), or a `names` map (its keys are names, each value an object of the document). Key order is kept.
 */
function walk(node: unknown, role: 'object' | 'names', render: (markdown: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => walk(item, 'object', render));
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (role === 'names') defineOwn(copy, key, walk(value, 'object', render));
    else if (key === DESCRIPTION_HTML) continue;
    else if (key === 'examples' && value !== null && typeof value === 'object' && !Array.isArray(value)) defineOwn(copy, key, walk(value, 'names', render));
    else if (DATA_KEYS.has(key)) defineOwn(copy, key, value);
    else defineOwn(copy, key, walk(value, NAME_MAPS.has(key) ? 'names' : 'object', render));
  }
  if (role === 'object' && Object.hasOwn(copy, 'description') && typeof copy.description === 'string' && copy.description.trim()) {
    defineOwn(copy, DESCRIPTION_HTML, render(copy.description.trim()));
  }
  return copy;
}

/**
 * For a version stored before the list (only its bundle `{ [filename]: document }`): the list, its descriptions
 * as escaped text (cheap enough for a read; processing the spec again renders them). Null when the stored text
 * is not such a bundle with the version's entry.
 */
export function filesystemFromBundle(stored: string, entry: string): FilesystemEntry[] | null {
  let bundle: unknown;
  try {
    bundle = JSON.parse(stored);
  } catch {
    return null;
  }
  if (bundle === null || typeof bundle !== 'object' || Array.isArray(bundle) || !Object.hasOwn(bundle, entry)) return null;
  return toGitbookFilesystem(bundle as Record<string, unknown>, entry, plainDescription);
}
