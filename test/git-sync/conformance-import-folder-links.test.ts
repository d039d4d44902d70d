import { describe, expect, it } from 'vitest';
import { rewriteLinks } from '../../src/services/git-sync/layout';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (an SDK's documentation synced with GitBook): GitBook writes a link to a folder's
 * README.md page as the folder (`[HTML Importer API](./)`, `[Maps](Картография/)`, `[Home](../)`). The import looked
 * for a file of that path, found none, and left the link to the batch, which read it as a path of slugs: a folder
 * whose name is not its page's slug (spaces, Cyrillic, capitals) was no page, and the link stayed a dead URL. A
 * destination in angle brackets with a space (`[x](<Getting Started/install.md>)`) was not read at all.
 */

const FILES: Record<string, string> = {
  'README.md': '# Home\n\nSee [the maps](Картография/) and [the guides](<Getting Started/>).\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Getting Started](<Getting Started/README.md>)\n  * [Install](<Getting Started/install.md>)\n* [Картография](Картография/README.md)\n',
  'Getting Started/README.md': '# Getting Started\n\n## Overview\n\nStart here.\n',
  'Getting Started/install.md': '# Install\n\nBack to [the overview](./#overview), or [home](../).\n',
  'Картография/README.md': '# Картография\n\nКарты.\n',
};

describe('links to a folder, as GitBook writes links to its README.md page', () => {
  it('lead to the folder README page when there is one, and are left alone otherwise', () => {
    const seen: string[] = [];
    const pages = new Set(['guides/README.md', 'README.md', 'other guide.md']);
    const out = rewriteLinks('[a](./) [b](../#top) [c](./install.md) [d](missing/) [e](logo.png) [f](<../other guide.md#x>)', 'guides/install.md', (path) => (seen.push(path), pages.has(path) ? `/pages/${path}` : null));
    expect(out).toBe('[a](/pages/guides/README.md) [b](/pages/README.md#top) [c](./install.md) [d](missing/) [e](logo.png) [f](/pages/other guide.md#x)');
    expect(seen).toEqual(['guides', 'guides/README.md', '', 'README.md', 'guides/install.md', 'guides/missing', 'guides/missing/README.md', 'guides/logo.png', 'other guide.md']);
  });

  it('imports such links as links to those pages', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('conformance-import-folder-links', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-import-folder-links'), force: true });
    const list = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const ids = new Map<string, string>();
    const walk = (pages: any[]) => pages.forEach((p) => (ids.set(p.git?.path, p.id), walk(p.pages ?? [])));
    walk(list);
    const markdown = async (path: string) => expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${ids.get(path)}?format=markdown`, { token }), 200).body.markdown as string;

    expect(await markdown('README.md')).toContain(`See [the maps](/pages/${ids.get('Картография/README.md')}) and [the guides](/pages/${ids.get('Getting Started/README.md')}).`);
    expect(await markdown('Getting Started/install.md')).toContain(`Back to [the overview](/pages/${ids.get('Getting Started/README.md')}#overview), or [home](/pages/${ids.get('README.md')}).`);
  });
});
