-- A space's change-request list held per isolate (services/content/change-request-lists, issue 42 item 6): every row
-- the list shows is a change request of the space with its creator's name, email and photo, so a number that moves
-- with each of them tells an isolate whether the list it holds is the space's now. Triggers move it whichever route,
-- job or Durable Object writes (a change request created, edited, merged, commented, deleted; its creator renamed or
-- deleted), in the same transaction as the write. The space's own row (its revision, for `outdated`) is read on
-- every request and needs none. Never written by the Worker.
ALTER TABLE `spaces` ADD `change_requests_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE TRIGGER `change_requests_version_ai` AFTER INSERT ON `change_requests` BEGIN
  UPDATE `spaces` SET `change_requests_version` = `change_requests_version` + 1 WHERE `id` = new.`space_id`;
END;--> statement-breakpoint
CREATE TRIGGER `change_requests_version_au` AFTER UPDATE ON `change_requests` BEGIN
  UPDATE `spaces` SET `change_requests_version` = `change_requests_version` + 1 WHERE `id` IN (old.`space_id`, new.`space_id`);
END;--> statement-breakpoint
CREATE TRIGGER `change_requests_version_ad` AFTER DELETE ON `change_requests` BEGIN
  UPDATE `spaces` SET `change_requests_version` = `change_requests_version` + 1 WHERE `id` = old.`space_id`;
END;--> statement-breakpoint
CREATE TRIGGER `users_change_requests_version_au` AFTER UPDATE OF `display_name`, `email`, `photo_url` ON `users` BEGIN
  UPDATE `spaces` SET `change_requests_version` = `change_requests_version` + 1
    WHERE `id` IN (SELECT `space_id` FROM `change_requests` WHERE `created_by` = new.`id`);
END;--> statement-breakpoint
CREATE TRIGGER `users_change_requests_version_ad` AFTER DELETE ON `users` BEGIN
  UPDATE `spaces` SET `change_requests_version` = `change_requests_version` + 1
    WHERE `id` IN (SELECT `space_id` FROM `change_requests` WHERE `created_by` = old.`id`);
END;
