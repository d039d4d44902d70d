import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, repositoryUrl, runGitOperation } from '../helpers/git-sync';

/**
 * A file uploaded here under a name `.gitbook/assets/` already holds is exported as GitBook names it, ` (n)` before the
 * extension (`diagram (1).png`): GitBook-exported repositories hold `image (83) (1).png` beside `image (83).png`
 * (gitprobe15b: a file replaced in the app by a new upload of the same name was written `2-diagram.png`).
 */

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('export: a new file whose name is taken', () => {
  it("goes to 'name (n).ext' (and 'name (n)' without an extension), the page naming it there", { timeout: 180_000 }, async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('export-asset-names', {
      files: {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
        'README.md': '# Home\n\n![](.gitbook/assets/diagram.png)\n\n[Notes](.gitbook/assets/notes)\n',
        '.gitbook/assets/diagram.png': 'an older diagram\n',
        '.gitbook/assets/notes': 'older notes\n',
      },
    });
    const url = repositoryUrl('export-asset-names');
    await runGitOperation(space.id, token, 'import', { url, ref: 'refs/heads/main', force: true });

    const cr = await openChangeRequest(space.id, token, 'Uploads');
    await applyChanges(space.id, cr.number, token, [
      {
        operation: 'insert_files',
        files: [
          { ref: 'd1', name: 'diagram.png', contentType: 'image/png', base64: PNG },
          { ref: 'd2', name: 'diagram.png', contentType: 'image/png', base64: PNG.replace('AAAAA', 'AAAAB') },
          { ref: 'n1', name: 'notes', contentType: 'text/plain', base64: btoa('new notes\n') },
        ],
      },
      { operation: 'insert_page', title: 'Uploads', document: { markdown: '# Uploads\n\n![First](./d1)\n\n![Second](./d2)\n\n[Notes](./n1)\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { url, ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: Uploads' });

    const fields = (await gitOutput('export-asset-names', 'diff', '-z', '--name-status', 'HEAD~1', 'HEAD')).split('\0').filter(Boolean);
    const added = fields.flatMap((field, i) => (i % 2 ? [`${fields[i - 1]}\t${field}`] : [])).sort();
    expect(added).toEqual(['A\t.gitbook/assets/diagram (1).png', 'A\t.gitbook/assets/diagram (2).png', 'A\t.gitbook/assets/notes (1)', 'A\tuploads.md', 'M\tSUMMARY.md'].sort());
    const page = await gitOutput('export-asset-names', 'show', 'HEAD:uploads.md');
    // New links with spaces, in angle brackets as GitBook writes them (conformance-export-spaced-new-link).
    for (const path of ['.gitbook/assets/diagram (1).png', '.gitbook/assets/diagram (2).png', '.gitbook/assets/notes (1)']) expect(page).toContain(`](<${path}>)`);
    // The files of the space know their paths; the older files keep theirs.
    const files = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/files`, { token }), 200).body.items;
    expect(files.map((f: any) => f.git?.path).sort()).toEqual(
      ['.gitbook/assets/diagram.png', '.gitbook/assets/diagram (1).png', '.gitbook/assets/diagram (2).png', '.gitbook/assets/notes', '.gitbook/assets/notes (1)'].sort(),
    );
  });
});
