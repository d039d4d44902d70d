/**
 * Adaptive-content conditions: the expression on a site section, site space (or header link) that
 * decides whether a visitor sees it, e.g. `visitor.claims.isBetaUser && visitor.claims.unsigned.plan == "pro"`.
 *
 * The text is parsed with jsep and then checked against a small whitelist of node kinds; it is
 * never run as JavaScript (workerd refuses `eval`/`new Function`, and a condition is not code).
 * Evaluation walks the checked tree and reads claims through own properties only.
 */
import jsep from 'jsep';
import { badRequest } from '../../lib/errors';

export const CONDITION_MAX_LENGTH = 1024;
/** Deeper trees than any hand-written condition; bounds every recursive walk below. */
export const CONDITION_MAX_DEPTH = 64;
const CACHE_SIZE = 500;

/** The language, as documented for users (copied into the docs sites guide, src/templates/handbook/06-docs-sites.md: a test keeps them equal). */
export const CONDITION_GRAMMAR = `Conditions (the \`condition\` of a site section or site space) decide whether a visitor sees it.
A condition is one expression of at most ${CONDITION_MAX_LENGTH} characters:

  expression := expression "||" expression | expression "&&" expression
              | "!" expression | "(" expression ")"
              | operand [ ("==" | "!=" | "===" | "!==" | "<" | "<=" | ">" | ">=") operand ]
  operand    := visitor-path | "string" | 'string' | number | -number | true | false | null
  visitor-path := "visitor" ( "." name | "?." name | "[" "quoted name" "]" )*

- Only names under \`visitor\` can be read: \`visitor.claims.<claim>\` holds the visitor's signed claims and
  \`visitor.claims.unsigned.<claim>\` the unsigned ones, e.g. \`visitor.claims.isBetaUser\` or
  \`visitor.claims.unsigned.plan == "pro"\`.
- A claim that is absent reads as undefined (never an error); \`== null\` is true for absent claims.
- \`==\` / \`!=\` compare strictly, except that null and undefined are equal; \`===\` / \`!==\` are fully strict.
- \`<\`, \`<=\`, \`>\`, \`>=\` compare two numbers or two strings; any other pair is false.
- The condition holds when its value is truthy. An empty (or blank) condition means "always shown".
- Anything else is refused with a 400 naming the position (counted from 0): function calls, \`this\`,
  arrays, assignments, arithmetic, the ternary \`?:\`, several expressions (\`a; b\`, \`a, b\`), other names.
- A stored condition that cannot be parsed hides its content (fail closed).`;

const COMPARISONS = new Set(['==', '!=', '===', '!==', '<', '<=', '>', '>=']);
const LOGICAL = new Set(['&&', '||']);

type Node = jsep.Expression;
/** A checked condition's tree (jsep's AST). */
export type ConditionNode = Node;

// ---------------------------------------------------------------------------------------------
// Positions
//
// jsep nodes carry no source positions, so two parse hooks record where each token starts and ends.
// The hooks are global to the jsep module: they only act while `tracking` is set, that is during a
// synchronous `parseTracked` call of this file, and leave every other use of jsep untouched.

interface Positions {
  stack: number[];
  start: Map<Node, number>;
  end: Map<Node, number>;
}

let tracking: Positions | null = null;

jsep.hooks.add(
  'gobble-token',
  function (env) {
    if (!tracking) return;
    tracking.stack.push(this.index);
    // jsep returns number literals without running 'after-token'; reading them here (as jsep itself
    // would) keeps the start/end stack balanced.
    const code = this.code;
    if ((code >= 48 && code <= 57) || code === 46) env.node = this.gobbleNumericLiteral();
  },
  true,
);

jsep.hooks.add('after-token', function (env) {
  if (!tracking) return;
  const start = tracking.stack.pop();
  if (!env.node || start === undefined) return;
  // A parenthesized group reaches here a second time: the outer (wider) span wins.
  tracking.start.set(env.node, start);
  tracking.end.set(env.node, this.index);
});

function parseTracked(expression: string): { ast: Node; positions: Positions } {
  const positions: Positions = { stack: [], start: new Map(), end: new Map() };
  tracking = positions;
  try {
    return { ast: jsep(expression), positions };
  } finally {
    tracking = null;
  }
}

// ---------------------------------------------------------------------------------------------
// Parsing and checking

class Refusal {
  constructor(
    readonly reason: string,
    readonly position: number,
  ) {}
}

interface CheckContext {
  expression: string;
  positions: Positions;
}

/**
 * Checks a condition and returns its tree, or null for "no condition" (empty or blank text).
 * Throws a 400 naming `field` and the position (from 0) of the first problem.
 */
