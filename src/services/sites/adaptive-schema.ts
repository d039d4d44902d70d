/**
 * A site's adaptive-content visitor schema: the JSON Schema (draft-07) that declares the claims a
 * visitor may carry, which conditions then read as `visitor.claims.<name>`.
 *
 * The shape is GitBook's `SiteAdaptiveJSONSchema`, restricted (as our specification says) to boolean
 * claims: `{ $schema?, type: 'object', properties: { <claim>: { type: 'boolean', description },
 * unsigned?: { type: 'object', description: 'Unsigned claims of the site visitor.', properties: {...},
 * additionalProperties: false } }, additionalProperties: false }`. GitBook requires `description` on
 * every claim; so do we, so that what we store always validates against GitBook's published schema.
 *
 * Validation uses @cfworker/json-schema: it interprets schemas (no code generation), which workerd needs.
 */
import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import { badRequest } from '../../lib/errors';

export const ADAPTIVE_SCHEMA_MAX_CLAIMS = 100;
export const ADAPTIVE_SCHEMA_MAX_BYTES = 64 * 1024;
export const CLAIM_NAME_MAX_LENGTH = 100;
/** A claim name must be usable as `visitor.claims.<name>` in a condition. */
export const CLAIM_NAME_PATTERN = '^[A-Za-z_$][A-Za-z0-9_$]*$';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const UNSIGNED_DESCRIPTION = 'Unsigned claims of the site visitor.';
// A valid adaptive schema nests at most 5 deep (schema, properties, unsigned, properties, claim);
// refusing deeper input early keeps the validators' recursion small whatever is sent.
const MAX_NESTING = 8;

export interface AdaptiveClaimSchema {
  type: 'boolean';
  description: string;
}

export interface AdaptiveUnsignedSchema {
  type: 'object';
  description: typeof UNSIGNED_DESCRIPTION;
  properties: Record<string, AdaptiveClaimSchema>;
  additionalProperties: false;
}

export interface AdaptiveJsonSchema {
  $schema?: typeof DRAFT_07;
  type: 'object';
  /** Boolean claims by name, and `unsigned` (the only name that is not a boolean claim). */
  properties: { unsigned?: AdaptiveUnsignedSchema; [claim: string]: AdaptiveClaimSchema | AdaptiveUnsignedSchema | undefined };
  additionalProperties: false;
}

export interface TemplateCondition {
  description: string;
  condition: string;
}

// ---------------------------------------------------------------------------------------------
// Meta-schemas

/** The JSON Schema draft-07 meta-schema (json-schema.org), minus `format`s that only annotate. */
const DRAFT_07_META_SCHEMA = {
  $schema: DRAFT_07,
  $id: DRAFT_07,
  definitions: {
    schemaArray: { type: 'array', minItems: 1, items: { $ref: '#' } },
    nonNegativeInteger: { type: 'integer', minimum: 0 },
    nonNegativeIntegerDefault0: { allOf: [{ $ref: '#/definitions/nonNegativeInteger' }, { default: 0 }] },
    simpleTypes: { enum: ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] },
    stringArray: { type: 'array', items: { type: 'string' }, uniqueItems: true, default: [] },
  },
  type: ['object', 'boolean'],
  properties: {
    $id: { type: 'string' },
    $schema: { type: 'string' },
    $ref: { type: 'string' },
    $comment: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    default: true,
    readOnly: { type: 'boolean', default: false },
    writeOnly: { type: 'boolean', default: false },
    examples: { type: 'array', items: true },
    multipleOf: { type: 'number', exclusiveMinimum: 0 },
    maximum: { type: 'number' },
    exclusiveMaximum: { type: 'number' },
    minimum: { type: 'number' },
    exclusiveMinimum: { type: 'number' },
    maxLength: { $ref: '#/definitions/nonNegativeInteger' },
    minLength: { $ref: '#/definitions/nonNegativeIntegerDefault0' },
    pattern: { type: 'string', format: 'regex' },
    additionalItems: { $ref: '#' },
    items: { anyOf: [{ $ref: '#' }, { $ref: '#/definitions/schemaArray' }], default: true },
    maxItems: { $ref: '#/definitions/nonNegativeInteger' },
    minItems: { $ref: '#/definitions/nonNegativeIntegerDefault0' },
    uniqueItems: { type: 'boolean', default: false },
    contains: { $ref: '#' },
    maxProperties: { $ref: '#/definitions/nonNegativeInteger' },
    minProperties: { $ref: '#/definitions/nonNegativeIntegerDefault0' },
    required: { $ref: '#/definitions/stringArray' },
    additionalProperties: { $ref: '#' },
    definitions: { type: 'object', additionalProperties: { $ref: '#' }, default: {} },
    properties: { type: 'object', additionalProperties: { $ref: '#' }, default: {} },
    patternProperties: { type: 'object', additionalProperties: { $ref: '#' }, propertyNames: { format: 'regex' }, default: {} },
    dependencies: {
      type: 'object',
      additionalProperties: { anyOf: [{ $ref: '#' }, { $ref: '#/definitions/stringArray' }] },
    },
    propertyNames: { $ref: '#' },
    const: true,
    enum: { type: 'array', items: true },
    type: {
      anyOf: [
        { $ref: '#/definitions/simpleTypes' },
        { type: 'array', items: { $ref: '#/definitions/simpleTypes' }, minItems: 1, uniqueItems: true },
      ],
    },
    format: { type: 'string' },
    contentMediaType: { type: 'string' },
    contentEncoding: { type: 'string' },
    if: { $ref: '#' },
    then: { $ref: '#' },
    else: { $ref: '#' },
    allOf: { $ref: '#/definitions/schemaArray' },
    anyOf: { $ref: '#/definitions/schemaArray' },
    oneOf: { $ref: '#/definitions/schemaArray' },
    not: { $ref: '#' },
  },
  default: true,
} as const;

