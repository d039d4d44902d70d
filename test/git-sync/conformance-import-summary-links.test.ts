import { describe, expect, it } from 'vitest';
import { parseSummary, rewriteLinks } from '../../src/services/git-sync/layout';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, githubBody, runPending } from '../helpers/git-sync';

/**
 * Found on a real repository (a team's handbook in Russian, its SUMMARY.md written by GitBook): GitBook escapes the
 * underscores of a link's destination (`[deploy](DEPLOY/down\_time/README.md)`), which CommonMark reads as
 * `DEPLOY/down_time/README.md`. The import read the backslashes as folder separators (`down/_time`), found no such
 * file and left the page and its children out of the space; a page's own link written that way stayed a dead URL.
 * Destinations in angle brackets with spaces and Cyrillic names (`<Software Architecture/паттерны.md>`) were read.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [README.md](README.md)',
  '* [agile planning](<agile  planning.md>)',
  '* [DEPLOY](DEPLOY/README.md)',
  '  * [тестовые стенды](<DEPLOY/тестовые стенды.md>)',
  '  * [down\\_time\\_deploy](DEPLOY/down\\_time\\_deploy/README.md)',
  '    * [scheme](DEPLOY/down\\_time\\_deploy/scheme.md)',
  '* [Архитектура](<Software Architecture/readme.md>)',
  '  * [паттерны](<Software Architecture/паттерны.md>)',
  '',
].join('\n');

const FILES: Record<string, string> = {
  'README.md': '# Home\n\nSee the [scheme](DEPLOY/down\\_time\\_deploy/scheme.md).\n',
  'SUMMARY.md': SUMMARY,
  'agile  planning.md': '**Roadmap**\n',
  'DEPLOY/README.md': '# DEPLOY\n\nHow we deploy.\n',
  'DEPLOY/тестовые стенды.md': 'Стенды.\n',
  'DEPLOY/down_time_deploy/README.md': '# Down time deploy\n\nSteps.\n',
  'DEPLOY/down_time_deploy/scheme.md': 'Особенности.\n',
  'Software Architecture/readme.md': '# Архитектура\n\nОснова.\n',
  'Software Architecture/паттерны.md': 'Паттерны.\n',
};

describe('SUMMARY.md link destinations as GitBook writes them', () => {
  it('reads backslash escapes in a destination as the characters they escape', () => {
    const pages = parseSummary(SUMMARY, '', (path) => path in FILES);
    const deploy = pages.find((p) => p.path === 'DEPLOY/README.md')!;
    expect(deploy.children.map((p) => p.path)).toEqual(['DEPLOY/тестовые стенды.md', 'DEPLOY/down_time_deploy/README.md']);
    expect(deploy.children[1].children.map((p) => [p.path, p.title])).toEqual([['DEPLOY/down_time_deploy/scheme.md', 'scheme']]);
    expect(deploy.children[1].title).toBe('down_time_deploy');
    expect(pages.map((p) => p.path)).toEqual(['README.md', 'agile  planning.md', 'DEPLOY/README.md', 'Software Architecture/readme.md']);
  });

  it('resolves a page link written with escapes to the file it names', () => {
    const seen: string[] = [];
    rewriteLinks('[a](DEPLOY/down\\_time\\_deploy/scheme.md#top) and [b](../x\\_y.md)', 'DEPLOY/README.md', (path) => (seen.push(path), null));
    expect(seen).toEqual(['DEPLOY/DEPLOY/down_time_deploy/scheme.md', 'x_y.md']);
  });

  it('imports every page of such a summary, nested as written, and links to them', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('conformance-import-summary-links', { files: FILES });
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { ...githubBody('conformance-import-summary-links'), force: true } }), 204);
    await runPending(space.id);
    expect((await gitInfo(space.id, token)).body.operation).toMatchObject({ state: 'success' });

    const res = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200);
    const lines: string[] = [];
    const ids = new Map<string, string>();
    const walk = (list: any[], depth: number) =>
      list.forEach((p) => {
        lines.push(`${'  '.repeat(depth)}${p.title} <${p.git?.path}>`);
        ids.set(p.git?.path, p.id);
        walk(p.pages ?? [], depth + 1);
      });
    walk(res.body.pages, 0);
    expect(lines).toEqual([
      'Home <README.md>',
      'agile planning <agile  planning.md>',
      'DEPLOY <DEPLOY/README.md>',
      '  тестовые стенды <DEPLOY/тестовые стенды.md>',
      '  Down time deploy <DEPLOY/down_time_deploy/README.md>',
      '    scheme <DEPLOY/down_time_deploy/scheme.md>',
      'Архитектура <Software Architecture/readme.md>',
      '  паттерны <Software Architecture/паттерны.md>',
    ]);

    const home = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${ids.get('README.md')}?format=markdown`, { token }), 200);
    expect(home.body.markdown).toContain(`[scheme](/pages/${ids.get('DEPLOY/down_time_deploy/scheme.md')})`);
  });
});
