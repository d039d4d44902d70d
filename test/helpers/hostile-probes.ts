/**
 * The requests of the hostile-input sweep (test/helpers/hostile-sweep.ts), computed from the served
 * `/openapi.json` alone: which values each parameter and body property takes. Kept apart from the sending so
 * that the number of requests per operation can be counted without a Worker (it is what the sweep's time is).
 */
import { minimalValue, resolveSchema, type Schema } from './openapi-schema';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/*
 * The values below are one per class of input, not one per idea: a value goes when another one already falls
 * in the same class for every parser that reads it (the comments say which), for the sweep's time is its number
 * of requests (each one a full request through the Worker), about 6 ms each on a 2-core machine.
 */

/**
 * Hostile values of a free-text query parameter, already percent-encoded as they go on the wire. Left out as
 * covered: strings of 49, 50, 51 and 512 characters (a parameter's documented maximum length is probed at it and
 * one past it, below, from its schema; 'é' x 300 and 10,000 characters stay for long text of one and two bytes a
 * character), `%%` (the LIKE wildcard `%`), a single emoji ('😀' x 40 is outside the BMP too, and longer in
 * UTF-16 than in code points), `true` (a JSON literal, as `null` is).
 */
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
  '[]',
  '{}',
  'x'.repeat(10_000),
  'é'.repeat(300),
  '%',
  '_',
  '\\',
  "'",
  '"',
  "' OR '1'='1' --",
  '😀'.repeat(40),
  '\u0000',
  '..',
  '<script>',
].map(encodeURIComponent);
/**
 * Values of a query parameter the served document types as an integer or a number: its validator (zod's
 * coercion) reads any text but these as not a number, as it does `a`: empty and blank (which coerce to 0), zero,
 * negative, fractional, out of range, NaN. Malformed percent-encoding (HOSTILE_RAW) is not sent to typed
 * parameters: the query decoder, the same function for every parameter, gives the text back as it came when it
 * cannot decode it, and the validator refuses that text as it does `a`.
 */
const HOSTILE_NUMBER = ['', ' ', 'a', '0', '-1', '1.5', '1e400', 'NaN'].map(encodeURIComponent);
/**
 * Values of a query parameter typed as a boolean or an enumeration: anything but its few words is refused as
 * `a` is (long text too); empty, blank, `0` and `true` are what coercions to a boolean read differently.
 */
const HOSTILE_WORD = ['', ' ', '0', 'a', 'true'].map(encodeURIComponent);
/**
 * Malformed percent-encoding, which the query and path decoders meet before any parameter's validator. Left
 * out as covered: `%E0%A4%A` (a malformed escape, as `%`), `%C0%AF` and `%FF` (invalid UTF-8, as `%ED%A0%80`:
 * decodeURIComponent refuses all three alike and no decoder here reads an overlong form), `%2F` (an encoded
 * slash, also in `..%2F..`).
 */
const HOSTILE_RAW = ['%', '%ED%A0%80', '..%2F..'];
/**
 * Path parameters are ids (at most 128 characters): fewer values tell as much. 10,000 characters left out:
 * over the limit as 129 are; `0` (an id of no row, as 128 x's are: ids are bound as text, never read as numbers);
 * `"` (a quote, as `'` is: ids only ever reach SQL as bound values).
 */
const HOSTILE_ID = [...['', ' ', 'x'.repeat(128), 'x'.repeat(129), "'", '😀', '\u0000', '..'].map(encodeURIComponent), ...HOSTILE_RAW];
/**
 * Text values of `page`, a list's cursor: one function (decodeCursor) reads it in every list, and any text that is
 * not base64 of a two-item JSON array is refused there alike, so beside the forged cursors below it takes one value
 * per way text can differ on the wire (empty, blank, a word, long, two-byte and four-byte characters, a quote, NUL).
 */
