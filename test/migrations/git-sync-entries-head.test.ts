import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { seedOrg } from '../helpers/harness';
import { createRepository, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Migration 0161 (git_sync_entries.head: the signature of a page's title and front matter fields when its file was
 * synced) on a database as the code before it left it: the table without the column, with the rows of an import.
 * The rows keep their paths, blobs, hashes and flags, with no head (unknown: the export compares their documents only).
 */
const statementsOf = (prefix: string) => {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix));
  expect(migration, prefix).toBeDefined();
  return migration!.queries;
};

const rowsOf = async (spaceId: string) =>
  (await env.DB.prepare('select path, kind, target_id, oid, hash, title_heading from git_sync_entries where space_id = ? order by path').bind(spaceId).all()).results;

describe('migration 0161: git_sync_entries.head', () => {
  it('carries the entries of a database made before it over, their heads unknown', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('migration-entries-head', { files: { 'README.md': '# Home\n\nWelcome.\n', 'guide.md': '---\ndescription: A guide\n---\n\n# Guide\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody('migration-entries-head'), force: true });
    const before = await rowsOf(space.id);
    expect(before.length).toBeGreaterThan(1);

    // The table as the code before 0161 left it.
    await env.DB.prepare('ALTER TABLE git_sync_entries DROP COLUMN head').run();
    for (const query of statementsOf('0161_')) await env.DB.prepare(query).run();

    expect(await rowsOf(space.id)).toEqual(before);
    const heads = (await env.DB.prepare('select distinct head from git_sync_entries where space_id = ?').bind(space.id).all()).results;
    expect(heads).toEqual([{ head: null }]);
  });
});
