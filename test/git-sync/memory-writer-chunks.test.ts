import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import { applyGitImport, IMPORT_DOCUMENT_CHUNK, type GitImportTarget } from '../../src/services/git-sync/apply';
import { MARKDOWN_PARCEL_CHARS } from '../../src/services/git-sync/markdown-parcels';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { createSpace } from '../helpers/content';
import { createRepository, gitInfo, githubBody } from '../helpers/git-sync';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { headOf, pagesImportTarget } from '../helpers/git-import-runs';

/**
 * The SpaceWriter's part of an import holds a bounded number of documents whatever the number of pages: documents
 * (and tree nodes) reach D1 in chunks of IMPORT_DOCUMENT_CHUNK as they are converted, and the batch that writes the
 * revision and moves the head names them by hash, carrying none. Seen through the writer's D1 (every batch recorded):
 * an import of many more pages than a chunk never sends a batch with more than a chunk's documents, and every
 * statement stays under D1's 100 bound parameters. The head move stays atomic: an import that fails after chunks were
 * stored leaves the space's head, its revisions and its pages as they were. And the writer's request carries none of
 * the repository's Markdown: the writer reads it back from the queue consumer a parcel at a time (markdown-parcels).
 */

const PAGES = 3 * IMPORT_DOCUMENT_CHUNK.documents + 5;

interface RecordedStatement {
  sql: string;
  params: number;
  /** Parameters that are bytes (a packed page document's body). */
  blobs: number;
}

