CREATE TABLE `change_request_review_requests` (
	`change_request_id` text NOT NULL,
	`user_id` text NOT NULL,
	`requested_by` text NOT NULL,
	`revision_id` text NOT NULL,
	`created_at` text NOT NULL,
	`seq` integer NOT NULL,
	PRIMARY KEY(`change_request_id`, `user_id`),
	FOREIGN KEY (`change_request_id`) REFERENCES `change_requests`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `change_request_review_requests_user` ON `change_request_review_requests` (`user_id`);--> statement-breakpoint
CREATE TABLE `change_request_reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`change_request_id` text NOT NULL,
	`reviewer_id` text NOT NULL,
	`requested_by` text,
	`status` text NOT NULL,
	`revision_id` text NOT NULL,
	`comment_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`seq` integer NOT NULL,
	FOREIGN KEY (`change_request_id`) REFERENCES `change_requests`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`reviewer_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `change_request_reviews_cr` ON `change_request_reviews` (`change_request_id`,`seq`);--> statement-breakpoint
CREATE INDEX `change_request_reviews_reviewer` ON `change_request_reviews` (`change_request_id`,`reviewer_id`,`seq`);--> statement-breakpoint
CREATE TABLE `comment_reactions` (
	`target_id` text NOT NULL,
	`comment_id` text NOT NULL,
	`reply_id` text,
	`emoji` text NOT NULL,
	`user_id` text NOT NULL,
	`reacted_at` text NOT NULL,
	PRIMARY KEY(`target_id`, `emoji`, `user_id`),
	FOREIGN KEY (`comment_id`) REFERENCES `comments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`reply_id`) REFERENCES `comment_replies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `comment_reactions_comment` ON `comment_reactions` (`comment_id`);--> statement-breakpoint
CREATE INDEX `comment_reactions_reply` ON `comment_reactions` (`reply_id`);--> statement-breakpoint
CREATE TABLE `comment_replies` (
	`id` text PRIMARY KEY NOT NULL,
	`comment_id` text NOT NULL,
	`body` text NOT NULL,
	`posted_by` text NOT NULL,
	`posted_at` text NOT NULL,
	`edited_at` text,
	FOREIGN KEY (`comment_id`) REFERENCES `comments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`posted_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `comment_replies_comment` ON `comment_replies` (`comment_id`,`posted_at`,`id`);--> statement-breakpoint
CREATE TABLE `comments` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`change_request_id` text,
	`review_id` text,
	`page_id` text,
	`node_key` text,
	`table_cell` text,
	`revision_id` text NOT NULL,
	`body` text NOT NULL,
	`posted_by` text NOT NULL,
	`posted_at` text NOT NULL,
	`edited_at` text,
	`status` text DEFAULT 'open' NOT NULL,
	`resolved_at` text,
	`resolved_by` text,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`change_request_id`) REFERENCES `change_requests`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`posted_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `comments_space` ON `comments` (`space_id`,`change_request_id`,`posted_at`,`id`);--> statement-breakpoint
CREATE INDEX `comments_change_request` ON `comments` (`change_request_id`,`posted_at`,`id`);--> statement-breakpoint
CREATE INDEX `comments_author` ON `comments` (`posted_by`);