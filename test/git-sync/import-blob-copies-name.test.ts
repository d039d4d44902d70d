import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * One blob at several paths of the assets folder (GitBook's `shot.png`, `shot (1).png`) is one file of the space, whose
 * `git.path` names the last of its paths. Its name came from the first, so a space exported into a new repository wrote
 * it at `shot.png` and the space imported from there named it `shot.png`: the same content read back with other file
 * names (gitprobe16c, a GITBOOK-exported repository's `Diagram 1.0.png` and `Diagram 1.png`, force-exported into an
 * empty repository and imported again).
 */
const PNG = { base64: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' };

const filesOf = async (spaceId: string, token: string) => {
  const files: any[] = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/files?limit=100`, { token }), 200).body.items;
  return files.map((f) => ({ name: f.name, path: f.git?.path })).sort((a, b) => a.name.localeCompare(b.name));
};

describe('Git Sync import: a blob at several paths', () => {
  it('names its file after the path its git.path names, so an export and an import elsewhere keep the name', async () => {
    const name = 'blob-copies-name';
    const { org, token, space } = await importedSpace(name, {
      'README.md': '# Home\n\n![](<.gitbook/assets/shot (1).png>)\n\n![](.gitbook/assets/shot.png)\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
      '.gitbook/assets/shot (1).png': PNG,
      '.gitbook/assets/shot.png': PNG,
    });
    const first = await filesOf(space.id, token);
    expect(first).toEqual([{ name: 'shot.png', path: '.gitbook/assets/shot.png' }]);

    // The space force-exported into a new empty repository, and a new space imported from it: the same file names.
    const copy = `${name}-copy`;
    await control('create', { name: copy, empty: true });
    await runGitOperation(space.id, token, 'export', { ...githubBody(copy), force: true, commitMessage: 'GitBook: Initial export' });
    const other = await createSpace(org.id, token);
    await runGitOperation(other.id, token, 'import', { ...githubBody(copy), force: true });
    expect((await filesOf(other.id, token)).map((f) => f.name)).toEqual(first.map((f) => f.name));
  });
});
