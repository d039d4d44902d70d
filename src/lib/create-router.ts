import { OpenAPIHono, createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { AppBindings } from '../env';
import { tokenAccess } from '../middleware/token-access';
import type { TokenAccess } from '../services/integrations/scopes';
import { describeZodError, errorBody } from './errors';

export function createRouter() {
  return new OpenAPIHono<AppBindings>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const where = (result as { target?: string }).target ?? 'request';
        const label = where === 'json' ? 'body' : where === 'param' ? 'path' : where;
        return c.json(errorBody(400, describeZodError(result.error, label)), 400);
      }
    },
  });
}

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.number().int().openapi({ example: 404 }),
      message: z.string().openapi({ example: 'Space not found' }),
    }),
  })
  .openapi('Error');

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorSchema } },
});

const STANDARD_ERRORS = {
  400: errorResponse('Invalid request'),
  401: errorResponse('Missing or invalid API token'),
  403: errorResponse('The caller may see the resource but not do this'),
  404: errorResponse('Not found, or not visible to the caller'),
} as const;

/**
 * createRoute with bearer security and the standard error responses every operation can answer.
 * `tokens` says what integration tokens may call it (services/integrations/scopes): the installation
 * scope it needs, documented as the `installationToken` security scheme's scope. Without it, integration
 * and installation tokens are refused (403).
 */
export function defineRoute<P extends string, R extends Omit<RouteConfig, 'path'> & { path: P; tokens?: TokenAccess }>(config: R) {
  const { tokens = {}, ...route } = config;
  const security: Record<string, string[]>[] = [{ bearerAuth: [] }];
  if (tokens.scope) security.push({ installationToken: tokens.scope === 'installation' ? [] : [tokens.scope] });
  if (tokens.integration) security.push({ integrationToken: [] });
  const middleware = route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware];
  return createRoute({
    security,
    ...route,
    middleware: [tokenAccess(tokens), ...middleware],
    responses: { ...STANDARD_ERRORS, ...route.responses },
  } as Omit<R, 'tokens'>);
}

/** A JSON request body that must be present and valid. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { body: { required: true, description, content: { 'application/json': { schema } } } };
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export const noContent = (description: string) => ({ description });
