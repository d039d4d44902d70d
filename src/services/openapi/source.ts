import type { Env } from '../../env';
import { OutboundError, outboundFetch } from '../../lib/outbound';
import { MAX_SPEC_DEPTH, MAX_SPEC_REFERENCES, parseSpecText, SpecProcessingFailure, type SpecFormat } from './parse';
import { MAX_SPEC_SOURCE_BYTES } from '../../lib/openapi-specs';

/**
 * Getting a spec's source for processing (services/openapi/process): the document at its URL, fetched
 * through the outbound guard (lib/outbound: no private addresses, every redirect hop checked), with the
 * files its external `$ref`s name; or its `text`, kept in R2.
 *
 * Limits (SPEC_SOURCE_LIMITS):
 * - each file must answer within 10 s (the guard's limit, covering redirects and the body), and all of a
 *   spec's files within 30 s together: past either, FETCH_TIMEOUT;
 * - MAX_SPEC_SOURCE_BYTES (5 MiB) for the entry and for all the files together: past it, FETCH_ERROR;
 * - at most MAX_SPEC_FILES (20) files, the entry included: a spec naming more is a FETCH_ERROR.
 *
 * External references: the part of a `$ref` before `#` is resolved against the URL of the file it is in
 * (relative or absolute); only files of the entry's origin (scheme, host and port of the URL that
 * answered) are fetched, a reference elsewhere is a FETCH_ERROR, and so is a redirect of such a file to
 * another origin (refused before it is requested: the guard's `allowHop`). Each file is named in the bundle by its
 * path relative to the entry's directory (`schemas/pet.yaml`, `../common/error.yaml`), the entry by its
 * URL's last path segment, and every external `$ref` is rewritten to `<name>#<fragment>`, the exact name
 * `@scalar/openapi-parser` looks the file up by. A text source has no base URL: an external reference in
 * it is a PARSE_ERROR saying it cannot be resolved.
 *
 * Which `$ref`s are references follows `@scalar/openapi-parser` (its reference contexts): a `$ref` inside
 * an example, a default, an enum, a `const` or an `x-` extension is data, left as it is.
 *
 * Every file is walked once (`findReferences`) before anything else is done with it, which bounds the work
 * validation will take (services/openapi/parse): nesting deeper than MAX_SPEC_DEPTH, or more than
 * MAX_SPEC_REFERENCES references in all the files, is a PARSE_ERROR.
 */

export interface SpecSourceLimits {
  /** Time limit of one file: every redirect hop and the body. */
  fileTimeoutMs: number;
  /** Time limit of all of a spec's files together. */
  totalTimeoutMs: number;
  /** Files at most, the entry included. */
  maxFiles: number;
  /** Bytes at most, all files together (the entry alone too). */
  maxBytes: number;
}

export const MAX_SPEC_FILES = 20;
export const SPEC_SOURCE_LIMITS: SpecSourceLimits = { fileTimeoutMs: 10_000, totalTimeoutMs: 30_000, maxFiles: MAX_SPEC_FILES, maxBytes: MAX_SPEC_SOURCE_BYTES };

/** What a spec record names as its source. */
export interface SpecSourceRef {
  sourceUrl: string | null;
  sourceTextKey: string | null;
}

export interface SpecSource {
  /** The source URL (as the spec names it), or null for a text source. */
  url: string | null;
  /** The entry file's name in `files`. */
  entry: string;
  /** The format of the entry file. */
  format: SpecFormat;
  /** The entry file exactly as fetched or submitted. */
  raw: Uint8Array;
  /** The bundle: `{ [filename]: document }`, the entry first, external references rewritten to these names. */
  files: Record<string, unknown>;
}

const ACCEPT = 'application/vnd.oai.openapi+json, application/json, application/yaml, text/yaml, */*;q=0.8';

/** Reads a spec's source: its URL (with the files it refers to) or its text. */
export async function loadSpecSource(env: Env, spec: SpecSourceRef, limits: SpecSourceLimits = SPEC_SOURCE_LIMITS): Promise<SpecSource> {
  if (spec.sourceUrl !== null) return loadUrlSource(env, spec.sourceUrl, limits);
  if (spec.sourceTextKey !== null) return loadTextSource(env, spec.sourceTextKey, limits);
  throw new Error('the spec has neither a source URL nor a source text');
}

// ---------------------------------------------------------------------------------------------
// Text sources

