-- Organization-wide lists at a cost independent of the organization's size (issue 42, item 5), continued.
-- Counters of an organization's sites and teams, kept by triggers as the space and member counters are (0011):
-- every member of the members list shows the organization's site count (it was counted once per member row), and
-- the teams list's `count` is the team counter.
ALTER TABLE `organizations` ADD `site_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `team_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `organizations` SET
  `site_count` = (SELECT count(*) FROM `sites` s WHERE s.org_id = organizations.id),
  `team_count` = (SELECT count(*) FROM `teams` t WHERE t.org_id = organizations.id);--> statement-breakpoint
CREATE TRIGGER `sites_count_ai` AFTER INSERT ON `sites` BEGIN
  UPDATE organizations SET site_count = site_count + 1 WHERE id = new.org_id;
END;--> statement-breakpoint
CREATE TRIGGER `sites_count_au` AFTER UPDATE OF `org_id` ON `sites` WHEN old.org_id IS NOT new.org_id BEGIN
  UPDATE organizations SET site_count = site_count - 1 WHERE id = old.org_id;
  UPDATE organizations SET site_count = site_count + 1 WHERE id = new.org_id;
END;--> statement-breakpoint
CREATE TRIGGER `sites_count_ad` AFTER DELETE ON `sites` BEGIN
  UPDATE organizations SET site_count = site_count - 1 WHERE id = old.org_id;
END;--> statement-breakpoint
CREATE TRIGGER `teams_count_ai` AFTER INSERT ON `teams` BEGIN
  UPDATE organizations SET team_count = team_count + 1 WHERE id = new.org_id;
END;--> statement-breakpoint
CREATE TRIGGER `teams_count_au` AFTER UPDATE OF `org_id` ON `teams` WHEN old.org_id IS NOT new.org_id BEGIN
  UPDATE organizations SET team_count = team_count - 1 WHERE id = old.org_id;
  UPDATE organizations SET team_count = team_count + 1 WHERE id = new.org_id;
END;--> statement-breakpoint
CREATE TRIGGER `teams_count_ad` AFTER DELETE ON `teams` BEGIN
  UPDATE organizations SET team_count = team_count - 1 WHERE id = old.org_id;
END;--> statement-breakpoint
-- The deleted spaces of an organization (the trash, purged after 7 days): an organization's count of open change
-- requests is those of its index less those of its deleted spaces, read here rather than space by space.
CREATE INDEX `spaces_org_deleted` ON `spaces` (`org_id`) WHERE `deleted_at` IS NOT NULL;
