import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { z } from 'zod';
import { ApiError } from '../lib/errors';
import { boundedJson, jsonError as json } from './machine-body';
import { siteSearch, type SiteSearchHit } from './search';
import { parseSegments, siteStructure, type SiteSpaceNode, type SiteStructureView } from './structure';
import { serveView, type SiteRequest } from './views';

/**
 * The MCP server of a published site, at `<site URL>/~gitbook/mcp` (GitBook's address): Streamable HTTP,
 * stateless (a server and a transport per request, JSON answers, no session), built with the official MCP
 * TypeScript SDK (its web-standard transport runs in workerd; tool arguments are checked with
 * @cfworker/json-schema, as workerd refuses the code generation of the SDK's default validator).
 *
 * Its tools are GitBook's: `searchDocumentation` (the site's own search: src/site/search.ts) and `getPage` (a page's
 * Markdown, exactly the site's `.md` view: src/site/views.ts). Both read as the visitor the request stands for
 * (routes.ts decided the access: share key or visitor token as for the HTML site), so hidden and condition-gated
 * pages are what the site shows that visitor. GitBook's third tool, `askQuestion`, is not offered: it answers with
 * a language model, which this deployment does not run, and a tool that pretends to answer is worse than none.
 */

/** Largest JSON-RPC body read (a tool call is a few hundred bytes). */
export const MAX_MCP_BODY_BYTES = 64 * 1024;
const SERVER_VERSION = '1.0.0';
const MAX_QUERY = 512;
const MAX_URL = 2048;

/** What a tool answers: text, or a tool error the model can read (MCP's `isError`), never a protocol failure. */
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const toolError = (value: string) => ({ ...text(value), isError: true });

class PageUrls {
  constructor(
    private readonly origin: string,
    private readonly base: string,
  ) {}

  page(node: SiteSpaceNode, path: string): string {
    const encoded = path.split('/').filter(Boolean).map(encodeURIComponent).join('/');
    return `${this.origin}${this.base}/${[node.path, encoded].filter(Boolean).join('/')}`;
  }
}

function siteSpaceOfSpace(view: SiteStructureView, spaceId: string): SiteSpaceNode | undefined {
  return view.siteSpaces.find((s) => s.space.id === spaceId && s.listed) ?? view.siteSpaces.find((s) => s.space.id === spaceId);
}

