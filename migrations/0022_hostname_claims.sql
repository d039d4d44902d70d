-- Custom hostnames are unique among verified claims only (issue 38): a pending claim proves nothing, so it must not
-- lock the name out of the organization that really owns it, nor tell anyone which names other tenants claimed.
-- Several organizations may hold the same name pending; the first to answer its DNS challenge takes it, and the
-- others' pending claims of it are cleared then (routes/organizations/organizations.ts). A pending claim expires
-- CUSTOM_HOSTNAME_PENDING_DAYS after `custom_hostname_claimed_at` (services/organizations/hostnames.ts); the cron
-- clears expired ones.
DROP INDEX `organizations_custom_hostname_unique`;--> statement-breakpoint
ALTER TABLE `organizations` ADD `custom_hostname_claimed_at` text;--> statement-breakpoint
-- Claims made before this migration: their expiry runs from now.
UPDATE `organizations` SET `custom_hostname_claimed_at` = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE `custom_hostname` IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_custom_hostname_verified_unique` ON `organizations` (`custom_hostname`) WHERE `custom_hostname_verified_at` IS NOT NULL;--> statement-breakpoint
CREATE INDEX `organizations_custom_hostname` ON `organizations` (`custom_hostname`);
