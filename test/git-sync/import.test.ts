import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createSpace, pageMarkdown, pageTree } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, repositoryUrl, runPending } from '../helpers/git-sync';

/**
 * importGitRepository against a real Git server (test/fixtures/git-sync/git-server.mjs: git http-backend behind
 * basic auth) serving the GitBook-format repositories of ../shared/corpus/gitbook-format, with the bodies
 * GitBook's GitHub integration sends (integrations/github/src/sync.ts).
 */

async function importRepo(spaceId: string, token: string, body: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token, body }), 204);
  await runPending(spaceId);
  return (await gitInfo(spaceId, token)).body;
}

async function headOf(spaceId: string, token: string): Promise<string> {
  return (await api('GET', `/v1/spaces/${spaceId}`, { token })).body.revision;
}

async function pagesByPath(spaceId: string, token: string): Promise<Map<string, any>> {
  const res = await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token });
  const out = new Map<string, any>();
  const walk = (pages: any[]) => pages.forEach((p) => (out.set(p.path, p), walk(p.pages)));
  walk(res.body.pages);
  return out;
}

describe('importGitRepository (a real git http-backend)', () => {
  // The file's first import loads the Git client and the converters: 30 s were not enough on a loaded 2-core machine.
  it("imports GitBook's git-sync-normalization: SUMMARY order and groups, README first, front matter, assets as files that images point to", { timeout: 90_000 }, async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const repo = await createRepository('normalization', { corpus: 'git-sync-normalization' });
    // The setup import of the GitHub integration: force, with the head commit's time.
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { url: repositoryUrl('normalization'), ref: 'refs/heads/main', force: true, timestamp: '2024-01-01T00:00:00.000Z', repoTreeURL: 'https://github.com/acme/docs/blob/main', repoCommitURL: 'https://github.com/acme/docs/commit', repoProjectDirectory: '' } }), 204);
    const running = await gitInfo(space.id, token);
    expect(running.body).toMatchObject({ installationProvider: 'github', installationStatus: 'active', operation: { state: 'running', direction: 'import' } });
    await runPending(space.id);
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success', direction: 'import' });
    expect(info.operation.endedAt).toBeDefined();
    expect(JSON.stringify(info)).not.toContain('test-installation-token');
    const tree = await pageTree(space.id, token);
    expect(tree[0]).toBe('git-sync: Git Sync');
    expect(tree.slice(1, 4)).toEqual(['simple-paragraph-text-formatting: Simple paragraph text formatting', 'images: Images', 'lists: Lists']);
    expect(tree.slice(-3)).toEqual([
      'this-is-a-group: This is a group',
      'this-is-a-group/this-is-the-first-page-in-a-group: This is the first page in a group',
      'this-is-a-group/this-is-the-second-page-in-a-group: This is the second page in a group',
    ]);
    expect(tree).toHaveLength(19);
    const pages = await pagesByPath(space.id, token);
    expect(pages.get('images').description).toBe('Inline and block images');
    const files = (await api('GET', `/v1/spaces/${space.id}/content/files`, { token })).body.items;
    expect(files.map((f: any) => f.name).sort()).toEqual(['file.drawing.svg', 'sofianna-customer-avatar.png']);
    const avatar = files.find((f: any) => f.name === 'sofianna-customer-avatar.png');
    const images = await pageMarkdown(space.id, pages.get('images').id, token);
    expect(images).toContain(`/files/${avatar.id}`);
    expect(images).not.toContain('.gitbook/assets');
    // The revision records the commit it came from.
    const row = await env.DB.prepare('select r.oid, r.created_by_gitbook, r.url, r.ref from revision_git r join spaces s on s.revision_id = r.revision_id where s.id = ?').bind(space.id).first<any>();
    expect(row).toMatchObject({ oid: repo.head, created_by_gitbook: 0, url: `https://github.com/acme/docs/commit/${repo.head}`, ref: 'refs/heads/main' });
    // The credentials are gone once the operation ended.
    const secrets = await env.DB.prepare('select count(*) as n from git_sync_operations where space_id = ? and secret is not null').bind(space.id).first<{ n: number }>();
    expect(secrets?.n).toBe(0);
  });

  // 183 pages of Markdown converted in one import: about 20 s alone, twice that on a loaded 2-core machine.
  it('imports a real product guide (AxonIQ): nested folders with README pages, .gitbook.yaml, images, links between pages', { timeout: 120_000 }, async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('axoniq', { corpus: 'axoniq-reference-guide' });
    const started = Date.now();
    const info = await importRepo(space.id, token, { url: repositoryUrl('axoniq'), ref: 'refs/heads/main', force: true });
    console.log(`git-sync: AxonIQ guide imported in ${Date.now() - started} ms`);
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
    const tree = await pageTree(space.id, token);
    expect(tree.length).toBeGreaterThan(150);
    expect(tree[0]).toMatch(/^[a-z0-9-]+: Introduction$/);
    expect(tree).toContain('release-notes/rn-axon-framework/rn-af-major-releases: Major Releases');
    const pages = await pagesByPath(space.id, token);
    // A folder's README.md is the folder's page, with the folder's other pages under it.
    expect(pages.get('architecture-overview').pages.map((p: any) => p.slug)).toEqual(['ddd-cqrs-concepts', 'event-sourcing', 'event-driven-microservices']);
    const files = (await api('GET', `/v1/spaces/${space.id}/content/files?limit=1000`, { token })).body.items;
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  it('re-imports a push made with git: kept paths keep their page ids, only changed blobs are read, removed files lose their pages', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('reimport', {
      files: {
        'README.md': '# Welcome\n\nHello.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n* [Guide](guide/README.md)\n  * [Install](guide/install.md)\n* [Old](old.md)\n',
        'guide/README.md': '# Guide\n\nSee [install](install.md#step-2).\n',
        'guide/install.md': '# Install\n\n## Step 2\n\nRun it.\n',
        'old.md': '# Old\n\nGone soon.\n',
      },
    });
    const url = repositoryUrl('reimport');
    await importRepo(space.id, token, { url, ref: 'refs/heads/main', force: true, timestamp: '2024-01-01T00:00:00.000Z' });
    const before = await pagesByPath(space.id, token);
    expect([...before.keys()]).toEqual(['welcome', 'guide', 'guide/install', 'old']);
    const guide = await pageMarkdown(space.id, before.get('guide').id, token);
    expect(guide).toContain(`/pages/${before.get('guide/install').id}#step-2`);

    const pushed = await control('commit', {
      name: 'reimport',
      files: {
        'guide/install.md': '# Install\n\n## Step 2\n\nRun it twice.\n',
        'old.md': null,
        'new.md': '# New\n\nFresh.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n* [New](new.md)\n* [Guide](guide/README.md)\n  * [Install](guide/install.md)\n',
      },
      message: 'Edit install, add new, drop old',
    });
    const info = await importRepo(space.id, token, { url, ref: 'refs/heads/main', timestamp: '2024-02-01T00:00:00.000Z' });
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
    const after = await pagesByPath(space.id, token);
    expect([...after.keys()]).toEqual(['welcome', 'new', 'guide', 'guide/install']);
    for (const path of ['welcome', 'guide', 'guide/install']) expect(after.get(path).id).toBe(before.get(path).id);
    expect(await pageMarkdown(space.id, after.get('guide/install').id, token)).toContain('Run it twice.');
    const row = await env.DB.prepare('select r.oid from revision_git r join spaces s on s.revision_id = r.revision_id where s.id = ?').bind(space.id).first<any>();
    expect(row.oid).toBe(pushed.head);

    // The same commit again (the integration's loop): nothing changes.
    const head = await headOf(space.id, token);
    await importRepo(space.id, token, { url, ref: 'refs/heads/main', timestamp: '2024-02-01T00:00:01.000Z' });
    expect(await headOf(space.id, token)).toBe(head);

    // An older operation than one already run is skipped (timestamp order)...
    await control('commit', { name: 'reimport', files: { 'new.md': '# New\n\nNewer.\n' } });
    const skipped = await importRepo(space.id, token, { url, ref: 'refs/heads/main', timestamp: '2023-06-01T00:00:00.000Z' });
    expect(skipped.operation.state).toBe('success');
    expect(await headOf(space.id, token)).toBe(head);
    // ... unless forced.
    await importRepo(space.id, token, { url, ref: 'refs/heads/main', timestamp: '2023-06-01T00:00:00.000Z', force: true });
    expect(await headOf(space.id, token)).not.toBe(head);
  });

  it('a standalone import (a pull request) makes a revision without moving the head', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('standalone', { files: { 'README.md': '# Home\n\nMain.\n' } });
    const url = repositoryUrl('standalone');
    await importRepo(space.id, token, { url, ref: 'refs/heads/main', force: true });
    const head = await headOf(space.id, token);
    const pr = await control('commit', { name: 'standalone', files: { 'README.md': '# Home\n\nProposed.\n' }, ref: 'refs/pull/7/head' });
    const info = await importRepo(space.id, token, { url, ref: 'refs/pull/7/head', standalone: true });
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
    expect(await headOf(space.id, token)).toBe(head);
    const op = await env.DB.prepare(`select revision_id from git_sync_operations where space_id = ? order by created_at desc, rowid desc limit 1`).bind(space.id).first<any>();
    const revision = await api('GET', `/v1/spaces/${space.id}/revisions/${op.revision_id}`, { token });
    expectStatus(revision, 200);
    const git = await env.DB.prepare('select oid, ref from revision_git where revision_id = ?').bind(op.revision_id).first<any>();
    expect(git).toEqual({ oid: pr.head, ref: 'refs/pull/7/head' });
  });

  it('wrong credentials, a missing ref: a truthful failure that never shows the credentials', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('creds', { files: { 'README.md': '# Home\n' } });
    const wrong = await importRepo(space.id, token, { url: repositoryUrl('creds', { password: 'not-the-token-s3cret' }), ref: 'refs/heads/main', force: true });
    expect(wrong.operation.state).toBe('failure');
    expect(wrong.operation.error).toMatch(/401/);
    expect(JSON.stringify(wrong)).not.toContain('not-the-token-s3cret');
    const missing = await importRepo(space.id, token, { url: repositoryUrl('creds'), ref: 'refs/heads/nope', force: true });
    expect(missing.operation).toMatchObject({ state: 'failure', error: expect.stringContaining('refs/heads/nope') });
    const secrets = await env.DB.prepare('select count(*) as n from git_sync_operations where space_id = ? and secret is not null').bind(space.id).first<{ n: number }>();
    expect(secrets?.n).toBe(0);
  });
});
