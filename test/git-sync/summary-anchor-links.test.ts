import { describe, expect, it } from 'vitest';
import { parseSummary } from '../../src/services/git-sync/layout';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, githubBody, gitOutput, runGitOperation } from '../helpers/git-sync';
import { publishedSite, visit } from '../site/helpers';

/**
 * SUMMARY.md items that lead to an anchor of a page listed in its own place. GitBook's own documentation, which its Git
 * Sync writes (GitbookIO/public-docs, documentation/SUMMARY.md), lists `* [Inline content](create-content/formatting/inline.md)`
 * and, elsewhere, `* [Buttons](create-content/formatting/inline.md#buttons)`: a link page (RevisionPageLink) whose target
 * is the page's anchor (ContentRefAnchor). The import dropped such items as second places of their page, and an export
 * that rewrote the summary lost them.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '* [Icons first](formatting/inline.md#icons "Icons")',
  '* [Formatting](formatting/README.md)',
  '  * [Inline content](formatting/inline.md)',
  '',
  '## Blocks',
  '',
  '* [Tables](blocks/tables.md)',
  '* [Buttons](formatting/inline.md#buttons)',
  '  * [Under a link](blocks/under.md)',
  '* [Only by anchor](blocks/anchored.md#top)',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': SUMMARY,
  'formatting/README.md': '# Formatting\n\nHow.\n',
  'formatting/inline.md': '# Inline content\n\n## Buttons\n\nPress.\n\n## Icons\n\nLook.\n',
  'blocks/tables.md': '# Tables\n\nRows.\n',
  'blocks/under.md': '# Under a link\n\nNested.\n',
  'blocks/anchored.md': '# Anchored\n\n## Top\n\nHere.\n',
};

async function flatPages(spaceId: string, token: string): Promise<any[]> {
  const out: any[] = [];
  const walk = (pages: any[], depth: number) => pages.forEach((p) => (out.push({ ...p, depth }), walk(p.pages ?? [], depth + 1)));
  walk(expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages, 0);
  return out;
}

describe('SUMMARY.md items leading to an anchor of a page', () => {
  it('reads them as links to the anchor, before or after the page’s own item; an anchor to a file listed nowhere else is the page', () => {
    const pages = parseSummary(SUMMARY, '', (path) => path in FILES);
    const all: any[] = [];
    const walk = (list: any[], depth: number) => list.forEach((p) => (all.push([depth, p.key, p.anchorLink, p.linkTitle]), walk(p.children, depth + 1)));
    walk(pages, 0);
    expect(all).toEqual([
      [0, 'README.md', undefined, undefined],
      [0, 'link:formatting/inline.md#icons', { path: 'formatting/inline.md', anchor: 'icons' }, 'Icons'],
      [0, 'formatting/README.md', undefined, undefined],
      [1, 'formatting/inline.md', undefined, undefined],
      [0, 'group:Blocks', undefined, undefined],
      [1, 'blocks/tables.md', undefined, undefined],
      [1, 'link:formatting/inline.md#buttons', { path: 'formatting/inline.md', anchor: 'buttons' }, undefined],
      // A link has no child pages: what is under it nests under its parent.
      [1, 'blocks/under.md', undefined, undefined],
      [1, 'blocks/anchored.md', undefined, undefined],
    ]);
  });

  it('imports them as link pages to the anchor, keeps them byte for byte when the summary is written again, and links them on the site', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'summary-anchor-links';
    await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages = await flatPages(space.id, token);
    expect(pages.map((p) => `${'  '.repeat(p.depth)}${p.type}:${p.title}`)).toEqual([
      'document:Home',
      'link:Icons first',
      'document:Formatting',
      '  document:Inline content',
      'group:Blocks',
      '  document:Tables',
      '  link:Buttons',
      '  document:Under a link',
      '  document:Anchored',
    ]);
    const inline = pages[3];
    expect(pages[1]).toMatchObject({ type: 'link', title: 'Icons first', linkTitle: 'Icons', target: { kind: 'anchor', page: inline.id, anchor: 'icons' } });
    expect(pages[6]).toMatchObject({ type: 'link', target: { kind: 'anchor', page: inline.id, anchor: 'buttons' } });
    expect(pages[6]).not.toHaveProperty('href');

    // Nothing changed: no commit.
    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'GITBOOK-1: Nothing' });
    expect((await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim()).toBe(head0);

    // A page added: the summary is written again, the anchors' items as they were.
    const cr = await openChangeRequest(space.id, token, 'Add');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', into: pages[4].id, title: 'Lists', document: { markdown: '# Lists\n\nItems.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Add` });
    const head1 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const summary = await gitOutput(name, 'show', `${head1}:SUMMARY.md`);
    expect(summary).toContain('* [Icons first](formatting/inline.md#icons "Icons")\n');
    expect(summary).toContain('* [Buttons](formatting/inline.md#buttons)\n');
    expect(summary).toContain('* [Lists](blocks/lists.md)\n');

    // Read back after a push: every page, the links included, keeps its id and place.
    await control('commit', { name, files: { 'blocks/tables.md': '# Tables\n\nMore rows.\n' }, message: 'Edit with git' });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date(Date.now() + 5000).toISOString() });
    const exported = (await flatPages(space.id, token)).map((p) => `${p.depth}:${p.type}:${p.id}`);
    expect(exported).toContain(`0:link:${pages[1].id}`);
    expect(exported).toContain(`1:link:${pages[6].id}`);

    // The site's navigation leads to the page's anchor, under its link title.
    const site = await publishedSite(org, [space.id]);
    const home = await visit(`/s/${site.id}/`);
    expect(home.status).toBe(200);
    expect(home.text).toMatch(/<a href="[^"]*\/formatting\/inline#icons">Icons<\/a>/);
    expect(home.text).toMatch(/<a href="[^"]*\/formatting\/inline#buttons">Buttons<\/a>/);
  }, 180_000);
});
