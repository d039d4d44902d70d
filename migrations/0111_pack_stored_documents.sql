-- Hand-written (issue 42, storage): carrying documents stored before 0052 (JSON text, no refs) over to the packed form.
-- Brotli is no SQL function, so the cron packs them (services/content/pack-stored.ts) in bounded steps, walking the
-- documents table in hash order from where its last step stopped: `cursor` is the last hash it read, `done_at` set once
-- it reached the end (documents written since 0052 are packed when written; nothing is left to carry over after that).
CREATE TABLE `storage_jobs` (
  `name` text PRIMARY KEY NOT NULL,
  `cursor` text NOT NULL DEFAULT '',
  `done_at` text
);
INSERT INTO `storage_jobs` (`name`) VALUES ('pack-documents');
