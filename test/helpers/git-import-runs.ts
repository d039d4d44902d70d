import { env } from 'cloudflare:workers';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import type { GitImportTarget } from '../../src/services/git-sync/apply';
import { runGitSyncOperation, type ImportSeams } from '../../src/services/git-sync/operations';
import { githubBody } from './git-sync';
import { api, expectStatus, type TestOrg } from './harness';

/**
 * Runs of a queued Git Sync import as the queue consumer makes them, with the import's slices cut small (the `slice`
 * seam) and each writer call recorded: what the slice tests (import-slices-resume, import-slices-time) share.
 */

export const SLICE_PAGES = 12;
export const SMALL_SLICE = { chars: 64 * 1024, changes: 4 };
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A README, SLICE_PAGES pages linking each the next, and an image the last page shows. */
export function slicedRepository(): Record<string, string | { base64: string }> {
  const files: Record<string, string | { base64: string }> = { 'README.md': '# Home\n\nThe first page.\n', '.gitbook/assets/shot.png': { base64: PNG } };
  for (let i = 1; i <= SLICE_PAGES; i++) {
    const image = i === SLICE_PAGES ? '\n![A shot](../.gitbook/assets/shot.png)\n' : '';
    files[`guide/page-${i}.md`] = `# Guide page ${i}\n\nSee [the next page](page-${(i % SLICE_PAGES) + 1}.md) and resumedword${i}.\n${image}`;
  }
  return files;
}

export interface WriterCall {
  method: string;
  from: number;
  changes: number;
  pages: number;
  files: number;
  /** The request's size, its Markdown aside (pulled a parcel at a time): what the call's request carries. */
  bytes: number;
}

/** The writer's binding, recording each import call's request (`before` runs first); the calls go to the real SpaceWriter. */
export function recordingWriter(spaceId: string, calls: WriterCall[], before?: (method: string, target: GitImportTarget) => Promise<void>) {
  const writer = spaceWriter(env, spaceId);
  const recorded = (method: 'continueGitImport' | 'applyGitImport') => async (target: GitImportTarget) => {
    const { pullMarkdown: _pull, ...request } = target;
    calls.push({ method, from: target.from ?? 0, changes: target.changes.length, pages: target.pages.length, files: target.files.length, bytes: JSON.stringify(request).length });
    await before?.(method, target);
    return writer[method](target);
  };
  return {
    idFromName: (name: string) => env.SPACE_WRITER.idFromName(name),
    get: () => ({ continueGitImport: recorded('continueGitImport'), applyGitImport: recorded('applyGitImport'), reindex: (id: string) => writer.reindex(id) }),
  };
}

/** JOBS standing in for the queue: the messages a run sends (its continuation), kept to be delivered by the test. */
export function capturedQueue(sent: unknown[]) {
  return {
    send: async (body: unknown) => void sent.push(body),
    sendBatch: async (messages: Array<{ body: unknown }>) => void sent.push(...messages.map((m) => m.body)),
  } as unknown as Queue<unknown>;
}

export const headOf = async (spaceId: string) => (await env.DB.prepare('select revision_id as id from spaces where id = ?').bind(spaceId).first<{ id: string }>())!.id;

/** Queues an import of `name` through the API; its operation's id. */
export async function queuedImport(org: TestOrg, spaceId: string, name: string): Promise<string> {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token: org.owner.token, body: { ...githubBody(name), force: true } }), 204);
  const op = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending'`).bind(spaceId).first<{ id: string }>();
  return op!.id;
}

/** One run of the operation (one delivery of its message), writer calls recorded, slices cut small. */
export function runImport(
  spaceId: string,
  operationId: string,
  calls: WriterCall[],
  attempts: number,
  seams: ImportSeams,
  options: { sent?: unknown[]; before?: (method: string, target: GitImportTarget) => Promise<void> } = {},
) {
  const bindings = { ...env, SPACE_WRITER: recordingWriter(spaceId, calls, options.before), ...(options.sent ? { JOBS: capturedQueue(options.sent) } : {}) };
  return runGitSyncOperation(bindings as unknown as typeof env, operationId, attempts, { slice: SMALL_SLICE, ...seams });
}

/** The space's pages, first two levels. */
export async function pagesOf(spaceId: string, token: string) {
  const pages = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages as Array<{ id: string; title: string; pages?: Array<{ id: string; title: string }> }>;
  return pages.flatMap((p) => [p, ...(p.pages ?? [])]);
}

/** What an import stored or made in the space that an unfinished one must not show: its entries, slices' rows and progress. */
export async function importLeftovers(spaceId: string) {
  return (await env.DB.prepare(
    `select (select count(*) from git_sync_entries where space_id = ?1) as entries,
      (select count(*) from git_sync_import_rows r join git_sync_operations o on o.id = r.operation_id where o.space_id = ?1) as rows,
      (select count(*) from git_sync_import_progress where space_id = ?1) as progress`,
  )
    .bind(spaceId)
    .first<{ entries: number; rows: number; progress: number }>())!;
}

/**
 * What the queue consumer sends the writer for a repository of `pages` new pages (refs `<refPrefix><n>`, as import.ts names
 * them: `_gp`), page n at `page-<n>.md` holding `markdown(n)`; `extra` changes after them.
 */
export function pagesImportTarget(options: {
  spaceId: string;
  userId: string;
  head: string;
  pages: number;
  markdown: (n: number) => string;
  refPrefix?: string;
  commit?: string;
  extra?: GitImportTarget['changes'];
}): GitImportTarget {
  const refs = Array.from({ length: options.pages }, (_, i) => `${options.refPrefix ?? '_gp'}${i + 1}`);
  return {
    spaceId: options.spaceId,
    userId: options.userId,
    operationId: `op-${options.spaceId}`,
    expectedHead: options.head,
    standalone: false,
    changes: [
      ...refs.map((ref, i) => ({ operation: 'insert_page' as const, ref, at: i, title: `Page ${i + 1}`, slug: `page-${i + 1}`, document: { markdown: options.markdown(i + 1) } })),
      ...(options.extra ?? []),
    ],
    pages: refs.map((ref, i) => ({ key: `page-${i + 1}.md`, oid: `${i + 1}`.padStart(40, '0'), ref })),
    files: [],
    newFiles: [],
    includes: [],
    droppedIncludes: [],
    pathPrefix: '',
    redirects: {},
    git: { oid: options.commit ?? 'b'.repeat(40), message: 'Many pages', url: null, ref: 'refs/heads/main', createdByGitBook: false },
  };
}
