import { describe, expect, it } from 'vitest';
import { markdownToDocument, withoutSourcePatch } from '../../src/services/markdown/index';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * GitBook pads a pipe table's columns by the cells it writes. A cell linking to a page is written with the page's path
 * in the repository, which the export puts in place of `/pages/<id>` once the page is written: padded by `/pages/<id>`,
 * the column was another width than its cells, and the rows did not line up (gitprobe12b item 3: MicLieg/LinuxGSM-Dev-Docs,
 * an edited cell; gitprobe12c item 4: superstreamlabs/gitbook-backup, a table made in the app).
 */

const COMMANDS = ['# Commands', '', '| Name                           | Command   |', '| ------------------------------ | --------- |', '| [Developer](commands.md#first) | `./g dev` |', '| Detect                         | `./g ddt` |', '', '## First', '', 'Text.', ''].join('\n');
const files = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Commands](commands.md)\n* [Hello world](getting-started/2-hello-world.md)\n',
  'commands.md': COMMANDS,
  'getting-started/2-hello-world.md': '# Hello world\n\nHello.\n',
};

async function exported(name: string, spaceId: string, token: string, cr: number): Promise<void> {
  expectStatus(await merge(spaceId, cr, token), 200);
  await runGitOperation(spaceId, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: Edit` });
}

describe('a pipe table cell linking to a page, written by the export', () => {
  it('an edited cell wider than its column: its row only, its other cells padded by the cells as written (the link a path)', { timeout: 120_000 }, async () => {
    const name = 'conformance-export-table-link-widths-edit';
    const { token, space, byPath } = await importedSpace(name, files);
    const cr = await openChangeRequest(space.id, token, 'Edit');
    const page = byPath('commands.md');
    // A table's cells are its fragments, which `leafEdit` does not visit.
    const document = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${page.id}`, { token }), 200).body.document;
    let found = 0;
    const visit = (node: any): void => {
      if (node?.object === 'leaf' && node.text === 'Developer') (node.text = 'Developer tools'), found++;
      for (const key of ['nodes', 'leaves', 'fragments']) for (const child of node?.[key] ?? []) visit(child);
    };
    visit(document);
    expect(found).toBe(1);
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: page.id, document: { document } }]);
    await exported(name, space.id, token, cr.number);
    // The author's table keeps its other rows and delimiter: only the edited row changes (table-lines.ts restyle).
    expect(await gitOutput(name, 'show', 'refs/heads/main:commands.md')).toBe(COMMANDS.replace('| [Developer](commands.md#first) | `./g dev` |', '| [Developer tools](commands.md#first) | `./g dev` |'));
  });

  it('a table made in the app (a JSON document): its columns padded by the path written', { timeout: 120_000 }, async () => {
    const name = 'conformance-export-table-link-widths-new';
    const { token, space, byPath } = await importedSpace(name, files);
    const target = byPath('getting-started/2-hello-world.md');
    const { document } = markdownToDocument(`# Links\n\n| Name | Link |\n| --- | --- |\n| One | [Other page](/pages/${target.id}) |\n`);
    const cr = await openChangeRequest(space.id, token, 'New page');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Links', document: { document: withoutSourcePatch(document) } }]);
    await exported(name, space.id, token, cr.number);
    const written = await gitOutput(name, 'show', 'refs/heads/main:links.md');
    const rows = written.split('\n').filter((line) => line.startsWith('|'));
    expect(rows).toEqual(['| Name | Link                                           |', '| ---- | ---------------------------------------------- |', '| One  | [Other page](getting-started/2-hello-world.md) |']);
  });
});
