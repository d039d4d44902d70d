CREATE TABLE `openapi_spec_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`spec_id` text NOT NULL,
	`hash` text NOT NULL,
	`url` text,
	`format` text NOT NULL,
	`entry` text NOT NULL,
	`outline` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`spec_id`) REFERENCES `openapi_specs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `openapi_spec_versions_spec` ON `openapi_spec_versions` (`spec_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `openapi_specs` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`slug` text NOT NULL,
	`source_url` text,
	`source_text_key` text,
	`visibility` text DEFAULT 'private' NOT NULL,
	`processing_state` text DEFAULT 'pending' NOT NULL,
	`processing_job` text,
	`queued_at` text,
	`processing_attempts` integer DEFAULT 0 NOT NULL,
	`last_version_id` text,
	`last_processed_at` text,
	`last_process_error_code` text,
	`last_processed_errors` text,
	`last_processed_error_count` integer DEFAULT 0 NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `openapi_specs_org_slug` ON `openapi_specs` (`org_id`,`slug`);--> statement-breakpoint
CREATE INDEX `openapi_specs_org` ON `openapi_specs` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `openapi_specs_refresh` ON `openapi_specs` (`last_processed_at`);