/**
 * Where a spec's objects live in R2 (`FILES`): everything of a spec is under `openapi/<specId>/`, so
 * deleting the spec removes one prefix.
 */
export const specPrefix = (specId: string) => `openapi/${specId}/`;

/** A `text` source as submitted, per processing job (the job that processes it reads it from here). */
export const sourceTextKey = (specId: string, jobId: string) => `${specPrefix(specId)}sources/${jobId}`;

/**
 * A version's filesystem: GitBook's list of files (services/openapi/filesystem), external references rewritten
 * to their names. Versions processed before that hold the bundle `{ [filename]: document }`, converted when read.
 */
export const versionFilesystemKey = (specId: string, versionId: string) => `${specPrefix(specId)}versions/${versionId}/filesystem.json`;

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