/** The D1 binding, recording each batch's statements (their SQL and how many parameters they bind). */
function recordingD1(real: D1Database) {
  const batches: RecordedStatement[][] = [];
  const recorded = new WeakMap<D1PreparedStatement, RecordedStatement>();
  const wrap = (statement: D1PreparedStatement, sql: string): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, property) {
        if (property === 'bind') {
          return (...params: unknown[]) => {
            const bound = wrap(target.bind(...params), sql);
            recorded.set(bound, { sql, params: params.length, blobs: params.filter((p) => p instanceof Uint8Array || p instanceof ArrayBuffer).length });
            return bound;
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const unwrap = new WeakMap<D1PreparedStatement, D1PreparedStatement>();
  const db = new Proxy(real, {
    get(target, property) {
      if (property === 'prepare') {
        return (sql: string) => {
          const real = target.prepare(sql);
          const wrapped = wrap(real, sql);
          unwrap.set(wrapped, real);
          recorded.set(wrapped, { sql, params: 0, blobs: 0 });
          return wrapped;
        };
      }
      if (property === 'batch') {
        return (statements: D1PreparedStatement[]) => {
          batches.push(statements.map((s) => recorded.get(s) ?? { sql: '(unknown)', params: 0, blobs: 0 }));
          return target.batch(statements);
        };
      }
      // A writer's session (db/client openSession) is this same recording binding.
      if (property === 'withSession') return () => db;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db, batches };
}

/** Rows of `documents` a batch inserts: page documents (packed, a blob) and tree nodes (JSON text). */
const documentInserts = (batch: RecordedStatement[]) => batch.filter((s) => /^insert into "documents"/i.test(s.sql)).length;
const pageDocuments = (batch: RecordedStatement[]) => batch.filter((s) => /^insert into "documents"/i.test(s.sql) && s.blobs > 0).length;

function page(n: number): string {
  return [
    '---',
    `description: Page ${n} of a repository with many pages`,
    '---',
    '',
    `# Page ${n}`,
    '',
    `Paragraph of page ${n}, linking to [the next page](_gp${(n % PAGES) + 1}).`,
    '',
    '{% hint style="info" %}',
    `A hint on page ${n}.`,
    '{% endhint %}',
    '',
    '```js',
    `export const page = ${n};`,
    '```',
    '',
  ].join('\n');
}

const importTarget = (spaceId: string, userId: string, head: string, extra: GitImportTarget['changes'] = []) =>
  pagesImportTarget({ spaceId, userId, head, pages: PAGES, markdown: page, commit: 'a'.repeat(40), extra });

const revisionCount = async (spaceId: string) => (await env.DB.prepare('select count(*) as n from revisions where space_id = ?').bind(spaceId).first<{ n: number }>())!.n;

describe('an import writes its documents in bounded chunks', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it(`${PAGES} pages: no D1 batch carries more than ${IMPORT_DOCUMENT_CHUNK.documents} page documents, the head's batch none, every statement under 100 parameters`, async () => {
    const space = await createSpace(org.id, org.owner.token);
    const { db, batches } = recordingD1(env.DB);
    const output = await applyGitImport({ ...env, DB: db }, importTarget(space.id, org.owner.id, await headOf(space.id)));

    const stored = batches.map(pageDocuments);
    expect(Math.max(...stored), JSON.stringify(stored)).toBeLessThanOrEqual(IMPORT_DOCUMENT_CHUNK.documents);
    expect(Math.max(...batches.map(documentInserts))).toBeLessThanOrEqual(IMPORT_DOCUMENT_CHUNK.statements);
    // Every page's document was stored (each page's is different), in more than one batch.
    expect(stored.reduce((n, k) => n + k, 0)).toBeGreaterThanOrEqual(PAGES);
    expect(stored.filter((k) => k > 0).length).toBeGreaterThan(PAGES / IMPORT_DOCUMENT_CHUNK.documents);
    const headBatch = batches.find((batch) => batch.some((s) => /^update "spaces" set "revision_id"/i.test(s.sql)))!;
    expect(documentInserts(headBatch)).toBe(0);
    for (const batch of batches) for (const statement of batch) expect(statement.params, statement.sql).toBeLessThanOrEqual(100);
    // The D1 batches of the import: the chunks and the head's (round trips, not per page).
    expect(batches.length).toBeLessThanOrEqual(Math.ceil(PAGES / IMPORT_DOCUMENT_CHUNK.documents) + 4);

    // What was written reads back: the head moved to the revision, its pages and their documents are there.
    expect(await headOf(space.id)).toBe(output.revision);
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: org.owner.token }), 200).body.pages as Array<{ id: string; title: string }>;
    expect(pages.map((p) => p.title)).toEqual(Array.from({ length: PAGES }, (_, i) => `Page ${i + 1}`));
    const last = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pages[PAGES - 1].id}?format=markdown`, { token: org.owner.token }), 200).body;
    expect(last.markdown).toContain(`A hint on page ${PAGES}.`);
  });

  it('an import that fails after chunks were stored leaves the head, the revisions and the pages as they were', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const before = await headOf(space.id);
    const revisions = await revisionCount(space.id);
    const { db, batches } = recordingD1(env.DB);
    // The last change names a page that does not exist: the batch is refused once every page was converted and stored.
    const failing = importTarget(space.id, org.owner.id, before, [{ operation: 'update_page', page: 'no-such-page', title: 'x' }]);
    await expect(applyGitImport({ ...env, DB: db }, failing)).rejects.toMatchObject({ status: 400 });
    expect(batches.map(pageDocuments).filter((k) => k > 0).length).toBeGreaterThan(1);
    expect(await headOf(space.id)).toBe(before);
    expect(await revisionCount(space.id)).toBe(revisions);
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: org.owner.token }), 200).body.pages as unknown[];
    expect(pages.length).toBeLessThan(PAGES);
  });
});

describe("the SpaceWriter's request carries no Markdown", () => {
  it('an import through the queue consumer sends the writer its changes without Markdown, and the writer reads it in parcels', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    // 60 pages of ~10 KB: over two parcels of Markdown in all.
    const filler = 'A line of documentation that the writer converts, long enough to make the page weigh. '.repeat(120);
    const files: Record<string, string> = { 'README.md': '# Home\n\nThe first page.\n' };
    for (let i = 1; i <= 60; i++) files[`guide/page-${i}.md`] = `# Guide page ${i}\n\n${filler}\n\nSee [the next page](page-${(i % 60) + 1}.md).\n`;
    const markdownChars = Object.values(files).reduce((n, text) => n + text.length, 0);
    expect(markdownChars).toBeGreaterThan(2 * MARKDOWN_PARCEL_CHARS);
    await createRepository('writer-request-markdown', { files });

    // The writer's binding, recording the size of each request (its data: the function the writer reads through is a stub) and each parcel read.
    const requests: number[] = [];
    const parcels: number[] = [];
    const recordingWriter = {
      idFromName: (name: string) => env.SPACE_WRITER.idFromName(name),
      get: () => ({
        applyGitImport: (target: GitImportTarget) => {
          requests.push(JSON.stringify(target).length);
          const pull = target.pullMarkdown;
          const pullMarkdown = pull && (async (from: number) => {
            const parcel = await pull(from);
            parcels.push(parcel.reduce((n, [, markdown]) => n + markdown.length, 0));
            return parcel;
          });
          return spaceWriter(env, space.id).applyGitImport({ ...target, ...(pullMarkdown ? { pullMarkdown } : {}) });
        },
      }),
    };
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token: org.owner.token, body: { ...githubBody('writer-request-markdown'), force: true } }), 204);
    const op = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending'`).bind(space.id).first<{ id: string }>();
    await runGitSyncOperation({ ...env, SPACE_WRITER: recordingWriter } as unknown as typeof env, op!.id);
    const info = (await gitInfo(space.id, org.owner.token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });

    // The request is the plan's structure (pages, paths, ids): a small fraction of the Markdown, which came in parcels.
    expect(requests).toHaveLength(1);
    expect(requests[0]).toBeLessThan(markdownChars / 10);
    expect(parcels.length).toBeGreaterThan(1);
    for (const chars of parcels) expect(chars).toBeLessThanOrEqual(MARKDOWN_PARCEL_CHARS);
    // All of it (its links rewritten to the ids the import gave: a few characters more or less).
    expect(parcels.reduce((n, chars) => n + chars, 0)).toBeGreaterThan(markdownChars * 0.99);

    // What was imported is the repository: every page, its Markdown converted, its links to pages of other parcels resolved.
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: org.owner.token }), 200).body.pages as Array<{ id: string; title: string; pages?: Array<{ id: string; title: string }> }>;
    const all = pages.flatMap((p) => [p, ...(p.pages ?? [])]);
    expect(all.filter((p) => p.title.startsWith('Guide page'))).toHaveLength(60);
    const last = all.find((p) => p.title === 'Guide page 60')!;
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${last.id}?format=markdown`, { token: org.owner.token }), 200).body;
    expect(read.markdown).toContain('A line of documentation that the writer converts');
    expect(read.markdown).toContain('[the next page](');
  }, 180_000);
});
