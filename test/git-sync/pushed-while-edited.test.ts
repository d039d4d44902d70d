import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, gitInfo, gitOutput, githubBody, importedSpace, leafEdit, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * A push and a merged edit of the space at the same time, as a user causes them: the push's import and the merge's
 * export are both queued (gitprobe15c, two real repositories). Found:
 * - import first: the import kept the edited page (its file did not change) but recorded it as synced with its edited
 *   document, so the export found nothing to write and succeeded without the edit, then and ever after;
 * - export first: it committed on the pushed commit and recorded it as the space's, so the push's import found the
 *   branch at the space's commit and the pushed text never reached the space.
 * Now the import keeps the hash a file was synced with, and an export refuses a branch whose synced files moved on.
 */

const FILES = {
  'README.md': '# Home\n\nWelcome here.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Edited](edited.md)\n* [Pushed](pushed.md)\n',
  'edited.md': '# Edited\n\nThe first paragraph.\n\nThe second paragraph.\n',
  'pushed.md': '# Pushed\n\nThe pushed page.\n',
};

async function mergedEdit(spaceId: string, token: string, pageId: string) {
  const cr = await openChangeRequest(spaceId, token, 'Edit');
  await applyChanges(spaceId, cr.number, token, [await leafEdit(spaceId, token, cr.number, pageId, 'The second paragraph.', 'The second paragraph, edited.')]);
  expectStatus(await merge(spaceId, cr.number, token), 200);
  return { commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() };
}

const push = (name: string) => control<{ head: string }>('commit', { name, message: 'A push', files: { 'pushed.md': '# Pushed\n\nThe pushed page.\n\nA line pushed with git.\n' } });
const markdownOf = async (spaceId: string, token: string, pageId: string) =>
  expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`, { token }), 200).body.markdown as string;

describe('a push and a merged edit at the same time', { timeout: 120_000 }, () => {
  it("the push's import first: the export then commits the edit on the pushed commit", async () => {
    const name = 'pushed-while-edited-import';
    const { token, space, byPath } = await importedSpace(name, FILES);
    const exportBody = await mergedEdit(space.id, token, byPath('edited.md').id);
    const pushed = await push(name);
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date().toISOString() });
    expect(await markdownOf(space.id, token, byPath('edited.md').id)).toContain('The second paragraph, edited.');
    expect(await markdownOf(space.id, token, byPath('pushed.md').id)).toContain('A line pushed with git.');

    await runGitOperation(space.id, token, 'export', { ...githubBody(name), ...exportBody, timestamp: new Date().toISOString() });
    const head = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect(head).not.toBe(pushed.head);
    expect((await gitOutput(name, 'log', '-1', '--format=%P', head)).trim()).toBe(pushed.head);
    expect((await gitOutput(name, 'diff', '--numstat', pushed.head, head)).trim()).toBe('1\t1\tedited.md');
    expect(await gitOutput(name, 'show', `${head}:edited.md`)).toBe('# Edited\n\nThe first paragraph.\n\nThe second paragraph, edited.\n');
  });

  it('the export first: it fails with nothing pushed, the import reads the push, and the next export commits on it', async () => {
    const name = 'pushed-while-edited-export';
    const { token, space, byPath } = await importedSpace(name, FILES);
    const exportBody = await mergedEdit(space.id, token, byPath('edited.md').id);
    const pushed = await push(name);
    expect((await api('POST', `/v1/spaces/${space.id}/git/export`, { token, body: { ...githubBody(name), ...exportBody } })).status).toBe(204);
    await runPending(space.id);
    const failed = (await gitInfo(space.id, token)).body.operation;
    expect(failed).toMatchObject({ state: 'failure', direction: 'export' });
    expect(failed.error).toContain('pushed.md');
    expect((await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim()).toBe(pushed.head);

    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date().toISOString() });
    expect(await markdownOf(space.id, token, byPath('pushed.md').id)).toContain('A line pushed with git.');
    expect(await markdownOf(space.id, token, byPath('edited.md').id)).toContain('The second paragraph, edited.');
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), ...exportBody, timestamp: new Date().toISOString() });
    const head = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(name, 'log', '-1', '--format=%P', head)).trim()).toBe(pushed.head);
    expect((await gitOutput(name, 'diff', '--numstat', pushed.head, head)).trim()).toBe('1\t1\tedited.md');
  });

  it('a forced export (a setup) still commits on the moved branch', async () => {
    const name = 'pushed-while-edited-forced';
    const { token, space, byPath } = await importedSpace(name, FILES);
    const exportBody = await mergedEdit(space.id, token, byPath('edited.md').id);
    const pushed = await push(name);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), ...exportBody, force: true });
    const head = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(name, 'log', '-1', '--format=%P', head)).trim()).toBe(pushed.head);
  });
});