/**
 * A text source's object is not in R2. The row named it when the job was claimed, and wrote it before
 * naming it (services/openapi/records); an update of the source removes it once the row names another: the
 * job was superseded meanwhile (services/openapi/process checks), or else the failure is ours.
 */
export class SourceTextMissing extends Error {
  constructor(readonly key: string) {
    super(`the source text ${key} is missing from R2`);
  }
}

async function loadTextSource(env: Env, key: string, limits: SpecSourceLimits): Promise<SpecSource> {
  const object = await env.FILES.get(key);
  if (!object) throw new SourceTextMissing(key);
  const raw = new Uint8Array(await object.arrayBuffer());
  if (raw.byteLength > limits.maxBytes) {
    throw new SpecProcessingFailure('FETCH_ERROR', [`The source text is larger than ${limits.maxBytes} bytes`]);
  }
  const parsed = parseSpecText(new TextDecoder().decode(raw), 'The source text');
  const external = findReferences(parsed.document, 'document', newReferenceBudget(), 'The source text').filter((ref) => filePart(ref.value) !== '');
  if (external.length > 0) {
    throw new SpecProcessingFailure(
      'PARSE_ERROR',
      external.map(
        (ref) =>
          `${ref.pointer}: the external reference ${ref.value} cannot be resolved for a text source (it has no base URL): give the spec a URL, or include the referenced content in the document`,
      ),
    );
  }
  const entry = `openapi.${parsed.format}`;
  return { url: null, entry, format: parsed.format, raw, files: { [entry]: parsed.document } };
}

// ---------------------------------------------------------------------------------------------
// URL sources

async function loadUrlSource(env: Env, sourceUrl: string, limits: SpecSourceLimits): Promise<SpecSource> {
  const deadline = Date.now() + limits.totalTimeoutMs;
  let bytesLeft = limits.maxBytes;
  const budget = newReferenceBudget();

  const fetchFile = async (url: string, field: string, referrer?: string, allowHop?: (hop: URL) => string | null) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new SpecProcessingFailure('FETCH_TIMEOUT', [`${url}: the spec's files were not all fetched within ${limits.totalTimeoutMs / 1000} s`]);
    if (bytesLeft <= 0) throw new SpecProcessingFailure('FETCH_ERROR', [`${url}: the spec's files are larger than ${limits.maxBytes} bytes together`]);
    let response;
    try {
      response = await outboundFetch(env, url, { headers: { accept: ACCEPT } }, { field, maxBytes: bytesLeft, timeoutMs: Math.min(limits.fileTimeoutMs, remaining), allowHop });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      if (error.reason === 'timeout') throw new SpecProcessingFailure('FETCH_TIMEOUT', [error.message]);
      if (error.reason === 'too_large' && bytesLeft < limits.maxBytes) {
        throw new SpecProcessingFailure('FETCH_ERROR', [`${url}: the spec's files are larger than ${limits.maxBytes} bytes together`]);
      }
      throw new SpecProcessingFailure('FETCH_ERROR', [error.message]);
    }
    if (!response.ok) {
      const via = response.url !== url ? ` (redirected to ${response.url})` : '';
      throw new SpecProcessingFailure('FETCH_ERROR', [`${url} answered ${response.status}${via}${referrer ? `, referred to by ${referrer}` : ''}`]);
    }
    bytesLeft -= response.bytes.byteLength;
    return response;
  };

  const entryResponse = await fetchFile(sourceUrl, 'url');
  const base = new URL(entryResponse.url);
  const origin = base.origin;
  const parsedEntry = parseSpecText(entryResponse.text(), sourceUrl);
  const lastSegment = base.pathname.slice(base.pathname.lastIndexOf('/') + 1);
  const entry = lastSegment !== '' ? lastSegment : `openapi.${parsedEntry.format}`;

  const sameOrigin = (hop: URL) =>
    hop.origin === origin ? null : `it is not on ${origin}, the origin of the spec's URL (external references are fetched from the same origin only)`;

  const files: Record<string, unknown> = { [entry]: parsedEntry.document };
  /** Name of each file by its URL (without fragment), and the URL each file's references resolve against. */
  const names = new Map<string, string>([[withoutHash(base), entry]]);
  const queue: { name: string; url: URL; document: unknown }[] = [{ name: entry, url: base, document: parsedEntry.document }];

  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const ref of findReferences(file.document, file.name === entry ? 'document' : 'object', budget, file.name)) {
      const part = filePart(ref.value);
      if (part === '') continue;
      const where = `${ref.pointer} of ${file.name}`;
      let target: URL;
      try {
        target = new URL(part, file.url);
      } catch {
        throw new SpecProcessingFailure('PARSE_ERROR', [`${where}: the reference ${ref.value} is not a valid URL`]);
      }
      if (target.origin !== origin || (target.protocol !== 'http:' && target.protocol !== 'https:')) {
        throw new SpecProcessingFailure('FETCH_ERROR', [
          `${where}: the reference ${ref.value} is refused: ${target.origin === 'null' ? target.protocol : target.origin} is not ${origin}, the origin of the spec's URL (external references are fetched from the same origin only)`,
        ]);
      }
      const key = withoutHash(target);
      let name = names.get(key);
      if (name === undefined) {
        if (names.size >= limits.maxFiles) {
          throw new SpecProcessingFailure('FETCH_ERROR', [`${where}: the spec refers to more than ${limits.maxFiles} files (its entry included), the most that is fetched`]);
        }
        name = uniqueName(relativeName(base, target), files);
        names.set(key, name);
        // Every hop, redirects included, stays on the entry's origin: another one is refused before it is requested.
        const response = await fetchFile(key, `$ref in ${file.name}`, file.name, sameOrigin);
        const finalUrl = new URL(response.url);
        const parsed = parseSpecText(response.text(), key);
        files[name] = parsed.document;
        queue.push({ name, url: finalUrl, document: parsed.document });
      }
      ref.holder.$ref = `${name}#${fragmentPart(ref.value)}`;
    }
  }
  return { url: sourceUrl, entry, format: parsedEntry.format, raw: entryResponse.bytes, files };
}

