/**
 * The adaptive-content visitor schema: which JSON Schemas a site accepts (GitBook's shape, boolean
 * claims), the 400 naming what is wrong otherwise, the template conditions it suggests, and the
 * claims a visitor's token payload yields under it.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/lib/errors';
import {
  ADAPTIVE_SCHEMA_MAX_CLAIMS,
  emptyAdaptiveSchema,
  templateConditions,
  validateAdaptiveSchema,
  visitorClaims,
  type AdaptiveJsonSchema,
} from '../../../src/services/sites/adaptive-schema';
import { evaluateCondition, parseCondition } from '../../../src/services/sites/conditions';
import { GITBOOK_0202, gitbookErrors, gitbookValidator } from '../../helpers/gitbook-schema';

const gitbookShape = gitbookValidator('SiteAdaptiveJSONSchema', GITBOOK_0202.components);

const UNSIGNED = 'Unsigned claims of the site visitor.';

function sample(): AdaptiveJsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      isBetaUser: { type: 'boolean', description: 'Visitor is a beta user' },
      isAdmin: { type: 'boolean', description: '' },
      unsigned: {
        type: 'object',
        description: UNSIGNED,
        properties: { isTrial: { type: 'boolean', description: 'Visitor is on a trial' } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };
}

/** `sample()` changed by `change`, as untyped JSON. */
function changed(change: (schema: any) => void): unknown {
  const schema = structuredClone(sample()) as any;
  change(schema);
  return schema;
}

