CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`label` text,
	`hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_hash_unique` ON `api_tokens` (`hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_user` ON `api_tokens` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`display_name` text NOT NULL,
	`email` text NOT NULL,
	`email_verified` integer DEFAULT true NOT NULL,
	`photo_url` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `org_email_invites` (
	`org_id` text NOT NULL,
	`email` text NOT NULL,
	`role` integer NOT NULL,
	`sso` integer DEFAULT false NOT NULL,
	`invited_by` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `email`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `org_email_invites_email` ON `org_email_invites` (`email`);--> statement-breakpoint
CREATE TABLE `org_link_invites` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`role` integer NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `org_link_invites_org` ON `org_link_invites` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `org_members` (
	`org_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` integer NOT NULL,
	`joined_at` text NOT NULL,
	`last_seen_at` text,
	`disabled` integer DEFAULT false NOT NULL,
	`sso` integer DEFAULT false NOT NULL,
	PRIMARY KEY(`org_id`, `user_id`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `org_members_user` ON `org_members` (`user_id`);--> statement-breakpoint
CREATE INDEX `org_members_joined` ON `org_members` (`org_id`,`joined_at`,`user_id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`created_at` text NOT NULL,
	`email_domains` text DEFAULT '[]' NOT NULL,
	`hostname` text,
	`type` text DEFAULT 'business' NOT NULL,
	`use_case` text,
	`community_type` text,
	`default_role` integer,
	`default_content` text,
	`logo` text,
	`sso` integer DEFAULT false NOT NULL,
	`ai` integer DEFAULT false NOT NULL,
	`invite_links` integer DEFAULT true NOT NULL,
	`merge_rules` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_hostname_unique` ON `organizations` (`hostname`);--> statement-breakpoint
CREATE TABLE `team_members` (
	`team_id` text NOT NULL,
	`user_id` text NOT NULL,
	`is_owner` integer DEFAULT false NOT NULL,
	`added_at` text NOT NULL,
	PRIMARY KEY(`team_id`, `user_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `team_members_user` ON `team_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `teams` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`title` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `teams_org` ON `teams` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `collections` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`parent_id` text,
	`title` text NOT NULL,
	`description` text,
	`default_level` integer,
	`access_cap` integer DEFAULT 6 NOT NULL,
	`position` real NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `collections_org` ON `collections` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `collections_parent` ON `collections` (`parent_id`,`position`);--> statement-breakpoint
CREATE TABLE `revisions` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`parents` text DEFAULT '[]' NOT NULL,
	`type` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `revisions_space` ON `revisions` (`space_id`);--> statement-breakpoint
CREATE TABLE `space_team_grants` (
	`space_id` text NOT NULL,
	`team_id` text NOT NULL,
	`role` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`space_id`, `team_id`),
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `space_team_grants_team` ON `space_team_grants` (`team_id`);--> statement-breakpoint
CREATE TABLE `space_user_grants` (
	`space_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`space_id`, `user_id`),
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `space_user_grants_user` ON `space_user_grants` (`user_id`);--> statement-breakpoint
CREATE TABLE `spaces` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`parent_id` text,
	`title` text NOT NULL,
	`emoji` text DEFAULT '' NOT NULL,
	`visibility` text DEFAULT 'private' NOT NULL,
	`edit_mode` text DEFAULT 'live' NOT NULL,
	`merge_rules` text DEFAULT '{"type":"inherit"}' NOT NULL,
	`language` text,
	`default_level` integer,
	`access_cap` integer DEFAULT 6 NOT NULL,
	`position` real NOT NULL,
	`revision_id` text NOT NULL,
	`comments_count` integer DEFAULT 0 NOT NULL,
	`change_requests_count` integer DEFAULT 0 NOT NULL,
	`change_requests_open` integer DEFAULT 0 NOT NULL,
	`change_requests_draft` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `spaces_org` ON `spaces` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `spaces_parent` ON `spaces` (`parent_id`,`position`);--> statement-breakpoint
CREATE INDEX `spaces_deleted` ON `spaces` (`deleted_at`);