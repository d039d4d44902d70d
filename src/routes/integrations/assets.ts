import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { ASSET_VERSION_FOLDER, INTEGRATION_ASSETS_PATH, verifyIntegrationAsset } from '../../services/integrations/assets';

/**
 * Icons and preview images of integrations (`urls.icon` and `previewImages`), through signed, expiring
 * URLs. No bearer token: the signature is the authorization; it covers the object's key and the expiry.
 * Scripts share the folder but are never served (only `icon` and `preview-<i>` match).
 */
const AssetParams = z.object({
  integrationId: z.string().regex(/^[A-Za-z0-9]{1,64}$/),
  version: z.string().regex(ASSET_VERSION_FOLDER),
  asset: z.string().regex(/^(icon|preview-[0-9])$/),
});
const AssetQuery = z.object({
  expires: z.coerce.number().int().positive(),
  signature: z.string().regex(/^[0-9a-f]{64}$/),
});
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export const integrationAssetsRouter = createRouter().get(`${INTEGRATION_ASSETS_PATH}/:integrationId/:version/:asset`, async (c) => {
  const params = AssetParams.safeParse(c.req.param());
  const query = AssetQuery.safeParse(c.req.query());
  if (!params.success || !query.success) throw new ApiError(403, 'Invalid asset link');
  const { integrationId, version, asset } = params.data;
  const key = `integrations/${integrationId}/${version}/${asset}`;
  await verifyIntegrationAsset(c.env, key, query.data.expires, query.data.signature);
  const object = await c.env.FILES.get(key);
  if (!object) throw new ApiError(404, 'Asset not found');
  // Only validated raster images are stored here; anything else is a download, and nothing may run script.
  const type = object.httpMetadata?.contentType ?? 'application/octet-stream';
  return new Response(object.body, {
    headers: {
      'Content-Type': type,
      'Content-Length': String(object.size),
      'Content-Disposition': INLINE_TYPES.has(type) ? 'inline' : 'attachment',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
      ETag: object.httpEtag,
    },
  });
});