const filePart = (ref: string) => {
  const at = ref.indexOf('#');
  return at === -1 ? ref : ref.slice(0, at);
};
const fragmentPart = (ref: string) => {
  const at = ref.indexOf('#');
  return at === -1 ? '' : ref.slice(at + 1);
};

function withoutHash(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy.href;
}

/** The path of `target` relative to the directory of `base` (same origin), with its query if any. */
export function relativeName(base: URL, target: URL): string {
  const dir = base.pathname.split('/').slice(0, -1);
  const parts = target.pathname.split('/');
  const targetDir = parts.slice(0, -1);
  let common = 0;
  while (common < dir.length && common < targetDir.length && dir[common] === targetDir[common]) common++;
  return '../'.repeat(dir.length - common) + parts.slice(common).join('/') + target.search;
}

/** A name no file of the bundle has yet (only the entry, named after its URL or `openapi.<format>`, may take one first). */
function uniqueName(name: string, files: Record<string, unknown>): string {
  let candidate = name;
  while (Object.hasOwn(files, candidate)) candidate = `./${candidate}`;
  return candidate;
}

// ---------------------------------------------------------------------------------------------
// Finding references

export interface FoundReference {
  /** The object holding the `$ref` (rewritten in place). */
  holder: Record<string, unknown>;
  value: string;
  /** JSON pointer of the `$ref` in its file. */
  pointer: string;
}

/** How many more references the files of one spec may have (MAX_SPEC_REFERENCES in all). */
export interface ReferenceBudget {
  left: number;
}

export const newReferenceBudget = (): ReferenceBudget => ({ left: MAX_SPEC_REFERENCES });

interface WalkEntry {
  value: object;
  context: ReferenceContext;
  /** Level of nesting: the document is 1. */
  depth: number;
  parent: WalkEntry | null;
  key: string;
}

