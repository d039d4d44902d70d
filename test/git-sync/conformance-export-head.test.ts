import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * A page whose title or a front matter field alone changed (no document edit) was not exported: the export compared
 * documents only, so the file kept its old heading and front matter. The head a file was synced with is recorded
 * (git_sync_entries.head, migration 0161) at import and export, and a change of it writes the file again.
 */

const NAME = 'conformance-export-head';
const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Head](head.md)\n* [Other](other.md)\n* [Third](third.md)\n',
  'head.md': '---\ndescription: The head\n---\n\n# Head\n\nBody.\n',
  'other.md': '# Other\n\nBody.\n',
  'third.md': '# Third\n\nBody.\n',
};

const headsOf = async (spaceId: string) =>
  new Map(
    (await env.DB.prepare("SELECT path, head FROM git_sync_entries WHERE space_id = ? AND kind = 'page'").bind(spaceId).all<{ path: string; head: string | null }>()).results.map(
      (row) => [row.path, row.head],
    ),
  );

describe('a page whose title or fields alone changed', () => {
  it('is exported with its new heading and front matter, and the pages left alone keep the head they were synced with', async () => {
    const { token, space, head, byPath } = await importedSpace(NAME, FILES);
    const imported = await headsOf(space.id);
    expect([...imported.values()].every((value) => typeof value === 'string' && value.length === 22)).toBe(true);

    const cr = await openChangeRequest(space.id, token, 'Fields only');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'update_page', page: byPath('head.md').id, title: 'Renamed head' },
      { operation: 'update_page', page: byPath('other.md').id, description: 'Now described' },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(NAME), commitMessage: `GITBOOK-${cr.number}: Fields only`, timestamp: new Date().toISOString() });

    const changed = (await gitOutput(NAME, 'diff', '--name-status', head, 'refs/heads/main')).trim().split('\n');
    expect(changed).toContain('M\thead.md');
    expect(changed).toContain('M\tother.md');
    expect(changed.filter((line) => !['M\thead.md', 'M\tother.md', 'M\tSUMMARY.md'].includes(line))).toEqual([]);
    expect(await gitOutput(NAME, 'show', 'refs/heads/main:head.md')).toBe('---\ndescription: The head\n---\n\n# Renamed head\n\nBody.\n');
    expect(await gitOutput(NAME, 'show', 'refs/heads/main:other.md')).toBe('---\ndescription: Now described\n---\n\n# Other\n\nBody.\n');

    const exported = await headsOf(space.id);
    expect(exported.get('third.md')).toBe(imported.get('third.md'));
    expect(exported.get('README.md')).toBe(imported.get('README.md'));
    expect(exported.get('head.md')).not.toBe(imported.get('head.md'));
    expect(exported.get('other.md')).not.toBe(imported.get('other.md'));
  });
});
