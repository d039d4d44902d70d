-- Hand-written (issue 40, Git Sync edit fidelity): whether a page's file began with a heading 1 when it was last
-- synced. A file without one (its title only in SUMMARY.md) got `# <title>` on its first edit in GitBook: the export
-- writes the page's title as a heading 1 unless the file it replaces had none. Rows made before this column are the
-- files of earlier syncs, whose export wrote the heading: 1 keeps that.
ALTER TABLE `git_sync_entries` ADD `title_heading` integer DEFAULT 1 NOT NULL;
