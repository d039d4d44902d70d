import { runBatch, type Db } from '../../db/client';
import type { SpaceGitSync } from '../../db/schema/content';
import { repoNameOf } from '../../schemas/git-sync';
import { gitSyncOperations, gitSyncStates } from '../../db/schema/index';
import type { Env } from '../../env';
import { newId } from '../../lib/ids';
import { nowIso } from '../../lib/time';
import { GIT_SYNC_JOB } from '../../jobs/git-sync';
import { sendJobs } from '../../jobs/messages';
import { encryptSecret } from '../integrations/crypto';
import { splitCredentials } from './urls';

/**
 * Queueing a Git Sync operation (what importGitRepository and exportToGitRepository do once the caller is
 * authorized): the operation's request without credentials, the credentials encrypted with INTEGRATIONS_KEY,
 * the space's Git Sync state showing it running, and a GIT_SYNC_JOB message. The queue consumer runs it
 * (services/git-sync/operations, which alone loads the Git client).
 */

export const GIT_OPERATION_TIMEOUT_MS = 10 * 60 * 1000;

export type GitDirection = 'import' | 'export';

export interface GitOperationRequest {
  url: string;
  ref: string;
  commitMessage?: string;
  repoTreeURL?: string;
  repoCommitURL?: string;
  repoProjectDirectory?: string;
  timestamp?: string;
  force?: boolean;
  standalone?: boolean;
  provider?: string;
}

/** GitBook's `Space.gitSync` after an operation with this request succeeded. */
export function spaceGitSyncOf(request: GitOperationRequest, now: string): SpaceGitSync {
  const provider = providerOf(request.url, request.provider) as 'github' | 'gitlab';
  const repoName = repoNameOf(request.url);
  return { ...(repoName ? { repoName } : {}), installationProvider: provider, integration: provider, url: (request.repoTreeURL ?? request.url).replace(/\/+$/, ''), updatedAt: now };
}

function withoutProvider<T extends { provider: string }>(state: T): Omit<T, 'provider'> {
  const { provider: _kept, ...rest } = state;
  return rest;
}

function providerOf(url: string, given?: string): string {
  if (given === 'github' || given === 'gitlab') return given;
  const host = new URL(url).hostname;
  return host.includes('gitlab') ? 'gitlab' : 'github';
}

/** Records an operation and queues it: what the two routes do after authorizing the caller. */
export async function queueGitOperation(
  env: Env,
  db: Db,
  input: { spaceId: string; userId: string; installationId: string | null; direction: GitDirection; body: GitOperationRequest & { url: string } },
): Promise<string> {
  const { url, credentials } = splitCredentials(input.body.url);
  const request: GitOperationRequest = { ...input.body, url };
  const secret = credentials ? await encryptSecret(env, JSON.stringify(credentials)) : null;
  const id = newId();
  const now = nowIso();
  const state = {
    provider: providerOf(url, input.body.provider),
    installationId: input.installationId ?? `git-sync:${input.spaceId}`,
    repoUrl: url,
    treeUrl: input.body.repoTreeURL ?? null,
    ref: input.body.ref,
    projectDirectory: input.body.repoProjectDirectory ?? null,
    opId: id,
    opDirection: input.direction,
    opState: 'running',
    opStartedAt: now,
    opEndedAt: null,
    opError: null,
    updatedAt: now,
  };
  await runBatch(db, [
    db.insert(gitSyncOperations).values({
      id,
      spaceId: input.spaceId,
      direction: input.direction,
      userId: input.userId,
      request: JSON.stringify(request),
      secret,
      // As an instant in UTC: the newest accepted one is kept as the larger string (operations.ts), which compares
      // instants only when every timestamp is written alike (`10:30+02:00` is earlier than `09:00Z`).
      timestamp: input.body.timestamp ? new Date(input.body.timestamp).toISOString() : null,
      state: 'pending',
      createdAt: now,
    }),
    db
      .insert(gitSyncStates)
      .values({ spaceId: input.spaceId, ...state })
      // A push or an export sends no gitInfo (GitBook's integrations send it at setup only): the space keeps the provider
      // it was set up with, which a self-hosted GitLab's host would otherwise turn into GitHub.
      .onConflictDoUpdate({ target: gitSyncStates.spaceId, set: input.body.provider ? state : withoutProvider(state) }),
  ]);
  await sendJobs(env, [{ id, type: GIT_SYNC_JOB, payload: { operationId: id } }], 'git sync');
  return id;
}

