import { Validator } from '@cfworker/json-schema';
import { dereference, type Filesystem } from '@scalar/openapi-parser';
import { validatePathParameters } from '@scalar/openapi-validator';
import { isAlias, isCollection, isMap, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import draft04Schema from './schemas/json-schema-draft-04.json';
import openapi30Schema from './schemas/openapi-3.0.json';
import openapi31Schema from './schemas/openapi-3.1.json';
import swagger20Schema from './schemas/swagger-2.0.json';
import { MAX_SPEC_SOURCE_BYTES } from '../../lib/openapi-specs';
import type { SpecProcessingError, SpecProcessingErrorCode } from './types';

/**
 * Reading and validating OpenAPI documents (services/openapi/process runs them in the background):
 * a source text is JSON or YAML (`parseSpecText`); a bundle of files is validated as OpenAPI 3.0, 3.1 or
 * Swagger 2.0 (`validateSpec`: the official schemas through `@cfworker/json-schema`, references and path
 * parameters through `@scalar/openapi-parser`), whose messages become the spec's `lastProcessedErrors`,
 * each prefixed with the JSON pointer it is about (`/info/title: Instance type "number" is invalid. ...`).
 */

/** The processing errors a spec record keeps (`last_processed_errors`); `last_processed_error_count` is the total. */
export const MAX_STORED_ERRORS = 20;
/**
 * A stored error message is cut to this many characters (messages name URLs and JSON pointers, which may be
 * long): a spec row, read whole in lists, keeps at most MAX_STORED_ERRORS of them (about 10 KB).
 */
export const MAX_ERROR_MESSAGE = 500;
/**
 * The most a YAML document may grow by expanding its aliases, in characters of source (an alias counts as
 * the text of what it names): a 5 MiB document naming a large anchor a hundred times would otherwise take
 * hundreds of MB once read, more than a Worker has. It is the only bound on aliases: an anchor may be named
 * any number of times (yaml's own `maxAliasCount` is off), and an alias naming its own ancestor is refused.
 */
export const MAX_YAML_EXPANDED_CHARS = 2 * MAX_SPEC_SOURCE_BYTES;

/**
 * Bounds on the shape of a spec's documents, checked before they are validated (PARSE_ERROR past them), so
 * that a 5 MiB source cannot outlast the Worker's CPU or memory limits (which no catch block survives):
 *
 * - MAX_SPEC_DEPTH: objects and arrays nested at most this deep (the document itself is level 1), a YAML
 *   document counted with its aliases expanded. Copying and validating a document walk it recursively; a few
 *   thousand levels (8 KB of `[`) exhaust the stack. Real documents stay far below (tens of levels).
 * - MAX_SPEC_REFERENCES: references (`$ref`s the validator resolves, as services/openapi/source finds them)
 *   in all of a spec's files together. The validator's handling of unresolvable references is quadratic in
 *   their number: 20,000 broken ones take about 3 s of CPU, 40,000 four times that, 160,000 minutes (valid
 *   ones cost little). GitBook's own 1.7 MB API document has about 3,700, so a 5 MiB document as dense has
 *   about 11,000.
 *
 * YAML mappings are checked for duplicate keys in linear time (one set per mapping): yaml's own check
 * (`uniqueKeys`) compares each key with every earlier one (40,000 keys in one mapping took 9.5 s).
 */
export const MAX_SPEC_DEPTH = 500;
export const MAX_SPEC_REFERENCES = 20_000;

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

/** Cut to `max` characters, the last one `…` (never between the two halves of a surrogate pair). */
const cut = (text: string, max: number) => {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 2]) ? max - 2 : max - 1;
  return text.slice(0, end) + '…';
};

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
      // YAML that parsed, but that the checks before reading it refused.
      if (yamlError instanceof YamlRefused) throw new SpecProcessingFailure('PARSE_ERROR', [`${name} is YAML that cannot be read: ${yamlError.message}`]);
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
 * One YAML document in the core schema (JSON-compatible scalars: no timestamps, no binary), checked before it
 * is converted (`measureYaml`: duplicate keys, depth, alias expansion), read as JSON values: one JSON round
 * trip makes aliases copies.
 */
