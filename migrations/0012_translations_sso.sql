CREATE TABLE `translation_pages` (
	`translation_id` text NOT NULL,
	`page_id` text NOT NULL,
	`source_key` text,
	`title` text,
	`description` text,
	`document_hash` text,
	`words` integer DEFAULT 0 NOT NULL,
	`translated_run` text,
	`translated_at` text,
	`pending_run` text,
	`pending_key` text,
	`claimed_at` text,
	PRIMARY KEY(`translation_id`, `page_id`),
	FOREIGN KEY (`translation_id`) REFERENCES `translations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `translation_pages_pending` ON `translation_pages` (`pending_run`);--> statement-breakpoint
CREATE TABLE `translation_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`translation_id` text NOT NULL,
	`source_revision_id` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`failure` text,
	`pages_total` integer DEFAULT 0 NOT NULL,
	`pages_done` integer DEFAULT 0 NOT NULL,
	`words` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	`touched_at` text,
	`requeues` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`translation_id`) REFERENCES `translations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `translation_runs_translation` ON `translation_runs` (`translation_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `translation_runs_unfinished` ON `translation_runs` (`finished_at`,`touched_at`);--> statement-breakpoint
CREATE TABLE `translation_segments` (
	`translation_id` text NOT NULL,
	`hash` text NOT NULL,
	`translated` text NOT NULL,
	`words` integer DEFAULT 0 NOT NULL,
	`run_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`translation_id`, `hash`),
	FOREIGN KEY (`translation_id`) REFERENCES `translations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `translation_segments_run` ON `translation_segments` (`translation_id`,`run_id`);--> statement-breakpoint
CREATE TABLE `translations` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`source_space_id` text NOT NULL,
	`source_language` text NOT NULL,
	`language` text NOT NULL,
	`result_space_id` text NOT NULL,
	`instructions` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`failure` text,
	`run_id` text,
	`result_revision_id` text,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`total_words` integer DEFAULT 0 NOT NULL,
	`total_pages` integer DEFAULT 0 NOT NULL,
	`total_duration_ms` integer DEFAULT 0 NOT NULL,
	`latest_run_duration_ms` integer DEFAULT 0 NOT NULL,
	`latest_pages` integer DEFAULT 0 NOT NULL,
	`latest_words` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `translations_org` ON `translations` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `translations_source_language` ON `translations` (`source_space_id`,`language`);--> statement-breakpoint
CREATE INDEX `translations_result_space` ON `translations` (`result_space_id`);--> statement-breakpoint
CREATE TABLE `saml_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`label` text NOT NULL,
	`entity_id` text DEFAULT '' NOT NULL,
	`certificate` text DEFAULT '' NOT NULL,
	`sso_url` text DEFAULT '' NOT NULL,
	`default_team_id` text,
	`default_role` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`default_team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `saml_providers_org` ON `saml_providers` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `saml_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`relay_state` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`consumed_at` text,
	FOREIGN KEY (`provider_id`) REFERENCES `saml_providers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `saml_requests_provider` ON `saml_requests` (`provider_id`);--> statement-breakpoint
CREATE INDEX `saml_requests_expires` ON `saml_requests` (`expires_at`);--> statement-breakpoint
DROP INDEX `users_email_unique`;--> statement-breakpoint
ALTER TABLE `users` ADD `sso_provider_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `users_sso_email_unique` ON `users` (`sso_provider_id`,`email`) WHERE sso_provider_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`) WHERE sso_provider_id is null;