import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest, pageTree } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * Found probing a real repository (probe22, trunk-io/docs at 73e52a3): its summary lists one file twice, first alone
 * (`* [MCP Server](reference/mcp/README.md)` under another section: GitBook writes a link to a page so), then in its own
 * place with its pages under it. The import made the page at its first place, a leaf, and the pages listed under its
 * second place became pages of the section above; an export that then wrote the summary again (one page added) wrote
 * every one of those lines one level up: 11 lines rewritten that nobody had touched. The page is where its pages nest
 * (the place with items under it); its other place keeps its line, as a second place of a page did before.
 */
const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '* [Agents](agents/README.md)',
  '  * [Autofix](agents/autofix.md)',
  '  * [MCP Server](reference/mcp/README.md)',
  '* [Reference](reference/README.md)',
  '  * [CLI](reference/cli.md)',
  '  * [MCP reference](reference/mcp/README.md)',
  '    * [Configuration](reference/mcp/configuration.md)',
  '    * [Search](reference/mcp/search.md)',
  '',
].join('\n');

describe('a summary that lists a file alone, then again with pages under it', () => {
  it('makes the page where its pages nest, and an export writing the summary again keeps every line of it', async () => {
    const name = `summary-page-listed-twice-${Date.now().toString(36)}`;
    const { token, space, head } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': SUMMARY,
      'agents/README.md': '# Agents\n\nAgents.\n',
      'agents/autofix.md': '# Autofix\n\nFixes.\n',
      'reference/README.md': '# Reference\n\nReference.\n',
      'reference/cli.md': '# CLI\n\nThe CLI.\n',
      'reference/mcp/README.md': '# MCP reference\n\nThe server.\n',
      'reference/mcp/configuration.md': '# Configuration\n\nConfigure it.\n',
      'reference/mcp/search.md': '# Search\n\nSearch with it.\n',
    });
    expect(await pageTree(space.id, token)).toEqual([
      'home: Home',
      'agents: Agents',
      'agents/autofix: Autofix',
      'reference: Reference',
      'reference/cli: CLI',
      'reference/mcp: MCP reference',
      'reference/mcp/configuration: Configuration',
      'reference/mcp/search: Search',
    ]);

    const cr = (await openChangeRequest(space.id, token, 'New page')).number;
    await applyChanges(space.id, cr, token, [{ operation: 'insert_page', title: 'Changelog', document: { markdown: '# Changelog\n\nNews.\n' } }]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: New page`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['SUMMARY.md', 'changelog.md']);
    expect(await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md')).toBe(`${SUMMARY}* [Changelog](changelog.md)\n`);
  }, 240_000);
});
