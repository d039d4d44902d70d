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

/**
 * The 415 of a body that is not declared JSON (@hono/zod-openapi's media type check: every operation's body here
 * is JSON). `curl -d` without `-H "Content-Type: application/json"` sends `application/x-www-form-urlencoded`.
 */
export function unsupportedMediaType(contentType: string | undefined): string {
  const type = contentType?.split(';')[0].trim();
  const what = type ? `a body of type ${type.slice(0, 100)}` : 'a body without a Content-Type header';
  return `Unsupported Media Type: this operation takes JSON, and the request has ${what}; send it with "Content-Type: application/json"`;
}

export const MISSING_TABLES =
  'The database has no tables yet: apply the D1 migrations (`npx wrangler d1 migrations apply DB --local` for wrangler dev, `--remote` for a deployment); `npm start` and `npm run dev` apply them';

/** A D1 error (drizzle's wrapper or D1's own) saying a table does not exist. */
function missingTable(err: Error): boolean {
  const cause = (err as { cause?: unknown }).cause;
  const text = `${err.message} ${cause instanceof Error ? cause.message : ''}`;
  return /\bno such table: \w+/.test(text);
}

export function onError(err: Error, c: Context) {
  if (err instanceof ApiError) {
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    return errorResponse(c, err.status, err.message);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    const message =
      status === 400 ? 'Malformed JSON in request body' : status === 415 ? unsupportedMediaType(c.req.header('content-type')) : err.message || 'Request failed';
    return errorResponse(c, status, message);
  }
  if (missingTable(err)) {
    // A database no migration was applied to (a fresh `npx wrangler dev`, a new deployment): say what to run.
    console.error(`[${c.get('requestId') ?? '-'}] ${MISSING_TABLES}`);
    return errorResponse(c, 503, MISSING_TABLES);
  }
  // Unexpected: log with the request id for operators, never leak internals to clients.
  console.error(`[${c.get('requestId') ?? '-'}]`, err);
  return errorResponse(c, 500, 'Internal server error');
}
