import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { fileKey } from '../../src/services/content/files';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, gitServer, githubBody, leafEdit, noise, sha256 } from '../helpers/git-sync';

/**
 * A server without protocol v2 (git http-backend asked without `Git-Protocol: version=2`, as an old or bare host serves):
 * it cannot be asked for a blob by id, so before, its import was isomorphic-git's full fetch, the whole pack held, capped
 * at GIT_SYNC_MAX_FULL_FETCH_BYTES (32 MiB): a larger repository failed whatever its documentation's size. Now its pack
 * is read as it comes, once: the commit, the trees, every file under the project directory (at most the cap: the files
 * are what is held, not the pack) and the small Markdown elsewhere kept, the rest let go as it passes.
 */

const base64 = (bytes: Uint8Array) => {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
};

/** Queues the operation and runs it under a full fetch cap of `cap` bytes: getSpaceGitInfo's operation and the row's stats. */
async function runWithCap(spaceId: string, token: string, direction: 'import' | 'export', body: Record<string, unknown>, cap: string) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token, body }), 204);
  const rows = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending' order by created_at, rowid`).bind(spaceId).all<{ id: string }>();
  for (const row of rows.results) await runGitSyncOperation({ ...env, GIT_SYNC_MAX_FULL_FETCH_BYTES: cap } as typeof env, row.id);
  const operation = (await gitInfo(spaceId, token)).body.operation;
  const row = await env.DB.prepare(`select stats from git_sync_operations where space_id = ? order by created_at desc, rowid desc limit 1`).bind(spaceId).first<{ stats: string | null }>();
  return { operation, stats: JSON.parse(row?.stats ?? '{}') as Record<string, any> };
}

const photo = noise(40_000, 7);
// Over pack-stream's INFLATE_AT_ONCE_BELOW (256 KiB): read whole while it passes, as it may be kept.
const diagram = noise(300_000, 8);
const FILES = {
  'README.md': '# The product\n\nIts code, and its documentation under docs/.\n',
  'docs/README.md': '# Home\n\nWelcome.\n',
  'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [One](one.md)\n',
  'docs/one.md': '# One\n\n![A photo](.gitbook/assets/photo.bin)\n\n![A diagram](.gitbook/assets/diagram.bin)\n\nThe first paragraph.\n',
  'docs/.gitbook/assets/photo.bin': { base64: base64(photo) },
  'docs/.gitbook/assets/diagram.bin': { base64: base64(diagram) },
  // Not the documentation's: passed in the stream, never held. The pack is some 2 MB.
  'vendor/big.bin': { base64: base64(noise(1_600_000, 9)) },
  'vendor/small.bin': { base64: base64(noise(100_000, 10)) },
};

