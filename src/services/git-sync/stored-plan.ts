import type { GitImportTarget } from './apply';
import { STAGING_PREFIX } from './cleanup';
import { markdownParcels, type PageLinks } from './markdown-parcels';

/**
 * The slices of an import that a run hands over unapplied (issue 40): without them its continuation fetched the
 * repository and planned the whole import again (for a 2,400-page import, the fetch and the reading of every page's
 * blob: about half of a run's CPU). When its budget runs out, a run stores each slice it did not apply, one R2 object
 * per slice: the writer's target for it (its changes, page and file plans: what the writer call receives) and its
 * pages' Markdown, read from the session's blobs as the writer would have pulled it, links resolved. Each object is
 * bounded by a slice (IMPORT_SLICE: 1 MiB of Markdown, 1,000 changes), one held at a time on either side. They live
 * under the staging prefix, which the hourly sweep empties past an operation's limit; an ending deletes them.
 */

type Parcel = Array<[index: number, markdown: string, links?: PageLinks]>;

interface StoredSlice {
  target: Omit<GitImportTarget, 'pullMarkdown'>;
  markdown: Parcel;
  /** Where every slice of the import begins (its `from`), and the plan's warnings (the last slice answers them). */
  starts: number[];
  warnings: string[];
}

const prefixOf = (operationId: string) => `${STAGING_PREFIX}plans/${operationId}/`;
const keyOf = (operationId: string, from: number) => `${prefixOf(operationId)}${from}`;

/** Stores the slices from index `first` on (importSlices' targets, each with its own Markdown source). */
export async function storeSlices(bucket: R2Bucket, slices: GitImportTarget[], first: number, warnings: string[]): Promise<void> {
  const starts = slices.map((s) => s.from ?? 0);
  for (const { pullMarkdown, ...target } of slices.slice(first)) {
    const from = target.from ?? 0;
    const end = from + target.changes.length;
    const markdown: Parcel = [];
    for (let at = from; pullMarkdown && at < end; ) {
      const parcel = await pullMarkdown(at);
      const inside = parcel.filter(([index]) => index < end);
      markdown.push(...inside);
      if (inside.length === 0 || inside.length < parcel.length) break;
      at = inside[inside.length - 1][0] + 1;
    }
    const stored: StoredSlice = { target, markdown, starts, warnings: warnings.slice(0, 5) };
    await bucket.put(keyOf(target.operationId, from), JSON.stringify(stored));
  }
}

/**
 * The stored slices of an operation from `next` on, each read when its call comes, if the one at `next` was stored from
 * the same head and commit the progress says; else null (the run plans again).
 */
export async function storedSlices(
  bucket: R2Bucket,
  operationId: string,
  progress: { next: number; expectedHead: string; commit: string },
): Promise<{ slices: Array<{ from: number; target: () => Promise<GitImportTarget> }>; warnings: string[] } | null> {
  const first = await readSlice(bucket, operationId, progress.next);
  if (!first || first.target.expectedHead !== progress.expectedHead || first.target.git.oid !== progress.commit) return null;
  const slices = first.starts.map((from) => ({
    from,
    target: async () => {
      const stored = from === progress.next ? first : await readSlice(bucket, operationId, from);
      if (!stored) throw new Error(`the stored slice of the import from change ${from} is gone`);
      return withMarkdown(stored);
    },
  }));
  return { slices, warnings: first.warnings };
}

async function readSlice(bucket: R2Bucket, operationId: string, from: number): Promise<StoredSlice | null> {
  const object = await bucket.get(keyOf(operationId, from));
  return object ? ((await object.json()) as StoredSlice) : null;
}

/** The stored slice's target, its Markdown handed to the writer a parcel at a time (markdown-parcels). */
function withMarkdown(stored: StoredSlice): GitImportTarget {
  const byIndex = new Map(stored.markdown.map(([index, markdown, links]) => [index, [markdown, links] as [string, PageLinks?]]));
  const pullMarkdown = markdownParcels(
    stored.markdown.map(([index, markdown]) => ({ index, chars: markdown.length })),
    async (index) => byIndex.get(index)!,
  );
  return { ...stored.target, pullMarkdown };
}

/** Deletes what the operation stored (its ending; the staging sweep deletes what a stopped Worker left). */
export async function discardSlices(bucket: R2Bucket, operationId: string): Promise<void> {
  try {
    for (let cursor: string | undefined; ; ) {
      const listed = await bucket.list({ prefix: prefixOf(operationId), ...(cursor ? { cursor } : {}) });
      if (listed.objects.length > 0) await bucket.delete(listed.objects.map((o) => o.key));
      if (!listed.truncated) return;
      cursor = listed.cursor;
    }
  } catch (error) {
    console.error(`git sync ${operationId}: the stored slices were not all deleted (the staging sweep will)`, error);
  }
}
