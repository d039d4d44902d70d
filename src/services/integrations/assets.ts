import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { randomBase62, timingSafeEqual } from '../../lib/ids';
import { imageContentType } from '../../lib/images';
import { createSigner } from '../content/files';
import type { IntegrationAssetUrls } from '../../schemas/integration';
import type { IntegrationRow } from './access';

/**
 * What an integration publishes besides its manifest lives in R2, one folder per published version:
 * `integrations/<id>/v<version>/script.js` (its code, read by the runtime, never served), `.../icon`
 * and `.../preview-<i>` (images, served to anyone holding a signed URL). A version's objects are
 * written before the row that points at them, and the previous version's are deleted once a new one
 * is committed (see registry.ts).
 *
 * Icons and previews are served by this Worker at `/integration-assets/<id>/v<version>/<asset>`
 * (routes/integrations/assets.ts) through signed, expiring URLs: the same HMAC key as file downloads
 * (services/content/files createSigner), over a message of its own kind (`integration-asset`), so a file
 * download signature never opens an asset and the other way round.
 */

export const INTEGRATION_ASSET_TTL_SECONDS = 60 * 60;
/** Path prefix of the public asset route (mounted at the origin, outside `/v1`). */
export const INTEGRATION_ASSETS_PATH = '/integration-assets';

/**
 * A publish's folder: `integrations/<id>/v<version>-<nonce>`. The nonce keeps two publishes that raced for
 * the same version apart: the one that lost the version's compare-and-set cannot overwrite the files the
 * winner's row points at.
 */
export const integrationAssetFolder = (integrationId: string, version: number, nonce: string) => `integrations/${integrationId}/v${version}-${nonce}`;
/** What follows `integrations/<id>/` in an asset's key: the version folder as `integrationAssetFolder` names it. */
export const ASSET_VERSION_FOLDER = /^v[1-9][0-9]{0,8}-[A-Za-z0-9]{8}$/;
const folderOf = (key: string) => key.slice(0, key.lastIndexOf('/'));

export interface IntegrationAssetsInput {
  icon?: Uint8Array;
  previews: Uint8Array[];
  script: string;
}

export interface StoredIntegrationAssets {
  iconKey: string | null;
  previewKeys: string[];
  scriptKey: string;
}

/** Writes one version's icon, previews and script (in parallel); returns their keys for the row. */
export async function storeIntegrationAssets(bucket: R2Bucket, integrationId: string, version: number, input: IntegrationAssetsInput): Promise<StoredIntegrationAssets> {
  const folder = integrationAssetFolder(integrationId, version, randomBase62(8));
  const iconKey = input.icon ? `${folder}/icon` : null;
  const previewKeys = input.previews.map((_, i) => `${folder}/preview-${i}`);
  const scriptKey = `${folder}/script.js`;
  const image = (bytes: Uint8Array) => ({ httpMetadata: { contentType: imageContentType(bytes) ?? 'application/octet-stream' } });
  await Promise.all([
    bucket.put(scriptKey, input.script, { httpMetadata: { contentType: 'text/javascript; charset=utf-8' } }),
    ...(iconKey && input.icon ? [bucket.put(iconKey, input.icon, image(input.icon))] : []),
    ...input.previews.map((bytes, i) => bucket.put(previewKeys[i], bytes, image(bytes))),
  ]);
  return { iconKey, previewKeys, scriptKey };
}

/** Every R2 key a row points at (to delete a version that is no longer current). */
export function assetKeysOf(row: Pick<IntegrationRow, 'iconKey' | 'previewKeys' | 'scriptKey'>): string[] {
  return [row.iconKey, ...row.previewKeys, row.scriptKey].filter((key): key is string => !!key);
}

/** Deletes objects, never failing the caller (an orphan object costs storage, not correctness). */
export async function deleteIntegrationAssets(bucket: R2Bucket, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  try {
    await bucket.delete(keys);
  } catch (error) {
    console.error(`integration assets: ${keys.length} objects not deleted`, error);
  }
}

// ---------------------------------------------------------------------------------------------
// Signed URLs

const signedMessage = (key: string, expires: number) => ['integration-asset', key, expires].join('\n');

/** `integrations/<id>/v<n>/<asset>` as served: `/integration-assets/<id>/v<n>/<asset>`. */
const servedPath = (key: string) => `${INTEGRATION_ASSETS_PATH}/${key.slice('integrations/'.length)}`;

/**
 * Signed URLs of a row's icon and previews, valid for an hour (rounded up to the minute, so one asset's URL
 * is stable for a while and clients can cache it). `sign` is shared by every row of a response.
 */
export async function integrationAssetUrls(
  origin: string,
  row: Pick<IntegrationRow, 'iconKey' | 'previewKeys' | 'scriptKey'>,
  sign: (message: string) => Promise<string>,
  now = Date.now(),
): Promise<IntegrationAssetUrls> {
  const expires = Math.ceil((now / 1000 + INTEGRATION_ASSET_TTL_SECONDS) / 60) * 60;
  const url = async (key: string) => {
    const query = new URLSearchParams({ expires: String(expires), signature: await sign(signedMessage(key, expires)) });
    return `${origin}${servedPath(key)}?${query}`;
  };
  const [icon, ...previews] = await Promise.all([row.iconKey ? url(row.iconKey) : undefined, ...row.previewKeys.map(url)]);
  return {
    base: row.scriptKey ? `${origin}${servedPath(folderOf(row.scriptKey))}/` : `${origin}${INTEGRATION_ASSETS_PATH}/`,
    ...(icon ? { icon } : {}),
    previews: previews as string[],
  };
}

/** The signer of asset URLs (one per request). */
export const assetSigner = (env: Env) => createSigner(env);

/** Throws 403 unless the signature is ours for this key and has not expired. */
export async function verifyIntegrationAsset(env: Env, key: string, expires: number, signature: string, now = Date.now()): Promise<void> {
  const expected = await createSigner(env)(signedMessage(key, expires));
  if (!timingSafeEqual(expected, signature)) throw new ApiError(403, 'Invalid asset signature');
  if (expires * 1000 < now) throw new ApiError(403, 'This asset link has expired');
}
