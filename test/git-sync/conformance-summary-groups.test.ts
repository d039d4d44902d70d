import { describe, expect, it } from 'vitest';
import { parseSummary } from '../../src/services/git-sync/layout';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, repositoryUrl, runPending } from '../helpers/git-sync';

/**
 * Found on real repositories: a summary with one section per version (`## 9`, `## 10`), each with groups of the
 * same titles (`### Overview`), failed the whole import ("ref used twice in this batch": both groups had the key
 * `group:Overview`); and GitBook's own summaries write an empty anchor after a group's title
 * (`## Guides <a href="#guides" id="guides"></a>`), which became part of the title.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '',
  '## 9',
  '',
  '### Overview',
  '',
  ' * [Concepts](/v9/concepts.md)',
  '',
  '## 10',
  '',
  '### Overview',
  '',
  ' * [Concepts](/v10/concepts.md)',
  '',
  '## Guides <a href="#guides" id="guides"></a>',
  '',
  '* [Install <a id="install"></a>](guides/install.md)',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': SUMMARY,
  'v9/concepts.md': '# Concepts\n\nVersion 9.\n',
  'v10/concepts.md': '# Concepts\n\nVersion 10.\n',
  'guides/install.md': '# Install\n\nRun it.\n',
};

async function importRepository(spaceId: string, token: string, name: string, force: boolean) {
  const body = { url: repositoryUrl(name), ref: 'refs/heads/main', repoTreeURL: `https://github.com/acme/${name}/blob/main`, repoCommitURL: `https://github.com/acme/${name}/commit`, repoCacheID: `key-${name}`, force, standalone: false };
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token, body }), 204);
  await runPending(spaceId);
  return (await gitInfo(spaceId, token)).body.operation;
}

async function tree(spaceId: string, token: string): Promise<string[]> {
  const res = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200);
  const out: string[] = [];
  const walk = (pages: any[], depth: number) => pages.forEach((p) => (out.push(`${'  '.repeat(depth)}${p.title}=${p.id}`), walk(p.pages ?? [], depth + 1)));
  walk(res.body.pages, 0);
  return out;
}

describe('SUMMARY.md groups as real repositories write them', () => {
  it('gives groups of one title distinct stable keys, and titles without GitBook anchors', () => {
    const pages = parseSummary(SUMMARY, '', (path) => path in FILES);
    expect(pages.map((p) => [p.key, p.title])).toEqual([
      ['README.md', 'Home'],
      ['group:9', '9'],
      ['group:Overview', 'Overview'],
      ['group:10', '10'],
      ['group:Overview#2', 'Overview'],
      ['group:Guides', 'Guides'],
    ]);
    expect(pages[2].children.map((p) => p.path)).toEqual(['v9/concepts.md']);
    expect(pages[4].children.map((p) => p.path)).toEqual(['v10/concepts.md']);
    expect(pages[5].children.map((p) => p.title)).toEqual(['Install']);
  });

  it('imports such a summary, and a later push keeps the ids of both groups and their pages', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('conformance-groups', { files: FILES });
    expect(await importRepository(space.id, token, 'conformance-groups', true)).toMatchObject({ state: 'success' });
    const before = await tree(space.id, token);
    expect(before.map((line) => line.replace(/=.*/, ''))).toEqual(['Home', '9', 'Overview', '  Concepts', '10', 'Overview', '  Concepts', 'Guides', '  Install']);

    await control('commit', { name: 'conformance-groups', files: { 'v10/concepts.md': '# Concepts\n\nVersion 10, edited with git.\n' }, message: 'Edit' });
    expect(await importRepository(space.id, token, 'conformance-groups', false)).toMatchObject({ state: 'success' });
    expect(await tree(space.id, token)).toEqual(before);
  });
});
