import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, gitOutput, repositoryUrl, runPending } from '../helpers/git-sync';

/**
 * exportToGitRepository against a real Git server: import, edit through a change request, merge, export; then
 * `git log`, `git diff` and `git fsck --strict` in the served repository show exactly the expected commit.
 */

async function run(spaceId: string, token: string, direction: 'import' | 'export', body: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token, body }), 204);
  await runPending(spaceId);
  return (await gitInfo(spaceId, token)).body;
}

async function pageIdAt(spaceId: string, token: string, path: string): Promise<string> {
  const res = await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token });
  expectStatus(res, 200);
  const found: any[] = [];
  const walk = (pages: any[]) => pages.forEach((p) => (p.path === path && found.push(p), walk(p.pages)));
  walk(res.body.pages);
  expect(found, path).toHaveLength(1);
  return found[0].id;
}

describe('exportToGitRepository (a real git http-backend)', () => {
  it('an edit merged in GitBook becomes one commit: only its file changes, other files keep their blobs, the message is the given one', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('export', { corpus: 'git-sync-normalization', files: { 'CONTRIBUTING.md': '# Not a page\n', 'src/app.js': 'console.log(1);\n' } });
    const url = repositoryUrl('export');
    expect((await run(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true })).operation.state).toBe('success');

    // An export right after the import has nothing to write: no commit.
    const noop = await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: nothing' });
    expect(noop.operation, JSON.stringify(noop)).toMatchObject({ state: 'success', direction: 'export' });
    expect((await gitOutput('export', 'rev-parse', 'refs/heads/main')).trim()).toBe(created.head);

    const cr = await openChangeRequest(space.id, token, 'Edit emoji');
    const emoji = await pageIdAt(space.id, token, 'emoji');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: emoji, document: { markdown: '# Emoji\n\nEdited in GitBook :smile:\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);

    const exported = await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: Edit emoji', timestamp: new Date().toISOString() });
    expect(exported.operation, JSON.stringify(exported)).toMatchObject({ state: 'success', direction: 'export' });
    const log = await gitOutput('export', 'log', '--format=%H %P|%s|%cn', '-2', 'refs/heads/main');
    const [latest, previous] = log.trim().split('\n');
    expect(latest).toMatch(new RegExp(`^[0-9a-f]{40} ${created.head}\\|GITBOOK-1: Edit emoji\\|GitBook$`));
    expect(previous.startsWith(created.head)).toBe(true);
    const changed = await gitOutput('export', 'diff', '--name-status', `${created.head}`, 'refs/heads/main');
    expect(changed.trim()).toBe('M\temoji.md');
    const content = await gitOutput('export', 'show', 'refs/heads/main:emoji.md');
    expect(content).toContain('Edited in GitBook');
    await gitOutput('export', 'fsck', '--strict');
    // The revision records the commit, made by GitBook: the integration's loop guard.
    const commit = latest.slice(0, 40);
    const git = await env.DB.prepare('select r.oid, r.created_by_gitbook, r.message from revision_git r join spaces s on s.revision_id = r.revision_id where s.id = ?').bind(space.id).first<any>();
    expect(git).toEqual({ oid: commit, created_by_gitbook: 1, message: 'GITBOOK-1: Edit emoji' });

    // GitBook's Revision.git, which the integrations read to skip exporting what came from Git.
    const head = (await api('GET', `/v1/spaces/${space.id}`, { token })).body.revision;
    const revision = await api('GET', `/v1/spaces/${space.id}/revisions/${head}`, { token });
    expect(revision.body.git).toEqual({ oid: commit, message: 'GITBOOK-1: Edit emoji', createdByGitBook: true, ref: 'refs/heads/main' });
    // The integration's import of its own push (on the push event) changes nothing.
    await run(space.id, token, 'import', { url, ref: 'refs/heads/main' });
    expect((await api('GET', `/v1/spaces/${space.id}`, { token })).body.revision).toBe(head);
  });

  it('a new page becomes a new file listed in SUMMARY.md; a deleted page loses its file', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('export-tree', {
      files: { 'README.md': '# Home\n\nHi.\n', 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Old](old.md)\n', 'old.md': '# Old\n\nBye.\n' },
    });
    const url = repositoryUrl('export-tree');
    await run(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true });
    const before = (await gitOutput('export-tree', 'rev-parse', 'refs/heads/main')).trim();
    const cr = await openChangeRequest(space.id, token, 'Tree');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'delete_page', page: await pageIdAt(space.id, token, 'old') },
      { operation: 'insert_page', title: 'Getting started', document: { markdown: '# Getting started\n\nInstall it.\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const info = await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-2: Tree' });
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
    const changed = await gitOutput('export-tree', 'diff', '--name-status', before, 'refs/heads/main');
    expect(changed.trim().split('\n').sort()).toEqual(['A\tgetting-started.md', 'D\told.md', 'M\tSUMMARY.md']);
    const summary = await gitOutput('export-tree', 'show', 'refs/heads/main:SUMMARY.md');
    expect(summary).toContain('* [Getting started](getting-started.md)');
    expect(summary).not.toContain('old.md');
    await gitOutput('export-tree', 'fsck', '--strict');
  });

  it('a remote that moved on between fetch and push refuses the push: the operation fails, nothing is lost on either side', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('export-race', { files: { 'README.md': '# Home\n\nHi.\n' } });
    const url = repositoryUrl('export-race');
    await run(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true });
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: await pageIdAt(space.id, token, 'home'), document: { markdown: '# Home\n\nEdited.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const head = (await api('GET', `/v1/spaces/${space.id}`, { token })).body.revision;
    await control('race', { name: 'export-race' });
    const info = await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-3: Edit' });
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'failure', direction: 'export' });
    // Said in the API's terms (what happened, that nothing moved), not isomorphic-git's ("One or more branches ...").
    expect(info.operation.error).toMatch(/^the remote refused the push \(refs\/heads\/main: [^)]+\): its branch moved on since it was read.*nothing was pushed and the space is unchanged/);
    expect(info.operation.error).not.toMatch(/One or more branches|force: true/);
    // The remote keeps the commit pushed meanwhile; the space keeps its edit.
    expect(await gitOutput('export-race', 'log', '--format=%s', '-1', 'refs/heads/main')).toContain('A commit pushed meanwhile');
    expect((await api('GET', `/v1/spaces/${space.id}`, { token })).body.revision).toBe(head);
    // The commit pushed meanwhile holds a page the space has not imported: the next export refuses it (issue 40); once the
    // branch is imported, the one after builds on the new remote head and succeeds.
    const refused = await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-3: Edit' });
    expect(refused.operation, JSON.stringify(refused)).toMatchObject({ state: 'failure' });
    expect(refused.operation.error).toContain('RACE.md added');
    await run(space.id, token, 'import', { url, ref: 'refs/heads/main' });
    const again = await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-3: Edit' });
    expect(again.operation, JSON.stringify(again)).toMatchObject({ state: 'success' });
    const files = await gitOutput('export-race', 'ls-tree', '--name-only', 'refs/heads/main');
    expect(files).toContain('RACE.md');
    expect(await gitOutput('export-race', 'show', 'refs/heads/main:README.md')).toContain('Edited.');
  });
  it('a page and a file made here get git {oid, path} at their export, equal to git ls-tree in the remote', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('export-meta', { files: { 'docs/README.md': '# Home\n\nHi.\n' } });
    const url = repositoryUrl('export-meta');
    await run(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true, repoProjectDirectory: 'docs' });
    const cr = await openChangeRequest(space.id, token, 'New page');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_files', files: [{ ref: 'logo', name: 'logo.txt', contentType: 'text/plain', base64: btoa('a logo\n') }] },
      { operation: 'insert_page', title: 'Made here', document: { markdown: '# Made here\n\nWritten in GitBook.\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const made = await pageIdAt(space.id, token, 'made-here');
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${made}`, { token }), 200).body.git).toBeUndefined();

    const info = await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-4: New page', repoProjectDirectory: 'docs' });
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
    const listed = new Map(
      (await gitOutput('export-meta', 'ls-tree', '-r', 'refs/heads/main'))
        .trim()
        .split('\n')
        .map((line) => [line.split('\t')[1], line.split('\t')[0].split(' ')[2]]),
    );
    const page = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${made}`, { token }), 200).body;
    expect(page.git).toEqual({ path: 'docs/made-here.md', oid: listed.get('docs/made-here.md') });
    const content = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body;
    expect(content.files[0].git).toEqual({ path: 'docs/.gitbook/assets/logo.txt', oid: listed.get('docs/.gitbook/assets/logo.txt') });
    // The head that carries them records the pushed commit (the integrations' loop guard), and a second export has nothing to push.
    const commit = (await gitOutput('export-meta', 'rev-parse', 'refs/heads/main')).trim();
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${content.id}`, { token }), 200).body.git).toMatchObject({ oid: commit, createdByGitBook: true });
    await run(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-5: again', repoProjectDirectory: 'docs' });
    expect((await gitOutput('export-meta', 'rev-parse', 'refs/heads/main')).trim()).toBe(commit);
  });
});
