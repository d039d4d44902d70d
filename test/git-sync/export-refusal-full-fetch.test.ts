import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, gitOutput, githubBody, leafEdit, noise, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * An unforced export's refusal of a branch that moved on with changes the space has not imported (issue 40), where the
 * last synced commit's trees cannot be fetched without blobs: a server that refuses partial fetches
 * (`uploadpack.allowFilter` off), or a branch pushed over (the synced commit gone from the remote). Before, both compared
 * only the files the space synced, so a push of SUMMARY.md alone (or an added page) was committed over, and the push's
 * import then found the branch at the space's own commit. Now the server without filters is asked for the synced commit
 * with the branch's head as a `have` (a pack of what the two differ by) and the trees are compared; a synced commit the
 * remote no longer has refuses the export, saying why.
 */

const FILES = {
  'docs/README.md': '# Home\n\nWelcome here.\n',
  'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Edited](edited.md)\n* [Other](other.md)\n',
  'docs/edited.md': '# Edited\n\nThe first paragraph.\n\nThe second paragraph.\n',
  'docs/other.md': '# Other\n\nAnother page.\n',
  'src/app.ts': 'export const app = 1;\n',
};
const SWAPPED = '# Table of contents\n\n* [Home](README.md)\n* [Other](other.md)\n* [Edited](edited.md)\n';
const body = (name: string) => ({ ...githubBody(name), repoProjectDirectory: 'docs' });
const head = async (name: string) => (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();

async function syncedSpace(name: string, options: { allowFilter?: boolean } = {}) {
  const org = await seedOrg();
  const token = org.owner.token;
  const space = await createSpace(org.id, token);
  // An asset that does not compress: a second whole tree would show in the bytes fetched.
  const asset = { base64: btoa(Array.from(noise(256 * 1024, 7), (byte) => String.fromCharCode(byte)).join('')) };
  const created = await createRepository(name, { files: { ...FILES, 'docs/.gitbook/assets/noise.bin': asset }, ...options });
  // A second commit the space syncs with: a force-push onto the first drops it.
  const synced = (await control<{ head: string }>('commit', { name, message: 'Synced', files: { 'docs/other.md': '# Other\n\nAnother page, synced.\n' } })).head;
  await runGitOperation(space.id, token, 'import', { ...body(name), force: true });
  const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
  return { token, space, first: created.head, synced, edited: pages.find((page) => page.title === 'Edited')!.id as string };
}

async function mergedEdit(spaceId: string, token: string, pageId: string) {
  const cr = await openChangeRequest(spaceId, token, 'Edit');
  await applyChanges(spaceId, cr.number, token, [await leafEdit(spaceId, token, cr.number, pageId, 'The second paragraph.', 'The second paragraph, edited.')]);
  expectStatus(await merge(spaceId, cr.number, token), 200);
  return { commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() };
}

async function refusedExport(name: string, spaceId: string, token: string, exportBody: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/export`, { token, body: { ...body(name), ...exportBody } }), 204);
  await runPending(spaceId);
  const failed = (await gitInfo(spaceId, token)).body.operation;
  expect(failed).toMatchObject({ state: 'failure', direction: 'export' });
  expect(failed.error).toContain('nothing was pushed and the space is unchanged; import the branch, then export again');
  return failed.error as string;
}

/** The push's import, then the export commits on the pushed head with the edit alone. */
async function importedThenExported(name: string, spaceId: string, token: string, exportBody: Record<string, unknown>, pushed: string) {
  await runGitOperation(spaceId, token, 'import', { ...body(name), timestamp: new Date().toISOString() });
  await runGitOperation(spaceId, token, 'export', { ...body(name), ...exportBody, timestamp: new Date().toISOString() });
  const exported = await head(name);
  expect((await gitOutput(name, 'log', '-1', '--format=%P', exported)).trim()).toBe(pushed);
  expect((await gitOutput(name, 'diff', '--numstat', pushed, exported)).trim()).toBe('1\t1\tdocs/edited.md');
}

describe('an export refused on a branch that moved on, without partial fetches', { timeout: 240_000 }, () => {
  it('a server without filters: a push of SUMMARY.md alone refuses the export (the trees compared), the import reads it, the next export commits', async () => {
    const name = 'refusal-no-filter-summary';
    const { token, space, edited } = await syncedSpace(name, { allowFilter: false });
    const exportBody = await mergedEdit(space.id, token, edited);
    const pushed = (await control<{ head: string }>('commit', { name, message: 'Swap', files: { 'docs/SUMMARY.md': SWAPPED } })).head;

    const error = await refusedExport(name, space.id, token, exportBody);
    expect(error).toContain('docs/SUMMARY.md changed');
    expect(await head(name)).toBe(pushed);
    // The synced commit came as what it differs by from the head (SUMMARY.md and its trees), not as a second whole tree:
    // the refused export fetched little more than the setup import's full fetch (the 256 KiB asset once).
    const packs = (
      await env.DB.prepare(`select direction, json_extract(stats, '$.packBytes') as bytes from git_sync_operations where space_id = ? order by created_at, rowid`).bind(space.id).all<{ direction: string; bytes: number }>()
    ).results;
    expect(packs.map((p) => p.direction)).toEqual(['import', 'export']);
    expect(packs[0].bytes).toBeGreaterThan(256 * 1024);
    expect(packs[1].bytes).toBeLessThan(packs[0].bytes * 1.2);
    await importedThenExported(name, space.id, token, exportBody, pushed);
  });

  it('a server without filters: a page added alone refuses the export; code beside the docs does not', async () => {
    const name = 'refusal-no-filter-added';
    const { token, space, edited } = await syncedSpace(name, { allowFilter: false });
    const exportBody = await mergedEdit(space.id, token, edited);
    const code = (await control<{ head: string }>('commit', { name, message: 'Code', files: { 'src/app.ts': 'export const app = 2;\n' } })).head;
    const pushed = (await control<{ head: string }>('commit', { name, message: 'New page', files: { 'docs/new.md': '# New\n\nA page pushed with git.\n' } })).head;

    const error = await refusedExport(name, space.id, token, exportBody);
    expect(error).toContain('docs/new.md added');
    expect(error).not.toContain('src/app.ts');
    expect(await head(name)).toBe(pushed);
    expect(code).not.toBe(pushed);
    await importedThenExported(name, space.id, token, exportBody, pushed);
  });

  for (const allowFilter of [true, false]) {
    it(`a branch pushed over, its synced commit collected (${allowFilter ? 'partial fetches' : 'no filters'}): the export is refused, saying why; the import, then the export commits`, async () => {
      const name = `refusal-force-pushed-${allowFilter ? 'filter' : 'no-filter'}`;
      const { token, space, first, synced, edited } = await syncedSpace(name, { allowFilter });
      const exportBody = await mergedEdit(space.id, token, edited);
      // The synced commit's change undone by a force-push of another commit on the first one, then collected.
      const pushed = (await control<{ head: string }>('commit', { name, message: 'Rewritten', base: first, prune: true, files: { 'docs/SUMMARY.md': SWAPPED } })).head;
      const collected = await control<{ ok: boolean }>('git', { name, args: ['cat-file', '-t', synced] });
      expect(collected.ok).toBe(false);

      const error = await refusedExport(name, space.id, token, exportBody);
      expect(error).toContain(`the branch no longer holds the commit the space last synced (${synced.slice(0, 7)}`);
      expect(await head(name)).toBe(pushed);
      await importedThenExported(name, space.id, token, exportBody, pushed);
    });
  }
});
