-- An organization's custom hostname (docs.example.com), served only once its owner has proved it with a DNS TXT
-- record `_docs-platform-challenge.<hostname>` whose value is `custom_hostname_challenge`: until then
-- `custom_hostname_verified_at` is null and the hostname serves nothing (src/services/organizations-hostnames.ts).
ALTER TABLE `organizations` ADD `custom_hostname` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `custom_hostname_challenge` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `custom_hostname_verified_at` text;--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_custom_hostname_unique` ON `organizations` (`custom_hostname`);
