import { env } from 'cloudflare:workers';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fileKey } from '../../src/services/content/files';
import { objectHeader, OFS_DELTA, packBytesOf, packHeader, PackReader, REF_DELTA } from '../../src/services/git-sync/blob-stream';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { INFLATE_AT_ONCE_BELOW, treesOfPackStream } from '../../src/services/git-sync/pack-stream';
import { commandRequest } from '../../src/services/git-sync/transport';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, gitOutput, gitServer, githubBody, leafEdit, noise, sha256 } from '../helpers/git-sync';

/**
 * A v2 server without `filter` (a plain git http-backend: `uploadpack.allowFilter` off), issue 40: the commit's whole
 * pack is read as it comes (pack-stream), its commits and trees kept and its blobs let go, then the blobs the import
 * reads are fetched by id as after a partial fetch. Before, such a server got isomorphic-git's full fetch, the whole
 * pack held, capped at GIT_SYNC_MAX_FULL_FETCH_BYTES: a repository over it failed its import.
 */

const base64 = (bytes: Uint8Array) => {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
};

/** A text of `lines` numbered lines, one of them (`changed`) reading otherwise: near-identical texts delta well. */
const text = (lines: number, changed: number, seed: string, words = 'of a text that repeats with small changes') =>
  Array.from({ length: lines }, (_, i) => (i === changed ? `Line ${i} changed in ${seed}.` : `Line ${i} ${words}.`)).join('\n') + '\n';

/** The answer of the tests' git http-backend to a v2 `fetch` of `args`, as a stream. */
async function v2Fetch(name: string, args: string[]): Promise<ReadableStream<Uint8Array>> {
  const server = gitServer();
  const response = await fetch(`${server.url}/repos/${name}.git/git-upload-pack`, {
    method: 'POST',
    headers: { Authorization: `Basic ${btoa(`${server.username}:${server.password}`)}`, 'Git-Protocol': 'version=2', 'Content-Type': 'application/x-git-upload-pack-request' },
    body: commandRequest('fetch', args, ['agent=test']),
  });
  expect(response.status).toBe(200);
  return response.body!;
}

/** The kinds of a pack's objects (1-4, OFS_DELTA, REF_DELTA), counted: read whole here (a small pack). */
async function kindsOf(body: ReadableStream<Uint8Array>): Promise<Map<number, number>> {
  const reader = new PackReader(packBytesOf(body)[Symbol.asyncIterator]());
  const kinds = new Map<number, number>();
  for (let i = await packHeader(reader); i > 0; i--) {
    const { kind, size } = await objectHeader(reader);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    await reader.inflate(size);
  }
  return kinds;
}

/** Objects of the commit's tree by type, as git lists them. */
async function objectsOf(name: string): Promise<{ trees: string[]; blobs: Map<string, string> }> {
  const lines = (await gitOutput(name, 'ls-tree', '-r', '-t', 'refs/heads/main')).trim().split('\n');
  const trees = [(await gitOutput(name, 'rev-parse', 'refs/heads/main^{tree}')).trim()];
  const blobs = new Map<string, string>();
  for (const line of lines) {
    const [meta, path] = line.split('\t');
    const [, type, oid] = meta.split(' ');
    if (type === 'tree') trees.push(oid);
    else blobs.set(path, oid);
  }
  return { trees, blobs };
}

// Near-identical trees (twelve folders of the same forty pages but one), near-identical Markdown, two large texts
// one line apart (the second a delta on the first, which is let go), and a large blob that does not compress.
const DELTA_FILES: Record<string, string | { base64: string }> = {};
for (let d = 0; d < 12; d++) for (let p = 0; p < 40; p++) DELTA_FILES[`docs/d${String(d).padStart(2, '0')}/p${p}.md`] = p === d ? `# Page ${p} of ${d}\n` : `# Page ${p}\n`;
for (let v = 0; v < 8; v++) DELTA_FILES[`notes/v${v}.md`] = text(600, v * 7, `v${v}`);
// Their own words: git deltas a note on a large text that shares its lines (then the note is let go with its base).
DELTA_FILES['big/a.txt'] = text(8_000, 10, 'a', 'in a large text');
DELTA_FILES['big/b.txt'] = text(8_000, 4_000, 'b', 'in a large text');
DELTA_FILES['big/noise.bin'] = { base64: base64(noise(INFLATE_AT_ONCE_BELOW * 2, 91)) };

