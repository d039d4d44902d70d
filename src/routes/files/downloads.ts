import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { fileKey, verifyDownload } from '../../services/content/files';
import { orgHostOf } from '../../services/organizations/hostnames';

/**
 * File downloads through signed, expiring URLs (the `downloadURL` of files). No bearer token: the
 * signature is the authorization, and it covers the hash, name, content type and expiry (and, for a link made on
 * an organization's own host, that host: there another organization's file answers 404).
 */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const DownloadParams = z.object({ hash: z.string().regex(/^[0-9a-f]{64}$/), name: z.string().min(1).max(256) });
const DownloadQuery = z.object({
  type: z.string().min(1).max(255),
  expires: z.coerce.number().int().positive(),
  signature: z.string().regex(/^[0-9a-f]{64}$/),
});

export const downloadsRouter = createRouter().get('/files/:hash/:name', async (c) => {
  const params = DownloadParams.safeParse(c.req.param());
  const query = DownloadQuery.safeParse(c.req.query());
  if (!params.success || !query.success) throw new ApiError(403, 'Invalid download link');
  const host = new URL(c.req.url).hostname;
  try {
    await verifyDownload(c.env, { ...params.data, ...query.data }, host);
  } catch (error) {
    // On an organization's host, a link made for anywhere else (another organization's file) is not found there.
    if (error instanceof ApiError && error.status === 403 && orgHostOf(host, c.env)) throw new ApiError(404, 'File not found');
    throw error;
  }
  const object = await c.env.FILES.get(fileKey(params.data.hash));
  if (!object) throw new ApiError(404, 'File not found');
  // Uploaded bytes are served from the API's own origin: only raster images display inline, and
  // nothing served here may run script (HTML or SVG would otherwise execute as this origin).
  const disposition = INLINE_TYPES.has(query.data.type.toLowerCase()) ? 'inline' : 'attachment';
  return new Response(object.body, {
    headers: {
      'Content-Type': query.data.type,
      'Content-Length': String(object.size),
      'Content-Disposition': `${disposition}; filename*=UTF-8''${encodeURIComponent(params.data.name)}`,
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
      ETag: `"${params.data.hash}"`,
    },
  });
});