function readYaml(body: string): unknown {
  const lineCounter = new LineCounter();
  // Duplicate keys are checked by measureYaml, in linear time (yaml's `uniqueKeys` is quadratic).
  const doc = parseDocument(body, { logLevel: 'silent', uniqueKeys: false, lineCounter });
  if (doc.errors.length > 0) throw doc.errors[0];
  const { size } = measureYaml(doc, lineCounter, doc.contents, new Map(), 0);
  if (size > MAX_YAML_EXPANDED_CHARS) throw new YamlRefused(`its aliases expand it beyond ${MAX_YAML_EXPANDED_CHARS} characters`);
  // Aliases are bounded by MAX_YAML_EXPANDED_CHARS (measured above), not by their number.
  const value: unknown = doc.toJS({ maxAliasCount: -1 });
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** Why a YAML document that parsed is not read (see measureYaml). */
class YamlRefused extends Error {}

interface YamlMeasure {
  /** Characters of source, aliases expanded (stops growing past MAX_YAML_EXPANDED_CHARS). */
  size: number;
  /** Levels of collections, aliases expanded: 0 for a scalar, 1 for a collection of scalars. */
  height: number;
}

/** Marks a node being measured: meeting it again means an alias names its own ancestor. */
const MEASURING: YamlMeasure = { size: Infinity, height: Infinity };

/**
 * Measures a YAML node with its aliases expanded (each node once: an alias reuses what its target measured),
 * refusing what JSON cannot hold or the Worker should not read: a mapping with a duplicate key, nesting deeper
 * than MAX_SPEC_DEPTH, an alias naming its own ancestor. `level` is the number of collections around the node.
 */
function measureYaml(doc: Document, lines: LineCounter, node: unknown, memo: Map<unknown, YamlMeasure>, level: number): YamlMeasure {
  if (node === null || node === undefined) return { size: 0, height: 0 };
  const known = memo.get(node);
  if (known === MEASURING) throw new YamlRefused('an alias names one of its own ancestors (a cycle, which JSON cannot hold)');
  if (known !== undefined) {
    if (level + known.height > MAX_SPEC_DEPTH) throw tooDeep(lines, node);
    return known;
  }
  let measure: YamlMeasure;
  if (isAlias(node)) {
    memo.set(node, MEASURING);
    measure = measureYaml(doc, lines, node.resolve(doc), memo, level);
  } else if (isCollection(node)) {
    if (level + 1 > MAX_SPEC_DEPTH) throw tooDeep(lines, node);
    memo.set(node, MEASURING);
    if (isMap(node)) checkUniqueKeys(lines, node.items);
    let size = 0;
    let height = 0;
    for (const item of node.items) {
      const parts = isPair(item) ? [item.key, item.value] : [item];
      size += 1;
      for (const part of parts) {
        const child = measureYaml(doc, lines, part, memo, level + 1);
        size += child.size;
        height = Math.max(height, child.height);
      }
      if (size > MAX_YAML_EXPANDED_CHARS) break;
    }
    measure = { size, height: height + 1 };
  } else {
    measure = { size: isScalar(node) ? (node.range ? node.range[1] - node.range[0] : String(node.value).length) : 0, height: 0 };
  }
  memo.set(node, measure);
  return measure;
}

const where = (lines: LineCounter, node: unknown) => {
  const range = (node as { range?: [number, number, number] }).range;
  if (!range) return '';
  const { line, col } = lines.linePos(range[0]);
  return ` at line ${line}, column ${col}`;
};

const tooDeep = (lines: LineCounter, node: unknown) =>
  new YamlRefused(`it nests objects and arrays deeper than ${MAX_SPEC_DEPTH} levels${where(lines, node)}, aliases expanded (the most that is processed)`);

/** A mapping's keys are unique: scalars compared by value, as yaml's own check does, with one set. */
function checkUniqueKeys(lines: LineCounter, items: unknown[]): void {
  const seen = new Set<unknown>();
  for (const item of items) {
    if (!isPair(item) || !isScalar(item.key)) continue;
    const key = item.key.value;
    if (seen.has(key)) throw new YamlRefused(`Map keys must be unique: ${JSON.stringify(cut(String(key), 100))} is repeated${where(lines, item.key)}`);
    seen.add(key);
  }
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
 * The official JSON Schemas of the OpenAPI documents (as `@scalar/openapi-validator` ships them, copied
 * into src/services/openapi/schemas), checked with `@cfworker/json-schema`: an interpreter. Validators
 * that compile schemas into functions (ajv, which `@scalar/openapi-parser`'s own `validate` uses) cannot
 * run in workerd, which refuses code generation from strings (the vitest pool allows it, so only
 * `wrangler dev` and production show it).
 */
const SCHEMAS: Record<SpecVersion, { schema: object; draft: '4' | '2020-12' }> = {
  '2.0': { schema: swagger20Schema, draft: '4' },
  '3.0': { schema: openapi30Schema, draft: '4' },
  '3.1': { schema: openapi31Schema, draft: '2020-12' },
};
const validators = new Map<SpecVersion, Validator>();

function validatorFor(version: SpecVersion): Validator {
  let validator = validators.get(version);
  if (!validator) {
    const { schema, draft } = SCHEMAS[version];
    validator = new Validator(schema as never, draft, false);
    if (draft === '4') validator.addSchema(draft04Schema as never, 'http://json-schema.org/draft-04/schema');
    validators.set(version, validator);
  }
  return validator;
}

/** The version a document declares (`swagger: '2.0'`, `openapi: '3.0.x'` or `'3.1.x'`), or why it has none we support. */
function declaredVersion(document: unknown, entry: string): SpecVersion {
  const doc = (document && typeof document === 'object' && !Array.isArray(document) ? document : {}) as Record<string, unknown>;
  if (doc.swagger === '2.0') return '2.0';
  if (typeof doc.openapi === 'string') {
    if (/^3\.0\.\d+/.test(doc.openapi)) return '3.0';
    if (/^3\.1\.\d+/.test(doc.openapi)) return '3.1';
    throw new SpecProcessingFailure('PARSE_ERROR', [`${entry} is an OpenAPI ${doc.openapi.slice(0, 20)} document: only OpenAPI 3.0, 3.1 and Swagger 2.0 are supported`]);
  }
  throw new SpecProcessingFailure('PARSE_ERROR', [`${entry} is not an OpenAPI document: it has neither an \`openapi\` (3.0, 3.1) nor a \`swagger: "2.0"\` field`]);
}

/**
 * Keywords whose errors only say that something beneath failed (the failure itself is reported at its own
 * place) or that a property is not allowed (reported once, as `false`, where nothing else is wrong with it).
 */
const CASCADE_KEYWORDS = new Set([
  'properties', '$ref', '$dynamicRef', 'patternProperties', 'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'not',
  'items', 'prefixItems', 'additionalItems', 'contains', 'propertyNames', 'dependentSchemas',
  'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'false',
]);

/** The schema validator's errors as messages: the failures themselves, and properties not allowed where they are. */
function schemaMessages(errors: Array<{ keyword: string; instanceLocation: string; error: string }>): string[] {
  const pointer = (e: { instanceLocation: string }) => e.instanceLocation.replace(/^#/, '');
  const leaves = errors.filter((e) => !CASCADE_KEYWORDS.has(e.keyword));
  const within = (location: string) => leaves.some((l) => pointer(l) === location || pointer(l).startsWith(`${location}/`));
  const notAllowed = [...new Set(errors.filter((e) => e.keyword === 'false' && !within(pointer(e))).map(pointer))];
  return [
    ...leaves.map((e) => validatorMessage({ message: e.error, path: pointer(e) })),
    ...notAllowed.map((location) => validatorMessage({ message: 'is not allowed here', path: location })),
  ];
}

/**
 * Validates a bundle (`{ [filename]: document }`, external references already rewritten to those names)
 * as OpenAPI 3.0, 3.1 or Swagger 2.0: the entry against its version's schema, then every reference
 * resolved (`@scalar/openapi-parser`'s `dereference`, which does no code generation), then path
 * parameters against their templates. Every problem is a PARSE_ERROR carrying messages prefixed with
 * their JSON pointers. Copies are validated (a missing `info.version` is filled in, as the parser does).
 */
export async function validateSpec(files: Record<string, unknown>, entry: string): Promise<ValidatedSpec> {
  const version = declaredVersion(files[entry], entry);
  let filesystem: Filesystem;
  try {
    filesystem = Object.entries(files).map(([filename, document]) => ({
      isEntrypoint: filename === entry,
      dir: './',
      filename,
      references: [],
      specification: structuredClone(document) as Filesystem[number]['specification'],
    }));
  } catch (error) {
    throw new SpecProcessingFailure('PARSE_ERROR', [`${entry} could not be validated: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const document = filesystem.find((f) => f.isEntrypoint)!.specification as Record<string, unknown>;
  const info = document.info as Record<string, unknown> | undefined;
  if (info && typeof info === 'object' && typeof info.version !== 'string') info.version = '0.1.0';
  const checked = validatorFor(version).validate(document);
  if (!checked.valid) {
    const messages = schemaMessages(checked.errors);
    throw new SpecProcessingFailure('PARSE_ERROR', messages.length > 0 ? messages : [`${entry} is not a valid OpenAPI ${version} document`]);
  }
  let resolved: Awaited<ReturnType<typeof dereference>>;
  try {
    resolved = await dereference(filesystem);
  } catch (error) {
    throw new SpecProcessingFailure('PARSE_ERROR', [`${entry} could not be resolved: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const schema = resolved.schema as Record<string, unknown> | undefined;
  const problems = [...(resolved.errors ?? []), ...(schema ? validatePathParameters(schema as never) : [])];
  if (problems.length > 0 || !schema) {
    throw new SpecProcessingFailure('PARSE_ERROR', problems.length > 0 ? problems.map(validatorMessage) : [`${entry} could not be resolved`]);
  }
  return { version, resolved: schema };
}