/** The adaptive shape (GitBook's SiteAdaptiveJSONSchema with boolean claims), as a draft-07 schema. */
export const ADAPTIVE_SHAPE_SCHEMA = {
  $schema: DRAFT_07,
  type: 'object',
  required: ['type', 'properties', 'additionalProperties'],
  additionalProperties: false,
  properties: {
    $schema: { const: DRAFT_07 },
    type: { const: 'object' },
    properties: {
      type: 'object',
      maxProperties: ADAPTIVE_SCHEMA_MAX_CLAIMS + 1,
      propertyNames: { $ref: '#/definitions/claimName' },
      properties: { unsigned: { $ref: '#/definitions/unsigned' } },
      additionalProperties: { $ref: '#/definitions/claim' },
    },
    additionalProperties: { const: false },
  },
  definitions: {
    claimName: {
      type: 'string',
      pattern: CLAIM_NAME_PATTERN,
      maxLength: CLAIM_NAME_MAX_LENGTH,
      // A valid identifier, but as an object key it is the prototype accessor, not a claim.
      not: { const: '__proto__' },
    },
    claim: {
      type: 'object',
      required: ['type', 'description'],
      additionalProperties: false,
      properties: {
        type: { const: 'boolean' },
        description: { type: 'string', maxLength: 1000 },
      },
    },
    unsigned: {
      type: 'object',
      required: ['type', 'description', 'properties', 'additionalProperties'],
      additionalProperties: false,
      properties: {
        type: { const: 'object' },
        description: { const: UNSIGNED_DESCRIPTION },
        properties: {
          type: 'object',
          maxProperties: ADAPTIVE_SCHEMA_MAX_CLAIMS,
          propertyNames: { $ref: '#/definitions/claimName' },
          additionalProperties: { $ref: '#/definitions/claim' },
        },
        additionalProperties: { const: false },
      },
    },
  },
} as const;

// Built on first use, not at import: a published page imports this module (access.ts) and validates no schema;
// dereferencing the draft-07 meta-schema at module scope was part of every cold isolate's first site view.
let draft07Validator: Validator | undefined;
let shapeValidator: Validator | undefined;
const draft07MetaValidator = () => (draft07Validator ??= new Validator(DRAFT_07_META_SCHEMA as unknown as Schema, '7'));
const adaptiveShapeValidator = () => (shapeValidator ??= new Validator(ADAPTIVE_SHAPE_SCHEMA as unknown as Schema, '7'));

// ---------------------------------------------------------------------------------------------
// Validation

/** The default schema of a site: no claims. */
export function emptyAdaptiveSchema(): AdaptiveJsonSchema {
  return { $schema: DRAFT_07, type: 'object', properties: {}, additionalProperties: false };
}

/**
 * `input` as an adaptive schema, or a 400 naming the first problem (`Invalid jsonSchema: <where> <why>`).
 * Checked in order: size and nesting, draft-07 validity, the adaptive shape, the total number of claims.
 */
