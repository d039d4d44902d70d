import type { MiddlewareHandler } from 'hono';
import { validator } from 'hono/validator';
import type { AppBindings } from '../env';
import { errorBody } from './errors';

/**
 * Precompiled checks of a request's path parameters and query, for the few hot routes whose first request in a cold
 * isolate must evaluate no zod (lib/lazy-router `served`). Each is the exact twin of the route's zod schema: the same
 * data on success (unknown keys dropped, defaults applied, keys in the schema's order), the same 400 on failure
 * (zod's English messages, describeZodError's wording, query checked before params). test/platform/request-checks.test.ts
 * runs both on the same inputs, hostile ones included, and fails on the first difference.
 */
export type FieldCheck =
  /** z.string().min(min).max(max) */
  | { string: { min: number; max: number } }
  /** z.enum(values).optional() */
  | { oneOf: readonly string[] }
  /** schemas/common booleanQuery(default): 'true' or 'false', absent is the default */
  | { flag: boolean };
export type ObjectCheck = Readonly<Record<string, FieldCheck>>;

interface Issue {
  path: string;
  message: string;
}

const received = (value: unknown) => (value === undefined ? 'undefined' : value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
const oneOf = (values: readonly string[]) => `Invalid option: expected one of ${values.map((v) => `"${v}"`).join('|')}`;

function checkField(key: string, check: FieldCheck, value: unknown, issues: Issue[]): { set: boolean; value?: unknown } {
  if ('string' in check) {
    if (typeof value !== 'string') {
      issues.push({ path: key, message: `Invalid input: expected string, received ${received(value)}` });
      return { set: false };
    }
    const { min, max } = check.string;
    if (value.length < min) issues.push({ path: key, message: `Too small: expected string to have >=${min} characters` });
    if (value.length > max) issues.push({ path: key, message: `Too big: expected string to have <=${max} characters` });
    return { set: true, value };
  }
  if ('oneOf' in check) {
    if (value === undefined) return { set: false };
    if (typeof value !== 'string' || !check.oneOf.includes(value)) issues.push({ path: key, message: oneOf(check.oneOf) });
    return { set: true, value };
  }
  if (value === undefined) return { set: true, value: check.flag };
  if (value !== 'true' && value !== 'false') {
    issues.push({ path: key, message: oneOf(['true', 'false']) });
    return { set: false };
  }
  return { set: true, value: value === 'true' };
}

/** `input` checked against `check`: the data zod's object would answer, or the issues it would raise, in order. */
export function runCheck(check: ObjectCheck, input: Record<string, unknown>): { success: true; data: Record<string, unknown> } | { success: false; issues: Issue[] } {
  const data: Record<string, unknown> = {};
  const issues: Issue[] = [];
  for (const [key, field] of Object.entries(check)) {
    const value = Object.hasOwn(input, key) ? input[key] : undefined;
    const out = checkField(key, field, value, issues);
    if (out.set) data[key] = out.value;
  }
  return issues.length === 0 ? { success: true, data } : { success: false, issues };
}

/** The 400 message createRouter's defaultHook answers for these issues (lib/errors describeZodError). */
export function describeIssues(issues: readonly Issue[], where: string): string {
  return `Invalid ${where}: ${issues
    .slice(0, 5)
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ')}`;
}

/** The middleware that checks `target` as zValidator with createRouter's defaultHook would, and hands on the data. */
export function checkedInput(target: 'query' | 'param', check: ObjectCheck): MiddlewareHandler<AppBindings> {
  const label = target === 'param' ? 'path' : target;
  return validator(target, (value, c) => {
    const result = runCheck(check, value as Record<string, unknown>);
    if (!result.success) return c.json(errorBody(400, describeIssues(result.issues, label)), 400);
    return result.data;
  }) as unknown as MiddlewareHandler<AppBindings>;
}
