import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { runBatch } from '../../db/client';
import { gitSyncStates } from '../../db/schema/index';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema } from '../../schemas/common';
import { GitSyncStateSchema, toGitSyncState } from '../../schemas/git-sync';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../../services/spaces/spaces';
import { GIT_OPERATION_TIMEOUT_MS, queueGitOperation, type GitDirection } from '../../services/git-sync/queue';
import { checkRepositoryUrl } from '../../services/git-sync/urls';

/**
 * Git Sync (GitBook's `space-git` operations): import a repository into the space, export the space to it, and
 * read the state of the latest operation. Both operations answer 204 at once and run in the queue consumer
 * (services/git-sync/operations). GitBook's GitHub and GitLab integrations call them with installation tokens
 * (scope `space:git:sync`); members need the role of GitBook's `triggerGitSync` permission (edit).
 */
const tags = ['Git Sync'];
const Params = z.object({ spaceId: IdSchema('spaceId') });

const RepoUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .openapi({ description: 'URL of the Git repository (http or https). It can contain basic auth credentials, which are taken out of it, kept encrypted while the operation runs, then deleted' });
const Ref = z
  .string()
  .trim()
  .min(1)
  .max(256)
  .regex(/^[^\s~^:?*[\\\x00-\x1f\x7f]+$/, 'must be a Git ref such as "refs/heads/main"')
  .refine((ref) => !ref.includes('..') && !ref.startsWith('-'), 'must be a Git ref such as "refs/heads/main"')
  .openapi({ description: 'Git ref in the format "refs/heads/main"' });
const OptionalUrl = z.string().max(2048).optional();
const Common = {
  url: RepoUrl,
  ref: Ref,
  repoCacheID: z.string().max(256).optional().openapi({ description: 'Accepted and ignored (deprecated in GitBook)' }),
  repoTreeURL: OptionalUrl.openapi({ description: 'URL to use as a prefix for external file references' }),
  repoCommitURL: OptionalUrl.openapi({ description: 'URL to use as a prefix for the commit URL' }),
  repoProjectDirectory: z.string().max(512).optional().openapi({ description: 'Path to a root directory for the project in the repository' }),
  timestamp: z.string().datetime({ offset: true }).optional().openapi({ description: 'When the event that triggered the operation happened: an older operation than one already run is skipped, unless `force`' }),
  force: z.boolean().optional(),
  standalone: z.boolean().optional(),
  gitInfo: z
    .object({ provider: z.enum(['github', 'gitlab']).optional(), url: z.string().max(2048).optional() })
    .optional()
    .openapi({ description: 'Metadata about the Git provider (deprecated in GitBook)' }),
};

const ImportGitRepositorySchema = z.object(Common).openapi('ImportGitRepository');
const ExportToGitRepositorySchema = z
  .object({ ...Common, commitMessage: z.string().min(1).max(10_000).openapi({ description: 'Message of the commit the export makes' }) })
  .openapi('ExportToGitRepository');

const importRoute = defineRoute('post', '/spaces/{spaceId}/git/import', () => ({
  operationId: 'importGitRepository',
  costly: 'content-writes',
  tokens: { scope: 'space:git:sync' },
  tags,
  summary: 'Pull content into a space from a Git repository',
  description:
    "Queues an import of the repository at `ref` (and `repoProjectDirectory`) into the space: GitBook's layout (`.gitbook.yaml`, `SUMMARY.md`, `README.md`, `.gitbook/assets/`) becomes one new revision, the space's head unless `standalone`. Answers 204 at once; getSpaceGitInfo tells how it went.",
  request: { params: Params, ...jsonBody(ImportGitRepositorySchema) },
  responses: { 204: noContent('Operation to import the repository has been queued.') },
}));

const exportRoute = defineRoute('post', '/spaces/{spaceId}/git/export', () => ({
  operationId: 'exportToGitRepository',
  costly: 'content-writes',
  tokens: { scope: 'space:git:sync' },
  tags,
  summary: "Push the space's content to a Git repository",
  description:
    "Queues an export of the space's current content as one commit on `ref`, whose parent is the branch's head: only the files GitBook owns are written, and those unchanged since the last sync keep their blobs. Never forced: a branch that moved on refuses it (the operation fails). Answers 204 at once; getSpaceGitInfo tells how it went.",
  request: { params: Params, ...jsonBody(ExportToGitRepositorySchema) },
  responses: { 204: noContent('Operation to export the space has been queued.') },
}));

const infoRoute = defineRoute('get', '/spaces/{spaceId}/git/info', () => ({
  operationId: 'getSpaceGitInfo',
  tokens: { scope: 'space:git:sync' },
  tags,
  summary: 'Get the Git Sync state of a space',
  description: 'The repository the space syncs with and its latest operation (running, success, failure with its error, or timeout). 404 when the space never synced.',
  request: { params: Params },
  responses: { 200: jsonResponse(GitSyncStateSchema, 'The Git Sync info for the space') },
}));

/** Who may trigger an operation: members with `edit` (GitBook's triggerGitSync), installation tokens with `space:git:sync` on a space they cover. */
async function authorizeTrigger(c: Context<AppBindings>, spaceId: string) {
  const userId = requireUser(c);
  const actor = c.get('actor');
  const db = c.get('db');
  const [rows] = (await runBatch(db, [selectSpaceWithRank(db, spaceId, userId)])) as [SpaceWithRank[]];
  checkSpace(rows, actor.kind === 'installation' ? RANK.read : RANK.edit);
  return { userId, installationId: actor.kind === 'installation' ? actor.grant.installationId : null };
}

async function queue(c: Context<AppBindings>, direction: GitDirection, body: z.infer<typeof ExportToGitRepositorySchema> | z.infer<typeof ImportGitRepositorySchema>) {
  const { spaceId } = c.req.valid('param' as never) as { spaceId: string };
  const { userId, installationId } = await authorizeTrigger(c, spaceId);
  checkRepositoryUrl(c.env, body.url, 'url');
  for (const field of ['repoTreeURL', 'repoCommitURL'] as const) {
    const value = body[field];
    if (value !== undefined && !/^https?:\/\/[^\s@]+$/i.test(value)) throw badRequest(`${field}: must be an http(s) URL without credentials`);
  }
  await queueGitOperation(c.env, c.get('db'), {
    spaceId,
    userId,
    installationId,
    direction,
    body: { ...body, provider: body.gitInfo?.provider, repoTreeURL: body.repoTreeURL ?? body.gitInfo?.url },
  });
  return c.body(null, 204);
}

export const gitSyncRouter = createRouter()
  .openapi(importRoute, async (c) => queue(c, 'import', c.req.valid('json')))
  .openapi(exportRoute, async (c) => queue(c, 'export', c.req.valid('json')))
  .openapi(infoRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const db = c.get('db');
    const [rows, states] = (await runBatch(db, [selectSpaceWithRank(db, spaceId, userId), db.select().from(gitSyncStates).where(eq(gitSyncStates.spaceId, spaceId))])) as [
      SpaceWithRank[],
      Array<typeof gitSyncStates.$inferSelect>,
    ];
    checkSpace(rows, RANK.read, true);
    if (!states[0]) throw new ApiError(404, 'No Git provider is set up on this space');
    return c.json(toGitSyncState(states[0], GIT_OPERATION_TIMEOUT_MS), 200);
  });
