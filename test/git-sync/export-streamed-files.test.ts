import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { expectStatus, seedOrg } from '../helpers/harness';
import { blobId, createRepository, gitOutput, noise, repositoryUrl, runGitOperation } from '../helpers/git-sync';

/**
 * An export that writes files of the space (uploaded in the app; a first export; a new project directory) holds none of
 * them whole: each blob id is computed as the file passes from R2, and its bytes are read again and deflated into the push
 * as it is sent. Before, every file was read into the session's repository and packed again in memory: an export of
 * wansho-gitbook's 520 files (216 MiB) into a new directory held 1 GB of buffers (the Worker has 128 MB) for 100 s.
 */

const base64 = (bytes: Uint8Array) => {
  let text = '';
  for (let i = 0; i < bytes.byteLength; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
};
const FILE_BYTES = 400_000;
const uploads = [noise(FILE_BYTES, 11), noise(FILE_BYTES, 12), noise(FILE_BYTES + 1, 13)];

describe('export: files of the space', () => {
  it('are streamed into the push, byte for byte, never held whole', { timeout: 240_000 }, async () => {
    const name = 'export-streamed-files';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository(name, { files: { 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n', 'README.md': '# Home\n\nWelcome.\n' } });
    const url = repositoryUrl(name);
    await runGitOperation(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true });

    const cr = await openChangeRequest(space.id, token, 'Uploads');
    await applyChanges(space.id, cr.number, token, [
      {
        operation: 'insert_files',
        files: [
          { ref: 'a', name: 'a.bin', contentType: 'application/octet-stream', base64: base64(uploads[0]) },
          { ref: 'b', name: 'b.bin', contentType: 'application/octet-stream', base64: base64(uploads[1]) },
          { ref: 'c', name: 'c.bin', contentType: 'application/octet-stream', base64: base64(uploads[2]) },
        ],
      },
      { operation: 'insert_page', title: 'Uploads', document: { markdown: '# Uploads\n\n[A](./a)\n\n[B](./b)\n\n[C](./c)\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: Uploads' });

    // Each file in the commit is the uploaded bytes (its blob id computed here), and the repository is sound.
    for (const [i, path] of ['.gitbook/assets/a.bin', '.gitbook/assets/b.bin', '.gitbook/assets/c.bin'].entries()) {
      expect((await gitOutput(name, 'rev-parse', `HEAD:${path}`)).trim()).toBe(await blobId(uploads[i]));
    }
    await gitOutput(name, 'fsck', '--strict', '--no-dangling');
    expect(await gitOutput(name, 'show', 'HEAD:uploads.md')).toContain('(.gitbook/assets/a.bin)');

    // What the session held when it pushed: its repository (the page, the summary, trees, commit) and the pack of those,
    // not the 1.2 MB of files.
    const row = await env.DB.prepare(`select stats from git_sync_operations where space_id = ? and direction = 'export'`).bind(space.id).first<{ stats: string }>();
    const stats = JSON.parse(row!.stats) as { pushHeldBytes?: number; pushStreamedBytes?: number };
    expect(stats.pushStreamedBytes).toBe(3 * FILE_BYTES + 1);
    expect(stats.pushHeldBytes).toBeLessThan(FILE_BYTES / 4);

    // An export after it has nothing to write: the files keep their blobs (no commit).
    const head = (await gitOutput(name, 'rev-parse', 'HEAD')).trim();
    await runGitOperation(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'Nothing' });
    expect((await gitOutput(name, 'rev-parse', 'HEAD')).trim()).toBe(head);
  });
});
