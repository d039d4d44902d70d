-- getContributorsByChangeRequestId (issue 44): GitBook's ChangeRequestUserContributor counts a contributor's edits and
-- says when they last edited. Each content batch of a change request adds one to its author's `edits` and sets
-- `updated_at` (services/content/head-moves), in the batch that moves the change request's head; its creator starts
-- with none. Rows from before count one edit, at the change request's last update: the best that is known of them.
ALTER TABLE `change_request_contributors` ADD `edits` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `change_request_contributors` ADD `updated_at` text;--> statement-breakpoint
UPDATE `change_request_contributors` SET `edits` = 1,
  `updated_at` = (SELECT cr.`updated_at` FROM `change_requests` cr WHERE cr.`id` = `change_request_contributors`.`change_request_id`);