export function parseCondition(expression: string, field = 'condition'): ConditionNode | null {
  if (expression.length > CONDITION_MAX_LENGTH) {
    throw badRequest(`Invalid ${field}: must be at most ${CONDITION_MAX_LENGTH} characters`);
  }
  if (expression.trim() === '') return null;
  let parsed: { ast: Node; positions: Positions };
  try {
    parsed = parseTracked(expression);
  } catch (error) {
    throw badRequest(`Invalid ${field}: ${describeSyntaxError(error)}`);
  }
  try {
    check(parsed.ast, 1, 0, { expression, positions: parsed.positions });
  } catch (error) {
    if (error instanceof Refusal) throw badRequest(`Invalid ${field}: ${error.reason} at position ${error.position}`);
    throw error;
  }
  return parsed.ast;
}

/** The condition to store: trimmed, or null when blank (it then always holds). Throws like parseCondition. */
export function normalizeCondition(expression: string | null | undefined, field = 'condition'): string | null {
  if (expression == null) return null;
  return parseCondition(expression, field) ? expression.trim() : null;
}

function describeSyntaxError(error: unknown): string {
  const { index, description } = error as { index?: unknown; description?: unknown };
  if (typeof index !== 'number' || typeof description !== 'string') return 'could not be parsed';
  return `${description.charAt(0).toLowerCase()}${description.slice(1)} at position ${index}`;
}

function check(node: Node, depth: number, inherited: number, ctx: CheckContext): void {
  const at = ctx.positions.start.get(node) ?? inherited;
  if (depth > CONDITION_MAX_DEPTH) throw new Refusal(`is nested too deeply (at most ${CONDITION_MAX_DEPTH} levels)`, at);
  switch (node.type) {
    case 'Literal':
      return;
    case 'Identifier':
      return checkIdentifier(node as jsep.Identifier, at);
    case 'MemberExpression':
      return checkMember(node as jsep.MemberExpression, depth, at, ctx);
    case 'UnaryExpression':
      return checkUnary(node as jsep.UnaryExpression, depth, at, ctx);
    case 'BinaryExpression':
      return checkBinary(node as jsep.BinaryExpression, depth, at, ctx);
    default:
      throw refusedKind(node, at, ctx);
  }
}

function checkIdentifier(node: jsep.Identifier, at: number): void {
  if (node.name !== 'visitor') {
    throw new Refusal(`unknown name "${node.name}" (only visitor can be read, e.g. visitor.claims.isBetaUser)`, at);
  }
}

function checkMember(node: jsep.MemberExpression, depth: number, at: number, ctx: CheckContext): void {
  if (node.object.type !== 'Identifier' && node.object.type !== 'MemberExpression') {
    // `this.x`, `[1].x`, `f().x` are refused for what they are; `"abc".length` or `(a == b).x` here.
    check(node.object, depth + 1, at, ctx);
    throw new Refusal('properties can only be read from visitor', at);
  }
  const key = node.property as Node;
  if (node.computed && !(key.type === 'Literal' && typeof (key as jsep.Literal).value === 'string')) {
    throw new Refusal('only a quoted name is allowed inside [ ]', ctx.positions.start.get(key) ?? at);
  }
  check(node.object, depth + 1, at, ctx);
}

function checkUnary(node: jsep.UnaryExpression, depth: number, at: number, ctx: CheckContext): void {
  // A minus is only a negative number literal: arithmetic is not part of the language.
  const negativeNumber = node.operator === '-' && node.argument.type === 'Literal' && typeof node.argument.value === 'number';
  if (node.operator !== '!' && !negativeNumber) throw new Refusal(`operator "${node.operator}" is not allowed`, at);
  check(node.argument, depth + 1, at, ctx);
}

function checkBinary(node: jsep.BinaryExpression, depth: number, at: number, ctx: CheckContext): void {
  if (!COMPARISONS.has(node.operator) && !LOGICAL.has(node.operator)) {
    throw new Refusal(`operator "${node.operator}" is not allowed`, after(node.left, at, ctx));
  }
  check(node.left, depth + 1, at, ctx);
  check(node.right, depth + 1, after(node.left, at, ctx), ctx);
}

function refusedKind(node: Node, at: number, ctx: CheckContext): Refusal {
  switch (node.type) {
    case 'CallExpression':
      return new Refusal('function calls are not allowed', at);
    case 'ThisExpression':
      return new Refusal('"this" is not allowed', at);
    case 'ArrayExpression':
      return new Refusal('arrays are not allowed', at);
    case 'ConditionalExpression':
      return new Refusal('the ternary operator "?:" is not allowed', after((node as jsep.ConditionalExpression).test, at, ctx));
    case 'Compound':
      return new Refusal('only one expression is allowed', after((node as jsep.Compound).body[0], at, ctx));
    case 'SequenceExpression':
      return new Refusal('only one expression is allowed', after((node as jsep.SequenceExpression).expressions[0], at, ctx));
    default:
      return new Refusal(`${node.type} is not allowed`, at);
  }
}

