import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { blobId, createRepository, gitInfo, gitOutput, gitServer, noise, repositoryUrl, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * A repository whose host answers its old URL with a redirect (a repository renamed on GitHub: 301 for the old name; a
 * host moving repositories: 307 or 308). The redirect is learned from the discovery request (`info/refs?service=...`, a
 * GET the guard follows, every hop checked), and the POSTs go to where it led, as git itself does
 * (`http.followRedirects=initial`): a push whose pack is streamed (files of the space deflated as they are sent) cannot be
 * sent twice, and a 301 turns a POST into a GET. Before, the export failed with nothing pushed. Credentials go only to
 * the URL's own origin.
 */

async function redirect(name: string, to: string | null, status = 307, origin?: string) {
  const res = await fetch(`${gitServer().url}/__control/redirect`, { method: 'POST', body: JSON.stringify({ name, to, status, origin }) });
  expect(res.status, await res.text()).toBe(200);
}

const base64 = (bytes: Uint8Array) => {
  let text = '';
  for (let i = 0; i < bytes.byteLength; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
};

/** A space imported from `name` through `url`, with a file uploaded in the app and merged: its export streams the file. */
async function spaceWithUpload(name: string, url: string, upload: Uint8Array) {
  const org = await seedOrg();
  const token = org.owner.token;
  const space = await createSpace(org.id, token);
  await createRepository(name, { files: { 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n', 'README.md': '# Home\n\nWelcome.\n' } });
  await runGitOperation(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true });
  const cr = await openChangeRequest(space.id, token, 'Upload');
  await applyChanges(space.id, cr.number, token, [
    { operation: 'insert_files', files: [{ ref: 'a', name: 'a.bin', contentType: 'application/octet-stream', base64: base64(upload) }] },
    { operation: 'insert_page', title: 'Upload', document: { markdown: '# Upload\n\n[A](./a)\n' } },
  ]);
  expectStatus(await merge(space.id, cr.number, token), 200);
  return { space, token };
}

describe('export to a repository that redirects', () => {
  for (const status of [307, 308, 301]) {
    it(`pushes a streamed pack to where a ${status} of the old name leads`, { timeout: 180_000 }, async () => {
      const name = `push-redirect-${status}`;
      const upload = noise(300_000, status);
      await redirect(`${name}-old`, name, status);
      const { space, token } = await spaceWithUpload(name, repositoryUrl(`${name}-old`), upload);
      await runGitOperation(space.id, token, 'export', { url: repositoryUrl(`${name}-old`), ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: Upload' });
      expect((await gitOutput(name, 'rev-parse', 'HEAD:.gitbook/assets/a.bin')).trim()).toBe(await blobId(upload));
      expect(await gitOutput(name, 'log', '-1', '--format=%s')).toBe('GITBOOK-1: Upload\n');
      await gitOutput(name, 'fsck', '--strict', '--no-dangling');
      const row = await env.DB.prepare(`select stats from git_sync_operations where space_id = ? and direction = 'export'`).bind(space.id).first<{ stats: string }>();
      expect(JSON.parse(row!.stats).pushStreamedBytes).toBe(upload.byteLength);
    });
  }

  it('sends no credentials to another origin, and pushes nothing there', { timeout: 180_000 }, async () => {
    const name = 'push-redirect-elsewhere';
    const { space, token } = await spaceWithUpload(name, repositoryUrl(name), noise(1000, 1));
    const head = (await gitOutput(name, 'rev-parse', 'HEAD')).trim();
    // The same server under another name is another origin; the guard admits it only as GIT_SYNC_ALLOWED_HOSTS does.
    const other = gitServer().url.replace('127.0.0.1', 'localhost');
    await redirect(name, 'push-redirect-elsewhere-copy', 307, other);
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/export`, { token, body: { url: repositoryUrl(name), ref: 'refs/heads/main', commitMessage: 'Elsewhere' } }), 204);
    await runPending(space.id);
    await redirect(name, null);
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'failure', direction: 'export' });
    expect(info.operation.error).toMatch(/localhost/);
    expect(JSON.stringify(info)).not.toContain('test-installation-token');
    expect((await gitOutput(name, 'rev-parse', 'HEAD')).trim()).toBe(head);
  });
});