/** Search results as Markdown: each page's title and absolute link, then its matching sections' excerpts. */
export function formatSearchResults(query: string, hits: SiteSearchHit[], view: SiteStructureView, urls: PageUrls): string {
  if (hits.length === 0) return `No results for "${query}".`;
  const blocks = hits.map((hit) => {
    const node = siteSpaceOfSpace(view, hit.spaceId)!;
    const url = urls.page(node, hit.path);
    const trail = hit.ancestors.length ? `\nIn: ${hit.ancestors.join(' > ')}` : '';
    const sections = hit.sections.map((s) => `- ${s.title}${s.anchor ? ` (${url}#${encodeURIComponent(s.anchor)})` : ''}: ${s.body}`).join('\n');
    return `## ${hit.title}\nLink: ${url}${trail}\n${sections}`;
  });
  return blocks.join('\n\n');
}

/**
 * The segments of a page of this site from a URL or path given to `getPage`: an absolute URL must be on this
 * site (its origin and base), a path is relative to the site's root or starts with its base. `.md` is dropped.
 */
export function pageSegmentsOf(input: string, origin: string, base: string): string[] | null {
  let path: string;
  if (/^[a-z][a-z0-9+.-]*:/i.test(input)) {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return null;
    }
    if (url.origin !== origin) return null;
    path = url.pathname;
  } else {
    path = input.split(/[?#]/)[0];
    if (!path.startsWith('/')) path = `/${path}`;
    else if (base && !path.startsWith(`${base}/`) && path !== base) path = `${base}${path}`;
  }
  if (base) {
    if (path !== base && !path.startsWith(`${base}/`)) return null;
    path = path.slice(base.length);
  }
  const parsed = parseSegments(path);
  if (parsed.kind !== 'ok') return null;
  const segments = parsed.segments;
  const last = segments.at(-1);
  if (last && last.length > 3 && last.endsWith('.md')) segments[segments.length - 1] = last.slice(0, -3);
  return segments;
}

function buildServer(request: SiteRequest, onToolCall: (tool: string) => void): McpServer {
  const settings = request.settingsFor(null);
  const title = settings.title || request.model.site.title;
  const view = siteStructure(request.model, request.reader);
  const urls = new PageUrls(request.url.origin, request.mount.base);
  const server = new McpServer(
    { name: title, version: SERVER_VERSION },
    {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      instructions: `The documentation of ${title}. Search it with searchDocumentation, then read a page whole with getPage. This server does not answer questions itself (no askQuestion): read the pages.`,
    },
  );

  server.registerTool(
    'searchDocumentation',
    {
      title: `Search ${title}`,
      description: `Search across the documentation of ${title} to find relevant information, code examples, API references, and guides. Use this tool when you need to answer questions about ${title}, find specific documentation, understand how features work, or locate implementation details. The search returns contextual content with titles and direct links to the documentation pages; read a page whole with getPage.`,
      inputSchema: { query: z.string().min(1).max(MAX_QUERY).describe('The words to search for') },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ query }) => {
      onToolCall('searchDocumentation');
      const listed = view.siteSpaces.filter((s) => s.listed);
      try {
        const hits = await siteSearch(request.db, query, listed, request.reader.claims);
        return text(formatSearchResults(query, hits, view, urls));
      } catch (error) {
        if (error instanceof ApiError && error.status === 400) return toolError(error.message);
        throw error;
      }
    },
  );

  server.registerTool(
    'getPage',
    {
      title: 'Get a page',
      description: `Fetch the full content of a page of the documentation of ${title}, as Markdown, by its URL (a link from searchDocumentation, or a path below the site's root such as /getting-started). Use it to read a page found by a search, or a page linked from another.`,
      inputSchema: { url: z.string().min(1).max(MAX_URL).describe("The page's URL on this site, or its path") },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ url }) => {
      onToolCall('getPage');
      const segments = pageSegmentsOf(url, request.url.origin, request.mount.base);
      if (!segments || segments.length === 0) return toolError(`"${url}" is not the URL of a page of this site.`);
      // The site's own `.md` view, at the page's URL (its cache key and its links are the page's, not this endpoint's).
      const pageUrl = new URL(`${request.mount.base}/${segments.map(encodeURIComponent).join('/')}.md`, request.url.origin);
      const response = await serveView({ ...request, url: pageUrl }, 'markdown', segments);
      if (response.status !== 200) return toolError(`No page at "${url}" on this site.`);
      return text(await response.text());
    },
  );
  return server;
}

/**
 * Serves one MCP request of a site the visitor may read (routes.ts checked the access). 404 where the site's
 * customization turns `pageActions.mcp` off; 405 for GET and DELETE (a stateless server opens no stream and
 * keeps no session). `onToolCall` is told each tool called (an `mcp_request` insights event).
 */
export async function serveMcp(request: SiteRequest, onToolCall: (tool: string) => void = () => {}): Promise<Response> {
  if (!request.settingsFor(null).pageActions.mcp) return json(404, 'This site serves no MCP server');
  const raw = request.c.req.raw;
  if (raw.method !== 'POST') return json(405, 'This MCP server is stateless: send JSON-RPC messages with POST', { Allow: 'POST' });
  const body = await boundedJson(raw, MAX_MCP_BODY_BYTES);
  if (body instanceof Response) return body;
  const server = buildServer(request, onToolCall);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(raw, { parsedBody: body });
    const headers = new Headers(response.headers);
    headers.set('Cache-Control', 'no-store');
    headers.set('X-Content-Type-Options', 'nosniff');
    return new Response(await response.text(), { status: response.status, headers });
  } finally {
    await server.close();
  }
}
