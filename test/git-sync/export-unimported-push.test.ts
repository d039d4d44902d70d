import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, gitOutput, githubBody, leafEdit, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * An export queued before a push's import (issue 40): the push changed nothing the space synced as a page's or a file's
 * blob, only `SUMMARY.md`, an added file or `.gitbook.yaml`. Before, the export committed on the pushed commit and
 * recorded it as the space's, so the push's import found the branch at the space's commit and changed nothing. Now an
 * unforced export compares the branch's tree with the last synced commit's under the content root and refuses: nothing
 * pushed, the message names the change; the push's import reads it, and the next export commits on it. A push of code
 * beside the docs (outside the project directory) does not block the export.
 */

const FILES = {
  'docs/README.md': '# Home\n\nWelcome here.\n',
  'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Edited](edited.md)\n* [Other](other.md)\n',
  'docs/edited.md': '# Edited\n\nThe first paragraph.\n\nThe second paragraph.\n',
  'docs/other.md': '# Other\n\nAnother page.\n',
  'src/app.ts': 'export const app = 1;\n',
};
const body = (name: string) => ({ ...githubBody(name), repoProjectDirectory: 'docs' });

async function syncedSpace(name: string) {
  const org = await seedOrg();
  const token = org.owner.token;
  const space = await createSpace(org.id, token);
  await createRepository(name, { files: FILES });
  await runGitOperation(space.id, token, 'import', { ...body(name), force: true });
  const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
  return { token, space, edited: pages.find((page) => page.title === 'Edited')!.id as string };
}

async function mergedEdit(spaceId: string, token: string, pageId: string) {
  const cr = await openChangeRequest(spaceId, token, 'Edit');
  await applyChanges(spaceId, cr.number, token, [await leafEdit(spaceId, token, cr.number, pageId, 'The second paragraph.', 'The second paragraph, edited.')]);
  expectStatus(await merge(spaceId, cr.number, token), 200);
  return { commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() };
}

const head = async (name: string) => (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
const titles = async (spaceId: string, token: string) =>
  (expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages as any[]).map((page) => page.title);

const PUSHES = [
  {
    what: 'only SUMMARY.md (two pages swapped)',
    files: { 'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Other](other.md)\n* [Edited](edited.md)\n' },
    named: 'docs/SUMMARY.md changed',
    imported: async (spaceId: string, token: string) => expect(await titles(spaceId, token)).toEqual(['Home', 'Other', 'Edited']),
  },
  {
    what: 'only an added file',
    files: { 'docs/.gitbook/assets/notes.txt': 'Notes pushed with git.\n' },
    named: 'docs/.gitbook/assets/notes.txt added',
    imported: async (spaceId: string, token: string) => {
      const files: any[] = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/files`, { token }), 200).body.items;
      expect(files.map((file) => file.name)).toContain('notes.txt');
    },
  },
  {
    what: 'only a file no page links (the import reads nothing of it)',
    files: { 'docs/scripts/build.sh': 'echo build\n' },
    named: 'docs/scripts/build.sh added',
    imported: async () => undefined,
  },
  {
    what: 'only .gitbook.yaml',
    files: { 'docs/.gitbook.yaml': 'structure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  old-page: other.md\n' },
    named: 'docs/.gitbook.yaml added',
    imported: async () => undefined,
  },
];

describe('an export queued before a push it would hide', { timeout: 180_000 }, () => {
  for (const push of PUSHES) {
    it(`a push of ${push.what}: the export fails with nothing pushed, the import reads the push, the next export commits on it`, async () => {
      const name = `unimported-${push.named.replace(/[^a-z]+/gi, '-').toLowerCase()}`;
      const { token, space, edited } = await syncedSpace(name);
      const exportBody = await mergedEdit(space.id, token, edited);
      const pushed = (await control<{ head: string }>('commit', { name, message: 'A push', files: push.files })).head;

      expectStatus(await api('POST', `/v1/spaces/${space.id}/git/export`, { token, body: { ...body(name), ...exportBody } }), 204);
      await runPending(space.id);
      const failed = (await gitInfo(space.id, token)).body.operation;
      expect(failed).toMatchObject({ state: 'failure', direction: 'export' });
      expect(failed.error).toContain(push.named);
      expect(failed.error).toContain('import the branch, then export again');
      expect(await head(name)).toBe(pushed);

      await runGitOperation(space.id, token, 'import', { ...body(name), timestamp: new Date().toISOString() });
      await push.imported(space.id, token);
      await runGitOperation(space.id, token, 'export', { ...body(name), ...exportBody, timestamp: new Date().toISOString() });
      const exported = await head(name);
      expect((await gitOutput(name, 'log', '-1', '--format=%P', exported)).trim()).toBe(pushed);
      expect((await gitOutput(name, 'diff', '--numstat', pushed, exported)).trim()).toBe('1\t1\tdocs/edited.md');
    });
  }

  it('a push of code beside the docs (outside the project directory) does not block the export', async () => {
    const name = 'unimported-outside-project';
    const { token, space, edited } = await syncedSpace(name);
    const exportBody = await mergedEdit(space.id, token, edited);
    const pushed = (await control<{ head: string }>('commit', { name, message: 'Code', files: { 'src/app.ts': 'export const app = 2;\n', 'src/new.ts': 'export {};\n' } })).head;

    await runGitOperation(space.id, token, 'export', { ...body(name), ...exportBody });
    const exported = await head(name);
    expect((await gitOutput(name, 'log', '-1', '--format=%P', exported)).trim()).toBe(pushed);
    expect((await gitOutput(name, 'diff', '--numstat', pushed, exported)).trim()).toBe('1\t1\tdocs/edited.md');
  });
});
