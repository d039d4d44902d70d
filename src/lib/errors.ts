import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';

/** Thrown by handlers and services; answered as `{ error: { code, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    /** Headers the error response carries (a 429's `Retry-After`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const forbidden = (message = 'You do not have permission to do this') => new ApiError(403, message);
export const badRequest = (message: string) => new ApiError(400, message);

export function errorBody(code: number, message: string) {
  return { error: { code, message } };
}

export function errorResponse(c: Context, status: ContentfulStatusCode, message: string) {
  return c.json(errorBody(status, message), status);
}

/** One readable sentence naming every offending field. */
export function describeZodError(error: ZodError, where: string): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : where;
    return `${path}: ${issue.message}`;
  });
  return `Invalid ${where}: ${parts.join('; ')}`;
}

export function onError(err: Error, c: Context) {
  if (err instanceof ApiError) {
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    return errorResponse(c, err.status, err.message);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    const message = status === 400 ? 'Malformed JSON in request body' : err.message || 'Request failed';
    return errorResponse(c, status, message);
  }
  // Unexpected: log with the request id for operators, never leak internals to clients.
  console.error(`[${c.get('requestId') ?? '-'}]`, err);
  return errorResponse(c, 500, 'Internal server error');
}
