import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageTree } from '../helpers/content';
import { expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, repositoryUrl, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories (a Russian one, a Chinese one): pages whose file names or titles are in another script
 * got the slugs `page`, `page-2`... on import, and a page created here with such a title was exported as `page.md`.
 * GitBook transliterates (its own paths: `udalit-zavisshuyu-tranzakciyu.md`, `chang-jian-wen-ti.md`).
 */

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': [
    '# Table of contents',
    '',
    '* [Home](README.md)',
    '* [тестовые стенды](<DEPLOY/тестовые стенды.md>)',
    '* [快捷助手](notes/😀.md)',
    '',
    '## 起步',
    '',
    '* [Install](install.md)',
    '',
  ].join('\n'),
  'DEPLOY/тестовые стенды.md': '# тестовые стенды\n\nStands.\n',
  'notes/😀.md': '# 快捷助手\n\nShortcuts.\n',
  'install.md': '# Install\n\nRun it.\n',
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

describe('Git Sync paths and slugs in other scripts', () => {
  it('imports files named or titled in Cyrillic and Chinese with transliterated slugs', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('paths-scripts', { files: FILES });
    await runGitOperation(space.id, token, 'import', body('paths-scripts', { force: true }));
    expect(await pageTree(space.id, token)).toEqual([
      'home: Home',
      // From the file's name.
      'testovye-stendy: тестовые стенды',
      // A name with nothing to read (`😀.md`): from the title.
      'kuai-jie-zhu-shou: 快捷助手',
      // A summary group: from its title.
      'qi-bu: 起步',
      'qi-bu/install: Install',
    ]);
  });

  it('exports a page created with a Cyrillic title under its transliterated file name', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('paths-scripts-export', { files: { 'README.md': '# Home\n\nHi.\n', 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n' } });
    await runGitOperation(space.id, token, 'import', body('paths-scripts-export', { force: true }));
    const before = (await gitOutput('paths-scripts-export', 'rev-parse', 'refs/heads/main')).trim();
    const cr = await openChangeRequest(space.id, token, 'Новая страница');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', title: 'Удалить зависшую транзакцию', document: { markdown: '# Удалить зависшую транзакцию\n\nROLLBACK.\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', body('paths-scripts-export', { commitMessage: `GITBOOK-${cr.number}: Новая страница` }));
    const changed = await gitOutput('paths-scripts-export', 'diff', '--name-status', before, 'refs/heads/main');
    expect(changed.trim().split('\n').sort()).toEqual(['A\tudalit-zavisshuyu-tranzakciyu.md', 'M\tSUMMARY.md']);
    expect(await gitOutput('paths-scripts-export', 'show', 'refs/heads/main:SUMMARY.md')).toContain('* [Удалить зависшую транзакцию](udalit-zavisshuyu-tranzakciyu.md)');
  });
});
