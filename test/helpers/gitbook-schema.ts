import { dereference, initialBaseURI, validate, type OutputUnit, type Schema } from '@cfworker/json-schema';
import gitbookSpec from '@gitbook/api/spec/openapi.json';
import gitbook0202Spec from 'gitbook-api-0202/spec/openapi.json';

/** GitBook's published OpenAPI document of @gitbook/api 0.202.0 (the current one these tests hold us to). */
export const GITBOOK_0202 = gitbook0202Spec as unknown as GitbookDocument;

interface GitbookDocument {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any>; responses?: Record<string, any>; [key: string]: unknown };
}

/** A validator of one of GitBook's published component schemas (@gitbook/api 0.146.0 unless `components` is given). */
export function gitbookValidator(name: string, components: unknown = gitbookSpec.components): Validator {
  return schemaValidator({ $ref: `#/components/schemas/${name}` }, components);
}

/** What the tests ask of a validator (@cfworker/json-schema's `Validator` has this method). */
export interface Validator {
  validate(instance: unknown): { valid: boolean; errors: OutputUnit[] };
}

/**
 * The `$ref` lookup of each components object, made once. A `Validator` of `{ ...schema, components }` walks all of
 * `components` when it is made (GitBook's: hundreds of schemas, tens of milliseconds), and the tests make one per
 * operation and per case: the walk of the components is the same each time, only the schema at the root differs.
 */
const componentLookups = new WeakMap<object, Record<string, Schema | boolean>>();

function componentsLookup(components: object): Record<string, Schema | boolean> {
  let lookup = componentLookups.get(components);
  if (!lookup) {
    // As a Validator of `{ ...schema, components }` would (same base URI, same pointers), without the root, which
    // is each validator's own schema.
    lookup = dereference({ components } as unknown as Schema);
    delete lookup[initialBaseURI.href];
    componentLookups.set(components, lookup);
  }
  return lookup;
}

/**
 * A validator of any schema whose `$ref`s point into `components` (GitBook's, or a patched copy): what
 * `new Validator({ ...schema, components }, '2019-09', false)` validates, with the components' lookup made once.
 *
 * Validity is decided with short-circuiting on (a subschema stops at its first error), and every error is listed
 * (short-circuiting off) only when a caller reads `errors` of an invalid instance. Both give the same `valid`: a
 * subschema stops early only once it has failed, and a failed subschema counts by its validity alone (`anyOf`,
 * `oneOf`, `not`, `if`, `contains` keep nothing it evaluated); an invalid instance's `errors` are the full list as
 * before. Off, every failing variant of every `anyOf` was walked to its end: GitBook's document schema is an
 * `anyOf` of block types at each level, and one small document took seconds to validate, the same one tens of
 * milliseconds with it on (the suite validates thousands).
 */
export function schemaValidator(schema: object, components: unknown): Validator {
  const root = { ...schema } as Schema;
  // The components' entries (read through the prototype, not copied), and the root schema's own: its pointers
  // never start with /components.
  const lookup = dereference(root, Object.create(componentsLookup(components as object)));
  return {
    validate(instance) {
      const decided = validate(instance, root, '2019-09', lookup, true);
      if (decided.valid) return decided;
      let every: OutputUnit[] | undefined;
      return {
        valid: false,
        get errors() {
          return (every ??= validate(instance, root, '2019-09', lookup, false).errors);
        },
      };
    },
  };
}

/** `valid`, or every error as `instance location, schema location: message` (readable in a failed assertion). */
export function gitbookErrors(validator: Validator, value: unknown): string[] | 'valid' {
  const result = validator.validate(value);
  return result.valid ? 'valid' : result.errors.map((e) => `${e.instanceLocation} ${e.keywordLocation}: ${e.error}`);
}

export interface GitbookOperation {
  method: string;
  path: string;
  /** JSON schema of each 2xx response's body by status; null for a response without a JSON body. */
  responses: Record<string, object | null>;
}

/** The operations of a GitBook document by operationId (0.202.0 unless another is given). */
export function gitbookOperations(spec: GitbookDocument = GITBOOK_0202): Map<string, GitbookOperation> {
  const operations = new Map<string, GitbookOperation>();
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation?.operationId) continue;
      const responses: Record<string, object | null> = {};
      for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        const resolved = response.$ref ? spec.components.responses?.[response.$ref.split('/').pop()] : response;
        responses[status] = resolved?.content?.['application/json']?.schema ?? null;
      }
      operations.set(operation.operationId, { method, path, responses });
    }
  }
  return operations;
}

