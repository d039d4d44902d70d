import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, repositoryUrl, runPending } from '../helpers/git-sync';

/**
 * An export keeps the mode the repository gave its files: pages, SUMMARY.md and files written as mode 100755 (an
 * executable bit set by a script or a Windows checkout) stay 100755, edited or not; only their content is GitBook's.
 * A real repository (one project of maxim-top/im.gitbook, gitprobe11b) had 80 untouched pages flipped to 100644 by
 * an export that edited others.
 */
async function run(spaceId: string, token: string, direction: 'import' | 'export', body: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token, body }), 204);
  await runPending(spaceId);
  return (await gitInfo(spaceId, token)).body;
}

describe('export keeps file modes', () => {
  it('edited and untouched pages and SUMMARY.md of mode 100755 keep it; a new page is 100644; nothing else changes', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('export-modes', {
      files: {
        'SUMMARY.md': { executable: '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Other](other.md)\n' },
        'README.md': { executable: '# Home\n\nWelcome.\n' },
        'guide.md': { executable: '# Guide\n\nFirst step.\n' },
        'other.md': { executable: '# Other\n\nUntouched.\n' },
        'tools/build.sh': { executable: 'echo build\n' },
      },
    });
    const url = repositoryUrl('export-modes');
    expect((await run(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true })).operation.state).toBe('success');
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const guide = pages.find((p: any) => p.path === 'guide');

    const cr = await openChangeRequest(space.id, token, 'Edit and add');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'update_page', page: guide.id, document: { markdown: '# Guide\n\nFirst step, edited.\n' } },
      { operation: 'insert_page', title: 'Added', document: { markdown: '# Added\n\nNew here.\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const exported = await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: `GITBOOK-${cr.number}: Edit and add` });
    expect(exported.operation, JSON.stringify(exported)).toMatchObject({ state: 'success' });

    // `git diff --raw`: ":<old mode> <new mode> <old> <new> <status>\t<path>", one line per changed path.
    const raw = (await gitOutput('export-modes', 'diff', '--raw', created.head, 'refs/heads/main')).trim().split('\n');
    const changes = raw.map((line) => {
      const [meta, path] = line.split('\t');
      const [oldMode, newMode, , , status] = meta.slice(1).split(' ');
      return `${status} ${oldMode}->${newMode} ${path}`;
    });
    expect(changes.sort()).toEqual(['A 000000->100644 added.md', 'M 100755->100755 SUMMARY.md', 'M 100755->100755 guide.md']);
    expect(await gitOutput('export-modes', 'show', 'refs/heads/main:guide.md')).toContain('First step, edited.');
    expect(await gitOutput('export-modes', 'show', 'refs/heads/main:SUMMARY.md')).toContain('(added.md)');
    await gitOutput('export-modes', 'fsck', '--strict');
  });
});
