import { describe, expect, it } from 'vitest';
import { api, expectStatus } from '../helpers/harness';
import { createRepository, gitInfo, githubBody, importedSpace, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * Found on a real repository (gitprobe12c): its docs moved to another site generator, and its `.gitbook.yaml` still
 * says `root: ./docs/`, a folder that now holds only `.mdx` and TypeScript files, no Markdown page. The import read that
 * as an empty project: `success`, every page of a space synced before deleted, without a word. It fails now, naming the
 * root, and the space keeps what it had (as a root naming no folder does: import-missing-root).
 */
describe('a .gitbook.yaml root whose folder holds no Markdown page', () => {
  it('fails the import naming the root, and the space keeps its pages', async () => {
    const name = 'import-root-without-pages';
    const docs = { '.gitbook.yaml': 'root: ./docs/\n', 'docs/README.md': '# Home\n\nWelcome.\n', 'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n', 'docs/guide.md': '# Guide\n\nRead me.\n' };
    const { token, space } = await importedSpace(name, docs);
    const pages = async () => expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages.map((p: any) => [p.id, p.title]);
    const before = await pages();
    expect(before.map(([, title]: string[]) => title)).toEqual(['Home', 'Guide']);

    await createRepository(name, { files: { '.gitbook.yaml': 'root: ./docs/\n', 'README.md': '# Project\n', 'docs/intro.mdx': '# Intro\n', 'docs/sidebars.ts': 'export default {};\n' } });
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { ...githubBody(name), force: true } }), 204);
    await runPending(space.id);
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'failure', direction: 'import' });
    expect(info.operation.error).toContain('.gitbook.yaml: its root "docs" holds no Markdown page');
    expect(await pages()).toEqual(before);

    // A root holding one Markdown page still imports (only a folder with none is refused).
    const { 'docs/guide.md': _guide, ...home } = docs;
    await createRepository(name, { files: { ...home, 'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    expect((await pages()).map(([, title]: string[]) => title)).toEqual(['Home']);
  }, 120_000);
});
