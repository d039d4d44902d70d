import { validate, type Filesystem } from '@scalar/openapi-parser';
import { isAlias, isCollection, isPair, isScalar, parseDocument, type Document } from 'yaml';
import { MAX_SPEC_SOURCE_BYTES, type SpecProcessingError, type SpecProcessingErrorCode } from './types';

/**
 * Reading and validating OpenAPI documents (services/openapi/process runs them in the background):
 * a source text is JSON or YAML (`parseSpecText`); a bundle of files is validated as OpenAPI 3.0, 3.1 or
 * Swagger 2.0 by `@scalar/openapi-parser` (`validateSpec`), whose messages become the spec's
 * `lastProcessedErrors`, each prefixed with the JSON pointer it is about (`/info/title: type must be string`).
 */

/** The processing errors a spec record keeps (`last_processed_errors`); `last_processed_error_count` is the total. */
export const MAX_STORED_ERRORS = 20;
/** A stored error message is cut to this many characters (messages name URLs, which may be long). */
export const MAX_ERROR_MESSAGE = 2000;
/** YAML aliases expanded at most (yaml's own guard against "billion laughs" documents). */
const MAX_YAML_ALIASES = 100;
/**
 * The most a YAML document may grow by expanding its aliases, in characters of source (an alias counts as
 * the text of what it names): a 5 MiB document naming a large anchor a hundred times would otherwise take
 * hundreds of MB once read, more than a Worker has.
 */
export const MAX_YAML_EXPANDED_CHARS = 2 * MAX_SPEC_SOURCE_BYTES;

/** The versions accepted; `@scalar/openapi-parser` also reads OpenAPI 3.2, which is refused. */
export const SUPPORTED_SPEC_VERSIONS = ['2.0', '3.0', '3.1'] as const;
export type SpecVersion = (typeof SUPPORTED_SPEC_VERSIONS)[number];

export type SpecFormat = 'json' | 'yaml';

/**
 * Why a source could not become a version: its code and every message (stored capped at MAX_STORED_ERRORS,
 * with the total count). The spec's problem, not ours: it is recorded, not retried.
 */
export class SpecProcessingFailure extends Error {
  readonly errors: SpecProcessingError[];
  constructor(
    readonly code: SpecProcessingErrorCode,
    messages: string[],
  ) {
    super(messages[0] ?? code);
    this.errors = messages.map((message) => ({ message: cut(message, MAX_ERROR_MESSAGE), code }));
  }
}

const cut = (text: string, max: number) => (text.length <= max ? text : text.slice(0, max - 1) + '…');

/** What the spec record keeps of a failure: at most MAX_STORED_ERRORS errors, and how many there were. */
export function storedErrors(failure: SpecProcessingFailure): { errors: SpecProcessingError[]; count: number } {
  return { errors: failure.errors.slice(0, MAX_STORED_ERRORS), count: failure.errors.length };
}

export interface ParsedText {
  /** The document as JSON values (a YAML document is made JSON-compatible: no aliases shared, no cycles). */
  document: unknown;
  format: SpecFormat;
}

/**
 * Reads a source text as JSON, else as YAML (a single YAML document). `name` says which file it is in
 * messages. Anything else is a PARSE_ERROR; so is a document whose top level is not an object or an array
 * (an HTML page, a bare string).
 */
