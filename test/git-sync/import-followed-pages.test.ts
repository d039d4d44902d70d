import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * A page whose file was moved and renamed, or moved and edited, keeps its id where git's rename detection pairs the two
 * files unambiguously (issue 40): the same blob, or a similar one (half its lines or more) where exactly one page vanished
 * and one appeared under the same summary parent. After the push the space is what a fresh import of the commit makes
 * (tree, titles, paths, text): only the ids differ, the followed page keeping its own. A file rewritten beyond recognition,
 * or two vanished pages under one parent, are new pages, as git would not pair them.
 */

const flatPages = async (spaceId: string, token: string) => {
  const flat: any[] = [];
  const walk = (pages: any[]) => pages.forEach((p) => (flat.push(p), walk(p.pages ?? [])));
  walk(expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages);
  return flat;
};

const markdownOf = async (spaceId: string, token: string, pageId: string) =>
  expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`, { token }), 200).body.markdown as string;

/** What a reader sees of the space, ids aside: each page's path, title, file and text (links by path). */
async function shapeOf(spaceId: string, token: string) {
  const pages = await flatPages(spaceId, token);
  const pathOf = new Map(pages.map((p) => [p.id, p.path]));
  const out = [];
  for (const p of pages) {
    const markdown = p.type === 'document' ? (await markdownOf(spaceId, token, p.id)).replace(/\/pages\/(\w+)/g, (_, id) => `/pages/<${pathOf.get(id)}>`) : '';
    out.push({ path: p.path, title: p.title, git: p.git?.path ?? null, markdown });
  }
  return out;
}

const lines = (n: number, word: string) => Array.from({ length: n }, (_, i) => `Line ${i + 1} of the ${word} page, which says something.`).join('\n\n');

describe('Git Sync import: a page whose file is moved and renamed, or moved and edited', () => {
  it('keeps its id, and the space equals a fresh import of the commit', { timeout: 300_000 }, async () => {
    const name = `followed-${crypto.randomUUID().slice(0, 8)}`;
    const install = `# Install\n\n${lines(12, 'install')}\n`;
    const configure = `# Configure\n\n${lines(12, 'configure')}\n\nSee [install](install.md).\n`;
    const { org, token, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n\n## Guides\n\n* [Install](guides/install.md)\n* [Configure](guides/configure.md)\n\n## Reference\n\n* [Old](reference/old.md)\n* [Gone one](reference/one.md)\n* [Gone two](reference/two.md)\n',
      'README.md': '# Home\n\nWelcome.\n',
      'guides/install.md': install,
      'guides/configure.md': configure,
      'reference/old.md': '# Old\n\nSomething short.\n',
      'reference/one.md': `# One\n\n${lines(6, 'one')}\n`,
      'reference/two.md': `# Two\n\n${lines(6, 'two')}\n`,
    });
    const before = await flatPages(space.id, token);
    const idOf = (path: string) => before.find((p) => p.git?.path === path).id;

    // install.md moved and renamed (same bytes); configure.md moved, renamed and edited (one line changed, one added);
    // old.md rewritten whole under a new name; one.md and two.md replaced by one edited file (two candidates: ambiguous).
    const edited = configure.replace('Line 3 of the configure page', 'Line three of the configure page').replace('(install.md)', '(setup.md)') + '\nOne more line.\n';
    await control('commit', {
      name,
      message: 'Move, rename and edit',
      files: {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n\n## Guides\n\n* [Setup](start/setup.md)\n* [Settings](start/settings.md)\n\n## Reference\n\n* [New](reference/new.md)\n* [Both](reference/both.md)\n',
        'guides/install.md': null,
        'guides/configure.md': null,
        'start/setup.md': install,
        'start/settings.md': edited,
        'reference/old.md': null,
        'reference/new.md': '# New\n\nNothing of the old text is here at all.\n',
        'reference/one.md': null,
        'reference/two.md': null,
        'reference/both.md': `# One\n\n${lines(6, 'one')}\n`.replace('Line 2', 'Line two'),
      },
    });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    const after = await flatPages(space.id, token);
    const at = (path: string) => after.find((p) => p.git?.path === path);

    expect(at('start/setup.md')).toMatchObject({ id: idOf('guides/install.md'), title: 'Install', path: 'guides/setup' });
    expect(at('start/settings.md')).toMatchObject({ id: idOf('guides/configure.md'), title: 'Configure', path: 'guides/settings' });
    expect(await markdownOf(space.id, token, at('start/settings.md').id)).toContain(`[install](/pages/${idOf('guides/install.md')})`);
    expect(await markdownOf(space.id, token, at('start/settings.md').id)).toContain('Line three of the configure page');
    // Not paired: rewritten whole, or one of two.
    expect(at('reference/new.md').id).not.toBe(idOf('reference/old.md'));
    expect([idOf('reference/one.md'), idOf('reference/two.md')]).not.toContain(at('reference/both.md').id);

    // The same commit imported fresh into another space reads the same, ids aside.
    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    expect(await shapeOf(space.id, token)).toEqual(await shapeOf(fresh.id, token));
  });

  it('keeps the id of a page GitBook moves from `x.md` to `x/README.md` as it gets children, its text rewritten', { timeout: 300_000 }, async () => {
    const name = `followed-readme-${crypto.randomUUID().slice(0, 8)}`;
    const { org, token, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Legends](guide/legends.md)\n',
      'README.md': '# Home\n\nWelcome.\n',
      'guide/legends.md': '# Legends\n\nThe first text of the page.\n\nA second paragraph.\n',
    });
    const legends = (await flatPages(space.id, token)).find((p) => p.git?.path === 'guide/legends.md');
    await control('commit', {
      name,
      message: 'GITBOOK-2: Legends gets a child',
      files: {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Legends](guide/legends/README.md)\n  * [Search](guide/legends/search.md)\n',
        'guide/legends.md': null,
        'guide/legends/README.md': '# Legends\n\nEntirely new words here.\n\n## Commands\n\nSee below.\n',
        'guide/legends/search.md': '# Search\n\nFind one.\n',
      },
    });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    const after = await flatPages(space.id, token);
    expect(after.find((p) => p.git?.path === 'guide/legends/README.md')).toMatchObject({ id: legends.id, path: legends.path, title: 'Legends' });

    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    expect(await shapeOf(space.id, token)).toEqual(await shapeOf(fresh.id, token));
  });
});
