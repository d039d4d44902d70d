CREATE TABLE `space_documents` (
	`space_id` text NOT NULL,
	`hash` text NOT NULL,
	PRIMARY KEY(`space_id`, `hash`),
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `space_documents_hash` ON `space_documents` (`hash`);--> statement-breakpoint
-- Existing revisions' documents, so the purge sees every reference.
INSERT OR IGNORE INTO `space_documents` (`space_id`, `hash`)
  SELECT DISTINCT r.space_id, j.value FROM revisions r, json_tree(r.manifest) j
  WHERE j.key = 'document' AND r.space_id IN (SELECT id FROM spaces);
