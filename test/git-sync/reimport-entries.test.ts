import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * What a re-import writes of git_sync_entries (issue 40): the rows of the paths its push changed, added or removed, not
 * every page's and file's row deleted and inserted again unchanged (a 200-page space: 400 rows written for a one-page
 * push). The rows it leaves are those a fresh import of the commit leaves.
 */

interface EntryRow {
  rowid: number;
  path: string;
  kind: string;
  target_id: string;
  oid: string;
  hash: string | null;
  title_heading: number;
  head: string | null;
  place: string | null;
}

const entriesOf = async (spaceId: string) =>
  new Map(
    (await env.DB.prepare('select rowid, path, kind, target_id, oid, hash, title_heading, head, place from git_sync_entries where space_id = ? order by path').bind(spaceId).all<EntryRow>()).results.map((row) => [row.path, row]),
  );

const png = (seed: number) => ({ base64: btoa(String.fromCharCode(0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10, seed, seed + 1, seed + 2)) });

describe('a re-import after a one-page push', () => {
  it('writes the entries of the paths the push changed, added or removed, and leaves those of a fresh import', async () => {
    const name = `reimport-entries-${Date.now().toString(36)}`;
    const files: Record<string, string | { base64: string }> = {
      'README.md': '# Home\n\nWelcome.\n',
      '.gitbook/assets/one.png': png(1),
      '.gitbook/assets/two.png': png(2),
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Alpha](alpha.md)\n* [Beta](beta.md)\n* [Gamma](gamma.md)\n\n## Group\n\n* [Delta](delta.md)\n',
    };
    for (const page of ['alpha', 'beta', 'gamma', 'delta']) files[`${page}.md`] = `# ${page}\n\nThe ${page} page, with ![a picture](.gitbook/assets/one.png).\n`;
    const { org, token, space } = await importedSpace(name, files);
    const before = await entriesOf(space.id);
    // A row of another space above them: a row deleted and inserted again gets a new rowid (not the one it had, which
    // SQLite would give again to rows inserted after the table's last ones were deleted).
    const other = await createSpace(org.id, token);
    await env.DB.prepare(`insert into git_sync_entries (space_id, path, kind, target_id, oid) values (?, 'sentinel.md', 'page', 'none', '')`).bind(other.id).run();
    expect([...before.keys()]).toContain('.gitbook/assets/two.png');

    await control('commit', {
      name,
      message: 'Edit beta, remove gamma, add epsilon',
      files: {
        'beta.md': '# beta\n\nThe beta page, edited by a push.\n',
        'gamma.md': null,
        'epsilon.md': '# epsilon\n\nA new page.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Alpha](alpha.md)\n* [Beta](beta.md)\n* [Epsilon](epsilon.md)\n\n## Group\n\n* [Delta](delta.md)\n',
      },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: false, timestamp: new Date().toISOString() });
    const after = await entriesOf(space.id);

    // Unchanged paths keep their row as it was (same rowid: neither deleted nor inserted again).
    for (const path of ['README.md', 'alpha.md', 'delta.md', 'group:Group', '.gitbook/assets/one.png', '.gitbook/assets/two.png']) {
      expect(after.get(path), path).toEqual(before.get(path));
    }
    expect(after.get('beta.md')!.oid).not.toBe(before.get('beta.md')!.oid);
    expect(after.get('beta.md')!.target_id).toBe(before.get('beta.md')!.target_id);
    expect(after.has('gamma.md')).toBe(false);
    expect(after.has('epsilon.md')).toBe(true);

    // The same rows as a fresh import of the commit, but for the ids and the documents each space gave its pages.
    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    const shape = (rows: Map<string, EntryRow>) => [...rows.values()].map(({ path, kind, oid, title_heading, head, place }) => ({ path, kind, oid, title_heading, head, place: place?.replace(/^[^/]*\//, '') ?? null }));
    expect(shape(after)).toEqual(shape(await entriesOf(fresh.id)));
  }, 120_000);
});
