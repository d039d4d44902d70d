CREATE TABLE `org_agent_instructions` (
	`org_id` text PRIMARY KEY NOT NULL,
	`document` text NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `search_section_rows` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`space_id` text NOT NULL,
	`page_id` text NOT NULL,
	`space_key` text NOT NULL,
	`position` integer NOT NULL,
	`anchor` text NOT NULL,
	`page_title` text NOT NULL,
	`section_title` text NOT NULL,
	`body` text NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `search_section_rows_page` ON `search_section_rows` (`space_id`,`page_id`);--> statement-breakpoint
CREATE TABLE `space_index_state` (
	`space_id` text PRIMARY KEY NOT NULL,
	`revision_id` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `space_links` (
	`space_id` text NOT NULL,
	`page_id` text NOT NULL,
	`target_key` text NOT NULL,
	`target` text NOT NULL,
	`target_id` text,
	`status` text NOT NULL,
	PRIMARY KEY(`space_id`, `page_id`, `target_key`),
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `space_links_target` ON `space_links` (`space_id`,`target_key`);--> statement-breakpoint
CREATE INDEX `space_links_target_id` ON `space_links` (`space_id`,`target_id`);--> statement-breakpoint
CREATE INDEX `space_links_status` ON `space_links` (`space_id`,`status`,`target_key`);--> statement-breakpoint
-- Hand-written: the full-text index of search_section_rows (external content, kept in step by triggers).
-- unicode61 with remove_diacritics folds accents; prefix indexes serve the last word's prefix match; space_key
-- (`s<spaceId>`) lets a query match only the sections of the spaces it searches.
CREATE VIRTUAL TABLE `search_sections` USING fts5(page_title, section_title, body, space_key, content='search_section_rows', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3');--> statement-breakpoint
CREATE TRIGGER `search_section_rows_ai` AFTER INSERT ON `search_section_rows` BEGIN
  INSERT INTO search_sections(rowid, page_title, section_title, body, space_key) VALUES (new.id, new.page_title, new.section_title, new.body, new.space_key);
END;--> statement-breakpoint
CREATE TRIGGER `search_section_rows_ad` AFTER DELETE ON `search_section_rows` BEGIN
  INSERT INTO search_sections(search_sections, rowid, page_title, section_title, body, space_key) VALUES ('delete', old.id, old.page_title, old.section_title, old.body, old.space_key);
END;--> statement-breakpoint
CREATE TRIGGER `search_section_rows_au` AFTER UPDATE ON `search_section_rows` BEGIN
  INSERT INTO search_sections(search_sections, rowid, page_title, section_title, body, space_key) VALUES ('delete', old.id, old.page_title, old.section_title, old.body, old.space_key);
  INSERT INTO search_sections(rowid, page_title, section_title, body, space_key) VALUES (new.id, new.page_title, new.section_title, new.body, new.space_key);
END;
