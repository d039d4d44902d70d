import { describe, expect, it } from 'vitest';
import { createSpace, pageTree } from '../helpers/content';
import { seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * An export to a new branch (or an empty repository) wrote no `.gitbook.yaml`, so the `root`, `structure.readme`
 * (`README_zh.md`, as greyireland/algorithm-pattern has), `structure.summary` and redirects the space was imported with
 * were lost: the pages went to the repository's root, the first page to `README.md`. It now writes the one it imported,
 * byte for byte, where the target has none and that one is not GitBook's default. GitBook writes none to a fresh
 * repository for a space of its own (the first GitBook commits of elsa-gitbook, dsa-notes, beefree and cipp-docs hold
 * README.md, SUMMARY.md and pages only): a space imported without one gets none either.
 */

const CONFIG = '# Where the docs live\nroot: ./docs/\n\nstructure:\n  readme: README_zh.md\n  summary: SUMMARY.md\n\nredirects:\n  old/start: README_zh.md\n';

const FILES = {
  '.gitbook.yaml': CONFIG,
  'docs/README_zh.md': '# 首页\n\nWelcome.\n',
  'docs/SUMMARY.md': '# Table of contents\n\n* [首页](README_zh.md)\n* [Guide](guide.md)\n',
  'docs/guide.md': '# Guide\n\nSteps.\n',
  'src/index.js': 'export {};\n',
};

const toFreshBranch = (name: string) => ({ ...githubBody(name), ref: 'refs/heads/fresh', force: true, commitMessage: 'GitBook: No commit message', timestamp: new Date().toISOString() });

describe('an export to a new branch', () => {
  it('writes the .gitbook.yaml the space was imported with, and the pages where it says', async () => {
    const name = 'config-new-branch';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    await runGitOperation(space.id, token, 'export', toFreshBranch(name));
    expect((await gitOutput(name, 'ls-tree', '-r', '--name-only', 'refs/heads/fresh')).trim().split('\n')).toEqual(['.gitbook.yaml', 'docs/README_zh.md', 'docs/SUMMARY.md', 'docs/guide.md']);
    expect(await gitOutput(name, 'show', 'refs/heads/fresh:.gitbook.yaml')).toBe(CONFIG);
    await gitOutput(name, 'fsck', '--strict');

    // Another space reading the new branch gets the same pages.
    const second = await createSpace(org.id, token);
    await runGitOperation(second.id, token, 'import', { ...githubBody(name), ref: 'refs/heads/fresh', force: true });
    expect(await pageTree(second.id, token)).toEqual(await pageTree(space.id, token));
  });

  it('writes none for a space imported without one', async () => {
    const name = 'config-new-branch-default';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository(name, { files: { 'README.md': '# Home\n', 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n', 'guide.md': '# Guide\n' } });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    await runGitOperation(space.id, token, 'export', toFreshBranch(name));
    expect((await gitOutput(name, 'ls-tree', '-r', '--name-only', 'refs/heads/fresh')).trim().split('\n')).toEqual(['README.md', 'SUMMARY.md', 'guide.md']);
  });
});
