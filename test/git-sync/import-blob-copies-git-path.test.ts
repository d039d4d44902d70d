import { describe, expect, it } from 'vitest';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * One blob at two paths of the assets folder (GitBook's `shot.png` and `shot (1).png`) is one file of the space; its
 * `git.path` named one path after the setup import and the other after each next import, turn about, whatever the
 * push changed (gitprobe15a's history replay of a GITBOOK-exported repository: ten pages' images read back under the
 * other path at every second commit, unlike a fresh import of the same commit).
 */
const PNG = { base64: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' };

describe('Git Sync import: a blob at two paths', () => {
  it('keeps the path its file names from import to import', async () => {
    const name = 'blob-copies-git-path';
    const { token, space } = await importedSpace(name, {
      'README.md': '# Home\n\n![](.gitbook/assets/shot.png)\n\n![](<.gitbook/assets/shot (1).png>)\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Other](other.md)\n',
      'other.md': '# Other\n\nText.\n',
      '.gitbook/assets/shot.png': PNG,
      '.gitbook/assets/shot (1).png': PNG,
    });
    const gitPaths = async () => {
      const files: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/files?limit=100`, { token }), 200).body.items;
      return files.map((f) => `${f.name}|${f.git?.path}`).sort();
    };
    const first = await gitPaths();
    expect(first).toHaveLength(1);
    for (const text of ['Text, edited once.', 'Text, edited twice.']) {
      await control('commit', { name, message: 'Edit other', files: { 'other.md': `# Other\n\n${text}\n` } });
      await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: false, timestamp: new Date().toISOString() });
      expect(await gitPaths()).toEqual(first);
    }
  });
});
