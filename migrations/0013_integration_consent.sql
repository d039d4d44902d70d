-- Consent: the scopes an installation's organization approved. Its tokens carry only the scopes of the
-- integration that are also approved; a publish asking for more leaves the installation `pending`.
ALTER TABLE `integration_installations` ADD `approved_scopes` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- Existing installations approved what their integration asks for today (they run with it already).
UPDATE `integration_installations` SET `approved_scopes` = coalesce((SELECT `scopes` FROM `integrations` WHERE `integrations`.`id` = `integration_installations`.`integration_id`), '[]');