function refusal(input: unknown): string {
  try {
    validateAdaptiveSchema(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    return (error as ApiError).message;
  }
  throw new Error(`expected ${JSON.stringify(input)?.slice(0, 200)} to be refused`);
}

const claim = (description = '') => ({ type: 'boolean', description });

describe('validateAdaptiveSchema', () => {
  it.each([
    ['the sample, with signed and unsigned claims', sample()],
    ['the empty schema', emptyAdaptiveSchema()],
    ['no $schema', changed((s) => delete s.$schema)],
    ['signed claims only', changed((s) => delete s.properties.unsigned)],
    ['unsigned claims only', changed((s) => (s.properties = { unsigned: s.properties.unsigned }))],
    ['an empty unsigned object', changed((s) => (s.properties.unsigned.properties = {}))],
    ['names with _ and $ and digits', changed((s) => (s.properties = { _a1: claim(), $b: claim(), C_2$: claim() }))],
    [`${ADAPTIVE_SCHEMA_MAX_CLAIMS} claims`, { type: 'object', properties: manyClaims(ADAPTIVE_SCHEMA_MAX_CLAIMS), additionalProperties: false }],
  ])('accepts %s (and GitBook does too)', (_name, input) => {
    expect(validateAdaptiveSchema(input)).toEqual(input);
    expect(gitbookErrors(gitbookShape, input)).toBe('valid');
  });

  it.each([
    ['a wrong $schema', changed((s) => (s.$schema = 'https://json-schema.org/draft/2020-12/schema')), '$schema must be "http://json-schema.org/draft-07/schema#"'],
    ['a string claim', changed((s) => (s.properties.isBetaUser.type = 'string')), 'properties.isBetaUser.type must be "boolean"'],
    ['a claim without a type', changed((s) => delete s.properties.isBetaUser.type), 'properties.isBetaUser must have "type"'],
    ['a claim without a description', changed((s) => delete s.properties.isAdmin.description), 'properties.isAdmin must have "description"'],
    ['another keyword on a claim', changed((s) => (s.properties.isAdmin.default = true)), 'properties.isAdmin.default is not allowed'],
    ['additionalProperties true', changed((s) => (s.additionalProperties = true)), 'additionalProperties must be false'],
    ['additionalProperties missing', changed((s) => delete s.additionalProperties), 'the schema must have "additionalProperties"'],
    ['properties missing', changed((s) => delete s.properties), 'the schema must have "properties"'],
    ['a root type other than object', changed((s) => (s.type = 'array')), 'type must be "object"'],
    ['another root keyword', changed((s) => (s.required = ['isBetaUser'])), 'required is not allowed'],
    ['unsigned with a wrong description', changed((s) => (s.properties.unsigned.description = 'Plan')), `properties.unsigned.description must be "${UNSIGNED}"`],
    ['unsigned as a boolean claim', changed((s) => (s.properties.unsigned = claim('x'))), 'properties.unsigned.type must be "object"'],
    ['unsigned allowing more properties', changed((s) => (s.properties.unsigned.additionalProperties = true)), 'properties.unsigned.additionalProperties must be false'],
    ['unsigned without properties', changed((s) => delete s.properties.unsigned.properties), 'properties.unsigned must have "properties"'],
    ['an unsigned number claim', changed((s) => (s.properties.unsigned.properties.isTrial.type = 'number')), 'properties.unsigned.properties.isTrial.type must be "boolean"'],
    ['a nested object claim', changed((s) => (s.properties.profile = { type: 'object', description: '', properties: {}, additionalProperties: false })), 'properties.profile.type must be "boolean"'],
  ])('refuses %s', (_name, input, message) => {
    expect(refusal(input)).toBe(`Invalid jsonSchema: ${message}`);
  });

  it.each([
    ['type: 5 on a claim', changed((s) => (s.properties.isBetaUser.type = 5)), 'properties.isBetaUser.type must be a type name'],
    ['type: 5 at the root', changed((s) => (s.type = 5)), 'type must be a type name'],
    ['required: 5', changed((s) => (s.required = 5)), 'required must be of type array'],
    ['an invalid pattern', changed((s) => (s.properties.isBetaUser.pattern = '(')), 'properties.isBetaUser.pattern must be a valid regular expression'],
  ])('refuses an invalid JSON Schema: %s', (_name, input, message) => {
    expect(refusal(input)).toMatch(`Invalid jsonSchema: not a valid draft-07 JSON Schema: ${message}`);
  });

  it.each([
    ['a dash', 'is-beta'],
    ['a leading digit', '1st'],
    ['a space', 'is beta'],
    ['a dot', 'a.b'],
    ['an empty name', ''],
    ['more than 100 characters', 'a'.repeat(101)],
  ])('refuses a claim name with %s', (_name, name) => {
    const message = refusal(changed((s) => (s.properties[name] = claim())));
    expect(message).toMatch(/^Invalid jsonSchema: properties has an invalid claim name "/);
    expect(message).toContain(name.slice(0, 40));
    const unsigned = refusal(changed((s) => (s.properties.unsigned.properties[name] = claim())));
    expect(unsigned).toMatch(/^Invalid jsonSchema: properties\.unsigned\.properties has an invalid claim name/);
  });

  it('refuses __proto__ as a claim name', () => {
    const input = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"boolean","description":""}},"additionalProperties":false}');
    expect(refusal(input)).toMatch(/invalid claim name "__proto__"/);
  });

  it('refuses what is not an object', () => {
    for (const input of [null, 'schema', 42, true, [sample()]]) {
      expect(refusal(input)).toBe('Invalid jsonSchema: must be a JSON Schema object');
    }
  });

  it(`refuses more than ${ADAPTIVE_SCHEMA_MAX_CLAIMS} claims, signed and unsigned together`, () => {
    const signed = { type: 'object', properties: manyClaims(ADAPTIVE_SCHEMA_MAX_CLAIMS + 1), additionalProperties: false };
    expect(refusal(signed)).toBe(`Invalid jsonSchema: declares more than ${ADAPTIVE_SCHEMA_MAX_CLAIMS} claims`);
    const split = changed((s) => {
      s.properties = { ...manyClaims(60, 's'), unsigned: { ...s.properties.unsigned, properties: manyClaims(41, 'u') } };
    });
    expect(refusal(split)).toBe(`Invalid jsonSchema: declares more than ${ADAPTIVE_SCHEMA_MAX_CLAIMS} claims`);
    const unsignedOnly = changed((s) => (s.properties.unsigned.properties = manyClaims(ADAPTIVE_SCHEMA_MAX_CLAIMS + 1)));
    expect(refusal(unsignedOnly)).toBe(`Invalid jsonSchema: properties.unsigned.properties must have at most ${ADAPTIVE_SCHEMA_MAX_CLAIMS} properties`);
  });

  it('refuses a schema over 64 KB', () => {
    const big = changed((s) => (s.properties = manyClaims(80, 'c', 'd'.repeat(900))));
    expect(refusal(big)).toBe('Invalid jsonSchema: must be at most 64 KB');
  });

  it('refuses deep nesting before validating it', () => {
    let deep: unknown = claim();
    for (let i = 0; i < 5000; i++) deep = { nested: deep };
    expect(refusal(changed((s) => (s.properties.isAdmin = deep)))).toBe('Invalid jsonSchema: is nested too deeply');
  });
});

