import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, repositoryUrl, runPending } from '../helpers/git-sync';

/**
 * A repository whose server lacks some blobs its tree names (a partial clone served as is, a damaged copy): git
 * answers a fetch wanting one of them with `ERR upload-pack: not our ref <oid>`. The import leaves those files out
 * and says which, and reads the rest by id as before. It took the refusal for a server refusing blobs by id and
 * fetched the whole tree instead, which the server could not pack: a 165 MB documentation repository lacking 25 of
 * its images failed after minutes with isomorphic-git's "Packfile payload corrupted".
 */
describe('a server that lacks blobs of its tree', () => {
  it('imports the rest: a page whose blob is missing is empty, a missing asset is left out, and the state says which', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('missing-blobs', {
      files: {
        'README.md': '# Home\n\nWelcome.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [One](one.md)\n* [Two](two.md)\n',
        'one.md': '# One\n\nSee [two](two.md) and ![a picture](.gitbook/assets/gone.png).\n',
        'two.md': '# Two\n\nNever read.\n',
        '.gitbook/assets/kept.txt': 'kept\n',
        '.gitbook/assets/gone.png': 'not there\n',
      },
      missing: ['two.md', '.gitbook/assets/gone.png'],
    });
    const twoOid = (await gitOutput('missing-blobs', 'rev-parse', 'refs/heads/main:two.md')).trim();
    const goneOid = (await gitOutput('missing-blobs', 'rev-parse', 'refs/heads/main:.gitbook/assets/gone.png')).trim();

    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { url: repositoryUrl('missing-blobs'), ref: 'refs/heads/main', force: true } }), 204);
    await runPending(space.id);
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
    expect(info.operation.error).toContain(`two.md: imported as an empty page (the repository's server does not have its blob ${twoOid})`);
    expect(info.operation.error).toContain(`.gitbook/assets/gone.png: not imported (the repository's server does not have its blob ${goneOid})`);
    // Read by id throughout: no fall back to the whole tree.
    const row = await env.DB.prepare(`select stats from git_sync_operations where space_id = ? order by created_at desc, rowid desc limit 1`).bind(space.id).first<{ stats: string }>();
    expect(JSON.parse(row!.stats)).toMatchObject({ protocol: 'v2' });

    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Home', 'One', 'Two']);
    const markdownOf = async (page: any) => expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${page.id}?format=markdown`, { token }), 200).body.markdown as string;
    expect(await markdownOf(pages[1])).toContain('See [two]');
    expect(await markdownOf(pages[2])).not.toContain('Never read');
    const files = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body.files;
    expect(files.map((f: any) => f.name)).toEqual(['kept.txt']);
  }, 120_000);
});
