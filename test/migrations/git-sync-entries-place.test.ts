import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { seedOrg } from '../helpers/harness';
import { createRepository, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Migration 0163 (git_sync_entries.place, a page's parent and slug when its file was synced, and .text, the
 * `.gitbook.yaml` an import read) on a database as the code before it left it: the table without the two columns, with
 * the rows of an import. The rows keep everything they had, with no place (unknown: the export keeps their files where
 * they are) and no text.
 */
const statementsOf = (prefix: string) => {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix));
  expect(migration, prefix).toBeDefined();
  return migration!.queries;
};

const rowsOf = async (spaceId: string) =>
  (await env.DB.prepare('select path, kind, target_id, oid, hash, title_heading, head from git_sync_entries where space_id = ? order by path').bind(spaceId).all()).results;

describe('migration 0163: git_sync_entries.place and .text', () => {
  it('carries the entries of a database made before it over, their places unknown', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('migration-entries-place', { files: { 'README.md': '# Home\n\nWelcome.\n', 'guide.md': '# Guide\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody('migration-entries-place'), force: true });
    const before = await rowsOf(space.id);
    expect(before.length).toBeGreaterThan(1);

    // The table as the code before 0163 left it.
    await env.DB.prepare('ALTER TABLE git_sync_entries DROP COLUMN place').run();
    await env.DB.prepare('ALTER TABLE git_sync_entries DROP COLUMN text').run();
    for (const query of statementsOf('0163_')) await env.DB.prepare(query).run();

    expect(await rowsOf(space.id)).toEqual(before);
    const added = (await env.DB.prepare('select distinct place, text from git_sync_entries where space_id = ?').bind(space.id).all()).results;
    expect(added).toEqual([{ place: null, text: null }]);
  });
});