export function validateAdaptiveSchema(input: unknown, field = 'jsonSchema'): AdaptiveJsonSchema {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw badRequest(`Invalid ${field}: must be a JSON Schema object`);
  }
  if (nestingExceeds(input, MAX_NESTING)) throw badRequest(`Invalid ${field}: is nested too deeply`);
  if (new TextEncoder().encode(JSON.stringify(input)).length > ADAPTIVE_SCHEMA_MAX_BYTES) {
    throw badRequest(`Invalid ${field}: must be at most ${ADAPTIVE_SCHEMA_MAX_BYTES / 1024} KB`);
  }
  const draft07 = draft07MetaValidator().validate(input);
  if (!draft07.valid) {
    throw badRequest(`Invalid ${field}: not a valid draft-07 JSON Schema: ${describeErrors(draft07.errors, DRAFT_07_META_SCHEMA)}`);
  }
  const shape = adaptiveShapeValidator().validate(input);
  if (!shape.valid) throw badRequest(`Invalid ${field}: ${describeErrors(shape.errors, ADAPTIVE_SHAPE_SCHEMA)}`);
  const schema = input as AdaptiveJsonSchema;
  if (claimEntries(schema).length > ADAPTIVE_SCHEMA_MAX_CLAIMS) {
    throw badRequest(`Invalid ${field}: declares more than ${ADAPTIVE_SCHEMA_MAX_CLAIMS} claims`);
  }
  return schema;
}