export function parseSpecText(text: string, name: string): ParsedText {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let document: unknown;
  let format: SpecFormat;
  try {
    document = JSON.parse(body);
    format = 'json';
  } catch (jsonError) {
    try {
      document = readYaml(body);
      format = 'yaml';
    } catch (yamlError) {
      const looksJson = /^\s*[[{]/.test(body);
      const why = looksJson ? (jsonError as Error).message : (yamlError as Error).message;
      throw new SpecProcessingFailure('PARSE_ERROR', [`${name} is neither JSON nor YAML: ${why}`]);
    }
  }
  if (document === null || typeof document !== 'object') {
    throw new SpecProcessingFailure('PARSE_ERROR', [`${name} is not an OpenAPI document: its content is ${describe(document)}, not an object`]);
  }
  return { document, format };
}

/**
 * One YAML document in the core schema (JSON-compatible scalars: no timestamps, no binary), its aliases
 * bounded (MAX_YAML_EXPANDED_CHARS), read as JSON values: one JSON round trip makes aliases copies and
 * fails on an alias that names its own ancestor (a cycle JSON cannot hold).
 */
function readYaml(body: string): unknown {
  const doc = parseDocument(body, { logLevel: 'silent', uniqueKeys: true });
  if (doc.errors.length > 0) throw doc.errors[0];
  if (expandedSize(doc, doc.contents, new Map(), 0) > MAX_YAML_EXPANDED_CHARS) {
    throw new Error(`its aliases expand it beyond ${MAX_YAML_EXPANDED_CHARS} characters`);
  }
  const value: unknown = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** The size of a YAML node with its aliases expanded (each target measured once), stopping past the limit. */
function expandedSize(doc: Document, node: unknown, memo: Map<unknown, number>, depth: number): number {
  if (node === null || node === undefined) return 0;
  const known = memo.get(node);
  if (known !== undefined) return known;
  // An alias naming an ancestor: JSON cannot hold it (the round trip refuses it); count it as too large.
  if (depth > 10_000) return Infinity;
  memo.set(node, Infinity);
  let size = 0;
  if (isAlias(node)) {
    size = expandedSize(doc, node.resolve(doc), memo, depth + 1);
  } else if (isScalar(node)) {
    size = node.range ? node.range[1] - node.range[0] : String(node.value).length;
  } else if (isCollection(node)) {
    for (const item of node.items) {
      size += 1 + (isPair(item) ? expandedSize(doc, item.key, memo, depth + 1) + expandedSize(doc, item.value, memo, depth + 1) : expandedSize(doc, item, memo, depth + 1));
      if (size > MAX_YAML_EXPANDED_CHARS) break;
    }
  }
  memo.set(node, size);
  return size;
}

function describe(value: unknown): string {
  if (value === undefined) return 'empty';
  if (value === null) return 'null';
  if (typeof value === 'string') return `a plain text (${JSON.stringify(cut(value, 60))})`;
  return `a ${typeof value}`;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** A validator error as `{ message, code }`: the message prefixed with its JSON pointer, when it has one. */
export function validatorMessage(error: { message: string; path?: string | string[] }): string {
  const path = error.path;
  const pointer = Array.isArray(path) ? (path.length === 0 ? '' : '/' + path.map((s) => escapePointer(String(s))).join('/')) : (path ?? '');
  return pointer === '' ? error.message : `${pointer}: ${error.message}`;
}

export interface ValidatedSpec {
  version: SpecVersion;
  /**
   * The entry document with every reference resolved (circular references are object cycles): what the
   * outline is read from. The bundle itself is left untouched.
   */
  resolved: Record<string, unknown>;
}

/**
 * Validates a bundle (`{ [filename]: document }`, external references already rewritten to those names)
 * as OpenAPI 3.0, 3.1 or Swagger 2.0. Every problem is a PARSE_ERROR carrying the validator's messages
 * with their JSON pointers. The validator is given copies (it fills in a missing `info.version`).
 */
export async function validateSpec(files: Record<string, unknown>, entry: string): Promise<ValidatedSpec> {
  const filesystem: Filesystem = Object.entries(files).map(([filename, document]) => ({
    isEntrypoint: filename === entry,
    dir: './',
    filename,
    references: [],
    specification: structuredClone(document) as Filesystem[number]['specification'],
  }));
  let result: Awaited<ReturnType<typeof validate>>;
  try {
    result = await validate(filesystem);
  } catch (error) {
    // The validator gave up on the document (a structure too deep to walk, for one): the document's problem.
    throw new SpecProcessingFailure('PARSE_ERROR', [`${entry} could not be validated: ${error instanceof Error ? error.message : String(error)}`]);
  }
  if (!result.valid) {
    const messages = result.errors.map(validatorMessage);
    throw new SpecProcessingFailure('PARSE_ERROR', messages.length > 0 ? messages : [`${entry} is not a valid OpenAPI document`]);
  }
  const version = result.version;
  if (!(SUPPORTED_SPEC_VERSIONS as readonly string[]).includes(version)) {
    throw new SpecProcessingFailure('PARSE_ERROR', [`${entry} is an OpenAPI ${version} document: only OpenAPI 3.0, 3.1 and Swagger 2.0 are supported`]);
  }
  return { version: version as SpecVersion, resolved: result.schema as unknown as Record<string, unknown> };
}
