import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';
import { expectFreshImportAgrees } from '../helpers/git-sync-agreement';

/**
 * Found on real repositories (found-gitprobe18b 5): a page renamed in the app had its file's head written our way, so
 * the blank lines the author left after the `# Heading` (two, three) collapsed to one, and a setext heading became ATX.
 * Only the heading line changes now, with or without front matter before it.
 */

const SPACED = '# Spaced\n\n\n\nBody after three blank lines.\n';
const FRONT = '---\ndescription: Kept as written\n---\n\n\n# Fronted\n\n\nBody under front matter.\n';
const SETEXT = 'Setext\n======\n\n\nBody under a setext heading.\n';

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Spaced](spaced.md)\n* [Fronted](fronted.md)\n* [Setext](setext.md)\n',
  'spaced.md': SPACED,
  'fronted.md': FRONT,
  'setext.md': SETEXT,
};

describe('a page renamed in the app', () => {
  it('changes only its heading line in the file', async () => {
    const name = `retitled-heading-${Date.now().toString(36)}`;
    const { org, token, space, head, byPath } = await importedSpace(name, FILES);
    const cr = (await openChangeRequest(space.id, token, 'Rename')).number;
    await applyChanges(space.id, cr, token, [
      { operation: 'update_page', page: byPath('spaced.md').id, title: 'Spaced out' },
      { operation: 'update_page', page: byPath('fronted.md').id, title: 'Fronted again' },
      { operation: 'update_page', page: byPath('setext.md').id, title: 'Setext *now*' },
    ]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: Rename`, timestamp: new Date().toISOString() });

    const show = (path: string) => gitOutput(name, 'show', `refs/heads/main:${path}`);
    expect(await show('spaced.md')).toBe(SPACED.replace('# Spaced', '# Spaced out'));
    expect(await show('fronted.md')).toBe(FRONT.replace('# Fronted', '# Fronted again'));
    expect(await show('setext.md')).toBe(SETEXT.replace('Setext\n', 'Setext \\*now\\*\n'));
    // SUMMARY.md's items follow the titles, as GitBook writes them (conformance-export-summary-retitled).
    expect((await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).trim().split('\n')).toEqual(['SUMMARY.md', 'fronted.md', 'setext.md', 'spaced.md']);
    expect(await show('SUMMARY.md')).toContain('* [Spaced out](spaced.md)\n* [Fronted again](fronted.md)\n');

    // The import of that commit changes nothing, and a fresh import of it reads as the space does.
    const revision = (await api('GET', `/v1/spaces/${space.id}`, { token })).body.revision;
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date().toISOString() });
    expect((await api('GET', `/v1/spaces/${space.id}`, { token })).body.revision).toBe(revision);
    await expectFreshImportAgrees(org.id, token, space.id, name);
  }, 120_000);
});
