import { describe, expect, it } from 'vitest';
import { createSpace, PNG_1x1 } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * An image a push moves to another path (GitBook's upload of a second `shot.png`: the old one becomes `shot (1).png`,
 * the new bytes take `shot.png`) keeps its file's id and is named after its new path, as a fresh import of that commit
 * names it. It kept the old name: the space listed two files named `shot.png`, unlike a fresh import (gitprobe18a,
 * replaying a GitBook-exported repository's history one commit at a time).
 */

const files = async (spaceId: string, token: string): Promise<any[]> => expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/files?limit=1000`, { token }), 200).body.items;
const described = (list: any[]) => list.map((f) => `${f.name}|${f.git?.path}|${f.size}`).sort();

describe('Git Sync import: an asset moved to another path by a push', () => {
  it('is named after its new path, keeping its id', { timeout: 240_000 }, async () => {
    const name = `asset-moved-${crypto.randomUUID().slice(0, 8)}`;
    const first = PNG_1x1;
    const second = btoa(atob(PNG_1x1) + 'newer upload');
    const { token, org, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
      'README.md': '# Home\n\n![Shot](.gitbook/assets/shot.png)\n',
      '.gitbook/assets/shot.png': { base64: first },
    });
    const before = (await files(space.id, token)).find((f) => f.name === 'shot.png');

    await control('commit', {
      name,
      message: 'GITBOOK-2: No subject',
      files: {
        '.gitbook/assets/shot (1).png': { base64: first },
        '.gitbook/assets/shot.png': { base64: second },
        'README.md': '# Home\n\n![Shot](<.gitbook/assets/shot (1).png>)\n\n![Newer](.gitbook/assets/shot.png)\n',
      },
    });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    const after = await files(space.id, token);
    const moved = after.find((f) => f.id === before.id);
    expect(moved?.git?.path).toBe('.gitbook/assets/shot (1).png');
    expect(moved?.name).toBe('shot (1).png');

    // The same commit imported fresh in another space: the same files.
    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    expect(described(after)).toEqual(described(await files(fresh.id, token)));
  });
});