describe('a server without protocol v2 (a real git http-backend)', { timeout: 240_000 }, () => {
  it('imports a repository whose pack is over the cap in one request, each blob once, then exports onto it', async () => {
    const name = 'v1-streamed';
    await createRepository(name, { files: FILES, allowFilter: false, v1Only: true });
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    // The cap is under the pack (the full fetch failed) and over the project directory's files (some 340 KB).
    const cap = '500000';
    const body = { ...githubBody(name), repoProjectDirectory: 'docs', force: true };
    const { operation, stats } = await runWithCap(space.id, token, 'import', body, cap);
    expect(operation, JSON.stringify(operation)).toMatchObject({ state: 'success', direction: 'import' });
    // The discovery and one fetch: no blob asked for again.
    expect(stats).toMatchObject({ protocol: 'v1', fetch: 'streamed', requests: 2 });
    expect(stats.packBytes).toBeGreaterThan(1_700_000);
    expect(stats.packBytes).toBeLessThan(2_400_000);
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p) => p.title)).toEqual(['Home', 'One']);
    const files: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body.files;
    for (const [path, bytes] of [['docs/.gitbook/assets/photo.bin', photo], ['docs/.gitbook/assets/diagram.bin', diagram]] as const) {
      expect(files.find((f) => f.git?.path === path)?.size, JSON.stringify(files.map((f) => f.git))).toBe(bytes.byteLength);
      const object = await env.FILES.get(fileKey(await sha256(bytes)));
      expect(await sha256(new Uint8Array(await object!.arrayBuffer())), path).toBe(await sha256(bytes));
    }

    // An edit exported from the same kind of session: one commit on the head, the page alone changed.
    const head = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const one = pages.find((p) => p.title === 'One');
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, one.id, 'The first paragraph.', 'The first paragraph, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const exported = await runWithCap(space.id, token, 'export', { ...githubBody(name), repoProjectDirectory: 'docs', commitMessage: `GITBOOK-${cr.number}: Edit` }, cap);
    expect(exported.operation, JSON.stringify(exported.operation)).toMatchObject({ state: 'success', direction: 'export' });
    const pushed = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(name, 'log', '-1', '--format=%P', pushed)).trim()).toBe(head);
    expect((await gitOutput(name, 'diff', '--numstat', head, pushed)).trim()).toBe('1\t1\tdocs/one.md');
    await gitOutput(name, 'fsck', '--strict', '--no-dangling');
  });

  it('a file under the project directory sent as a delta on a blob let go has the full fetch read the tree instead', async () => {
    const name = 'v1-streamed-delta';
    const lines = Array.from({ length: 400 }, (_, i) => `Line ${i} of the release notes, which the docs copy.`);
    // Two texts of one name, near-identical: git sends one as a delta on the other (the larger, outside docs/, its base).
    await createRepository(name, {
      allowFilter: false,
      v1Only: true,
      files: {
        'docs/README.md': '# Home\n\nWelcome.\n',
        'docs/notes.txt': `${lines.slice(0, 390).join('\n')}\n`,
        'vendor/notes.txt': `${lines.join('\n')}\nAnd more.\n`,
      },
    });
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const { operation, stats } = await runWithCap(space.id, token, 'import', { ...githubBody(name), repoProjectDirectory: 'docs', force: true }, '1000000');
    expect(operation, JSON.stringify(operation)).toMatchObject({ state: 'success', direction: 'import' });
    expect(stats).toMatchObject({ protocol: 'v1', fetch: 'full' });
  });

  it('the full fetch tried instead goes where the old URL of the repository redirects (a 301, as for a renamed repository)', async () => {
    const name = 'v1-streamed-delta-moved';
    const lines = Array.from({ length: 400 }, (_, i) => `Line ${i} of the release notes, which the docs copy.`);
    await createRepository(name, {
      allowFilter: false,
      v1Only: true,
      files: { 'docs/README.md': '# Home\n\nWelcome.\n', 'docs/notes.txt': `${lines.slice(0, 390).join('\n')}\n`, 'vendor/notes.txt': `${lines.join('\n')}\nAnd more.\n` },
    });
    const moved = await fetch(`${gitServer().url}/__control/redirect`, { method: 'POST', body: JSON.stringify({ name: `${name}-old`, to: name, status: 301 }) });
    expect(moved.status).toBe(200);
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const { operation, stats } = await runWithCap(space.id, token, 'import', { ...githubBody(`${name}-old`), repoProjectDirectory: 'docs', force: true }, '1000000');
    expect(operation, JSON.stringify(operation)).toMatchObject({ state: 'success', direction: 'import' });
    expect(stats).toMatchObject({ protocol: 'v1', fetch: 'full' });
  });

  it('documentation over the cap fails, naming the limit and the way out, and the space is unchanged', async () => {
    const name = 'v1-streamed-over';
    await createRepository(name, { files: FILES, allowFilter: false, v1Only: true });
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const revision = expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body.revision;
    const { operation } = await runWithCap(space.id, token, 'import', { ...githubBody(name), repoProjectDirectory: 'docs', force: true }, '200000');
    expect(operation, JSON.stringify(operation)).toMatchObject({ state: 'failure', direction: 'import' });
    expect(operation.error).toContain('the files under the project directory "docs" are over 200000 bytes (GIT_SYNC_MAX_FULL_FETCH_BYTES)');
    // The first file past the limit, named from the repository's root: the diagram (read whole as it passes) ...
    expect(operation.error).toContain('docs/.gitbook/assets/diagram.bin');
    expect(operation.error).toContain('does not speak Git protocol v2');
    expect(operation.error).not.toContain(gitServer().password);
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body.revision).toBe(revision);
    // ... or, under a cap the photo passes, the photo itself (kept as it passes, refused then: the read stops there).
    const other = await createSpace(org.id, token);
    const small = await runWithCap(other.id, token, 'import', { ...githubBody(name), repoProjectDirectory: 'docs', force: true }, '30000');
    expect(small.operation, JSON.stringify(small.operation)).toMatchObject({ state: 'failure' });
    expect(small.operation.error).toContain('over 30000 bytes (GIT_SYNC_MAX_FULL_FETCH_BYTES), docs/.gitbook/assets/photo.bin among them');
  });
});
