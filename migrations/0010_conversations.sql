CREATE TABLE `conversation_clusters` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`analyzer` text NOT NULL,
	`label` text NOT NULL,
	`icon` text NOT NULL,
	`summary` text NOT NULL,
	`muted` integer DEFAULT false NOT NULL,
	`centroid` text NOT NULL,
	`issues_count` integer DEFAULT 0 NOT NULL,
	`conversations_count` integer DEFAULT 0 NOT NULL,
	`sources` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversation_clusters_org_updated` ON `conversation_clusters` (`org_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversation_clusters_org_created` ON `conversation_clusters` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversation_clusters_org_issues` ON `conversation_clusters` (`org_id`,`issues_count`,`id`);--> statement-breakpoint
CREATE INDEX `conversation_clusters_org_conversations` ON `conversation_clusters` (`org_id`,`conversations_count`,`id`);--> statement-breakpoint
CREATE TABLE `conversation_issues` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`cluster_id` text NOT NULL,
	`position` integer NOT NULL,
	`title` text NOT NULL,
	`summary` text NOT NULL,
	`details` text NOT NULL,
	`impact` text NOT NULL,
	`vector` text NOT NULL,
	`created_at` text NOT NULL,
	`ingested_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversation_issues_org` ON `conversation_issues` (`org_id`,`ingested_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversation_issues_cluster` ON `conversation_issues` (`cluster_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `conversation_issues_conversation` ON `conversation_issues` (`conversation_id`,`position`);--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`source` text NOT NULL,
	`external_id` text NOT NULL,
	`subject` text,
	`url` text,
	`attributes` text,
	`started_at` text,
	`parts` text NOT NULL,
	`content_hash` text NOT NULL,
	`impact` text,
	`analysis_state` text DEFAULT 'pending' NOT NULL,
	`analysis_job` text,
	`queued_at` text,
	`analysis_attempts` integer DEFAULT 0 NOT NULL,
	`processed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_source_id` ON `conversations` (`org_id`,`source`,`external_id`);--> statement-breakpoint
CREATE INDEX `conversations_org` ON `conversations` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_org_source` ON `conversations` (`org_id`,`source`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_requeue` ON `conversations` (`analysis_state`,`queued_at`);--> statement-breakpoint
ALTER TABLE `change_requests` ADD `conversations_issues_cluster` text;--> statement-breakpoint
CREATE INDEX `change_requests_cluster` ON `change_requests` (`conversations_issues_cluster`);