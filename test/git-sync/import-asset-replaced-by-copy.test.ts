import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest, PNG_1x1 } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, gitOutput, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * An image whose bytes a push replaces with the bytes another image of the space has (`b.png` becomes a copy of
 * `a.png`) shows the new bytes: the file the page names takes them. The import gave the path to the other file and left
 * this one with its old bytes, unrecorded: the page kept showing the old image, and the next export of an unrelated edit
 * wrote it back as a new file `b (1).png` (gitprobe17a, interleaved pushes and exports on a GitBook-exported repository).
 */

const files = async (spaceId: string, token: string): Promise<any[]> => expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/files?limit=1000`, { token }), 200).body.items;

describe('Git Sync import: an asset replaced with the bytes of another', () => {
  it('takes the new bytes, and the next export writes no file back', { timeout: 240_000 }, async () => {
    const name = `asset-copy-${crypto.randomUUID().slice(0, 8)}`;
    const a = PNG_1x1;
    const b = btoa(atob(PNG_1x1) + 'other bytes');
    const { token, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Other](other.md)\n',
      'README.md': '# Home\n\n![First](.gitbook/assets/a.png)\n\n![Second](.gitbook/assets/b.png)\n',
      'other.md': '# Other\n\nEdit me.\n',
      '.gitbook/assets/a.png': { base64: a },
      '.gitbook/assets/b.png': { base64: b },
    });
    const second = (await files(space.id, token)).find((f) => f.name === 'b.png');
    expect(second.size).toBe(atob(b).length);

    await control('commit', { name, message: 'b.png as a.png', files: { '.gitbook/assets/b.png': { base64: a } } });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    const after = await files(space.id, token);
    // The file the page names (its id) holds the new bytes.
    expect(after.find((f) => f.id === second.id)?.size).toBe(atob(a).length);
    for (const f of after) expect(f.size, `${f.name} ${f.git?.path}`).toBe(atob(a).length);

    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const other = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages.find((p: any) => p.title === 'Other');
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, other.id, 'Edit me.', 'Edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit` });
    expect((await gitOutput(name, 'diff', '--name-status', head0, 'HEAD')).trim()).toBe('M\tother.md');
  });
});
