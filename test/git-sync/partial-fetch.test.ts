import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOB_BATCH, GIT_TRANSFER_LIMITS } from '../../src/services/git-sync/transport';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, gitOutput, gitServer, noise as noiseBytes, repositoryUrl, runPending } from '../helpers/git-sync';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';

/**
 * Bounded memory: protocol v2 against the real git http-backend (`uploadpack.allowFilter`): `ls-refs`, the commit's
 * trees with `filter blob:none`, then only the blobs the import reads, by id, in batches; a re-import fetches only
 * the blobs that changed; a server without v2 is still read (the whole tree, as isomorphic-git fetches it).
 */

async function importRepo(spaceId: string, token: string, body: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token, body }), 204);
  await runPending(spaceId);
  const info = (await gitInfo(spaceId, token)).body;
  expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
  const row = await env.DB.prepare(`select stats from git_sync_operations where space_id = ? order by created_at desc, rowid desc limit 1`).bind(spaceId).first<{ stats: string }>();
  return JSON.parse(row!.stats) as { protocol: string; fetch: string; requests: number; packBytes: number; blobsFetched: number; blobsKept?: number };
}

async function pageIds(spaceId: string, token: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = (pages: any[]) => pages.forEach((p) => (out.set(p.path, p.id), walk(p.pages)));
  walk(expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages);
  return out;
}

/** Bytes that do not compress: a pack that carried them would be about their size. */
function noise(size: number): string {
  let out = '';
  let x = 12345;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out += String.fromCharCode(33 + (x % 90));
  }
  return out;
}

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [One](one.md)\n* [Two](two.md)\n',
  'one.md': '# One\n\nFirst.\n',
  'two.md': '# Two\n\nSecond.\n',
  '.gitbook/assets/tiny.txt': 'tiny\n',
  // Not GitBook's: never fetched.
  'vendor/big.bin': noise(1_500_000),
};

