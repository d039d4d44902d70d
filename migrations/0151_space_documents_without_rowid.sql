-- Hand-written (issue 42, storage): `space_documents` as a WITHOUT ROWID table. Its rows are only their key (space,
-- document hash), yet as a rowid table SQLite kept them twice: the table (row id, space, hash) and the index of its
-- primary key (space, hash, row id). Keyed by (space, hash) itself, the table is that index: every edit writes 5 such
-- rows (its page's document and the page map's nodes), about 75 bytes each that were stored a second time
-- (the AxonIQ guide: 0.04 of an edited page's Markdown, 0.07 per page). The lookups are the same: by space (the
-- primary key's prefix) and by hash (`space_documents_hash`, which now repeats the space instead of a row id).
-- Nothing reads its row ids. The foreign key to spaces (a purge's cascade) is kept.
CREATE TABLE `space_documents_keyed` (
	`space_id` text NOT NULL,
	`hash` text NOT NULL,
	PRIMARY KEY(`space_id`, `hash`),
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `space_documents_keyed` (`space_id`, `hash`) SELECT `space_id`, `hash` FROM `space_documents`;--> statement-breakpoint
DROP TABLE `space_documents`;--> statement-breakpoint
ALTER TABLE `space_documents_keyed` RENAME TO `space_documents`;--> statement-breakpoint
CREATE INDEX `space_documents_hash` ON `space_documents` (`hash`);
