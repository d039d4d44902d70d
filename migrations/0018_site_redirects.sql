-- Site redirects (GitBook's SiteRedirect): a source path of a site and where it leads. `destination` is the
-- JSON of a SiteRedirectDestination; `sorted_at` is when it last changed (updated, else created), what
-- listSiteRedirects' orderBy=updatedAt sorts by. One live and one draft redirect per source at most.
CREATE TABLE `site_redirects` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`source` text NOT NULL,
	`draft` integer DEFAULT false NOT NULL,
	`capture_wildcard` integer DEFAULT false NOT NULL,
	`permanent` integer DEFAULT false NOT NULL,
	`destination` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text,
	`sorted_at` text NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `site_redirects_source` ON `site_redirects` (`site_id`,`draft`,`source`);--> statement-breakpoint
CREATE INDEX `site_redirects_created` ON `site_redirects` (`site_id`,`created_at`,`id`);
