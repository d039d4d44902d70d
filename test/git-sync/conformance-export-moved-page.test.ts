import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * GitBook moves a page's file when the page moves in the tree or is renamed, and rewrites the links that lead to it.
 * Evidence (flxbl-io/docs-sfp, GitBook's own commits):
 * - GITBOOK-247 moved "Integrations" from under "API Reference" into a group: `api-reference/integrations.md` became
 *   `project/integrations.md` (a rename in `git diff -M`), SUMMARY.md changed only the moved item's lines, and the
 *   link of another page, `../../api-reference/integrations.md`, became `../../project/integrations.md`;
 * - GITBOOK-154 and GITBOOK-195 renamed pages ("Pull Metadata..." -> "Pull Changes...", "Page" -> "Authentication"):
 *   the files were renamed to the new slugs, their blobs kept (R100 for GITBOOK-154);
 * - GITBOOK-248 renamed a group ("PROJECT" -> "COLLABORATE"): its pages' folder moved with it (`project/` ->
 *   `collaborate/`, R100).
 * Our export kept a moved page's file where it was. Synthetic content in GitBook's layout.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '',
  '## Guides',
  '',
  '* [Setup](guides/setup.md)',
  '* [Usage](guides/usage.md)',
  '',
  '## API',
  '',
  '* [API](api/README.md)',
  '  * [Tasks](api/tasks.md)',
  '  * [Integrations](api/integrations.md)',
  '  * [Webhooks](api/webhooks.md)',
  '',
].join('\n');

const SETUP = '# Setup\n\nRead  [the keys](../api/integrations.md#keys) and [tasks](../api/tasks.md).\n\n*   a list item kept as written\n';
const INTEGRATIONS = '# Integrations\n\nSee [tasks](tasks.md), [setup](../guides/setup.md) and [home](../README.md).\n\n## Keys\n\nKeys are kept per project, encrypted, and shown once when they are made.\n';
const TASKS = '# Tasks\n\n* [Integrations](./integrations.md)\n* [Webhooks](webhooks.md)\n\nSee [webhooks.md](webhooks.md "mention").\n';
const USAGE = '# Usage\n\n{% include "../.gitbook/includes/note.md" %}\n\nUse it every day, in every project, with every team that has a say in it.\n';
const NOTE = '---\ntitle: Note\n---\n\nSee [integrations](../../api/integrations.md).\n';

const FILES = {
  'README.md': '# Home\n\nStart with [the integrations](api/integrations.md).\n',
  'SUMMARY.md': SUMMARY,
  'guides/setup.md': SETUP,
  'guides/usage.md': USAGE,
  'api/README.md': '# API\n\nAll of it.\n',
  'api/tasks.md': TASKS,
  'api/integrations.md': INTEGRATIONS,
  'api/webhooks.md': '# Webhooks\n\nSee [tasks](tasks.md).\n',
  '.gitbook/includes/note.md': NOTE,
};

async function imported(name: string) {
  const org = await seedOrg();
  const token = org.owner.token;
  const space = await createSpace(org.id, token);
  const created = await createRepository(name, { files: FILES });
  await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
  return { token, space, created, pages: await pagesByTitle(space.id, token) };
}

async function pagesByTitle(spaceId: string, token: string): Promise<Record<string, any>> {
  const out: Record<string, any> = {};
  const walk = (pages: any[]) => pages.forEach((p) => ((out[p.title] = p), walk(p.pages ?? [])));
  walk(expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages);
  return out;
}