/**
 * GitBook's components with one member dropped from `RevisionPageDocument`: `Document` (`oneOf` Markdown
 * `{markdown}` | JSON `{document}` | Empty with `additionalProperties: false`), which makes every page
 * carry its body. Tree reads do (each page's Markdown) and are validated as published; the pages inside
 * link locations (links and backlinks, GitBook 0.146's `ContentLocationPage`) carry their metadata only,
 * and their tests validate against this. Everything else of the schema still applies.
 */
export function withoutPageBodyMember(components: GitbookDocument['components'] = GITBOOK_0202.components) {
  const copy = structuredClone(components);
  const page = copy.schemas.RevisionPageDocument;
  const before = page.allOf.length;
  page.allOf = page.allOf.filter((part: { $ref?: string }) => part.$ref !== '#/components/schemas/Document');
  if (page.allOf.length !== before - 1) throw new Error('RevisionPageDocument no longer has its Document member');
  return copy;
}

/** GitBook's published OpenAPI document of @gitbook/api 0.146.0 (the one with the conversations operations). */
export const GITBOOK_0146 = gitbookSpec as unknown as GitbookDocument;

/**
 * GitBook 0.146's components with the two documented divergences of conversations:
 * - a cluster's `summary` is a rich-text document (`JSONDocument`), as our specification says; GitBook 0.146
 *   documents a string;
 * - a conversation's `source` may be `api`: what a user token ingests (the issue asks for it), beside
 *   GitBook's integration sources (`integration:<name>:<installation>`) and `email`.
 * Everything else of GitBook's schemas still applies.
 */
export function conversationComponents(components: GitbookDocument['components'] = GITBOOK_0146.components) {
  const copy = structuredClone(components);
  const cluster = copy.schemas.ConversationsIssuesCluster;
  if (cluster?.properties?.summary?.type !== 'string') throw new Error('ConversationsIssuesCluster.summary is no longer a string');
  cluster.properties.summary = { $ref: '#/components/schemas/JSONDocument' };
  const source = copy.schemas.ConversationSource;
  if (!Array.isArray(source?.oneOf)) throw new Error('ConversationSource is no longer a oneOf');
  source.oneOf.push({ type: 'string', description: 'Ingested with a user API token', enum: ['api'] });
  return copy;
}

/**
 * GitBook's components with the documented divergence of OpenAPI spec content: `OpenAPISpecContent.filesystem`,
 * which GitBook's document types as any `object`, is the list GitBook's renderer reads (`Filesystem` of
 * @gitbook/openapi-parser: its `references.tsx` casts the value to it, and its API reference blocks crash on
 * anything else). JSON Schema's `object` excludes arrays, so the list is written here as the renderer's type.
 * Everything else of GitBook's schemas still applies.
 */
export function withFilesystemList(components: GitbookDocument['components'] = GITBOOK_0202.components) {
  const copy = structuredClone(components);
  const content = copy.schemas.OpenAPISpecContent;
  if (content?.properties?.filesystem?.type !== 'object') throw new Error('OpenAPISpecContent.filesystem is no longer an object');
  content.properties.filesystem = {
    description: content.properties.filesystem.description,
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      required: ['dir', 'isEntrypoint', 'references', 'filename', 'specification'],
      properties: {
        dir: { type: 'string' },
        isEntrypoint: { type: 'boolean' },
        references: { type: 'array', items: { type: 'string' } },
        filename: { type: 'string' },
        specification: { type: 'object' },
      },
    },
  };
  return copy;
}

/**
 * GitBook's components with `RevisionPageDocument`'s `{documentId?}` branch made to exclude `computed`: the last
 * member of that schema is a `oneOf` of `{computed, computedSeed}` (required) and `{documentId?}` (nothing
 * required), so a generated page matches both and fails `oneOf`, GitBook's own included (test/openapi/computed-pages).
 */
export function withComputedPageMember(components: GitbookDocument['components'] = GITBOOK_0202.components) {
  const copy = structuredClone(components);
  const last = copy.schemas.RevisionPageDocument.allOf.find((part: any) => Array.isArray(part.oneOf) && part.oneOf.some((b: any) => b.properties?.computedSeed));
  if (!last) throw new Error('RevisionPageDocument no longer has its computed/documentId oneOf');
  last.oneOf = last.oneOf.map((branch: any) => (branch.properties?.documentId ? { ...branch, not: { required: ['computed'] } } : branch));
  return copy;
}
