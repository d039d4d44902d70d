import { z } from '@hono/zod-openapi';
import { decompressFromEncodedURIComponent } from 'lz-string';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { badRequest, describeZodError } from '../../lib/errors';
import { ContentKitRenderOutputSchema, MAX_RENDER_QUERY_CHARS, RenderIntegrationUISchema, type RenderIntegrationUI } from '../../schemas/integration-render';
import { renderIntegrationUI, type RenderResult } from '../../services/integrations/render';
import { IntegrationParams } from './params';

const tags = ['Integrations'];
const who =
  "The caller must be allowed to configure the installation the context names (the admins of its organization, for a space also that space's admins, the integration's and the installation's own tokens); others read it as not found. " +
  "The integration's script gets a `ui_render` event and its ContentKit output is the answer; an `ExposableError` it throws reaches the caller with its status (4xx) and message, any other failure is a 502.";

const rendered = {
  200: {
    ...jsonResponse(ContentKitRenderOutputSchema, 'ContentKit element to render'),
    headers: { 'Cache-Control': { schema: { type: 'string' as const }, description: '`private, max-age=<n>` when the component set a cache, else `no-store`' } },
  },
};

const renderWithGetRoute = defineRoute('get', '/integrations/{integrationName}/render', () => ({
  operationId: 'renderIntegrationUIWithGet',
  tokens: { integration: true, scope: 'installation' },
  tags,
  summary: "Render an integration UI with GET method: one of its ContentKit components, such as its settings screen",
  description: `${who} \`request\` is the RenderIntegrationUI body of renderIntegrationUIWithPost as JSON, compressed with LZ-string's compressToEncodedURIComponent (at most ${MAX_RENDER_QUERY_CHARS} characters, decompressed too).`,
  request: {
    params: IntegrationParams,
    query: z.object({ request: z.string().min(1).max(MAX_RENDER_QUERY_CHARS).openapi({ description: 'LZ-string compressed JSON request' }) }),
  },
  responses: rendered,
}));

const renderWithPostRoute = defineRoute('post', '/integrations/{integrationName}/render', () => ({
  operationId: 'renderIntegrationUIWithPost',
  tokens: { integration: true, scope: 'installation' },
  tags,
  summary: 'Render an integration UI with POST method: one of its ContentKit components, such as its settings screen',
  description: who,
  request: { params: IntegrationParams, ...jsonBody(RenderIntegrationUISchema) },
  responses: rendered,
}));

/** The GET's `request`: LZ-string decompressed, then RenderIntegrationUI; 400 naming what is wrong. */
function decodeRequest(compressed: string): RenderIntegrationUI {
  let text: string | null = null;
  try {
    text = decompressFromEncodedURIComponent(compressed);
  } catch {
    text = null;
  }
  if (!text) throw badRequest('request: not an LZ-string compressed (compressToEncodedURIComponent) JSON request');
  if (text.length > MAX_RENDER_QUERY_CHARS * 64) throw badRequest(`request: decompresses to more than ${MAX_RENDER_QUERY_CHARS * 64} characters`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest('request: does not decompress to JSON');
  }
  const parsed = RenderIntegrationUISchema.safeParse(json);
  if (!parsed.success) throw badRequest(describeZodError(parsed.error, 'request'));
  return parsed.data;
}

export const integrationRenderRouter = createRouter()
  .openapi(renderWithGetRoute, async (c) => {
    const { integrationName } = c.req.valid('param');
    const input = decodeRequest(c.req.valid('query').request);
    const result = await renderIntegrationUI(c, integrationName, input);
    c.header('Cache-Control', result.cacheControl);
    return c.json(result.output, 200);
  })
  .openapi(renderWithPostRoute, async (c) => {
    const { integrationName } = c.req.valid('param');
    const result = await renderIntegrationUI(c, integrationName, c.req.valid('json'));
    c.header('Cache-Control', result.cacheControl);
    return c.json(result.output, 200);
  });
