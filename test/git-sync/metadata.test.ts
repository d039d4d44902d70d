import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, gitServer, repositoryUrl, runPending } from '../helpers/git-sync';
import { publishedSite, visit } from '../site/helpers';

/**
 * What Git Sync leaves on the content besides pages: GitBook's `git: {oid, path}` on pages, files and reusable
 * contents, the space's `gitSync`, `.gitbook/includes/` as reusable contents (both ways) and `.gitbook.yaml`'s
 * redirects in the sites that publish the space. Against the real Git server of the other Git Sync tests.
 */

async function run(spaceId: string, token: string, direction: 'import' | 'export', body: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token, body }), 204);
  await runPending(spaceId);
  const info = (await gitInfo(spaceId, token)).body;
  expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success', direction });
  return info;
}

function byPath(pages: any[]): Map<string, any> {
  const out = new Map<string, any>();
  const walk = (list: any[]) => list.forEach((p) => (out.set(p.path, p), walk(p.pages)));
  walk(pages);
  return out;
}

const PROJECT = {
  'docs/.gitbook.yaml': 'root: ./content/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  old/setup: guide/install.md\n  moved: guide/README.md\n  legacy: nowhere.md\n',
  'docs/content/README.md': '# Welcome\n\nHello.\n',
  'docs/content/SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n* [Guide](guide/README.md)\n  * [Install](guide/install.md)\n',
  'docs/content/guide/README.md': '# Guide\n\nRead on.\n\n{% include "../.gitbook/includes/support.md" %}\n',
  'docs/content/guide/install.md': '# Install\n\n![Logo](../.gitbook/assets/logo.svg)\n',
  'docs/content/.gitbook/includes/support.md': '---\ntitle: Support note\n---\n\nAsk in the [guide](../../guide/install.md).\n',
  'docs/content/.gitbook/assets/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>\n',
  'src/index.js': 'export {};\n',
};

