-- The audit log (issue 44): one row per recorded change of an organization (GitBook's AuditEvent), written by
-- services/audit in the same D1 batch as the change itself, never by an API caller, and purged by the hourly cron
-- after AUDIT_RETENTION_DAYS (services/audit/retention).
--
-- An event that concerns several organizations (a user's API token: every organization the user belongs to) is
-- one row per organization under one id: the key is (org_id, id). No foreign key on org_id: an organization
-- created in the same batch is inserted after its event row is written, and a record must never abort a change.
-- `changes_base` is SQLite's total_changes() when the row was written: the batch's last statement deletes the row
-- again when nothing else of the batch changed a row (services/audit/recorder), so a refused or no-op change
-- leaves no record. `ip` is truncated (IPv4 to /24, IPv6 to /48) and `user_agent` capped, before they are written.
CREATE TABLE `audit_events` (
  `org_id` text NOT NULL,
  `id` text NOT NULL,
  `occurred_at` text NOT NULL,
  `action` text NOT NULL,
  `actor_type` text NOT NULL,
  `actor_id` text NOT NULL,
  `actor_label` text,
  `source` text NOT NULL,
  `target_type` text NOT NULL,
  `target_id` text NOT NULL,
  `target_label` text,
  `execution_id` text,
  `payload` text NOT NULL,
  `changes_base` integer NOT NULL,
  PRIMARY KEY (`org_id`, `id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `audit_events_org_time` ON `audit_events` (`org_id`, `occurred_at`, `id`);
--> statement-breakpoint
CREATE INDEX `audit_events_org_actor` ON `audit_events` (`org_id`, `actor_id`, `occurred_at`);
--> statement-breakpoint
CREATE INDEX `audit_events_org_target` ON `audit_events` (`org_id`, `target_id`, `occurred_at`);
--> statement-breakpoint
CREATE INDEX `audit_events_time` ON `audit_events` (`occurred_at`);
