/**
 * The requests of the hostile-input sweep (test/helpers/hostile-sweep.ts), computed from the served
 * `/openapi.json` alone: which values each parameter and body property takes. Kept apart from the sending so
 * that the number of requests per operation can be counted without a Worker (it is what the sweep's time is).
 */
import { minimalValue, resolveSchema, type Schema } from './openapi-schema';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Hostile values of a path or query parameter, already percent-encoded as they go on the wire. */
const HOSTILE_TEXT = [
  '',
  ' ',
  'a',
  '0',
  '-1',
  '1.5',
  '1e400',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  ...[49, 50, 51, 512, 10_000].map((n) => 'x'.repeat(n)),
  'é'.repeat(300),
  '%',
  '_',
  '%%',
  '\\',
  "'",
  '"',
  "' OR '1'='1' --",
  '😀',
  '😀'.repeat(40),
  '\u0000',
  '..',
  '<script>',
].map(encodeURIComponent);
const HOSTILE_RAW = ['%', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%FF', '%2F', '..%2F..'];
/** Path parameters are ids (at most 128 characters): fewer values tell as much. */
const HOSTILE_ID = [
  ...['', ' ', '0', 'x'.repeat(128), 'x'.repeat(129), 'x'.repeat(10_000), "'", '"', '😀', '\u0000', '..'].map(encodeURIComponent),
  ...HOSTILE_RAW,
];

const base64url = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
/** Page cursors a client could forge: well-formed base64 of JSON that is not a cursor this API made. */
const FORGED_CURSORS = [
  '[1e400,"x"]',
  '[-1e400,"x"]',
  '[9007199254740993,"x"]',
  '["",""]',
  `["${'x'.repeat(5000)}","${'y'.repeat(5000)}"]`,
  '["\\u0000","\\u0000"]',
  '[0,"x",1]',
  '[null,"x"]',
  '[[],"x"]',
  '{"0":1,"1":"x"}',
  '"x"',
].map((json) => base64url(unescape(encodeURIComponent(json))));

/** Hostile values of a JSON body property, of every type. */
const HOSTILE_JSON: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  '',
  ' ',
  'x'.repeat(10_000),
  "%_\\'\"😀\u0000",
  [],
  [null],
  ['x'.repeat(10_000)],
  Array.from({ length: 1001 }, (_, i) => `id${i}`),
  {},
  { a: { b: { c: [] } } },
  JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`),
];

/** Whole bodies that are not what any operation takes. */
const HOSTILE_BODIES: Array<{ contentType: string; body: string }> = [
  ...['', 'null', '[]', '"x"', '1', 'true', '{', '{"a":', '\u0000', '{"__proto__":{"x":1}}', `${'['.repeat(5000)}${']'.repeat(5000)}`].map((body) => ({
    contentType: 'application/json',
    body,
  })),
  { contentType: 'text/plain', body: '{}' },
  { contentType: 'application/x-www-form-urlencoded', body: 'a=1' },
];

/** The served document's `components.schemas`, which the schemas of its operations refer to. */
let components: Record<string, Schema> = {};

const resolve = (schema: Schema | undefined) => resolveSchema(components, schema);
/** A minimal value of a JSON schema: the required properties only, first enum values and first variants. */
const minimal = (schema: Schema | undefined, depth = 0) => minimalValue(components, schema, undefined, depth);

/** A path into a JSON body: property names, and `[]` for an array's item. */
type LeafPath = string[];

/**
 * Every string of a body schema that documents a maximum length, with its schema: top-level properties and
 * those nested in objects and arrays (first variant of a union), down to a few levels.
 */
function boundedStrings(input: Schema | undefined, path: LeafPath = [], depth = 0): Array<{ path: LeafPath; schema: Schema }> {
  const schema = resolve(input);
  if (!schema || depth > 6) return [];
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return boundedStrings(variants.find((v: Schema) => resolve(v)?.type !== 'null') ?? variants[0], path, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  if (type === 'string') return typeof schema.maxLength === 'number' ? [{ path, schema }] : [];
  if (type === 'array') return boundedStrings(schema.items, [...path, '[]'], depth + 1);
  const parts = [schema, ...(schema.allOf ?? []).map(resolve)];
  return parts.flatMap((part: Schema | undefined) =>
    Object.entries<Schema>(part?.properties ?? {}).flatMap(([key, property]) => boundedStrings(property, [...path, key], depth + 1)),
  );
}

/** The schema's minimal value with `value` at `path` (an array holds one minimal item that carries it). */
function withLeaf(input: Schema | undefined, path: LeafPath, value: unknown, depth = 0): unknown {
  if (path.length === 0) return value;
  const schema = resolve(input);
  const variants = schema?.anyOf ?? schema?.oneOf;
  if (variants) return withLeaf(variants.find((v: Schema) => resolve(v)?.type !== 'null') ?? variants[0], path, value, depth + 1);
  const [head, ...rest] = path;
  if (head === '[]') return [withLeaf(schema?.items, rest, value, depth + 1)];
  const property = [schema, ...(schema?.allOf ?? []).map(resolve)].map((part) => part?.properties?.[head]).find(Boolean);
  return { ...(minimal(schema, depth) as Record<string, unknown>), [head]: withLeaf(property, rest, value, depth + 1) };
}

/**
 * A string of exactly `length` characters that a schema of this format would take: words (titles, names),
 * an address or a URL. A pattern the text does not match is a 400, which the sweep accepts like any 4xx.
 */
function textOfLength(schema: Schema, length: number): string {
  if (schema.format === 'email') return `${'a'.repeat(Math.max(1, length - 13))}@example.test`.slice(-length);
  if (schema.format === 'uri' || schema.format === 'url') return `https://example.test/${'x'.repeat(Math.max(0, length - 21))}`;
  if (schema.pattern) return 'x'.repeat(length);
  return `${'word '.repeat(Math.ceil(length / 5)).slice(0, Math.max(0, length - 1))}s`.slice(-length);
}

