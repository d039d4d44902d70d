-- Git Sync (issue 40): GitBook's `Space.gitSync` (repoName, installationProvider, integration, url, updatedAt), set
-- when an operation of the space succeeds, kept on the space's row so that every read of a space carries it
-- without a round trip more.
ALTER TABLE `spaces` ADD COLUMN `git_sync` text;
