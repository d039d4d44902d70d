import { describe, expect, it } from 'vitest';
import { parseSummary } from '../../src/services/git-sync/layout';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, githubBody, gitOutput, runGitOperation } from '../helpers/git-sync';

/**
 * A summary item whose quoted link title holds a parenthesis (GitBook writes `* [Old (\<v2) setup](old.md "Old (\<v2)")`
 * for a page whose navigation title is `Old (<v2)`; found on argos-ci/docs by gitprobe11a). The item's destination was
 * read up to the title's `)`, so it named no file: the page was left out of the import with its content, its child
 * items moved up to its parent, and the .gitbook.yaml redirects to it were reported as leading to no page.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '* [Setup](setup/README.md)',
  '  * [Old (\\<v2) setup](setup/old.md "Old (\\<v2)")',
  "    * [Old notes](setup/old-notes.md 'Notes (old)')",
  '  * [Current](setup/current.md)',
  '',
].join('\n');

const FILES = {
  '.gitbook.yaml': 'root: ./\n\nredirects:\n  legacy: setup/old.md\n',
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': SUMMARY,
  'setup/README.md': '# Setup\n\nThe two ways.\n',
  'setup/old.md': '# Old setup\n\nThe way before version two.\n',
  'setup/old-notes.md': '# Old notes\n\nWhat changed since.\n',
  'setup/current.md': '# Current\n\nThe way now.\n',
};

async function flatPages(spaceId: string, token: string): Promise<any[]> {
  const out: any[] = [];
  const walk = (pages: any[], parent: string | null) => pages.forEach((p) => (out.push({ ...p, parent }), walk(p.pages ?? [], p.id)));
  walk(expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages, null);
  return out;
}

describe('SUMMARY.md items whose link title holds a parenthesis', () => {
  it('reads the destination apart from a quoted title that holds ")" or "<"', () => {
    const pages = parseSummary(SUMMARY, '', (path) => path in FILES);
    const setup = pages[1];
    expect(setup.children.map((p) => [p.path, p.title, p.linkTitle])).toEqual([
      ['setup/old.md', 'Old (<v2) setup', 'Old (<v2)'],
      ['setup/current.md', 'Current', undefined],
    ]);
    expect(setup.children[0].children.map((p) => [p.path, p.linkTitle])).toEqual([['setup/old-notes.md', 'Notes (old)']]);
  });

  it('imports the page with its content, its children under it and its redirect, and an export keeps its summary line', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'summary-title-parentheses';
    await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages = await flatPages(space.id, token);
    const old = pages.find((p) => p.git?.path === 'setup/old.md');
    expect(old, JSON.stringify(pages.map((p) => p.git?.path))).toMatchObject({ title: 'Old setup', linkTitle: 'Old (<v2)' });
    expect(await pageMarkdown(space.id, old.id, token)).toContain('The way before version two.');
    expect(pages.find((p) => p.git?.path === 'setup/old-notes.md')).toMatchObject({ parent: old.id, linkTitle: 'Notes (old)' });
    const info = (await api('GET', `/v1/spaces/${space.id}/git/info`, { token })).body;
    expect(JSON.stringify(info.operation)).not.toContain('no page of the repository');

    // A page added: the summary is written again, and the item with the parenthesis is kept as it was written.
    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const cr = await openChangeRequest(space.id, token, 'Add a page');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Upgrade', document: { markdown: '# Upgrade\n\nAgain.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Add a page` });
    const head1 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(name, 'diff', '--name-status', head0, head1)).trim().split('\n').sort()).toEqual(['A\tupgrade.md', 'M\tSUMMARY.md']);
    const diff = await gitOutput(name, 'diff', '--unified=0', head0, head1, '--', 'SUMMARY.md');
    expect(diff.split('\n').filter((line) => /^[-+][^-+]/.test(line))).toEqual(['+* [Upgrade](upgrade.md)']);
  }, 180_000);
});