/** Where the source continues after `node` (the operator or separator that follows it). */
function after(node: Node | undefined, fallback: number, ctx: CheckContext): number {
  let end = node ? endOf(node, ctx.positions) : undefined;
  if (end === undefined) return fallback;
  while (end < ctx.expression.length && /\s/.test(ctx.expression[end])) end++;
  return end;
}

function endOf(node: Node, positions: Positions): number | undefined {
  // Binary and ternary nodes are not tokens; they end where their last operand ends. Their depth is
  // bounded by the length limit, so this walk is too.
  let current: Node | undefined = node;
  while (current) {
    const end = positions.end.get(current);
    if (end !== undefined) return end;
    if (current.type === 'BinaryExpression') current = (current as jsep.BinaryExpression).right;
    else if (current.type === 'ConditionalExpression') current = (current as jsep.ConditionalExpression).alternate;
    else return undefined;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Evaluation

// Parsed trees by expression; null marks an expression that failed to parse. Least recently used
// entries leave first. Conditions are evaluated on every published read, so parsing once matters.
const cache = new Map<string, Node | null>();

function cachedTree(expression: string): Node | null {
  const hit = cache.get(expression);
  if (hit !== undefined || cache.has(expression)) {
    cache.delete(expression);
    cache.set(expression, hit ?? null);
    return hit ?? null;
  }
  let tree: Node | null;
  try {
    tree = parseCondition(expression);
  } catch {
    tree = null;
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(expression, tree);
  return tree;
}

/**
 * Whether a visitor with these claims sees content guarded by `expression`. A missing or blank
 * condition holds; one that does not parse (stored before a rule changed, or corrupted) does not:
 * hidden is the safe side. Never throws.
 */
export function evaluateCondition(expression: string | null | undefined, claims: Record<string, unknown>): boolean {
  if (expression == null || expression.trim() === '') return true;
  if (expression.length > CONDITION_MAX_LENGTH) return false;
  const tree = cachedTree(expression);
  if (!tree) return false;
  try {
    return Boolean(evaluate(tree, { claims }));
  } catch {
    return false;
  }
}

function evaluate(node: Node, visitor: Record<string, unknown>): unknown {
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'Identifier':
      return visitor; // checked: `visitor` is the only name
    case 'MemberExpression':
      return readMember(node as jsep.MemberExpression, visitor);
    case 'UnaryExpression': {
      const { operator, argument } = node as jsep.UnaryExpression;
      const value = evaluate(argument, visitor);
      return operator === '!' ? !value : -(value as number);
    }
    case 'BinaryExpression':
      return evaluateBinary(node as jsep.BinaryExpression, visitor);
    default:
      return undefined;
  }
}

/** Own properties of objects only: `visitor.claims.constructor` or `__proto__` read nothing inherited. */
function readMember(node: jsep.MemberExpression, visitor: Record<string, unknown>): unknown {
  const object = evaluate(node.object, visitor);
  if (object === null || typeof object !== 'object') return undefined;
  const key = node.computed ? String((node.property as jsep.Literal).value) : (node.property as jsep.Identifier).name;
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}

function evaluateBinary(node: jsep.BinaryExpression, visitor: Record<string, unknown>): unknown {
  const left = evaluate(node.left, visitor);
  if (node.operator === '&&') return left ? evaluate(node.right, visitor) : left;
  if (node.operator === '||') return left ? left : evaluate(node.right, visitor);
  return compare(node.operator, left, evaluate(node.right, visitor));
}

function compare(operator: string, left: unknown, right: unknown): boolean {
  switch (operator) {
    case '===':
      return left === right;
    case '!==':
      return left !== right;
    case '==':
      return looselyEqual(left, right);
    case '!=':
      return !looselyEqual(left, right);
    default:
      return ordered(operator, left, right);
  }
}

/** `===`, except that null and undefined (an absent claim) are equal: no JavaScript type coercion. */
function looselyEqual(left: unknown, right: unknown): boolean {
  return left === right || (left == null && right == null);
}

function ordered(operator: string, left: unknown, right: unknown): boolean {
  const comparable =
    (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string');
  if (!comparable) return false;
  const [a, b] = [left as number | string, right as number | string];
  if (operator === '<') return a < b;
  if (operator === '<=') return a <= b;
  if (operator === '>') return a > b;
  return a >= b;
}
