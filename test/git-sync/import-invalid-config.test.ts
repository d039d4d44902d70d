import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found by a probe (gitprobe17b: an invalid `.gitbook.yaml` committed in a real repository whose own set redirects): a
 * `.gitbook.yaml` that is not YAML is read as GitBook's defaults, and its root and redirects were dropped without a
 * word; the import said only "imported". It is still read so (the pages under the defaults), with a warning naming it.
 */
describe('an import of a repository whose .gitbook.yaml is not valid YAML', () => {
  it('imports the pages under the defaults and warns, naming .gitbook.yaml', async () => {
    const name = 'import-invalid-config';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository(name, {
      files: {
        '.gitbook.yaml': 'root: ./\n\nredirects:\n  old/page: guide.md\n',
        'README.md': '# Home\n\nFirst words.\n',
        'guide.md': '# Guide\n\nSteps.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
      },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    expect((await gitInfo(space.id, token)).body.operation.error ?? '').not.toMatch(/gitbook\.yaml/);

    await control('commit', { name, message: 'Broken configuration', files: { '.gitbook.yaml': 'root: [unclosed\nredirects:\n  old/page: {{ guide.md\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date(Date.now() + 60_000).toISOString() });
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation.error).toMatch(/\.gitbook\.yaml: it is not valid YAML \(.+\); read as GitBook's defaults/);
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p) => p.git?.path)).toEqual(['README.md', 'guide.md']);
  }, 120_000);
});
