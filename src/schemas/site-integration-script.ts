import { z } from '@hono/zod-openapi';

/** GitBook's `SiteIntegrationScript`: a script an integration injects into a site's published pages. */
export const SiteIntegrationScriptSchema = z
  .object({
    script: z.string().url().max(2048).openapi({ description: 'Script URL to load (served by this API; it runs the installation\'s `fetch_published_script` handler).', format: 'uri' }),
    contentSecurityPolicy: z
      .string()
      .optional()
      .openapi({ description: 'Content Security Policy to secure the loading of this script: the fetch directives the integration declares, normalized (keywords and other directives left out).' }),
    cookies: z.boolean().openapi({ description: 'If true, the script will potentially load use cookies and visitors should be aware (`site:script:cookies` approved).' }),
  })
  .openapi('SiteIntegrationScript');
