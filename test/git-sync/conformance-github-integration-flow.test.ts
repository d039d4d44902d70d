import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitOutput, gitServer, repositoryUrl, runPending, gitInfo } from '../helpers/git-sync';

/**
 * GitBook's GitHub integration (GitbookIO/integrations, integrations/github/src/sync.ts and its callers), step by step,
 * with the bodies it builds and the decisions it takes from our answers:
 * - setup (installation.ts): triggerImport({ force: true, updateGitInfo: true }): no `timestamp` (forced), `gitInfo`;
 * - space_content_updated (index.ts): skipped when the revision has `git.oid` (its loop guard), else triggerExport
 *   with `timestamp` = the revision's createdAt and `commitMessage` from `GITBOOK-{change_request_number}:
 *   {change_request_subject}`, read from the revision's `type` ('merge') and `mergedFrom` (else "GitBook: No commit
 *   message");
 * - push (webhooks.ts): `timestamp` = the head commit's time; pull request: `ref: refs/pull/N/head`, `standalone: true`.
 * JSON drops what the integration leaves undefined (`repoProjectDirectory`, `timestamp`).
 */

const name = 'conformance-github-integration-flow';
const tree = `https://github.com/acme/${name}/blob/main`;

/** integrations/github/src/sync.ts triggerImport's body. */
function importBody(options: { force?: boolean; eventTimestamp?: Date; standaloneRef?: string; updateGitInfo?: boolean }) {
  const force = options.force ?? false;
  return JSON.parse(
    JSON.stringify({
      url: repositoryUrl(name),
      ref: options.standaloneRef || 'refs/heads/main',
      repoTreeURL: tree,
      repoCommitURL: `https://github.com/acme/${name}/commit`,
      repoProjectDirectory: undefined,
      repoCacheID: 'a-config-key',
      force,
      timestamp: options.eventTimestamp && !force ? options.eventTimestamp.toISOString() : undefined,
      standalone: !!options.standaloneRef,
      ...(options.updateGitInfo ? { gitInfo: { provider: 'github', url: tree } } : {}),
    }),
  );
}

/** integrations/github/src/sync.ts getCommitMessageForRevision (default template). */
function commitMessageFor(revision: any): string {
  const changeRequest = revision.type === 'merge' || revision.type === 'computed' ? revision.mergedFrom : null;
  if (!changeRequest) return 'GitBook: No commit message';
  return `GITBOOK-${changeRequest.number || ''}: ${changeRequest.subject || 'change request with no subject merged in GitBook'}`;
}

async function run(spaceId: string, token: string, direction: 'import' | 'export', body: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token, body }), 204);
  await runPending(spaceId);
  return (await gitInfo(spaceId, token)).body;
}

