import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, repositoryUrl, runPending } from '../helpers/git-sync';

/**
 * Pages as GitBook writes them (found in public GitBook repositories): a block image as `<figure>`, and HTML tables
 * (a cards table, a table with an image in a cell) whose links and images are HTML attributes. The converter keeps
 * such HTML as it is; an edit of the page elsewhere must give it back to the repository byte for byte, never the
 * space's internal refs (`/files/<id>`, a new page's batch ref).
 */

// A 1x1 PNG.
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';

const README = [
  '# Welcome',
  '',
  '<figure><img src=".gitbook/assets/pixel.png" alt=""><figcaption></figcaption></figure>',
  '',
  'Where to go next.',
  '',
  '<table data-view="cards"><thead><tr><th data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="files"></th></tr></thead><tbody><tr><td><a href="guides/setup.md">setup.md</a></td><td><a href=".gitbook/assets/pixel.png">pixel.png</a></td></tr></tbody></table>',
  '',
  '<table><thead><tr><th>Icon</th><th>Meaning</th></tr></thead><tbody><tr><td><img src=".gitbook/assets/pixel.png" alt="" data-size="line"></td><td>A pixel</td></tr></tbody></table>',
  '',
].join('\n');

const SETUP = [
  '# Setup',
  '',
  '<table><thead><tr><th>Back</th></tr></thead><tbody><tr><td><img src="../.gitbook/assets/pixel.png" alt=""></td></tr></tbody></table>',
  '',
].join('\n');

async function run(spaceId: string, token: string, direction: 'import' | 'export', body: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token, body }), 204);
  await runPending(spaceId);
  return (await gitInfo(spaceId, token)).body;
}

async function pageTitled(spaceId: string, token: string, title: string): Promise<any> {
  const res = await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token });
  expectStatus(res, 200);
  const found: any[] = [];
  const walk = (pages: any[]) => pages.forEach((p) => (p.title === title && found.push(p), walk(p.pages ?? [])));
  walk(res.body.pages);
  expect(found, title).toHaveLength(1);
  return found[0];
}

describe('Git Sync: GitBook HTML blocks round-trip through an edit', () => {
  it('an edited page gives back its HTML tables and figure as they were, with the repository paths, and only the edit changes', { timeout: 90_000 }, async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('html-links', {
      files: {
        'README.md': README,
        'guides/setup.md': SETUP,
        'SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n* [Setup](guides/setup.md)\n',
        '.gitbook/assets/pixel.png': { base64: PIXEL },
      },
    });
    const url = repositoryUrl('html-links');
    const body = { url, ref: 'refs/heads/main', repoTreeURL: 'https://github.com/acme/docs/blob/main', repoCacheID: 'acme-docs' };
    expect((await run(space.id, token, 'import', { ...body, force: true, standalone: false })).operation.state).toBe('success');

    // Readers never see a batch ref where the source linked a page.
    const home = await pageTitled(space.id, token, 'Welcome');
    const markdown = (await api('GET', `/v1/spaces/${space.id}/content/page/${home.id}?format=markdown`, { token })).body.markdown as string;
    expect(markdown).not.toMatch(/_gp\d/);
    // The cards table is a table block now: its link to the page is the page's own href, as `src` is the file's.
    expect(markdown).toMatch(/<a href="\/pages\/[A-Za-z0-9]+">setup\.md<\/a>/);

    // Both pages edited through a change request: a line appended to each, through their own Markdown.
    const setup = await pageTitled(space.id, token, 'Setup');
    const setupMarkdown = (await api('GET', `/v1/spaces/${space.id}/content/page/${setup.id}?format=markdown`, { token })).body.markdown as string;
    const cr = await openChangeRequest(space.id, token, 'Append');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'update_page', page: home.id, document: { markdown: `${markdown.trimEnd()}\n\nAppended in GitBook.\n` } },
      { operation: 'update_page', page: setup.id, document: { markdown: `${setupMarkdown.trimEnd()}\n\nAppended too.\n` } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);

    const exported = await run(space.id, token, 'export', { ...body, commitMessage: 'GITBOOK-2: Append' });
    expect(exported.operation, JSON.stringify(exported)).toMatchObject({ state: 'success', direction: 'export' });
    expect((await gitOutput('html-links', 'diff', '--name-only', created.head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['README.md', 'guides/setup.md']);
    expect(await gitOutput('html-links', 'show', 'refs/heads/main:README.md')).toBe(`${README}\nAppended in GitBook.\n`);
    expect(await gitOutput('html-links', 'show', 'refs/heads/main:guides/setup.md')).toBe(`${SETUP}\nAppended too.\n`);
  });
});
