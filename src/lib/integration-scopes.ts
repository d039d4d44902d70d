/**
 * The scopes of integrations, shared by the public schemas (schemas/integration), route declarations
 * (lib/create-router, middleware/token-access) and what the scopes grant (services/integrations/scopes).
 */

/** What an integration may ask for (GitBook's `IntegrationScope`). */
export const INTEGRATION_SCOPES = [
  'space:content:read',
  'space:content:write',
  'space:metadata:read',
  'space:metadata:write',
  'space:git:sync',
  'page:feedback:read',
  'site:metadata:read',
  'site:views:read',
  'site:script:inject',
  'site:script:cookies',
  'site:visitor:auth',
  'site:visitor:claims',
  'site:adaptive:read',
  'site:adaptive:write',
  'conversations:ingest',
  'openapi:read',
  'openapi:write',
] as const;
export type IntegrationScope = (typeof INTEGRATION_SCOPES)[number];

/**
 * What a route lets integration tokens do, declared beside the route (defineRoute's `tokens`):
 * an installation token needs `scope` (or any installation token when `scope` is 'installation'),
 * and an integration token is admitted only where `integration` is true. Routes without it refuse both.
 */
export interface TokenAccess {
  scope?: IntegrationScope | 'installation';
  integration?: boolean;
}
