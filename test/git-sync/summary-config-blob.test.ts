import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, gitOutput, repositoryUrl, runGitOperation, runPending } from '../helpers/git-sync';

/**
 * A repository whose server lacks the blob of `.gitbook.yaml` (see missing-blobs.test.ts: a partial or damaged copy).
 * GitBook's defaults (content at the root, README.md, SUMMARY.md, no redirects) are for a repository without the file;
 * this one has it, and what it says is unknown: its `root` may put the content in another folder, where the defaults
 * would read other files, delete the space's pages and drop the sites' redirects it lists. So the import fails before
 * it changes anything, naming the file and its blob, and the space keeps what it had. It failed with the transport's
 * error about a blob, which named neither the file nor why it mattered.
 */
describe('a server that lacks the blob of .gitbook.yaml or SUMMARY.md', () => {
  it('fails the import naming the file and its blob, and the space keeps its pages', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'summary-config-blob';
    await createRepository(name, {
      files: {
        '.gitbook.yaml': 'root: ./docs/\n',
        'README.md': '# Not the docs\n',
        'docs/README.md': '# Home\n\nWelcome.\n',
        'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
        'docs/guide.md': '# Guide\n\nRead me.\n',
      },
    });
    const body = { url: repositoryUrl(name), ref: 'refs/heads/main', force: true };
    await runGitOperation(space.id, token, 'import', body);
    const before = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(before.map((p: any) => p.title)).toEqual(['Home', 'Guide']);

    await createRepository(name, {
      files: {
        '.gitbook.yaml': 'root: ./docs/\nredirects:\n  old: guide.md\n',
        'README.md': '# Not the docs\n',
        'docs/README.md': '# Home\n\nWelcome back.\n',
        'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
        'docs/guide.md': '# Guide\n\nRead me.\n',
      },
      missing: ['.gitbook.yaml'],
    });
    const configOid = (await gitOutput(name, 'rev-parse', 'refs/heads/main:.gitbook.yaml')).trim();
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body }), 204);
    await runPending(space.id);
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'failure', direction: 'import' });
    expect(info.operation.error).toContain(`.gitbook.yaml: the repository's server does not have its blob ${configOid}`);
    const after = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(after.map((p: any) => [p.id, p.title])).toEqual(before.map((p: any) => [p.id, p.title]));
  }, 120_000);

  it('fails the import naming SUMMARY.md when its blob is the one lacking (the folders would be another tree)', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'summary-summary-blob';
    await createRepository(name, {
      files: { 'README.md': '# Home\n', 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](b/guide.md)\n', 'b/guide.md': '# Guide\n' },
      missing: ['SUMMARY.md'],
    });
    const summaryOid = (await gitOutput(name, 'rev-parse', 'refs/heads/main:SUMMARY.md')).trim();
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { url: repositoryUrl(name), ref: 'refs/heads/main', force: true } }), 204);
    await runPending(space.id);
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'failure', direction: 'import' });
    expect(info.operation.error).toContain(`SUMMARY.md: the repository's server does not have its blob ${summaryOid}`);
  }, 120_000);
});
