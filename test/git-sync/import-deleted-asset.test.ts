import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest, PNG_1x1 } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, gitOutput, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * An asset deleted with git (GitBook's own export deletes the asset a page no longer shows, DigitalRiver's GITBOOK-1313)
 * leaves the space on the push's import. It stayed, unrecorded, and the next export of an unrelated edit wrote it back
 * into the repository (gitprobe15a). A file uploaded in the app and never synced stays and is exported; an asset
 * GitBook renumbered (its blob at a new path) keeps its id.
 */

const files = async (spaceId: string, token: string): Promise<any[]> => expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/files?limit=1000`, { token }), 200).body.items;

describe('Git Sync import: an asset deleted with git', () => {
  it('leaves the space, is not exported back, and an upload made in the app is kept', { timeout: 240_000 }, async () => {
    const name = `deleted-asset-${crypto.randomUUID().slice(0, 8)}`;
    const { token, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Other](other.md)\n',
      'README.md': '# Home\n\n![Old](.gitbook/assets/old.png)\n\n![Kept](.gitbook/assets/image.png)\n',
      'other.md': '# Other\n\nEdit me.\n',
      '.gitbook/assets/old.png': { base64: PNG_1x1 },
      '.gitbook/assets/image.png': { base64: btoa(atob(PNG_1x1) + 'kept') },
    });
    const before = await files(space.id, token);
    const kept = before.find((f) => f.name === 'image.png');
    expect(before.map((f) => f.name).sort()).toEqual(['image.png', 'old.png']);

    // The app uploads a file (never synced) and shows it on the other page.
    const cr0 = await openChangeRequest(space.id, token, 'Upload');
    await applyChanges(space.id, cr0.number, token, [
      { operation: 'insert_files', files: [{ ref: 'u1', name: 'upload.png', contentType: 'image/png', base64: btoa(atob(PNG_1x1) + 'upload') }] },
    ]);
    expectStatus(await merge(space.id, cr0.number, token), 200);

    // A push drops the old image and renumbers the kept one, as GitBook's export does.
    await control('commit', {
      name,
      message: 'GITBOOK-9: Drop the old image',
      files: { 'README.md': '# Home\n\n![Kept](.gitbook/assets/image (1).png)\n', '.gitbook/assets/old.png': null, '.gitbook/assets/image.png': null, '.gitbook/assets/image (1).png': { base64: btoa(atob(PNG_1x1) + 'kept') } },
    });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    const after = await files(space.id, token);
    // The renumbered one is named after its new path, as a fresh import names it.
    expect(after.map((f) => f.name).sort()).toEqual(['image (1).png', 'upload.png']);
    expect(after.find((f) => f.id === kept.id)?.git?.path).toBe('.gitbook/assets/image (1).png');
    const head = expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body.revision;
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${head}/files?limit=1000`, { token }), 200).body.items.length).toBe(2);

    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const other = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages.find((p: any) => p.title === 'Other');
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, other.id, 'Edit me.', 'Edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit` });
    const changed = (await gitOutput(name, 'diff', '--name-status', head0, 'HEAD')).trim().split('\n').sort();
    expect(changed).toEqual(['A\t.gitbook/assets/upload.png', 'M\tother.md']);
  });
});
