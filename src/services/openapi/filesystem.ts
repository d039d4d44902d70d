import rehypeRaw from 'rehype-raw';
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';

/**
 * A version's content as GitBook's renderer reads it (`OpenAPISpecContent.filesystem`): a list of files
 * (`Filesystem` of @gitbook/openapi-parser), the entry first, which it dereferences itself. GitBook's document
 * only says `object`; its renderer casts the value to that list.
 *
 * Every non-empty `description` (except an example's own) also carries `x-gitbook-description-html`: its
 * Markdown as sanitized HTML. The renderer injects that property, or else the raw `description`, as HTML
 * (react-openapi's `resolveDescription` and `Markdown`), so without it a spec author's `<script>` would run
 * in the visitors of every site showing the spec. The pipeline is the one GitBook's renderer applies to the
 * specs it fetches itself (remark-gfm, raw HTML parsed, then rehype-sanitize's default schema).
 */
export interface FilesystemEntry {
  dir: './';
  isEntrypoint: boolean;
  references: string[];
  filename: string;
  specification: unknown;
}

export const DESCRIPTION_HTML = 'x-gitbook-description-html';

const markdownToHtml = unified().use(remarkParse).use(remarkGfm).use(remarkRehype, { allowDangerousHtml: true }).use(rehypeRaw).use(rehypeSanitize).use(rehypeStringify);

/** The bundle `{ [filename]: document }` as GitBook's list, entry first, descriptions rendered. */
export function toGitbookFilesystem(files: Record<string, unknown>, entry: string): FilesystemEntry[] {
  const render = descriptionRenderer();
  const names = [entry, ...Object.keys(files).filter((name) => name !== entry)];
  return names.map((filename) => ({
    dir: './',
    isEntrypoint: filename === entry,
    references: [],
    filename,
    specification: withDescriptionsHtml(files[filename], undefined, render),
  }));
}

/** Renders each distinct description once (a spec repeats the same descriptions across its operations). */
function descriptionRenderer(): (markdown: string) => string {
  const cache = new Map<string, string>();
  return (markdown) => {
    let html = cache.get(markdown);
    if (html === undefined) {
      html = String(markdownToHtml.processSync(markdown));
      cache.set(markdown, html);
    }
    return html;
  };
}

/** A copy of `node` where every described object (not under an `example` key) has its HTML; its key order is kept. */
function withDescriptionsHtml(node: unknown, key: string | undefined, render: (markdown: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => withDescriptionsHtml(item, undefined, render));
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [childKey, value] of Object.entries(node)) copy[childKey] = withDescriptionsHtml(value, childKey, render);
  const description = typeof copy.description === 'string' ? copy.description.trim() : '';
  if (description && key !== 'example') copy[DESCRIPTION_HTML] = render(description);
  else delete copy[DESCRIPTION_HTML];
  return copy;
}

/**
 * The stored filesystem's JSON as served: the list as it is (it can be megabytes: it is not parsed and
 * written again), or, for a version stored before the list (`{ [filename]: document }`), that bundle
 * converted (`converted`: the caller may store it back). Null when the stored text is neither.
 */
export function servedFilesystem(stored: string, entry: string): { json: string; converted: boolean } | null {
  const text = stored.trim();
  if (text.startsWith('[') && text.endsWith(']')) return { json: text, converted: false };
  if (!text.startsWith('{') || !text.endsWith('}')) return null;
  let bundle: unknown;
  try {
    bundle = JSON.parse(text);
  } catch {
    return null;
  }
  if (bundle === null || typeof bundle !== 'object' || Array.isArray(bundle) || !(entry in bundle)) return null;
  return { json: JSON.stringify(toGitbookFilesystem(bundle as Record<string, unknown>, entry)), converted: true };
}
