import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest, PNG_1x1 } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * A file whose blob is at several paths (GitBook's `shot (2).png` and `shot (3).png`) keeps, through an export, the
 * `git.path` the import gave it (the later path), as a fresh import of the exported commit gives it. The export took
 * whichever of its entries came last as read, and moved `git.path` to the other copy (gitprobe17a: after an export,
 * ecom-docs' `image (102).png` instead of `image (103).png`, and the pages' images named it).
 */

const fileGit = async (spaceId: string, token: string) =>
  (expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/files?limit=1000`, { token }), 200).body.items as any[]).map((f) => `${f.name}|${f.git?.path}`).sort();

describe('Git Sync export: a file at several paths', () => {
  it('keeps the git.path the import named, through pushes and exports', { timeout: 300_000 }, async () => {
    const name = `export-copies-${crypto.randomUUID().slice(0, 8)}`;
    const shot = btoa(atob(PNG_1x1) + 'shot');
    const zip = btoa('PK zip bytes');
    const { token, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Other](other.md)\n',
      'README.md': '# Home\n\n![One](<.gitbook/assets/shot (2).png>)\n\n![Two](<.gitbook/assets/shot (3).png>)\n\n[Plugin](<.gitbook/assets/plugin (1).zip>) and [the same](.gitbook/assets/Plugin_4.0.zip).\n',
      'other.md': '# Other\n\nEdit me.\n',
      '.gitbook/assets/shot (2).png': { base64: shot },
      '.gitbook/assets/shot (3).png': { base64: shot },
      '.gitbook/assets/plugin (1).zip': { base64: zip },
      '.gitbook/assets/Plugin_4.0.zip': { base64: zip },
    });
    const imported = await fileGit(space.id, token);
    expect(imported).toEqual(['plugin (1).zip|.gitbook/assets/plugin (1).zip', 'shot (3).png|.gitbook/assets/shot (3).png']);

    const other = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages.find((p: any) => p.title === 'Other');
    for (let round = 1; round <= 2; round++) {
      await control('commit', { name, message: `Push ${round}`, files: { 'pushed.md': `# Pushed ${round}\n` } });
      await runGitOperation(space.id, token, 'import', githubBody(name));
      expect(await fileGit(space.id, token)).toEqual(imported);
      const cr = await openChangeRequest(space.id, token, `Edit ${round}`);
      await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, other.id, round === 1 ? 'Edit me.' : 'Edited 1.', `Edited ${round}.`)]);
      expectStatus(await merge(space.id, cr.number, token), 200);
      await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit` });
      expect(await fileGit(space.id, token)).toEqual(imported);
    }
  });
});