async function exported(name: string, spaceId: string, token: string, changes: unknown[]) {
  const cr = await openChangeRequest(spaceId, token, 'Move');
  await applyChanges(spaceId, cr.number, token, changes);
  expectStatus(await merge(spaceId, cr.number, token), 200);
  await runGitOperation(spaceId, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Move`, timestamp: new Date().toISOString() });
}

const show = (name: string, path: string) => gitOutput(name, 'show', `refs/heads/main:${path}`);
/** The lines a diff of one file removes and adds, without its headers. */
const changedLines = async (name: string, from: string, path: string) =>
  (await gitOutput(name, 'diff', '-U0', from, 'refs/heads/main', '--', path)).split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l));

describe('a page moved in the tree or renamed, exported', () => {
  it('moves its file into its new place, rewriting only the links that lead to it and its own relative links', async () => {
    const name = 'conformance-moved-page';
    const { token, space, created, pages } = await imported(name);
    await exported(name, space.id, token, [{ operation: 'update_page', page: pages.Integrations.id, into: pages.Guides.id, at: 2 }]);

    const status = (await gitOutput(name, 'diff', '-M', '--name-status', created.head, 'refs/heads/main')).trim().split('\n').sort();
    expect(status.map((line) => line.replace(/^R\d+/, 'R'))).toEqual([
      'M\t.gitbook/includes/note.md',
      'M\tREADME.md',
      'M\tSUMMARY.md',
      'M\tapi/tasks.md',
      'M\tguides/setup.md',
      'R\tapi/integrations.md\tguides/integrations.md',
    ]);
    // The moved file: its own links written for its new folder, nothing else.
    expect(await show(name, 'guides/integrations.md')).toBe(INTEGRATIONS.replace('(tasks.md)', '(../api/tasks.md)').replace('../guides/setup.md', 'setup.md'));
    // The pages leading to it: the link alone, its anchor and `./` kept, the rest byte for byte.
    expect(await show(name, 'guides/setup.md')).toBe(SETUP.replace('../api/integrations.md#keys', 'integrations.md#keys'));
    expect(await show(name, 'api/tasks.md')).toBe(TASKS.replace('./integrations.md', '../guides/integrations.md'));
    expect(await show(name, 'README.md')).toBe('# Home\n\nStart with [the integrations](guides/integrations.md).\n');
    expect(await show(name, '.gitbook/includes/note.md')).toBe(NOTE.replace('../../api/integrations.md', '../../guides/integrations.md'));
    // SUMMARY.md: the moved item's lines only.
    expect(await changedLines(name, created.head, 'SUMMARY.md')).toEqual(['+* [Integrations](guides/integrations.md)', '-  * [Integrations](api/integrations.md)']);

    // Imported back, every page keeps its id (the entries follow the file).
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const after = await pagesByTitle(space.id, token);
    expect(Object.fromEntries(Object.entries(after).map(([title, p]) => [title, p.id]))).toEqual(Object.fromEntries(Object.entries(pages).map(([title, p]) => [title, p.id])));
    expect(after.Integrations.git?.path).toBe('guides/integrations.md');
  });

  it("renames a page's file with its slug, keeping its blob", async () => {
    const name = 'conformance-renamed-page';
    const { token, space, created, pages } = await imported(name);
    await exported(name, space.id, token, [{ operation: 'update_page', page: pages.Webhooks.id, slug: 'hooks' }]);
    const status = (await gitOutput(name, 'diff', '-M', '--name-status', created.head, 'refs/heads/main')).trim().split('\n').sort();
    expect(status).toEqual(['M\tSUMMARY.md', 'M\tapi/tasks.md', 'R100\tapi/webhooks.md\tapi/hooks.md']);
    // A mention is labelled with its file's name, as GitBook writes it (`[hooks.md](hooks.md "mention")`).
    expect(await show(name, 'api/tasks.md')).toBe(TASKS.replaceAll('webhooks.md', 'hooks.md'));
    expect(await changedLines(name, created.head, 'SUMMARY.md')).toEqual(['-  * [Webhooks](api/webhooks.md)', '+  * [Webhooks](api/hooks.md)']);
  });

  it('moves a page that gains its first child into its folder as README.md (GITBOOK-197)', async () => {
    const name = 'conformance-page-gains-child';
    const { token, space, created, pages } = await imported(name);
    await exported(name, space.id, token, [{ operation: 'insert_page', into: pages.Usage.id, title: 'Advanced', document: { markdown: '# Advanced\n\nMore.\n' } }]);
    const status = (await gitOutput(name, 'diff', '-M', '--name-status', created.head, 'refs/heads/main')).trim().split('\n').sort();
    expect(status.map((line) => line.replace(/^R\d+/, 'R'))).toEqual(['A\tguides/usage/advanced.md', 'M\tSUMMARY.md', 'R\tguides/usage.md\tguides/usage/README.md']);
    // Its include, relative to its file, follows it one folder down.
    expect(await show(name, 'guides/usage/README.md')).toBe(USAGE.replace('../.gitbook', '../../.gitbook'));
  });

  it("moves a group's pages into its new folder when the group is renamed", async () => {
    const name = 'conformance-renamed-group';
    const { token, space, created, pages } = await imported(name);
    await exported(name, space.id, token, [{ operation: 'update_page', page: pages.Guides.id, title: 'Tutorials', slug: 'tutorials' }]);
    const status = (await gitOutput(name, 'diff', '-M', '--name-status', created.head, 'refs/heads/main')).trim().split('\n').sort();
    expect(status).toEqual([
      'M\tSUMMARY.md',
      'M\tapi/integrations.md',
      'R100\tguides/setup.md\ttutorials/setup.md',
      'R100\tguides/usage.md\ttutorials/usage.md',
    ]);
    expect(await show(name, 'tutorials/setup.md')).toBe(SETUP);
    expect(await show(name, 'api/integrations.md')).toBe(INTEGRATIONS.replace('../guides/setup.md', '../tutorials/setup.md'));
  });
});
