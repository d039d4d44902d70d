import { env } from 'cloudflare:workers';
import { newId } from '../../src/lib/ids';
import { versionHash } from '../../src/services/openapi/process';
import { toGitbookFilesystem } from '../../src/services/openapi/filesystem';
import { sourceTextKey, versionFilesystemKey, versionListKey, versionRawKey } from '../../src/services/openapi/storage';
import type { SpecOutline } from '../../src/services/openapi/types';

let counter = 0;
export const specSlug = (prefix = 'spec') => `${prefix}-${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export interface SeededSpec {
  id: string;
  slug: string;
  /** The processing job the spec names (null when nothing is outstanding). */
  job: string | null;
}

/**
 * A spec record written straight to D1 (and a text source to R2), for tests of what comes after the create
 * route: processing, versions, computed pages. `job` (default: a fresh id) is the outstanding processing job;
 * `attempts` its claims already counted (`processing_attempts`, default 0).
 */
export async function seedSpec(
  orgId: string,
  options: {
    slug?: string;
    url?: string;
    text?: string;
    visibility?: 'private' | 'public';
    state?: string;
    job?: string | null;
    lastProcessedAt?: string;
    attempts?: number;
  } = {},
): Promise<SeededSpec> {
  const id = newId();
  const slug = options.slug ?? specSlug();
  const job = options.job === undefined ? newId() : options.job;
  const now = new Date().toISOString();
  let textKey: string | null = null;
  if (options.text !== undefined) {
    textKey = sourceTextKey(id, job ?? newId());
    await env.FILES.put(textKey, options.text);
  }
  await env.DB.prepare(
    `insert into openapi_specs (id, org_id, slug, source_url, source_text_key, visibility, processing_state, processing_job, queued_at,
       processing_attempts, last_processed_at, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      id,
      orgId,
      slug,
      options.url ?? null,
      textKey,
      options.visibility ?? 'private',
      options.state ?? 'pending',
      job,
      job ? now : null,
      options.attempts ?? 0,
      options.lastProcessedAt ?? null,
      now,
      now,
    )
    .run();
  return { id, slug, job };
}

/**
 * A processed version written straight to D1 and R2 and made the spec's latest (state `complete`, no job):
 * for reads of versions and computed pages without running the processing.
 */
export async function seedSpecVersion(
  specId: string,
  outline: SpecOutline,
  options: {
    /** The bundle `{ [filename]: document }`, the entry first. */
    filesystem?: Record<string, unknown>;
    raw?: string;
    format?: 'json' | 'yaml';
    url?: string | null;
    createdAt?: string;
    /** Stored as versions processed before GitBook's filesystem list were: the bundle alone. */
    storedAsBundle?: boolean;
  } = {},
): Promise<string> {
  const id = newId();
  const filesystem = options.filesystem ?? { 'openapi.json': { openapi: '3.1.0', info: { title: outline.title, version: outline.version ?? '1.0.0' }, paths: {} } };
  const raw = options.raw ?? JSON.stringify(filesystem[Object.keys(filesystem)[0]]);
  const createdAt = options.createdAt ?? new Date().toISOString();
  const entry = Object.keys(filesystem)[0];
  await env.FILES.put(versionFilesystemKey(specId, id), JSON.stringify(filesystem));
  if (!options.storedAsBundle) await env.FILES.put(versionListKey(specId, id), JSON.stringify(toGitbookFilesystem(filesystem, entry)));
  await env.FILES.put(versionRawKey(specId, id), raw);
  await env.DB.batch([
    env.DB.prepare('insert into openapi_spec_versions (id, spec_id, hash, url, format, entry, outline, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)').bind(
      id,
      specId,
      // The identity the processing would give it (so processing the same source again adds no version).
      await versionHash(JSON.stringify(filesystem), new TextEncoder().encode(raw), options.url ?? null),
      options.url ?? null,
      options.format ?? 'json',
      entry,
      JSON.stringify(outline),
      createdAt,
    ),
    env.DB.prepare(
      `update openapi_specs set last_version_id = ?, processing_state = 'complete', processing_job = null, last_processed_at = ?,
         last_process_error_code = null, last_processed_errors = null, last_processed_error_count = 0 where id = ?`,
    ).bind(id, createdAt, specId),
  ]);
  return id;
}