/** Top-level properties of a body schema. */
function bodyProperties(input: Schema | undefined): string[] {
  const schema = resolve(input);
  if (!schema) return [];
  const parts = [schema, ...(schema.allOf ?? []).map(resolve)];
  return [...new Set(parts.flatMap((part: Schema | undefined) => Object.keys(part?.properties ?? {})))];
}

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  params: Array<{ name: string; in: 'path' | 'query'; schema?: Schema }>;
  body?: Schema;
}

/** The operations of a served document; its component schemas become those the probes resolve. */
export function operationsOf(doc: { paths: Record<string, any>; components: { schemas: Record<string, Schema> } }): Operation[] {
  components = doc.components.schemas;
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      method,
      path: `/v1${path}`,
      operationId: item[method].operationId,
      params: (item[method].parameters ?? []).filter((p: any) => p.in === 'path' || p.in === 'query'),
      body: item[method].requestBody?.content?.['application/json']?.schema,
    })),
  );
}

/** One request of the sweep: what it tries, its path parameters (the others real), its query and its body. */
export interface Probe {
  what: string;
  path: Record<string, string>;
  query: string;
  body?: { contentType: string; body: string };
}

/** Every request the sweep sends to `op`. */
export function probesOf(op: Operation): Probe[] {
  const probes: Probe[] = [];
  const add = (what: string, path: Record<string, string>, query: string, body?: Probe['body']) => probes.push({ what, path, query, body });
  const minimalBody = op.body ? (minimal(op.body) as Record<string, unknown>) : undefined;
  const jsonBody = op.body ? { contentType: 'application/json', body: JSON.stringify(minimalBody ?? {}) } : undefined;
  // Path parameters.
  for (const param of op.params.filter((p) => p.in === 'path')) {
    for (const value of HOSTILE_ID) add(`path ${param.name}=${value.slice(0, 30)}`, { [param.name]: value }, '', jsonBody);
  }
  // Query parameters, one at a time, and repeated.
  for (const param of op.params.filter((p) => p.in === 'query')) {
    const values = [...HOSTILE_TEXT, ...HOSTILE_RAW, ...(param.name === 'page' ? FORGED_CURSORS : [])];
    for (const value of values) add(`query ${param.name}=${value.slice(0, 30)}`, {}, `${param.name}=${value}`, jsonBody);
    add(`query ${param.name} without a value`, {}, param.name, jsonBody);
    add(`query ${param.name} twice`, {}, `${param.name}=1&${param.name}=2`, jsonBody);
  }
  if (op.body) {
    // Whole bodies.
    for (const body of HOSTILE_BODIES) add(`body ${body.contentType} ${body.body.slice(0, 20)}`, {}, '', body);
    // Each top-level property of an otherwise minimal body.
    for (const property of bodyProperties(op.body)) {
      for (const value of HOSTILE_JSON) {
        const body = JSON.stringify({ ...minimalBody, [property]: value });
        add(`body.${property}=${JSON.stringify(value).slice(0, 30)}`, {}, '', { contentType: 'application/json', body });
      }
    }
  }
  // Valid bodies whose bounded strings sit at their maximum length and one past it: a long title must be
  // taken (or refused with a 400 naming the limit), never break a query built from it.
  if (op.body) {
    for (const { path, schema } of boundedStrings(op.body)) {
      for (const length of [schema.maxLength, schema.maxLength + 1]) {
        const body = JSON.stringify(withLeaf(op.body, path, textOfLength(schema, length)));
        add(`body.${path.join('.')} of ${length} characters`, {}, '', { contentType: 'application/json', body });
      }
    }
  }
  // Query parameters at their maximum length and one past it, as text of words.
  for (const param of op.params.filter((p) => p.in === 'query' && typeof p.schema?.maxLength === 'number')) {
    for (const length of [param.schema!.maxLength, param.schema!.maxLength + 1]) {
      add(`query ${param.name} of ${length} characters`, {}, `${param.name}=${encodeURIComponent(textOfLength(param.schema!, length))}`, jsonBody);
    }
  }
  // An operation that takes no input at all: hostile only by its token, which is real here.
  if (probes.length === 0) add('as it is', {}, '');
  return probes;
}