describe('templateConditions', () => {
  it('suggests one condition per claim, signed then unsigned', () => {
    expect(templateConditions(sample())).toEqual([
      { description: 'Visitor is a beta user', condition: 'visitor.claims.isBetaUser' },
      { description: 'Visitor\'s claim "isAdmin" is true', condition: 'visitor.claims.isAdmin' },
      { description: 'Visitor is on a trial', condition: 'visitor.claims.unsigned.isTrial' },
    ]);
    expect(templateConditions(emptyAdaptiveSchema())).toEqual([]);
  });

  it('produces conditions that parse and hold for a visitor with the claim', () => {
    const schema = validateAdaptiveSchema(
      changed((s) => {
        s.properties = { ...s.properties, _a1: claim(), $b: claim(), C_2$: claim() };
        s.properties.unsigned.properties = { ...s.properties.unsigned.properties, $u_1: claim('unsigned') };
      }),
    );
    const templates = templateConditions(schema);
    expect(templates).toHaveLength(7);
    for (const { condition } of templates) {
      expect(parseCondition(condition)).not.toBeNull();
      const path = condition.split('.').slice(2);
      const claims = path.length === 2 ? { unsigned: { [path[1]]: true } } : { [path[0]]: true };
      expect(evaluateCondition(condition, claims)).toBe(true);
      expect(evaluateCondition(condition, {})).toBe(false);
    }
  });
});

describe('visitorClaims', () => {
  const schema = sample();

  it('keeps the declared claims of a valid payload and drops registered ones', () => {
    const payload = {
      iss: 'https://auth.example.com',
      sub: 'user-1',
      aud: 'docs',
      exp: 2_000_000_000,
      nbf: 1_000_000_000,
      iat: 1_000_000_000,
      jti: 'token-1',
      isBetaUser: true,
      isAdmin: false,
      unsigned: { isTrial: true },
    };
    expect(visitorClaims(schema, payload)).toEqual({ isBetaUser: true, isAdmin: false, unsigned: { isTrial: true } });
  });

  it('accepts a payload with only some of the claims', () => {
    expect(visitorClaims(schema, { isBetaUser: true })).toEqual({ isBetaUser: true });
    expect(visitorClaims(schema, {})).toEqual({});
  });

  it('drops claims the schema does not declare', () => {
    const payload = { isBetaUser: true, email: 'ada@example.com', unsigned: { isTrial: false, plan: 'pro' } };
    expect(visitorClaims(schema, payload)).toEqual({ isBetaUser: true, unsigned: { isTrial: false } });
    const signedOnly = changed((s) => delete s.properties.unsigned) as AdaptiveJsonSchema;
    expect(visitorClaims(signedOnly, payload)).toEqual({ isBetaUser: true });
  });

  it('gives no claims at all when a declared claim has the wrong type (fail closed)', () => {
    expect(visitorClaims(schema, { isBetaUser: 'yes', isAdmin: true })).toEqual({});
    expect(visitorClaims(schema, { isBetaUser: true, unsigned: { isTrial: 1 } })).toEqual({});
    expect(visitorClaims(schema, { isBetaUser: true, unsigned: 'trial' })).toEqual({});
    expect(visitorClaims(schema, { isBetaUser: true, unsigned: null })).toEqual({});
    expect(visitorClaims(schema, { isBetaUser: true, isAdmin: undefined })).toEqual({});
    expect(evaluateCondition('visitor.claims.isAdmin', visitorClaims(schema, { isAdmin: true, isBetaUser: 1 }))).toBe(false);
  });

  it('without a schema, returns the payload minus registered claims', () => {
    const payload = { sub: 'user-1', exp: 2_000_000_000, iat: 1, anything: { nested: [1] }, isBetaUser: 'yes' };
    expect(visitorClaims(null, payload)).toEqual({ anything: { nested: [1] }, isBetaUser: 'yes' });
  });

  it('never gives a claim an inherited value', () => {
    const payload = JSON.parse('{"__proto__": {"isAdmin": true}, "isBetaUser": true}');
    const claims = visitorClaims(null, payload);
    expect(Object.getPrototypeOf(claims)).toBe(Object.prototype);
    expect(evaluateCondition('visitor.claims.isAdmin', claims)).toBe(false);
    expect(visitorClaims(schema, payload)).toEqual({ isBetaUser: true });
  });
});

function manyClaims(count: number, prefix = 'claim', description = ''): Record<string, { type: 'boolean'; description: string }> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, { type: 'boolean' as const, description }]));
}