/** Iterative, so that a hostile body cannot overflow the stack before the check refuses it. */
function nestingExceeds(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

/** One sentence for the most specific error: the validator lists a parent before its causes. */
function describeErrors(errors: OutputUnit[], metaSchema: object): string {
  const names = errors.find((error) => error.keyword === 'propertyNames');
  if (names) return `${where(names.instanceLocation)} ${invalidName(names.error)}`;
  const leaf = errors[errors.length - 1];
  // When every alternative failed on the value itself, the last alternative's complaint would
  // mislead: name the alternatives instead.
  const alternatives = [...errors].reverse().find((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf');
  if (alternatives && alternatives.instanceLocation === leaf.instanceLocation) {
    return `${where(leaf.instanceLocation)} ${describeAlternatives(alternatives)}`;
  }
  return `${where(leaf.instanceLocation)} ${reason(leaf, metaSchema)}`;
}

function describeAlternatives(error: OutputUnit): string {
  if (error.keywordLocation.endsWith('/type/anyOf')) {
    return 'must be a type name ("array", "boolean", "integer", "null", "number", "object", "string") or an array of them';
  }
  return 'does not match any of the allowed forms';
}

/** `#/properties/isBeta/type` -> `properties.isBeta.type`; the root is the schema itself. */
function where(instanceLocation: string): string {
  const path = pointerParts(instanceLocation);
  return path.length ? path.join('.') : 'the schema';
}

function invalidName(error: string): string {
  const name = /"(.*)"/.exec(error)?.[1] ?? '';
  const shown = name.length > 40 ? `${name.slice(0, 40)}...` : name;
  return (
    `has an invalid claim name "${shown}" (a claim name starts with a letter, _ or $, continues with letters, ` +
    `digits, _ or $, has at most ${CLAIM_NAME_MAX_LENGTH} characters, and is not __proto__)`
  );
}

function reason(error: OutputUnit, metaSchema: object): string {
  const keywordValue = () => resolvePointer(metaSchema, error.keywordLocation);
  switch (error.keyword) {
    case 'const':
      return `must be ${JSON.stringify(keywordValue())}`;
    case 'enum':
      return `must be one of ${(keywordValue() as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'type':
      return `must be of type ${[keywordValue()].flat().join(' or ')}`;
    case 'false':
      return 'is not allowed';
    case 'required': {
      const missing = /"(.*)"/.exec(error.error)?.[1];
      return missing ? `must have "${missing}"` : 'misses a required property';
    }
    case 'maxProperties':
      return `must have at most ${keywordValue()} properties`;
    case 'maxLength':
      return `must be at most ${keywordValue()} characters`;
    case 'format':
      return `must be a valid ${keywordValue() === 'regex' ? 'regular expression' : keywordValue()}`;
    default:
      return error.error.replace(/^Instance /, 'value ').replace(/\.$/, '');
  }
}

/**
 * The value at a keyword location such as `#/properties/properties/additionalProperties/$ref/properties/type/const`
 * in one of our own meta-schemas: a `$ref` step continues inside the schema it points to (local refs only).
 */
function resolvePointer(root: object, keywordLocation: string): unknown {
  let current: unknown = root;
  for (const key of pointerParts(keywordLocation)) {
    if (current === null || typeof current !== 'object') return undefined;
    const value = (current as Record<string, unknown>)[key];
    current = key === '$ref' && typeof value === 'string' ? resolvePointer(root, value) : value;
  }
  return current;
}

function pointerParts(pointer: string): string[] {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
}

// ---------------------------------------------------------------------------------------------
// Claims

interface ClaimEntry {
  name: string;
  unsigned: boolean;
  schema: AdaptiveClaimSchema;
}

/** The signed claims (every property but `unsigned`) and the unsigned ones, in schema order. */
function signedClaims(schema: AdaptiveJsonSchema): Record<string, AdaptiveClaimSchema> {
  const { unsigned: _unsigned, ...signed } = schema.properties;
  return signed as Record<string, AdaptiveClaimSchema>;
}

function claimEntries(schema: AdaptiveJsonSchema): ClaimEntry[] {
  const { unsigned } = schema.properties;
  const signed = signedClaims(schema);
  return [
    ...Object.entries(signed).map(([name, claim]) => ({ name, unsigned: false, schema: claim })),
    ...Object.entries(unsigned?.properties ?? {}).map(([name, claim]) => ({ name, unsigned: true, schema: claim })),
  ];
}

/** One suggested condition per claim; the names are identifiers (checked on write), so the paths parse. */
export function templateConditions(schema: AdaptiveJsonSchema): TemplateCondition[] {
  return claimEntries(schema).map(({ name, unsigned, schema: claim }) => ({
    description: claim.description?.trim() || `Visitor's ${unsigned ? 'unsigned ' : ''}claim "${name}" is true`,
    condition: `visitor.claims.${unsigned ? 'unsigned.' : ''}${name}`,
  }));
}

/** JWT claims of RFC 7519 \u00a74.1: about the token, not the visitor. */
export const REGISTERED_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti'] as const;

/**
 * The claims conditions see for a visitor (`visitor.claims`), from a verified token payload with the
 * unsigned claims, if any, under `unsigned`.
 *
 * Registered JWT claims are removed. Without a schema, the rest is returned as is. With one, claims
 * the schema does not declare are dropped (identity providers add many claims of their own, `email`,
 * `name`, ...; they must not void the declared ones), and the rest must validate against the schema:
 * if a declared claim has the wrong type, the visitor gets no claims at all (`{}`), so every
 * condition on a claim reads undefined and guarded content stays hidden. Failing closed is the safe
 * side: content must never show because of a claim the site did not expect.
 */
export function visitorClaims(schema: AdaptiveJsonSchema | null, payload: Record<string, unknown>): Record<string, unknown> {
  const claims = Object.fromEntries(
    Object.entries(payload).filter(([name]) => !(REGISTERED_CLAIMS as readonly string[]).includes(name)),
  );
  if (!schema) return claims;
  const declared = declaredClaims(schema, claims);
  try {
    return validatorFor(schema).validate(declared).valid ? declared : {};
  } catch {
    // The validator throws on values JSON cannot hold (undefined, functions): not a token payload.
    return {};
  }
}

function declaredClaims(schema: AdaptiveJsonSchema, claims: Record<string, unknown>): Record<string, unknown> {
  const { unsigned } = schema.properties;
  const picked = pick(claims, Object.keys(signedClaims(schema)));
  const unsignedClaims = claims.unsigned;
  if (unsigned && Object.hasOwn(claims, 'unsigned')) {
    // Not an object: kept as is, so that validation refuses it.
    picked.unsigned = isPlainObject(unsignedClaims) ? pick(unsignedClaims, Object.keys(unsigned.properties)) : unsignedClaims;
  }
  return picked;
}

function pick(source: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((name) => Object.hasOwn(source, name)).map((name) => [name, source[name]]));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// A site's schema is read once per published request; its validator is built once per schema object.
const validators = new WeakMap<AdaptiveJsonSchema, Validator>();

function validatorFor(schema: AdaptiveJsonSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(schema as unknown as Schema, '7');
    validators.set(schema, validator);
  }
  return validator;
}
