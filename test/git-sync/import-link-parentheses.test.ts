import { describe, expect, it } from 'vitest';
import { api, expectStatus } from '../helpers/harness';
import { importedSpace } from '../helpers/git-sync';

/**
 * A link's destination may hold balanced parentheses (CommonMark): `](.gitbook/assets/shot%20(1).png)`, as the export
 * writes the path of an asset named `shot (1).png`. The import read the destination up to the first `)`, found no file
 * `shot%20(1` and kept the image a URL, so a space exported into a new repository and imported from it lost the link
 * from 21 of its pages' images to their files (gitprobe16c, winf-hsos/gitbook-data-analytics read back through a new
 * repository); an asset outside the assets folder, named only by such a link, was not imported at all.
 */
const png = (variant: string) => ({ base64: `iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9a${variant}AAAAABJRU5ErkJggg==` });

describe('Git Sync import: a destination with parentheses', () => {
  it('leads to the file it names', async () => {
    const { token, space, byPath } = await importedSpace('link-parentheses', {
      'README.md': '# Home\n\n![An asset](.gitbook/assets/shot%20(1).png)\n\n![Beside the page](pictures/plan%20(draft).png)\n\n[The other page](other%20(old).md)\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Other](<other (old).md>)\n',
      'other (old).md': '# Other\n\nText.\n',
      '.gitbook/assets/shot (1).png': png('w'),
      'pictures/plan (draft).png': png('x'),
    });
    const document = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${byPath('README.md').id}`, { token }), 200).body.document;
    const refs: any[] = [];
    const walk = (node: any) => {
      if (node?.data?.ref) refs.push(node.data.ref);
      for (const key of ['nodes', 'fragments']) for (const child of node?.[key] ?? []) walk(child);
    };
    walk(document);
    const files: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/files?limit=100`, { token }), 200).body.items;
    const fileId = (name: string) => files.find((f) => f.name === name)?.id;
    expect(refs).toEqual([
      { kind: 'file', file: fileId('shot (1).png') },
      { kind: 'file', file: fileId('plan (draft).png') },
      { kind: 'page', page: byPath('other (old).md').id },
    ]);
    expect(fileId('plan (draft).png')).toBeTruthy();
  });
});
