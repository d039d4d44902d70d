import { describe, expect, it } from 'vitest';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * A repository without SUMMARY.md whose folders nest without a README.md below the top level (`content/blogs/`, a
 * page with no file: aggrawal-ankur's docs, gitprobe12a): an export with nothing edited made a commit adding a
 * SUMMARY.md. GitBook infers the navigation from the folders and writes SUMMARY.md only when the navigation changes in
 * GitBook (its Git Sync documentation, "Configure navigation with SUMMARY.md"); an export of an unchanged space makes
 * no commit.
 */

describe('a repository laid out by nested folders without README.md', () => {
  it('gets no commit from an export with nothing edited', async () => {
    const name = 'conformance-folder-layout-nested';
    const { token, space, head } = await importedSpace(name, {
      'README.md': '# Intro\n\nWelcome.\n',
      'content/blogs/first-post.md': '# First post\n\nText.\n',
      'content/blogs/second-post.md': '# Second post\n\nText.\n',
      'content/docs/debugging/gdb.md': '# GDB\n\nText.\n',
      'content/docs/intro.md': '# Docs\n\nText.\n',
      'notes/todo.md': '# To do\n\nText.\n',
    });
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'GitBook: No commit message' });
    expect((await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim()).toBe(head);
  });
});
