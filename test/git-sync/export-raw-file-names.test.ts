import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found by a probe (gitprobe17b: a real repository with a file committed under a Latin-1 name): git takes a file name
 * as bytes, and one that is no UTF-8 (`caf\xe9.md`) was read as `caf\uFFFD.md`. The export rebuilt the tree from those
 * readings, so an edit of another page renamed that file to `caf\xef\xbf\xbd.md`, a change nobody made. The tree it
 * writes keeps each name's bytes.
 */
describe('export of a repository with a file name that is no UTF-8', () => {
  it('keeps the name as its bytes while it exports an edit of another page', async () => {
    const name = 'export-raw-file-names';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const { head } = await createRepository(name, {
      files: {
        'README.md': '# Home\n\nFirst words.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Notes](notes/one.md)\n',
        'notes/one.md': '# Notes\n\nA note.\n',
        latin1: { rawName: Buffer.from('caf\xe9.md', 'latin1').toString('base64'), text: '# Caf\xe9\n\nWritten under a Latin-1 name.\n' },
        latin1Notes: { rawName: Buffer.from('r\xe9sum\xe9.txt', 'latin1').toString('base64'), text: 'Plain text.\n' },
      },
    });
    const before = await gitOutput(name, 'ls-tree', '-r', head);
    expect(before).toContain('"caf\\351.md"');
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const home = pages.find((p) => p.title === 'Home');

    const cr = await openChangeRequest(space.id, token, 'Words');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: home.id, document: { markdown: '# Home\n\nEdited words.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Words` });

    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tREADME.md');
    const after = await gitOutput(name, 'ls-tree', '-r', 'refs/heads/main');
    expect(after.split('\n').filter((l) => !l.endsWith('\tREADME.md'))).toEqual(before.split('\n').filter((l) => !l.endsWith('\tREADME.md')));
    expect(await gitOutput(name, 'fsck', '--strict')).not.toMatch(/error|warning/i);
  }, 120_000);
});
