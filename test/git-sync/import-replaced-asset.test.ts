import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { PNG_1x1, pageMarkdown } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';
import { fetchWorker } from '../helpers/worker';

/**
 * A push that replaces an asset (other bytes at the same path) is imported into the space's file of that path: it keeps
 * its id (the pages naming it, whose own files did not change, show the new bytes) and its count, as GitBook's does.
 * Before, the new bytes became a second file nothing named, and every page kept showing the old image.
 */

const bytesOf = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
const PNG_OTHER = btoa(atob(PNG_1x1) + 'other bytes');

/** The count of files the space's head revision records (the file list's total). */
async function headFileCount(spaceId: string, token: string): Promise<number> {
  const head = expectStatus(await api('GET', `/v1/spaces/${spaceId}`, { token }), 200).body.revision;
  return (await env.DB.prepare('select file_count as n from revisions where id = ?').bind(head).first<{ n: number }>())!.n;
}

async function files(spaceId: string, token: string): Promise<any[]> {
  return expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/files?limit=1000`, { token }), 200).body.items;
}

describe('Git Sync import: an asset replaced at its path', () => {
  it('keeps the file id, takes the new bytes, and counts the file once', async () => {
    const name = `replaced-asset-${crypto.randomUUID().slice(0, 8)}`;
    const { token, space } = await importedSpace(name, {
      'README.md': '# Home\n\nThe diagram:\n\n![Diagram](.gitbook/assets/diagram.png)\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
      '.gitbook/assets/diagram.png': { base64: PNG_1x1 },
    });
    const [before] = await files(space.id, token);
    expect(before.size).toBe(bytesOf(PNG_1x1).byteLength);
    expect(await headFileCount(space.id, token)).toBe(1);

    await control('commit', { name, files: { '.gitbook/assets/diagram.png': { base64: PNG_OTHER } }, message: 'Replace the diagram' });
    await runGitOperation(space.id, token, 'import', githubBody(name));

    const after = await files(space.id, token);
    expect(after.map((f) => [f.id, f.size, f.git?.path])).toEqual([[before.id, bytesOf(PNG_OTHER).byteLength, '.gitbook/assets/diagram.png']]);
    const home = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages[0];
    expect(await pageMarkdown(space.id, home.id, token)).toContain(`/files/${before.id}`);
    const download = await fetchWorker(after[0].downloadURL);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytesOf(PNG_OTHER));
    expect(await headFileCount(space.id, token)).toBe(1);
  });
});
