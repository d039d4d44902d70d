import { z } from '@hono/zod-openapi';
import type { gitSyncStates } from '../db/schema/index';

/** GitBook's `GitSyncState`: the repository a space syncs with and its latest operation. */
export const GitSyncOperationSchema = z
  .object({
    state: z.enum(['running', 'failure', 'success', 'timeout']),
    direction: z.enum(['export', 'import']),
    startedAt: z.string(),
    endedAt: z.string().optional(),
    error: z.string().optional().openapi({ description: 'Why the operation failed (or what an import left out), when it did' }),
  })
  .openapi('GitSyncOperationStatus');

export const GitSyncStateSchema = z
  .object({
    repoName: z.string().optional(),
    installationStatus: z.enum(['unauthenticated', 'active', 'pending']),
    installationProvider: z.enum(['github', 'gitlab', 'github-legacy']),
    installationId: z.string(),
    url: z.string().optional().openapi({ description: 'The URL of the repository tree (or the repository, without credentials)' }),
    operation: GitSyncOperationSchema.optional(),
    operationTimeout: z.number().int().optional(),
    updatedAt: z.string().optional(),
  })
  .openapi('GitSyncState');

export type GitSyncState = z.infer<typeof GitSyncStateSchema>;

/** `owner/name` of a repository URL (its last two path segments, without `.git`). */
export function repoNameOf(repoUrl: string): string | undefined {
  try {
    return (
      new URL(repoUrl).pathname
        .replace(/\.git$/, '')
        .split('/')
        .filter(Boolean)
        .slice(-2)
        .join('/') || undefined
    );
  } catch {
    return undefined;
  }
}

export function toGitSyncState(row: typeof gitSyncStates.$inferSelect, timeoutMs: number): GitSyncState {
  const url = row.treeUrl ?? row.repoUrl;
  const repoName = repoNameOf(row.repoUrl);
  return {
    ...(repoName ? { repoName } : {}),
    installationStatus: 'active',
    installationProvider: row.provider === 'gitlab' ? 'gitlab' : 'github',
    installationId: row.installationId,
    url,
    ...(row.opDirection && row.opState && row.opStartedAt
      ? {
          operation: {
            state: row.opState as 'running' | 'failure' | 'success' | 'timeout',
            direction: row.opDirection as 'import' | 'export',
            startedAt: row.opStartedAt,
            ...(row.opEndedAt ? { endedAt: row.opEndedAt } : {}),
            ...(row.opError ? { error: row.opError } : {}),
          },
        }
      : {}),
    operationTimeout: timeoutMs,
    updatedAt: row.updatedAt,
  };
}
