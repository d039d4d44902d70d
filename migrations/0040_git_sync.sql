-- Git Sync (issue 40): a space kept in sync with a Git repository (importGitRepository, exportToGitRepository,
-- getSpaceGitInfo). See src/services/git-sync.
--
-- git_sync_states: one row per space that was ever synced: the repository (its URL without credentials), the ref and
-- project directory, the newest operation timestamp accepted (older ones are skipped unless forced) and the latest
-- operation's state (GitBook's GitSyncState.operation).
CREATE TABLE `git_sync_states` (
  `space_id` text PRIMARY KEY NOT NULL REFERENCES `spaces`(`id`) ON DELETE cascade,
  `provider` text NOT NULL,
  `installation_id` text NOT NULL,
  `repo_url` text NOT NULL,
  `tree_url` text,
  `ref` text NOT NULL,
  `project_directory` text,
  `last_timestamp` text,
  `op_id` text,
  `op_direction` text,
  `op_state` text,
  `op_started_at` text,
  `op_ended_at` text,
  `op_error` text,
  `updated_at` text NOT NULL
);
--> statement-breakpoint
-- git_sync_operations: each queued operation. `secret` is the credentials of the URL, encrypted with INTEGRATIONS_KEY,
-- and set to NULL as soon as the operation ends (success or failure): nothing of them stays.
CREATE TABLE `git_sync_operations` (
  `id` text PRIMARY KEY NOT NULL,
  `space_id` text NOT NULL REFERENCES `spaces`(`id`) ON DELETE cascade,
  `direction` text NOT NULL,
  `user_id` text NOT NULL,
  `request` text NOT NULL,
  `secret` text,
  `timestamp` text,
  `state` text NOT NULL,
  `error` text,
  `revision_id` text,
  `created_at` text NOT NULL,
  `ended_at` text
);
--> statement-breakpoint
CREATE INDEX `git_sync_operations_space` ON `git_sync_operations` (`space_id`, `created_at`);
--> statement-breakpoint
-- git_sync_entries: what the last sync left in the repository, per path GitBook owns: the page or file it is, its blob,
-- and (pages) the hash of the document that blob was read from or written from. A re-import keeps the ids of pages whose
-- paths did not change and reads only blobs that changed; an export keeps the blob of a page whose document did not change.
CREATE TABLE `git_sync_entries` (
  `space_id` text NOT NULL REFERENCES `spaces`(`id`) ON DELETE cascade,
  `path` text NOT NULL,
  `kind` text NOT NULL,
  `target_id` text NOT NULL,
  `oid` text NOT NULL,
  `hash` text,
  PRIMARY KEY (`space_id`, `path`)
);
--> statement-breakpoint
-- revision_git: GitBook's Revision.git, for the revisions Git Sync made (an import) or pushed (an export).
CREATE TABLE `revision_git` (
  `revision_id` text PRIMARY KEY NOT NULL,
  `space_id` text NOT NULL REFERENCES `spaces`(`id`) ON DELETE cascade,
  `oid` text NOT NULL,
  `message` text NOT NULL,
  `created_by_gitbook` integer NOT NULL,
  `url` text,
  `ref` text
);
