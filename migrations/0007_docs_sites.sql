CREATE TABLE `site_section_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`parent_id` text,
	`title` text NOT NULL,
	`icon` text,
	`position` real NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `site_section_groups_site` ON `site_section_groups` (`site_id`);--> statement-breakpoint
CREATE TABLE `site_sections` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`group_id` text,
	`title` text NOT NULL,
	`description` text,
	`icon` text,
	`path` text NOT NULL,
	`condition` text,
	`is_default` integer DEFAULT false NOT NULL,
	`position` real NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `site_sections_site` ON `site_sections` (`site_id`);--> statement-breakpoint
CREATE TABLE `site_share_links` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`name` text NOT NULL,
	`key` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `site_share_links_site` ON `site_share_links` (`site_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `site_share_links_key` ON `site_share_links` (`key`);--> statement-breakpoint
CREATE TABLE `site_spaces` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`section_id` text,
	`space_id` text NOT NULL,
	`path` text NOT NULL,
	`title` text,
	`condition` text,
	`hidden` integer DEFAULT false NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`position` real NOT NULL,
	`customization` text,
	`customization_updated_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `site_spaces_site` ON `site_spaces` (`site_id`);--> statement-breakpoint
CREATE INDEX `site_spaces_space` ON `site_spaces` (`space_id`);--> statement-breakpoint
CREATE TABLE `site_structure_guard` (
	`ok` integer NOT NULL,
	CONSTRAINT "site_structure_guard_ok" CHECK("site_structure_guard"."ok" = 1)
);
--> statement-breakpoint
CREATE TABLE `sites` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`type` text DEFAULT 'basic' NOT NULL,
	`title` text NOT NULL,
	`visibility` text DEFAULT 'public' NOT NULL,
	`published` integer DEFAULT false NOT NULL,
	`basename` text NOT NULL,
	`proxy` text,
	`adaptive_content` integer DEFAULT false NOT NULL,
	`agents_context` text DEFAULT 'included' NOT NULL,
	`default_level` integer,
	`customization` text,
	`customization_updated_at` text,
	`adaptive_schema` text,
	`adaptive_schema_updated_at` text,
	`auth_key` text NOT NULL,
	`auth_fallback_url` text,
	`auth_logout_url` text,
	`structure_version` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sites_org` ON `sites` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `sites_org_basename` ON `sites` (`org_id`,`basename`);