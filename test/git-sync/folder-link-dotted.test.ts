import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, repositoryUrl, runPending } from '../helpers/git-sync';

/**
 * A link to a folder whose name holds a dot (`v0.73/`, or `./` in `v0.73/README.md`, GitBook's spelling of a link to
 * the page itself) leads to that folder's README.md page. Read as a file of extension `.73`, `./#section` in
 * `parent/v0.73/README.md` led to the parent's page, and an export of an edit elsewhere on the page wrote it
 * `../#section` (Nebukam/PCGExtendedToolkitGitBook's changelogs, gitprobe11b).
 */
async function run(spaceId: string, token: string, direction: 'import' | 'export', body: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token, body }), 204);
  await runPending(spaceId);
  return (await gitInfo(spaceId, token)).body;
}
function flat(pages: any[], out: any[] = []): any[] {
  for (const p of pages) (out.push(p), flat(p.pages ?? [], out));
  return out;
}
function pageRefs(node: any, out: string[] = []): string[] {
  if (node?.data?.ref?.page) out.push(`${node.data.ref.kind}:${node.data.ref.page}${node.data.ref.anchor ? `#${node.data.ref.anchor}` : ''}`);
  for (const k of ['nodes', 'leaves', 'fragments']) for (const c of node?.[k] ?? []) pageRefs(c, out);
  return out;
}

describe('links to a folder with a dot in its name', () => {
  it('`./#section` in v0.73/README.md leads to that page; `v0.73/` from its parent too; an edit elsewhere keeps both as written', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('folder-link-dotted', {
      files: {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Releases](releases/README.md)\n  * [v0.73](releases/v0.73/README.md)\n    * [v0.73.1](releases/v0.73/v0.73.1.md)\n',
        'README.md': '# Home\n\nWelcome.\n',
        'releases/README.md': '# Releases\n\nThe latest is [v0.73](v0.73/).\n',
        'releases/v0.73/README.md': '# v0.73\n\nFirst paragraph.\n\nSee [the migration](./#migration "mention") below.\n\n## Migration\n\nSteps.\n',
        'releases/v0.73/v0.73.1.md': '# v0.73.1\n\nA patch.\n',
      },
    });
    const url = repositoryUrl('folder-link-dotted');
    expect((await run(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true })).operation.state).toBe('success');
    const pages = flat(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages);
    const release = pages.find((p) => p.title === 'v0.73');
    const releases = pages.find((p) => p.title === 'Releases');
    const releaseDoc = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${release.id}`, { token }), 200).body.document;
    const releasesDoc = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${releases.id}`, { token }), 200).body.document;
    expect(pageRefs(releaseDoc)).toEqual([`anchor:${release.id}#migration`]);
    expect(pageRefs(releasesDoc)).toEqual([`page:${release.id}`]);

    const cr = await openChangeRequest(space.id, token, 'Edit');
    // The page's own JSON with one leaf edited, as GitBook's editor sends it.
    const edited = structuredClone(releaseDoc);
    edited.nodes[0].nodes[0].leaves[0].text = 'First paragraph, edited.';
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: release.id, document: { document: edited } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    expect((await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: `GITBOOK-${cr.number}: Edit` })).operation.state).toBe('success');
    expect((await gitOutput('folder-link-dotted', 'diff', '--numstat', created.head, 'refs/heads/main')).trim()).toBe('1\t1\treleases/v0.73/README.md');
    expect(await gitOutput('folder-link-dotted', 'show', 'refs/heads/main:releases/v0.73/README.md')).toContain('See [the migration](./#migration "mention") below.');
  });
});