describe('a pack read as it comes (pack-stream)', () => {
  it('keeps every tree and the commit of a pack with OFS_DELTA and REF_DELTA entries, lets go blobs, a delta on one let go too, and notes their sizes', async () => {
    const name = 'stream-deltas';
    const { head } = await createRepository(name, { files: DELTA_FILES, allowFilter: false });
    const { trees, blobs } = await objectsOf(name);
    for (const [delta, args] of [
      [OFS_DELTA, ['ofs-delta']],
      [REF_DELTA, []],
    ] as const) {
      const wants = [`want ${head}`, 'deepen 1', 'no-progress', ...args, 'done'];
      // The pack git sends has deltas of that kind (trees and blobs).
      expect((await kindsOf(await v2Fetch(name, wants))).get(delta) ?? 0).toBeGreaterThanOrEqual(12);

      const markdown = new Set([...blobs].filter(([path]) => path.startsWith('notes/')).map(([, oid]) => oid));
      const read = await treesOfPackStream(packBytesOf(await v2Fetch(name, wants)), { keepBlob: (oid) => markdown.has(oid) });
      const kept = new Map(read.kept.map((o) => [o.oid, o.type]));
      // Every tree and the commit, each id computed from the bytes kept; the Markdown asked for; no other blob.
      for (const tree of trees) expect(kept.get(tree), tree).toBe('tree');
      expect(kept.get(head)).toBe('commit');
      for (const oid of markdown) expect(kept.get(oid)).toBe('blob');
      expect([...kept.values()].filter((type) => type === 'blob')).toHaveLength(markdown.size);
      expect(read.kept.filter((o) => o.type === 'tree')).toHaveLength(new Set(trees).size);
      // The blobs let go: every other one (a page's blob shared by folders counted once).
      expect(read.blobsLetGo).toBe(new Set(blobs.values()).size - markdown.size);
      // Sizes noted for blobs let go whole, the large ones (read through zlib in pieces) among them.
      expect(read.sizes.get(blobs.get('big/noise.bin')!)).toBe(INFLATE_AT_ONCE_BELOW * 2);
      const sizeOfA = read.sizes.get(blobs.get('big/a.txt')!) ?? read.sizes.get(blobs.get('big/b.txt')!);
      expect(sizeOfA).toBe((DELTA_FILES["big/a.txt"] as string).length);
      const kept0 = read.kept.find((o) => o.oid === trees[0])!;
      expect(kept0.data.byteLength).toBeGreaterThan(0);
    }
  });

  it('a damaged pack is refused, saying so', async () => {
    const name = 'stream-damaged';
    const { head } = await createRepository(name, { files: { 'README.md': '# Home\n', 'big.bin': { base64: base64(noise(INFLATE_AT_ONCE_BELOW + 5000, 3)) } }, allowFilter: false });
    const body = await v2Fetch(name, [`want ${head}`, 'deepen 1', 'no-progress', 'ofs-delta', 'done']);
    const bytes: Uint8Array[] = [];
    for await (const part of packBytesOf(body)) bytes.push(part.slice());
    const pack = new Uint8Array(bytes.reduce((n, b) => n + b.byteLength, 0));
    bytes.reduce((at, b) => (pack.set(b, at), at + b.byteLength), 0);
    pack[pack.byteLength - 3000] ^= 0xff;
    await expect(
      treesOfPackStream(
        (async function* () {
          for (let at = 0; at < pack.byteLength; at += 7000) yield pack.subarray(at, at + 7000);
        })(),
      ),
    ).rejects.toThrow(/checksum|inflate/);
  });
});

async function importWithCap(spaceId: string, token: string, body: Record<string, unknown>, cap: string) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token, body }), 204);
  const rows = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending' order by created_at, rowid`).bind(spaceId).all<{ id: string }>();
  for (const row of rows.results) await runGitSyncOperation({ ...env, GIT_SYNC_MAX_FULL_FETCH_BYTES: cap } as typeof env, row.id);
  const info = (await gitInfo(spaceId, token)).body;
  expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
  const row = await env.DB.prepare(`select stats from git_sync_operations where space_id = ? order by created_at desc, rowid desc limit 1`).bind(spaceId).first<{ stats: string }>();
  return JSON.parse(row!.stats) as Record<string, any>;
}

