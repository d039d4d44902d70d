import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyGitImport, continueGitImport, type GitImportTarget } from '../../src/services/git-sync/apply';
import { importSlices } from '../../src/services/git-sync/markdown-parcels';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';

/**
 * Migration 0164 (where an import applied in slices stands, and the rows its slices made, kept in D1) on a database as
 * the code before it left it: without its two tables. The test drops them, runs the migration's statements again, and
 * checks that an import in slices then runs to its end, the entries of the space's earlier sync replaced by its own.
 */
const statementsOf = (prefix: string) => {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix));
  expect(migration, prefix).toBeDefined();
  return migration!.queries;
};

const tableNames = async () =>
  ((await env.DB.prepare("select name from sqlite_master where type = 'table' and name like 'git_sync_import_%' order by name").all<{ name: string }>()).results ?? []).map((r) => r.name);

describe('migration 0164: git_sync_import_progress and git_sync_import_rows', () => {
  it('carries a database made before it over', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    // What an earlier sync left.
    await env.DB.prepare(`insert into git_sync_entries (space_id, path, kind, target_id, oid) values (?, 'old.md', 'page', 'gone', ?)`).bind(space.id, '1'.repeat(40)).run();

    await env.DB.batch([env.DB.prepare('DROP TABLE IF EXISTS git_sync_import_rows'), env.DB.prepare('DROP TABLE IF EXISTS git_sync_import_progress')]);
    expect(await tableNames()).toEqual([]);
    for (const query of statementsOf('0164_')) await env.DB.prepare(query).run();
    expect(await tableNames()).toEqual(['git_sync_import_progress', 'git_sync_import_rows']);

    const head = (await env.DB.prepare('select revision_id as id from spaces where id = ?').bind(space.id).first<{ id: string }>())!.id;
    const refs = ['_m1', '_m2', '_m3'];
    const target: GitImportTarget = {
      spaceId: space.id,
      userId: org.owner.id,
      operationId: `op-migration-0164-${space.id}`,
      expectedHead: head,
      standalone: false,
      changes: refs.map((ref, i) => ({ operation: 'insert_page' as const, ref, at: i, title: `Page ${i + 1}`, slug: `page-${i + 1}`, document: { markdown: `# Page ${i + 1}\n` } })),
      pages: refs.map((ref, i) => ({ key: `page-${i + 1}.md`, oid: `${i + 2}`.repeat(40), ref })),
      files: [],
      newFiles: [],
      includes: [],
      droppedIncludes: [],
      pathPrefix: '',
      redirects: {},
      git: { oid: 'd'.repeat(40), message: 'Migration', url: null, ref: 'refs/heads/main', createdByGitBook: false },
    };
    const [first, second, last] = importSlices(target, [1, 2, 3]);
    await continueGitImport(env, first);
    await continueGitImport(env, second);
    await applyGitImport(env, last);
    const entries = (await env.DB.prepare(`select path from git_sync_entries where space_id = ? order by path`).bind(space.id).all<{ path: string }>()).results.map((r) => r.path);
    expect(entries).toEqual(['page-1.md', 'page-2.md', 'page-3.md']);
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: org.owner.token }), 200).body.pages as Array<{ title: string }>;
    expect(pages.map((p) => p.title)).toEqual(expect.arrayContaining(['Page 1', 'Page 2', 'Page 3']));
    expect((await env.DB.prepare('select count(*) as n from git_sync_import_rows where operation_id = ?').bind(target.operationId).first<{ n: number }>())!.n).toBe(0);
  });
});