describe('protocol v2 partial fetch (a real git http-backend)', () => {
  it('fetches the trees without blobs, then only the blobs it reads; a re-import fetches only the changed blob and keeps page ids', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('partial', { files: FILES });
    const url = repositoryUrl('partial');
    const first = await importRepo(space.id, token, { url, ref: 'refs/heads/main', force: true });
    expect(first.protocol).toBe('v2');
    // .gitbook.yaml is absent; SUMMARY.md, three pages and one asset: 5 blobs, never the 1.5 MB one.
    expect(first.blobsFetched).toBe(5);
    expect(first.packBytes).toBeLessThan(50_000);
    const before = await pageIds(space.id, token);

    await control('commit', { name: 'partial', files: { 'two.md': '# Two\n\nSecond, edited with git.\n', 'vendor/big.bin': noise(1_400_000) } });
    const second = await importRepo(space.id, token, { url, ref: 'refs/heads/main' });
    expect(second).toMatchObject({ protocol: 'v2', blobsFetched: 2 });
    expect(second.packBytes).toBeLessThan(50_000);
    const after = await pageIds(space.id, token);
    expect([...after]).toEqual([...before]);
    const two = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${after.get('two')}?format=markdown`, { token }), 200).body;
    expect(two.markdown).toContain('edited with git');
  });

  it(`fetches blobs by id in batches of ${BLOB_BATCH}`, async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const files: Record<string, string> = { 'README.md': '# Home\n' };
    for (let i = 0; i < BLOB_BATCH + 20; i++) files[`pages/p${String(i).padStart(3, '0')}.md`] = `# Page ${i}\n\nText ${i}.\n`;
    await createRepository('batches', { files });
    const stats = await importRepo(space.id, token, { url: repositoryUrl('batches'), ref: 'refs/heads/main', force: true });
    expect(stats.blobsFetched).toBe(BLOB_BATCH + 21);
    // info/refs, ls-refs, the trees, then two batches of blobs.
    expect(stats.requests).toBe(5);
  });

  it('a server without protocol v2 is read the way isomorphic-git fetches (the whole tree)', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('v1-only', { files: FILES, v1Only: true });
    const stats = await importRepo(space.id, token, { url: repositoryUrl('v1-only'), ref: 'refs/heads/main', force: true });
    expect(stats.protocol).toBe('v1');
    expect((await pageIds(space.id, token)).size).toBe(3);
  });
  it('a server that refuses filters (uploadpack.allowFilter off) is read as a stream, whatever the full fetch cap; one without protocol v2 over the cap fails, saying why, in getSpaceGitInfo', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('no-filter', { files: FILES, allowFilter: false });
    // Under a cap smaller than its pack: the pack is read as it comes (the trees kept, the blobs let go), not held.
    const stats = await importRepo(space.id, token, { url: repositoryUrl('no-filter'), ref: 'refs/heads/main', force: true });
    expect(stats).toMatchObject({ protocol: 'v2', fetch: 'streamed' });
    // The whole tree came once, the file that is not GitBook's too (its bytes repeat: its pack is about 20 KB).
    expect(stats.packBytes).toBeGreaterThan(15_000);
    // SUMMARY.md, the three pages and the asset came in the stream: nothing by id (each blob crossed once).
    expect(stats).toMatchObject({ blobsKept: 5 });
    expect(stats.blobsFetched ?? 0).toBe(0);
    expect((await pageIds(space.id, token)).size).toBe(3);
    const capped = await createSpace(org.id, token);
    expectStatus(await api('POST', `/v1/spaces/${capped.id}/git/import`, { token, body: { url: repositoryUrl('no-filter'), ref: 'refs/heads/main', force: true } }), 204);
    const streamed = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending'`).bind(capped.id).first<{ id: string }>();
    await runGitSyncOperation({ ...env, GIT_SYNC_MAX_FULL_FETCH_BYTES: '10000' } as typeof env, streamed!.id);
    expect((await gitInfo(capped.id, token)).body.operation).toMatchObject({ state: 'success' });
    expect((await pageIds(capped.id, token)).size).toBe(3);

    // Without protocol v2, under a cap smaller than the files under the project directory (here the whole repository, whose
    // 1.5 MB file is held too: such a server cannot be asked for one later), the import fails with the reason and what to do,
    // and the space is untouched.
    await createRepository('no-filter-v1', { files: FILES, allowFilter: false, v1Only: true });
    const other = await createSpace(org.id, token);
    const head = expectStatus(await api('GET', `/v1/spaces/${other.id}`, { token }), 200).body.revision;
    expectStatus(await api('POST', `/v1/spaces/${other.id}/git/import`, { token, body: { url: repositoryUrl('no-filter-v1'), ref: 'refs/heads/main', force: true } }), 204);
    const pending = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending'`).bind(other.id).first<{ id: string }>();
    await runGitSyncOperation({ ...env, GIT_SYNC_MAX_FULL_FETCH_BYTES: '10000' } as typeof env, pending!.id);
    const info = (await gitInfo(other.id, token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'failure', direction: 'import' });
    expect(info.operation.error).toContain("the files under the repository's root are over 10000 bytes (GIT_SYNC_MAX_FULL_FETCH_BYTES)");
    expect(info.operation.error).toContain('does not speak Git protocol v2');
    expect(info.operation.error).not.toContain(gitServer().password);
    expect(expectStatus(await api('GET', `/v1/spaces/${other.id}`, { token }), 200).body.revision).toBe(head);
  });
});