describe('Git Sync metadata (a real git http-backend)', () => {
  it("pages, files and reusable contents carry git {oid, path} from the repository's root; the space carries gitSync; includes are reusable contents", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('meta', { files: PROJECT });
    const blob = async (path: string) => (await gitOutput('meta', 'rev-parse', `refs/heads/main:${path}`)).trim();

    // Before any sync the space has no gitSync.
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body.gitSync).toBeUndefined();
    const started = Date.now();
    await run(space.id, token, 'import', {
      url: repositoryUrl('meta'),
      ref: 'refs/heads/main',
      force: true,
      repoProjectDirectory: 'docs',
      repoTreeURL: 'https://github.com/acme/meta/blob/main',
      repoCommitURL: 'https://github.com/acme/meta/commit',
    });

    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body;
    expect(read.gitSync).toMatchObject({ repoName: 'repos/meta', installationProvider: 'github', url: 'https://github.com/acme/meta/blob/main' });
    expect(Date.parse(read.gitSync.updatedAt)).toBeGreaterThanOrEqual(started - 1000);
    expect(JSON.stringify(read)).not.toContain(gitServer().password);

    const content = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body;
    const pages = byPath(content.pages);
    expect(pages.get('guide/install').git).toEqual({ oid: await blob('docs/content/guide/install.md'), path: 'docs/content/guide/install.md' });
    expect(pages.get('guide').git).toEqual({ oid: await blob('docs/content/guide/README.md'), path: 'docs/content/guide/README.md' });
    // A page read alone carries it too.
    const install = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pages.get('guide/install').id}`, { token }), 200).body;
    expect(install.git.path).toBe('docs/content/guide/install.md');
    const [logo] = content.files;
    expect(logo.git).toEqual({ oid: await blob('docs/content/.gitbook/assets/logo.svg'), path: 'docs/content/.gitbook/assets/logo.svg' });
    // A link that climbs out of the page's folder (`../.gitbook/assets/...`) points at the file.
    expect(JSON.stringify(install.document)).toContain(`"file":"${logo.id}"`);
    expect(content.reusableContents).toEqual([{ id: expect.any(String), title: 'Support note', git: { oid: await blob('docs/content/.gitbook/includes/support.md'), path: 'docs/content/.gitbook/includes/support.md' } }]);
    const reusableId = content.reusableContents[0].id;

    // The page's include tag is a reusable-content block of that content; its link points at the page by id.
    const guide = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pages.get('guide').id}`, { token }), 200).body;
    expect(guide.document.nodes.find((n: any) => n.type === 'reusable-content')?.data.ref).toMatchObject({ kind: 'reusable-content', reusableContent: reusableId });
    const included = expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${content.id}/reusable-contents/${reusableId}/document`, { token }), 200).body;
    expect(JSON.stringify(included)).toContain(`"page":"${pages.get('guide/install').id}"`);

    // Export after an edit: the include tag is written back as GitBook writes it (a relative path), the unchanged
    // reusable content keeps its blob, and a reusable content stays one across the round trip.
    const cr = await openChangeRequest(space.id, token, 'Edit guide');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages.get('guide').id, document: { markdown: `# Guide\n\nRead on, edited.\n\n{% include "${reusableId}" %}\n` } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const before = (await gitOutput('meta', 'rev-parse', 'refs/heads/main')).trim();
    await run(space.id, token, 'export', { url: repositoryUrl('meta'), ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: Edit guide', repoProjectDirectory: 'docs' });
    expect((await gitOutput('meta', 'diff', '--name-status', before, 'refs/heads/main')).trim()).toBe('M\tdocs/content/guide/README.md');
    const written = await gitOutput('meta', 'show', 'refs/heads/main:docs/content/guide/README.md');
    expect(written).toContain('{% include "../.gitbook/includes/support.md" %}');
    expect(written).toContain('Read on, edited.');
    await gitOutput('meta', 'fsck', '--strict');
  });

  it('a reusable content made in this deployment is exported under .gitbook/includes/; one whose file is gone is removed on import', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('meta-drop', {
      files: {
        'README.md': '# Home\n\n{% include ".gitbook/includes/a.md" %}\n',
        '.gitbook/includes/a.md': '---\ntitle: A\n---\n\nFirst.\n',
        '.gitbook/includes/b.md': '---\ntitle: B\n---\n\nSecond.\n',
      },
    });
    const url = repositoryUrl('meta-drop');
    await run(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true });
    const first = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body;
    expect(first.reusableContents.map((c: any) => c.title)).toEqual(['A', 'B']);
    const idOf = new Map(first.reusableContents.map((c: any) => [c.title, c.id]));

    // Removed and changed with git: B goes, A keeps its id with its new text.
    const { control } = await import('../helpers/git-sync');
    await control('commit', { name: 'meta-drop', files: { '.gitbook/includes/b.md': null, '.gitbook/includes/a.md': '---\ntitle: A\n---\n\nFirst, changed.\n' } });
    await run(space.id, token, 'import', { url, ref: 'refs/heads/main' });
    const second = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body;
    expect(second.reusableContents.map((c: any) => [c.title, c.id])).toEqual([['A', idOf.get('A')]]);
    const a = expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${second.id}/reusable-contents/${idOf.get('A')}/document`, { token }), 200).body;
    expect(JSON.stringify(a)).toContain('First, changed.');
  });

  it(".gitbook.yaml's redirects become redirects of the sites that publish the space, and go when the file drops them", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const site = await publishedSite(org, [space.id], 'public', 'Synced');
    await createRepository('meta-redirects', { files: PROJECT });
    const url = repositoryUrl('meta-redirects');
    // An admin's redirect of a source the file also names stays the admin's.
    const admins = expectStatus(await api('POST', `${site.path}/redirects`, { token, body: { source: '/moved', destination: { kind: 'external', url: 'https://example.com/moved' } } }), 201).body;
    const info = await run(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true, repoProjectDirectory: 'docs' });
    // A redirect to no page is said, not hidden.
    expect(info.operation.error).toContain('legacy');
    const pages = byPath(expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body.pages);
    expect(expectStatus(await api('GET', `${site.path}/redirect?source=${encodeURIComponent('/moved')}`, { token }), 200).body.redirect.destination).toEqual({ kind: 'external', url: 'https://example.com/moved' });
    const found = expectStatus(await api('GET', `${site.path}/redirect?source=${encodeURIComponent('/old/setup')}`, { token }), 200).body;
    expect(found.redirect).toMatchObject({ source: '/old/setup', permanent: true, destination: { kind: 'site-page', pageId: pages.get('guide/install').id } });
    expect(found.target).toMatch(/\/guide\/install$/);

    const { control } = await import('../helpers/git-sync');
    await control('commit', { name: 'meta-redirects', files: { 'docs/.gitbook.yaml': 'root: ./content/\n' } });
    await run(space.id, token, 'import', { url, ref: 'refs/heads/main', repoProjectDirectory: 'docs' });
    expectStatus(await api('GET', `${site.path}/redirect?source=${encodeURIComponent('/old/setup')}`, { token }), 404);
    const left = await env.DB.prepare('select id from site_redirects where site_id = ?').bind(site.id).all<{ id: string }>();
    expect(left.results.map((r) => r.id)).toEqual([admins.id]);
  });

  it("the published site's git.showEditLink: each page read from the repository links to its file (repoTreeURL + path), in the HTML reader and in what GitBook's renderer reads", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const site = await publishedSite(org, [space.id], 'public', 'Editable');
    await createRepository('meta-edit', { files: PROJECT });
    await run(space.id, token, 'import', { url: repositoryUrl('meta-edit'), ref: 'refs/heads/main', force: true, repoProjectDirectory: 'docs', repoTreeURL: 'https://github.com/acme/meta/blob/main' });
    const link = 'https://github.com/acme/meta/blob/main/docs/content/guide/install.md';

    // Off by default: no link.
    const before = await visit(`/s/${site.id}/guide/install`);
    expect(before.status).toBe(200);
    expect(before.text).not.toContain('Edit on GitHub');

    expectStatus(await api('PUT', `${site.path}/customization`, { token, body: { git: { showEditLink: true } } }), 200);
    const page = await visit(`/s/${site.id}/guide/install`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<a href="${link}" rel="noopener">Edit on GitHub</a>`);

    // What GitBook's renderer reads: the customization's flag, the space's gitSync.url and the page's git.path.
    expect(expectStatus(await api('GET', `${site.path}/customization`, { token }), 200).body.git).toEqual({ showEditLink: true });
    const siteSpace = expectStatus(await api('GET', `${site.path}/site-spaces`, { token }), 200).body.items[0];
    expect(siteSpace.space.gitSync.url).toBe('https://github.com/acme/meta/blob/main');
    const byPathRead = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/path/guide/install`, { token }), 200).body;
    expect(`${siteSpace.space.gitSync.url}/${byPathRead.git.path}`).toBe(link);
  });
});