/** The JSON pointer of a walked value, built from its ancestors when a message needs it. */
function pointerOf(entry: WalkEntry): string {
  const segments: string[] = [];
  for (let at: WalkEntry | null = entry; at !== null && at.parent !== null; at = at.parent) segments.push(at.key.replace(/~/g, '~0').replace(/\//g, '~1'));
  return segments.length === 0 ? '' : `/${segments.reverse().join('/')}`;
}

/**
 * Every `$ref` of a document that is a reference (not data), in document order. The contexts follow
 * `@scalar/openapi-parser` 0.29 (utils/reference-context, MIT), so that exactly the references it resolves
 * are fetched and rewritten. A referenced file is walked from the `object` context.
 *
 * The whole document is walked (data included), and bounded on the way (PARSE_ERROR, `file` naming the
 * document): nesting deeper than MAX_SPEC_DEPTH, or more references than `budget` has left (shared by the
 * files of one spec: MAX_SPEC_REFERENCES in all).
 */
export function findReferences(document: unknown, rootContext: ReferenceContext = 'document', budget = newReferenceBudget(), file = 'The document'): FoundReference[] {
  const found: FoundReference[] = [];
  // An explicit stack: a deeply nested document cannot exhaust the call stack.
  const stack: WalkEntry[] = [];
  if (document !== null && typeof document === 'object') stack.push({ value: document, context: rootContext, depth: 1, parent: null, key: '' });
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const { value, context, depth } = entry;
    if (depth > MAX_SPEC_DEPTH) {
      throw new SpecProcessingFailure('PARSE_ERROR', [
        `${file} nests objects and arrays deeper than ${MAX_SPEC_DEPTH} levels, the most that is processed (at ${pointerOf(entry)})`,
      ]);
    }
    const record = value as Record<string, unknown>;
    if (!Array.isArray(value) && canResolveReference(context) && typeof record.$ref === 'string') {
      if (--budget.left < 0) {
        throw new SpecProcessingFailure('PARSE_ERROR', [
          `The spec has more than ${MAX_SPEC_REFERENCES} references ($ref) in all its files, the most that is processed (the bound is passed in ${file})`,
        ]);
      }
      found.push({ holder: record, value: record.$ref, pointer: `${pointerOf(entry)}/$ref` });
    }
    const children: WalkEntry[] = [];
    for (const [key, child] of Object.entries(value)) {
      if (child !== null && typeof child === 'object') {
        // Data (the literal context) is walked too, for its depth; its `$ref`s are not references.
        children.push({ value: child, context: childContext(context, key, child), depth: depth + 1, parent: entry, key });
      }
    }
    // Reversed onto the stack, so that they come off it in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return found;
}

export type ReferenceContext =
  | 'document'
  | 'object'
  | 'literal'
  | 'schema'
  | 'schemaMap'
  | 'components'
  | 'paths'
  | 'responseMap'
  | 'namedResponseMap'
  | 'response'
  | 'callbackMap'
  | 'callback'
  | 'objectMap'
  | 'linkMap'
  | 'link'
  | 'exampleMap'
  | 'example'
  | 'discriminator';

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_ARRAYS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_VALUES = new Set([
  'schema',
  'items',
  'additionalItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
]);
const OBJECT_MAPS = new Set(['additionalOperations', 'webhooks', 'content', 'mediaTypes', 'headers', 'encoding', 'variables', 'parameters', 'requestBodies', 'securitySchemes', 'pathItems']);
const LITERAL_VALUES = new Set(['example', 'default', 'enum', 'const', 'dependentRequired']);

const canResolveReference = (context: ReferenceContext) =>
  context === 'document' || context === 'link' || context === 'object' || context === 'schema' || context === 'example' || context === 'callback' || context === 'response';

function childContext(context: ReferenceContext, key: string, value: unknown): ReferenceContext {
  if (context === 'literal') return 'literal';
  if (context === 'callbackMap') return 'callback';
  if (context === 'callback') return 'object';
  if (context === 'responseMap' || context === 'paths') return key.startsWith('x-') ? 'literal' : context === 'paths' ? 'object' : 'response';
  if (context === 'namedResponseMap') return 'response';
  if (context === 'schemaMap') return 'schema';
  if (context === 'objectMap') return 'object';
  if (context === 'linkMap') return 'link';
  if (context === 'exampleMap') return 'example';
  if (key.startsWith('x-') || key === 'scopes' || (context === 'discriminator' && key === 'mapping') || (context === 'link' && (key === 'requestBody' || key === 'parameters'))) {
    return 'literal';
  }
  if (key === 'links') return 'linkMap';
  if (key === 'discriminator') return 'discriminator';
  if (LITERAL_VALUES.has(key) || (context === 'example' && (key === 'value' || key === 'dataValue'))) return 'literal';
  if (key === 'examples') return context === 'schema' || context === 'response' || Array.isArray(value) ? 'literal' : 'exampleMap';
  if (SCHEMA_MAPS.has(key) || SCHEMA_ARRAYS.has(key) || key === 'schemas') return 'schemaMap';
  if (SCHEMA_VALUES.has(key)) return Array.isArray(value) ? 'schemaMap' : 'schema';
  if (key === 'components') return 'components';
  if (key === 'paths') return 'paths';
  if (key === 'responses') return context === 'components' || context === 'document' ? 'namedResponseMap' : 'responseMap';
  if (key === 'callbacks') return 'callbackMap';
  if (OBJECT_MAPS.has(key)) return 'objectMap';
  return 'object';
}
