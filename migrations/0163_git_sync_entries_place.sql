-- Hand-written (issue 40, Git Sync layout): what an entry's file was synced as, beside its path.
-- `place`: a page's parent and slug when its file was last synced (`<parent id>/<slug>`, '' for the top level). The
-- export moves a page's file where GitBook would (its parent's folder and its slug, as GitBook's docs-sfp GITBOOK-247
-- shows) only when the page moved or was renamed since; rows made before this column have none (NULL): their pages
-- keep their files until they are synced again, as before.
-- `text`: the `.gitbook.yaml` an import read (an entry of kind `config`), so that an export to a new branch or an
-- empty repository writes the configuration the space was imported with (its root, readme, summary and redirects).
ALTER TABLE `git_sync_entries` ADD `place` text;
--> statement-breakpoint
ALTER TABLE `git_sync_entries` ADD `text` text;
