CREATE TABLE `change_request_contributors` (
	`change_request_id` text NOT NULL,
	`user_id` text NOT NULL,
	PRIMARY KEY(`change_request_id`, `user_id`),
	FOREIGN KEY (`change_request_id`) REFERENCES `change_requests`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `change_request_contributors_user` ON `change_request_contributors` (`user_id`);--> statement-breakpoint
CREATE TABLE `change_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`number` integer NOT NULL,
	`status` text NOT NULL,
	`subject` text DEFAULT '' NOT NULL,
	`description` text,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`revision_id` text NOT NULL,
	`revision_initial` text NOT NULL,
	`revision_merged_ancestor` text,
	`revision_merged` text,
	`comments_count` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `change_requests_number` ON `change_requests` (`space_id`,`number`);--> statement-breakpoint
CREATE INDEX `change_requests_space_status` ON `change_requests` (`space_id`,`status`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `change_requests_creator` ON `change_requests` (`created_by`);--> statement-breakpoint
CREATE TABLE `documents` (
	`hash` text PRIMARY KEY NOT NULL,
	`body` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `revisions` ADD `manifest` text DEFAULT '{"pages":[],"files":[],"variables":{},"reusableContents":[]}' NOT NULL;--> statement-breakpoint
ALTER TABLE `revisions` ADD `merged_from` text;