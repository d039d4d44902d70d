import type { Context } from 'hono';
import type { AppBindings } from '../env';
import { escapeHtml } from '../lib/escape-html';

/**
 * `GET /`: where to go from the deployment's root, for a person in a browser (HTML) or a client (JSON, the
 * default): the API reference, the OpenAPI document, the API's base and what it needs, and where published
 * sites live. It reads nothing (no database, no token): what it says is the same for everyone. Which sites
 * exist is not said here (they belong to organizations); `npm run dev` prints the demo Handbook's address.
 */
export function homeLinks(origin: string) {
  return {
    name: 'Docs Platform API',
    description: 'Open, self-hostable, GitBook-compatible REST API for documentation.',
    links: {
      reference: `${origin}/docs`,
      openapi: `${origin}/openapi.json`,
      api: `${origin}/v1/`,
    },
    authentication: 'Every /v1 request needs `Authorization: Bearer <API token>`, but the few reads of published sites.',
    sites: `Published sites are read at ${origin}/s/<site id>/ (npm run dev prints its demo sites' addresses, the Handbook first).`,
  };
}

const wantsHtml = (accept: string | undefined) => /\btext\/html\b/i.test(accept ?? '');

export function serveHome(c: Context<AppBindings>) {
  const home = homeLinks(new URL(c.req.url).origin);
  c.header('Cache-Control', 'no-cache');
  c.header('Vary', 'Accept');
  if (!wantsHtml(c.req.header('accept'))) return c.json(home, 200);
  const link = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(home.name)}</title></head>
<body>
<h1>${escapeHtml(home.name)}</h1>
<p>${escapeHtml(home.description)}</p>
<ul>
<li>${link(home.links.reference, 'API reference')}: every operation, with its parameters and schemas</li>
<li>${link(home.links.openapi, 'OpenAPI document')} (<code>/openapi.json</code>)</li>
<li>The API: <code>${escapeHtml(home.links.api)}</code>. ${escapeHtml(home.authentication)}</li>
<li>${escapeHtml(home.sites)}</li>
</ul>
</body></html>
`;
  c.header('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  return c.html(html, 200);
}
