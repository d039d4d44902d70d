import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { seedOrg } from '../helpers/harness';
import { createRepository, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Migration 0160 (git_sync_entries.title_heading: whether a page's file began with a heading 1) on a database as
 * the code before it left it: the table without the column, with the rows of an import. The rows keep their paths,
 * blobs and hashes and read as files that had a heading (what the export before it wrote back for every page).
 */
const statementsOf = (prefix: string) => {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix));
  expect(migration, prefix).toBeDefined();
  return migration!.queries;
};

const rowsOf = async (spaceId: string) =>
  (await env.DB.prepare('select path, kind, target_id, oid, hash from git_sync_entries where space_id = ? order by path').bind(spaceId).all()).results;

describe('migration 0160: git_sync_entries.title_heading', () => {
  it('carries the entries of a database made before it over', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('migration-title-heading', { files: { 'README.md': '# Home\n\nWelcome.\n', 'bare.md': 'No heading.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody('migration-title-heading'), force: true });
    const before = await rowsOf(space.id);
    expect(before.length).toBeGreaterThan(1);
    expect((await env.DB.prepare("select title_heading from git_sync_entries where space_id = ? and path = 'bare.md'").bind(space.id).first('title_heading'))).toBe(0);

    // The table as the code before 0160 left it.
    await env.DB.prepare('ALTER TABLE git_sync_entries DROP COLUMN title_heading').run();
    for (const query of statementsOf('0160_')) await env.DB.prepare(query).run();

    expect(await rowsOf(space.id)).toEqual(before);
    const flags = (await env.DB.prepare('select distinct title_heading as t from git_sync_entries where space_id = ?').bind(space.id).all()).results;
    expect(flags).toEqual([{ t: 1 }]);
  });
});
