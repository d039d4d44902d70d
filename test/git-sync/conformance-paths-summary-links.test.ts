import { describe, expect, it } from 'vitest';
import { parseSummary } from '../../src/services/git-sync/layout';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitOutput, repositoryUrl, runGitOperation } from '../helpers/git-sync';
import { publishedSite, visit } from '../site/helpers';

/**
 * Found on real repositories: SUMMARY.md items that lead out of the repository (`* [Status page](https://...)`)
 * were dropped by the import, and an export that rewrote the summary lost them. GitBook keeps them as link pages
 * (`RevisionPageLink`: `type: "link"`, `target` a ContentRef, `href`), in their place in the tree.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '* [Status page](https://status.example.com)',
  '* [Guides](guides/README.md)',
  '  * [Install](guides/install.md)',
  '  * [Changelog](https://github.com/acme/app/releases)',
  '',
  '## Community',
  '',
  '* [Forum](https://forum.example.com/c/docs?tab=new)',
  '* [Write to us](mailto:docs@example.com)',
  '* [Run](javascript:alert%281%29)',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': SUMMARY,
  'guides/README.md': '# Guides\n\nAll of them.\n',
  'guides/install.md': '# Install\n\nRun it.\n',
};

const body = (name: string, extra: Record<string, unknown> = {}) => ({
  url: repositoryUrl(name),
  ref: 'refs/heads/main',
  repoTreeURL: `https://github.com/acme/${name}/blob/main`,
  repoCommitURL: `https://github.com/acme/${name}/commit`,
  repoCacheID: `key-${name}`,
  force: false,
  standalone: false,
  ...extra,
});

async function tree(spaceId: string, token: string): Promise<any[]> {
  const res = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200);
  const out: any[] = [];
  const walk = (pages: any[], depth: number) => pages.forEach((p) => (out.push({ ...p, depth }), walk(p.pages ?? [], depth + 1)));
  walk(res.body.pages, 0);
  return out;
}

describe('SUMMARY.md links to URLs as link pages', () => {
  it('reads them in their place, with no children of their own', () => {
    const pages = parseSummary(SUMMARY, '', (path) => path in FILES);
    expect(pages.map((p) => [p.key, p.title, p.link])).toEqual([
      ['README.md', 'Home', undefined],
      ['link:https://status.example.com', 'Status page', 'https://status.example.com'],
      ['guides/README.md', 'Guides', undefined],
      ['group:Community', 'Community', undefined],
    ]);
    expect(pages[2].children.map((p) => p.key)).toEqual(['guides/install.md', 'link:https://github.com/acme/app/releases']);
    expect(pages[3].children.map((p) => p.link)).toEqual(['https://forum.example.com/c/docs?tab=new', 'mailto:docs@example.com', 'javascript:alert%281%29']);
  });

  it('imports them as GitBook link pages, keeps them byte for byte on export, and writes them back in a new summary', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'paths-summary-links';
    await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', body(name, { force: true }));
    const pages = await tree(space.id, token);
    expect(pages.map((p) => `${'  '.repeat(p.depth)}${p.type}:${p.title}`)).toEqual([
      'document:Home',
      'link:Status page',
      'document:Guides',
      '  document:Install',
      '  link:Changelog',
      'group:Community',
      '  link:Forum',
      '  link:Write to us',
      '  link:Run',
    ]);
    const status = pages[1];
    expect(status).toMatchObject({ kind: 'link', type: 'link', title: 'Status page', target: { kind: 'url', url: 'https://status.example.com' }, href: 'https://status.example.com', hidden: false });
    expect(status).not.toHaveProperty('slug');
    expect(status).not.toHaveProperty('git');
    // Read by id: the link page as GitBook gives it.
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${status.id}`, { token }), 200);
    expect(read.body).toMatchObject({ id: status.id, type: 'link', href: 'https://status.example.com' });

    // The published site's navigation leads to them; no URL of the site is theirs.
    const site = await publishedSite(org, [space.id]);
    const home = await visit(`/s/${site.id}/`);
    expect(home.status).toBe(200);
    expect(home.text).toContain('<a class="external" href="https://status.example.com" rel="noopener">Status page</a>');
    expect(home.text).toContain('href="mailto:docs@example.com"');
    expect((await visit(`/s/${site.id}/status-page`)).status).toBe(404);
    // A script URL is listed, not linked.
    expect(home.text).toContain('<li>Run</li>');
    expect(home.text).not.toContain('javascript:');

    // A link page has no document and no child pages: the content batch refuses both.
    const refused = await openChangeRequest(space.id, token, 'Refused');
    for (const change of [
      { operation: 'update_page', page: status.id, document: { markdown: '# Status\n\nUp.\n' } },
      { operation: 'insert_page', into: status.id, title: 'Under a link', document: {} },
      { operation: 'update_page', page: pages[3].id, into: status.id },
    ]) {
      const res = await api('POST', `/v1/spaces/${space.id}/change-requests/${refused.number}/content?compat=false`, { token, body: { changes: [change] } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.message).toContain('link page');
    }

    // An export with nothing changed: no commit (the summary describes the tree, links included).
    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    await runGitOperation(space.id, token, 'export', body(name, { commitMessage: 'GitBook: No commit message' }));
    expect((await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim()).toBe(head0);

    // A page edited: the summary is not rewritten (byte for byte).
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages[3].id, document: { markdown: '# Install\n\nRun it twice.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', body(name, { commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() }));
    const head1 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(name, 'diff', '--name-status', head0, head1)).trim()).toBe('M\tguides/install.md');

    // The tree changed: the summary is written again, with the links in their places, and read back the same.
    const cr2 = await openChangeRequest(space.id, token, 'Move');
    await applyChanges(space.id, cr2.number, token, [{ operation: 'update_page', page: pages[2].id, into: null, at: 0 }]);
    expectStatus(await merge(space.id, cr2.number, token), 200);
    await runGitOperation(space.id, token, 'export', body(name, { commitMessage: `GITBOOK-${cr2.number}: Move`, timestamp: new Date(Date.now() + 1000).toISOString() }));
    const summary = await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md');
    expect(summary).toContain('* [Status page](https://status.example.com)\n');
    expect(summary).toContain('  * [Changelog](https://github.com/acme/app/releases)\n');
    expect(summary).toContain('## Community\n\n* [Forum](https://forum.example.com/c/docs?tab=new)\n* [Write to us](mailto:docs@example.com)\n');
    const exported = await tree(space.id, token);
    await control('commit', { name, files: { 'guides/install.md': '# Install\n\nRun it three times.\n' }, message: 'Edit with git' });
    await runGitOperation(space.id, token, 'import', body(name, { timestamp: new Date(Date.now() + 2000).toISOString() }));
    // Every page, links and the group included, keeps its id and place.
    expect((await tree(space.id, token)).map((p) => `${p.depth}:${p.type}:${p.id}`)).toEqual(exported.map((p) => `${p.depth}:${p.type}:${p.id}`));
  });
});
