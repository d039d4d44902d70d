CREATE TABLE `page_comment_counts` (
	`space_id` text NOT NULL,
	`page_id` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`space_id`, `page_id`),
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `organizations` ADD `space_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `member_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `integration_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `installation_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `conversations_day` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `conversations_today` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Usage counters for the caps (src/services/limits): kept by triggers, so every write that changes what a cap
-- counts changes its counter in the same statement, whichever route or job made it. Backfilled below.
UPDATE `organizations` SET
  `space_count` = (SELECT count(*) FROM `spaces` s WHERE s.org_id = organizations.id AND s.deleted_at IS NULL),
  `member_count` = (SELECT count(*) FROM `org_members` m WHERE m.org_id = organizations.id),
  `integration_count` = (SELECT count(*) FROM `integrations` i WHERE i.owner_org_id = organizations.id AND i.deleted_at IS NULL),
  `installation_count` = (SELECT count(*) FROM `integration_installations` i WHERE i.org_id = organizations.id);--> statement-breakpoint
INSERT INTO `page_comment_counts` (`space_id`, `page_id`, `count`)
  SELECT c.space_id, coalesce(c.page_id, 'change-request:' || c.change_request_id, ''), count(*) + coalesce(sum((SELECT count(*) FROM comment_replies r WHERE r.comment_id = c.id)), 0)
  FROM `comments` c GROUP BY c.space_id, coalesce(c.page_id, 'change-request:' || c.change_request_id, '');--> statement-breakpoint
CREATE TRIGGER `spaces_count_ai` AFTER INSERT ON `spaces` WHEN new.deleted_at IS NULL BEGIN
  UPDATE organizations SET space_count = space_count + 1 WHERE id = new.org_id;
END;--> statement-breakpoint
-- A space follows its organization across transfers, and leaves and re-enters the count with the trash.
CREATE TRIGGER `spaces_count_au` AFTER UPDATE OF `org_id`, `deleted_at` ON `spaces`
  WHEN old.org_id IS NOT new.org_id OR (old.deleted_at IS NULL) <> (new.deleted_at IS NULL) BEGIN
  UPDATE organizations SET space_count = space_count - 1 WHERE id = old.org_id AND old.deleted_at IS NULL;
  UPDATE organizations SET space_count = space_count + 1 WHERE id = new.org_id AND new.deleted_at IS NULL;
END;--> statement-breakpoint
CREATE TRIGGER `spaces_count_ad` AFTER DELETE ON `spaces` WHEN old.deleted_at IS NULL BEGIN
  UPDATE organizations SET space_count = space_count - 1 WHERE id = old.org_id;
END;--> statement-breakpoint
CREATE TRIGGER `org_members_count_ai` AFTER INSERT ON `org_members` BEGIN
  UPDATE organizations SET member_count = member_count + 1 WHERE id = new.org_id;
END;--> statement-breakpoint
CREATE TRIGGER `org_members_count_ad` AFTER DELETE ON `org_members` BEGIN
  UPDATE organizations SET member_count = member_count - 1 WHERE id = old.org_id;
END;--> statement-breakpoint
-- Published integrations: an unpublished one (a tombstone until the purge, deleted_at set) no longer counts.
CREATE TRIGGER `integrations_count_ai` AFTER INSERT ON `integrations` WHEN new.deleted_at IS NULL BEGIN
  UPDATE organizations SET integration_count = integration_count + 1 WHERE id = new.owner_org_id;
END;--> statement-breakpoint
CREATE TRIGGER `integrations_count_ad` AFTER DELETE ON `integrations` WHEN old.deleted_at IS NULL BEGIN
  UPDATE organizations SET integration_count = integration_count - 1 WHERE id = old.owner_org_id;
END;--> statement-breakpoint
CREATE TRIGGER `integrations_count_au` AFTER UPDATE OF `owner_org_id`, `deleted_at` ON `integrations`
  WHEN old.owner_org_id IS NOT new.owner_org_id OR (old.deleted_at IS NULL) <> (new.deleted_at IS NULL) BEGIN
  UPDATE organizations SET integration_count = integration_count - 1 WHERE id = old.owner_org_id AND old.deleted_at IS NULL;
  UPDATE organizations SET integration_count = integration_count + 1 WHERE id = new.owner_org_id AND new.deleted_at IS NULL;
END;--> statement-breakpoint
CREATE TRIGGER `installations_count_ai` AFTER INSERT ON `integration_installations` BEGIN
  UPDATE organizations SET installation_count = installation_count + 1 WHERE id = new.org_id;
END;--> statement-breakpoint
CREATE TRIGGER `installations_count_ad` AFTER DELETE ON `integration_installations` BEGIN
  UPDATE organizations SET installation_count = installation_count - 1 WHERE id = old.org_id;
END;--> statement-breakpoint
CREATE TRIGGER `comments_count_ai` AFTER INSERT ON `comments` BEGIN
  INSERT INTO page_comment_counts (space_id, page_id, count) VALUES (new.space_id, coalesce(new.page_id, 'change-request:' || new.change_request_id, ''), 1)
    ON CONFLICT (space_id, page_id) DO UPDATE SET count = count + 1;
END;--> statement-breakpoint
-- Before the row goes, while its replies are still there: a cascaded reply delete no longer finds its comment.
CREATE TRIGGER `comments_count_bd` BEFORE DELETE ON `comments` BEGIN
  UPDATE page_comment_counts SET count = count - 1 - (SELECT count(*) FROM comment_replies WHERE comment_id = old.id)
    WHERE space_id = old.space_id AND page_id = coalesce(old.page_id, 'change-request:' || old.change_request_id, '');
END;--> statement-breakpoint
CREATE TRIGGER `comment_replies_count_ai` AFTER INSERT ON `comment_replies` BEGIN
  UPDATE page_comment_counts SET count = count + 1
    WHERE (space_id, page_id) = (SELECT space_id, coalesce(page_id, 'change-request:' || change_request_id, '') FROM comments WHERE id = new.comment_id);
END;--> statement-breakpoint
CREATE TRIGGER `comment_replies_count_ad` AFTER DELETE ON `comment_replies` BEGIN
  UPDATE page_comment_counts SET count = count - 1
    WHERE (space_id, page_id) = (SELECT space_id, coalesce(page_id, 'change-request:' || change_request_id, '') FROM comments WHERE id = old.comment_id);
END;