describe("GitBook's GitHub integration, its bodies and its decisions", () => {
  it('setup, an edit exported as on space_content_updated, the push of it ignored, a push, a pull request', async () => {
    expect(gitServer().username).toBe('x-access-token');
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const { head } = await createRepository(name, {
      files: {
        'README.md': '# Home\n\nWelcome.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
        'guide.md': '# Guide\n\nStep one.\n',
      },
    });
    const headOf = async () => expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body;
    const revisionOf = async (id: string) => expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${id}`, { token }), 200).body;

    // Setup.
    const setup = await run(space.id, token, 'import', importBody({ force: true, updateGitInfo: true }));
    expect(setup.operation).toMatchObject({ state: 'success', direction: 'import' });
    expect(setup.url).toBe(tree);
    const imported = await revisionOf((await headOf()).revision);
    // The integration skips the export of an imported revision.
    expect(imported.git).toMatchObject({ oid: head, createdByGitBook: false, ref: 'refs/heads/main' });

    // Two edits in two change requests, merged in turn: each merge (the first onto a main that had not moved) is a
    // `merge` revision with `mergedFrom`, so the integration's message is its template's, never its fallback
    // ("GitBook: No commit message"). Each merge has no git.oid: the integration exports.
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const guide = pages.find((p) => p.git?.path === 'guide.md');
    const home = pages.find((p) => p.git?.path === 'README.md');
    const first = await openChangeRequest(space.id, token, 'Welcome again');
    const cr = await openChangeRequest(space.id, token, 'Fix the guide');
    await applyChanges(space.id, first.number, token, [{ operation: 'update_page', page: home.id, document: { markdown: '# Home\n\nWelcome again.\n' } }]);
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: guide.id, document: { markdown: '# Guide\n\nStep one, fixed.\n' } }]);
    const exportOf = async (revision: any) => {
      expect(revision.git?.oid).toBeUndefined();
      const body = { ...importBody({ eventTimestamp: new Date(revision.createdAt) }), commitMessage: commitMessageFor(revision) };
      delete body.standalone;
      const exported = await run(space.id, token, 'export', body);
      expect(exported.operation).toMatchObject({ state: 'success', direction: 'export' });
      return body.commitMessage;
    };
    expectStatus(await merge(space.id, first.number, token), 200);
    const firstMerged = await revisionOf((await headOf()).revision);
    expect(firstMerged).toMatchObject({ type: 'merge', mergedFrom: { number: first.number, subject: 'Welcome again' } });
    expect(await exportOf(firstMerged)).toBe(`GITBOOK-${first.number}: Welcome again`);
    const between = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect(await gitOutput(name, 'log', '-1', '--format=%s', between)).toBe(`GITBOOK-${first.number}: Welcome again\n`);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const merged = await revisionOf((await headOf()).revision);
    expect(merged.type).toBe('merge');
    const message = await exportOf(merged);
    expect(message).toBe(`GITBOOK-${cr.number}: Fix the guide`);
    const pushed = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect(await gitOutput(name, 'log', '-1', '--format=%P%n%s', pushed)).toBe(`${between}\n${message}\n`);
    expect((await gitOutput(name, 'diff', '--name-only', head, pushed)).trim().split('\n')).toEqual(['README.md', 'guide.md']);
    // The space_content_updated that follows finds git.oid on the head: the integration exports nothing more.
    const afterExport = await headOf();
    expect((await revisionOf(afterExport.revision)).git).toMatchObject({ oid: pushed, createdByGitBook: true, message });

    // GitHub's push webhook for that commit: an import of what the space already has.
    const pushedAt = new Date((await gitOutput(name, 'log', '-1', '--format=%cI', pushed)).trim());
    const echo = await run(space.id, token, 'import', importBody({ eventTimestamp: pushedAt }));
    expect(echo.operation.state).toBe('success');
    expect((await headOf()).revision).toBe(afterExport.revision);

    // A push made with git, a second later than the export's commit.
    const commit = await control('commit', { name, files: { 'guide.md': '# Guide\n\nStep one, fixed.\n\nStep two.\n' }, message: 'Add step two' });
    const committedAt = new Date((await gitOutput(name, 'log', '-1', '--format=%cI', commit.head)).trim());
    const push = await run(space.id, token, 'import', importBody({ eventTimestamp: new Date(Math.max(committedAt.getTime(), pushedAt.getTime() + 1000)) }));
    expect(push.operation.state).toBe('success');
    const afterPush = await headOf();
    expect((await revisionOf(afterPush.revision)).git).toMatchObject({ oid: commit.head, createdByGitBook: false });
    expect(await pageMarkdown(space.id, guide.id, token)).toContain('Step two.');

    // A pull request: its head imported standalone, the space's head stays.
    const pr = await control('commit', { name, files: { 'guide.md': '# Guide\n\nProposed.\n' }, ref: 'refs/pull/3/head', message: 'Propose' });
    const preview = await run(space.id, token, 'import', importBody({ standaloneRef: 'refs/pull/3/head' }));
    expect(preview.operation.state).toBe('success');
    expect((await headOf()).revision).toBe(afterPush.revision);
    expect(pr.head).toMatch(/^[0-9a-f]{40}$/);
  }, 240_000);
});
