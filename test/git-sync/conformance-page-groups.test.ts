import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { parseSummary } from '../../src/services/git-sync/layout';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, githubBody, gitOutput, runGitOperation } from '../helpers/git-sync';

/**
 * GitBook's page groups through Git Sync. A SUMMARY.md `## Title` is a group (GitBook's RevisionPageGroup) holding the
 * items under it, whose files GitBook keeps in the group's slug's folder; where that slug is not the title's own, GitBook
 * writes it as the heading's anchor (`## Get Started <a href="#getting-started" id="getting-started"></a>` in its own
 * documentation). A thematic break (`***`, which GitBook writes) ends the group, and the items after it are pages of
 * the top level again. Before, a group was imported as an empty document page (its slug the title's), and the items
 * after `***` were put in the group before it. And a summary item with a link title (`[Configure](guides/configure.md
 * "Set it up")`, in GitBook's own documentation) was dropped with its page: the title was read as part of the path.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '',
  '## Guides and tips <a href="#guides" id="guides"></a>',
  '',
  '* [Install](guides/install.md)',
  '  * [On Linux](guides/install/linux.md)',
  '* [Configure](guides/configure.md "Set it up")',
  '',
  '***',
  '',
  '* [Changelog](changelog.md)',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': SUMMARY,
  'guides/install.md': '# Install\n\nRun it.\n',
  'guides/install/linux.md': '# On Linux\n\nWith a package.\n',
  'guides/configure.md': '# Configure\n\nSet it.\n',
  'changelog.md': '# Changelog\n\nWhat changed.\n',
};

async function tree(spaceId: string, token: string): Promise<string[]> {
  const res = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200);
  const out: string[] = [];
  const walk = (pages: any[], depth: number) => pages.forEach((p) => (out.push(`${'  '.repeat(depth)}${p.type} ${p.path} ${p.id}`), walk(p.pages ?? [], depth + 1)));
  walk(res.body.pages, 0);
  return out;
}

const withoutIds = (lines: string[]) => lines.map((line) => line.replace(/ \S+$/, ''));

describe('SUMMARY.md groups as GitBook page groups', () => {
  it('reads a heading as a group, and items after a thematic break as pages of the top level', () => {
    for (const rule of ['***', '---', '___', '* * *']) {
      const pages = parseSummary(SUMMARY.replace('***', rule), '', (path) => path in FILES);
      expect(pages.map((p) => [p.key, p.group ?? false])).toEqual([
        ['README.md', false],
        ['group:Guides and tips', true],
        ['changelog.md', false],
      ]);
      expect(pages[1]).toMatchObject({ title: 'Guides and tips', slug: 'guides' });
      expect(pages[1].children.map((p) => p.key)).toEqual(['guides/install.md', 'guides/configure.md']);
      // A link title after the destination, as GitBook writes some (its own documentation), is no part of the path.
      expect(pages[1].children[1]).toMatchObject({ path: 'guides/configure.md', title: 'Configure', linkTitle: 'Set it up' });
    }
  });

  it('imports groups, exports an unchanged tree as no commit, writes new groups and pages as GitBook does, and keeps ids across a push', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'conformance-page-groups';
    await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const imported = await tree(space.id, token);
    expect(withoutIds(imported)).toEqual([
      'document home',
      'group guides',
      '  document guides/install',
      '    document guides/install/linux',
      '  document guides/configure',
      'document changelog',
    ]);
    const group = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/path/guides`, { token }), 200).body;
    expect(group).toMatchObject({ type: 'group', kind: 'group', title: 'Guides and tips', slug: 'guides' });
    expect(group).not.toHaveProperty('git');

    // Nothing changed: no commit (the summary describes the tree, the break before the last page included).
    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'GitBook: No commit message' });
    expect((await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim()).toBe(head0);

    // A page added to the group, and a new group with a page after the last page: files in the groups' folders.
    const groupId = imported[1].split(' ').pop()!;
    const cr = await openChangeRequest(space.id, token, 'More');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', into: groupId, title: 'Upgrade', document: { markdown: 'Upgrade it.\n' } },
      { operation: 'insert_page', ref: 'reference', type: 'group', title: 'Reference', slug: 'api' },
      { operation: 'insert_page', into: 'reference', title: 'Endpoints', document: { markdown: 'Call them.\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: More` });
    const head1 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(name, 'diff', '--name-status', head0, head1)).trim().split('\n').sort()).toEqual(['A\tapi/endpoints.md', 'A\tguides/upgrade.md', 'M\tSUMMARY.md']);
    expect(await gitOutput(name, 'show', `${head1}:SUMMARY.md`)).toBe(
      [
        '# Table of contents',
        '',
        '* [Home](README.md)',
        '',
        '## Guides and tips <a href="#guides" id="guides"></a>',
        '',
        '* [Install](guides/install.md)',
        '  * [On Linux](guides/install/linux.md)',
        // Its link title kept: the page's navigation title (GitBook's linkTitle), as GitBook writes it.
        '* [Configure](guides/configure.md "Set it up")',
        '* [Upgrade](guides/upgrade.md)',
        '',
        '***',
        '',
        '* [Changelog](changelog.md)',
        '',
        '## Reference <a href="#api" id="api"></a>',
        '',
        '* [Endpoints](api/endpoints.md)',
        '',
      ].join('\n'),
    );
    await gitOutput(name, 'fsck', '--strict');
    const exported = await tree(space.id, token);

    // A push made with git, imported: every page and group keeps its id and place.
    await control('commit', { name, files: { 'guides/configure.md': '# Configure\n\nSet it, edited with git.\n' }, message: 'Edit' });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: false, timestamp: new Date().toISOString() });
    expect(await tree(space.id, token)).toEqual(exported);
  });

  it('turns the empty pages an import made of headings before groups existed into groups, keeping their ids', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    // What an import before groups left: an empty document page for `## Guides`, known to Git Sync as `group:Guides`.
    const cr = await openChangeRequest(space.id, token, 'Before groups');
    const made = await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', ref: 'home', title: 'Home', document: { markdown: 'Welcome.\n' } },
      { operation: 'insert_page', ref: 'guides', title: 'Guides', document: {} },
      { operation: 'insert_page', ref: 'install', into: 'guides', title: 'Install', document: { markdown: 'Run it.\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const id = Object.fromEntries(made.changes.map((c: any) => [c.ref, c.page.id]));
    const insert = env.DB.prepare('insert into git_sync_entries (space_id, path, kind, target_id, oid, hash) values (?, ?, ?, ?, ?, null)');
    await env.DB.batch([
      insert.bind(space.id, 'README.md', 'page', id.home, ''),
      insert.bind(space.id, 'group:Guides', 'page', id.guides, ''),
      insert.bind(space.id, 'guides/install.md', 'page', id.install, ''),
    ]);
    const before = await tree(space.id, token);
    expect(withoutIds(before)).toEqual(['document home', 'document guides', '  document guides/install']);

    const name = 'conformance-page-groups-before';
    await createRepository(name, { files: { 'README.md': FILES['README.md'], 'guides/install.md': FILES['guides/install.md'], 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n\n## Guides\n\n* [Install](guides/install.md)\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    expect(await tree(space.id, token)).toEqual(before.map((line) => line.replace('document guides ', 'group guides ')));
  });
});
