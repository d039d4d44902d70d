CREATE TABLE `integration_event_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`level` text NOT NULL,
	`message` text NOT NULL,
	`timestamp` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `integration_events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `integration_event_logs_event` ON `integration_event_logs` (`event_id`,`id`);--> statement-breakpoint
CREATE TABLE `integration_events` (
	`id` text PRIMARY KEY NOT NULL,
	`integration_id` text NOT NULL,
	`installation_id` text,
	`org_id` text NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease_until` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`integration_id`) REFERENCES `integrations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `integration_events_list` ON `integration_events` (`integration_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `integration_events_pending` ON `integration_events` (`status`,`updated_at`);--> statement-breakpoint
CREATE TABLE `integration_installations` (
	`id` text PRIMARY KEY NOT NULL,
	`integration_id` text NOT NULL,
	`org_id` text NOT NULL,
	`bot_user_id` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`space_selection` text DEFAULT 'selected' NOT NULL,
	`site_selection` text DEFAULT 'selected' NOT NULL,
	`space_role` integer DEFAULT 0 NOT NULL,
	`configuration` text NOT NULL,
	`external_ids` text NOT NULL,
	`signing_secret` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`integration_id`) REFERENCES `integrations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bot_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `integration_installations_pair` ON `integration_installations` (`integration_id`,`org_id`);--> statement-breakpoint
CREATE INDEX `integration_installations_org` ON `integration_installations` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `integration_installations_list` ON `integration_installations` (`integration_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `integration_installations_bot` ON `integration_installations` (`bot_user_id`);--> statement-breakpoint
CREATE TABLE `integration_site_installations` (
	`installation_id` text NOT NULL,
	`site_id` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`configuration` text NOT NULL,
	`external_ids` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`installation_id`, `site_id`),
	FOREIGN KEY (`installation_id`) REFERENCES `integration_installations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `integration_site_installations_site` ON `integration_site_installations` (`site_id`);--> statement-breakpoint
CREATE INDEX `integration_site_installations_list` ON `integration_site_installations` (`installation_id`,`created_at`,`site_id`);--> statement-breakpoint
CREATE TABLE `integration_space_installations` (
	`installation_id` text NOT NULL,
	`space_id` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`configuration` text NOT NULL,
	`external_ids` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`installation_id`, `space_id`),
	FOREIGN KEY (`installation_id`) REFERENCES `integration_installations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `integration_space_installations_space` ON `integration_space_installations` (`space_id`);--> statement-breakpoint
CREATE INDEX `integration_space_installations_list` ON `integration_space_installations` (`installation_id`,`created_at`,`space_id`);--> statement-breakpoint
CREATE TABLE `integration_tokens` (
	`hash` text PRIMARY KEY NOT NULL,
	`integration_id` text NOT NULL,
	`installation_id` text,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`integration_id`) REFERENCES `integrations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`installation_id`) REFERENCES `integration_installations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `integration_tokens_expiry` ON `integration_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `integrations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`owner_org_id` text NOT NULL,
	`bot_user_id` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`runtime` text DEFAULT 'v1' NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`summary` text,
	`visibility` text DEFAULT 'private' NOT NULL,
	`target` text DEFAULT 'all' NOT NULL,
	`verified` integer DEFAULT false NOT NULL,
	`scopes` text NOT NULL,
	`categories` text NOT NULL,
	`blocks` text NOT NULL,
	`content_sources` text NOT NULL,
	`external_links` text NOT NULL,
	`configurations` text NOT NULL,
	`content_security_policy` text,
	`icon_key` text,
	`preview_keys` text NOT NULL,
	`script_key` text,
	`secrets` text,
	`dev_tunnel_url` text,
	`dev_all` integer DEFAULT false NOT NULL,
	`deleted_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`owner_org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bot_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `integrations_name_unique` ON `integrations` (`name`);--> statement-breakpoint
CREATE INDEX `integrations_owner` ON `integrations` (`owner_org_id`);