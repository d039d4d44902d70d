import { describe, expect, it } from 'vitest';
import { createSpace, PNG_1x1 } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * Two asset paths a push gives the same bytes (`b.png` becomes a copy of `a.png`) are one file after the import, as a fresh
 * import of the commit makes them (issue 40): the file named after the later path, both paths recorded, the pages that
 * showed either image showing that file. They stayed two files with the same bytes.
 */

const filesOf = async (spaceId: string, token: string): Promise<any[]> => expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/files?limit=1000`, { token }), 200).body.items;

const pagesOf = async (spaceId: string, token: string): Promise<any[]> => expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages;

/** The files a reader sees (ids aside), and each page's document with its file references named by file. */
async function shapeOf(spaceId: string, token: string) {
  const files = await filesOf(spaceId, token);
  const nameOf = new Map(files.map((f) => [f.id, f.name]));
  const pages = [];
  for (const page of await pagesOf(spaceId, token)) {
    const read = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${page.id}`, { token }), 200).body;
    pages.push({ path: page.path, document: JSON.stringify(read.document).replace(/"file":"(\w+)"|\/files\/(\w+)/g, (all, ref, link) => all.replace(ref ?? link, `<${nameOf.get(ref ?? link)}>`)) });
  }
  return { files: files.map((f) => ({ name: f.name, size: f.size, git: f.git })).sort((a, b) => a.name.localeCompare(b.name)), pages };
}

describe('Git Sync import: two asset paths given the same bytes', () => {
  it('become one file, as a fresh import of the commit makes them', { timeout: 300_000 }, async () => {
    const name = `asset-merged-${crypto.randomUUID().slice(0, 8)}`;
    const a = PNG_1x1;
    const b = btoa(atob(PNG_1x1) + 'other bytes');
    const { org, token, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Other](other.md)\n',
      'README.md': '# Home\n\n![First](.gitbook/assets/a.png)\n',
      'other.md': '# Other\n\n![Second](.gitbook/assets/b.png)\n',
      '.gitbook/assets/a.png': { base64: a },
      '.gitbook/assets/b.png': { base64: b },
    });
    expect(await filesOf(space.id, token)).toHaveLength(2);

    await control('commit', { name, message: 'b.png as a.png', files: { '.gitbook/assets/b.png': { base64: a } } });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    const after = await filesOf(space.id, token);
    expect(after.map((f) => f.name)).toEqual(['b.png']);

    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    expect(await shapeOf(space.id, token)).toEqual(await shapeOf(fresh.id, token));
  });

  it('reusable contents and card covers that showed the file that goes show the one kept', { timeout: 300_000 }, async () => {
    const name = `asset-merged-shown-${crypto.randomUUID().slice(0, 8)}`;
    const a = PNG_1x1;
    const b = btoa(atob(PNG_1x1) + 'other bytes');
    const cards =
      '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-cover data-type="files"></th></tr></thead>' +
      '<tbody><tr><td>A card</td><td><a href=".gitbook/assets/a.png">a.png</a></td></tr></tbody></table>';
    const { token, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Other](other.md)\n* [Cards](cards.md)\n',
      'README.md': '# Home\n\n{% include ".gitbook/includes/shared.md" %}\n',
      'other.md': '# Other\n\n![Second](.gitbook/assets/b.png)\n',
      'cards.md': `# Cards\n\n${cards}\n`,
      '.gitbook/includes/shared.md': '---\ntitle: Shared\n---\n\n![First](../assets/a.png)\n',
      '.gitbook/assets/a.png': { base64: a },
      '.gitbook/assets/b.png': { base64: b },
    });
    const before = await filesOf(space.id, token);
    const dropped = before.find((f) => f.name === 'a.png').id;
    const kept = before.find((f) => f.name === 'b.png').id;
    const shown = async () => {
      const content = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body;
      const documents: Record<string, string> = {};
      for (const rc of content.reusableContents) documents[rc.title] = JSON.stringify(expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${content.id}/reusable-contents/${rc.id}/document`, { token }), 200).body);
      for (const page of await pagesOf(space.id, token)) documents[page.title] = JSON.stringify(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${page.id}`, { token }), 200).body.document);
      return documents;
    };
    const first = await shown();
    expect(first.Shared).toContain(dropped);
    expect(first.Cards).toContain(dropped);

    await control('commit', { name, message: 'b.png as a.png', files: { '.gitbook/assets/b.png': { base64: a } } });
    await runGitOperation(space.id, token, 'import', githubBody(name));
    expect((await filesOf(space.id, token)).map((f) => f.id)).toEqual([kept]);
    const after = await shown();
    for (const title of ['Shared', 'Cards']) {
      expect(after[title], title).not.toContain(dropped);
      expect(after[title], title).toContain(kept);
    }
  });
});
