import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { d1NodeStore } from '../../src/services/content/tree';
import { applyGitImport, type GitImportTarget } from '../../src/services/git-sync/apply';
import { catchUpIndexes } from '../../src/services/indexing/catch-up';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { pagesImportTarget } from '../helpers/git-import-runs';

/**
 * The SpaceWriter's index catch-up after an import (issue 40: its memory flat whatever the number of pages): a first
 * index reads every page of the new revision, and used to make every batch's rows (the search sections and links of
 * all pages) before running the first, and to leave every node of the page map in the isolate's node cache. Seen
 * through the writer's D1: the index batches run as they are made, between the reads of the next pages' documents, and
 * the nodes the catch-up read are not cached (a later read of the map's root goes to D1).
 */

const PAGES = 130;

/** The D1 binding, recording in order each batch run and each query that reads page documents. */
function recordingD1(real: D1Database) {
  const events: string[] = [];
  const wrap = (statement: D1PreparedStatement, sql: string): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, property) {
        if (property === 'bind') return (...params: unknown[]) => wrap(target.bind(...params), sql);
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (['all', 'raw', 'first', 'run'].includes(String(property))) {
          return (...args: unknown[]) => {
            events.push(/from "?documents"?/i.test(sql) ? `read ${sql.slice(0, 40)}` : 'query');
            return value.apply(target, args);
          };
        }
        return value.bind(target);
      },
    });
  const db = new Proxy(real, {
    get(target, property) {
      if (property === 'prepare') return (sql: string) => wrap(target.prepare(sql), sql);
      if (property === 'batch') {
        return (statements: D1PreparedStatement[]) => {
          events.push(`batch ${statements.length}`);
          return target.batch(statements);
        };
      }
      if (property === 'withSession') return () => db;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db, events };
}

const importTarget = (spaceId: string, userId: string, head: string) =>
  pagesImportTarget({ spaceId, userId, head, pages: PAGES, markdown: (n) => `# Page ${n}\n\nThe text of page ${n}, which the search index reads.\n` });

describe("the index catch-up after an import", () => {
  it(`${PAGES} pages: index batches run as they are made, and the map's nodes are not left in the node cache`, async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const head = (await env.DB.prepare('select revision_id as id from spaces where id = ?').bind(space.id).first<{ id: string }>())!.id;
    const output = await applyGitImport(env, importTarget(space.id, org.owner.id, head));

    const { db, events } = recordingD1(env.DB);
    const caughtUp = await catchUpIndexes(createDb(db), space.id);
    expect(caughtUp).toMatchObject({ revision: output.revision, pagesReindexed: PAGES });
    // Some index batch ran before the last pages' documents were read (every batch made first: all reads, then all batches).
    const firstBatch = events.findIndex((e) => e.startsWith('batch'));
    const lastRead = events.map((e) => e.startsWith('read')).lastIndexOf(true);
    expect(firstBatch, events.join('\n')).toBeGreaterThan(-1);
    expect(firstBatch, events.join('\n')).toBeLessThan(lastRead);
    expect(events.filter((e) => e.startsWith('batch')).length).toBeGreaterThanOrEqual(Math.ceil(PAGES / 50) + 1);

    // The map's root, which the catch-up read, is read from D1 again: it was not cached.
    const root = (await env.DB.prepare('select pages_root as root from revisions where id = ?').bind(output.revision).first<{ root: string }>())!.root;
    const before = events.length;
    expect((await d1NodeStore(createDb(db)).load([root])).has(root)).toBe(true);
    expect(events.slice(before).some((e) => e.startsWith('read'))).toBe(true);

    // What was indexed is searchable.
    const found = expectStatus(await api('GET', `/v1/spaces/${space.id}/search?query=${encodeURIComponent('page 97')}`, { token: org.owner.token }), 200).body;
    expect(JSON.stringify(found)).toContain('Page 97');
  }, 120_000);
});
