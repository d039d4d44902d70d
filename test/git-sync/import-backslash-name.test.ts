import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitOutput, repositoryUrl, runGitOperation } from '../helpers/git-sync';

/**
 * A file whose name holds a backslash (git allows one; jhaoheng/gitbook has `string 去除掉 \n\b.md`, backslash and
 * letter) no longer fails the whole import: isomorphic-git's readTree refused the tree holding it (gitprobe15b).
 * Nor the export (issue 40): isomorphic-git's push parsed every tree it sends and refused it, so an export failed whatever
 * it changed. GitBook commits with git, which keeps such a name: so does ours (its own push), byte for byte, whether the
 * space imported the file (an asset: its entry keeps the name, so a re-import keeps the one file) or not (a note).
 */

const ODD = 'notes/trim \\n\\b.md';
const ODD_ASSET = '.gitbook/assets/shot\\1.txt';
const NAME = 'import-backslash-name';

describe('a file name holding a backslash', () => {
  it('imports the repository; an export commits, keeping the name; a re-import keeps one file', { timeout: 180_000 }, async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository(NAME, {
      files: {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
        'README.md': '# Home\n\nWelcome.\n',
        'guide.md': '# Guide\n\nSteps.\n',
        [ODD]: '# Trim\n\nNot in the summary.\n',
        [ODD_ASSET]: 'An asset with a backslash in its name.\n',
      },
    });
    const listed = (await gitOutput(NAME, 'ls-tree', '-r', '-z', '--name-only', 'refs/heads/main')).split('\0');
    expect(listed).toContain(ODD);
    expect(listed).toContain(ODD_ASSET);
    const url = repositoryUrl(NAME);
    await runGitOperation(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p: any) => p.git?.path)).toEqual(['README.md', 'guide.md']);
    const filesOf = async () => (expectStatus(await api('GET', `/v1/spaces/${space.id}/content/files`, { token }), 200).body.items as any[]).map((f) => `${f.id} ${f.git?.path}`);
    const files = await filesOf();
    expect(files).toHaveLength(1);
    expect(files[0]).toContain(ODD_ASSET);

    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages[1].id, document: { markdown: '# Guide\n\nSteps, edited.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const head = (await gitOutput(NAME, 'rev-parse', 'refs/heads/main')).trim();
    await runGitOperation(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: Edit' });
    const exported = (await gitOutput(NAME, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(NAME, 'log', '-1', '--format=%P', exported)).trim()).toBe(head);
    expect((await gitOutput(NAME, 'diff', '--numstat', head, exported)).trim()).toBe('1\t1\tguide.md');
    expect(await gitOutput(NAME, 'show', `${exported}:${ODD}`)).toBe('# Trim\n\nNot in the summary.\n');
    await gitOutput(NAME, 'fsck', '--strict');

    await control('commit', { name: NAME, message: 'A push', files: { 'README.md': '# Home\n\nWelcome, pushed.\n' } });
    await runGitOperation(space.id, token, 'import', { url, ref: 'refs/heads/main' });
    expect(await filesOf()).toEqual(files);
  });
});
