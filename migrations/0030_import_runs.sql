-- Import runs (GitBook's ContentImportRun: startImportRun, listImportRuns, getImportRun, cancelImportRun): a
-- website imported into a space (its main content or a change request) in the background, by the queue
-- consumer (services/import/runs.ts). `status` is what the API shows; `step` is where a live run is
-- (`crawling`, then `writing` once it has claimed the right to write its content: a cancel no longer stops it).
CREATE TABLE `import_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`space_id` text NOT NULL,
	`change_request_id` text,
	`page_id` text,
	`site_id` text,
	`source_type` text NOT NULL,
	`source_url` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`step` text,
	`reason` text,
	`pages` text,
	`revision_id` text,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`started_at` text,
	`completed_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `import_runs_org` ON `import_runs` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `import_runs_space` ON `import_runs` (`space_id`,`created_at`);