const HOSTILE_PAGE_TEXT = ['', ' ', 'a', 'x'.repeat(10_000), 'é'.repeat(300), "'", '\u0000', '😀'.repeat(40)].map(encodeURIComponent);

const base64url = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
/**
 * Page cursors a client could forge: well-formed base64 of JSON that is not a cursor this API made. Those
 * decodeCursor (src/lib/keyset-pages.ts) takes, a string or number and a string, reach each list's own keyset query.
 */
const FORGED_CURSORS_TAKEN = ['[1e400,"x"]', '[-1e400,"x"]', '[9007199254740993,"x"]', '["",""]', `["${'x'.repeat(5000)}","${'y'.repeat(5000)}"]`, '["\\u0000","\\u0000"]'].map(
  (json) => base64url(unescape(encodeURIComponent(json))),
);
/** Forged cursors of another shape, which decodeCursor refuses before any list reads them (a 400, the same for every list). */
const FORGED_CURSORS_REFUSED = ['[0,"x",1]', '[null,"x"]', '[[],"x"]', '{"0":1,"1":"x"}', '"x"'].map((json) => base64url(unescape(encodeURIComponent(json))));
const FORGED_CURSORS = [...FORGED_CURSORS_TAKEN, ...FORGED_CURSORS_REFUSED];
/**
 * A list's cursor on every list but one: each text decodeCursor refuses is refused there alike, whichever list
 * calls it, so each list gets one value of each kind decodeCursor refuses (text that is no base64 JSON, a malformed
 * escape, a forged cursor of another shape) and every forged cursor it takes (they reach that list's query). The
 * other values of those kinds (HOSTILE_PAGE_TEXT, HOSTILE_RAW, FORGED_CURSORS_REFUSED) go to the document's first
 * list (`representative.cursor`); HOSTILE_RAW also to every free-text query parameter (the same query decoder).
 */
const CURSOR_PER_LIST = ['a', '%', FORGED_CURSORS_REFUSED.at(-1)!, ...FORGED_CURSORS_TAKEN];

/**
 * Hostile values of a JSON body property, by JSON type. A property whose schema has one type gets every value of
 * that type and the first value of each other type: its validator refuses a value of another type whatever it
 * is (a number where a string goes, deep or not, long or not), and only values of its own type reach the code
 * behind it; past the first property of its type in an operation, it gets one other type in turn (jsonValuesFor).
 * A property of several types, or none, gets them all.
 */
