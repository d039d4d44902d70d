import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { decodeTrees, encodeTrees, treeCacheKey } from '../../src/services/git-sync/tree-cache';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitOutput, githubBody, leafEdit, noise, runGitOperation } from '../helpers/git-sync';

/**
 * A server without filters (a plain git http-backend), issue 40: the space's next operation does not stream the whole
 * repository again. The trees of the commit it read are kept (tree-cache.ts, R2, per space): a branch still at that commit
 * needs no pack, one that moved on sends it as a `have` and gets a thin pack of what changed. Before, every operation
 * streamed the commit's whole pack (a no-op export of a 343 MiB repository: 48 s).
 */

const base64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(''));
// An asset that does not compress: a whole pack streamed again shows in the bytes fetched.
const ASSET = noise(300_000, 23);
const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide/intro.md)\n  * [Setup](guide/setup.md)\n* [Notes](notes/one.md)\n',
  'guide/intro.md': '# Guide\n\n![A picture](../.gitbook/assets/picture.bin)\n\nThe guide.\n',
  'guide/setup.md': '# Setup\n\nThe first paragraph.\n',
  'notes/one.md': '# Notes\n\nA note.\n',
  'notes/deep/a/b/c.txt': 'Not documentation: a subtree the thin pack leaves out.\n',
  '.gitbook/assets/picture.bin': { base64: base64(ASSET) },
};

const lastStats = async (spaceId: string) => {
  const row = await env.DB.prepare(`select stats from git_sync_operations where space_id = ? order by created_at desc, rowid desc limit 1`).bind(spaceId).first<{ stats: string }>();
  return JSON.parse(row!.stats) as Record<string, any>;
};
const markdownOf = async (spaceId: string, token: string, title: string) => {
  const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages;
  const flat = (list: any[]): any[] => list.flatMap((p) => [p, ...flat(p.pages ?? [])]);
  const page = flat(pages).find((p) => p.title === title);
  return expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${page.id}?format=markdown`, { token }), 200).body.markdown as string;
};
const stamp = () => ({ timestamp: new Date().toISOString() });

async function importedSpace(name: string) {
  await createRepository(name, { allowFilter: false, files: FILES });
  const org = await seedOrg();
  const token = org.owner.token;
  const space = await createSpace(org.id, token);
  await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
  const first = await lastStats(space.id);
  expect(first).toMatchObject({ fetch: 'streamed' });
  expect(first.treesKept).toBeUndefined();
  expect(first.packBytes).toBeGreaterThan(ASSET.byteLength);
  return { token, space, org };
}

describe('the trees kept of the commit a space read from a server without filters', { timeout: 240_000 }, () => {
  it('a no-op export fetches no pack, a push is imported from a thin pack, an edit exported and its commit read back without one', async () => {
    const name = 'kept-trees-flow';
    const { token, space } = await importedSpace(name);

    // Nothing changed on either side: the branch is still at the commit whose trees are kept.
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'Nothing to export', ...stamp() });
    const noop = await lastStats(space.id);
    expect(noop).toMatchObject({ fetch: 'streamed', treesKept: 'unchanged' });
    expect(noop.packBytes).toBeLessThan(20_000);

    // A push of one page deep in a folder: the thin pack holds the new trees and blob, the unchanged subtrees come from the copy.
    await control('commit', { name, files: { 'guide/setup.md': '# Setup\n\nThe first paragraph, pushed.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), ...stamp() });
    const pushed = await lastStats(space.id);
    expect(pushed).toMatchObject({ fetch: 'streamed', treesKept: 'thin' });
    expect(pushed.packBytes).toBeLessThan(20_000);
    expect(await markdownOf(space.id, token, 'Setup')).toContain('The first paragraph, pushed.');
    expect(await markdownOf(space.id, token, 'Guide')).toContain('The guide.');

    // An edit exported onto the pushed head: one commit, the page alone; then the branch is at the pushed commit, whose
    // trees the export kept: the next no-op export fetches nothing either.
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const notes = pages.find((p) => p.title === 'Notes');
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, notes.id, 'A note.', 'A note, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const before = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit`, ...stamp() });
    expect(await lastStats(space.id)).toMatchObject({ treesKept: 'unchanged' });
    const exported = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(name, 'diff', '--numstat', before, exported)).trim()).toBe('1\t1\tnotes/one.md');
    expect(await gitOutput(name, 'fsck', '--strict')).not.toMatch(/error|warning/i);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'Nothing to export', ...stamp() });
    const again = await lastStats(space.id);
    expect(again).toMatchObject({ treesKept: 'unchanged' });
    expect(again.packBytes).toBeLessThan(20_000);
    expect((await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim()).toBe(exported);
  });

  it('a branch pushed over and collected, a damaged copy, a missing one: the whole pack instead, and the import is right', async () => {
    const name = 'kept-trees-stale';
    const created = await createRepository(name, { allowFilter: false, files: FILES });
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await control('commit', { name, message: 'Synced', files: { 'notes/one.md': '# Notes\n\nA note, synced.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });

    // The synced commit dropped by a force-push onto the first one, and collected: the `have` is unknown to the server.
    await control('commit', { name, message: 'Rewritten', base: created.head, prune: true, files: { 'guide/setup.md': '# Setup\n\nRewritten.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), ...stamp() });
    const rewritten = await lastStats(space.id);
    expect(rewritten.treesKept === 'thin' || rewritten.treesKept === 'stale').toBe(true);
    expect(await markdownOf(space.id, token, 'Setup')).toContain('Rewritten.');
    expect(await markdownOf(space.id, token, 'Notes')).toContain('A note.');
    expect(await markdownOf(space.id, token, 'Notes')).not.toContain('synced');

    // A damaged copy is not read (its ids do not check): the whole pack.
    const key = treeCacheKey(space.id);
    const kept = await env.FILES.get(key);
    const metadata = kept!.customMetadata;
    const objects = (await decodeTrees(new Uint8Array(await kept!.arrayBuffer())))!;
    const damaged = objects.map((o, i) => (i === 1 ? { ...o, data: Uint8Array.from(o.data, (b, j) => (j === 0 ? b ^ 1 : b)) } : o));
    expect(await decodeTrees(encodeTrees(damaged))).toBeNull();
    await env.FILES.put(key, encodeTrees(damaged), { customMetadata: metadata });
    await control('commit', { name, files: { 'README.md': '# Home\n\nWelcome back.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), ...stamp() });
    const afterDamage = await lastStats(space.id);
    expect(afterDamage.treesKept).toBeUndefined();
    expect(afterDamage.packBytes).toBeGreaterThan(ASSET.byteLength);
    expect(await markdownOf(space.id, token, 'Home')).toContain('Welcome back.');

    // None kept: the whole pack, and the copy written again.
    await env.FILES.delete(key);
    await control('commit', { name, files: { 'README.md': '# Home\n\nWelcome once more.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), ...stamp() });
    expect((await lastStats(space.id)).treesKept).toBeUndefined();
    expect(await markdownOf(space.id, token, 'Home')).toContain('Welcome once more.');
    expect(await env.FILES.head(key)).not.toBeNull();
  });

  it('another space, of another tenant, on the same repository reads none of the first space\'s copy', async () => {
    const name = 'kept-trees-tenants';
    await importedSpace(name);
    const other = await seedOrg();
    const space = await createSpace(other.id, other.owner.token);
    await runGitOperation(space.id, other.owner.token, 'import', { ...githubBody(name), force: true });
    const stats = await lastStats(space.id);
    expect(stats.treesKept).toBeUndefined();
    expect(stats.packBytes).toBeGreaterThan(ASSET.byteLength);
  });
});
