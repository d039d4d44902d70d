/**
 * Where a spec's objects live in R2 (`FILES`): everything of a spec is under `openapi/<specId>/`, so
 * deleting the spec removes one prefix.
 */
export const specPrefix = (specId: string) => `openapi/${specId}/`;

/** A `text` source as submitted, per processing job (the job that processes it reads it from here). */
export const sourceTextKey = (specId: string, jobId: string) => `${specPrefix(specId)}sources/${jobId}`;

/** A version's bundle: JSON `{ [filename]: document }`, external references rewritten to those names. */
export const versionFilesystemKey = (specId: string, versionId: string) => `${specPrefix(specId)}versions/${versionId}/filesystem.json`;

/**
 * The same bundle as served: GitBook's list of files, descriptions rendered (services/openapi/filesystem). A
 * key of its own, so that a release that reads only the bundle still reads every version. Versions processed
 * before it have none (their content is then made from the bundle when read).
 */
export const versionListKey = (specId: string, versionId: string) => `${specPrefix(specId)}versions/${versionId}/gitbook-filesystem.json`;

/** A version's entry file, exactly as fetched or submitted. */
export const versionRawKey = (specId: string, versionId: string) => `${specPrefix(specId)}versions/${versionId}/raw`;

/** Removes every object of a spec (its sources and versions), a listing page at a time. */
export async function deleteSpecObjects(bucket: R2Bucket, specId: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listing = await bucket.list({ prefix: specPrefix(specId), cursor });
    if (listing.objects.length > 0) await bucket.delete(listing.objects.map((o) => o.key));
    cursor = listing.truncated ? listing.cursor : undefined;
  } while (cursor);
}
