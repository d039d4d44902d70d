-- Sharing collections and sites with people and teams (issue 44): the grants of collections and sites, as
-- space_user_grants and space_team_grants are for spaces. A collection's grants reach every space and collection
-- nested in it; a site's grants reach the site (read unpublished, and the site's settings at admin) and every
-- space the site links. Rows go with their collection, site, user or team (ON DELETE CASCADE). The `*_user`
-- and `*_team` indexes serve the role resolution, which looks grants up by user (or the user's teams).
CREATE TABLE `collection_user_grants` (
	`collection_id` text NOT NULL REFERENCES `collections`(`id`) ON DELETE cascade,
	`user_id` text NOT NULL REFERENCES `users`(`id`) ON DELETE cascade,
	`role` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`collection_id`, `user_id`)
);--> statement-breakpoint
CREATE INDEX `collection_user_grants_user` ON `collection_user_grants` (`user_id`);--> statement-breakpoint
CREATE INDEX `collection_user_grants_listed` ON `collection_user_grants` (`collection_id`,`created_at`,`user_id`);--> statement-breakpoint
CREATE TABLE `collection_team_grants` (
	`collection_id` text NOT NULL REFERENCES `collections`(`id`) ON DELETE cascade,
	`team_id` text NOT NULL REFERENCES `teams`(`id`) ON DELETE cascade,
	`role` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`collection_id`, `team_id`)
);--> statement-breakpoint
CREATE INDEX `collection_team_grants_team` ON `collection_team_grants` (`team_id`);--> statement-breakpoint
CREATE INDEX `collection_team_grants_listed` ON `collection_team_grants` (`collection_id`,`created_at`,`team_id`);--> statement-breakpoint
CREATE TABLE `site_user_grants` (
	`site_id` text NOT NULL REFERENCES `sites`(`id`) ON DELETE cascade,
	`user_id` text NOT NULL REFERENCES `users`(`id`) ON DELETE cascade,
	`role` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`site_id`, `user_id`)
);--> statement-breakpoint
CREATE INDEX `site_user_grants_user` ON `site_user_grants` (`user_id`);--> statement-breakpoint
CREATE INDEX `site_user_grants_listed` ON `site_user_grants` (`site_id`,`created_at`,`user_id`);--> statement-breakpoint
CREATE TABLE `site_team_grants` (
	`site_id` text NOT NULL REFERENCES `sites`(`id`) ON DELETE cascade,
	`team_id` text NOT NULL REFERENCES `teams`(`id`) ON DELETE cascade,
	`role` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`site_id`, `team_id`)
);--> statement-breakpoint
CREATE INDEX `site_team_grants_team` ON `site_team_grants` (`team_id`);--> statement-breakpoint
CREATE INDEX `site_team_grants_listed` ON `site_team_grants` (`site_id`,`created_at`,`team_id`);
