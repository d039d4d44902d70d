-- Hand-written (issue 40, Git Sync export): a signature of the page's head (its title and the fields its file's front
-- matter holds: description, icon, layout, hidden...) when its file was last synced. The export compared documents
-- only, so a page whose title or description alone changed kept its old file. Rows made before this column have
-- none (NULL): their head is unknown, and the export keeps their file unless the document changed, as before.
ALTER TABLE `git_sync_entries` ADD `head` text;