describe('a fetch that fails midway says why (a real git http-backend)', () => {
  const streamAbove = GIT_TRANSFER_LIMITS.streamAbove;
  afterEach(() => {
    GIT_TRANSFER_LIMITS.streamAbove = streamAbove;
  });

  /** The import of `name` into a new space, run under `runEnv`: the operation's state in getSpaceGitInfo. */
  async function importInto(org: Awaited<ReturnType<typeof seedOrg>>, name: string, runEnv: typeof env = env) {
    const space = await createSpace(org.id, org.owner.token);
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token: org.owner.token, body: { url: repositoryUrl(name), ref: 'refs/heads/main', force: true } }), 204);
    const pending = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending'`).bind(space.id).first<{ id: string }>();
    await runGitSyncOperation(runEnv, pending!.id);
    return (await gitInfo(space.id, org.owner.token)).body.operation;
  }
  const smallFullFetch = { ...env, GIT_SYNC_MAX_FULL_FETCH_BYTES: '2000' } as typeof env;

  it('a streamed blob the server fails: the full fetch tried instead; when that fails too, the error gives both causes, the first one first', async () => {
    // Streamed above 4 KB here (object-info tells sizes): a 40 KB file is streamed, alone.
    GIT_TRANSFER_LIMITS.streamAbove = 4096;
    const org = await seedOrg();
    await createRepository('fail-stream', { files: { 'README.md': '# Home\n', '.gitbook/assets/video.bin': { base64: btoa(String.fromCharCode(...noiseBytes(40_000, 7))) } } });
    const oid = (await gitOutput('fail-stream', 'rev-parse', 'refs/heads/main:.gitbook/assets/video.bin')).trim();

    await control('fail', { name: 'fail-stream', want: oid, status: 502 });
    const failed = await importInto(org, 'fail-stream', smallFullFetch);
    expect(failed, JSON.stringify(failed)).toMatchObject({ state: 'failure' });
    expect(failed.error).toMatch(new RegExp(`^fetching the blob ${oid} alone failed: the repository answered HTTP 502 to git-upload-pack; the full fetch of the tree tried instead failed too: the repository is too large for a full fetch \\(over 2000 bytes`));
    // Not the reason of a server without partial fetches: this one has them.
    expect(failed.error).not.toContain('does not speak Git protocol v2');

    // With room for the full fetch, the fallback reads the file: the import succeeds, the file is there.
    await control('fail', { name: 'fail-stream', want: oid, status: 502 });
    expect(await importInto(org, 'fail-stream')).toMatchObject({ state: 'success' });
  });

  it('a batch of blobs whose answer is cut midway is asked again once; cut twice, the error says the batch failed and how, then the fallback', async () => {
    const org = await seedOrg();
    await createRepository('fail-batch', { files: { 'README.md': '# Home\n', 'one.md': '# One\n', '.gitbook/assets/a.txt': 'a\n' } });
    const oid = (await gitOutput('fail-batch', 'rev-parse', 'refs/heads/main:one.md')).trim();
    // Once: the batch is asked again (a lost connection), and the import goes on partially (no full fetch).
    await control('fail', { name: 'fail-batch', want: oid, cutAfter: 60 });
    const again = await importInto(org, 'fail-batch', { ...env, GIT_SYNC_MAX_FULL_FETCH_BYTES: '100' } as typeof env);
    expect(again, JSON.stringify(again)).toMatchObject({ state: 'success' });

    await control('fail', { name: 'fail-batch', want: oid, cutAfter: 60, times: 2 });
    // A cap under this small repository's whole pack, so that the fallback fails too.
    const failed = await importInto(org, 'fail-batch', { ...env, GIT_SYNC_MAX_FULL_FETCH_BYTES: '100' } as typeof env);
    expect(failed, JSON.stringify(failed)).toMatchObject({ state: 'failure' });
    expect(failed.error).toMatch(/^fetching a batch of \d+ blobs by id failed: .+; the full fetch of the tree tried instead failed too: the repository is too large/);
    expect(failed.error).not.toContain('does not speak Git protocol v2');
  });

  it('a streamed blob cut midway through its bytes fails the import with the cut as its cause', async () => {
    GIT_TRANSFER_LIMITS.streamAbove = 4096;
    const org = await seedOrg();
    await createRepository('cut-stream', { files: { 'README.md': '# Home\n', '.gitbook/assets/video.bin': { base64: btoa(String.fromCharCode(...noiseBytes(40_000, 9))) } } });
    const oid = (await gitOutput('cut-stream', 'rev-parse', 'refs/heads/main:.gitbook/assets/video.bin')).trim();
    await control('fail', { name: 'cut-stream', want: oid, cutAfter: 20_000, times: 2 });
    const failed = await importInto(org, 'cut-stream', smallFullFetch);
    expect(failed, JSON.stringify(failed)).toMatchObject({ state: 'failure' });
    // Whether the cut is seen before the blob's first bytes (then the fallback is tried too) or while they stream.
    expect(failed.error).toMatch(/^(fetching the blob [0-9a-f]{40} alone failed: )?.*(Network connection lost|cut short)/);
    expect(failed.error).not.toContain('does not speak Git protocol v2');
    // Nothing of the cut file stays in R2 (neither the staging object nor a file).
    expect((await env.FILES.list({ prefix: 'git-sync/staging/' })).objects).toHaveLength(0);
  });
});
