/**
 * The adaptive-content condition language: what parses, what is refused (with a 400 that names the
 * field and the position), and how conditions evaluate against a visitor's claims.
 */
import { describe, expect, it } from 'vitest';
import docsSitesGuide from '../../../src/templates/handbook/06-docs-sites.md?raw';
import { ApiError } from '../../../src/lib/errors';
import {
  CONDITION_GRAMMAR,
  CONDITION_MAX_LENGTH,
  evaluateCondition,
  normalizeCondition,
  parseCondition,
} from '../../../src/services/sites/conditions';

/** The 400 thrown by parseCondition, or a failure naming what happened instead. */
function refusal(expression: string, field?: string): ApiError {
  try {
    parseCondition(expression, field);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    return error as ApiError;
  }
  throw new Error(`expected ${JSON.stringify(expression)} to be refused`);
}

const claims = {
  isBetaUser: true,
  isAdmin: false,
  seats: 12,
  name: 'Ada',
  nothing: null,
  tags: ['a', 'b'],
  profile: { country: 'FR', 'with-dash': 'yes' },
  unsigned: { plan: 'pro', isTrial: false },
};

describe('parseCondition', () => {
  it.each([
    'visitor.claims.isBetaUser',
    'visitor.claims.unsigned.plan == "pro"',
    "visitor.claims['isBetaUser'] === true",
    'visitor.claims.profile["with-dash"] != null',
    '!visitor.claims.isAdmin && (visitor.claims.seats >= 10 || visitor.claims.name < "B")',
    'visitor.claims.seats > -1',
    'visitor.claims?.isBetaUser',
    'true',
    'null',
    '  visitor.claims.isBetaUser  ',
  ])('accepts %s', (expression) => {
    expect(parseCondition(expression)).not.toBeNull();
  });

  it('treats an empty or blank condition as no condition', () => {
    expect(parseCondition('')).toBeNull();
    expect(parseCondition('   \n\t ')).toBeNull();
    expect(normalizeCondition('  ')).toBeNull();
    expect(normalizeCondition(null)).toBeNull();
    expect(normalizeCondition('  visitor.claims.a ')).toBe('visitor.claims.a');
  });

  it('reports a syntax error with its position', () => {
    const error = refusal('visitor.claims.x }');
    expect(error.message).toBe('Invalid condition: unexpected "}" at position 17');
    expect(refusal('visitor.claims.plan == "pro').message).toMatch(/^Invalid condition: unclosed quote .* at position 27$/);
    expect(refusal('visitor.claims.a &&').message).toMatch(/at position 19$/);
  });

  it('names the field it was given', () => {
    expect(refusal('visitor.a +', 'sections[0].condition').message).toMatch(/^Invalid sections\[0\]\.condition: /);
  });

  it.each([
    ['a function call', 'visitor.claims.has("x")', /function calls are not allowed at position 0$/],
    ['a call later in the expression', 'visitor.claims.a && visitor.claims.f()', /function calls are not allowed at position 20$/],
    ['this', 'this.claims', /"this" is not allowed at position 0$/],
    ['an array', 'visitor.claims.a == [1, 2]', /arrays are not allowed at position 20$/],
    ['an assignment', 'visitor.claims.a = true', /at position 17$/],
    ['a ternary', 'visitor.claims.a ? true : false', /the ternary operator "\?:" is not allowed at position 17$/],
    ['addition', 'visitor.claims.seats + 1 > 2', /operator "\+" is not allowed at position 21$/],
    ['multiplication after a group', '(visitor.claims.seats) * 2', /operator "\*" is not allowed at position 23$/],
    ['a bitwise operator', 'visitor.claims.a | 1', /operator "\|" is not allowed at position 17$/],
    ['nullish coalescing', 'visitor.claims.a ?? true', /operator "\?\?" is not allowed at position 17$/],
    ['unary minus on a claim', '-visitor.claims.seats < 0', /operator "-" is not allowed at position 0$/],
    ['bitwise not', '~visitor.claims.seats', /operator "~" is not allowed at position 0$/],
    ['two statements', 'visitor.claims.a; visitor.claims.b', /only one expression is allowed at position 16$/],
    ['juxtaposed expressions', 'visitor.claims.a visitor.claims.b', /only one expression is allowed at position 17$/],
    ['a comma sequence', '(visitor.claims.a, visitor.claims.b)', /only one expression is allowed at position 17$/],
    ['another root name', 'window.location', /unknown name "window".* at position 0$/],
    ['a root name on the right', 'visitor.claims.a == process', /unknown name "process".* at position 20$/],
    ['a property of a literal', '"abc".length > 1', /properties can only be read from visitor at position 0$/],
    ['a property of a comparison', '(visitor.claims.a == 1).x', /properties can only be read from visitor at position 0$/],
    ['a property of a call result', 'visitor.claims.f().x', /function calls are not allowed at position 0$/],
    ['a computed key that is not a quoted name', 'visitor.claims[visitor.claims.k]', /only a quoted name is allowed inside \[ \] at position 15$/],
    ['a numeric index', 'visitor.claims.tags[0] == "a"', /only a quoted name is allowed inside \[ \] at position 20$/],
  ])('refuses %s', (_kind, expression, message) => {
    const error = refusal(expression);
    expect(error.message).toMatch(/^Invalid condition: /);
    expect(error.message).toMatch(message);
  });

  it(`refuses a condition longer than ${CONDITION_MAX_LENGTH} characters`, () => {
    const long = `visitor.claims.a == "${'x'.repeat(CONDITION_MAX_LENGTH)}"`;
    expect(refusal(long).message).toBe(`Invalid condition: must be at most ${CONDITION_MAX_LENGTH} characters`);
    const tenThousandParens = `${'('.repeat(10_000)}true${')'.repeat(10_000)}`;
    expect(refusal(tenThousandParens).message).toMatch(/at most 1024 characters/);
  });

  it('refuses deep nesting with a 400, not a stack overflow', () => {
    expect(refusal(`${'!'.repeat(1000)}true`).message).toMatch(/^Invalid condition: is nested too deeply .* at position \d+$/);
    const chain = Array.from({ length: 80 }, () => 'visitor.a').join('&&');
    expect(chain.length).toBeLessThanOrEqual(CONDITION_MAX_LENGTH);
    expect(refusal(chain).message).toMatch(/nested too deeply/);
    expect(refusal('['.repeat(1000)).status).toBe(400);
    // Parentheses alone add no depth to the tree: 500 of them still parse (within the length limit).
    expect(parseCondition(`${'('.repeat(500)}true${')'.repeat(500)}`)).not.toBeNull();
  });

  it('documents the grammar, and the docs sites guide shows it as it is', () => {
    expect(CONDITION_GRAMMAR).toContain('visitor.claims.unsigned.plan == "pro"');
    expect(docsSitesGuide).toContain(CONDITION_GRAMMAR);
  });
});

