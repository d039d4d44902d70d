import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import packageJson from '../../../package.json';

/**
 * GitBook's `getApiInformation` (`GET /` under the API's base, `/v1/`): the release of the code that answers.
 * As GitBook's, it needs a token (its document's global security: a user, integration or installation token).
 *
 * `version` is package.json's; `build` is when the running Worker version was made, read from the Worker's
 * version metadata binding (`[version_metadata]` in wrangler.toml): deployed, the time `wrangler deploy` (or
 * `wrangler versions upload`) uploaded it; locally (wrangler dev, the tests), when the runtime loaded this build.
 * Without the binding (or a time in it), `build` is the epoch, never a time made up on the spot.
 */
const ApiInformationSchema = z
  .object({
    version: z.string().openapi({ description: 'Release of this API (package.json `version`)', example: '0.1.0' }),
    build: z.string().openapi({ format: 'date-time', description: 'When the running Worker version was uploaded (locally: loaded), in ISO format; the epoch when unknown' }),
  })
  .openapi('ApiInformation');

const getApiInformationRoute = defineRoute('get', '/v1/', () => ({
  operationId: 'getApiInformation',
  tokens: { scope: 'installation', integration: true },
  tags: ['System'],
  summary: 'The release version and build date of this API',
  responses: { 200: jsonResponse(ApiInformationSchema, 'The API information') },
}));

/** The upload time of the running Worker version, or the epoch where the platform gives none. */
export function buildTime(metadata: { timestamp?: string } | undefined): string {
  const time = metadata?.timestamp ? Date.parse(metadata.timestamp) : NaN;
  return new Date(Number.isFinite(time) && time > 0 ? time : 0).toISOString();
}

const information = (metadata: { timestamp?: string } | undefined) => ({ version: packageJson.version, build: buildTime(metadata) });

export const systemRouter = createRouter()
  .openapi(getApiInformationRoute, (c) => c.json(information(c.env.CF_VERSION_METADATA), 200))
  // `/v1`, the API's base as people type it, is this operation's address without its trailing slash.
  .get('/v1', (c) => c.redirect('/v1/', 308));
