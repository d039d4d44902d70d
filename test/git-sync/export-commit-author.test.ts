import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { githubBody, gitOutput, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * The commit an export makes is authored by the GitBook user whose change request the space's head merged, and
 * committed by GitBook, as GitBook's own are: every `GITBOOK-N` commit of the real repositories probed (CIPP,
 * Airstack, Zenlytic, atlas-api-docs, coinmetrics) is authored by a person (`Brian Simpson <brian@...>`) and
 * committed by `gitbook-bot <ghost@gitbook.com>`. Every export was authored by "GitBook" before, whoever wrote the
 * change. The export is asked for by the integration's token (here the owner's), not by the change request's author.
 */

const NAME = 'export-commit-author';
const BOT = 'GitBook <gitbook@users.noreply.docs-platform.invalid>';

async function mergeAndExport(spaceId: string, ownerToken: string, authorToken: string, pageId: string, text: string, subject: string) {
  const cr = await openChangeRequest(spaceId, authorToken, subject);
  await applyChanges(spaceId, cr.number, authorToken, [{ operation: 'update_page', page: pageId, document: { markdown: `# Guide\n\n${text}\n` } }]);
  expectStatus(await merge(spaceId, cr.number, ownerToken), 200);
  const head = expectStatus(await api('GET', `/v1/spaces/${spaceId}`, { token: ownerToken }), 200).body.revision;
  const revision = expectStatus(await api('GET', `/v1/spaces/${spaceId}/revisions/${head}`, { token: ownerToken }), 200).body;
  await runGitOperation(spaceId, ownerToken, 'export', { ...githubBody(NAME), force: false, timestamp: revision.createdAt, commitMessage: `GITBOOK-${cr.number}: ${subject}` });
  return (await gitOutput(NAME, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s', 'refs/heads/main')).trim();
}

describe('export commit author', () => {
  it("is the merged change request's author; GitBook commits it", async () => {
    const { org, token, space, byPath } = await importedSpace(NAME, { 'README.md': '# Home\n\nWelcome.\n', 'guide.md': '# Guide\n\nRead me.\n' });
    const writer = org.members.edit;
    const guide = byPath('guide.md');

    expect(await mergeAndExport(space.id, token, writer.token, guide.id, 'Edited by the writer.', 'Fix the guide')).toBe(`${writer.displayName} <${writer.email}>|${BOT}|GITBOOK-1: Fix the guide`);

    // A name or an email holding what Git's identity line cannot (`<`, `>`, a line break): left out, and the commit
    // stays valid for `git fsck --strict`.
    await env.DB.prepare('update users set display_name = ?, email = ? where id = ?').bind('Ann <ann>\nLee', '<ann@example.test>', writer.id).run();
    expect(await mergeAndExport(space.id, token, writer.token, guide.id, 'Edited again.', 'Again')).toBe(`Ann annLee <ann@example.test>|${BOT}|GITBOOK-2: Again`);
    await gitOutput(NAME, 'fsck', '--strict');
  });
});
