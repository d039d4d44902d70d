import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * After a push, the space says what a fresh import of the pushed commit says: every page's title, type and file, in the
 * same tree and order (its paths kept by the id rules, so slugs are not compared). A push that only renamed a
 * SUMMARY.md item left the title of a page whose file has no heading 1 as it was (its blob did not change, so the page
 * was not read again), where a fresh import titles it by the item (issue 40). Its siblings: the item of a page with a
 * heading 1 renamed (the heading still titles it), a group renamed, the README moved to another file.
 */

type Outline = Array<{ title: string; type: string; file: string | null; pages: Outline }>;

async function outline(spaceId: string, token: string): Promise<Outline> {
  const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages;
  const walk = (list: any[]): Outline => list.map((p) => ({ title: p.title, type: p.type, file: p.git?.path ?? null, pages: walk(p.pages ?? []) }));
  return walk(pages);
}

async function freshImport(orgId: string, token: string, name: string): Promise<Outline> {
  const fresh = await createSpace(orgId, token);
  await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
  return outline(fresh.id, token);
}

const summary = (items: string) => `# Table of contents\n\n${items}`;

describe('Git Sync import: a push that changes only SUMMARY.md', () => {
  it('titles a page without a heading 1 by its renamed item, as a fresh import does', async () => {
    const name = `push-titles-item-${Date.now().toString(36)}`;
    const files = {
      'README.md': '# Home\n\nWelcome.\n',
      'plain.md': 'A page whose file has no heading 1.\n',
      'headed.md': '# The heading\n\nText under a heading 1.\n',
      'SUMMARY.md': summary('* [Home](README.md)\n* [Plain page](plain.md)\n* [Headed item](headed.md)\n'),
    };
    const { org, token, space, byPath } = await importedSpace(name, files);
    expect(byPath('plain.md').title).toBe('Plain page');
    expect(byPath('headed.md').title).toBe('The heading');

    await control('commit', { name, message: 'Rename two items', files: { 'SUMMARY.md': summary('* [Home](README.md)\n* [Plain page, renamed](plain.md)\n* [Headed item, renamed](headed.md)\n') } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: false, timestamp: new Date().toISOString() });

    const fresh = await freshImport(org.id, token, name);
    expect(fresh.find((p) => p.file === 'plain.md')!.title).toBe('Plain page, renamed');
    expect(fresh.find((p) => p.file === 'headed.md')!.title).toBe('The heading');
    expect(await outline(space.id, token)).toEqual(fresh);
    // The page kept its id (only its title changed).
    const page = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${byPath('plain.md').id}`, { token }), 200).body;
    expect(page.title).toBe('Plain page, renamed');
  }, 120_000);

  it('keeps a title changed in the space since the last sync (not exported yet) through a push that did not rename its item', async () => {
    const name = `push-titles-kept-${Date.now().toString(36)}`;
    const files = {
      'README.md': '# Home\n\nWelcome.\n',
      'plain.md': 'A page whose file has no heading 1.\n',
      'other.md': '# Other\n\nAnother page.\n',
      'SUMMARY.md': summary('* [Home](README.md)\n* [Plain page](plain.md)\n* [Other](other.md)\n'),
    };
    const { token, space, byPath } = await importedSpace(name, files);
    const plain = byPath('plain.md').id;
    const cr = (await openChangeRequest(space.id, token)).number;
    await applyChanges(space.id, cr, token, [{ operation: 'update_page', page: plain, title: 'Retitled in the app' }]);
    expectStatus(await merge(space.id, cr, token), 200);

    await control('commit', { name, message: 'Edit another page', files: { 'other.md': '# Other\n\nAnother page, edited.\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: false, timestamp: new Date().toISOString() });
    const page = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${plain}`, { token }), 200).body;
    expect(page.title).toBe('Retitled in the app');
  }, 120_000);

  it('renames a group and follows a README moved to another file, as a fresh import does', async () => {
    const name = `push-titles-group-${Date.now().toString(36)}`;
    const files = {
      'README.md': 'Welcome, without a heading.\n',
      'start.md': 'The new first page, without a heading.\n',
      'guide/one.md': 'Guide one, no heading.\n',
      'guide/two.md': '# Two\n\nGuide two.\n',
      'SUMMARY.md': summary('* [Welcome](README.md)\n\n## Guides\n\n* [One](guide/one.md)\n* [Second](guide/two.md)\n'),
    };
    const { org, token, space } = await importedSpace(name, files);

    await control('commit', {
      name,
      message: 'Rename the group, start elsewhere',
      files: { 'SUMMARY.md': summary('* [Start here](start.md)\n* [Welcome back](README.md)\n\n## How-to guides\n\n* [One, renamed](guide/one.md)\n* [Second](guide/two.md)\n') },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: false, timestamp: new Date().toISOString() });

    const fresh = await freshImport(org.id, token, name);
    expect(fresh.map((p) => p.title)).toEqual(['Start here', 'Welcome back', 'How-to guides']);
    expect(fresh[2].pages.map((p) => p.title)).toEqual(['One, renamed', 'Two']);
    expect(await outline(space.id, token)).toEqual(fresh);
  }, 120_000);
});