describe('evaluateCondition', () => {
  it.each([
    ['visitor.claims.isBetaUser', true],
    ['visitor.claims.isAdmin', false],
    ['!visitor.claims.isAdmin', true],
    ['visitor.claims.unsigned.plan == "pro"', true],
    ['visitor.claims.unsigned.plan == "free"', false],
    ['visitor.claims.unsigned.plan != "free"', true],
    ['visitor.claims.unsigned.isTrial', false],
    ["visitor['claims']['profile']['with-dash'] === 'yes'", true],
    ['visitor.claims.seats >= 12 && visitor.claims.seats < 13', true],
    ['visitor.claims.seats > 12', false],
    ['visitor.claims.seats > -1', true],
    ['visitor.claims.name < "B"', true],
    ['visitor.claims.isAdmin || visitor.claims.isBetaUser', true],
    ['visitor.claims.isAdmin || visitor.claims.unsigned.isTrial', false],
    ['(visitor.claims.isAdmin || visitor.claims.isBetaUser) && visitor.claims.name == "Ada"', true],
    ['visitor.claims.name', true],
    ['visitor.claims.tags', true],
    ['true', true],
    ['false', false],
    ['0', false],
  ])('%s is %s', (expression, expected) => {
    expect(evaluateCondition(expression, claims)).toBe(expected);
  });

  it('holds when there is no condition', () => {
    expect(evaluateCondition(null, {})).toBe(true);
    expect(evaluateCondition(undefined, {})).toBe(true);
    expect(evaluateCondition('', {})).toBe(true);
    expect(evaluateCondition('  ', {})).toBe(true);
  });

  it('reads missing members as undefined, without throwing', () => {
    expect(evaluateCondition('visitor.claims.missing', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.missing.deeper.still', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.name.first', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.missing == null', claims)).toBe(true);
    expect(evaluateCondition('visitor.claims.missing === null', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.nothing == null', claims)).toBe(true);
    expect(evaluateCondition('!visitor.claims.unsigned.missing', claims)).toBe(true);
    expect(evaluateCondition('visitor.claims.unsigned.plan == "pro"', {})).toBe(false);
    expect(evaluateCondition('visitor.claims.unsigned.length', { unsigned: 'not an object' })).toBe(false);
  });

  it('never reads inherited properties', () => {
    expect(evaluateCondition('visitor.claims.constructor', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.__proto__', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.toString', {})).toBe(false);
    expect(evaluateCondition('visitor.claims.tags.length == 2', claims)).toBe(true);
  });

  it('compares without type coercion', () => {
    expect(evaluateCondition('visitor.claims.seats == "12"', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.seats != "12"', claims)).toBe(true);
    expect(evaluateCondition('visitor.claims.isBetaUser == 1', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.isAdmin == 0', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.isAdmin == null', claims)).toBe(false);
    // Ordering only between two numbers or two strings.
    expect(evaluateCondition('visitor.claims.seats > "5"', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.seats < "50"', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.missing < 1', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.missing >= 0', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.nothing <= 0', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.isBetaUser > false', claims)).toBe(false);
    expect(evaluateCondition('"10" < "9"', {})).toBe(true);
    expect(evaluateCondition('10 < 9', {})).toBe(false);
  });

  it('evaluates a condition that does not parse as false (fail closed)', () => {
    expect(evaluateCondition('visitor.claims.isBetaUser }', claims)).toBe(false);
    expect(evaluateCondition('visitor.claims.has("x")', claims)).toBe(false);
    expect(evaluateCondition('window.open', claims)).toBe(false);
    expect(evaluateCondition(`${'!'.repeat(1000)}false`, claims)).toBe(false);
    expect(evaluateCondition(`visitor.claims.isBetaUser || "${'x'.repeat(2000)}"`, claims)).toBe(false);
  });

  it('gives the same answers from its cache', () => {
    const expression = 'visitor.claims.unsigned.plan == "pro"';
    for (let i = 0; i < 3; i++) {
      expect(evaluateCondition(expression, { unsigned: { plan: 'pro' } })).toBe(true);
      expect(evaluateCondition(expression, { unsigned: { plan: 'free' } })).toBe(false);
      expect(evaluateCondition('visitor.claims.bad }', {})).toBe(false);
    }
    // Many distinct conditions (more than the cache holds) still evaluate correctly.
    for (let i = 0; i < 700; i++) {
      expect(evaluateCondition(`visitor.claims.n == ${i}`, { n: i })).toBe(true);
    }
    expect(evaluateCondition('visitor.claims.n == 0', { n: 0 })).toBe(true);
  });
});