const HOSTILE_JSON: Record<'null' | 'boolean' | 'number' | 'string' | 'array' | 'object', unknown[]> = {
  null: [null],
  boolean: [true],
  number: [0, -1, 1.5, 1e308],
  string: ['', ' ', 'x'.repeat(10_000), "%_\\'\"😀\u0000"],
  array: [[], [null], ['x'.repeat(10_000)], Array.from({ length: 1001 }, (_, i) => `id${i}`), JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`)],
  object: [{}, { a: { b: { c: [] } } }],
};

/**
 * Whole bodies that are not what any operation takes. Left out as covered: `1` and `true` (a JSON scalar, as
 * `"x"`), `{"a":` (JSON cut short, as `{`).
 */
const HOSTILE_BODIES: Array<{ contentType: string; body: string }> = [
  ...['', 'null', '[]', '"x"', '{', '\u0000', '{"__proto__":{"x":1}}', `${'['.repeat(5000)}${']'.repeat(5000)}`].map((body) => ({
    contentType: 'application/json',
    body,
  })),
  { contentType: 'text/plain', body: '{}' },
  { contentType: 'application/x-www-form-urlencoded', body: 'a=1' },
];
/**
 * Whole bodies that the route's JSON validator refuses before its handler runs, as it refuses another of this
 * list on the same operation: JSON of another type than the body's (`[]`, `"x"`, 5,000 nested arrays: as `null`,
 * zod's type check of the body) and text that is no JSON (NUL: as `{`, the validator's JSON.parse). Sent to the
 * document's first operation whose body has each top-level type (`representative.bodies`), not to every operation.
 */
const REFUSED_LIKE_ANOTHER_BODY = new Set(['[]', '"x"', '\u0000', `${'['.repeat(5000)}${']'.repeat(5000)}`]);

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
  return parts.flatMap((part: Schema | undefined) => {
    // Sibling properties of one schema (a title per language: 39 of them, in six places of a site's
    // customization) meet the same validator and are stored together: the first stands for the others.
    const seen = new Set<string>();
    return Object.entries<Schema>(part?.properties ?? {}).flatMap(([key, property]) => {
      const shape = JSON.stringify(property);
      if (seen.has(shape)) return [];
      seen.add(shape);
      return boundedStrings(property, [...path, key], depth + 1);
    });
  });
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

/** A schema with its `$ref` followed and the parts of an `allOf` that only describe it (a description) left out. */
function effective(input: Schema | undefined, depth = 0): Schema | undefined {
  const schema = resolve(input);
  if (!schema?.allOf || depth > 5) return schema;
  const parts = schema.allOf.filter((part: Schema) => Object.keys(part).some((key) => key !== 'description'));
  return parts.length === 1 ? effective(parts[0], depth + 1) : schema;
}

/** The variants of a union other than null; undefined for a schema that is no union. */
function nonNullVariants(schema: Schema): Schema[] | undefined {
  const variants: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  return variants?.map((variant) => effective(variant)!).filter((variant) => variant && variant.type !== 'null');
}

/**
 * The one JSON type a schema allows besides null (an enumeration of strings is a string, an integer a number),
 * or undefined when it allows several or any.
 */
function singleType(input: Schema | undefined, depth = 0): keyof typeof HOSTILE_JSON | undefined {
  const schema = effective(input);
  if (!schema || depth > 5) return undefined;
  const variants = nonNullVariants(schema);
  if (variants) return variants.length === 1 ? singleType(variants[0], depth + 1) : undefined;
  if (schema.allOf) return undefined;
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((type: unknown) => type !== 'null');
  if (types.length !== 1) return undefined;
  const type = types[0] === 'integer' ? 'number' : types[0];
  return type in HOSTILE_JSON ? type : undefined;
}

/** A schema that takes a few words only: an enumeration, or a union of enumerations (a role, or `guest`). */
function isEnumeration(input: Schema | undefined): boolean {
  const schema = effective(input);
  if (!schema) return false;
  const variants = nonNullVariants(schema);
  return variants ? variants.length > 0 && variants.every(isEnumeration) : Array.isArray(schema.enum);
}

/**
 * The hostile values of a body property (see HOSTILE_JSON). `turn` (the property's place among the operation's
 * properties of one type) picks which value of another type a property gets past the operation's first: the route's
 * zod schema refuses any value of another type at a property of one type, as one check (invalid_type) before the
 * handler runs, so the operation's first property of each type takes one value of each other type (and null, which
 * a nullable property takes), its later properties of that type null and one other type in turn.
 */
function jsonValuesFor(schema: Schema | undefined, turn?: number): unknown[] {
  const type = singleType(schema);
  if (!type) return Object.values(HOSTILE_JSON).flat();
  const others = Object.keys(HOSTILE_JSON).filter((other) => other !== type && other !== 'null') as Array<keyof typeof HOSTILE_JSON>;
  const kept = turn === undefined || turn === 0 ? new Set(others) : new Set([others[(turn - 1) % others.length]]);
  return Object.entries(HOSTILE_JSON).flatMap(([other, values]) => (other === type ? values : other === 'null' || kept.has(other as keyof typeof HOSTILE_JSON) ? values.slice(0, 1) : []));
}

/** The hostile values of a query parameter, by the type its schema gives it. */
/** A list's cursor, as the served document describes `page` there (elsewhere `page` may be a page's id). */
const isCursor = (param: Operation['params'][number]) => /the page results to fetch/.test(param.schema?.description ?? '');

function queryValuesFor(param: Operation['params'][number], representative = false): string[] {
  const type = singleType(param.schema);
  if (type === 'number') return HOSTILE_NUMBER;
  if (type === 'boolean' || isEnumeration(param.schema)) return HOSTILE_WORD;
  if (param.name === 'page' && isCursor(param)) return representative ? [...HOSTILE_PAGE_TEXT, ...HOSTILE_RAW, ...FORGED_CURSORS] : CURSOR_PER_LIST;
  return [...HOSTILE_TEXT, ...HOSTILE_RAW, ...(param.name === 'page' ? FORGED_CURSORS : [])];
}

/** Top-level properties of a body schema, with their schemas (the first part that has one). */
function bodyProperties(input: Schema | undefined): Array<[string, Schema | undefined]> {
  const schema = resolve(input);
  if (!schema) return [];
  const parts = [schema, ...(schema.allOf ?? []).map(resolve)];
  const properties = new Map<string, Schema | undefined>();
  for (const part of parts) for (const [key, property] of Object.entries<Schema>(part?.properties ?? {})) if (!properties.has(key)) properties.set(key, property);
  return [...properties];
}

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  params: Array<{ name: string; in: 'path' | 'query'; schema?: Schema }>;
  body?: Schema;
  /**
   * What this operation is the document's representative of, and is sent every value for: `cursor`, the first
   * list with a cursor (CURSOR_PER_LIST); `bodies`, the first operation whose body has its top-level type
   * (REFUSED_LIKE_ANOTHER_BODY).
   */
  representative: { cursor: boolean; bodies: boolean };
}

/** The operations of a served document; its component schemas become those the probes resolve. */
export function operationsOf(doc: { paths: Record<string, any>; components: { schemas: Record<string, Schema> } }): Operation[] {
  components = doc.components.schemas;
  const operations = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      method,
      path: `/v1${path}`,
      operationId: item[method].operationId,
      params: (item[method].parameters ?? []).filter((p: any) => p.in === 'path' || p.in === 'query'),
      body: item[method].requestBody?.content?.['application/json']?.schema,
      representative: { cursor: false, bodies: false },
    })),
  );
  // Chosen on the whole document, before the sweep splits it into shards: each is in exactly one shard.
  const firstList = operations.find((op) => op.params.some((p: Operation['params'][number]) => p.in === 'query' && p.name === 'page' && isCursor(p)));
  if (firstList) firstList.representative.cursor = true;
  const bodyKinds = new Set<string>();
  for (const op of operations.filter((op) => op.body)) {
    const kind = singleType(op.body) ?? 'several';
    if (!bodyKinds.has(kind)) op.representative.bodies = true;
    bodyKinds.add(kind);
  }
  return operations;
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
    for (const value of queryValuesFor(param, op.representative.cursor)) add(`query ${param.name}=${value.slice(0, 30)}`, {}, `${param.name}=${value}`, jsonBody);
    add(`query ${param.name} without a value`, {}, param.name, jsonBody);
    add(`query ${param.name} twice`, {}, `${param.name}=1&${param.name}=2`, jsonBody);
  }
  if (op.body) {
    // Whole bodies.
    for (const body of HOSTILE_BODIES) {
      if (REFUSED_LIKE_ANOTHER_BODY.has(body.body) && !op.representative.bodies) continue;
      add(`body ${body.contentType} ${body.body.slice(0, 20)}`, {}, '', body);
    }
    // Each top-level property of an otherwise minimal body; `turns` counts the properties of each type so far.
    const turns = new Map<string, number>();
    for (const [property, schema] of bodyProperties(op.body)) {
      const type = singleType(schema);
      const turn = type === undefined ? undefined : (turns.get(type) ?? 0);
      if (type !== undefined) turns.set(type, turn! + 1);
      for (const value of jsonValuesFor(schema, turn)) {
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