/** Whether each of `assets` (path -> bytes) is a file of the space of that size whose R2 object holds exactly its bytes. */
async function expectStored(spaceId: string, token: string, assets: Record<string, Uint8Array>): Promise<void> {
  const files: any[] = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content`, { token }), 200).body.files;
  const byPath = new Map(files.map((file) => [file.git?.path, file]));
  for (const [path, bytes] of Object.entries(assets)) {
    expect(byPath.get(path)?.size, path).toBe(bytes.byteLength);
    const object = await env.FILES.get(fileKey(await sha256(bytes)));
    expect(object, path).not.toBeNull();
    expect(await sha256(new Uint8Array(await object!.arrayBuffer()))).toBe(await sha256(bytes));
  }
}

describe('a server without filters imports a repository larger than the full fetch cap (a real git http-backend)', { timeout: 240_000 }, () => {
  it('imports every page and file, a re-import fetches only the changed blobs, an export commits on the head', async () => {
    const name = 'streamed-import';
    const assets: Record<string, Uint8Array> = {};
    for (let i = 0; i < 4; i++) assets[`.gitbook/assets/photo-${i}.bin`] = noise(150_000 + i * 1000, 17 + i);
    await createRepository(name, {
      allowFilter: false,
      files: {
        'README.md': '# Home\n\nWelcome.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [One](one.md)\n* [Two](two.md)\n',
        'one.md': '# One\n\n![A photo](.gitbook/assets/photo-0.bin)\n\nThe first paragraph.\n',
        'two.md': '# Two\n\nSecond.\n',
        ...Object.fromEntries(Object.entries(assets).map(([path, bytes]) => [path, { base64: base64(bytes) }])),
        // Not GitBook's: passed in the stream, never fetched by id.
        'vendor/big.bin': { base64: base64(noise(400_000, 5)) },
      },
    });
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    // A cap far under the repository's pack (some 1 MB): the full fetch it had before failed.
    const cap = '100000';
    const first = await importWithCap(space.id, token, { ...githubBody(name), force: true }, cap);
    // The pages and the photos kept as they passed (keptFilesWhileStreaming): none fetched again by id.
    expect(first).toMatchObject({ protocol: 'v2', fetch: 'streamed', blobsKept: 8 });
    expect(first.blobsFetched ?? 0).toBe(0);
    expect(first.packBytes).toBeGreaterThan(1_000_000);
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p) => p.title)).toEqual(['Home', 'One', 'Two']);
    await expectStored(space.id, token, assets);

    // A re-import after a push of a page and an asset: a thin pack of what changed (the trees of the commit imported
    // were kept, tree-cache.ts): the asset kept as it passed; the page, a delta on its last version (not in the thin pack),
    // by id.
    const changed = noise(160_000, 99);
    await control('commit', { name, files: { 'two.md': '# Two\n\nSecond, edited with git.\n', '.gitbook/assets/photo-3.bin': { base64: base64(changed) } } });
    const second = await importWithCap(space.id, token, { ...githubBody(name), timestamp: new Date().toISOString() }, cap);
    expect(second).toMatchObject({ fetch: 'streamed', treesKept: 'thin', blobsFetched: 1 });
    await expectStored(space.id, token, { ...assets, '.gitbook/assets/photo-3.bin': changed });
    const two = pages.find((p) => p.title === 'Two');
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${two.id}?format=markdown`, { token }), 200).body.markdown).toContain('edited with git');

    // An edit exported: one commit on the remote head, changing the page alone; the repository checks out.
    const remoteHead = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const one = pages.find((p) => p.title === 'One');
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, one.id, 'The first paragraph.', 'The first paragraph, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/export`, { token, body: { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() } }), 204);
    const pending = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending'`).bind(space.id).first<{ id: string }>();
    await runGitSyncOperation({ ...env, GIT_SYNC_MAX_FULL_FETCH_BYTES: cap } as typeof env, pending!.id);
    expect((await gitInfo(space.id, token)).body.operation).toMatchObject({ state: 'success', direction: 'export' });
    const exported = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(name, 'log', '-1', '--format=%P', exported)).trim()).toBe(remoteHead);
    expect((await gitOutput(name, 'diff', '--numstat', remoteHead, exported)).trim()).toBe('1\t1\tone.md');
    expect(await gitOutput(name, 'fsck', '--strict')).not.toMatch(/error|warning/i);
  });
});

describe('a zlib stream inflated as its bytes come (PackReader.inflateStreaming)', () => {
  /** A reader over `parts` in turn: the object's zlib stream, then what follows it in the pack. */
  const readerOf = (parts: Uint8Array[]) =>
    new PackReader(
      (async function* () {
        yield* parts;
      })(),
    );

  it('ends where the stream ends: within a chunk, exactly at a chunk\'s end, or across many chunks; what follows is read next', async () => {
    const raw = new TextEncoder().encode(text(30_000, 5, 'z'));
    const compressed = deflateSync(raw);
    const after = Uint8Array.of(1, 2, 3, 4, 5);
    const splits: Array<[string, Uint8Array[]]> = [
      ['within a chunk', [concat(compressed, after)]],
      ['at a chunk end', [compressed, after]],
      ['across chunks', [...chunks(compressed, 1000), after]],
      ['across chunks, ending within one', [...chunks(concat(compressed, after), 777)]],
    ];
    for (const [what, parts] of splits) {
      const reader = readerOf(parts);
      let inflated = 0;
      const hash = await sha256(raw);
      const out = new Uint8Array(raw.byteLength);
      expect(await reader.inflateStreaming((piece) => (out.set(piece, inflated), (inflated += piece.byteLength))), what).toBe(raw.byteLength);
      expect(await sha256(out), what).toBe(hash);
      expect([...(await reader.take(5))], what).toEqual([1, 2, 3, 4, 5]);
      expect(reader.offset, what).toBe(compressed.byteLength + 5);
    }
  });
});

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

function chunks(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) out.push(bytes.slice(at, at + size));
  return out;
}
