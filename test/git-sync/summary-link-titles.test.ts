import { describe, expect, it } from 'vitest';
import { parseSummary } from '../../src/services/git-sync/layout';
import { applyChanges, createSpace, merge, openChangeRequest, postChanges } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, githubBody, gitOutput, runGitOperation } from '../helpers/git-sync';

/**
 * A summary item's text and its quoted link title, as GitBook reads and writes them. GitBook's Git Sync documentation:
 * `* [Page main title](page.md "Page link title")`, the quoted text being the page's navigation title (0.202.0's
 * `linkTitle`: the table of contents, pagination, links). The import dropped the quoted title, and an export that
 * rewrote SUMMARY.md (a page added, moved or renamed) wrote every item's text as its page's title: an author's
 * `* [Setup](install.md)` for a page titled "Installing" became `* [Installing](install.md)`, a diff on lines nobody
 * touched.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '* [Setup](install.md)',
  '* [Reference](reference.md "API")',
  '* [Guides](guides/README.md)',
  '  * [Deploy](guides/deploy.md)',
  '  * [Status](https://status.example.com "Is it up?")',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': SUMMARY,
  'install.md': '# Installing\n\nRun it.\n',
  'reference.md': '# Reference\n\nEvery call.\n',
  'guides/README.md': '# Guides\n\nAll of them.\n',
  'guides/deploy.md': '# Deploy\n\nShip it.\n',
};

async function flatPages(spaceId: string, token: string): Promise<any[]> {
  const out: any[] = [];
  const walk = (pages: any[]) => pages.forEach((p) => (out.push(p), walk(p.pages ?? [])));
  walk(expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages);
  return out;
}

describe('SUMMARY.md link texts and link titles', () => {
  it('reads a quoted link title as the navigation title, apart from the destination', () => {
    const pages = parseSummary(SUMMARY, '', (path) => path in FILES);
    expect(pages.map((p) => [p.path, p.title, p.linkTitle])).toEqual([
      ['README.md', 'Home', undefined],
      ['install.md', 'Setup', undefined],
      ['reference.md', 'Reference', 'API'],
      ['guides/README.md', 'Guides', undefined],
    ]);
    expect(pages[3].children.map((p) => [p.key, p.linkTitle])).toEqual([
      ['guides/deploy.md', undefined],
      ['link:https://status.example.com', 'Is it up?'],
    ]);
    expect(parseSummary(`* [A](a.md 'Single \\'quoted\\'')\n* [B](b.md "Say \\"hi\\"")\n`, '', () => true).map((p) => [p.path, p.linkTitle])).toEqual([
      ['a.md', "Single 'quoted'"],
      ['b.md', 'Say "hi"'],
    ]);
  });

  it('imports link titles, keeps the items an export did not change byte for byte, and writes link titles back', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'summary-link-titles';
    await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages = await flatPages(space.id, token);
    expect(pages.map((p) => [p.title, p.linkTitle])).toEqual([
      ['Home', undefined],
      ['Installing', undefined],
      ['Reference', 'API'],
      ['Guides', undefined],
      ['Deploy', undefined],
      ['Status', 'Is it up?'],
    ]);
    const [home, install, reference, , deploy] = pages;
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${reference.id}`, { token }), 200).body;
    expect(read).toMatchObject({ title: 'Reference', linkTitle: 'API' });

    // Nothing changed: no commit.
    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'GITBOOK-1: Nothing' });
    expect((await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim()).toBe(head0);

    // A page added and one renamed: the summary is written again, and only their lines change.
    const cr = await openChangeRequest(space.id, token, 'Add and rename');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', title: 'Upgrade', document: { markdown: '# Upgrade\n\nAgain.\n' } },
      { operation: 'update_page', page: deploy.id, title: 'Deploying' },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Add and rename` });
    const head1 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const diff = await gitOutput(name, 'diff', '--unified=0', head0, head1, '--', 'SUMMARY.md');
    expect(diff.split('\n').filter((line) => /^[-+][^-+]/.test(line))).toEqual(['-  * [Deploy](guides/deploy.md)', '+  * [Deploying](guides/deploy.md)', '+* [Upgrade](upgrade.md)']);

    // A link title set, changed and removed through the API: only SUMMARY.md changes (the pages' files do not hold it).
    const cr2 = await openChangeRequest(space.id, token, 'Link titles');
    await applyChanges(space.id, cr2.number, token, [
      { operation: 'update_page', page: home.id, linkTitle: 'Start here' },
      { operation: 'update_page', page: reference.id, linkTitle: '' },
      { operation: 'update_page', page: install.id, linkTitle: 'Install "it"' },
    ]);
    expectStatus(await merge(space.id, cr2.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr2.number}: Link titles` });
    const head2 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(name, 'diff', '--name-status', head1, head2)).trim()).toBe('M\tSUMMARY.md');
    const summary = await gitOutput(name, 'show', `${head2}:SUMMARY.md`);
    expect(summary).toContain('* [Home](README.md "Start here")\n* [Setup](install.md "Install \\"it\\"")\n* [Reference](reference.md)\n');

    // Changed in Git: the next import takes the link titles the summary has, and removes the one it no longer has.
    await control('commit', { name, files: { 'SUMMARY.md': summary.replace(' "Start here"', '').replace('(reference.md)', '(reference.md "Calls")') }, message: 'Edit the summary' });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date(Date.now() + 5000).toISOString() });
    const again = await flatPages(space.id, token);
    expect(again.filter((p) => [home.id, install.id, reference.id].includes(p.id)).map((p) => [p.id, p.linkTitle])).toEqual([
      [home.id, undefined],
      [install.id, 'Install "it"'],
      [reference.id, 'Calls'],
    ]);
  }, 180_000);

  it('sets a link title through a content batch within GitBook’s bound (100 characters), and another organization cannot', async () => {
    const org = await seedOrg();
    const other = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const cr = await openChangeRequest(space.id, org.owner.token, 'Link title');
    const made = await applyChanges(space.id, cr.number, org.owner.token, [{ operation: 'insert_page', title: 'Installing the agent', linkTitle: 'Install', document: {} }]);
    const id = made.changes[0].page.id;
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${id}`, { token: org.owner.token }), 200).body;
    expect(read).toMatchObject({ title: 'Installing the agent', linkTitle: 'Install' });
    const long = await postChanges(space.id, cr.number, org.owner.token, [{ operation: 'update_page', page: id, linkTitle: 'x'.repeat(101) }], false);
    expect(long.status, JSON.stringify(long.body)).toBe(400);
    expect(JSON.stringify(long.body.error)).toContain('linkTitle');
    const foreign = await postChanges(space.id, cr.number, other.owner.token, [{ operation: 'update_page', page: id, linkTitle: 'Taken' }], false);
    expect(foreign.status).toBe(404);
    const again = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${id}`, { token: org.owner.token }), 200).body;
    expect(again.linkTitle).toBe('Install');
  });
});
