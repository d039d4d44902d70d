-- Git Sync (issue 40): what an operation fetched from the remote (protocol, requests, pack bytes, blobs fetched by
-- id), recorded when it ends: how a re-import shows it fetched only changed blobs, and what operators read.
ALTER TABLE `git_sync_operations` ADD COLUMN `stats` text;
