-- Hand-written (issue 40, Git Sync at 5,000 pages): where an import applied in several SpaceWriter calls stands, kept in
-- D1 between the calls instead of sent with each of them, so that each call receives only its slice and a queue
-- message delivered again (the consumer died or ran out of time) continues from the last slice stored.
-- `git_sync_import_progress`: one row per running import (the tree its slices left, the next change, the ids given to
-- its batch refs); deleted when the import ends, whatever its outcome (operations.ts finish, cleanup.ts abandonGitOperation).
-- `git_sync_import_rows`: the rows of git_sync_entries each slice made for its pages and files (their blob, path,
-- document, head and place as the slice left them); the last call copies them into git_sync_entries in the batch
-- that moves the head, and deletes them. Nobody reads them before: an import that fails changes nothing visible.
CREATE TABLE `git_sync_import_progress` (
	`operation_id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`progress` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `git_sync_import_rows` (
	`operation_id` text NOT NULL,
	`path` text NOT NULL,
	`kind` text NOT NULL,
	`target_id` text NOT NULL,
	`oid` text NOT NULL,
	`hash` text,
	`title_heading` integer DEFAULT true NOT NULL,
	`head` text,
	`place` text,
	PRIMARY KEY(`operation_id`, `path`)
);
