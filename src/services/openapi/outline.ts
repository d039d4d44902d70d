import { MAX_OUTLINE_OPERATIONS, MAX_OUTLINE_TEXT, type SpecOutline, type SpecOutlineOperation, type SpecOutlineTag } from './types';

/**
 * The outline of a spec version (types.ts: SpecOutline), what computed API reference pages are built
 * from, read from an OpenAPI 3.0/3.1 or Swagger 2.0 document (best with its references resolved:
 * services/openapi/parse `validateSpec` gives it so, and a path item given by `$ref` is then read too).
 *
 * - title, version and description from `info`;
 * - tags: the document's `tags` in its order, then tags only named by operations in the order they are
 *   first named, then '' gathering the operations without a tag; an operation with several tags is
 *   listed under each;
 * - operations in path order (the document's order of `paths`), and within a path in the order OpenAPI
 *   lists the methods (get, put, post, delete, options, head, patch, trace); `webhooks` are not operations;
 * - schemas: the names of `components.schemas` (`definitions` for Swagger 2.0), in the document's order.
 *
 * Bounds (it is stored in a D1 row, whose limit is 1 MB): texts cut to MAX_OUTLINE_TEXT characters, at
 * most MAX_OUTLINE_OPERATIONS operation entries, and MAX_OUTLINE_BYTES of JSON in all: once that is spent,
 * what is left (later operations, then tags without operations, then schema names) is left out.
 */

/** The largest outline, in bytes of JSON (UTF-8): half of D1's row limit. */
export const MAX_OUTLINE_BYTES = 512 * 1024;

/** OpenAPI's HTTP methods, in the order the specification lists them in a Path Item. */
export const OUTLINE_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Cuts a text to `max` characters, never between the two halves of a surrogate pair. */
export function cutText(text: string, max = MAX_OUTLINE_TEXT): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]) ? max - 1 : max;
  return text.slice(0, end);
}

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? cutText(value) : undefined);

const encoder = new TextEncoder();
const jsonBytes = (value: unknown) => encoder.encode(JSON.stringify(value)).byteLength + 1; // + a separating comma

export function buildOutline(document: unknown): SpecOutline {
  const doc = isRecord(document) ? document : {};
  const info = isRecord(doc.info) ? doc.info : {};
  const version = typeof info.version === 'string' ? cutText(info.version) : undefined;
  const description = textOf(info.description);
  const outline: SpecOutline = {
    title: textOf(info.title) ?? '',
    ...(version !== undefined && { version }),
    ...(description !== undefined && { description }),
    tags: [],
    schemas: [],
  };
  let budget = MAX_OUTLINE_BYTES - jsonBytes(outline);

  // Declared tags (the first declaration of a name counts), in the document's order.
  const declared = new Map<string, string | undefined>();
  for (const tag of Array.isArray(doc.tags) ? doc.tags : []) {
    if (isRecord(tag) && typeof tag.name === 'string' && !declared.has(cutText(tag.name))) declared.set(cutText(tag.name), textOf(tag.description));
  }
  const newTag = (name: string): SpecOutlineTag => {
    const description = declared.get(name);
    return { name, ...(description !== undefined && { description }), operations: [] };
  };

  // Operations, tag by tag: a tag costs its entry when it gets its first operation.
  const used = new Map<string, SpecOutlineTag>();
  const named: string[] = [];
  let entries = 0;
  const paths = isRecord(doc.paths) ? doc.paths : {};
  operations: for (const [path, item] of Object.entries(paths)) {
    if (!isRecord(item)) continue;
    for (const method of OUTLINE_METHODS) {
      const operation = item[method];
      if (!isRecord(operation)) continue;
      const summary = textOf(operation.summary);
      const operationId = textOf(operation.operationId);
      const entry: SpecOutlineOperation = {
        path: cutText(path),
        method,
        ...(summary !== undefined && { summary }),
        ...(operationId !== undefined && { operationId }),
        ...(operation.deprecated === true && { deprecated: true }),
      };
      const tagNames = [...new Set((Array.isArray(operation.tags) ? operation.tags : []).filter((t): t is string => typeof t === 'string').map((t) => cutText(t)))];
      for (const name of tagNames.length > 0 ? tagNames : ['']) {
        if (entries >= MAX_OUTLINE_OPERATIONS) break operations;
        let tag = used.get(name);
        const cost = jsonBytes(entry) + (tag ? 0 : jsonBytes(newTag(name)));
        if (cost > budget) break operations;
        budget -= cost;
        if (!tag) {
          tag = newTag(name);
          used.set(name, tag);
          if (!declared.has(name) && name !== '') named.push(name);
        }
        tag.operations.push(entry);
        entries++;
      }
    }
  }

  // Declared tags without operations, while there is room.
  for (const name of declared.keys()) {
    if (used.has(name)) continue;
    const tag = newTag(name);
    const cost = jsonBytes(tag);
    if (cost > budget) break;
    budget -= cost;
    used.set(name, tag);
  }
  const order = [...declared.keys(), ...named, ...(declared.has('') ? [] : [''])];
  outline.tags = order.map((name) => used.get(name)).filter((tag): tag is SpecOutlineTag => tag !== undefined);

  // Schema names, while there is room.
  const schemas = typeof doc.swagger === 'string' ? doc.definitions : isRecord(doc.components) ? doc.components.schemas : undefined;
  for (const name of Object.keys(isRecord(schemas) ? schemas : {})) {
    const cut = cutText(name);
    const cost = jsonBytes(cut);
    if (cost > budget) break;
    budget -= cost;
    outline.schemas.push(cut);
  }
  return outline;
}
