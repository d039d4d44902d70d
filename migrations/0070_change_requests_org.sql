-- Organization-wide change request lists (listChangeRequestsForOrganization) independent of the organization's size
-- (issue 42): each change request carries its space's organization, and the list reads a page along
-- (org_id, status, <sort column>, id), stopping after a page, instead of gathering every change request of every
-- space of the organization and sorting them. Triggers keep the column right whichever route, job or Durable Object
-- writes: a new change request takes its space's organization, and a space moved to another organization
-- (transferSpace, transferCollection) takes its change requests with it.
ALTER TABLE `change_requests` ADD `org_id` text;--> statement-breakpoint
UPDATE `change_requests` SET `org_id` = (SELECT s.`org_id` FROM `spaces` s WHERE s.`id` = `change_requests`.`space_id`);--> statement-breakpoint
CREATE INDEX `change_requests_org_updated` ON `change_requests` (`org_id`,`status`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `change_requests_org_created` ON `change_requests` (`org_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE TRIGGER `change_requests_org_ai` AFTER INSERT ON `change_requests`
  WHEN new.`org_id` IS NOT (SELECT s.`org_id` FROM `spaces` s WHERE s.`id` = new.`space_id`) BEGIN
  UPDATE `change_requests` SET `org_id` = (SELECT s.`org_id` FROM `spaces` s WHERE s.`id` = new.`space_id`) WHERE `id` = new.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `spaces_org_change_requests_au` AFTER UPDATE OF `org_id` ON `spaces`
  WHEN old.`org_id` IS NOT new.`org_id` BEGIN
  UPDATE `change_requests` SET `org_id` = new.`org_id` WHERE `space_id` = new.`id`;
END;
