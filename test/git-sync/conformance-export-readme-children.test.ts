import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * A page whose file is a folder's README.md and that loses its last child page: GitBook moves the file next to its
 * folder, with the page's slug (flxbl-io/docs-sfp, GITBOOK-45: `release-management/release/README.md` became
 * `release-management/release.md`, R100, when its one child moved out). Where the author keeps pages in a folder other
 * than the one GitBook would make from the group's slug (`content/` under `## Guides`), the file stays in that folder:
 * `content/topics/README.md` -> `content/topics.md`, not `guides/topics.md`. The same holds the other way, a page gaining
 * its first child (`content/notes.md` -> `content/notes/README.md`, as GITBOOK-197 in GitBook's own layout).
 * Synthetic content in that layout.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '',
  '## Guides',
  '',
  '* [Topics](content/topics/README.md)',
  '  * [Only](content/topics/only.md)',
  '* [Notes](content/notes.md)',
  '',
].join('\n');

// Lines no move changes, so git's rename detection pairs the moved file with its old path.
const PROSE = '\nEach topic has a page of its own.\nA page can link to another.\nLinks are relative to the file.\nThe summary lists every page.\n';

const FILES = {
  'README.md': '# Home\n\nSee [topics](content/topics/) and [notes](content/notes.md).\n',
  'SUMMARY.md': SUMMARY,
  'content/topics/README.md': `# Topics\n\nThe topics, and [the notes](../notes.md).\n${PROSE}`,
  'content/topics/only.md': '# Only\n\nThe only child.\n',
  'content/notes.md': `# Notes\n\nA few notes, and [the topics](topics/).\n${PROSE}`,
};

async function imported(name: string) {
  const org = await seedOrg();
  const token = org.owner.token;
  const space = await createSpace(org.id, token);
  const created = await createRepository(name, { files: FILES });
  await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
  const pages: Record<string, any> = {};
  const walk = (list: any[]) => list.forEach((p) => ((pages[p.title] = p), walk(p.pages ?? [])));
  walk(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages);
  return { token, space, created, pages };
}

async function exported(name: string, spaceId: string, token: string, changes: unknown[]) {
  const cr = await openChangeRequest(spaceId, token, 'Children');
  await applyChanges(spaceId, cr.number, token, changes);
  expectStatus(await merge(spaceId, cr.number, token), 200);
  await runGitOperation(spaceId, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Children`, timestamp: new Date().toISOString() });
}

const statusSince = async (name: string, from: string) =>
  (await gitOutput(name, 'diff', '-M', '--name-status', from, 'refs/heads/main')).trim().split('\n').sort().map((line) => line.replace(/^R\d+/, 'R'));
const show = (name: string, path: string) => gitOutput(name, 'show', `refs/heads/main:${path}`);

describe("Git Sync export: a page gaining or losing child pages stays in its author's folder", () => {
  it('moves a README page that lost its last child next to its folder, not into the group slug folder', async () => {
    const name = 'conformance-readme-loses-child';
    const { token, space, created, pages } = await imported(name);
    await exported(name, space.id, token, [{ operation: 'delete_page', page: pages.Only.id }]);
    expect(await statusSince(name, created.head)).toEqual(['D\tcontent/topics/only.md', 'M\tREADME.md', 'M\tSUMMARY.md', 'M\tcontent/notes.md', 'R\tcontent/topics/README.md\tcontent/topics.md']);
    // Its own link, relative to its file, follows it one folder up; the links that lead to it follow it.
    expect(await show(name, 'content/topics.md')).toBe(`# Topics\n\nThe topics, and [the notes](notes.md).\n${PROSE}`);
    expect(await show(name, 'content/notes.md')).toBe(`# Notes\n\nA few notes, and [the topics](topics.md).\n${PROSE}`);
    expect(await show(name, 'SUMMARY.md')).toContain('* [Topics](content/topics.md)\n* [Notes](content/notes.md)');
  });

  it("moves a page that gained its first child into a folder of its own beside it, in the author's folder", async () => {
    const name = 'conformance-page-gains-child-own-folder';
    const { token, space, created, pages } = await imported(name);
    await exported(name, space.id, token, [{ operation: 'insert_page', into: pages.Notes.id, title: 'More', document: { markdown: '# More\n\nMore notes.\n' } }]);
    expect(await statusSince(name, created.head)).toEqual(['A\tcontent/notes/more.md', 'M\tREADME.md', 'M\tSUMMARY.md', 'M\tcontent/topics/README.md', 'R\tcontent/notes.md\tcontent/notes/README.md']);
  });
});
